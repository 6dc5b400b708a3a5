"""SGF match files, ``GM[6]`` (docs/rules.md, Match records): GNU Backgammon's own SGF of the matches whose
``.mat`` the other tests read (``tests/data/*.sgf``, made by ``python tools/gnubg_sgf.py``: GNU Backgammon
plays each match again, checks its ``.mat`` export is the committed file, and saves the SGF) reads to the
same record as the ``.mat``; the package's SGF of them reads back equal and has GNU Backgammon's root
properties and moves; the nardy dialect round-trips random games of every variant and flag set; bad files
are errors naming the line, the game and the move, the same in both implementations."""

from __future__ import annotations

import dataclasses
import importlib.util
import io
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from test_matchfiles_dialect import CASES, random_games
from test_matchfiles_gnubg import assert_same_as_gnubg

import nardy_fast
from nardy_fast import IllegalMoveError, Match, NardyError, match_record, matchfiles
from nardy_fast.position import Position
from nardy_fast.records import MatchRecord
from nardy_fast.sgfread import letter_point, parse_sgf
from nardy_fast.sgfwrite import point_letter

DATA = Path(__file__).parent / "data"
TOOL = Path(__file__).resolve().parent.parent / "tools" / "gnubg_sgf.py"
NAMES = ["gnubg-match3-seed1", "gnubg-match3-seed5", "gnubg-money4-seed3"]
_MOVE = re.compile(r";([WB])\[((?:[^\\\]]|\\.)*)\]")


def sgf(record: MatchRecord) -> str:
    out = io.StringIO()
    nardy_fast.write_match(record, out, format="sgf")
    return out.getvalue()


def round_trip(record: MatchRecord, Position: type[Position]) -> str:
    text = sgf(record)
    assert nardy_fast.read_match(io.StringIO(text), position_class=Position) == record
    return text


def as_told_by_sgf(mat: MatchRecord, sgf_text: str) -> MatchRecord:
    """The ``.mat`` record with the money rule only the SGF names: GNU Backgammon's ``RU[Jacoby]`` (a ``.mat``
    file without tags has the Jacoby rule only where a result shows it)."""
    if "RU[Jacoby]" not in sgf_text:
        return mat
    games = tuple(dataclasses.replace(g, match=Match(jacoby=True, beavers=mat.beavers)) for g in mat.games)
    return dataclasses.replace(mat, jacoby=True, games=games)


def net(value: str) -> tuple[Counter[str], Counter[str]]:
    """The letters a move's checkers leave and reach, whatever point each passed through."""
    pairs = [value[i : i + 2] for i in range(2, len(value), 2)]
    sources, targets = Counter(p[0] for p in pairs), Counter(p[1] for p in pairs)
    return sources - targets, targets - sources


@pytest.mark.parametrize("name", NAMES)
def test_gnubg_sgf_reads_as_its_mat(Position: type[Position], name: str) -> None:
    text = (DATA / f"{name}.sgf").read_text()
    record = nardy_fast.read_match(DATA / f"{name}.sgf", position_class=Position)
    mat = nardy_fast.read_match(DATA / f"{name}.mat", position_class=Position)
    assert record == as_told_by_sgf(mat, text)
    assert_same_as_gnubg(record, json.loads((DATA / f"{name}.json").read_text()), Position)


@pytest.mark.parametrize("name", NAMES)
def test_our_sgf_of_gnubg_matches(Position: type[Position], name: str) -> None:
    """The export reads back equal; each game's root properties are GNU Backgammon's, and each move leaves and
    reaches the points GNU Backgammon's does (the point a checker passes through may differ: 13/9/8 or
    13/12/8)."""
    gnu = (DATA / f"{name}.sgf").read_text()
    ours = round_trip(nardy_fast.read_match(DATA / f"{name}.sgf", position_class=Position), Position)
    for ident in ("MI", "PW", "PB", "RU", "RE", "DT"):
        found = [re.findall(ident + r"(?:\[[^\]]*\])+", text) for text in (gnu, ours)]
        assert found[0] and found[0] == found[1], ident
    theirs, mine = _MOVE.findall(gnu), _MOVE.findall(ours)
    assert len(theirs) == len(mine) > 100
    for (side, value), (my_side, my_value) in zip(theirs, mine):
        assert side == my_side and value[:2] == my_value[:2]
        assert net(value) == net(my_value)
    assert ours.count("(;FF[4]GM[6]") == gnu.count("(;FF[4]GM[6]")


