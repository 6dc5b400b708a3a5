"""Game analysis deeper than 0 plies (docs/rules.md, Game analysis): a game played with the cube has the moves
GNU Backgammon's analysis filter keeps (the best 16 by 0-ply equity within 0.32 of the best, or other bounds)
and the move played searched deep, the others ranked below by their 0-ply values; ``move_filter=None`` searches every move.
The expected figures are :meth:`Position.hint`'s, position by position, at 0 and 1 ply, with the filter
applied here by hand."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Optional, cast

import numpy as np
import pytest

import nardy_fast
from nardy_fast import Cube, Match
from nardy_fast.analysis import AnalysedPosition
from nardy_fast.cube.met import default_table
from nardy_fast.errors import NardyError
from nardy_fast.evaluation.constants import ANALYSIS_FILTER, MoveFilter
from nardy_fast.gameanalysis import analyse
from nardy_fast.records import MatchRecord, Replay
from nardy_fast.reference import Position as _Reference


def worst_and_random(seed: int) -> Callable[[object, tuple[int, int]], object]:
    """A chooser that plays the 0-ply worst move on odd turns (a move the filter cuts) and a random one else."""
    rng = random.Random(seed)
    turns = iter(range(1000))

    def choose(position: object, roll: tuple[int, int]) -> object:
        ranked = cast(AnalysedPosition, position).hint(roll)
        return ranked[-1][0] if next(turns) % 2 else rng.choice(ranked)[0]

    return choose


def game_record(Position: type[_Reference], match: Match, seed: int, plies: int) -> MatchRecord:
    """One game of ``plies`` plies of short nardy from the start with the cube, moves by
    :func:`worst_and_random`, rolls by ``seed`` (no doubles: fewer moves to search)."""
    rng = random.Random(seed)
    replay = Replay(Position.start("short"), match)
    choose = worst_and_random(seed)
    for _ in range(plies):
        high, low = sorted(rng.sample(range(1, 7), 2), reverse=True)
        roll = (high, low)
        move: Any = choose(replay.position, roll)
        replay.play(roll, [(s[0], s[1]) for s in move.steps], str(move), "test")
    game = replay.record(1, match.score, match)
    return MatchRecord(("Ann", "Bob"), match.length, (game,), variant="short")


Values = dict[Any, float]


def hints(Position: type[_Reference], record: MatchRecord) -> list[tuple[Values, Values, Any]]:
    """Each ply's moves' equities (normalised, by result) by :meth:`Position.hint` at 0 and at 1 ply, and the
    result of the move played."""
    game = record.games[0]
    match = game.match
    assert match is not None
    table = None if match.money else default_table("short")
    replay = Replay(game.start, match, Position)
    found = []
    for ply in game.plies:
        position = cast(AnalysedPosition, replay.position)
        cube = replay.cube
        move = replay.play(ply.roll, [(s.src, s.dst) for s in ply.steps], "", "test")

        def normal(value: float) -> float:
            if table is None:
                return value
            side, them = position.turn, ("black" if position.turn == "white" else "white")
            return float(table.mwc2eq(value, match.away(side), match.away(them), cube.value, match.crawford))

        shallow = {m.result: normal(v) for m, v in position.hint(ply.roll, cube=cube, match=match, table=table)}
        deep = {m.result: normal(v) for m, v in position.hint(ply.roll, plies=1, cube=cube, match=match,
                                                             table=table)}
        found.append((shallow, deep, move.result))
    return found


def expected(shallow: Values, deep: Values, played: object, keep: Optional[MoveFilter]) -> tuple[float, float, bool]:
    """A ply's best equity and played equity, and whether the filter cut the move played."""
    searched = set(deep)
    if keep is not None:
        order = sorted(shallow, key=lambda r: -shallow[r])[:keep.keep]
        searched = {r for r in order if shallow[r] >= shallow[order[0]] - keep.width}
    return max(deep[r] for r in searched), deep[played], played not in searched


