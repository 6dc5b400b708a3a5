"""Position IDs (nardy_fast.ids): GNU Backgammon's Position ID and Match ID and the XGID for short nardy,
checked against gnubg_nn and the formats' published examples; the compact ID of every variant, checked
against its documented bit layout, on the corpus and on generated positions."""

from __future__ import annotations

import base64
import re
from typing import Any, Optional

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import Spec, specs

import nardy_fast
import nardy_fast.ids as ids
from nardy_fast import corpus, layout
from nardy_fast.errors import InvalidDiceError, InvalidNotationError, InvalidPositionError, NardyError
from nardy_fast.state import State
from nardy_fast.variants import FLAG_SPECS, VARIANTS

Pos = type[nardy_fast.reference.Position]
Board = list[list[int]]

SHORT_START_ID = "4HPwATDgc/ABMA"  # GNU Backgammon's manual: "the position ID of the checkers at the start"
#: The example of the XGID specification (extremegammon.com/xgid.aspx): the backgammon start, the bottom
#: player (turn 1) has rolled 5-2, money game with Jacoby and beavers (rules 3), max cube 2^10.
XGID_EXAMPLE = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10"


def _state(Position: Pos, text: str) -> State:
    return Position.from_text(text).state


def _gnubg_board(row: npt.NDArray[Any]) -> Board:
    """GNU Backgammon's ``[opponent, player]`` board of a packed short-nardy row, built from the row's
    columns: each side's 25 counts in its own numbering (White's point p is White's p, Black's own b is
    White's 25-b), the bar last; the player is the side to move."""
    white, black = [0] * 25, [0] * 25
    for index in range(24):
        count = int(row[index])
        if count > 0:
            white[index] = count
        elif count < 0:
            black[23 - index] = -count
    white[24], black[24] = int(row[layout.BAR]), int(row[layout.BAR + 1])
    return [black, white] if row[layout.TURN] == 0 else [white, black]


def _gnubg_id_of_bits(bits: str) -> str:
    """A Position ID from its bit string as the manual writes it (first bit = least significant bit of the
    first byte), padded to 80 bits."""
    key = int(bits.ljust(80, "0")[::-1], 2)
    return base64.b64encode(key.to_bytes(10, "little")).decode()[:14]


# --- GNU Backgammon Position ID -----------------------------------------------------------------------------


def test_short_start_gnubg_ids(Position: Pos) -> None:
    start = Position.start("short")
    assert start.gnubg_id() == SHORT_START_ID
    # the manual's boards of a money game before the roll, player 1 ("X", at the bottom: White) on roll
    assert start.gnubg_match_id() == "cAkAAAAAAAAA"
    back = Position.from_gnubg_id(SHORT_START_ID)
    assert back == start and type(back) is Position


def test_manual_example_puts_the_opponent_first(Position: Pos) -> None:
    """The manual's hypergammon position ``ADAAAQAkIAAAAA``, X on roll: X (on roll) has checkers on its 15, 17
    and 24 points, O on its 13 (two) and 23. Read with X as White to move: O's own 13 is White's 12, its 23
    White's 2; 12 checkers a side are off (hypergammon has 3)."""
    position = Position.from_gnubg_id("ADAAAQAkIAAAAA", turn="white")
    expected = Position.from_text("short w 2:-1,12:-2,15:1,17:1,24:1 off=12/12 first=-")
    assert position == expected
    assert expected.gnubg_id() == "ADAAAQAkIAAAAA"
    # the same board with Black to move is another ID: the sides swap places in the key
    assert Position(expected.state._replace(turn="black")).gnubg_id() != "ADAAAQAkIAAAAA"


