"""Race and bear-off detection (docs/rules.md, Races and bear-off positions): ``Position.is_race/is_bearoff``
and the vectorised ``layout.is_race/is_bearoff`` (``race.race_rows/bearoff_rows``).

* hand-made boundary positions of every variant, their answers derived from the definitions;
* both codings (per position, vectorised) against an oracle of their own: whether some checker of one side and
  some checker of the other can ever stand on the same point, from the points each checker can still reach;
* against play: in random games, a race stays a race, short nardy sees no hit after it, the long family plays
  every die from it, and the mover's legal results do not change when the opponent's checkers are all moved to
  the opponent's 1-point (the opponent no longer matters); bear-off rows are races;
* bad input to the vectorised functions: a ``NardyError`` naming ``rows``.
"""

from __future__ import annotations

from functools import cache
from typing import Optional

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import Spec, dice_count, specs

import nardy_fast
from nardy_fast import NardyError, layout, race
from nardy_fast._dispatch import implementations
from nardy_fast.playouts import Trajectories
from nardy_fast.position import Position as SharedPosition
from nardy_fast.variants import VARIANTS

LONG_FAMILY = ("long", "sixone", "gulbar", "crazy")
IMPLS = implementations()
CORE = IMPLS.get("cython")


def white_point(variant: str, turn: str, point: int) -> int:
    """White's number of ``turn``'s own point ``point`` (docs/rules.md, The mover's numbering)."""
    if turn == "white":
        return point
    if variant in LONG_FAMILY:
        return point + 12 if point <= 12 else point - 12
    return 25 - point


def position(
    Position: type[SharedPosition],
    variant: str,
    white: dict[int, int],
    black: dict[int, int],
    *,
    bar: tuple[int, int] = (0, 0),
    turn: str = "white",
) -> SharedPosition:
    """``white`` and ``black`` as {own point: count}, each side's own numbering; the rest borne off."""
    board = [0] * 24
    for point, count in white.items():
        board[point - 1] += count
    for point, count in black.items():
        board[white_point(variant, "black", point) - 1] -= count
    off = (15 - sum(white.values()) - bar[0], 15 - sum(black.values()) - bar[1])
    return Position.from_board(variant, board, turn=turn, bar=bar, off=off, first_roll=(False, False))


# --- hand-made boundaries ----------------------------------------------------------------------------------------

# (White on its own points, Black on its own points, is_race, is_bearoff), long family. Each checker only moves to
# lower points of its own numbering; White's 1..12 are Black's 13..24.
LONG_CASES = [
    ({12: 1}, {12: 1}, True, False),  # both on their own 12: White's 12 and 24
    ({13: 1}, {12: 1}, False, False),  # White's 13 is Black's 1: White can land on Black's 1..12
    ({12: 1}, {13: 1}, False, False),  # Black's 13 is White's 1, where White can land
    ({1: 1}, {24: 1}, False, False),  # Black on its head (White's 12), ahead of White's 1
    ({24: 1}, {1: 1}, False, False),  # White on its head, Black on White's 13
    ({12: 3, 1: 2}, {12: 4, 1: 1}, True, False),
    ({p: 1 for p in range(1, 13)}, {p: 1 for p in range(1, 13)}, True, False),  # two 12-point walls, passed
    ({6: 1}, {6: 1}, True, True),
    ({6: 14, 1: 1}, {1: 15}, True, True),
    ({7: 1}, {6: 1}, True, False),
    ({6: 1}, {7: 1}, True, False),
    ({}, {13: 1}, True, False),  # White has won: a finished game is a race
    ({}, {18: 1}, True, False),
    ({}, {6: 2}, True, True),
    ({20: 1}, {}, True, False),
]

