"""Playouts with the doubling cube (docs/rules.md, Playouts with the cube; Match play): their records worked
by hand on positions whose every game is known, derived from the cubeless playout's games for players that never
double, the same in the compiled core's loop, the Python loop over the core's kernels, the reference and on
threads; bad options named; and ``nardy-fast playout --cube/--match``."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import nardy_fast
import nardy_fast.reference as reference
from nardy_fast import Greedy, Match, NardyError
from nardy_fast.cli import main
from nardy_fast.cubeloop import GAMES_PER_MATCH, MATCH_NUMBERS
from nardy_fast.cubeplayouts import CUBE_RECORD, MATCH_RECORD, cube_playout
from nardy_fast.playouts import PlayoutOptions
from nardy_fast.turns import LIMITED

#: White bears off its last checker with any roll; Black has one off: a single game, whatever is played.
WHITE_SINGLE = "short w 1:1,19:-14 off=14/1"
#: The same with none of Black's off: a mars (2 points) once White bears off.
WHITE_MARS = "short w 1:1,19:-15 off=14/0"

CORE = nardy_fast.Position.kernels
#: The same kernels without their cubeful loop: every cubeful playout goes through the Python loop.
PYTHON = dataclasses.replace(CORE, cube_games=None)


def _records(start: object, games: int, **options: Any) -> Any:
    return nardy_fast.playout(start, games, **options)


def test_a_sure_single_win_is_doubled_and_passed() -> None:
    # White wins a single game whatever happens: no double is worth 1, double-pass 1, double-take 2, so White
    # doubles (the proper action "Double, pass") and Black passes, at the start of the game: no ply played, 1
    # point (the cube's value before the double), the cube still at 1
    start = nardy_fast.Position.from_text(WHITE_SINGLE)
    for policy in (Greedy(), Greedy(cube="money")):
        records = _records(start, 5, seed=3, policy=policy, cube=True)
        assert records.dtype == CUBE_RECORD
        assert records.tolist() == [(0, 1, 1, 0)] * 5


def test_a_sure_mars_is_played_on() -> None:
    # White wins a mars when it bears off: double-pass (1) is worth less than playing on (2), too good to
    # double; the game is played: one ply, 2 points at a cube of 1
    start = nardy_fast.Position.from_text(WHITE_MARS)
    assert _records(start, 3, seed=2, policy=Greedy(), cube=True).tolist() == [(0, 2, 1, 1)] * 3


def test_matches_from_positions_won_by_white() -> None:
    single = nardy_fast.Position.from_text(WHITE_SINGLE)
    mars = nardy_fast.Position.from_text(WHITE_MARS)
    # a match to 3 from 0-0, each game from the sure single win: White doubles, and Black passes (a take loses
    # 2 points, the whole match from 1-0) in the first two games, none played: 2-0; the third is the Crawford
    # game, without the cube: White bears off, one ply, 3-0 in 3 games
    records = _records(single, 4, seed=5, policy=Greedy(), match=3)
    assert records.dtype == MATCH_RECORD
    assert records.tolist() == [(0, 3, 0, 3, 1)] * 4
    # a player that never doubles: each game a single win, one ply each
    assert _records(single, 2, seed=5, policy="first", match=3).tolist() == [(0, 3, 0, 3, 3)] * 2
    # the mars: 2-0 after the first game (played on: a pass would give 1), the Crawford game's mars capped at
    # the length: 3-0 in 2 games, a ply each
    assert _records(mars, 2, seed=5, policy=Greedy(), match=3).tolist() == [(0, 3, 0, 2, 2)] * 2
    # from 2-0 in the Crawford game (White 1 away): that game ends the match at once
    crawford = Match(3, (2, 0), crawford=True)
    assert _records(single, 2, seed=5, policy=Greedy(), match=crawford).tolist() == [(0, 3, 0, 1, 1)] * 2


@pytest.mark.parametrize("policy", ["first", "random"])
@pytest.mark.parametrize("variant", ["long", "short"])
def test_players_that_never_double_play_the_cubeless_games(variant: str, policy: str) -> None:
    games, seed, first = 30, 11, 4
    cubeless = _records(variant, games, seed=seed, policy=policy, first_game=first)
    money = _records(variant, games, seed=seed, policy=policy, first_game=first, cube=True)
    assert np.array_equal(money["winner"], cubeless["winner"])
    assert np.array_equal(money["points"], cubeless["points"])
    assert np.array_equal(money["plies"], cubeless["plies"])
    assert (money["cube"] == 1).all()
    # the Jacoby rule: the cube never turned, every win counts single
    jacoby = _records(variant, games, seed=seed, policy=policy, first_game=first, match=Match(jacoby=True))
    assert np.array_equal(jacoby["points"], np.minimum(cubeless["points"], 1))
    # a match to 5 from 1-3: match m's game j is game m * GAMES_PER_MATCH + j of the cubeless playout; nobody
    # doubles, so each game adds its points to its winner's score until a side reaches 5
    records = _records(variant, 3, seed=seed, policy=policy, first_game=first, match=Match(5, (1, 3)))
    for m, record in enumerate(records.tolist()):
        score, plies, played = [1, 3], 0, 0
        while max(score) < 5:
            game = _records(variant, 1, seed=seed, policy=policy, first_game=(first + m) * GAMES_PER_MATCH + played)[0]
            played += 1
            plies += int(game["plies"])
            score[int(game["winner"])] = min(5, score[int(game["winner"])] + int(game["points"]))
        assert record == (score.index(5), score[0], score[1], played, plies)


SESSIONS: list[dict[str, Any]] = [
    {"cube": True},
    {"match": Match(jacoby=True, beavers=True)},
    {"match": 5},
    {"match": Match(7, (5, 6), crawford=True)},
]


@pytest.mark.parametrize("session", SESSIONS)
def test_both_loops_threads_and_the_reference_agree(session: dict[str, Any]) -> None:
    match = nardy_fast.cubeduel.session_match(session.get("cube", True), session.get("match"))
    assert match is not None
    for policy in (Greedy("heuristic"), Greedy("heuristic", cube="threshold"), "random"):
        options = PlayoutOptions(policy=policy, batch=3)
        ours = cube_playout(CORE, "short", 8, 21, options, match)
        assert np.array_equal(ours, cube_playout(PYTHON, "short", 8, 21, options, match)), (session, policy)
        threads = dataclasses.replace(options, threads=2)
        assert np.array_equal(ours, cube_playout(CORE, "short", 8, 21, threads, match)), (session, policy)
        theirs = reference.playout("short", 4, seed=21, policy=policy, batch=3, **session)
        assert np.array_equal(ours[:4], theirs), (session, policy)
        # a part of the records is the same records
        part = cube_playout(CORE, "short", 3, 21, dataclasses.replace(options, first_game=5), match)
        assert np.array_equal(ours[5:], part)


def test_a_game_given_up_at_max_results() -> None:
    # a search bound of one position: each game is given up at the first ply whose search is over it, the
    # same ply as in the cubeless playout (the policy never doubles): 0 points, the cube at 1
    cubeless = _records("long", 3, seed=1, max_results=1)
    assert (cubeless["winner"] == LIMITED).all()
    for kernels in (CORE, PYTHON):
        records = cube_playout(kernels, "long", 3, 1, PlayoutOptions(max_results=1), Match())
        assert records.tolist() == [(LIMITED, 0, 1, int(plies)) for plies in cubeless["plies"]]


@pytest.mark.parametrize(("options", "field"), [
    ({"cube": "yes"}, "cube"),
    ({"cube": 1}, "cube"),
    ({"match": "5"}, "match"),
    ({"match": 2.5}, "match"),
    ({"match": True}, "match"),
    ({"match": 0}, "match.length"),
    ({"cube": True, "trajectories": True}, "trajectories"),
    ({"match": 3, "truncate": "bearoff"}, "truncate"),
    ({"match": 3, "first_game": MATCH_NUMBERS - 1}, "first_game"),
    ({"cube": True, "games": 0}, "games"),
    ({"match": 30, "policy": Greedy("heuristic")}, "match"),  # Janowski's decisions read the table, 25 long
])
def test_bad_options_are_named(options: dict[str, Any], field: str) -> None:
    games = options.pop("games", 2)
    for playout in (nardy_fast.playout, reference.playout):
        with pytest.raises(NardyError, match=rf"^{field}:"):
            playout("short", games, **options)


def test_the_last_match_numbers_are_played() -> None:
    # the largest a match playout may reach: matches 2**54 - 2 and 2**54 - 1 (their games below 2**62)
    start = nardy_fast.Position.from_text(WHITE_SINGLE)
    records = _records(start, 2, policy="first", match=1, first_game=MATCH_NUMBERS - 2)
    assert records.tolist() == [(0, 1, 0, 1, 1)] * 2


def test_the_core_entry_checks_its_tally() -> None:
    from nardy_fast import _core
    from nardy_fast.cube.met import default_table
    from nardy_fast.cubeargs import CubeArgs
    from nardy_fast.playouts import bound, check_playout

    args = bound(CORE, check_playout("short", 2, 0, PlayoutOptions(policy="first")))
    table = default_table("short")
    cube = CubeArgs(np.arange(2, dtype=np.int64), np.zeros(2, dtype=bool), np.ones(2, dtype=np.int64),
                    np.full(2, -1, dtype=np.int8), np.zeros(2, dtype=bool), 0, (0, 0), False, False, False, False, 1,
                    (3, 3), table.pre, table.post, np.full((len(nardy_fast.VARIANTS), 6), 0.5))
    columns = (np.zeros(2), np.zeros(2, dtype=np.int8), np.zeros(2, dtype=np.int64), np.zeros(2, dtype=np.int64))
    with pytest.raises(NardyError, match=r"^cube:"):
        _core.cube_games(args, cube, 0, 2, *columns, np.zeros((2, 3), dtype=np.int64), np.zeros(1, dtype=np.int32))


# --- the command line --------------------------------------------------------------------------------------------


def test_the_command_line_writes_the_records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "money.json"
    argv = ["playout", "--variant", "short", "--games", "7", "--seed", "4", "--policy", "heuristic", "--cube",
            "--out", str(target)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    expected = nardy_fast.playout("short", 7, seed=4, policy=Greedy("heuristic"), cube=True)
    assert json.loads(target.read_text()) == [dict(zip(CUBE_RECORD.names or (), r)) for r in expected.tolist()]
    white = int(expected["points"][expected["winner"] == 0].sum())
    assert "money play with the cube" in out and "white won" in out and f" {white:>12,}" in out
    target = tmp_path / "matches.npy"
    argv = ["playout", "--position", WHITE_SINGLE, "--games", "3", "--policy", "heuristic", "--match", "3",
            "--score", "2-0", "--crawford", "--out", str(target)]
    assert main(argv) == 0
    assert np.load(target).tolist() == [(0, 3, 0, 1, 1)] * 3
    assert "matches to 3 from 2-0, the first game the Crawford game" in capsys.readouterr().out


@pytest.mark.parametrize(("argv", "option"), [
    (["--score", "1-0"], "--score"),
    (["--crawford"], "--crawford"),
    (["--match", "3", "--score", "3-0"], "--score"),
    (["--match", "3", "--crawford"], "--crawford"),
    (["--match", "3", "--first-game", str(MATCH_NUMBERS)], "--first-game"),
    (["--match", "30", "--policy", "heuristic"], "--match"),
])
def test_the_command_line_names_bad_options(argv: list[str], option: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["playout", "--games", "2", *argv]) == 2
    assert capsys.readouterr().err.startswith(f"nardy-fast: error: {option}:")
