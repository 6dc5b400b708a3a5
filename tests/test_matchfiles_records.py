"""Match records' values and the rules a file states in its tags (docs/rules.md, Match records): the Crawford
rule off, the Jacoby rule and beavers of money play (told by a tag, or shown by a result), names and tags
kept, a record that does not replay."""

from __future__ import annotations

import dataclasses
import io
import random
import re
from pathlib import Path

import pytest

import nardy_fast
from nardy_fast import Cube, Game, Match, NardyError, match_record
from nardy_fast.position import Position
from nardy_fast.records import CubeAction, GameRecord, MatchRecord, Ply, Resignation

GNU = (Path(__file__).parent / "data" / "gnubg-match3-seed1.mat").read_text()


def played(Position: type[Position], match: Match, seed: int, double: float, crawford: bool = True,
           beaver: float = 0.0) -> list[Game]:
    """A match (or six games of money play) with random moves, doubles at rate ``double``, taken (or beavered
    at rate ``beaver`` where beavers are allowed)."""
    rng = random.Random(seed)
    games: list[Game] = []
    current: Match | None = match
    while current is not None and len(games) < 6:
        game = Game("short", seed=seed, game=len(games), position_class=Position, match=current)
        while not game.is_over():
            if game.offered is not None:
                beavers = game.match.beavers and game.cube.value < 64 and rng.random() < beaver
                (game.beaver if beavers else game.take)()
            elif game.may_double() and rng.random() < double:
                game.double()
            else:
                game.play(rng.choice(sorted(game.legal_moves(), key=lambda move: move.result.zobrist)))
        games.append(game)
        current = game.next_match()
        if current is not None and current.crawford and not crawford:
            current = Match(current.length, current.score)
    return games


def text_of(record: MatchRecord) -> str:
    out = io.StringIO()
    nardy_fast.write_match(record, out)
    return out.getvalue()


def test_a_match_without_the_crawford_rule(Position: type[Position]) -> None:
    for seed in range(40):  # a match whose would-be Crawford game has a double in it
        record = match_record(played(Position, Match(5), seed, 0.05, crawford=False))
        first = next((g for g in record.games if 1 in (5 - g.score[0], 5 - g.score[1])), None)
        if not record.crawford and first is not None and first.cube_actions:
            break
    else:
        pytest.fail("no such match in 40 seeds")
    text = text_of(record)
    assert '; [Crawford "Off"]' in text and '; [Variant "short"]' in text
    assert nardy_fast.read_match(io.StringIO(text), position_class=Position) == record
    with pytest.raises(NardyError, match=r"match\.crawford|Crawford"):  # under the rule, that double is illegal
        nardy_fast.read_match(io.StringIO(text.replace('; [Crawford "Off"]\n', "")), position_class=Position)


def test_jacoby_by_tag_or_by_a_result(Position: type[Position]) -> None:
    for seed in range(60):  # a money game won by a mars with the cube centred: single under the Jacoby rule
        (game,) = played(Position, Match(jacoby=True), seed, 0.0)[:1]
        if game.position.points() > 1:
            break
    else:
        pytest.fail("no mars in 60 seeds")
    record = match_record([game])
    assert record.jacoby and record.games[0].points == 1
    text = text_of(record)
    assert '; [Jacoby "On"]' in text
    assert nardy_fast.read_match(io.StringIO(text), position_class=Position) == record
    untold = nardy_fast.read_match(io.StringIO(text.replace('; [Jacoby "On"]\n', "")), position_class=Position)
    assert untold == record  # GNU Backgammon writes no tag: the result shows the rule
    with pytest.raises(NardyError, match="does not add up"):
        nardy_fast.read_match(io.StringIO(text.replace('"On"', '"Off"')), position_class=Position)


def test_beavers_and_the_cube_value_written(Position: type[Position]) -> None:
    for seed in range(40):  # a money game with a beaver in it
        record = match_record(played(Position, Match(beavers=True), seed, 0.05, beaver=0.5)[:1])
        if any(a.action == "beaver" for a in record.games[0].cube_actions):
            break
    else:
        pytest.fail("no beaver in 40 seeds")
    text = text_of(record)
    assert " Doubles => " in text and " Beavers => " in text
    assert nardy_fast.read_match(io.StringIO(text), position_class=Position) == record
    untold = text.replace('; [Beaver "On"]\n', "")
    assert untold != text and nardy_fast.read_match(io.StringIO(untold), position_class=Position).beavers
    with pytest.raises(NardyError, match="cube would be"):
        nardy_fast.read_match(io.StringIO(re.sub(r"Beavers => (\d+)", "Beavers => 3", text, count=1)), position_class=Position)


