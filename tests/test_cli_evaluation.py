"""The command line's evaluation commands, ``nardy-fast hint`` and ``nardy-fast duel``, run in-process through
the program's ``main``: a hint prints the ranking ``Position.hint`` gives (and the reference's, move for
move), a duel prints what ``nardy_fast.duel`` returns for the same seed, a player against itself scores
exactly +0.000 on duplicate dice, and bad input is one line on stderr with the library's message, exit 2."""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Sequence
from typing import Any, Optional

import numpy as np
import pytest

import nardy_fast
import nardy_fast.cli as cli
import nardy_fast.cli.duel as cli_duel
import nardy_fast.cli.progress as cli_progress
from nardy_fast import NardyError, Position
from nardy_fast.__main__ import main
from nardy_fast.duel import OUTCOMES

SHORT_START = "short w 1:-2,6:5,8:3,12:-5,13:5,17:-3,19:-5,24:2"
#: A gulbar position whose side to move plays a pending 6 (a transfer), with no roll: ply 49 of a seeded game.
PENDING = "gulbar w 11:1,12:4,13:-5,14:-2,15:5,16:3,17:1,18:-1,20:1,21:-2,22:-5 first=- pending=6"
#: A short-nardy race: the race evaluator serves it.
SHORT_RACE = "short b 1:5,2:5,3:5,22:-5,23:-5,24:-5"
#: A long middle game (White to move): ply 40 of a seeded game.
LONG_MIDDLE = "long w 1:2,2:3,3:-2,4:1,5:-1,9:2,11:1,12:-6,13:-2,20:1,21:-3,22:-1,24:5 first=-"
FINISHED = "long b 13:-15 off=15/0"


