"""Re-entrant use of evaluation and search: a Python evaluator that calls back into the package (evaluate, a
hint of its own, the C search) from inside a Greedy playout on two threads, a hint and a duel gives exactly
what the built-in evaluator it wraps gives; and hints run from a garbage-collector callback, whenever the
collector runs around other hints, change no hint's answer."""

from __future__ import annotations

import gc
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import nardy_fast
from nardy_fast import Greedy
from nardy_fast._dispatch import implementations

IMPLS = implementations()


class Wrapped:
    """The built-in heuristic, called from Python, with a hint of the first row searched on the way (the
    package re-entered from inside its own search or playout)."""

    def __init__(self, module: ModuleType) -> None:
        self.module = module
        self.plies = 1 if module is IMPLS.get("cython") else 0  # the reference's 1-ply hint takes seconds
        self.calls = 0

    def evaluate(self, rows: npt.NDArray[np.int8]) -> Any:
        self.calls += 1
        first = self.module.Position.from_array(rows[0])
        if not first.is_over() and not first.pending:
            first.hint((3, 1), evaluator="heuristic", plies=self.plies)
        return self.module.evaluate(rows, "heuristic")


@pytest.mark.parametrize("name", sorted(IMPLS))
def test_a_reentrant_evaluator_plays_as_the_builtin(name: str) -> None:
    module = IMPLS[name]
    games = 4 if name == "python" else 40
    wrapped = Wrapped(module)
    ours = module.playout("short", games, seed=4, policy=Greedy(wrapped), threads=2, batch=7)
    builtin = module.playout("short", games, seed=4, policy=Greedy("heuristic"), threads=2)
    assert wrapped.calls > 0
    assert (ours == builtin).all()


@pytest.mark.parametrize("name", sorted(IMPLS))
def test_a_reentrant_evaluator_hints_as_the_builtin(name: str) -> None:
    module = IMPLS[name]
    position = module.Position.from_text("short w 1:-2,6:4,8:3,12:-4,13:4,17:-3,19:-4,21:2,23:-2,24:2 first=-")
    plies = 1 if name == "cython" else 0
    ours = position.hint((6, 4), evaluator=Wrapped(module), plies=plies)
    builtin = position.hint((6, 4), evaluator="heuristic", plies=plies)
    assert [str(m) for m, _ in ours] == [str(m) for m, _ in builtin]
    assert np.allclose([e for _, e in ours], [e for _, e in builtin], rtol=0, atol=1e-12)


def test_a_reentrant_duel_is_the_builtins() -> None:
    wrapped = Wrapped(nardy_fast)
    ours = nardy_fast.duel(Greedy(wrapped), "random", "long", 8, seed=2)
    builtin = nardy_fast.duel("heuristic", "random", "long", 8, seed=2)
    assert np.array_equal(ours.points, builtin.points)


def test_a_hint_from_a_garbage_collector_callback_during_a_hint() -> None:
    position = nardy_fast.Position.from_text("long w 1:1,3:2,5:1,7:-1,8:-2,10:-2,11:-2,12:-8,14:2,16:2,17:1,19:1,20:1,22:2,24:2 first=-")
    expected = position.hint((3, 1), plies=1)
    inner: list[object] = []

    def callback(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and len(inner) < 3:
            inner.append(position.hint((5, 2), plies=1))

    gc.callbacks.append(callback)
    try:
        garbage = [[i] for i in range(20000)]  # allocations that let the collector run during the calls
        for _ in range(3):
            assert position.hint((3, 1), plies=1) == expected
            gc.collect()
        del garbage
    finally:
        gc.callbacks.remove(callback)
    assert inner and all(r == position.hint((5, 2), plies=1) for r in inner)
