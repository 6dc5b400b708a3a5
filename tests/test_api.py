"""The public API: construction, bad input, text and repr, Zobrist keys, identity, play, pips and scoring."""

from __future__ import annotations

import re

import pytest

import nardy_fast
from nardy_fast import zobrist
from nardy_fast.errors import (
    IllegalMoveError,
    InvalidDiceError,
    InvalidNotationError,
    InvalidPositionError,
)

Pos = type[nardy_fast.reference.Position]
LONG_START = "long w 12:-15,24:15"
SHORT_START = "short w 1:-2,6:5,8:3,12:-5,13:5,17:-3,19:-5,24:2"


def test_variants_contract() -> None:
    assert nardy_fast.VARIANTS == ("long", "sixone", "short", "gulbar", "crazy")
    assert nardy_fast.IMPLEMENTATION in ("python", "cython")
    assert nardy_fast.reference.IMPLEMENTATION == "python"
    assert len(nardy_fast.ROLLS) == 21


@pytest.mark.parametrize("variant", nardy_fast.VARIANTS)
def test_start_positions(Position: Pos, variant: str) -> None:
    start = Position.start(variant)
    assert start.variant == variant
    assert start.turn == "white"
    assert start.first_roll == (True, True)
    assert start.pending == ()
    assert start.bar == start.off == (0, 0)
    expected = SHORT_START if variant == "short" else LONG_START.replace("long", variant)
    assert start.to_text() == expected
    assert start.pips() == ((167, 167) if variant == "short" else (360, 360))


def test_start_text_and_repr_paste_back(Position: Pos) -> None:
    start = Position.start("crazy", ladder_per_value=4, block_check="per_step")
    assert start.to_text() == "crazy w 12:-15,24:15 block_check=per_step ladder_per_value=4"
    assert repr(start) == f"Position.from_text({start.to_text()!r})"
    assert eval(repr(start), {"Position": Position}) == start
    assert Position.from_text(start.to_text()) == start


def test_text_with_every_field(Position: Pos) -> None:
    text = "gulbar b 1:3,5:-2,13:12,17:-13 off=0/0 first=w pending=6,5"
    position = Position.from_text(text)
    assert position.turn == "black"
    assert position.first_roll == (True, False)
    assert position.pending == (6, 5)
    assert position.board[0] == 3 and position.board[4] == -2
    assert position.to_text() == "gulbar b 1:3,5:-2,13:12,17:-13 first=w pending=6,5"
    short = Position.from_text("short w 6:14,19:-13 bar=1/1 off=0/1 first=-")
    assert (short.bar, short.off) == ((1, 1), (0, 1))
    assert Position.from_text(short.to_text()) == short


def test_flags(Position: Pos) -> None:
    assert Position.start("long").flags == {"block_check": "end_of_turn", "first_roll_exception_doubles": (6, 4, 3)}
    assert Position.start("short").flags == {}
    assert Position.start("sixone", sixone_extra_roll_requires_play=True).flags == {
        "block_check": "end_of_turn",
        "sixone_extra_roll_requires_play": True,
    }
    doubles = Position.start("long", first_roll_exception_doubles=[6])
    assert doubles.flags["first_roll_exception_doubles"] == (6,)
    assert doubles.to_text() == "long w 12:-15,24:15 first_roll_exception_doubles=6"
    # 4-4 is no exception any more: one head checker, and 16/12 lands on Black's head (docs/rules.md, First-roll exception).
    assert [str(m) for m in doubles.legal_moves((4, 4))] == ["24/20 20/16"]
    # Flags are inherited by every derived position.
    child = Position.start("crazy", ladder_per_value=4).legal_moves((6, 6))[0].result
    assert child.flags["ladder_per_value"] == 4