def test_gnubg_ids_on_the_short_corpus() -> None:
    gnubg_nn = pytest.importorskip("gnubg_nn")
    rows, _ = corpus.load("short")
    for row in rows:
        state = layout.unpack(row)
        board = _gnubg_board(row)
        position_id = ids.to_gnubg_id(state)
        assert position_id == gnubg_nn.position_id(board)
        assert [list(side) for side in gnubg_nn.board_from_position_id(position_id)] == board
        back = ids.from_gnubg_id(position_id, state.turn, first_roll=state.first_roll)
        assert back == state


@given(specs(("short",)))
def test_gnubg_ids_on_generated_positions(case: tuple[Spec, Optional[tuple[int, int]]]) -> None:
    """Checkers on the bar and off, finished games, both sides to move."""
    gnubg_nn = pytest.importorskip("gnubg_nn")
    position = case[0].build(nardy_fast.reference.Position)
    row = position.to_array()
    position_id = position.gnubg_id()
    assert position_id == gnubg_nn.position_id(_gnubg_board(row))
    assert [list(side) for side in gnubg_nn.board_from_position_id(position_id)] == _gnubg_board(row)
    back = type(position).from_gnubg_id(position_id, turn=position.turn, first_roll=position.first_roll)
    assert back == position
    match_id = position.gnubg_match_id()
    assert ids.read_match_id(match_id)[:2] == (position.turn, None)
    assert (
        type(position).from_gnubg_id(position_id, match_id=match_id, first_roll=position.first_roll)
        == position
    )


def test_gnubg_first_roll_inference(Position: Pos) -> None:
    moved = Position.start("short").play("13/7 8/7", (6, 1))
    assert moved.first_roll == (False, True)
    back = Position.from_gnubg_id(moved.gnubg_id(), turn="black")
    assert back.board == moved.board and back.first_roll == (False, False)
    assert Position.from_gnubg_id(moved.gnubg_id(), turn="black", first_roll=(False, True)) == moved


def test_the_side_to_move_may_be_written_as_in_the_position_text(Position: Pos) -> None:
    # the text writes the side to move as w or b: from_board (and every reader that takes a turn) does too
    for short, full in (("w", "white"), ("b", "black")):
        start = Position.start("short")
        assert Position.from_board("short", start.board, turn=short) == Position.from_board(
            "short", start.board, turn=full
        )
        assert Position.from_board("short", start.board, turn=short).turn == full
        assert Position.from_gnubg_id(SHORT_START_ID, turn=short).turn == full
    assert Position.from_text("short b 1:-2,6:5,8:3,12:-5,13:5,17:-3,19:-5,24:2").turn == "black"
    for bad in ("W", "white ", "wb", "", np.str_("x")):
        with pytest.raises(InvalidPositionError, match=r"^turn: must be 'white' or 'black' \(or 'w', 'b'\)"):
            Position.from_board("short", Position.start("short").board, turn=bad)


def test_id_round_trips_are_exact_given_what_the_formats_leave_out(Position: Pos) -> None:
    """The Position ID carries neither the side to move nor the first-roll marks, the XGID not the marks:
    given them, every short corpus position comes back equal (``==``), not only its board."""
    rows, _ = corpus.load("short")
    marks_seen = set()
    for row in rows[:300]:
        position = Position.from_array(row)
        marks_seen.add(position.first_roll)
        exact = Position.from_gnubg_id(position.gnubg_id(), turn=position.turn, first_roll=position.first_roll)
        assert exact == position
        assert Position.from_xgid(position.xgid(), first_roll=position.first_roll) == position
        short_turn = Position.from_gnubg_id(position.gnubg_id(), turn=position.turn[0], first_roll=position.first_roll)
        assert short_turn == position
    assert len(marks_seen) > 1  # the corpus has positions with either mark


def test_gnubg_id_of_other_variants(Position: Pos) -> None:
    for variant in VARIANTS:
        if variant == "short":
            continue
        start = Position.start(variant)
        for method in (start.gnubg_id, start.gnubg_match_id, start.xgid):
            with pytest.raises(NardyError, match=rf"^variant: .* short nardy .* \(got '{variant}'\)$"):
                method()


