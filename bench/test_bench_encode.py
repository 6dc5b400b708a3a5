"""Benchmarks of the network encodings (``nardy_fast.encode``), implementations side by side in one run
(``pytest bench/test_bench_encode.py``).

One group per scheme, every member encoding the same rows: the core's ``encode``, the reference's (its checks
parse every row in Python), the reference's vectorised NumPy encoder alone (no checks: the target is the core
at ten times its speed, checks included), and for ``"tdgammon"`` gym-backgammon's own ``get_board_features``
on game objects built beforehand from the same positions (the target: the core at least as fast). The ratios
are printed at the end of the run (``bench/conftest.py``). Nothing here asserts a time.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import nardy_fast
from nardy_fast import corpus, encodings, layout, reference

SIZE = 2000  # rows per group
core = pytest.importorskip("nardy_fast.core", reason="the compiled core is not built")


def _rows(scheme: str) -> layout.Rows:
    """``SIZE`` corpus rows of the variants the scheme encodes, in turn."""
    variants = sorted(nardy_fast.SCHEMES[scheme].variants, key=nardy_fast.VARIANTS.index)
    share = SIZE // len(variants)
    return np.ascontiguousarray(np.concatenate([corpus.load(v)[0][:share] for v in variants]))


def _gym_games(rows: layout.Rows) -> Callable[[], object]:
    """gym-backgammon's encoder over game objects of the rows (loaded from its file: its package imports gym and
    a renderer the encoder does not need)."""
    found = importlib.util.find_spec("gym_backgammon")
    if found is None or not found.submodule_search_locations:
        pytest.skip("gym-backgammon is not installed")
    path = Path(next(iter(found.submodule_search_locations))) / "envs" / "backgammon.py"
    spec = importlib.util.spec_from_file_location("gym_backgammon_game", path)
    assert spec is not None and spec.loader is not None
    gym: Any = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gym)
    games = []
    for row in rows:
        game = gym.Backgammon()
        game.board = [(int(abs(c)), gym.WHITE if c > 0 else gym.BLACK if c < 0 else None) for c in row[:24]]
        game.bar = [int(row[layout.BAR]), int(row[layout.BAR + 1])]
        game.off = [int(row[layout.OFF]), int(row[layout.OFF + 1])]
        games.append((game, gym.BLACK if row[layout.TURN] else gym.WHITE))
    return lambda: np.array([game.get_board_features(side) for game, side in games], dtype=np.float32)


@pytest.mark.parametrize("scheme", list(encodings.SCHEMES))
@pytest.mark.parametrize(
    "api", ["core encode", "reference encode", "reference numpy encoder", "gym-backgammon get_board_features"]
)
def test_encode(benchmark: pytest.FixtureRequest, scheme: str, api: str) -> None:
    rows = _rows(scheme)
    if api == "gym-backgammon get_board_features":
        if scheme != "tdgammon":
            pytest.skip("gym-backgammon encodes only TD-Gammon's inputs")
        work = _gym_games(rows)
    else:
        out = np.zeros((len(rows), encodings.SCHEMES[scheme].features), dtype=np.float32)
        work = {
            "core encode": lambda: core.encode(rows, scheme, out),
            "reference encode": lambda: reference.encode(rows, scheme, out),
            "reference numpy encoder": lambda: encodings.NUMPY_ENCODERS[scheme](rows),
        }[api]
    benchmark.group = f"encode {scheme}"  # type: ignore[attr-defined]
    benchmark(work)  # type: ignore[operator]