BAD_POSITIONS: list[tuple[str, dict[str, object], type[Exception], str]] = [
    ("backgammon", {}, InvalidPositionError, "variant: must be one of ('long', 'sixone', 'short', 'gulbar', 'crazy') (got 'backgammon')"),
    ("long", {"board": [0] * 23}, InvalidPositionError, "board: must have 24 points, not 23 (got [0, 0, "),
    ("long", {"board": "x" * 24}, InvalidPositionError, "board: must be a sequence of 24 integers (got 'xxx"),
    ("long", {"board": [1.5] + [0] * 23}, InvalidPositionError, "board[0]: must be an integer -15..15 (got 1.5)"),
    ("long", {"board": [16] + [0] * 23}, InvalidPositionError, "board[0]: must be an integer -15..15 (got 16)"),
    ("long", {"board": [14] + [0] * 10 + [-15] + [0] * 12}, InvalidPositionError, "board: White has 14 on the board, 0 on the bar and 0 off: 14, not 15 (got [14, "),
    ("long", {"bar": (1, 0)}, InvalidPositionError, "bar: variant 'long' has no bar (got (1, 0))"),
    ("long", {"bar": (0,)}, InvalidPositionError, "bar: must be two integers 0..15 (got (0,))"),
    ("long", {"off": (16, 0)}, InvalidPositionError, "off: must be two integers 0..15 (got (16, 0))"),
    ("long", {"turn": "red"}, InvalidPositionError, "turn: must be 'white' or 'black' (or 'w', 'b') (got 'red')"),
    ("long", {"first_roll": (1, 0)}, InvalidPositionError, "first_roll: must be two booleans (got (1, 0))"),
    ("long", {"pending": (5,)}, InvalidPositionError, "pending: variant 'long' has no transfers (got (5,))"),
    ("gulbar", {"pending": (7,)}, InvalidPositionError, "pending: values must be die values 1..6 (got (7,))"),
    ("gulbar", {"pending": (4, 4, 4, 4, 4)}, InvalidPositionError, "pending: must be one value, two values or 2..4 equal values (got (4, 4, 4, 4, 4))"),
    ("crazy", {"pending": (5, 5)}, InvalidPositionError, "pending: must be one value, two different values or a suffix of a crazy ladder (got (5, 5))"),
    ("long", {"block_check": "never"}, InvalidPositionError, "block_check: must be one of ('end_of_turn', 'per_step') (got 'never')"),
    ("short", {"block_check": "per_step"}, InvalidPositionError, "block_check: does not apply to variant 'short' (got 'per_step')"),
    ("long", {"ladder_per_value": 4}, InvalidPositionError, "ladder_per_value: does not apply to variant 'long' (got 4)"),
    ("crazy", {"ladder_per_value": 3}, InvalidPositionError, "ladder_per_value: must be one of (2, 4) (got 3)"),
    ("long", {"colour": "red"}, InvalidPositionError, "colour: is not a rule flag (got 'red')"),
    ("sixone", {"sixone_extra_roll_requires_play": 1}, InvalidPositionError, "sixone_extra_roll_requires_play: must be True or False (got 1)"),
    ("long", {"first_roll_exception_doubles": (6, 6)}, InvalidPositionError, "first_roll_exception_doubles: must be distinct die values 1..6 (got (6, 6))"),
]


@pytest.mark.parametrize(("variant", "fields", "error", "message"), BAD_POSITIONS, ids=lambda v: str(v)[:40])
def test_bad_positions_are_rejected(
    Position: Pos, variant: str, fields: dict[str, object], error: type[Exception], message: str
) -> None:
    fields = dict(fields)
    board = fields.pop("board", [0] * 11 + [-15] + [0] * 11 + [15])
    with pytest.raises(error) as caught:
        Position.from_board(variant, board, **fields)  # type: ignore[arg-type]
    assert isinstance(caught.value, ValueError)
    assert str(caught.value).startswith(message)


def test_illegal_block_in_input_is_rejected(Position: Pos) -> None:
    # White on its points 10..5 (six in a row on Black's track) with every Black checker behind them.
    with pytest.raises(InvalidPositionError, match=r"^board: White holds an illegal block"):
        Position.from_text("long w 5:1,6:1,7:1,8:1,9:1,10:1,12:-15,24:9")
    # The same run is legal once a Black checker has passed it (White's point 4 is past it on Black's track).
    assert Position.from_text("long w 4:-1,5:1,6:1,7:1,8:1,9:1,10:1,12:-14,24:9")
    # Black's block is judged against White's checkers in the same way.
    with pytest.raises(InvalidPositionError, match=r"^board: Black holds an illegal block"):
        Position.from_text("long w 1:-1,2:-1,3:-1,4:-1,5:-1,6:-1,12:-9,24:15")


