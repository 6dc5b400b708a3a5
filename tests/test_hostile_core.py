"""Hostile input to the core's loops and to the evaluate and segment seams (issue 40, round four).

Checked here:

1. ``evaluate`` refuses rows that are no position (16 checkers, an empty board, padding not zero, a variant
   column out of range, ...) before any evaluator sees them, built-in, a ``Network`` or the caller's: the same
   ``InvalidPositionError`` in both implementations, naming the row (``rows[i]: ``) and the field at fault;
2. a rollout of more games than a playout may have is refused without first advising another count that is
   refused too (the stratification warning);
3. Ctrl-C (a signal whose handler raises ``KeyboardInterrupt``) stops the core's loops that run without the
   GIL within a second, however large their input: ``evaluate`` of a large batch, the one-sided bear-off table
   build, the search of many positions (the training's search targets) on one thread and on two.

(``segment_argmax``'s offsets that wrap around in int64 are among tests/test_segments.py's bad input.)
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from test_hostile import interrupted_after, posix_only

import nardy_fast
from nardy_fast import layout, reference
from nardy_fast._dispatch import implementations
from nardy_fast.bearoff.semantics import semantics_of
from nardy_fast.errors import InvalidPositionError, NardyError
from nardy_fast.evaluation.network import INPUTS, MAX_HIDDEN, Network
from nardy_fast.training.targets import search_values

IMPLS = implementations()
CORE = IMPLS.get("cython")
needs_core = pytest.mark.skipif(CORE is None, reason="the core is not built")

Rows = npt.NDArray[np.int8]

#: A race in short nardy (the race evaluator's rows) and the short start (every other evaluator's).
SHORT_RACE = "short w 1:5,2:5,3:5,19:-5,20:-5,21:-5"


# --- rows that are no position --------------------------------------------------------------------------------


class Watching:
    """A Python evaluator that counts the rows it is shown (none, when every call is refused first)."""

    def __init__(self) -> None:
        self.shown = 0

    def evaluate(self, rows: Rows) -> npt.NDArray[np.float64]:
        self.shown += len(rows)
        return np.tile([0.5, 0.1, 0.0, 0.1, 0.0], (len(rows), 1))


def small_network(variant: str, hidden: int = 8) -> Network:
    """A network of small seeded weights for ``variant``."""
    rng = np.random.default_rng(7)
    return Network(
        variant, rng.normal(0, 0.1, (INPUTS, hidden)), np.zeros(hidden), rng.normal(0, 0.1, (5, hidden)), np.zeros(5)
    )


def sixteen(row: Rows) -> None:
    row[int(np.flatnonzero(row[: layout.BAR] > 0)[0])] += 1  # one more White checker on a White point


def empty_board(row: Rows) -> None:
    row[layout.BOARD : layout.BAR] = 0


def reserved(row: Rows) -> None:
    row[layout.RESERVED + 1] = 1


def pending_padding(row: Rows) -> None:
    row[layout.PENDING + 3] = 4  # a value after the list's length (0)


def variant_past_the_end(row: Rows) -> None:
    row[layout.VARIANT] = len(nardy_fast.VARIANTS) + 2


def variant_negative(row: Rows) -> None:
    row[layout.VARIANT] = -1


def turn_two(row: Rows) -> None:
    row[layout.TURN] = 2


def unknown_flag(row: Rows) -> None:
    row[layout.FLAGS] = 64


#: Each way of spoiling a row, and the field its error names (the row layout's: nardy_fast.layout).
SPOILERS: list[tuple[Callable[[Rows], None], str]] = [
    (sixteen, "board"),
    (empty_board, "board"),
    (reserved, "pending"),  # the reserved bytes are checked with the pending list's zero padding
    (pending_padding, "pending"),
    (variant_past_the_end, "variant"),
    (variant_negative, "variant"),
    (turn_two, "turn"),
    (unknown_flag, "flags"),
]

EVALUATORS = ["heuristic", "net", "race", "pubeval", "network", "python"]


def evaluator_of(name: str) -> Any:
    return {"network": small_network("short"), "python": Watching()}.get(name, name)


@pytest.mark.parametrize("name", EVALUATORS)
@pytest.mark.parametrize(("spoil", "field"), SPOILERS, ids=[s.__name__ for s, _ in SPOILERS])
def test_rows_that_are_no_position_are_refused_alike(name: str, spoil: Callable[[Rows], None], field: str) -> None:
    """Four rows, the third spoiled: every implementation and every evaluator refuses the call with the error
    of ``Position.from_array`` for that row, prefixed with ``rows[2]: ``; a Python evaluator sees no row."""
    start = nardy_fast.Position.from_text(SHORT_RACE) if name == "race" else nardy_fast.Position.start("short")
    rows = np.tile(start.to_array(), (4, 1))
    spoil(rows[2])
    with pytest.raises(InvalidPositionError) as expected:
        reference.Position.from_array(rows[2])
    want = (type(expected.value), f"rows[2]: {expected.value}")
    assert want[1].startswith(f"rows[2]: {field}: ")
    for module in IMPLS.values():
        evaluator = evaluator_of(name)
        with pytest.raises(NardyError) as caught:
            module.evaluate(rows, evaluator)
        assert (type(caught.value), str(caught.value)) == want, module.IMPLEMENTATION
        if isinstance(evaluator, Watching):
            assert evaluator.shown == 0
        # one row alone is row 0
        with pytest.raises(NardyError) as caught:
            module.evaluate(rows[2], evaluator)
        assert (type(caught.value), str(caught.value)) == (want[0], want[1].replace("rows[2]", "rows[0]", 1))


def test_rows_that_are_positions_are_still_valued_alike() -> None:
    """The gate lets every position through: a game's positions (finished ones included) valued by a Python
    evaluator, and by the heuristic, alike in both implementations."""
    _, trajectories = nardy_fast.playout("short", 3, seed=4, trajectories=True)
    rows = trajectories.rows
    assert layout.is_over(rows).sum() == 3
    for evaluator in ("heuristic", Watching()):
        values = [module.evaluate(rows, evaluator) for module in IMPLS.values()]
        for other in values[1:]:
            np.testing.assert_allclose(other, values[0], rtol=0, atol=1e-12)


# --- rollouts too long to play -------------------------------------------------------------------------------


@pytest.mark.parametrize("games", [2**31, 10**15 + 1])
def test_a_rollout_of_too_many_games_is_refused_without_advice(games: int) -> None:
    position = nardy_fast.Position.start("long")
    for module in IMPLS.values():
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a NardyWarning would be raised here instead of the NardyError
            with pytest.raises(NardyError, match=r"^games: must be a positive integer below 2\*\*31 "):
                module.rollout(position, games)


# --- Ctrl-C in the core's loops -------------------------------------------------------------------------------


#: Seconds within which an interrupted loop must have stopped (the issue's bound).
STOP_BOUND = 1.0


@needs_core
@posix_only
def test_ctrl_c_stops_evaluate_of_a_large_batch() -> None:
    """1.2 million rows for a network of the most hidden units: over 3 s of the C loop (about 3 us a row),
    stopped within a second of a signal that comes a second into the call (after the rows are copied and
    checked, a tenth of a second, or more on a loaded machine); the core evaluates as before afterwards."""
    assert CORE is not None
    network = small_network("long", MAX_HIDDEN)
    row = nardy_fast.Position.start("long").to_array()
    batch = np.tile(row, (1_200_000, 1))
    assert interrupted_after(lambda: CORE.evaluate(batch, network), 1.0) - 1.0 < STOP_BOUND
    np.testing.assert_allclose(
        CORE.evaluate(row, network), reference.evaluate(row, network), rtol=0, atol=1e-6
    )


@needs_core
@posix_only
def test_ctrl_c_stops_a_one_sided_table_build() -> None:
    """The largest one-sided bear-off table (15 checkers, about a second) built by the core's kernel (the
    table functions build each once per process): interrupted a fifth of the way into its build, it stops
    well before the build would have ended. (A two-sided table holds 6 checkers at most: a tenth of a
    second.)"""
    assert CORE is not None
    kernels = CORE.IMPLEMENTATION_RECORD.kernels
    semantics = semantics_of("long", {})
    build: Callable[[], object] = lambda: kernels.one_sided(semantics, 15)  # noqa: E731
    began = time.perf_counter()
    build()
    whole = time.perf_counter() - began
    assert interrupted_after(build, whole / 5) - whole / 5 < whole / 4
    build()  # and it builds again afterwards


@needs_core
@posix_only
@pytest.mark.parametrize("threads", [1, 2])
def test_ctrl_c_stops_a_search_of_many_positions(threads: int) -> None:
    """The search targets of 2,000 positions of long nardy at 2 plies (seconds of search, which must not end
    before the signal): a signal a second into the search stops it within a second, the other thread's rows
    too (the failure of one stops the others before their next row), and the core searches as before
    afterwards."""
    assert CORE is not None
    kernels = CORE.IMPLEMENTATION_RECORD.kernels
    network = small_network("long")
    _, trajectories = CORE.playout("long", 4, seed=3, trajectories=True)
    rows = trajectories.rows[~layout.is_over(trajectories.rows)]
    batch = np.ascontiguousarray(np.resize(rows, (2000, layout.WIDTH)))
    search: Callable[[], object] = lambda: search_values(kernels, batch, network, 2, threads)  # noqa: E731
    assert interrupted_after(search, 1.0) - 1.0 < STOP_BOUND
    np.testing.assert_array_equal(search_values(kernels, batch[:3], network, 1, threads),
                                  search_values(reference.Position.kernels, batch[:3], network, 1))
