"""The n-ply search behind ``Position.hint`` (docs/rules.md, Evaluation and search) against a plain recursive
implementation of its definition written here over ``Position.legal_moves`` and the evaluator: the equities of
every move at plies 0, 1 and 2 (the 2-ply move filters included) on positions of every kind (short nardy with
hits, long nardy, six-one extra rolls, gulbar transfer lists, a roll with no legal move, finished replies); the
reference and the core agreeing move for move; the order of a hint (best first, ties in ``legal_moves``
order); and bad ``roll`` and ``plies``, the same NardyError in both implementations.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, Optional

import numpy as np
import numpy.typing as npt
import pytest
from test_evaluation import Constant, Linear, Recorder, same_error

import nardy_fast
from nardy_fast import NardyError
from nardy_fast._dispatch import implementations

IMPLS = implementations()
CORE = IMPLS.get("cython")
needs_core = pytest.mark.skipif(CORE is None, reason="the core is not built")
Vector = npt.NDArray[np.float64]

# --- the definition, written plainly -----------------------------------------------------------------------------

#: The 21 rolls, higher die first, with their weight among the 36.
ROLLS = [((a, b), 1 if a == b else 2) for a in range(6, 0, -1) for b in range(a, 0, -1)]
assert len(ROLLS) == 21 and sum(w for _, w in ROLLS) == 36


def equity_of(p: Vector) -> float:
    """Win 1, mars 2, koks 3 points, by hand."""
    single_win = p[0] - p[1]
    mars_win = p[1] - p[2]
    single_loss = 1.0 - p[0] - p[3]
    mars_loss = p[3] - p[4]
    return float(single_win + 2 * mars_win + 3 * p[2] - single_loss - 2 * mars_loss - 3 * p[4])


def other_side(p: Vector) -> Vector:
    return np.array([1.0 - p[0], p[3], p[4], p[1], p[2]])


class Plain:
    """value and choose of docs/rules.md, Evaluation and search, one position at a time. ``leaf(rows)`` values
    unfinished rows (n, 64) for their sides to move."""

    def __init__(self, leaf: Any) -> None:
        self.leaf = leaf
        self.inner = {
            "cut": 0,
            "several": 0,
        }  # how often the inner filter cut a reply, and kept more than one

    def outcome(self, position: Any) -> Vector:
        """A finished game from its side to move's view: who won, and by 1, 2 or 3 points."""
        points = position.points()
        won = position.winner() == position.turn
        p = np.zeros(5)
        if won:
            p[0], p[1], p[2] = 1.0, points >= 2, points >= 3
        else:
            p[3], p[4] = points >= 2, points >= 3
        return p

    def zero(self, positions: Sequence[Any]) -> list[Vector]:
        live = [p for p in positions if not p.is_over()]
        values = iter(self.leaf(np.array([p.to_array() for p in live])) if live else [])
        return [
            self.outcome(p) if p.is_over() else np.array(next(values), dtype=np.float64) for p in positions
        ]

    @staticmethod
    def view(parent: Any, child: Any, p: Vector) -> Vector:
        return p if child.turn == parent.turn else other_side(p)

    def value(self, position: Any, depth: int) -> Vector:
        if position.is_over():
            return self.outcome(position)
        if depth == 0:
            return self.zero([position])[0]
        if position.pending:
            return self.choose(position, None, depth)  # a transfer is no ply
        total = np.zeros(5)
        for roll, weight in ROLLS:
            total = total + weight * self.choose(position, roll, depth - 1)
        return total / 36.0

    def choose(self, position: Any, roll: Optional[tuple[int, int]], depth: int) -> Vector:
        children = [m.result for m in position.legal_moves(roll)]
        assert children  # a roll without a legal move has the empty move
        first = [self.view(position, c, v) for c, v in zip(children, self.zero(children))]
        order = sorted(range(len(children)), key=lambda i: (-equity_of(first[i]), i))
        if depth == 0:
            return first[order[0]]
        best = equity_of(first[order[0]])
        kept = [i for i in order[:3] if equity_of(first[i]) >= best - 0.10]
        self.inner["cut"] += len(kept) < len(children)
        self.inner["several"] += len(kept) > 1
        deeper = {i: self.view(position, children[i], self.value(children[i], depth)) for i in kept}
        return deeper[min(kept, key=lambda i: (-equity_of(deeper[i]), i))]

    def hint(self, position: Any, roll: Optional[tuple[int, int]], plies: int) -> list[tuple[str, float]]:
        moves = position.legal_moves(roll)
        children = [m.result for m in moves]
        if plies < 2:
            values = [self.view(position, c, self.value(c, plies)) for c in children]
            order = sorted(range(len(moves)), key=lambda i: (-equity_of(values[i]), i))
            return [(str(moves[i]), equity_of(values[i])) for i in order]
        first = [self.view(position, c, v) for c, v in zip(children, self.zero(children))]
        order = sorted(range(len(moves)), key=lambda i: (-equity_of(first[i]), i))
        best = equity_of(first[order[0]])
        kept = [i for i in order[:8] if equity_of(first[i]) >= best - 0.16]
        deep = {i: equity_of(self.view(position, children[i], self.value(children[i], 2))) for i in kept}
        top = sorted(kept, key=lambda i: (-deep[i], i))
        rest = [i for i in order if i not in deep]
        return [(str(moves[i]), deep[i]) for i in top] + [(str(moves[i]), equity_of(first[i])) for i in rest]


