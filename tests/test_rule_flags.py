"""Flag ``normal_doubles_first_rolls`` (crazy gulbar; docs/rules.md, Rule flags): while a side has played fewer
than that many rolls, its doubles are four steps of the value, not a ladder. Every expected value below is
derived by hand from the rules; both implementations run every test."""

from __future__ import annotations

import pytest

import nardy_fast
from nardy_fast import InvalidNotationError, InvalidPositionError

Pos = type[nardy_fast.reference.Position]
FLAG = "normal_doubles_first_rolls=3"


def moves(position: nardy_fast.reference.Position, roll: tuple[int, int] | None) -> list[tuple[str, str]]:
    return [(str(m), m.result.to_text()) for m in position.legal_moves(roll)]


def test_first_roll_double_is_four_steps(Position: Pos) -> None:
    # 4-4 on the first roll: four 4s (not the ladder 4,4,5,5,6,6), and 4 is an exception double, so two
    # checkers may leave the head (docs/rules.md, First-roll exception). 24/20/16 twice is the only way to play all four: 16/12 would
    # land on Black's head. White's count goes to 1; Black's first roll is still to come.
    start = Position.from_text(f"crazy w 12:-15,24:15 {FLAG}")
    assert moves(start, (4, 4)) == [
        ("24/20 24/20 20/16 20/16", f"crazy b 12:-15,16:2,24:13 first=b played=1/0 {FLAG}")
    ]


def test_without_the_flag_the_first_double_is_a_ladder(Position: Pos) -> None:
    # The same roll without the flag: six values, 4,4,5,5,6,6; the first result in canonical order plays the
    # two head checkers 24/20/15/9 (docs/rules.md, Crazy gulbar ladders).
    first = Position.start("crazy").legal_moves((4, 4))[0]
    assert str(first) == "24/20 24/20 20/15 20/15 15/9 15/9"
    assert first.result.rolls_played == (0, 0)


@pytest.mark.parametrize(
    ("played", "expected"),
    [
        # two rolls played: 1-1 is four 1s; one head checker (no first roll) goes 24/23/22/21/20
        ("2/0", [("24/23 23/22 22/21 21/20", f"crazy b 12:-15,20:1,24:14 first=- played=3/0 {FLAG}")]),
        # three played: the ladder 1,1,2,2,...,6,6; the head checker goes 24/23/22/20/18/15 and 15/12 is
        # Black's head, so five values are played and the rest, 3,4,4,5,5,6,6, passes to Black (docs/rules.md, Gulbar transfers)
        (
            "3/0",
            [
                (
                    "24/23 23/22 22/20 20/18 18/15",
                    f"crazy b 12:-15,15:1,24:14 first=- pending=3,4,4,5,5,6,6 played=3/0 {FLAG}",
                )
            ],
        ),
    ],
)
def test_the_count_decides(Position: Pos, played: str, expected: list[tuple[str, str]]) -> None:
    position = Position.from_text(f"crazy w 12:-15,24:15 first=- played={played} {FLAG}")
    assert moves(position, (1, 1)) == expected


def test_a_transfer_segment_is_no_roll_of_ones_own(Position: Pos) -> None:
    # Black plays a pending 3 (a transfer, docs/rules.md, Gulbar transfers): its count stays 1, and Black then rolls.
    position = Position.from_text(f"crazy b 12:-15,16:2,24:13 first=- pending=3 played=1/1 {FLAG}")
    assert moves(position, None) == [("24/21", f"crazy b 9:-1,12:-14,16:2,24:13 first=- played=1/1 {FLAG}")]


def test_what_a_normal_double_leaves_passes_on(Position: Pos) -> None:
    # White's 6-6 as four 6s: one checker may leave the head (no first roll) and 24/18 is its only step, as
    # 18/12 lands on Black's head; three 6s pass to Black as a pending list (docs/rules.md, Gulbar transfers).
    position = Position.from_text(f"crazy w 12:-15,24:15 first=- played=1/1 {FLAG}")
    assert moves(position, (6, 6)) == [
        ("24/18", f"crazy b 12:-15,18:1,24:14 first=- pending=6,6,6 played=2/1 {FLAG}")
    ]
    rest = Position.from_text(f"crazy b 12:-15,18:1,24:14 first=- pending=6,6,6 played=2/1 {FLAG}")
    assert Position.from_array(rest.to_array()) == rest


def test_text_row_and_key(Position: Pos) -> None:
    text = f"crazy w 12:-15,24:15 first=- played=2/3 {FLAG}"
    position = Position.from_text(text)
    assert position.rolls_played == (2, 3)
    assert position.to_text() == text
    row = position.to_array()
    assert list(row[nardy_fast.layout.ROLLS_PLAYED : nardy_fast.layout.ROLLS_PLAYED + 2]) == [2, 3]
    assert Position.from_array(row) == position
    assert position.zobrist == nardy_fast.zobrist.position_key(*position.state)
    other = Position.from_text(f"crazy w 12:-15,24:15 first=- played=3/2 {FLAG}")
    assert other.zobrist != position.zobrist
    assert Position.from_text(f"crazy w 12:-15,24:15 first=- {FLAG}").zobrist != Position.from_text(
        "crazy w 12:-15,24:15 first=-"
    ).zobrist


@pytest.mark.parametrize(
    ("text", "error"),
    [
        (f"crazy w 12:-15,24:15 played=4/0 {FLAG}", InvalidPositionError),  # beyond the flag's count
        ("crazy w 12:-15,24:15 played=1/0", InvalidPositionError),  # counted only under the flag
        ("long w 12:-15,24:15 normal_doubles_first_rolls=3", InvalidPositionError),  # crazy only
        ("crazy w 12:-15,24:15 normal_doubles_first_rolls=2", InvalidPositionError),  # 0 or 3
        (f"crazy w 12:-15,24:15 played=1 {FLAG}", InvalidNotationError),
        (f"crazy w 12:-15,24:15 played=1/0 played=1/0 {FLAG}", InvalidNotationError),
        ("crazy w 12:-15,24:15 pending=6,6,6", InvalidPositionError),  # a ladder list without the flag
    ],
)
def test_bad_counts_and_flag_values(Position: Pos, text: str, error: type[Exception]) -> None:
    with pytest.raises(error):
        Position.from_text(text)