def test_point_letters() -> None:
    """GNU Backgammon's letters (sgf.c): a-x the board's points from White's 1 (Black's 24), y bar, z off."""
    assert [point_letter(p, "white") for p in (1, 13, 24, 25, 0)] == ["a", "m", "x", "y", "z"]
    assert [point_letter(p, "black") for p in (1, 13, 24, 25, 0)] == ["x", "l", "a", "y", "z"]
    for side in ("white", "black"):
        assert all(letter_point(point_letter(p, side), side) == p for p in range(26))
    assert letter_point("{", "white") == -1


@pytest.mark.skipif(importlib.util.find_spec("gnubg") is None, reason="GNU Backgammon (gnubg package) is absent")
@pytest.mark.parametrize(("kind", "length", "seed"), [("play", 5, 11), ("money", 3, 13)])
def test_gnubg_plays_and_both_files_agree(tmp_path: Path, kind: str, length: int, seed: int) -> None:
    """GNU Backgammon plays a match once; both implementations read its two files to the same record."""
    mat, path = tmp_path / "gnubg.mat", tmp_path / "gnubg.sgf"
    try:
        done = subprocess.run([sys.executable, str(TOOL), "--one", kind, str(length), str(seed), str(mat),
                               str(path)], cwd=tmp_path, capture_output=True, timeout=300)
    except subprocess.TimeoutExpired:
        pytest.skip("GNU Backgammon did not finish in 300 s")
    if done.returncode != 0 or not path.exists():
        pytest.skip(f"GNU Backgammon failed ({done.returncode}): {done.stderr[-300:]!r}")
    classes: list[type[Position]] = [nardy_fast.Position]
    if nardy_fast.reference.Position is not nardy_fast.Position:
        classes.append(nardy_fast.reference.Position)
    for cls in classes:
        record = nardy_fast.read_match(path, position_class=cls)
        assert record == as_told_by_sgf(nardy_fast.read_match(mat, position_class=cls), path.read_text())
        assert round_trip(record, cls).count("(;") == len(record.games)


@pytest.mark.parametrize(("variant", "flags"), CASES, ids=[f"{v}-{'-'.join(map(str, f)) or 'default'}" for v, f in CASES])
@pytest.mark.parametrize("play", ["match", "money", "no cube"])
def test_random_games_round_trip(Position: type[Position], variant: str, flags: dict[str, object],
                                 play: str) -> None:
    """The games are played by the package's ``Position`` (both implementations play the same games) and read
    by the one under test: the reference's ladders are slow, so it reads fewer (the seeds keep them short)."""
    compiled = Position is nardy_fast.Position and nardy_fast.IMPLEMENTATION == "cython"
    many = (3 if variant == "crazy" else 6) if compiled else 1 if variant == "crazy" else 2
    seed = 36 + 1000 * CASES.index((variant, flags)) + len(play)
    match = Match(5) if play == "match" else Match(jacoby=True, beavers=True) if play == "money" else None
    games = random_games(nardy_fast.Position, variant, flags, seed, many, match, play != "no cube")
    record = match_record(games, ("Ann [the first]", "Bo\\"))
    text = round_trip(record, Position)
    assert ("VA[" in text) == (variant != "short")
    moves = [value for _, value in _MOVE.findall(text) if value not in ("double", "take", "drop", "beaver")]
    assert all((":" in value) == (variant != "short") for value in moves)
    for game, played in zip(record.games, games):
        replayed = [position.to_text() for position in game.positions(Position)[1:]]
        assert replayed == [move.result.to_text() for _, move in played.history]