def linear_leaf(rows: npt.NDArray[np.int8]) -> npt.NDArray[np.float64]:
    return Linear().values(rows)


def as_pairs(hint: list[tuple[Any, float]]) -> list[tuple[str, float]]:
    return [(str(move), value) for move, value in hint]


def assert_same_hint(
    found: list[tuple[Any, float]], expected: list[tuple[str, float]], tol: float = 1e-12
) -> None:
    got = as_pairs(found)
    assert [m for m, _ in got] == [m for m, _ in expected], (got, expected)
    np.testing.assert_allclose([v for _, v in got], [v for _, v in expected], rtol=0, atol=tol)


# --- positions ---------------------------------------------------------------------------------------------------


@functools.cache
def middle(variant: str, seed: int, ply: int) -> tuple[str, Optional[tuple[int, int]]]:
    """The position at ``ply`` (or the next one with a roll and at least four moves) of a seeded random
    game, as text, and its roll."""
    _, paths = nardy_fast.playout(variant, 1, seed=seed, trajectories=True)
    for j in range(ply, len(paths.rows) - 1):
        position = nardy_fast.Position.from_array(paths.rows[j])
        roll = tuple(int(d) for d in paths.rolls[j])
        if roll != (0, 0) and len(position.legal_moves(roll)) >= 4:
            return position.to_text(), roll  # type: ignore[return-value]
    raise AssertionError("no such position")


#: (label, position text, roll) covering what a search meets.
CASES: list[tuple[str, str, Optional[tuple[int, int]]]] = [
    ("short start", "short w 1:-2,6:5,8:3,12:-5,13:5,17:-3,19:-5,24:2", (3, 1)),
    ("short middle", *middle("short", 3, 14)),
    ("short hits", "short b 3:2,5:-2,8:-3,11:1,12:2,13:1,16:-3,17:1,19:3,20:-5,23:-2,24:5 first=-", (5, 3)),
    ("long middle", *middle("long", 5, 20)),
    ("sixone 6-1", middle("sixone", 2, 16)[0], (6, 1)),  # an extra roll: the same side moves again
    ("sixone one move", "sixone w 1:-2,2:-2,3:14,8:1,12:-11 first=-", (6, 1)),
    ("gulbar transfer made", "gulbar w 3:-2,4:7,5:7,12:-13,14:1 first=-", (6, 5)),  # hands a 5 over
    ("gulbar transfer played", "gulbar b 3:-2,4:7,5:7,8:1,12:-13 first=- pending=5", None),
    ("gulbar pass", "gulbar w 2:-2,4:14,8:1,12:-13 first=-", (6, 6)),  # all four 6s go to Black
    ("gulbar four to play", "gulbar b 2:-2,4:14,8:1,12:-13 first=- pending=6,6,6,6", None),
    ("gulbar extra roll", "gulbar w 12:-15,24:15", (4, 4)),
    ("gulbar middle", *middle("gulbar", 4, 18)),
    ("no legal move", "short w 13:14,19:-2,20:-2,21:-2,22:-2,23:-2,24:-2 bar=1/0 off=0/3 first=-", (5, 2)),
    ("bearing off", "short w 1:2,2:1,3:1,20:-1,22:-1 off=11/13 first=-", (2, 1)),  # Black's replies end it
    ("finishing", "short w 1:2,2:1,3:1,13:-2 off=11/13 first=-", (6, 6)),
]
CASE = {label: (text, roll) for label, text, roll in CASES}
SMALL = {
    "sixone one move",
    "gulbar transfer made",
    "gulbar transfer played",
    "gulbar pass",
    "no legal move",
    "bearing off",
    "finishing",
}


