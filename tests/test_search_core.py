"""The compiled core's n-ply search (src_pyx/hint.pxi) and its greedy playouts (src_pyx/games.pxi).

``hint_values`` is checked against :class:`Spec`, the search of docs/rules.md (Evaluation and search) written
here plainly in Python over the reference's children (``nardy_fast.reference.batch_children``, legal_moves
order) with the core's ``evaluate_rows`` for the 0-ply values only and finished games scored here from
``nardy_fast.layout``: 0 and 1 plies on middle-game positions of short, long, sixone (a 6-1 with its extra roll)
and gulbar (a move that leaves a transfer, a pending list, a double played in full with its extra roll), and 2
plies; a finished child's terminal value by hand; bad ``plies``; an evaluator that cannot value a position.
Greedy playouts are deterministic for a seed, the same on one and two threads, and every move they play is the
first of ``hint_values``' ranking.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Optional

import numpy as np
import numpy.typing as npt
import pytest

_core = pytest.importorskip("nardy_fast._core")

import nardy_fast  # noqa: E402
import nardy_fast.core  # noqa: E402
import nardy_fast.reference  # noqa: E402
from nardy_fast import layout  # noqa: E402
from nardy_fast.bearoff.semantics import ROLL_ORDER, ROLL_WEIGHTS  # noqa: E402
from nardy_fast.errors import NardyError  # noqa: E402
from nardy_fast.evaluation.outcomes import EVALUATORS  # noqa: E402
from nardy_fast.evaluation.search import INNER_FILTER, MAX_PLIES, TOP_FILTER  # noqa: E402
from nardy_fast.kernels import Seat  # noqa: E402
from nardy_fast.playouts import PlayoutOptions, bound, check_playout  # noqa: E402

RACE = EVALUATORS.index("race")
PUBEVAL = EVALUATORS.index("pubeval")
HEURISTIC = EVALUATORS.index("heuristic")
Rows = npt.NDArray[np.int8]
Values = npt.NDArray[np.float64]


# --- the search, as docs/rules.md states it ---------------------------------------------------------------------


def equity(v: Values) -> float:
    return float(2.0 * v[0] - 1.0 + v[1] + v[2] - v[3] - v[4])


def flipped(v: Values) -> Values:
    return np.array([1.0 - v[0], v[3], v[4], v[1], v[2]])


def terminal(row: Rows) -> Values:
    """A finished game's outcome for its side to move: won or lost, with the points scored (2 mars, 3 koks)."""
    winner = int(layout.winner(row[None])[0])
    points = int(layout.points(row[None])[0])
    won = winner == row[layout.TURN]
    return np.array([1.0 if won else 0.0, won and points >= 2, won and points >= 3,
                     not won and points >= 2, not won and points >= 3], dtype=np.float64)  # fmt: skip


def reference_children(row: Rows, roll: tuple[int, int]) -> Rows:
    children, _, _ = nardy_fast.reference.batch_children(row[None], np.array([roll], dtype=np.int8))
    return np.array(children, dtype=np.int8).reshape(-1, layout.WIDTH)


