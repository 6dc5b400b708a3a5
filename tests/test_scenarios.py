"""The rule-book scenarios (data in ``scenarios.py``) checked against every implementation."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import pytest
from scenarios import SCENARIOS, Case, ScoringCase, Side, Snapshot, all_cases, snapshot

from nardy_fast.position import Move
from nardy_fast.position import Position as BasePosition

PositionType = type[BasePosition]

CASES = list(all_cases())


def _params(keep: Callable[[Case], bool] = lambda case: True) -> list[object]:
    """``pytest.param`` for each case that ``keep`` accepts, with the scenario number as its id."""
    return [pytest.param(case, id=ident) for ident, case in CASES if keep(case)]


def _other(side: Side) -> Side:
    return "black" if side == "white" else "white"


def _index(side: Side) -> int:
    return 0 if side == "white" else 1


def build(cls: PositionType, case: Case) -> BasePosition:
    """The start position of ``case`` (X = ``case.mover``)."""
    board, bar, off = snapshot(case.variant, case.position, case.mover)
    first = (case.first, case.opponent_first)
    return cls.from_board(
        case.variant,
        board,
        turn=case.mover,
        bar=bar,
        off=off,
        first_roll=first if case.mover == "white" else first[::-1],
        pending=case.pending,
        rolls_played=(0, 0),
        **case.flags,
    )


def legal(cls: PositionType, case: Case) -> list[Move]:
    """The engine's legal moves for the case's roll, or for its pending list when the roll is ``None``."""
    position = build(cls, case)
    return position.legal_moves() if case.roll is None else position.legal_moves(case.roll)


def identity(position: BasePosition) -> Snapshot:
    """The parts of a position that make a result distinct (docs/rules.md, One move per result)."""
    return position.board, position.bar, position.off


def expected(case: Case, texts: Iterable[str]) -> set[Snapshot]:
    """Result texts of ``case`` (in its mover's coordinates) as identities."""
    return {snapshot(case.variant, text, case.mover) for text in texts}


def test_every_scenario_is_encoded() -> None:
    """Scenarios 1..36 each appear exactly once."""
    numbers = [scenario.number for scenario in SCENARIOS]
    assert sorted(numbers) == list(range(1, 37))


@pytest.mark.parametrize("case", _params())
def test_number_of_results(Position: PositionType, case: Case) -> None:
    """n distinct results, each returned once (docs/rules.md, One move per result)."""
    moves = legal(Position, case)
    assert len({identity(move.result) for move in moves}) == len(moves)
    assert len(moves) == case.n, [str(move) for move in moves]


@pytest.mark.parametrize("case", _params())
def test_results(Position: PositionType, case: Case) -> None:
    """The complete result set when the scenario lists it; listed results present; named illegal results absent."""
    got = {identity(move.result) for move in legal(Position, case)}
    if case.results is not None:
        assert got == expected(case, case.results)
    assert expected(case, case.examples) | expected(case, case.moves.values()) <= got
    assert not expected(case, case.absent_results) & got


@pytest.mark.parametrize("case", _params(lambda case: bool(case.moves)))
def test_canonical_steps(Position: PositionType, case: Case) -> None:
    """Each named result carries the canonical (lexicographically greatest) step sequence (docs/rules.md, Canonical step order)."""
    by_result = {identity(move.result): str(move) for move in legal(Position, case)}
    for text, result in case.moves.items():
        assert by_result.get(snapshot(case.variant, result, case.mover)) == text


@pytest.mark.parametrize("case", _params(lambda case: bool(case.forbidden_steps)))
def test_forbidden_steps(Position: PositionType, case: Case) -> None:
    """Steps the scenario names as illegal (closed, out of order, or one-die finishes) appear in no legal move."""
    for move in legal(Position, case):
        assert not {str(step) for step in move.steps} & set(case.forbidden_steps), str(move)


@pytest.mark.parametrize("case", _params(lambda case: case.dice_used is not None))
def test_dice_used(Position: PositionType, case: Case) -> None:
    """Every legal move plays exactly Umax steps (docs/rules.md, Maximal use of the dice)."""
    assert {len(move.steps) for move in legal(Position, case)} == {case.dice_used}


@pytest.mark.parametrize("case", _params())
def test_remainder_and_extra_roll(Position: PositionType, case: Case) -> None:
    """Remainder (docs/rules.md, Gulbar transfers) and extra roll (docs/rules.md, Six-one extra roll, Gulbar extra roll) of every legal move."""
    for move in legal(Position, case):
        assert tuple(move.remainder) == case.remainder, str(move)
        assert move.extra_roll is case.extra_roll, str(move)


@pytest.mark.parametrize("case", _params())
def test_next_state(Position: PositionType, case: Case) -> None:
    """Side to move, pending list, first-roll flags and rule flags after every move (docs/rules.md, What follows a move)."""
    start = build(Position, case)
    mover, opponent = case.mover, _other(case.mover)
    for move in legal(Position, case):
        result = move.result
        assert result.flags == start.flags
        if case.roll is None:  # a transfer segment keeps the first-roll flags
            assert result.first_roll == start.first_roll
        else:  # a move for the mover's own roll clears the mover's flag only
            assert result.first_roll[_index(mover)] is False
            assert result.first_roll[_index(opponent)] == start.first_roll[_index(opponent)]
        if result.is_over():
            assert (result.turn, result.pending, move.extra_roll, tuple(move.remainder)) == (
                opponent, (), False, ()
            )
            assert result.legal_moves((6, 5)) == []
        elif move.extra_roll or case.roll is None:
            assert (result.turn, result.pending) == (mover, ())
        else:
            assert (result.turn, result.pending) == (opponent, tuple(move.remainder))


@pytest.mark.parametrize("case", _params(lambda case: case.points is not None))
def test_finishing_score(Position: PositionType, case: Case) -> None:
    """A result that bears off X's 15th checker wins for X and scores as docs/rules.md, Game end and scoring, says."""
    finished = [move.result for move in legal(Position, case) if move.result.is_over()]
    assert finished
    for result in finished:
        assert (result.winner(), result.points()) == (case.mover, case.points)


@pytest.mark.parametrize("case", _params(lambda case: case.then is not None))
def test_follow_up_position(Position: PositionType, case: Case) -> None:
    """The turn after the move (transfer segment or extra roll) starts from that move's result, in full."""
    assert case.then is not None
    follow = build(Position, case.then)
    results = [move.result for move in legal(Position, case)]
    assert follow in results, (follow.to_text(), [result.to_text() for result in results])


SCORING = [
    pytest.param(case, winner, id=f"28 {case.label}, {winner} wins")
    for scenario in SCENARIOS
    for case in scenario.scoring
    for winner in ("white", "black")
]


@pytest.mark.parametrize(("case", "winner"), SCORING)
def test_scoring(Position: PositionType, case: ScoringCase, winner: Side) -> None:
    """Scenario 28: points of a finished game (docs/rules.md, Game end and scoring), with either colour as the winner X."""
    board, bar, off = snapshot(case.variant, case.position, winner)
    position = Position.from_board(
        case.variant, board, turn=_other(winner), bar=bar, off=off, first_roll=(False, False)
    )
    assert position.is_over()
    assert position.winner() == winner
    assert position.points() == case.points
    assert position.legal_moves((6, 5)) == []
