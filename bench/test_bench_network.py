"""Benchmarks of the network evaluator ``"net"`` (``pytest bench/test_bench_network.py``; docs/benchmarks.md,
issue 24). Every member of a group does the same work; the ratios are printed at the end of the run
(``bench/conftest.py``). Nothing here asserts a time.

* ``evaluate``: the core's ``evaluate`` of the same rows (a variant's corpus) with ``"net"`` and with
  ``"heuristic"``; the rate in ``extra_info["rows/s"]``.
* ``greedy games``: whole games of short nardy on one thread, both sides greedy: the core's ``playout`` with
  ``Greedy("net")`` against the loop a Python program writes around GNU Backgammon's 0-ply net
  (``gnubg_nn.best_move(..., n=0)``, :func:`nardy_fast.bench.gnubg_greedy_games`), the same number of games
  (target: at least 5x).
* ``hint``: a 0-, 1- and 2-ply hint of a middle-game position with ``"net"`` and with ``"heuristic"``.

The network is the one shipped for the variant; ``NARDY_FAST_BENCH_NETS=DIR`` measures ``DIR/<variant>.npz``
instead (weights of the same shape time the same). Without either the network's benchmarks are skipped.

The strength figures (duels on duplicate dice) are ``python tools/strength.py``'s.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from nardy_fast import Greedy, bench, corpus, layout
from nardy_fast.bench.peers import GnubgPlayer
from nardy_fast.evaluation.evaluators import Builtin, EvaluatorLike
from nardy_fast.evaluation.network import Network, network_for, shipped_path

core = pytest.importorskip("nardy_fast.core", reason="the compiled core is not built")

ROWS = 20_000  # rows of each evaluate round
LARGE = 200_000  # rows the rate is measured on
GAMES = 200
#: middle-game positions: short nardy after a few moves each, long nardy with both heads half gone
MIDDLE = {
    "short": "short w 1:-2,6:4,8:3,12:-4,13:4,17:-3,19:-4,21:2,23:-2,24:2 first=-",
    "long": "long w 1:1,3:2,5:1,7:-1,8:-2,10:-2,11:-2,12:-8,14:2,16:2,17:1,19:1,20:1,22:2,24:2 first=-",
}
ROLL = (3, 1)


def network(variant: str) -> EvaluatorLike:
    """The network measured for ``variant`` (see the module's docstring), or a skip."""
    folder = os.environ.get("NARDY_FAST_BENCH_NETS")
    if folder:
        net = Network.load(Path(folder) / f"{variant}.npz")
        if net.variant != variant:
            pytest.skip(f"{folder}/{variant}.npz holds {net.variant} weights")
        return net
    if not shipped_path(variant).exists():
        pytest.skip(f"no weights shipped for {variant} yet ({shipped_path(variant)}); see NARDY_FAST_BENCH_NETS")
    return "net"


def _evaluator(name: str, variant: str) -> EvaluatorLike:
    return network(variant) if name == "net" else name


def _label(net: EvaluatorLike, variant: str) -> str:
    resolved = net if isinstance(net, Network) else network_for(Builtin("net"), variant)
    return f"{resolved.variant} hidden={resolved.hidden} sha256={resolved.sha256[:12]}"


def _rows(variant: str, size: int) -> np.ndarray:
    rows = corpus.load(variant)[0]
    return np.ascontiguousarray(np.resize(rows, (size, layout.WIDTH)))


@pytest.mark.parametrize("variant", ["short", "long"])
@pytest.mark.parametrize("evaluator", ["net", "heuristic"])
def test_net_evaluate(benchmark: BenchmarkFixture, variant: str, evaluator: str) -> None:
    ev = _evaluator(evaluator, variant)
    rows = _rows(variant, ROWS)
    core.evaluate(rows[:1], ev)  # the weights are loaded before timing
    benchmark.group = f"evaluate {variant} ({ROWS:,} rows): net vs heuristic"
    large = _rows(variant, LARGE)
    start = time.perf_counter()
    core.evaluate(large, ev)
    benchmark.extra_info["rows/s"] = round(LARGE / (time.perf_counter() - start))
    if evaluator == "net":
        benchmark.extra_info["network"] = _label(ev, variant)
    values = benchmark(core.evaluate, rows, ev)
    assert values.shape == (ROWS, 5)


@pytest.mark.parametrize("api", ["core Greedy(net)", "gnubg_nn 0-ply loop"])
def test_net_greedy_games(benchmark: BenchmarkFixture, api: str) -> None:
    """Greedy self-play of short nardy, one thread (target: the core at least 5x GNU Backgammon's loop)."""
    work: Callable[[], object]
    if api.startswith("gnubg"):
        pytest.importorskip("gnubg_nn", reason="gnubg-nn (extra 'peers') is not installed")
        work = bench.gnubg_greedy_games(GAMES)
    else:
        policy = Greedy(network("short"))
        core.playout("short", 2, seed=bench.SEED, policy=policy)  # the weights are loaded before timing

        def greedy() -> object:
            return core.playout("short", GAMES, seed=bench.SEED, policy=policy, threads=1)

        work = greedy
    benchmark.group = f"greedy games short ({GAMES}): net vs gnubg 0-ply"
    benchmark.pedantic(work, rounds=3)  # type: ignore[no-untyped-call]


@pytest.mark.parametrize("variant", ["short", "long"])
@pytest.mark.parametrize("plies", [0, 1, 2])
@pytest.mark.parametrize("evaluator", ["net", "heuristic"])
def test_net_hint(benchmark: BenchmarkFixture, variant: str, plies: int, evaluator: str) -> None:
    ev = _evaluator(evaluator, variant)
    position = core.Position.from_text(MIDDLE[variant])
    position.hint(ROLL, evaluator=ev)  # the weights are loaded before timing
    benchmark.group = f"hint {variant} {plies}-ply: net vs heuristic"
    ranked = benchmark.pedantic(position.hint, args=(ROLL,), kwargs={"evaluator": ev, "plies": plies}, rounds=3)  # type: ignore[no-untyped-call]
    benchmark.extra_info["moves"] = len(ranked)
    assert len(ranked) == len(position.legal_moves(ROLL))


DUEL_GAMES = 1000


@pytest.mark.parametrize("opponent", ["pubeval", "gnubg 0-ply"])
def test_net_duel_short(benchmark: BenchmarkFixture, opponent: str) -> None:
    """The network's 0-ply strength in short nardy against the field's yardsticks, on duplicate dice: its
    points per game and their standard error in ``extra_info`` (``tools/strength.py`` plays longer duels)."""
    if opponent.startswith("gnubg"):
        pytest.importorskip("gnubg_nn", reason="gnubg-nn (extra 'peers') is not installed")
        other: object = GnubgPlayer()
    else:
        other = Greedy("pubeval")
    net = Greedy(network("short"))
    benchmark.group = f"duel short ({DUEL_GAMES:,} games): net 0-ply vs {opponent}"
    result = benchmark.pedantic(  # type: ignore[no-untyped-call]
        core.duel, args=(net, other, "short", DUEL_GAMES), kwargs={"seed": bench.SEED}, rounds=1
    )
    benchmark.extra_info["ppg"] = round(result.ppg, 4)
    benchmark.extra_info["stderr"] = round(result.stderr, 4)
    assert result.games == DUEL_GAMES
