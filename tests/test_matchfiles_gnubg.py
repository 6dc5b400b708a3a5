"""Jellyfish ``.mat`` files against GNU Backgammon itself (docs/rules.md, Match records).

The oracle is GNU Backgammon's own record of a match (``gnubg.match()``: each game's dice, moves as its own
(from, to) pairs, cube actions, resignations and result), dumped as JSON by ``tests/gnubg_match.py`` beside the
``.mat`` file it exported. Two matches and a money session are committed (``tests/data/gnubg-match3-seed{1,5}``,
made by ``python tests/gnubg_match.py play 3 SEED X.mat X.json`` with gnubg 1.1.0a16: 0-ply players, ``set seed
SEED``; seed 5 ends in a resignation; ``gnubg-money4-seed3`` by ``... money 4 3 X.mat X.json``: its drop's result
stands in a move line), so the reading is checked where ``gnubg`` is absent; with ``gnubg`` installed a
fresh match is played, and GNU Backgammon imports this package's export of it back to the same match.
"""

from __future__ import annotations

import importlib.util
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import nardy_fast
from nardy_fast.position import Position
from nardy_fast.records import CubeAction, MatchRecord, Ply, Resignation

DATA = Path(__file__).parent / "data"
SCRIPT = Path(__file__).parent / "gnubg_match.py"
SIDE = {"X": "white", "O": "black"}  # GNU Backgammon's player 0 (X) is the file's left column: White here


def assert_same_as_gnubg(record: MatchRecord, gnubg: dict[str, Any], Position: type[Position]) -> None:
    """Move for move, cube action for cube action, result for result, ``record`` is GNU Backgammon's match:
    each GNU move (its own pairs) played on the record's position reaches the record's next position."""
    info = gnubg["info"]
    assert record.players == (info["X"]["name"], info["O"]["name"])
    assert record.length == (info["match-length"] or None)
    assert len(record.games) == len(gnubg["games"])
    for game, theirs in zip(record.games, gnubg["games"]):
        assert game.score == (theirs["info"]["score-X"], theirs["info"]["score-O"])
        assert game.crawford == bool(theirs["info"].get("crawford", False))
        assert (game.winner, game.points) == (SIDE[theirs["info"]["winner"]], theirs["info"]["points-won"])
        positions = game.positions(Position)
        events = list(game.events)
        ply = 0
        for action in theirs["actions"]:
            event = events.pop(0)
            side = SIDE[action["player"]]
            if action["action"] == "move":
                assert isinstance(event, Ply) and event.side == side
                assert event.roll == tuple(action["dice"])
                text = " ".join(f"{a}/{b}" for a, b in action["move"]) or "pass"
                assert positions[ply].play(text, event.roll) == positions[ply + 1]
                ply += 1
            elif action["action"] == "resign":
                assert event == Resignation(side, theirs["info"]["points-won"])
            else:
                assert event == CubeAction(side, action["action"])
        assert events == []
        assert theirs["info"]["resigned"] == any(isinstance(e, Resignation) for e in game.events)
    last = gnubg["games"][-1]["info"]
    score = [last["score-X"], last["score-O"]]
    score["XO".index(last["winner"])] += last["points-won"]
    length = record.length or max(score)
    assert record.score == (min(score[0], length), min(score[1], length))


def round_trip(record: MatchRecord, Position: type[Position]) -> str:
    out = io.StringIO()
    nardy_fast.write_match(record, out)
    again = nardy_fast.read_match(io.StringIO(out.getvalue()), position_class=Position)
    assert again == record
    return out.getvalue()


@pytest.mark.parametrize("name", ["gnubg-match3-seed1", "gnubg-match3-seed5", "gnubg-money4-seed3"])
def test_gnubg_matches_read_move_for_move(Position: type[Position], name: str) -> None:
    record = nardy_fast.read_match(DATA / f"{name}.mat", position_class=Position)
    gnubg = json.loads((DATA / f"{name}.json").read_text())
    assert_same_as_gnubg(record, gnubg, Position)
    text = round_trip(record, Position)
    assert_same_as_gnubg(nardy_fast.read_match(io.StringIO(text), position_class=Position), gnubg, Position)