@pytest.mark.parametrize(
    ("position_id", "error", "problem"),
    [
        ("4HPwATDgc/ABM", InvalidNotationError, "must have 14 characters, not 13"),
        ("4HPwATDgc/ABMAA", InvalidNotationError, "must have 14 characters, not 15"),
        ("4HPwATDgc-ABMA", InvalidNotationError, "the character '-'"),
        ("4HPwATDgc/ABMB", InvalidNotationError, "low bits must be zero"),
        ("/////////////w", InvalidPositionError, "more than 30 checkers"),
        # 16 checkers on the opponent's 6 point
        (
            _gnubg_id_of_bits("00000" + "1" * 16 + "0" + "0" * 19 + "0" * 25),
            InvalidPositionError,
            "more than 15",
        ),
        # the opponent on its 1 point (the player's 24), the player on its 24 point
        (_gnubg_id_of_bits("10" + "0" * 24 + "0" * 23 + "10" + "0"), InvalidPositionError, "both sides"),
        # a 1 bit after the 50 counts
        (_gnubg_id_of_bits("0" * 50 + "1"), InvalidNotationError, "after the two sides' 50 counts"),
    ],
)
def test_bad_gnubg_ids(Position: Pos, position_id: str, error: type[Exception], problem: str) -> None:
    pattern = rf"^position_id: .*{re.escape(problem)}.*\(got '{re.escape(position_id)}'\)$"
    with pytest.raises(error, match=pattern) as caught:
        Position.from_gnubg_id(position_id)
    assert (type(caught.value) is InvalidNotationError) == (error is InvalidNotationError)


def test_bad_gnubg_arguments(Position: Pos) -> None:
    with pytest.raises(InvalidNotationError, match=r"^position_id: must be a string \(got 42\)$"):
        Position.from_gnubg_id(42)  # type: ignore[arg-type]
    with pytest.raises(
        InvalidPositionError, match=r"^turn: must be 'white' or 'black' \(or 'w', 'b'\) \(got 'W'\)$"
    ):
        Position.from_gnubg_id(SHORT_START_ID, turn="W")
    with pytest.raises(
        InvalidPositionError, match=r"^turn: disagrees with match_id.*'white'.*\(got 'black'\)$"
    ):
        Position.from_gnubg_id(SHORT_START_ID, turn="black", match_id="cAkAAAAAAAAA")
    with pytest.raises(InvalidDiceError, match=r"^dice: "):
        Position.start("short").gnubg_match_id((7, 1))
    with pytest.raises(InvalidPositionError, match=r"^first_roll: must be two booleans \(got 'wb'\)$"):
        Position.from_gnubg_id(SHORT_START_ID, first_roll="wb")  # type: ignore[arg-type]
    with pytest.raises(InvalidPositionError, match=r"^first_roll: must be two booleans \(got \(1, 0\)\)$"):
        Position.from_xgid(XGID_EXAMPLE, first_roll=(1, 0))  # type: ignore[arg-type]


# --- GNU Backgammon Match ID --------------------------------------------------------------------------------


def test_match_ids_by_hand(Position: Pos) -> None:
    """Expected keys derived from the manual's table (bits: cube 0-3, owner 4-5, on roll 6, Crawford 7, state
    8-10, turn 11, double 12, resign 13-14, dice 15-17 and 18-20, ...), least significant bit first."""
    start = Position.start("short")
    black = Position(start.state._replace(turn="black"))
    # 0x30 (centred, player 0 on roll), 0x01 (playing, player 0 to decide)
    assert black.gnubg_match_id() == "MAEAAAAAAAAA"
    # 0x70, 0x89 (playing, player 1 to decide, die 5's low bit), 0x0A (die 5's high bit, die 2)
    assert start.gnubg_match_id((5, 2)) == "cIkKAAAAAAAA"
    # 0x70, 0x0A: the game is over (state 2), player 1 to decide
    over = Position.from_text("short w 6:15 off=0/15 first=-")
    assert over.gnubg_match_id() == "cAoAAAAAAAAA"
    assert Position.from_gnubg_id(black.gnubg_id(), match_id="MAEAAAAAAAAA") == black