def case_ids(cases: Sequence[tuple[str, str, Any]]) -> list[str]:
    return [c[0] for c in cases]


def test_the_cases_are_what_they_say() -> None:
    cases = {label: (nardy_fast.Position.from_text(text), roll) for label, text, roll in CASES}
    p, roll = cases["sixone 6-1"]
    assert all(m.result.turn == p.turn for m in p.legal_moves(roll))
    assert len(p.legal_moves(roll)) >= 2
    p, roll = cases["gulbar transfer made"]
    assert [m.result.pending for m in p.legal_moves(roll)] == [(5,)]
    p, roll = cases["gulbar pass"]
    ((m,),) = [p.legal_moves(roll)]
    assert m.result.pending == (6, 6, 6, 6) and len(m.result.legal_moves()) == 5
    p, roll = cases["gulbar extra roll"]
    assert any(m.result.turn == p.turn for m in p.legal_moves(roll))
    p, roll = cases["no legal move"]
    ((m,),) = [p.legal_moves(roll)]
    assert str(m) == "" or not m.steps
    p, roll = cases["bearing off"]
    assert any(r.result.is_over() for m in p.legal_moves(roll) for r in m.result.legal_moves((6, 5)))
    p, roll = cases["finishing"]
    assert [m.result.is_over() for m in p.legal_moves(roll)] == [True]
    p, roll = cases["short hits"]
    assert any(m.result.bar != p.bar for m in p.legal_moves(roll))
    for label in ("short middle", "long middle", "gulbar middle"):
        p, roll = cases[label]
        assert not p.pending and len(p.legal_moves(roll)) >= 4


# --- hint against the definition ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("label", "text", "roll"), CASES, ids=case_ids(CASES))
def test_zero_ply_hint_is_the_definition(Position: Any, label: str, text: str, roll: Any) -> None:
    position = Position.from_text(text)
    expected = Plain(linear_leaf).hint(nardy_fast.Position.from_text(text), roll, 0)
    assert_same_hint(position.hint(roll, evaluator=Linear(), plies=0), expected)


@pytest.mark.parametrize(("label", "text", "roll"), CASES, ids=case_ids(CASES))
def test_one_ply_hint_is_the_definition(label: str, text: str, roll: Any) -> None:
    expected = Plain(linear_leaf).hint(nardy_fast.Position.from_text(text), roll, 1)
    assert_same_hint(nardy_fast.Position.from_text(text).hint(roll, evaluator=Linear(), plies=1), expected)
    if label in SMALL:  # the bigger searches of the reference: compared with the core's below
        found = nardy_fast.reference.Position.from_text(text).hint(roll, evaluator=Linear(), plies=1)
        assert_same_hint(found, expected)


@pytest.mark.parametrize(
    ("label", "text", "roll"),
    [c for c in CASES if c[0] not in SMALL],
    ids=case_ids([c for c in CASES if c[0] not in SMALL]),
)
def test_one_ply_hint_of_the_reference_is_the_cores(label: str, text: str, roll: Any) -> None:
    core = nardy_fast.Position.from_text(text).hint(roll, evaluator=Linear(), plies=1)
    reference = nardy_fast.reference.Position.from_text(text).hint(roll, evaluator=Linear(), plies=1)
    assert as_pairs(reference) == as_pairs(core)


#: A short-nardy position (both sides on the bar) whose 10 moves the 2-ply top filter cuts to 4 by width with
#: ``Linear(4.0)``, and whose replies the inner filter cuts; a long-nardy end game, cheaper, for the reference.
TWO_PLY = (
    "short w 1:-1,2:3,3:1,4:-1,5:4,6:-2,7:-1,11:2,12:-4,13:3,15:1,19:-3,23:-1,24:-1 bar=1/1 first=-",
    (3, 1),
)
TWO_PLY_SMALL = ("long b 1:3,6:-1,13:-8,14:-2,15:-1,16:-1,19:-1,22:-1 off=12/0 first=-", (6, 3))