def test_transfers_extra_rolls_and_ladders_are_written_and_read(Position: type[Position]) -> None:
    texts = {}
    for variant in ("gulbar", "crazy", "sixone"):
        record = match_record(random_games(nardy_fast.Position, variant, {}, 8, 2, None, False))
        texts[variant] = round_trip(record, Position)
        plies = [ply for game in record.games for ply in game.plies]
        if variant == "sixone":  # the extra roll: a node of the same colour after a 6-1
            assert re.search(r";([WB])\[(?:16|61): [^\]]*\]\n;\1\[", texts[variant])
        else:
            transfer = next(ply for ply in plies if ply.roll is None)
            assert f"[{''.join(map(str, transfer.pending))}\\]: {transfer.text}]" in texts[variant]
    assert re.search(r"\[(\d)\1: (\S+ ){6,}", texts["crazy"])  # a ladder: one node, more than four steps


def test_tolerant_reading(Position: type[Position]) -> None:
    """Whitespace, line ends, a byte order mark, escapes, FF[3] long names, unknown properties (GNU
    Backgammon's analysis), comments and variations (the main line is read) are read."""
    gnu = (DATA / "gnubg-match3-seed1.sgf").read_text()
    record = nardy_fast.read_match(io.StringIO(gnu), position_class=Position)
    analysis = ("A[0][lpad E ver 3 0.507532 0.137778 0.007356 0.131126 0.005791 0.035912 0C 0 1 0.000000 1]"
                "LU[0.01234]GB[1]C[a comment \\] with\\\nescapes]")
    dressed = "\ufeff" + gnu.replace(";B[43lpad]", "; B [43lpad]\r\n" + analysis + "XX[unknown]", 1)
    dressed = dressed.replace(";W[66xrxrmgmg]", ";White[66xrxrmgmg]", 1)
    dressed = dressed.replace("PW[gnubg]", "PW[gnu\\bg]")
    assert dressed != gnu
    # a variation: the first line is the main line, the second is read as SGF and left
    branch = gnu.index(";W[double]")
    varied = gnu[:branch] + "(" + gnu[branch:].split(")", 1)[0] + ")(;W[55]C[another line])" + ")" + \
        gnu[branch:].split(")", 1)[1]
    for text in (dressed.encode("utf-8"), varied):
        assert nardy_fast.read_match(text if isinstance(text, bytes) else io.StringIO(text),
                                     position_class=Position) == record
    assert len(parse_sgf("(;GM[6](;W[1];B[2])(;W[3]))")[0]) == 3


GNU = (DATA / "gnubg-match3-seed1.sgf").read_text()
FIRST = ";B[43lpad]"
assert FIRST in GNU