def test_manual_match_id_example() -> None:
    """The manual's example ``QYkqASAAIAAA``: score 2-4 in a 9-point match, player 0 holds a 2-cube, player 1
    (White) has just rolled 5-2. The cube and score are read, and kept apart from the position."""
    cube = ids.CubeFields(value=2, owner="black", match_length=9, score=(4, 2))
    assert ids.read_match_id("QYkqASAAIAAA") == ids.MatchFields("white", (5, 2), cube)


def _match_id_of_key(key: int) -> str:
    """A Match ID from its key (bit k = bit k % 8 of byte k // 8)."""
    return base64.b64encode(key.to_bytes(9, "little")).decode()


START_KEY = 0x0970  # "cAkAAAAAAAAA": centred cube, player 1 on roll and to decide, playing


@pytest.mark.parametrize(
    ("match_id", "problem"),
    [
        ("cAkAAAAAAAA", "must have 12 characters, not 11"),
        ("cAkAAAAAAA=A", "the character '='"),
        (_match_id_of_key(START_KEY | 1 << 70), "bits after bit 66 must be zero"),
        (_match_id_of_key(START_KEY | 7 << 18), "dice (0, 7)"),
        (_match_id_of_key(START_KEY | 1 << 15), "dice (1, 0)"),
        (_match_id_of_key(START_KEY & ~(3 << 4) | 2 << 4), "cube owner 2 must be 0"),
    ],
)
def test_bad_match_ids(match_id: str, problem: str) -> None:
    with pytest.raises(
        InvalidNotationError, match=rf"^match_id: .*{re.escape(problem)}.*\(got '{re.escape(match_id)}'\)$"
    ):
        ids.read_match_id(match_id)


# --- XGID ---------------------------------------------------------------------------------------------------


def test_xgid_specification_example(Position: Pos) -> None:
    """The specification's example, read field by field: ``-`` no top checker on the bar; ``b`` two of
    the top player's (Black's) checkers on the bottom player's point 1; ``E`` five bottom (White) on 6,
    ``C`` three on 8, ``e`` five top on 12, ``E`` five bottom on 13, ``c`` three top on 17, ``e`` five top
    on 19, ``B`` two bottom on 24; ``-`` no bottom checker on the bar: the short start, White (turn 1) to
    play 5-2."""
    fields = ids.read_xgid(XGID_EXAMPLE)
    assert fields.state == Position.start("short").state
    assert fields.dice == (5, 2)
    assert Position.from_xgid(XGID_EXAMPLE) == Position.start("short")
    # written back with the neutral rules field (no Jacoby, no beavers)
    assert Position.start("short").xgid((5, 2)) == XGID_EXAMPLE.replace(":3:0:10", ":0:0:10")
    assert Position.start("short").xgid() == "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"


def test_xgid_bars_and_black_to_move(Position: Pos) -> None:
    position = Position.from_text("short b 2:-1,6:5,8:3,12:-4,13:4,19:-5,20:1,24:-2 bar=2/3 off=0/0 first=-")
    # Black's bar (3, top player's: c) first, White's points 1..24, White's bar (2: B) last; turn -1
    expected = "XGID=c-a---E-C---dD-----eA---bB:0:0:-1:64:0:0:0:0:10"
    assert position.xgid((6, 4)) == expected
    assert ids.read_xgid(expected)[:2] == (position.state, (6, 4))
    assert Position.from_xgid(expected[5:], first_roll=(False, False)) == position  # without "XGID="
    cube_action = expected.replace(":64:", ":D:")
    assert ids.read_xgid(cube_action, warn=False)[:2] == (position.state, None)