@pytest.mark.parametrize("match", [Match(), Match(5, score=(1, 3))], ids=["money", "match"])
def test_the_filter_and_the_move_played_are_searched(Position: type[_Reference], match: Match) -> None:
    plies = 2 if Position is _Reference else 8  # the reference's 1-ply search is slow
    record = game_record(Position, match, seed=7, plies=plies)
    found = hints(Position, record)
    for move_filter in (ANALYSIS_FILTER, MoveFilter(8, 0.16), None):
        rows = [d for d in analyse(record, plies=1, position_class=Position, move_filter=move_filter).decisions
                if d.kind == "move"]
        wanted = [expected(*ply, move_filter) for ply in found]
        assert len(rows) == len(wanted) == plies
        for row, (best, played, _) in zip(rows, wanted):
            assert row.best_equity == pytest.approx(best, abs=1e-12)
            assert row.equity == pytest.approx(played, abs=1e-12)
            assert row.loss == pytest.approx(max(0.0, best - played), abs=1e-12)
        if move_filter is not None:  # the played moves the filter cut were searched all the same
            assert any(cut for _, _, cut in wanted)


def test_a_cube_decision_at_one_ply_is_the_positions(Position: type[_Reference]) -> None:
    match = Match(5, score=(2, 0))
    record = game_record(Position, match, seed=3, plies=4)
    cubes = [d for d in analyse(record, plies=1, position_class=Position).decisions if d.kind == "cube"]
    game = record.games[0]
    replay = Replay(game.start, match, Position)
    table = default_table("short")
    assert len(cubes) == len(game.plies) - 1  # a cube decision before every ply but the game's first
    for ply, row in zip(game.plies, [None, *cubes]):
        if row is not None:
            found = cast(AnalysedPosition, replay.position).cube_decision(plies=1, cube=Cube(), match=match,
                                                                          table=table)
            nd, dt, dp = (float(v) for v in found.equities)
            assert row.played == "no double" and row.equity == pytest.approx(nd, abs=1e-12)
            assert row.best_equity == pytest.approx(max(nd, min(dt, dp)), abs=1e-12)
        replay.play(ply.roll, [(s.src, s.dst) for s in ply.steps], "", "test")


def test_the_cli_searches_every_move_when_asked(tmp_path: Path) -> None:
    record = game_record(cast(type[_Reference], nardy_fast.Position), Match(5), seed=3, plies=24)
    path, out = tmp_path / "game.mat", tmp_path / "analysis.json"
    nardy_fast.write_match(record, path)
    done = subprocess.run([sys.executable, "-m", "nardy_fast", "analyse", str(path), "--plies", "1", "--all-moves",
                           "--json", str(out), "--no-progress"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    every, cut = (analyse(nardy_fast.read_match(path), plies=1, move_filter=f) for f in (None, ANALYSIS_FILTER))
    assert every != cut  # the filter changes some figure of this game
    assert [d["loss"] for d in json.loads(out.read_text())["decisions"]] == pytest.approx(
        [d.loss for d in every.decisions], abs=1e-12)


@pytest.mark.parametrize("bad", [(0, 0.16), (8, -0.1), (8, float("nan")), (8, float("inf")), (True, 0.1),
                                 (8, True), "8,0.16", (8,), (8, 0.1, 1), (8.0, 0.1), ("8", 0.1)])
def test_a_bad_filter_is_refused(bad: object) -> None:
    record = game_record(_Reference, Match(), seed=1, plies=1)
    with pytest.raises(NardyError, match="move_filter") as raised:
        analyse(record, plies=1, move_filter=bad)  # type: ignore[arg-type]
    assert repr(bad)[:20] in str(raised.value)  # the value quoted


def test_a_filter_of_numpy_numbers_or_a_list_is_a_filter() -> None:
    record = game_record(_Reference, Match(), seed=1, plies=2)
    found = analyse(record, plies=0)
    assert analyse(record, plies=0, move_filter=[np.int64(2), np.float64(0.5)]) == found  # type: ignore[arg-type]