class Spec:
    """value(row, d), choose(row, roll, d) and hint(row, roll, plies) of docs/rules.md, one function each."""

    def __init__(self, kind: int, children: Callable[[Rows, tuple[int, int]], Rows] = reference_children):
        self.kind = kind
        self._children = children
        self.cache: dict[tuple[bytes, tuple[int, int]], Rows] = {}

    def children(self, row: Rows, roll: tuple[int, int]) -> Rows:
        key = (row.tobytes(), roll)
        if key not in self.cache:
            self.cache[key] = self._children(row, roll)
        return self.cache[key]

    def values0(self, rows: Rows) -> Values:
        """value(row, 0) of each row: a finished game's outcome, else the evaluator's values."""
        out = np.zeros((len(rows), 5))
        live = ~layout.is_over(rows) if len(rows) else np.zeros(0, dtype=bool)
        if live.any():
            got = np.zeros((int(live.sum()), 5))
            assert _core.evaluate_rows(np.ascontiguousarray(rows[live]), self.kind, None, got) == -1
            out[live] = got
        for i in np.flatnonzero(~live):
            out[i] = terminal(rows[i])
        return out

    @staticmethod
    def view(parent: Rows, child: Rows, v: Values) -> Values:
        return v if child[layout.TURN] == parent[layout.TURN] else flipped(v)

    def value(self, row: Rows, d: int) -> Values:
        if layout.is_over(row[None])[0] or d == 0:
            value: Values = self.values0(row[None])[0]
            return value
        if row[layout.NPENDING]:
            return self.choose(row, (0, 0), d)
        acc = np.zeros(5)
        for roll, weight in zip(ROLL_ORDER, ROLL_WEIGHTS):
            acc += weight * self.choose(row, roll, d - 1)
        return acc / 36.0

    def views0(self, row: Rows, children: Rows) -> list[Values]:
        return [self.view(row, c, v) for c, v in zip(children, self.values0(children))]

    def choose(self, row: Rows, roll: tuple[int, int], d: int) -> Values:
        children = self.children(row, roll)
        views = self.views0(row, children)
        eq = [equity(v) for v in views]
        ranked = sorted(range(len(children)), key=lambda i: (-eq[i], i))
        if d == 0:
            return views[ranked[0]]
        best = eq[ranked[0]]
        kept = [i for i in ranked[: INNER_FILTER.keep] if best - eq[i] <= INNER_FILTER.width]
        deep = {i: self.view(row, children[i], self.value(children[i], d)) for i in kept}
        pick = max(kept, key=lambda i: (equity(deep[i]), -i))
        return deep[pick]

    def hint(self, row: Rows, roll: tuple[int, int], plies: int) -> tuple[Rows, Values, list[int]]:
        children = self.children(row, roll)
        if plies < 2:
            views = [self.view(row, c, self.value(c, plies)) for c in children]
            return children, np.array(views).reshape(-1, 5), [plies] * len(children)
        views = self.views0(row, children)
        eq = [equity(v) for v in views]
        ranked = sorted(range(len(children)), key=lambda i: (-eq[i], i))
        kept = [i for i in ranked[: TOP_FILTER.keep] if eq[ranked[0]] - eq[i] <= TOP_FILTER.width]
        reached = [0] * len(children)
        for i in kept:
            views[i] = self.view(row, children[i], self.value(children[i], plies))
            reached[i] = plies
        return children, np.array(views).reshape(-1, 5), reached


def first_ranked(probabilities: Values, reached: npt.NDArray[np.int8]) -> int:
    """The first move of a hint's ranking: searched deepest first, then the highest equity, then legal order."""
    eq = [equity(v) for v in probabilities]
    return min(range(len(eq)), key=lambda i: (-int(reached[i]), -eq[i], i))


# --- positions --------------------------------------------------------------------------------------------------


@functools.cache
def trajectory(variant: str, seed: int, games: int = 4) -> tuple[Rows, Rows]:
    """The rows and rolls of a few random games of ``variant`` (core playout)."""
    _, played = nardy_fast.core.playout(variant, games, seed=seed, trajectories=True)
    return played.rows, played.rolls


def middle(variant: str, seed: int) -> tuple[Rows, tuple[int, int]]:
    """A middle-game row (a third of the first game in) that rolls, with the roll played from it."""
    rows, rolls = trajectory(variant, seed)
    i = len(rows) // 8
    while rows[i][layout.NPENDING] or layout.is_over(rows[i : i + 1])[0]:
        i += 1
    return rows[i].copy(), (int(rolls[i][0]), int(rolls[i][1]))


def find(variant: str, seed: int, wanted: Callable[[Rows, Rows], bool], rolls: list[tuple[int, int]],
         pending: bool = False) -> tuple[Rows, tuple[int, int]]:  # fmt: skip
    """A row of a random game of ``variant`` and one of ``rolls`` (the pending list's (0, 0) with ``pending``)
    with two children or more that satisfy ``wanted(row, children)``."""
    rows, _ = trajectory(variant, seed, 20)
    for row in rows:
        if layout.is_over(row[None])[0] or bool(row[layout.NPENDING]) != pending:
            continue
        for roll in [(0, 0)] if pending else rolls:
            children = _core.children(row.copy(), roll)
            if children is not None and len(children) >= 2 and wanted(row, children):
                return row.copy(), roll
    raise AssertionError(f"no {variant} position of the kind wanted")