def _gnubg_board_of_xgid(xgid: str) -> Board:
    """GNU Backgammon's board of an XGID as its importer builds it (``set.c``, ``SetXGID``): character 0 on
    player 0's bar, characters 1..24 on player 1's points i (upper case) or player 0's 25-i (lower case),
    character 25 on player 1's bar; the sides swapped when player 0 (turn -1) is on roll."""
    position, _, _, turn = xgid.removeprefix("XGID=").split(":")[:4]
    board = [[0] * 25, [0] * 25]
    for i, char in enumerate(position):
        if char.isupper():
            board[1][24 if i == 25 else i - 1] = ord(char) - ord("A") + 1
        elif char.islower():
            board[0][24 if i == 0 else 24 - i] = ord(char) - ord("a") + 1
    return board if turn == "1" else [board[1], board[0]]


def test_xgids_on_the_short_corpus() -> None:
    """The XGID of each corpus position, imported as GNU Backgammon imports it, is the position of its
    Position ID; and it reads back."""
    gnubg_nn = pytest.importorskip("gnubg_nn")
    rows, rolls = corpus.load("short")
    for row, roll in zip(rows[::5], rolls[::5]):
        state = layout.unpack(row)
        dice = (int(roll[0]), int(roll[1]))
        xgid = ids.to_xgid(state, dice)
        assert gnubg_nn.position_id(_gnubg_board_of_xgid(xgid)) == ids.to_gnubg_id(state)
        assert ids.read_xgid(xgid, state.first_roll)[:2] == (state, dice)


@given(specs(("short",)), st.none() | st.tuples(st.integers(1, 6), st.integers(1, 6)))
def test_xgid_round_trips(
    case: tuple[Spec, Optional[tuple[int, int]]], dice: Optional[tuple[int, int]]
) -> None:
    position = case[0].build(nardy_fast.reference.Position)
    xgid = position.xgid(dice)
    assert ids.read_xgid(xgid, position.first_roll)[:2] == (position.state, dice)


@pytest.mark.parametrize(
    ("xgid", "error", "problem"),
    [
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0", InvalidNotationError, "10 fields"),
        ("XGID=-b----E-C---eE---c-e----B:0:0:1:52:0:0:3:0:10", InvalidNotationError, "26 characters, not 25"),
        ("XGID=-b----E-C---eE---c-e----Q-:0:0:1:52:0:0:3:0:10", InvalidNotationError, "the character 'Q'"),
        ("XGID=-b----E-C---eE---c-e----B*:0:0:1:52:0:0:3:0:10", InvalidNotationError, "the character '*'"),
        ("XGID=Ab----E-C---eE---c-e----A-:0:0:1:52:0:0:3:0:10", InvalidNotationError, "top player's bar"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:0:52:0:0:3:0:10", InvalidNotationError, "'turn' must be 1"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:72:0:0:3:0:10", InvalidNotationError, "'dice' must be"),
        ("XGID=-b----E-C---eE---c-e----B-:x:0:1:52:0:0:3:0:10", InvalidNotationError, "'cube' must be"),
        ("XGID=-b----E-C---eE---c-e----B-:0:2:1:52:0:0:3:0:10", InvalidNotationError, "'cube owner' must be"),
        # 16 White checkers: one more on the 6 point
        (
            "XGID=-b----F-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10",
            InvalidPositionError,
            "White has 16 checkers",
        ),
        # 16 on White's 24 point and nothing else
        ("XGID=" + "-" * 24 + "P-:0:0:1:00:0:0:0:0:10", InvalidPositionError, "White has 16 checkers"),
        # no checker at all: both sides borne off
        (
            "XGID=" + "-" * 26 + ":0:0:1:00:0:0:0:0:10",
            InvalidPositionError,
            "both sides cannot have borne off all",
        ),
    ],
)
def test_bad_xgids(Position: Pos, xgid: str, error: type[Exception], problem: str) -> None:
    with pytest.raises(
        error, match=rf"^xgid: .*{re.escape(problem)}.*\(got '{re.escape(xgid)}'\)$"
    ) as caught:
        Position.from_xgid(xgid)
    assert (type(caught.value) is InvalidNotationError) == (error is InvalidNotationError)


