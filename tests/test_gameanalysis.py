"""Game analysis of match records (docs/rules.md, Game analysis): decisions checked by hand or by the exact
race values, the marks at their thresholds, the error rates of constructed rows, the luck of a roll set,
both implementations alike, and ``nardy-fast analyse`` on a file written by ``write_match``."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Optional, cast

import numpy as np
import pytest

import nardy_fast
from nardy_fast import Cube, Match
from nardy_fast.analysis import AnalysedPosition
from nardy_fast.gameanalysis import (
    ROLLS,
    Decision,
    analyse,
    mark_of,
    rating_of,
    roll_luck,
    summarise,
)
from nardy_fast.records import MatchRecord, Replay
from nardy_fast.reference import Position as _Reference

#: A bear-off where both sides have borne off checkers (no mars: a game's equity is 2 P(win) - 1) and both
#: have at most six checkers (the race values are exact).
BEAROFF = "short w 2:1,3:1,4:1,6:1,19:-1,20:-1,22:-1 off=11/12"

#: A position of GNU Backgammon's match against itself (tests/data) where it passed a double it could take.
GNU_DOUBLE = "short w 1:-1,4:2,5:-1,6:4,7:3,8:3,12:-2,13:1,16:-2,17:-4,18:2,19:-3,21:-2 first=-"

Chooser = Callable[[object, tuple[int, int]], object]


def best(position: object, roll: tuple[int, int]) -> object:
    return cast(AnalysedPosition, position).hint(roll)[0][0]


def recorded(Position: type[_Reference], start: str, plies: list[tuple[tuple[int, int], Chooser]],
             match: Optional[Match] = None, cube: Optional[Cube] = None,
             actions: tuple[tuple[str, str], ...] = ()) -> MatchRecord:
    """A one-game record from ``start``: the cube ``actions`` first, then each roll with its chosen move."""
    replay = Replay(Position.from_text(start), match)
    if cube is not None:
        replay.cube = replay.first_cube = cube
    for side, action in actions:
        replay.cube_action(side, action, "test")
    for roll, choose in plies:
        move = choose(replay.position, roll)
        steps = [(s[0], s[1]) for s in move.steps]  # type: ignore[attr-defined]
        replay.play(roll, steps, str(move), "test")
    game = replay.record(1, (0, 0), match)
    return MatchRecord(("Ann", "Bob"), None if match is None else match.length, (game,), variant="short")


def exact_equity(reached: object) -> float:
    """The equity of the side that moved into ``child`` (the other side on roll), by the exact race tables."""
    child = cast(AnalysedPosition, reached)
    if child.is_over():  # the mover bore off its last checker: a single game won (the other side has borne off)
        assert child.points() == 1
        return 1.0
    found = child.race_probabilities()
    assert found.exact and found.win_mars == 0.0 and found.lose_mars == 0.0
    return -(2.0 * float(found.win_single + found.win_mars) - 1.0)


def test_best_moves_lose_nothing(Position: type[_Reference]) -> None:
    rolls = [(2, 1), (5, 3), (4, 4)]
    record = recorded(Position, BEAROFF, [(roll, best) for roll in rolls])
    found = analyse(record, position_class=Position)
    moves = [d for d in found.decisions if d.kind == "move"]
    assert len(moves) == len(record.games[0].plies) > 1
    assert all(d.loss == 0.0 and d.mark == "" and d.played == d.best for d in moves)
    assert all(p.move_loss == 0.0 and p.error_rate == 0.0 for p in found.players)
    assert found.players[0].rating == "Super Grandmaster"


def test_a_bad_bearoff_move_loses_its_exact_equity(Position: type[_Reference]) -> None:
    start = Position.from_text(BEAROFF)
    legal = start.legal_moves((2, 1))
    worst = min(legal, key=lambda move: exact_equity(move.result))
    expected = max(exact_equity(move.result) for move in legal) - exact_equity(worst.result)
    assert expected > 0.16  # a very bad move by the exact values

    record = recorded(Position, BEAROFF, [((2, 1), lambda p, r: worst), ((3, 1), best)])
    first, second = [d for d in analyse(record, position_class=Position).decisions if d.kind == "move"]
    assert first.side == "white" and first.played == str(worst) and first.counted
    assert first.loss == pytest.approx(expected, abs=1e-9)
    assert first.equity == pytest.approx(exact_equity(worst.result), abs=1e-9)
    assert first.mark == "very bad" and first.mwc_loss is None
    assert second.side == "black" and second.loss == 0.0


def test_marks_at_the_thresholds() -> None:
    # GNU Backgammon's defaults (gnubg.c's arSkillLevel since 2019; analysis.c's GetRating since 2024)
    assert [mark_of(x) for x in (0.0, 0.03, 0.0301, 0.06, 0.0601, 0.12, 0.1201)] == [
        "", "", "doubtful", "doubtful", "bad", "bad", "very bad"]
    assert [rating_of(x / 1000) for x in (0.0, 4.9, 5.0, 7.9, 12.9, 19.9, 31.9, 32.0)] == [
        "Super Grandmaster", "Super Grandmaster", "Grandmaster", "Grandmaster", "Master", "Advanced",
        "Intermediate", "Beginner"]


def test_the_marks_thresholds_can_be_gnu_backgammons_older_ones() -> None:
    record = nardy_fast.read_match(Path(__file__).parent / "data" / "gnubg-match3-seed1.mat")
    short = MatchRecord(record.players, record.length, record.games[:2], record.variant)
    now, older = analyse(short), analyse(short, marks=(0.04, 0.08, 0.16))
    assert [replace(d, mark="") for d in now.decisions] == [replace(d, mark="") for d in older.decisions]
    assert [d.mark for d in older.decisions] == [
        "very bad" if d.loss > 0.16 else "bad" if d.loss > 0.08 else "doubtful" if d.loss > 0.04 else ""
        for d in now.decisions]
    # the two sets of thresholds mark these games differently
    assert [d.mark for d in older.decisions] != [d.mark for d in now.decisions]
    for bad in ((0.04, 0.08), (0.08, 0.04, 0.16), (0.04, 0.08, float("nan")), "0.04,0.08,0.16", (True, 2, 3)):
        with pytest.raises(nardy_fast.NardyError, match="marks: must be three increasing thresholds"):
            analyse(short, marks=bad)  # type: ignore[arg-type]


def row(side: str, kind: str, loss: float, counted: bool = True, luck: Optional[float] = None) -> Decision:
    return Decision(1, 1, side, None, kind, "a", "b", -loss, 0.0, loss, None, mark_of(loss), luck, counted, 1, "")


def test_error_rates_of_constructed_rows(Position: type[_Reference]) -> None:
    record = recorded(Position, BEAROFF, [((2, 1), best)])
    rows = [row("white", "move", 0.02), row("white", "move", 0.1), row("white", "move", 0.3, counted=False),
            row("white", "cube", 0.05), row("black", "move", 0.0, luck=0.25), row("white", "move", 0.0, luck=-0.1)]
    white, black = summarise(record, rows, None)
    # the forced move's loss is left out, as GNU Backgammon leaves out forced moves
    assert white.moves == 3 and white.cube_decisions == 1
    assert white.move_error_rate == pytest.approx(1000 * 0.12 / 3)
    assert white.cube_error_rate == pytest.approx(1000 * 0.05)
    assert white.error_rate == pytest.approx(1000 * 0.17 / 4)
    assert white.performance_rating == pytest.approx(500 * 0.17 / 4)
    assert white.rating == "Beginner"  # 42.5 mEMG
    assert white.luck == pytest.approx(-0.1) and black.luck == pytest.approx(0.25)
    # an unfinished game: no result, so the luck-adjusted result is minus one's own luck and plus the other's
    assert white.luck_adjusted_result == pytest.approx(0.1 + 0.25)
    assert black.luck_adjusted_result == pytest.approx(-0.35)


@pytest.mark.parametrize("cube", [None, Cube()])
def test_luck_of_all_rolls_averages_to_nothing(Position: type[_Reference], cube: Optional[Cube]) -> None:
    position = Position.from_text(BEAROFF if cube is None else GNU_DOUBLE)
    lucks = roll_luck(position, cube=cube)
    weights = [1 if a == b else 2 for a, b in ROLLS]
    assert sum(w * lucks[r] for w, r in zip(weights, ROLLS)) == pytest.approx(0.0, abs=1e-12)
    if cube is None:  # each roll's luck is its best move's equity against the mean, by the exact tables
        bests = {r: max(exact_equity(m.result) for m in position.legal_moves(r)) for r in ROLLS}
        mean = sum(w * bests[r] for w, r in zip(weights, ROLLS)) / 36
        assert all(lucks[r] == pytest.approx(bests[r] - mean, abs=1e-9) for r in ROLLS)
    assert len(set(np.round(list(lucks.values()), 9))) > 1
    record = recorded(Position, position.to_text(), [((5, 3), best)], match=None if cube is None else Match(),
                      cube=cube)
    moves = [d for d in analyse(record, position_class=Position).decisions if d.kind == "move"]
    assert moves[0].luck == pytest.approx(lucks[(5, 3)], abs=1e-12)


def test_a_drop_of_a_take_loses_the_difference(Position: type[_Reference]) -> None:
    start = GNU_DOUBLE
    values = Position.from_text(start).cube_decision(cube=Cube(), match=Match())
    nd, dt, dp = (float(v) for v in values.equities)
    assert dt < dp  # the double should be taken
    record = recorded(Position, start, [], match=Match(), cube=Cube(), actions=(("white", "double"), ("black", "drop")))
    double, drop = analyse(record, position_class=Position).decisions
    assert double.side == "white" and double.played == "double" and double.counted
    assert double.loss == pytest.approx(max(nd, dt) - dt, abs=1e-9)
    assert double.best == ("double" if dt >= nd else "no double")
    assert drop.side == "black" and drop.played == "drop" and drop.best == "take" and drop.counted
    assert drop.loss == pytest.approx(dp - dt, abs=1e-9) and drop.mark == mark_of(dp - dt)
    assert drop.equity == pytest.approx(-dp) and drop.best_equity == pytest.approx(-dt)


def test_both_implementations_agree() -> None:
    record = nardy_fast.read_match(Path(__file__).parent / "data" / "gnubg-match3-seed1.mat")
    short = MatchRecord(record.players, record.length, record.games[:1], record.variant)
    found = [analyse(short, position_class=impl.Position).decisions
             for impl in nardy_fast.implementations().values()]
    assert len(found) == 2 and len(found[0]) > 10
    for a, b in zip(*found):
        assert (a.kind, a.side, a.played, a.best, a.mark) == (b.kind, b.side, b.played, b.best, b.mark)
        assert a.loss == pytest.approx(b.loss, abs=1e-6) and a.luck == pytest.approx(b.luck, abs=1e-6)


def test_cli_on_a_written_match(tmp_path: Path) -> None:
    rng = random.Random(3)
    game = nardy_fast.Game("short", seed=3, match=Match(3))
    while not game.is_over():  # random moves: many of them marked
        game.play(rng.choice(sorted(game.legal_moves(), key=lambda move: move.result.zobrist)))
    record = nardy_fast.match_record([game], ("Ann", "Bob"))
    path = tmp_path / "game.mat"
    nardy_fast.write_match(record, path)
    out, page = tmp_path / "analysis.json", tmp_path / "analysis.html"
    done = subprocess.run([sys.executable, "-m", "nardy_fast", "analyse", str(path), "--json", str(out),
                           "--html", str(page), "--no-progress"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "Ann" in done.stdout and "Bob" in done.stdout and "mEMG" in done.stdout
    assert max(len(line) for line in done.stdout.splitlines()) <= 120
    data = json.loads(out.read_text())
    expected = analyse(nardy_fast.read_match(path))
    assert [p["name"] for p in data["players"]] == ["Ann", "Bob"]
    assert len(data["decisions"]) == len(expected.decisions) >= len(record.games[0].plies)
    assert [d["loss"] for d in data["decisions"]] == pytest.approx([d.loss for d in expected.decisions])
    marked = [d for d in data["decisions"] if d["mark"]]
    assert marked and all(f"{d['played']}  best {d['best']}" in done.stdout for d in marked)
    html = page.read_text()  # a board picture for each marked decision, with its played and best move
    assert html.count("<svg") == len(marked) and html.count("<h3>") == len(marked)
    assert all(f"played <b>{d['played']}</b>" in html and f"best <b>{d['best']}</b>" in html for d in marked)


def test_progress_threads_and_bad_input(tmp_path: Path) -> None:
    record = nardy_fast.read_match(Path(__file__).parent / "data" / "gnubg-match3-seed1.mat")
    seen: list[int] = []
    found = analyse(record, progress=seen.append)
    assert len(seen) == len(record.games) and seen == sorted(seen) and seen[-1] == len(found.decisions)
    assert analyse(record, threads=2) == found  # the games in threads: the same analysis
    with pytest.raises(nardy_fast.NardyError, match="record"):
        analyse("match.mat")  # type: ignore[arg-type]
    with pytest.raises(nardy_fast.NardyError, match="threads"):
        analyse(record, threads=0)
    bad = tmp_path / "bad.mat"
    bad.write_text("not a match\n")
    done = subprocess.run([sys.executable, "-m", "nardy_fast", "analyse", str(bad)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "FILE" in done.stderr