def test_the_export_has_gnu_backgammons_lines() -> None:
    """The export of a GNU match keeps GNU's header, players and result lines (its moves are canonical)."""
    original = (DATA / "gnubg-match3-seed1.mat").read_text()
    text = round_trip(nardy_fast.read_match(DATA / "gnubg-match3-seed1.mat"), nardy_fast.Position)
    for line in (" 3 point match", " Game 2", " gnubg : 1                      root : 0",
                 "  5)  Doubles => 2                Drops", "      Wins 1 point", "                                  Wins 2 points"):
        assert line in original.splitlines() and line in text.splitlines()


def _gnubg(*args: str, tmp_path: Path) -> dict[str, Any]:
    out = tmp_path / "gnubg.json"
    try:
        done = subprocess.run([sys.executable, str(SCRIPT), *args, str(out)], cwd=tmp_path, capture_output=True,
                              timeout=300)
    except subprocess.TimeoutExpired:
        pytest.skip("GNU Backgammon did not finish in 300 s")
    if done.returncode != 0 or not out.exists():
        pytest.skip(f"GNU Backgammon failed ({done.returncode}): {done.stderr[-300:]!r}")
    loaded: dict[str, Any] = json.loads(out.read_text())
    return loaded


@pytest.mark.skipif(importlib.util.find_spec("gnubg") is None, reason="GNU Backgammon (gnubg package) is absent")
@pytest.mark.parametrize(("kind", "length", "seed"), [("play", 5, 11), ("play", 7, 12), ("money", 5, 13)])
def test_gnubg_plays_and_reads_back_our_export(Position: type[Position], tmp_path: Path, kind: str, length: int,
                                               seed: int) -> None:
    mat = tmp_path / "gnubg.mat"
    played = _gnubg(kind, str(length), str(seed), str(mat), tmp_path=tmp_path)
    record = nardy_fast.read_match(mat, position_class=Position)
    assert_same_as_gnubg(record, played, Position)
    ours = tmp_path / "ours.mat"
    nardy_fast.write_match(record, ours)
    assert nardy_fast.read_match(ours, position_class=Position) == record
    imported = _gnubg("import", str(ours), tmp_path=tmp_path)
    def outline(match: dict[str, Any]) -> list[object]:  # the moves themselves are compared by their results
        return [(g["info"], [(a["player"], a["action"], a["dice"]) for a in g["actions"]]) for g in match["games"]]

    assert outline(imported) == outline(played)
    assert_same_as_gnubg(record, imported, Position)


@pytest.mark.skipif(importlib.util.find_spec("gnubg") is None, reason="GNU Backgammon (gnubg package) is absent")
def test_gnubg_reads_the_packages_own_matches(Position: type[Position], tmp_path: Path) -> None:
    """A short-nardy match played by the package (random moves, doubles taken or dropped at random, rolls in
    the order thrown) is exported, and GNU Backgammon imports it to the same moves, cube actions and results."""
    import random

    from nardy_fast import Game, Match

    rng = random.Random(8)
    games: list[Game] = []
    match: Match | None = Match(5)
    while match is not None:
        game = Game("short", seed=8, game=len(games), opening="use_single_dice", match=match,
                    position_class=Position)
        while not game.is_over():
            if game.offered is not None:
                (game.take if rng.random() < 0.7 else game.drop)()
            elif game.may_double() and rng.random() < 0.05:
                game.double()
            else:
                game.play(rng.choice(sorted(game.legal_moves(), key=lambda move: move.result.zobrist)))
        games.append(game)
        match = game.next_match()
    record = nardy_fast.match_record(games, ("Ann", "Bob"))
    assert any(g.cube_actions for g in record.games)
    ours = tmp_path / "ours.mat"
    nardy_fast.write_match(record, ours)
    assert_same_as_gnubg(record, _gnubg("import", str(ours), tmp_path=tmp_path), Position)