def test_xgid_not_a_string(Position: Pos) -> None:
    with pytest.raises(InvalidNotationError, match=r"^xgid: must be a string \(got None\)$"):
        Position.from_xgid(None)  # type: ignore[arg-type]


# --- the compact ID -----------------------------------------------------------------------------------------


def _url(bits: str) -> str:
    """Base64url without padding of a bit string, most significant bit first, zero-padded to a multiple of 6
    (the module docstring's encoding)."""
    bits += "0" * (-len(bits) % 6)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    return "".join(alphabet[int(bits[i : i + 6], 2)] for i in range(0, len(bits), 6))


def _point(count: int) -> str:
    """A board point of the documented layout: 0, or 1, the colour, count-1 ones and a 0."""
    if count == 0:
        return "0"
    return "1" + ("1" if count < 0 else "0") + "1" * (abs(count) - 1) + "0"


LONG_BOARD = "0" * 11 + _point(-15) + "0" * 11 + _point(15)  # the long start: Black's 15 on 12, White's on 24


def test_ids_follow_the_documented_layout(Position: Pos) -> None:
    """IDs written bit by bit from the module docstring's table."""
    # long start: variant 0 (000), White (0), both first rolls (11); block_check default (0), exception
    # doubles 6, 4, 3 (bits 5, 3, 2: 101100); then the board: Black's 15 on White's 12, White's 15 on 24
    long_board = "".join(_point(c) for c in Position.start("long").board)
    assert (
        Position.start("long").id()
        == _url("000" + "0" + "11" + "0" + "101100" + long_board)
        == "DWAA__8AC__w"
    )
    # short: variant 2 (010), no flags, bar 1/2 (0001 0010), no transfers
    short = Position.from_text("short b 6:5,8:3,12:-4,13:5,19:-5,24:1 bar=1/2 off=0/4 first=b")
    bits = "010" + "1" + "01" + "0001" + "0010" + "".join(_point(c) for c in short.board)
    assert short.id() == _url(bits)
    # crazy: variant 4 (100), Black (1), no first rolls (00); block_check per_step (1), ladder 4 (1), no
    # exception doubles (000000), normal doubles 3 (1; the six-one flag does not apply); rolls played 2/1
    # (10 01: 2 bits each, 3 needs 2); pending 6, 6 (length 00010, values 110 110)
    crazy = Position.from_text(
        "crazy b 1:1,12:-15,24:14 first=- pending=6,6 played=2/1 block_check=per_step ladder_per_value=4 "
        "first_roll_exception_doubles=- normal_doubles_first_rolls=3"
    )
    bits = "100" + "1" + "00" + "1" + "1" + "000000" + "1" + "10" + "01" + "00010" + "110" + "110"
    bits += "".join(_point(c) for c in crazy.board)
    assert crazy.id() == _url(bits)
    for position in (Position.start("long"), short, crazy):
        assert Position.from_id(position.id()) == position


def test_docstring_table_names_the_flags_in_order() -> None:
    doc = ids.__doc__ or ""
    table = doc[doc.index("flags  ") :]
    positions = [table.index(spec.name) for spec in FLAG_SPECS]
    assert positions == sorted(positions)


@pytest.mark.slow  # every corpus position of every variant, both ways
def test_compact_ids_on_every_corpus() -> None:
    for variant in VARIANTS:
        rows, _ = corpus.load(variant)
        texts = ids.to_ids(rows)
        assert all(re.fullmatch(r"[A-Za-z0-9_-]{6,29}", text) for text in texts)
        assert len(set(texts)) == len(np.unique(rows, axis=0))
        back = ids.from_ids(texts)
        assert back.dtype == np.int8 and back.shape == rows.shape
        assert np.array_equal(back, rows)