DOUBLES = [(d, d) for d in range(1, 7)]


def cases() -> list[tuple[str, Rows, tuple[int, int]]]:
    out = [(f"{v}-{s}", *middle(v, s)) for v in ("short", "long") for s in (1, 2)]
    out.append(("sixone-middle", *middle("sixone", 3)))
    row, _ = middle("sixone", 4)
    out.append(("sixone-6-1", row, (6, 1)))
    out.append(("gulbar-middle", *middle("gulbar", 5)))
    out.append(("gulbar-transfer", *find("gulbar", 6, lambda r, c: bool((c[:, layout.NPENDING] > 0).any()),
                                         [(a, b) for a, b in ROLL_ORDER if a != b] + DOUBLES)))  # fmt: skip
    out.append(("gulbar-pending", *find("gulbar", 7, lambda r, c: True, [], pending=True)))
    same_side = lambda r, c: bool((c[:, layout.TURN] == r[layout.TURN]).any())  # noqa: E731
    out.append(("gulbar-double-again", *find("gulbar", 8, same_side, DOUBLES)))
    return out


@functools.cache
def all_cases() -> list[tuple[str, Rows, tuple[int, int]]]:
    return cases()


def case(name: str) -> tuple[Rows, tuple[int, int]]:
    return next((row, roll) for n, row, roll in all_cases() if n == name)


NAMES = ["short-1", "short-2", "long-1", "long-2", "sixone-middle", "sixone-6-1", "gulbar-middle",
         "gulbar-transfer", "gulbar-pending", "gulbar-double-again"]  # fmt: skip


# --- hint_values against the spec -------------------------------------------------------------------------------


def check_hint(spec: Spec, row: Rows, roll: tuple[int, int], plies: int) -> tuple[Rows, Values, npt.NDArray[np.int8]]:
    children, probabilities, reached = _core.hint_values(row, roll[0], roll[1], plies, spec.kind, None)
    want_children, want, want_reached = spec.hint(row, roll, plies)
    assert children.dtype == np.int8 and probabilities.dtype == np.float64 and reached.dtype == np.int8
    np.testing.assert_array_equal(children, want_children)
    np.testing.assert_allclose(probabilities, want, rtol=0, atol=1e-12)
    assert reached.tolist() == want_reached
    return children, probabilities, reached


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("plies", [0, 1])
def test_hint_values_equal_the_spec(name: str, plies: int) -> None:
    row, roll = case(name)
    check_hint(Spec(HEURISTIC), row, roll, plies)


@pytest.mark.parametrize("name", ["short-1", "short-2"])
@pytest.mark.parametrize("plies", [0, 1])
def test_pubeval_hint_values_equal_the_spec(name: str, plies: int) -> None:
    row, roll = case(name)
    check_hint(Spec(PUBEVAL), row, roll, plies)


def test_the_cases_hold_what_they_are_named_for() -> None:
    """The sixone 6-1 and the gulbar double earn an extra roll, the transfer case leaves a pending list, the
    pending case plays one: else the tests above would not cover those rules."""
    for name, turn_stays, leaves_pending in (("sixone-6-1", True, False), ("gulbar-double-again", True, False),
                                             ("gulbar-transfer", False, True)):  # fmt: skip
        row, roll = case(name)
        children, _, _ = _core.hint_values(row, roll[0], roll[1], 0, HEURISTIC, None)
        if turn_stays:
            assert (children[:, layout.TURN] == row[layout.TURN]).any(), name
        if leaves_pending:
            assert (children[:, layout.NPENDING] > 0).any(), name
    row, roll = case("gulbar-pending")
    assert row[layout.NPENDING] > 0 and roll == (0, 0)