def run(argv: Sequence[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def error_line(argv: Sequence[str], capsys: pytest.CaptureFixture[str], option: str) -> str:
    """The problem of the one error line ``argv`` gets (exit status 2, nothing on stdout), which names
    ``option``."""
    status, out, err = run(argv, capsys)
    assert (status, out) == (2, ""), (status, out, err)
    assert err.endswith("\n") and err.count("\n") == 1 and "Traceback" not in err, err
    prefix = f"nardy-fast: error: {option}: "
    assert err.startswith(prefix), err
    return err[len(prefix) : -1]


def library_message(call: Callable[[], object]) -> str:
    """The message of the NardyError ``call`` raises."""
    with pytest.raises(NardyError) as caught:
        call()
    return str(caught.value)


def library_problem(call: Callable[[], object]) -> str:
    """The problem of the NardyError ``call`` raises: its message less the field in front."""
    return library_message(call).split(": ", 1)[1]


# --- hint -----------------------------------------------------------------------------------------------------

_MOVE_LINE = re.compile(r"\s*(\d+)  (.*?\S)\s+([+-]\d+\.\d{5})(?:\s+([+-]\d+\.\d{5}))?")


def printed_ranking(out: str) -> list[tuple[int, str, str, str]]:
    """The (rank, move, equity, behind) rows of a hint's table, as printed."""
    rows = []
    for line in out.splitlines():
        match = _MOVE_LINE.fullmatch(line)
        if match:
            rows.append((int(match[1]), match[2], match[3], match[4] or ""))
    return rows


def expected_ranking(ranked: list[tuple[nardy_fast.Move, float]]) -> list[tuple[int, str, str, str]]:
    best = ranked[0][1]
    return [
        (i, str(move), f"{equity:+.5f}", f"{equity - best:+.5f}" if i > 1 else "")
        for i, (move, equity) in enumerate(ranked, 1)
    ]


HINTS = [
    (SHORT_START, "3-1", "pubeval", 0),
    (SHORT_START, "6-5", "pubeval", 1),
    (SHORT_START, "4-4", "heuristic", 1),
    (LONG_MIDDLE, "6-3", "heuristic", 0),
    (LONG_MIDDLE, "5-2", "heuristic", 2),
    (SHORT_RACE, "2-1", "race", 1),
    (PENDING, None, "heuristic", 1),
]


@pytest.mark.parametrize(("text", "roll", "evaluator", "plies"), HINTS)
def test_hint_prints_the_ranking_of_position_hint(
    text: str, roll: Optional[str], evaluator: str, plies: int, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["hint", text, *([roll] if roll else []), "--plies", str(plies), "--evaluator", evaluator]
    status, out, err = run(argv, capsys)
    assert (status, err) == (0, "")
    position = Position.from_text(text)
    dice = None if roll is None else (int(roll[0]), int(roll[2]))
    ranked = position.hint(dice, evaluator=evaluator, plies=plies)
    assert len(ranked) == len(position.legal_moves(dice)) and ranked
    assert printed_ranking(out) == expected_ranking(ranked)
    to_play = "pending 6" if roll is None else f"roll {roll}"
    assert f"hint of {position.to_text()!r}, {to_play}, {position.turn.capitalize()} to move" in out
    assert f"{len(ranked)} moves, evaluator {evaluator}, {plies}-ply" in out


@pytest.mark.parametrize(
    ("text", "roll", "evaluator"), [(SHORT_START, "3-1", "pubeval"), (PENDING, None, "heuristic")]
)
def test_hint_agrees_with_the_reference_search(
    text: str, roll: Optional[str], evaluator: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # the reference's own moves and search, written in Python: the same ranking, the same equities
    status, out, _ = run(["hint", text, *([roll] if roll else []), "--evaluator", evaluator], capsys)
    assert status == 0
    dice = None if roll is None else (int(roll[0]), int(roll[2]))
    theirs = nardy_fast.reference.Position.from_text(text).hint(dice, evaluator=evaluator, plies=0)
    printed = printed_ranking(out)
    assert [move for _, move, _, _ in printed] == [str(move) for move, _ in theirs]
    assert np.allclose([float(e) for _, _, e, _ in printed], [e for _, e in theirs], atol=6e-6, rtol=0)


def test_hint_top_prints_the_best_moves_only(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["hint", SHORT_START, "5-2", "--evaluator", "pubeval", "--top", "3"], capsys)
    ranked = Position.from_text(SHORT_START).hint((5, 2), evaluator="pubeval")
    assert status == 0 and printed_ranking(out) == expected_ranking(ranked)[:3]
    assert f"({len(ranked) - 3} more moves not shown)" in out


# --- duel -----------------------------------------------------------------------------------------------------


def printed_counts(out: str) -> dict[str, int]:
    """The games column of a duel's table, by outcome."""
    counts = {}
    for outcome in OUTCOMES:
        label = "given up" if outcome == "unfinished" else outcome.replace("_", " ")
        (line,) = [line for line in out.splitlines() if line.startswith(label + " ")]
        counts[outcome] = int(line[len(label) :].split()[0].replace(",", ""))
    return counts


@pytest.mark.parametrize("player", ["random", "first", "heuristic"])
def test_a_player_against_itself_scores_exactly_zero(player: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(
        ["duel", player, player, "--variant", "short", "--games", "200", "--seed", "4"], capsys
    )
    assert (status, err) == (0, "")
    assert "points per game for A: +0.000, std. error 0.000 (over 100 pairs)" in out
    assert "win rate of A: 50.00%" in out
    counts = printed_counts(out)
    # the two games of a pair mirror each other: each of A's wins is one of its losses in the other seat
    for kind in ("single", "mars", "koks"):
        assert counts[f"win_{kind}"] == counts[f"lose_{kind}"]
    assert sum(counts.values()) == 200


@pytest.mark.parametrize(
    ("argv", "a", "b", "variant", "flags"),
    [
        (["pubeval", "random", "--variant", "short"], nardy_fast.Greedy("pubeval"), "random", "short", {}),
        (["heuristic", "first", "--plies-a", "0"], nardy_fast.Greedy("heuristic"), "first", "long", {}),
        (
            ["random", "heuristic", "--variant", "long", "--flag", "block_check=per_step"],
            "random",
            nardy_fast.Greedy("heuristic"),
            "long",
            {"block_check": "per_step"},
        ),
        (
            ["first", "random", "--variant", "sixone", "--flag", "sixone_extra_roll_requires_play=true"],
            "first",
            "random",
            "sixone",
            {"sixone_extra_roll_requires_play": True},
        ),
    ],
)
def test_duel_prints_the_result_of_nardy_fast_duel(
    argv: list[str],
    a: object,
    b: object,
    variant: str,
    flags: dict[str, Any],
    capsys: pytest.CaptureFixture[str],
) -> None:
    games, seed = 40, 11
    status, out, err = run(["duel", *argv, "--games", str(games), "--seed", str(seed)], capsys)
    assert (status, err) == (0, "")
    result = nardy_fast.duel(a, b, variant, games, seed=seed, **flags)
    assert printed_counts(out) == result.counts
    assert f"points per game for A: {result.ppg:+.3f}, std. error {result.stderr:.3f} (over 20 pairs)" in out
    assert f"win rate of A: {100 * result.win_rate:.2f}%" in out
    assert f"{variant}, {games} games (20 pairs on duplicate dice, seats swapped), seed {seed}" in out


def test_duel_searches_at_the_plies_asked(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(
        ["duel", "pubeval", "pubeval", "--variant", "short", "--games", "2", "--plies-b", "1"], capsys
    )
    result = nardy_fast.duel(nardy_fast.Greedy("pubeval"), nardy_fast.Greedy("pubeval", plies=1), "short", 2)
    assert status == 0 and "A = pubeval (0-ply) against B = pubeval (1-ply)" in out
    assert printed_counts(out) == result.counts


def test_duel_threads_change_nothing_but_the_header(capsys: pytest.CaptureFixture[str]) -> None:
    """``--threads`` is ``nardy_fast.duel``'s ``threads``: the same games and table on 1 and 2 threads."""
    argv = ["duel", "heuristic", "random", "--variant", "gulbar", "--games", "40", "--seed", "9"]
    outs = [run([*argv, "--threads", str(n)], capsys) for n in (1, 2)]
    assert [status for status, _, _ in outs] == [0, 0]
    assert "1 thread," in outs[0][1] and "2 threads," in outs[1][1]
    assert printed_counts(outs[0][1]) == printed_counts(outs[1][1])
    result = nardy_fast.duel(nardy_fast.Greedy("heuristic"), "random", "gulbar", 40, seed=9, threads=2)
    assert f"points per game for A: {result.ppg:+.3f}," in outs[1][1]
    assert error_line([*argv, "--threads", "0"], capsys, "--threads").endswith("(got '0')")


def test_duel_progress_is_drawn_on_stderr(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli_duel, "_BATCH", (5, 5, 5))
    # no redraws by the clock (once a second while the games run, several under the reference alone): the
    # frames are then the start and one per batch
    monkeypatch.setattr(cli_progress, "_TICK_SECONDS", 3600.0)
    status, out, err = run(
        ["duel", "random", "first", "--variant", "short", "--games", "30", "--progress"], capsys
    )
    assert status == 0 and "\r" not in out
    frames = err.rstrip("\n").split("\r")[1:]
    assert err.endswith("\n") and err.count("\n") == 1
    assert re.fullmatch(r"0/30 games +0\.0% .*", frames[0]) and re.fullmatch(
        r"30/30 games +100\.0% .*", frames[-1]
    )
    assert len(frames) == 1 + 3  # the start, then a batch of 5 pairs at a time
    assert run(["duel", "random", "first", "--variant", "short", "--games", "30"], capsys)[2] == ""


def test_an_interrupted_duel_exits_130_with_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(*args: object, **kwargs: object) -> object:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_duel, "duel", interrupted)
    status, _, err = run(["duel", "random", "first", "--progress"], capsys)
    # the progress line is ended before the message, which stands on its own line
    assert status == 130 and err.endswith("\nnardy-fast: interrupted\n") and err.count("\n") == 2


# --- bad input ------------------------------------------------------------------------------------------------


def test_bad_hints_get_the_library_message(capsys: pytest.CaptureFixture[str]) -> None:
    start = Position.start("long")
    assert error_line(
        ["hint", "long w 12:-15,24:15", "3-1", "--evaluator", "pubeval"], capsys, "--evaluator"
    ) == (library_problem(lambda: start.hint((3, 1), evaluator="pubeval")))
    assert error_line(["hint", "long w 12:-15,24:15"], capsys, "ROLL") == library_problem(
        lambda: start.hint()
    )
    pending = Position.from_text(PENDING)
    assert error_line(["hint", PENDING, "3-1"], capsys, "ROLL") == library_problem(
        lambda: pending.hint((3, 1))
    )
    assert error_line(["hint", "long w 12:-15,24:15", "3-1", "--evaluator", "race"], capsys, "POSITION") == (
        library_problem(lambda: nardy_fast.evaluate(start, "race"))
    )
    assert "is not a race" in library_problem(lambda: nardy_fast.evaluate(start, "race"))
    assert error_line(["hint", "long w 24:15", "3-1"], capsys, "POSITION").startswith(
        library_message(lambda: Position.from_text("long w 24:15"))
    )
    assert "'7-1'" in error_line(["hint", "long w 12:-15,24:15", "7-1"], capsys, "ROLL")
    assert "'31'" in error_line(["hint", "long w 12:-15,24:15", "31"], capsys, "ROLL")
    assert "'3'" in error_line(["hint", "long w 12:-15,24:15", "3-1", "--plies", "3"], capsys, "--plies")
    assert "'gnubg'" in error_line(
        ["hint", "long w 12:-15,24:15", "3-1", "--evaluator", "gnubg"], capsys, "--evaluator"
    )
    assert "finished" in error_line(["hint", FINISHED, "3-1"], capsys, "POSITION")


def test_bad_duels_get_the_library_message(capsys: pytest.CaptureFixture[str]) -> None:
    start = Position.start("long")
    assert error_line(["duel", "pubeval", "random"], capsys, "A") == library_problem(
        lambda: nardy_fast.evaluate(start, "pubeval")
    )
    assert error_line(["duel", "random", "race", "--games", "4"], capsys, "B") == library_problem(
        lambda: nardy_fast.evaluate(start, "race")
    )
    assert error_line(
        ["duel", "random", "random", "--flag", "ladder_per_value=4"], capsys, "--flag"
    ) == library_message(lambda: Position.start("long", ladder_per_value=4))
    assert error_line(
        ["duel", "random", "random", "--variant", "crazy", "--flag", "ladder_per_value=5"], capsys, "--flag"
    ) == library_message(lambda: Position.start("crazy", ladder_per_value=5))
    assert "'gnubg'" in error_line(["duel", "gnubg", "random"], capsys, "A")
    assert "'3'" in error_line(["duel", "random", "random", "--games", "3"], capsys, "--games")
    assert "'1'" in error_line(["duel", "random", "first", "--plies-a", "1"], capsys, "--plies-a")
    assert "'3'" in error_line(["duel", "heuristic", "first", "--plies-a", "3"], capsys, "--plies-a")
    assert "'block_check'" in error_line(
        ["duel", "random", "random", "--flag", "block_check"], capsys, "--flag"
    )
    assert "'-1'" in error_line(["duel", "random", "random", "--seed", "-1"], capsys, "--seed")
    assert error_line(["duel", "random"], capsys, "B") == "required"


# --- help -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["duel", "hint"])
def test_the_commands_explain_themselves(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main([command, "--help"])
    assert exit_.value.code == 0
    text = capsys.readouterr().out
    assert text.startswith(f"usage: nardy-fast {command} ") and "print" in text.split("options:")[0]
    parser, subparsers = cli._parser()
    assert command in (parser.description or "")
    for action in subparsers[command]._actions:
        if not isinstance(action, argparse._HelpAction):
            assert action.help and len(action.help) > 10, action.option_strings