# the same for short nardy, with the bars: White moves down White's points, Black up them
SHORT_CASES = [
    ({12: 1}, {12: 1}, (0, 0), True, False),  # White on its 12, Black on White's 13: passed
    ({13: 1}, {13: 1}, (0, 0), False, False),  # White on 13, Black on White's 12: they face each other
    ({1: 1}, {23: 1}, (0, 0), True, False),  # Black's 23 is White's 2
    ({24: 1}, {24: 1}, (0, 0), False, False),
    ({2: 1}, {24: 1}, (0, 0), False, False),  # Black on White's 1, behind White's 2
    ({12: 1, 3: 2}, {12: 1, 1: 3}, (0, 0), True, False),
    ({3: 1}, {5: 1}, (1, 0), False, False),  # a White checker on the bar enters into Black's home
    ({3: 1}, {5: 1}, (0, 1), False, False),
    ({6: 1}, {6: 1}, (0, 0), True, True),
    ({6: 5, 1: 10}, {6: 5, 2: 5, 1: 5}, (0, 0), True, True),
    ({6: 1}, {6: 1}, (0, 1), False, False),  # home, but a checker on the bar
    ({7: 1}, {6: 1}, (0, 0), True, False),
    ({6: 1}, {7: 1}, (0, 0), True, False),
    ({}, {20: 1}, (0, 0), True, False),  # White has won
    ({20: 1}, {}, (1, 0), True, False),  # Black has won; White's bar no longer matters
    ({}, {3: 2}, (0, 0), True, True),
]


def check_one(p: SharedPosition, race_expected: bool, bearoff_expected: bool) -> None:
    row = p.to_array()
    assert (p.is_race(), p.is_bearoff()) == (race_expected, bearoff_expected), p.to_text()
    assert (race.is_race(p.state), race.is_bearoff(p.state)) == (race_expected, bearoff_expected)
    assert list(layout.is_race(row)) == [race_expected] and list(layout.is_bearoff(row)) == [bearoff_expected]
    assert list(race.race_rows(row[None])) == [race_expected]
    assert list(race.bearoff_rows(row[None])) == [bearoff_expected]


@pytest.mark.parametrize("variant", LONG_FAMILY)
@pytest.mark.parametrize(("white", "black", "is_race", "is_bearoff"), LONG_CASES)
def test_long_family_boundaries(
    Position: type[SharedPosition], variant: str, white: dict[int, int], black: dict[int, int], is_race: bool, is_bearoff: bool
) -> None:
    for turn in ("white", "black"):
        check_one(position(Position, variant, white, black, turn=turn), is_race, is_bearoff)
        # the same position with the colours swapped
        check_one(position(Position, variant, black, white, turn=turn), is_race, is_bearoff)


@pytest.mark.parametrize(("white", "black", "bar", "is_race", "is_bearoff"), SHORT_CASES)
def test_short_boundaries(
    Position: type[SharedPosition],
    white: dict[int, int],
    black: dict[int, int],
    bar: tuple[int, int],
    is_race: bool,
    is_bearoff: bool,
) -> None:
    for turn in ("white", "black"):
        check_one(position(Position, "short", white, black, bar=bar, turn=turn), is_race, is_bearoff)
        check_one(position(Position, "short", black, white, bar=bar[::-1], turn=turn), is_race, is_bearoff)


def test_starts_are_neither(Position: type[SharedPosition]) -> None:
    for variant in VARIANTS:
        check_one(Position.start(variant), False, False)


def test_the_same_board_differs_by_family(Position: type[SharedPosition]) -> None:
    """White on its 6, Black on White's 13: in the long family that is Black's 1 (home), in short nardy Black's 12."""
    board = [0] * 24
    board[5], board[12] = 1, -1
    for variant, bearoff in (("long", True), ("short", False)):
        p = Position.from_board(variant, board, off=(14, 14), first_roll=(False, False))
        check_one(p, True, bearoff)


def test_rows_of_every_variant_at_once() -> None:
    positions = [position(SharedPosition, "long", {12: 1}, {12: 1}), position(SharedPosition, "short", {13: 1}, {13: 1})]
    positions += [position(SharedPosition, "short", {6: 1}, {6: 1}), position(SharedPosition, "crazy", {7: 1}, {13: 1})]
    rows = np.stack([p.to_array() for p in positions])
    assert layout.is_race(rows).tolist() == [True, False, True, False]
    assert layout.is_bearoff(rows).tolist() == [False, False, True, False]
    assert layout.is_race(rows[:0]).shape == layout.is_bearoff(rows[:0]).shape == (0,)
    assert layout.is_race(rows.astype(np.int64)).tolist() == [True, False, True, False]


# --- an oracle: can some pair of checkers still stand on one point? ---------------------------------------------------


def reach(variant: str, turn: str, point: Optional[int]) -> set[int]:
    """The White points a checker of ``turn`` on its own ``point`` (``None``: the bar) can still stand on."""
    if point is None:  # short nardy: it enters on any of its points 19..24 and goes on from there
        return set(range(1, 25))
    return {white_point(variant, turn, p) for p in range(1, point + 1)}