@given(specs())
def test_compact_id_round_trips(case: tuple[Spec, Optional[tuple[int, int]]]) -> None:
    position = case[0].build(nardy_fast.reference.Position)
    text = position.id()
    assert re.fullmatch(r"[A-Za-z0-9_-]+", text) and 6 <= len(text) <= ids.MAX_LENGTH
    assert type(position).from_id(text) == position
    assert ids.to_ids(position.to_array()) == [text]


def test_compact_id_length_bounds(Position: Pos) -> None:
    """29 characters at most: crazy with every flag field (1 + 1 + 6 + 1 bits), rolls played (2 + 2), a
    pending ladder of 24 values (5 + 24 × 3) and 24 occupied points of 30 checkers (24 + 24 + 30):
    3 + 1 + 2 + 9 + 4 + 77 + 78 = 174 bits. At least 6: six-one (2 flag bits), White borne off, Black's
    last checker on the board: 3 + 1 + 2 + 2 + 23 + 3 = 34 bits."""
    assert ids.MAX_LENGTH == 29
    white = [p for p in range(1, 25) if p % 2]
    black = [p for p in range(1, 25) if not p % 2]
    board = [0] * 24
    for i, p in enumerate(white):
        board[p - 1] = 2 if i < 3 else 1
    for i, p in enumerate(black):
        board[p - 1] = -2 if i < 3 else -1
    longest = Position.from_board(
        "crazy",
        board,
        pending=[v for v in range(1, 7) for _ in range(4)],
        rolls_played=(3, 2),
        ladder_per_value=4,
        normal_doubles_first_rolls=3,
    )
    assert len(longest.id()) == 29
    assert Position.from_id(longest.id()) == longest
    shortest = Position.from_text("sixone b 5:-1 off=15/14 first=-")
    assert len(shortest.id()) == 6
    assert Position.from_id(shortest.id()) == shortest


def test_every_field_changes_the_id(Position: Pos) -> None:
    positions = [Position.start(variant) for variant in VARIANTS]
    long_texts = [
        "long w 12:-15,24:15 block_check=per_step",
        "long w 12:-15,24:15 first_roll_exception_doubles=6",
        "long w 12:-15,24:15 first_roll_exception_doubles=-",
        "long b 12:-15,24:15",
        "long w 12:-15,24:15 first=w",
        "long w 12:-15,24:15 first=b",
        "long w 12:-15,23:1,24:14",
        "long w 12:-14,11:-1,24:15",
        "sixone w 12:-15,24:15 sixone_extra_roll_requires_play=true",
        "crazy w 12:-15,24:15 ladder_per_value=4",
        "crazy w 12:-15,24:15 normal_doubles_first_rolls=3",
        "crazy w 12:-15,24:15 played=1/0 normal_doubles_first_rolls=3",
        "crazy w 12:-15,24:15 played=0/1 normal_doubles_first_rolls=3",
        "gulbar w 12:-15,24:15 pending=6",
        "gulbar w 12:-15,24:15 pending=5",
        "gulbar w 12:-15,24:15 pending=6,5",
        "gulbar w 12:-15,24:15 pending=6,6",
        # off: one checker fewer on the board, borne off
        "short w 1:-1,2:2,19:-14 off=13/0 first=-",
        "short w 1:-1,2:1,19:-14 off=14/0 first=-",
        "short w 1:-1,2:1,19:-14 bar=1/0 off=13/0 first=-",
        "short w 2:1,19:-14 bar=1/1 off=13/0 first=-",
        "short w 1:-1,2:1,19:-13 bar=1/1 off=13/0 first=-",
    ]
    positions += [Position.from_text(text) for text in long_texts]
    texts = [position.id() for position in positions]
    assert len(set(texts)) == len(texts)
    assert [Position.from_id(text) for text in texts] == positions