def test_two_ply_hint_is_the_definition() -> None:
    text, roll = TWO_PLY
    position = nardy_fast.Position.from_text(text)
    plain = Plain(Linear(4.0).values)
    expected = plain.hint(position, roll, 2)
    assert_same_hint(position.hint(roll, evaluator=Linear(4.0), plies=2), expected)
    zero = dict(as_pairs(position.hint(roll, evaluator=Linear(4.0), plies=0)))
    searched = [abs(v - zero[m]) > 1e-12 for m, v in expected]
    assert searched == [True] * 4 + [False] * 6  # the cut moves follow, with their 0-ply equities
    assert plain.inner["cut"] and plain.inner["several"]  # the inner filter cuts, and leaves choices
    # the keep count cuts too: 10 moves, all within the width
    text, roll = "short b 1:2,18:-2,20:-1,21:-2,22:-1,23:-2,24:-7 off=13/0 first=-", (3, 2)
    position = nardy_fast.Position.from_text(text)
    expected = Plain(linear_leaf).hint(position, roll, 2)
    assert_same_hint(position.hint(roll, evaluator=Linear(), plies=2), expected)
    zero = dict(as_pairs(position.hint(roll, evaluator=Linear(), plies=0)))
    assert len(expected) > 8
    assert [abs(v - zero[m]) > 1e-12 for m, v in expected] == [True] * 8 + [False] * (len(expected) - 8)


@pytest.mark.slow
def test_two_ply_hint_of_the_reference() -> None:
    text, roll = TWO_PLY_SMALL
    expected = Plain(Linear(6.0).values).hint(nardy_fast.Position.from_text(text), roll, 2)
    for module in IMPLS.values():
        found = module.Position.from_text(text).hint(roll, evaluator=Linear(6.0), plies=2)
        assert_same_hint(found, expected)


def test_a_finished_game_has_no_hint(Position: Any) -> None:
    finished = Position.from_text("short b 19:-14 off=15/1")
    for plies in (0, 1, 2):
        assert finished.hint((3, 1), evaluator=Linear(), plies=plies) == []


# --- the order of a hint ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("plies", [0, 1, 2])
def test_ties_keep_legal_moves_order(Position: Any, plies: int) -> None:
    text = "gulbar b 2:-2,4:14,8:1,12:-13 first=- pending=6,6,6,6"
    small = CASE["gulbar transfer played"]  # the reference's 2-ply search of four 6s is slow
    position = Position.from_text(text if plies < 2 or Position is nardy_fast.Position else small[0])
    roll = None if position.pending else small[1]
    hint = position.hint(roll, evaluator=Constant(), plies=plies)
    assert [m for m, _ in hint] == position.legal_moves(roll) and len(hint) > 1
    assert {v for _, v in hint} == {2 * 0.5 - 1 + 0.1 - 0.1}  # the same from both sides


def test_a_hint_is_best_first_with_ties_in_legal_moves_order(Position: Any) -> None:
    class Coarse(Linear):
        """Equities rounded to tenths: many ties among the moves."""

        def evaluate(self, rows: npt.NDArray[np.int8]) -> npt.NDArray[np.float64]:
            p = self.values(rows)
            p[:, 0] = np.round(p[:, 0], 1)
            p[:, 1:] = 0.0
            return p

    text, roll = CASE["short middle"]
    position = Position.from_text(text)
    order = {m: i for i, m in enumerate(position.legal_moves(roll))}
    for plies in (0, 1):
        hint = position.hint(roll, evaluator=Coarse(), plies=plies)
        assert sorted(order[m] for m, _ in hint) == list(range(len(order)))
        keys = [(-v, order[m]) for m, v in hint]
        assert keys == sorted(keys)
        if plies == 0:
            assert len({v for _, v in hint}) < len(hint)  # ties do happen


def test_the_evaluator_is_called_once_per_level(Position: Any) -> None:
    # the batched search: one evaluator call per level of the tree, for all of its positions
    start = Position.start("short")
    transfer = Position.from_text("gulbar w 3:-2,4:7,5:7,12:-13,14:1 first=-")  # its one child has a list
    bearing = Position.from_text(CASE["bearing off"][0])
    for position, roll, plies, calls in (
        (start, (3, 1), 0, 1),
        (start, (3, 1), 1, 1),
        (transfer, (6, 5), 0, 1),
        (transfer, (6, 5), 1, 2),  # the transfers, then the rolls after them
        (bearing, (2, 1), 2, 3),  # the 0-ply cut, the replies, their replies
    ):
        recorder = Recorder()
        position.hint(roll, evaluator=recorder, plies=plies)
        assert recorder.calls == calls, (position, plies)


