"""Position classes (nardy_fast.evaluation.classes; docs/rules.md, Evaluation, Position classes): the shared rule
``classify``, the reference's twin ``position_class`` and the core's agree on every position of random games in
every variant (every class met in each); hand-made positions at the edges of each class get the class worked
out by hand; rows that are no position are refused alike."""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import nardy_fast
from nardy_fast import NardyError, Position, implementations, layout
from nardy_fast.analysis import AnalysedPosition
from nardy_fast.board import mover_point
from nardy_fast.evaluation import classes
from nardy_fast.evaluation.classes import BEAROFF, CLASSES, CONTACT, OVER, RACE, classify
from nardy_fast.reference.evaluate import classify_rows as reference_classify_rows

IMPLS = implementations()
CORE: Any = IMPLS.get("cython")
needs_core = pytest.mark.skipif(CORE is None, reason="the core is not built")
Rows = npt.NDArray[np.int8]

#: Every kind of dice, as in tests/test_race_evaluator.py.
CASES = [("long", {}), ("sixone", {}), ("short", {}), ("gulbar", {}), ("crazy", {}), ("crazy", {"ladder_per_value": 4})]


@cache
def played(variant: str, ladder4: bool = False) -> Rows:
    """Every position of 30 random games (greedy heuristic ones too, whose bear-offs run to the end)."""
    flags: dict[str, Any] = {"ladder_per_value": 4} if ladder4 else {}
    _, a = nardy_fast.playout(variant, 20, seed=5, trajectories=True, **flags)
    _, b = nardy_fast.playout(variant, 10, seed=6, trajectories=True, policy=nardy_fast.Greedy("heuristic"), **flags)
    return np.ascontiguousarray(np.concatenate([a.rows, b.rows]))


def core_classes(rows: Rows) -> npt.NDArray[np.int8]:
    from nardy_fast._core import classify_rows

    out = np.full(len(rows), -1, dtype=np.int8)
    assert classify_rows(np.ascontiguousarray(rows), out) == -1
    return out


def reference_classes(rows: Rows) -> npt.NDArray[np.int8]:
    out = np.full(len(rows), -1, dtype=np.int8)
    assert reference_classify_rows(rows, out) == -1
    return out


@pytest.mark.parametrize(("variant", "flags"), CASES, ids=[f"{v}{'-ladder4' if f else ''}" for v, f in CASES])
def test_the_twins_agree_on_random_games(variant: str, flags: dict[str, object]) -> None:
    rows = played(variant, bool(flags))
    found = classify(rows)
    assert found.dtype == np.int8 and found.shape == (len(rows),)
    assert set(found.tolist()) == set(range(len(CLASSES)))  # every class is met in every variant
    np.testing.assert_array_equal(reference_classes(rows), found)
    if CORE is not None:
        np.testing.assert_array_equal(core_classes(rows), found)
    # the classes are what they say, by the layout's own tests
    assert (layout.is_over(rows) == (found == OVER)).all()
    assert (~layout.is_race(rows) == (found == CONTACT)).all()
    bearoffs = rows[found == BEAROFF]
    assert layout.is_bearoff(bearoffs).all() and (bearoffs[:, layout.OFF : layout.OFF + 2] >= 9).all()


def board_of(variant: str, white: dict[int, int], black: dict[int, int]) -> list[int]:
    """A board from each side's counts on its own points."""
    board = [0] * 24
    for point, count in white.items():
        board[point - 1] = count
    for point, count in black.items():
        board[mover_point(variant, point) - 1] = -count
    return board


def made(variant: str, white: dict[int, int], black: dict[int, int], **fields: object) -> AnalysedPosition:
    off = (15 - sum(white.values()), 15 - sum(black.values()))
    board = board_of(variant, white, black)
    return Position.from_board(variant, board, turn="white", off=off, first_roll=(False, False), **fields)  # type: ignore[arg-type]


#: Hand-made positions and their classes by the definitions (docs/rules.md, Evaluation, Position classes).
EDGES = [
    ("six a side at home", "long", {1: 3, 6: 3}, {2: 6}, BEAROFF),
    ("seven at home against one", "short", {1: 4, 2: 3}, {6: 1}, RACE),
    ("one checker outside home", "sixone", {7: 1}, {1: 1}, RACE),
    ("a side has borne off all", "gulbar", {}, {1: 2}, OVER),
    ("one against one, short", "short", {3: 1}, {5: 1}, BEAROFF),
    ("crazy, three a side", "crazy", {1: 1, 2: 1, 3: 1}, {4: 3}, BEAROFF),
]


@pytest.mark.parametrize(("label", "variant", "white", "black", "expected"), EDGES, ids=[e[0] for e in EDGES])
def test_hand_made_positions(label: str, variant: str, white: dict[int, int], black: dict[int, int], expected: int) -> None:
    row = made(variant, white, black).to_array()
    assert classify(row).tolist() == [expected]
    assert reference_classes(row[None, :]).tolist() == [expected]
    if CORE is not None:
        assert core_classes(row[None, :]).tolist() == [expected]


def test_contact_and_a_pending_list() -> None:
    """The start is contact; a gulbar bear-off with a pending list to play is a race, not a table position (the
    tables hold positions whose side rolls)."""
    starts = np.stack([Position.start(v).to_array() for v in nardy_fast.VARIANTS])
    assert classify(starts).tolist() == [CONTACT] * len(nardy_fast.VARIANTS)
    row = made("gulbar", {1: 2, 3: 1}, {2: 2}).to_array()
    assert classify(row).tolist() == [BEAROFF]
    row[layout.NPENDING], row[layout.PENDING] = 1, 1
    assert reference_classes(row[None, :]).tolist() == [RACE] == classify(row).tolist()
    if CORE is not None:
        assert core_classes(row[None, :]).tolist() == [RACE]


def test_the_constants() -> None:
    assert CLASSES == ("over", "bearoff", "race", "contact")
    assert (OVER, BEAROFF, RACE, CONTACT) == (0, 1, 2, 3) and classes.TWO_SIDED_CHECKERS == 6


def test_rows_that_are_no_position_are_refused_alike() -> None:
    rows = np.tile(Position.start("short").to_array(), (3, 1))
    rows[1, 0] += 1  # sixteen White checkers
    with pytest.raises(NardyError) as expected:
        nardy_fast.reference.Position.from_array(rows[1])
    with pytest.raises(NardyError) as caught:
        classify(rows)
    assert (type(caught.value), str(caught.value)) == (type(expected.value), f"rows[1]: {expected.value}")
    assert reference_classify_rows(rows, np.zeros(3, dtype=np.int8)) == 1
    if CORE is not None:
        from nardy_fast._core import classify_rows

        assert classify_rows(rows, np.zeros(3, dtype=np.int8)) == 1
    for bad in ([[1, 2, 3]], np.zeros((2, 64), dtype=np.float64), "rows"):
        with pytest.raises(NardyError, match=r"^rows: must be an integer array"):
            classify(bad)