def checkers(p: SharedPosition, turn: str) -> list[Optional[int]]:
    sign = 1 if turn == "white" else -1
    own = {white_point(p.variant, turn, m): m for m in range(1, 25)}
    points: list[Optional[int]] = [own[w] for w in range(1, 25) if p.board[w - 1] * sign > 0]
    return points + [None] * p.bar[0 if turn == "white" else 1]


def oracle(p: SharedPosition) -> tuple[bool, bool]:
    """(is_race, is_bearoff) from the definitions: no White checker can stand where a Black one can; every
    checker still in play on its own 1..6."""
    white, black = checkers(p, "white"), checkers(p, "black")
    touch = any(reach(p.variant, "white", w) & reach(p.variant, "black", b) for w in white for b in black)
    home = all(point is not None and point <= 6 for point in white + black)
    return p.is_over() or not touch, home


@given(st.lists(specs(), min_size=1, max_size=20))
def test_both_codings_agree_with_the_oracle(drawn: list[tuple[Spec, object]]) -> None:
    positions = [spec.build(SharedPosition) for spec, _ in drawn]
    rows = np.stack([p.to_array() for p in positions])
    expected = [oracle(p) for p in positions]
    assert [(p.is_race(), p.is_bearoff()) for p in positions] == expected
    assert list(zip(layout.is_race(rows).tolist(), layout.is_bearoff(rows).tolist())) == expected


# --- against play ------------------------------------------------------------------------------------------------------


@cache
def games(variant: str) -> Trajectories:
    """Random games of ``variant``: played by the core when it is built (whatever implementation is under
    test), else fewer by the reference."""
    if CORE is None and variant == "crazy":
        pytest.skip("the reference plays random crazy gulbar games too slowly: needs the core")
    played: tuple[object, Trajectories] = (CORE or IMPLS["python"]).playout(
        variant, 20 if CORE is None else 200, seed=22, trajectories=True
    )
    return played[1]


@pytest.mark.parametrize("variant", VARIANTS)
def test_play_keeps_a_race_a_race(variant: str) -> None:
    played = games(variant)
    rows, offsets = played.rows, played.offsets
    races, bearoffs = layout.is_race(rows), layout.is_bearoff(rows)
    assert races.any() and bearoffs.any() and not races.all()
    assert races[bearoffs].all()
    assert races[layout.is_over(rows)].all()
    for begin, end in zip(offsets[:-1].tolist(), offsets[1:].tolist()):
        game = races[begin:end]
        if not game.any():
            continue  # a game given up before it ended (a finished game is a race)
        first = begin + int(np.argmax(game))
        assert races[first:end].all(), f"game rows {begin}..{end}: a race became contact again"
        assert (rows[first:end, layout.BAR : layout.BAR + 2] == 0).all()  # no hit after it
        # no die is left over, so no transfer is made
        assert (rows[first + 1 : end, layout.NPENDING] == 0).all()


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_codings_agree_on_played_rows(variant: str) -> None:
    rows = games(variant).rows
    rng = np.random.default_rng(22)
    races = layout.is_race(rows)
    contact = np.flatnonzero(~races)
    sample = np.concatenate([np.flatnonzero(races)[:800], rng.choice(contact, min(400, len(contact)), replace=False)])
    positions = [SharedPosition.from_array(rows[i]) for i in sample]
    assert [p.is_race() for p in positions] == races[sample].tolist() == [oracle(p)[0] for p in positions]
    assert [p.is_bearoff() for p in positions] == layout.is_bearoff(rows[sample]).tolist()
    assert [oracle(p)[1] for p in positions] == layout.is_bearoff(rows[sample]).tolist()


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_core_loop_sees_the_same_bearoffs(variant: str) -> None:
    # the C playout loop stops a truncated game with its own bear-off test: it must be layout.is_bearoff's
    if CORE is None:
        pytest.skip("needs the core")
    from nardy_fast import _core

    rows = games(variant).rows
    assert [_core.is_bearoff_row(row) for row in rows] == layout.is_bearoff(rows).tolist()