# --- bad input --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("plies", [3, -1, 1.5, "1", True, False, np.True_, None, 2**70, np.array([1])])
def test_bad_plies(plies: object) -> None:
    # docs: an integer is an int or a NumPy integer, never a bool (nardy_fast.inputs.integer)
    message = same_error(lambda m: m.Position.start("short").hint((3, 1), evaluator=Linear(), plies=plies))
    assert message.startswith("plies: must be an integer 0..2")
    message = same_error(lambda m: m.Position.start("short").hint((3, 1), evaluator="heuristic", plies=plies))
    assert message.startswith("plies: ")


def test_numpy_plies(Position: Any) -> None:
    position = Position.from_text(CASE["gulbar transfer made"][0])
    expected = position.hint((6, 5), evaluator=Linear(), plies=1)
    assert position.hint((6, 5), evaluator=Linear(), plies=np.int8(1)) == expected


def test_a_roll_on_a_pending_list_and_no_roll_on_a_normal_position() -> None:
    pending = "gulbar b 3:-2,4:7,5:7,8:1,12:-13 first=- pending=5"
    message = same_error(lambda m: m.Position.from_text(pending).hint((3, 1), evaluator=Linear()))
    assert message.startswith("dice")
    message = same_error(lambda m: m.Position.start("short").hint(None, evaluator=Linear()))
    assert message.startswith("dice")
    for roll in ((7, 1), (0, 0), (3,), "31", (3.0, 1.0)):
        same_error(lambda m: m.Position.start("short").hint(roll, evaluator=Linear()))


# --- the built-in evaluators' search, in C in the core ----------------------------------------------------------


def builtin_leaf(name: str) -> Any:
    """The built-in evaluator's values (the compiled core's: the evaluators' own tests compare them with the
    reference's), so that the C search is checked against the definition."""
    return lambda rows: nardy_fast.evaluate(rows, name)


def heuristic_ready() -> bool:
    try:
        nardy_fast.reference.evaluate(nardy_fast.Position.start("long"), "heuristic")
        nardy_fast.Position.start("long").hint((3, 1), evaluator="heuristic", plies=1)
    except NardyError:
        return False
    return True


@pytest.mark.parametrize(("label", "text", "roll"), CASES, ids=case_ids(CASES))
@pytest.mark.parametrize("plies", [0, 1])
def test_builtin_hint_is_the_definition(label: str, text: str, roll: Any, plies: int) -> None:
    if not heuristic_ready():
        pytest.skip("the heuristic evaluator is not there yet")
    expected = Plain(builtin_leaf("heuristic")).hint(nardy_fast.Position.from_text(text), roll, plies)
    assert_same_hint(
        nardy_fast.Position.from_text(text).hint(roll, evaluator="heuristic", plies=plies), expected
    )
    if plies == 0 or label in SMALL:
        found = nardy_fast.reference.Position.from_text(text).hint(roll, evaluator="heuristic", plies=plies)
        assert_same_hint(found, expected)


def test_builtin_two_ply_hint_is_the_definition() -> None:
    if not heuristic_ready():
        pytest.skip("the heuristic evaluator is not there yet")
    text, roll = TWO_PLY
    position = nardy_fast.Position.from_text(text)
    expected = Plain(builtin_leaf("heuristic")).hint(position, roll, 2)
    assert_same_hint(position.hint(roll, evaluator="heuristic", plies=2), expected)
    zero = dict(as_pairs(position.hint(roll, evaluator="heuristic", plies=0)))
    assert 0 < sum(abs(v - zero[m]) > 1e-12 for m, v in expected) < len(expected)  # the top filter cuts


@pytest.mark.slow
def test_more_builtin_searches_are_the_definition() -> None:
    if not heuristic_ready():
        pytest.skip("the heuristic evaluator is not there yet")
    text, roll = TWO_PLY_SMALL
    position = nardy_fast.Position.from_text(text)
    expected = Plain(builtin_leaf("heuristic")).hint(position, roll, 2)
    assert_same_hint(position.hint(roll, evaluator="heuristic", plies=2), expected)
    text, short_roll = CASE["short middle"]
    expected = Plain(builtin_leaf("pubeval")).hint(nardy_fast.Position.from_text(text), short_roll, 1)
    found = nardy_fast.Position.from_text(text).hint(short_roll, evaluator="pubeval", plies=1)
    assert_same_hint(found, expected)
    reference = nardy_fast.reference.Position.from_text(text).hint(short_roll, evaluator="pubeval", plies=1)
    assert_same_hint(reference, expected)