# (name, the file's text, the error class, what its message starts with, a text it quotes)
BAD = [
    ("not sgf", "hello world\n", NardyError, "line 1: is not an SGF file", "hello"),
    ("not sgf at all", "(;GM[6]\n%%%", NardyError, "line 2: is not SGF", "%%%"),
    ("no backgammon", "(;GM[1]FF[4];B[aa])", NardyError, "line 1: holds no backgammon game (GM[6])", "GM[1]"),
    ("truncated in a value", GNU[: GNU.index("66xrxr") + 4], NardyError,
     "line 3: the file ends inside a property value", "[66xr"),
    ("an unclosed value", GNU + "(;C[" + "word " * 40 + "\\]" * 3, NardyError,  # refused at once, not by backtracking
     "line 130: the file ends inside a property value", "[word word"),
    ("truncated between nodes", GNU[: GNU.index(";W[66xrxrmgmg]")], NardyError,
     "line 2: the file ends inside a game tree", "43lpad"),
    ("garbled move", GNU.replace(FIRST, ";B[43l!ad]"), IllegalMoveError, "line 2, game 1, move 1: a move is the roll",
     "43l!ad"),
    ("odd letters", GNU.replace(FIRST, ";B[43lpa]"), IllegalMoveError, "line 2, game 1, move 1: a move's points",
     "43lpa"),
    ("illegal move", GNU.replace(FIRST, ";B[43lpae]"), IllegalMoveError, "line 2, game 1, move 1: is not a legal move",
     "43lpae"),
    ("not a roll", GNU.replace(FIRST, ";B[73lpad]"), IllegalMoveError, "line 2, game 1, move 1: is not a roll",
     "73lpad"),
    ("a take without a double", GNU.replace(";W[63mggd]", ";W[take]"), NardyError,
     "line 5, game 1, move 4: is no cube action of white's now (out of turn)", "take"),
    ("a double out of turn", GNU.replace(";W[63mggd]", ";B[double]"), NardyError,
     "line 5, game 1, move 4: is no cube action of black's now (out of turn)", "double"),
    ("a move out of turn", GNU.replace(";W[63mggd]", ";B[63mggd]"), NardyError,
     "line 5, game 1, move 4: is white's turn", "63mggd"),
    ("truncated at a double", GNU.replace(";B[drop]", "", 1), NardyError,
     "line 1, game 1: a double awaits its answer", "W+1"),
    ("a result that does not add up", GNU.replace("RE[W+1]", "RE[W+2]", 1), NardyError,
     "line 1, game 1: the score does not add up", "W+2"),
    ("a score that does not add up", GNU.replace("[game:1][ws:1]", "[game:1][ws:0]"), NardyError,
     "line 11, game 2: the score does not add up", "(0, 0)"),
    ("a game without a result", GNU.replace("RE[W+1]", "", 1).replace(";W[double]\n;B[drop]", ""), NardyError,
     "line 1, game 1: game 1 ends without a result", ""),
    ("a set-up node", GNU.replace(FIRST, ";AB[a][b]"), NardyError, "line 2, game 1: a set-up node", "AB"),
    ("another player", GNU.replace("PB[root]", "PB[someone]").replace("PB[someone]", "PB[root]", 1), NardyError,
     "line 11, game 2: names another players", "someone"),
    ("a game after the match", GNU + "(;FF[4]GM[6]MI[length:3][game:3][ws:1][bs:3];B[21])", NardyError,
     "line 130, game 4: the match is already won", "(;"),
]


@pytest.mark.parametrize(("name", "text", "cls", "start", "quoted"), BAD, ids=[case[0] for case in BAD])
def test_bad_files_name_the_line(Position: type[Position], name: str, text: str, cls: type[NardyError], start: str,
                                 quoted: str) -> None:
    with pytest.raises(cls) as caught:
        nardy_fast.read_match(io.StringIO(text), format="sgf", position_class=Position)
    message = str(caught.value)
    assert message.startswith(start), message
    assert quoted in message, message


def test_the_same_error_in_both_implementations() -> None:
    if nardy_fast.IMPLEMENTATION == "python":
        pytest.skip("the compiled core is not built")
    for _, text, *_ in BAD:
        messages = []
        for cls in (nardy_fast.Position, nardy_fast.reference.Position):
            with pytest.raises(NardyError) as caught:
                nardy_fast.read_match(io.StringIO(text), format="sgf", position_class=cls)
            messages.append((type(caught.value), str(caught.value)))
        assert messages[0] == messages[1]


def test_formats_by_name_and_text_and_the_size_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    record = nardy_fast.read_match(io.StringIO(GNU))
    path = tmp_path / "match.sgf"
    nardy_fast.write_match(record, path, format="sgf")
    assert path.read_text().startswith("(;FF[4]GM[6]")
    assert nardy_fast.read_match(path) == record == nardy_fast.read_match(path.read_bytes())
    monkeypatch.setattr(matchfiles, "MAX_BYTES", len(GNU.encode()) - 1)
    with pytest.raises(NardyError, match=r"^source: is larger than"):
        nardy_fast.read_match(GNU.encode())


def test_the_docs_examples_replay(Position: type[Position]) -> None:
    """Every SGF file shown in docs/rules.md, Match records, reads in both implementations and is written
    back as shown."""
    docs = (Path(__file__).resolve().parent.parent / "docs" / "rules.md").read_text(encoding="utf-8")
    section = docs[docs.index("## Match records") : docs.index("## Game analysis")]
    files = [block for block in re.findall(r"```text\n(.*?)```", section, flags=re.DOTALL) if block.startswith("(;")]
    assert len(files) == 6
    for text in files:
        record = nardy_fast.read_match(io.StringIO(text), position_class=Position)
        assert sgf(record) == text