def parked(p: SharedPosition) -> SharedPosition:
    """``p`` with the opponent's checkers on the board all on the opponent's own point 1."""
    sign = 1 if p.turn == "white" else -1
    board = [c if c * sign > 0 else 0 for c in p.board]
    opponent = "black" if p.turn == "white" else "white"
    board[white_point(p.variant, opponent, 1) - 1] -= sign * sum(-c * sign for c in p.board if c * sign < 0)
    return type(p)(p.state._replace(board=tuple(board)))


def mover_part(p: SharedPosition, turn: str) -> tuple[object, ...]:
    sign, side = (1, 0) if turn == "white" else (-1, 1)
    return (tuple(max(c * sign, 0) for c in p.board), p.bar[side], p.off[side])


#: Race rows whose legal moves are compared, per variant: every one for the core, a sample for the reference.
COMPARED = {"cython": 3000, "python": 150}


@pytest.mark.parametrize("variant", VARIANTS)
def test_in_a_race_the_opponent_no_longer_matters(Position: type[SharedPosition], variant: str) -> None:
    played = games(variant)
    rows, rolls = played.rows, played.rolls
    races = layout.is_race(rows) & ~layout.is_over(rows)
    name = "python" if Position is IMPLS["python"].Position else "cython"
    chosen = np.flatnonzero(races)[: COMPARED[name]]
    assert len(chosen) > 100
    for index in chosen.tolist():
        p = Position.from_array(rows[index])
        roll = None if p.pending else (int(rolls[index, 0]), int(rolls[index, 1]))
        moves = p.legal_moves(roll)
        assert Position.from_array(rows[index + 1]) in [m.result for m in moves]
        if variant in LONG_FAMILY:  # blocks never matter: every die is played, unless the game ends first
            dice = dice_count(variant, roll, p.pending, p.flags)
            assert all(len(m.steps) == dice or m.result.is_over() for m in moves), p.to_text()
        alone = parked(p)
        assert alone.is_race()
        results = {mover_part(m.result, p.turn) for m in moves}
        assert results == {mover_part(m.result, p.turn) for m in alone.legal_moves(roll)}, p.to_text()


def test_a_contact_position_is_not_like_one_with_the_opponent_parked() -> None:
    """The comparison above can fail: in contact, the opponent's checkers close points."""
    p = nardy_fast.Position.from_text("long w 3:1,6:1,18:-15 off=13/0 first=-")
    contact = nardy_fast.Position.from_text("long w 1:-1,3:1,6:1,18:-14 off=13/0 first=-")
    assert p.is_race() and not contact.is_race()
    moves = {mover_part(m.result, "white") for m in contact.legal_moves((5, 4))}
    assert moves != {mover_part(m.result, "white") for m in parked(contact).legal_moves((5, 4))}


# --- bad input -----------------------------------------------------------------------------------------------------------

GOOD = nardy_fast.Position.start("long").to_array()
BAD_ROWS = [
    None,
    "rows",
    3,
    [[1, 2], [3]],  # ragged
    [GOOD.tolist(), GOOD.tolist()[:63]],
    np.zeros((2, 63), dtype=np.int8),
    np.zeros((2, 2, 64), dtype=np.int8),
    GOOD.astype(float),
    GOOD.astype(bool),
    GOOD.astype(object),
    np.where(np.arange(64) == 0, 300, GOOD.astype(np.int64)),  # would wrap round to 44 in int8
    np.where(np.arange(64) == layout.VARIANT, len(VARIANTS), GOOD).astype(np.int8),
    np.where(np.arange(64) == layout.VARIANT, -1, GOOD).astype(np.int8),
]


@pytest.mark.parametrize("function", [layout.is_race, layout.is_bearoff, race.race_rows, race.bearoff_rows])
@pytest.mark.parametrize("rows", BAD_ROWS, ids=range(len(BAD_ROWS)))
def test_bad_rows(function: object, rows: object) -> None:
    with pytest.raises(NardyError, match=r"^rows: "):
        function(rows)  # type: ignore[operator]


def test_bad_row_messages() -> None:
    with pytest.raises(NardyError) as shape:
        layout.is_race(np.zeros((2, 63), dtype=np.int8))
    assert str(shape.value) == "rows: must be an integer array of shape (N, 64) (got (2, 63))"
    with pytest.raises(NardyError) as variant:
        layout.is_bearoff(BAD_ROWS[-2])
    assert str(variant.value) == "rows: the variant column must be an index 0..4 (got np.int8(5))"
