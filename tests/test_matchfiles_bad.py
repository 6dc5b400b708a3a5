"""Bad match files (docs/rules.md, Match records): each is a ``NardyError`` naming the line (and the game and
move) and quoting it, the same in both implementations; a file too large is refused before it is parsed; a
write that fails leaves no file half-written. The changes are made to a match GNU Backgammon played
(``tests/data/gnubg-match3-seed1.mat``), so every other line is one it wrote."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

import nardy_fast
from nardy_fast import IllegalMoveError, NardyError, matchfiles
from nardy_fast.position import Position
from nardy_fast.records import MatchRecord

GNU = (Path(__file__).parent / "data" / "gnubg-match3-seed1.mat").read_text()
FIRST = "  1)                             43: 13/9 24/21 "
assert FIRST in GNU.splitlines()

# (name, the file's text, the error class, what its message starts with, a text it quotes)
CASES = [
    ("not a match", "hello\nworld\n", NardyError, "line 1: is not a match file", "hello"),
    ("empty", "", NardyError, "line 0: is not a match file", ""),
    ("garbled step", GNU.replace(FIRST, FIRST.replace("13/9", "13/x9")), IllegalMoveError,
     "line 7, game 1, move 1: cannot read the move", "13/x9"),
    ("garbled line", GNU.replace(FIRST, "  1) what is this"), NardyError, "line 7, game 1, move 1: 'what' is no roll",
     "what is this"),
    ("stray text", GNU.replace(" Game 2\n", " Game 2\nsome text\n"), NardyError, "line 15, game 2: is not a players",
     "some text"),
    ("truncated in a move", GNU[: GNU.index("13/7 7/4*") + 7], IllegalMoveError,
     "line 9, game 1, move 3: cannot read the move", "13/7 7/"),
    ("truncated at a double", GNU[: GNU.index("Drops")], NardyError,
     "line 11, game 1, move 5: a double awaits its answer", "Doubles => 2"),
    ("illegal move", GNU.replace(FIRST, FIRST.replace("13/9", "13/8")), IllegalMoveError,
     "line 7, game 1, move 1: is not a legal move", "13/8 24/21"),
    ("not a roll", GNU.replace(FIRST, FIRST.replace("43:", "73:")), IllegalMoveError,
     "line 7, game 1, move 1: '73:' is not a roll", "73: 13/9"),
    ("a take without a double", GNU.replace("  3) 63: 13/7 7/4*", "  3)  Takes"), NardyError,
     "line 9, game 1, move 3: take: no double awaits an answer", "Takes"),
    ("a double by the cube's taker's opponent", GNU.replace("  3)  Takes                      32: 13/11 24/21",
                                                            "  3)  Takes                       Doubles => 4"),
     NardyError, "line 18, game 2, move 3: double: cube.owner", "Doubles => 4"),
    ("a move by the wrong column", GNU.replace(FIRST, "  1) 43: 13/9 24/21"), NardyError,
     "line 8, game 1, move 2: left column's entry is out of turn", "66: 24/18"),
    ("a score that does not add up", GNU.replace(" gnubg : 1                      root : 0",
                                                 " gnubg : 0                      root : 0"),
     NardyError, "line 15, game 2: the score does not add up", "gnubg : 0"),
    ("a result that does not add up", GNU.replace("                                  Wins 2 points\n\n Game 3",
                                                  "                                  Wins 3 points\n\n Game 3"),
     NardyError, "line 53, game 2, move 37: the score does not add up", "Wins 3 points"),
    ("a game without a result", GNU.replace("      Wins 1 point\n", "").replace("  5)  Doubles => 2                Drops\n", ""),
     NardyError, "line 12, game 1, move 4: game 1 ends without a result", "Game 2"),
    ("games out of order", GNU.replace(" Game 2", " Game 3"), NardyError, "line 14: games are numbered in order",
     "Game 3"),
    ("a game after the match", GNU + " Game 4\n", NardyError, "line 81: the match is already won", "Game 4"),
    ("a resignation of a wrong size", GNU.replace("  5)  Doubles => 2                Drops\n      Wins 1 point",
                                                  "      Wins 5 points"),
     NardyError, "line 11, game 1: a resignation scores", "got 5"),
]


@pytest.mark.parametrize(("name", "text", "cls", "start", "quoted"), CASES, ids=[case[0] for case in CASES])
def test_bad_files_name_the_line(Position: type[Position], name: str, text: str, cls: type[NardyError], start: str,
                                 quoted: str) -> None:
    with pytest.raises(cls) as caught:
        nardy_fast.read_match(io.StringIO(text), position_class=Position)
    message = str(caught.value)
    assert message.startswith(start), message
    assert quoted in message


def test_the_same_error_in_both_implementations() -> None:
    if nardy_fast.IMPLEMENTATION == "python":
        pytest.skip("the compiled core is not built")
    for _, text, *_ in CASES:
        messages = []
        for cls in (nardy_fast.Position, nardy_fast.reference.Position):
            with pytest.raises(NardyError) as caught:
                nardy_fast.read_match(io.StringIO(text), position_class=cls)
            messages.append((type(caught.value), str(caught.value)))
        assert messages[0] == messages[1]


def test_byte_order_mark_tabs_crlf_and_comments_are_read() -> None:
    record = nardy_fast.read_match(io.StringIO(GNU))
    dressed = "\ufeff; a comment\r\n" + GNU.replace("\n", "\r\n").replace("      Wins 1 point", "\tWins 1 point")
    dressed = dressed.replace(" Game 2\r\n", " Game 2\r\n; another comment\r\n")
    assert nardy_fast.read_match(dressed.encode("utf-8")) == record
    assert nardy_fast.read_match(io.BytesIO(dressed.encode("utf-8"))) == record


def test_a_huge_file_is_refused_before_it_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "huge.mat"
    path.write_text(GNU)
    monkeypatch.setattr(matchfiles, "MAX_BYTES", len(GNU.encode()) - 1)
    for source in (path, io.StringIO(GNU), GNU.encode()):
        with pytest.raises(NardyError, match=r"^source: is larger than"):
            nardy_fast.read_match(source)
    monkeypatch.setattr(matchfiles, "MAX_BYTES", len(GNU.encode()))
    assert nardy_fast.read_match(path).score == (1, 3)


def test_nothing_is_half_written(tmp_path: Path) -> None:
    record = nardy_fast.read_match(io.StringIO(GNU))
    path = tmp_path / "match.mat"
    path.write_text("the file before")
    bad = MatchRecord(("gnubg", "two\nlines"), record.length, record.games)
    with pytest.raises(NardyError, match="players"):
        nardy_fast.write_match(bad, path)
    stream = io.StringIO()
    with pytest.raises(NardyError, match="players"):
        nardy_fast.write_match(bad, stream)
    assert path.read_text() == "the file before" and stream.getvalue() == ""
    assert [p.name for p in tmp_path.iterdir()] == ["match.mat"]  # no temporary file left
    with pytest.raises(NardyError, match="path_or_file"):
        nardy_fast.write_match(record, tmp_path)  # a directory
    with pytest.raises(NardyError, match="format"):
        nardy_fast.write_match(record, path, format="xml")
    nardy_fast.write_match(record, path)
    assert nardy_fast.read_match(path) == record


def test_values_are_checked() -> None:
    with pytest.raises(NardyError, match="players"):
        MatchRecord(("one",), 3, ())  # type: ignore[arg-type]
    with pytest.raises(NardyError, match="length"):
        MatchRecord(("a", "b"), 65, ())
    with pytest.raises(NardyError, match="record"):
        nardy_fast.write_match("not a record", io.StringIO())  # type: ignore[arg-type]
    with pytest.raises(NardyError, match="source"):
        nardy_fast.read_match(12)  # type: ignore[arg-type]