def core_children(row: Rows, roll: tuple[int, int]) -> Rows:
    """The core's children: equal to the reference's (tests/test_differential.py); faster for 2 plies."""
    children = _core.children(row.copy(), roll)
    assert children is not None
    found: Rows = children
    return found


@pytest.mark.parametrize("name", ["short-1", "gulbar-transfer"])
def test_two_ply_hint_equals_the_spec(name: str) -> None:
    row, roll = case(name)
    _, _, reached = check_hint(Spec(HEURISTIC, core_children), row, roll, 2)
    assert 2 in reached.tolist()


@pytest.mark.slow
def test_two_ply_hint_equals_the_spec_over_reference_children() -> None:
    row, roll = case("long-1")
    check_hint(Spec(HEURISTIC), row, roll, 2)


def bear_off_row() -> tuple[Rows, Rows]:
    """Short nardy, White to move with one checker left on its point 2 and 14 off; Black's 15 on its home
    (White's 19..24) and none off. White's 2-1 bears off (finishing) or plays 2 then 1... every move that bears
    off wins a mars (Black bore off none) but no koks (no Black checker in White's home or on the bar)."""
    board = [0] * 24
    board[1] = 1
    board[18:24] = [-3, -3, -3, -2, -2, -2]
    position = nardy_fast.Position.from_board("short", board, off=(14, 0), first_roll=(False, False))
    return position.to_array().copy(), board  # type: ignore[return-value]


@pytest.mark.parametrize("plies", [0, 1, 2])
def test_a_finished_child_gets_its_terminal_value(plies: int) -> None:
    row, _ = bear_off_row()
    for roll in ((6, 5), (2, 1), (1, 1)):
        children, probabilities, _ = _core.hint_values(row, roll[0], roll[1], plies, HEURISTIC, None)
        over = layout.is_over(children)
        assert over.any(), roll
        # White (the row's side to move) wins with a mars; Black, to move in the finished child, lost it
        for p in probabilities[over]:
            assert p.tolist() == [1.0, 1.0, 0.0, 0.0, 0.0]


def test_a_finished_game_has_no_moves_to_hint() -> None:
    row, _ = bear_off_row()
    child = next(c for c in _core.children(row, (6, 5)) if layout.is_over(c[None])[0])
    children, probabilities, reached = _core.hint_values(child.copy(), 6, 5, 1, HEURISTIC, None)
    assert children.shape == (0, 64) and probabilities.shape == (0, 5) and reached.shape == (0,)


@pytest.mark.parametrize("plies", [-1, MAX_PLIES + 1, 100])
def test_bad_plies_raise(plies: int) -> None:
    row = nardy_fast.Position.start("long").to_array().copy()
    with pytest.raises(NardyError, match=r"^plies: must be one of \(0, 1, 2\)"):
        _core.hint_values(row, 3, 1, plies, HEURISTIC, None)
    args = check_playout("long", 2, 1, PlayoutOptions())._replace(seats=(Seat(0, HEURISTIC, plies),) * 2)
    with pytest.raises(NardyError, match=r"^plies: "):
        nardy_fast.core._playout(args)


def test_an_evaluator_that_cannot_value_a_position_the_search_reached() -> None:
    """The race evaluator values only races: a search from a position in contact reaches others."""
    row = nardy_fast.Position.start("long").to_array().copy()
    for plies in (0, 1):
        with pytest.raises(NardyError, match=r"^evaluator: cannot value a position the search reached \(got 'long "):
            _core.hint_values(row, 3, 1, plies, RACE, None)
    args = check_playout("long", 2, 1, PlayoutOptions())._replace(seats=(Seat(0, RACE),) * 2)
    with pytest.raises(NardyError, match=r"^evaluator: cannot value"):
        nardy_fast.core._playout(args)