BAD_TEXTS = [
    (None, "text: must be a string (got None)"),
    ("long w", "text: must start with '<variant> <w|b> <board>' (got 'long w')"),
    ("long x 12:-15,24:15", "text: the side to move must be 'w' or 'b' (got 'long x 12:-15,24:15')"),
    ("long w 12:-15,25:15", "text: bad board entry '25:15', expected point:count with point 1..24"),
    ("long w 12:-15,12:15", "text: point 12 is listed twice"),
    ("long w 12:-15,24:15 bar=1", "text: bar must be written as bar=W/B"),
    ("long w 12:-15,24:15 first=x", "text: first must be one of wb, w, b, -"),
    ("gulbar w 12:-15,24:15 pending=5,x", "text: pending must be a comma-separated list of die values"),
    ("long w 12:-15,24:15 speed=9", "text: unknown field 'speed'"),
    ("long w 12:-15,24:15 off=0/0 off=0/0", "text: bad or repeated field 'off=0/0'"),
]


@pytest.mark.parametrize(("text", "message"), BAD_TEXTS)
def test_malformed_text_is_rejected(Position: Pos, text: object, message: str) -> None:
    with pytest.raises(InvalidNotationError) as caught:
        Position.from_text(text)  # type: ignore[arg-type]
    assert str(caught.value).startswith(message)


def test_text_values_are_checked_like_the_board(Position: Pos) -> None:
    with pytest.raises(InvalidPositionError, match=r"^ladder_per_value: must be one of \(2, 4\) \(got 3\)$"):
        Position.from_text("crazy w 12:-15,24:15 ladder_per_value=3")


@pytest.mark.parametrize(
    ("dice", "message"),
    [
        ((0, 3), "dice: must be two die values 1..6 (got (0, 3))"),
        ((7, 1), "dice: must be two die values 1..6 (got (7, 1))"),
        ((1, 2, 3), "dice: must be two die values 1..6 (got (1, 2, 3))"),
        ("61", "dice: must be two die values 1..6 (got '61')"),
        ((True, 2), "dice: must be two die values 1..6 (got (True, 2))"),
        (None, "dice: a roll of two dice is required (got None)"),
    ],
)
def test_bad_dice(Position: Pos, dice: object, message: str) -> None:
    with pytest.raises(InvalidDiceError) as caught:
        Position.start("long").legal_moves(dice)  # type: ignore[arg-type]
    assert str(caught.value) == message


def test_dice_with_pending_list(Position: Pos) -> None:
    position = Position.from_text("gulbar w 12:-15,24:15 pending=5")
    with pytest.raises(InvalidDiceError) as caught:
        position.legal_moves((3, 1))
    assert str(caught.value) == "dice: must be omitted while pending (5,) is to be played (got (3, 1))"
    assert [str(m) for m in position.legal_moves()] == ["24/19"]


def test_play_accepts_any_step_order_and_chains(Position: Pos) -> None:
    start = Position.start("long")
    child = start.play("24/18 18/13", (6, 5))
    assert child == start.play("24/19 19/13", (5, 6)) == start.play("24/13", (6, 5))
    assert child.to_text() == "long b 12:-15,13:1,24:14 first=b"
    move = start.legal_moves((6, 5))[0]
    assert start.play(move) == move.result == child
    assert Position.start("long").play("24/18(2)", (6, 6)) == Position.start("long").legal_moves((6, 6))[0].result


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("24/17", "move: is not legal for roll (6, 5) (got '24/17')"),
        ("24/18 24/19", "move: is not legal for roll (6, 5) (got '24/18 24/19')"),
        ("23/17", "move: has no checker to move from 23 (got '23/17')"),
        ("24/12", "move: lands on the closed point 12 (got '24/12')"),
        ("24-18", "move: cannot read step '24-18' (got '24-18')"),
        ("18/24", "move: step '18/24' does not move forward (got '18/24')"),
        ("pass", "move: is not legal for roll (6, 5) (got 'pass')"),
    ],
)
def test_illegal_moves(Position: Pos, text: str, message: str) -> None:
    with pytest.raises(IllegalMoveError) as caught:
        Position.start("long").play(text, (6, 5))
    assert str(caught.value) == message


def test_black_sees_the_board_in_its_own_numbering(Position: Pos) -> None:
    white = Position.start("long")
    black = Position.from_board("long", white.board, turn="black")
    for roll in nardy_fast.ROLLS:
        assert [str(m) for m in black.legal_moves(roll)] == [str(m) for m in white.legal_moves(roll)]
    # Black's 24/18 18/13 puts a checker on its own point 13 = White's point 1.
    assert black.play("24/13", (6, 5)).board[0] == -1
    short = Position.from_board("short", Position.start("short").board, turn="black")
    assert short.play("24/13", (6, 5)).board[11] == -6  # Black's 13 is White's 12