@pytest.mark.parametrize(
    ("text", "error", "problem"),
    [
        ("", InvalidNotationError, "must have 1..29 characters, not 0"),
        ("A" * 30, InvalidNotationError, "must have 1..29 characters, not 30"),
        ("DWAA+_8AC__w", InvalidNotationError, "the character '+'"),
        ("DWAA__8AC__w=", InvalidNotationError, "the character '='"),
        ("DWAA__8AC__", InvalidNotationError, "ends inside its board field"),
        ("D", InvalidNotationError, "ends inside its block_check field"),
        ("DWAA__8AC__wA", InvalidNotationError, "bits after the board"),
        ("DWAA__8AC__x", InvalidNotationError, "bits after the board"),
        (_url("111" + "0" * 60), InvalidNotationError, "unknown variant code 7"),
        # gulbar, pending 5 then 6: stored lower first, not the position's own ID
        (
            _url("011" + "0" + "11" + "0" + "101100" + "00010" + "101" + "110" + LONG_BOARD),
            InvalidNotationError,
            "one ID per position",
        ),
        # a pending value 7
        (
            _url("011" + "0" + "11" + "0" + "101100" + "00001" + "111" + LONG_BOARD),
            InvalidNotationError,
            "pending value 7",
        ),
        # short with 16 checkers on White's point 1
        (
            _url("010" + "0" + "11" + "0" * 8 + "10" + "1" * 15 + "0" + "0" * 23),
            InvalidPositionError,
            "puts 16 checkers on White's point 1, more than 15",
        ),
        # long with White's 15 on 24 and 1 more on 23 (16)
        (
            _url("000" + "0" + "11" + "0" + "101100" + "0" * 22 + _point(1) + _point(15)),
            InvalidPositionError,
            "White has 16 checkers",
        ),
        # long: White on 13..18, the end of Black's path, Black's 15 on its head (White's 12) behind them
        (
            _url(
                "000"
                + "0"
                + "00"
                + "0"
                + "101100"
                + "".join(_point(c) for c in [0] * 11 + [-15, 3, 3, 3, 2, 2, 2] + [0] * 6)
            ),
            InvalidPositionError,
            "illegal block",
        ),
        # both sides borne off
        (
            _url("000" + "0" + "00" + "0" + "101100" + "0" * 24),
            InvalidPositionError,
            "both sides cannot have borne off all",
        ),
    ],
)
def test_bad_compact_ids(Position: Pos, text: str, error: type[Exception], problem: str) -> None:
    with pytest.raises(error, match=rf"^id: .*{re.escape(problem)}.*\(got '{re.escape(text)}'\)$") as caught:
        Position.from_id(text)
    assert (type(caught.value) is InvalidNotationError) == (error is InvalidNotationError)


def test_bad_batch_input() -> None:
    rows = np.stack([nardy_fast.reference.Position.start("long").to_array()] * 2)
    rows[1, 0] = 1
    with pytest.raises(InvalidPositionError, match=r"^rows\[1\]: board: White has 16"):
        ids.to_ids(rows)
    with pytest.raises(InvalidPositionError, match=r"^rows: must be an integer array of shape \(N, 64\)"):
        ids.to_ids(np.zeros((2, 63), dtype=np.int8))
    with pytest.raises(InvalidNotationError, match=r"^texts: must be a sequence of IDs"):
        ids.from_ids("DWAA__8AC__w")
    with pytest.raises(InvalidNotationError, match=r"^texts\[1\]: id: has the character '\+'"):
        ids.from_ids(["DWAA__8AC__w", "DWAA+_8AC__w"])
    with pytest.raises(InvalidNotationError, match=r"^id: must be a string \(got 7\)$"):
        ids.from_id(7)
    assert ids.from_ids([]).shape == (0, 64)