def test_a_game_from_a_position(Position: type[Position]) -> None:
    """A game from a position may begin with a double (no opening roll was thrown): its record replays, and
    a .mat file, whose games start at the variant's start, refuses it."""
    game = Game(Position.from_text("short w 13:15,24:-1 off=0/14"), seed=1, match=Match(beavers=True))
    game.double()
    game.beaver()
    game.play(game.legal_moves()[0])
    game.play(game.legal_moves()[0])  # Black bears off its last checker: a mars, 2 x 4
    record = match_record([game])
    assert record.games[0].cube_actions == (CubeAction("white", "double"), CubeAction("black", "beaver"))
    assert (record.games[0].winner, record.games[0].points) == ("black", 8)
    assert len(record.games[0].positions(Position)) == 3
    with pytest.raises(NardyError, match="start"):
        text_of(record)


def test_names_tags_and_results_kept() -> None:
    text = '; [Site "a club"]\n; [Player 1 "x"]\n' + GNU.replace("gnubg", "Ann Marie").replace(
        "Wins 2 points\n\n Game 3", "Wins 2 points and the match\n\n Game 3")
    record = nardy_fast.read_match(io.StringIO(text))
    assert record.players == ("Ann Marie", "root")
    assert ("Site", "a club") in record.tags and ("EventDate", "2026.12.05") in record.tags
    again = text_of(record)
    assert '; [Site "a club"]' in again and " Ann Marie : 1" in again
    assert nardy_fast.read_match(io.StringIO(again)) == record
    assert record.winner() == "black" and record.score == (1, 3)
    crawford = record.games[2]
    assert crawford.crawford and not crawford.cube_actions and crawford.variant == "short"


@pytest.mark.parametrize("length", [1, 27, 28, 40])
def test_long_player_names_stay_apart(length: int) -> None:
    # the players line pads the first player's column to 32 characters: a longer name still needs a space
    names = ("A" * length, "Greedy('heuristic', plies=0, cube='money')")
    record = dataclasses.replace(nardy_fast.read_match(io.StringIO(GNU)), players=names)
    again = nardy_fast.read_match(io.StringIO(text_of(record)))
    assert again.players == names and again == record


def test_extreme_gammons_header() -> None:
    """eXtreme Gammon's tags (names with spaces among them) are kept; its Jacoby and Beaver tags are read."""
    header = ('; [Site "eXtreme Gammon"]\n; [Player 1 "Ann"]\n; [Player 2 "Bob"]\n; [Variation "Backgammon"]\n'
              '; [Jacoby "Off"]\n; [Beaver "Off"]\n; [CubeLimit "1024"]\n\n')
    record = nardy_fast.read_match(io.StringIO(header + GNU.split("\n", 1)[1]))
    assert ("Player 1", "Ann") in record.tags and ("CubeLimit", "1024") in record.tags
    assert all(name not in ("Jacoby", "Beaver") for name, _ in record.tags)
    again = text_of(record)
    assert '; [Player 1 "Ann"]' in again and "Jacoby" not in again
    assert nardy_fast.read_match(io.StringIO(again)) == record


def test_a_record_that_does_not_replay(Position: type[Position]) -> None:
    record = nardy_fast.read_match(io.StringIO(GNU), position_class=Position)
    game = record.games[1]
    assert len(game.positions(Position)) == len(game.plies) + 1
    first = game.plies[0]
    assert isinstance(first, Ply) and first.text == "8/4 6/4"
    wrong = dataclasses.replace(first, roll=(5, 2))
    bad = dataclasses.replace(game, events=(wrong, *game.events[1:]))
    with pytest.raises(NardyError, match=r"^game 2, event 1: is not a legal move"):
        bad.positions(Position)
    out_of_turn = dataclasses.replace(game, events=(CubeAction("white", "double"), *game.events))
    with pytest.raises(NardyError, match="game 2, event 1"):
        out_of_turn.positions(Position)
    with pytest.raises(NardyError, match="ends with black scoring 2"):
        dataclasses.replace(game, points=3).positions(Position)
    resigned = dataclasses.replace(game, events=(*game.events[:4], Resignation("white", 3)), winner="black", points=3)
    with pytest.raises(NardyError, match="resignation scores"):
        resigned.positions(Position)  # the cube is at 2 there: 2, 4 or 6
    with pytest.raises(NardyError, match="events"):
        GameRecord(1, game.start, (0, 0), None, ("24/18",), None, 0)  # type: ignore[arg-type]


def test_games_of_a_match_follow_one_another(Position: type[Position]) -> None:
    games = played(Position, Match(5), 3, 0.0)
    with pytest.raises(NardyError, match="follow one another"):
        match_record([games[0], games[0]])
    with pytest.raises(NardyError, match="non-empty"):
        match_record([])
    cubeless = Game("short", seed=2, position_class=Position)
    cubeless.play(cubeless.legal_moves()[0])
    record = match_record([cubeless])
    assert not record.cube and record.games[0].winner is None and record.games[0].match is None
    assert nardy_fast.read_match(io.StringIO(text_of(record)), position_class=Position) == record
    assert Cube() == Cube(1)