def test_bad_rows_and_rolls_raise() -> None:
    row = nardy_fast.Position.start("long").to_array().copy()
    with pytest.raises(NardyError, match=r"^dice: "):
        _core.hint_values(row, 0, 0, 0, HEURISTIC, None)
    with pytest.raises(NardyError, match=r"^dice: "):
        _core.hint_values(row, 7, 1, 0, HEURISTIC, None)
    bad = row.copy()
    bad[0] = 15
    with pytest.raises(NardyError, match=r"^row: "):
        _core.hint_values(bad, 3, 1, 0, HEURISTIC, None)
    with pytest.raises(NardyError, match=r"^evaluator: "):
        _core.hint_values(row, 3, 1, 0, len(EVALUATORS), None)


# --- greedy playouts --------------------------------------------------------------------------------------------


def greedy_playout(variant: str, games: int, seed: int, plies: int, threads: int = 1,
                   kind: int = HEURISTIC) -> tuple[np.ndarray, Optional[object]]:  # fmt: skip
    args = check_playout(variant, games, seed, PlayoutOptions(threads=threads, trajectories=True))
    records, played = nardy_fast.core._playout(args._replace(seats=(Seat(0, kind, plies),) * 2))
    return records, played


@pytest.mark.parametrize("variant", ["short", "long", "gulbar"])
def test_greedy_playouts_are_deterministic_and_thread_independent(variant: str) -> None:
    one, t1 = greedy_playout(variant, 6, 11, 0)
    again, t2 = greedy_playout(variant, 6, 11, 0)
    two, t3 = greedy_playout(variant, 6, 11, 0, threads=2)
    for records, played in ((again, t2), (two, t3)):
        np.testing.assert_array_equal(records, one)
        np.testing.assert_array_equal(played.rows, t1.rows)  # type: ignore[union-attr]
        np.testing.assert_array_equal(played.rolls, t1.rolls)  # type: ignore[union-attr]
    assert (one["winner"] >= 0).all()
    other, _ = greedy_playout(variant, 6, 12, 0)
    assert not np.array_equal(other, one)  # the seed decides the dice


def replay(played: object, games: int, plies: int, kind: int = HEURISTIC) -> int:
    """Check that every move of the first ``games`` games is the first of hint_values' ranking; the moves
    checked."""
    moves = 0
    offsets = played.offsets  # type: ignore[attr-defined]
    for g in range(games):
        rows = played.rows[offsets[g] : offsets[g + 1]]  # type: ignore[attr-defined]
        rolls = played.rolls[offsets[g] : offsets[g + 1]]  # type: ignore[attr-defined]
        for t in range(len(rows) - 1):
            children, probabilities, reached = _core.hint_values(rows[t].copy(), int(rolls[t][0]), int(rolls[t][1]),
                                                                 plies, kind, None)  # fmt: skip
            np.testing.assert_array_equal(children[first_ranked(probabilities, reached)], rows[t + 1])
            moves += 1
    return moves


@pytest.mark.parametrize("variant", ["short", "long", "sixone", "gulbar", "crazy"])
def test_greedy_plays_the_best_move_of_the_hint(variant: str) -> None:
    _, played = greedy_playout(variant, 3, 21, 0)
    assert replay(played, 3, 0) > 50


def test_one_ply_greedy_plays_the_best_move_of_the_hint() -> None:
    records, played = greedy_playout("short", 1, 22, 1)
    assert replay(played, 1, 1) == records["plies"][0]


def test_playout_without_evaluator_is_the_policy_as_before() -> None:
    """evaluator -1 keeps the policy index: "first" plays each row's first child."""
    args = check_playout("long", 2, 5, PlayoutOptions(policy="first", trajectories=True))
    _, played = nardy_fast.core._playout(bound(nardy_fast.core.Position.kernels, args))
    rows, rolls = played.rows, played.rolls
    for t in range(int(played.offsets[1]) - 1):
        children = _core.children(rows[t].copy(), (int(rolls[t][0]), int(rolls[t][1])))
        np.testing.assert_array_equal(children[0], rows[t + 1])


def test_filters_are_the_shared_ones() -> None:
    """The search reads its filters from nardy_fast.evaluation.search (a change there reaches the core)."""
    assert TOP_FILTER.keep >= INNER_FILTER.keep >= 1 and math.isfinite(TOP_FILTER.width)
