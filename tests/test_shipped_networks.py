"""The networks the package ships (``nardy_fast/data/nets``): one per variant, loadable and checked, made by
the documented training command, small, the default evaluator, and stronger than the ``"heuristic"``
baseline on duplicate dice (a duel whose result is several standard errors above zero)."""

from __future__ import annotations

import numpy as np
import pytest

import nardy_fast
from nardy_fast import Greedy, Position, layout
from nardy_fast.corpus import load
from nardy_fast.evaluation.builtin import Builtin
from nardy_fast.evaluation.network import (
    MAX_HIDDEN,
    NETWORK_SCHEMES,
    SHIPPED_DIR,
    Network,
    shipped,
    shipped_path,
)

VARIANTS = nardy_fast.VARIANTS


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_variant_has_its_network(variant: str) -> None:
    path = shipped_path(variant)
    assert path.parent == SHIPPED_DIR and path.is_file()
    network = Network.load(path)
    assert network.variant == variant and network.scheme in NETWORK_SCHEMES and 1 <= network.hidden <= MAX_HIDDEN
    assert shipped(variant).sha256 == network.sha256
    made = network.training
    assert made["command"].startswith(f"nardy-fast train --variant {variant} --games {made['games']} --seed ")
    assert made["variant"] == variant and made["games"] >= 5_000 and made["seconds"] > 0
    assert path.stat().st_size < 300_000  # 256 hidden units at most: some 250 kB (and under 1 MB for all of them)


def test_the_shipped_networks_are_small() -> None:
    assert sum(shipped_path(v).stat().st_size for v in VARIANTS) < 1_000_000


@pytest.mark.parametrize("variant", VARIANTS)
def test_net_is_the_shipped_network_and_the_default(variant: str) -> None:
    """``"network"`` is the shipped network alone; the default ``"net"`` is that network in contact (the
    composite: tests/test_composite.py values its races and bear-offs)."""
    rows = np.ascontiguousarray(load(variant)[0][:300])
    by_name = nardy_fast.evaluate(rows, "network")
    assert np.array_equal(by_name, nardy_fast.evaluate(rows, Network.load(shipped_path(variant))))
    contact = ~layout.is_race(rows)
    assert contact.sum() > 100
    assert np.array_equal(nardy_fast.evaluate(rows[contact], "net"), by_name[contact])
    start = Position.start(variant)
    assert np.array_equal(start.evaluate(), nardy_fast.evaluate(start, "net"))
    assert start.hint((3, 1)) == start.hint((3, 1), evaluator="net")
    assert Greedy().resolved == Builtin("net")


#: Duplicate games of each strength check: enough for the result to stand several standard errors clear of 0
#: (the measured margins are in docs/benchmarks.md), few enough for a quick suite; crazy gulbar's games are
#: slow (its ladders have many results), so it plays fewer in the slow tier.
GAMES = {"long": 200, "sixone": 200, "short": 400, "gulbar": 200, "crazy": 100}


@pytest.mark.parametrize(
    "variant", [pytest.param(v, marks=pytest.mark.slow) if v == "crazy" else v for v in VARIANTS]
)
def test_the_shipped_network_beats_the_heuristic(variant: str) -> None:
    result = nardy_fast.duel(Greedy("net"), Greedy("heuristic"), variant, GAMES[variant], seed=2024)
    assert result.ppg > 3 * result.stderr and result.ppg > 0.2, (result.ppg, result.stderr)


@pytest.mark.parametrize("variant", ["short", "sixone"])
def test_the_shipped_network_crushes_random_play(variant: str) -> None:
    result = nardy_fast.duel(Greedy("net"), "random", variant, 200, seed=77)
    assert result.ppg > 1.0 and result.win_rate > 0.9, (result.ppg, result.win_rate)