def test_zobrist_table_is_splitmix64_from_the_published_seed() -> None:
    # The first output of SplitMix64 from state 0, as published with the algorithm.
    assert zobrist.splitmix64(0, 1) == [0xE220A8397B1DCDAF]
    assert zobrist.KEYS == tuple(zobrist.splitmix64(zobrist.SEED, len(zobrist.KEYS)))
    # 941 keys were published before slots were appended (tests/test_structure.py pins them)
    assert zobrist.SIXONE_REQUIRES_PLAY + 1 == 941
    assert len(zobrist.KEYS) == zobrist.VARIANT_MORE + 11 == 959
    assert len(set(zobrist.KEYS)) == len(zobrist.KEYS)


def test_zobrist_covers_every_field(Position: Pos) -> None:
    base = Position.from_text("gulbar w 12:-14,13:-1,24:15")
    variants = [
        "gulbar b 12:-14,13:-1,24:15",
        "gulbar w 12:-14,14:-1,24:15",
        "gulbar w 12:-14,13:-1,24:15 first=w",
        "gulbar w 12:-14,13:-1,24:15 first=b",
        "gulbar w 12:-14,13:-1,24:15 pending=5",
        "gulbar w 12:-14,13:-1,24:15 pending=6,5",
        "gulbar w 12:-14,13:-1,24:15 block_check=per_step",
        "gulbar w 12:-14,13:-1,24:15 first_roll_exception_doubles=64",
        "long w 12:-14,13:-1,24:15",
        "short w 1:-1,6:5,8:3,12:-5,13:5,17:-3,19:-5,24:2 bar=0/1",
        "short w 6:5,8:3,12:-5,13:5,17:-3,19:-5,24:2 off=0/2",
    ]
    keys = {base.zobrist}
    for text in variants:
        other = Position.from_text(text)
        assert other != base
        keys.add(other.zobrist)
    assert len(keys) == len(variants) + 1
    same = Position.from_board("gulbar", base.board, first_roll=(True, True))
    assert same == base and same.zobrist == base.zobrist and hash(same) == hash(base)
    assert {base, same} == {base}
    assert 0 <= base.zobrist < 2**64


def test_zobrist_is_the_xor_of_the_documented_features(Position: Pos) -> None:
    start = Position.start("long")
    expected = zobrist.KEYS[zobrist.VARIANT + 0] ^ zobrist.KEYS[zobrist.FIRST_ROLL] ^ zobrist.KEYS[zobrist.FIRST_ROLL + 1]
    expected ^= zobrist.KEYS[zobrist.POINT + 30 * 11 + 0]  # point 12, count -15
    expected ^= zobrist.KEYS[zobrist.POINT + 30 * 23 + 29]  # point 24, count +15
    for die in (6, 4, 3):
        expected ^= zobrist.KEYS[zobrist.EXCEPTION_DOUBLE + die - 1]
    assert start.zobrist == expected


def test_game_end_and_points(Position: Pos) -> None:
    running = Position.start("short")
    assert not running.is_over() and running.winner() is None and running.points() == 0
    mars = Position.from_text("long b 13:-15 off=15/0 first=-")
    assert mars.winner() == "white" and mars.points() == 2
    oin = Position.from_text("long w 1:1 off=14/15 first=-")
    assert oin.winner() == "black" and oin.points() == 1


def test_moves_have_readable_repr(Position: Pos) -> None:
    move = Position.start("short").legal_moves((3, 1))[0]
    assert re.fullmatch(r"<Move [0-9/ *]+ \(3-1\)>", repr(move))
    assert move == Position.start("short").legal_moves((3, 1))[0]


def test_short_nardy_has_no_block_rule(Position: Pos) -> None:
    # No block rule in short nardy (docs/rules.md, Block rule). Black's 20/14 20/16 makes six points in a row (its 19..14)
    # with every White checker behind them, which the long family would forbid.
    position = Position.from_text(
        "short b 1:8,5:-2,7:-1,8:-1,10:-1,12:-1,15:-1,18:-1,22:-1,24:-6 off=7/0 first=-"
    )
    assert "20/14 20/16" in [str(m) for m in position.legal_moves((6, 4))]
