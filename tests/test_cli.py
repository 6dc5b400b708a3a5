"""The command line (``nardy-fast``, ``python -m nardy_fast``): each command prints what it promises, its
figures agree with the library's API called directly, and bad input gets one line naming the option."""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pytest

import nardy_fast
import nardy_fast.cli as cli
import nardy_fast.cli.playout as cli_playout
import nardy_fast.cli.progress as cli_progress
import nardy_fast.cli.rollout as cli_rollout
from nardy_fast.__main__ import main
from nardy_fast.errors import NardyError, field_error

#: A bear-off race of long nardy (White's home 1..6, Black's 13..18), short games for fast tests.
LONG_RACE = "long w 1:5,2:5,3:5,13:-5,14:-5,15:-5"
#: The same race in short nardy (Black's home is 19..24 there), Black to move.
SHORT_RACE = "short b 1:5,2:5,3:5,22:-5,23:-5,24:-5"
#: A game already over: White has borne off all 15.
FINISHED = "long b 13:-15 off=15/0"


def run(argv: Sequence[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def table_row(out: str, label: str) -> list[str]:
    """The cells after ``label`` of the one table line starting with it, thousands separators dropped."""
    rows = [line for line in out.splitlines() if line.startswith(label + " ")]
    assert len(rows) == 1, (label, out)
    return rows[0][len(label) :].replace(",", "").split()


def number_after(out: str, words: str) -> float:
    match = re.search(re.escape(words) + r" ([-+0-9.,]+)", out)
    assert match, (words, out)
    return float(match[1].replace(",", "").rstrip(","))


# --- perft ----------------------------------------------------------------------------------------------------


def test_perft_check_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["perft", "--check"]) == 0
    assert capsys.readouterr().out


def test_perft_divide_sums_to_perft(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["perft", "--position", LONG_RACE, "--depth", "1", "--divide"], capsys)
    assert status == 0
    counts = [int(line.rsplit(": ", 1)[1]) for line in out.splitlines() if line.startswith("  ")]
    assert (
        sum(counts)
        == nardy_fast.perft(nardy_fast.Position.from_text(LONG_RACE), 1)
        == int(table_row(out, "position")[3])
    )


# --- playout --------------------------------------------------------------------------------------------------


def check_summary(out: str, records: npt.NDArray[np.void]) -> None:
    """The summary table of ``out`` counts what ``records`` (from ``nardy_fast.playout``) hold."""
    games = len(records)
    for side, name in enumerate(("white", "black")):
        won = records["winner"] == side
        by_points = [int(np.sum(won & (records["points"] == k))) for k in (1, 2, 3)]
        cells = table_row(out, f"{name} won")
        assert cells == [
            str(int(won.sum())),
            f"{100 * won.sum() / games:.2f}%",
            *map(str, by_points),
            str(by_points[0] + 2 * by_points[1] + 3 * by_points[2]),
        ]
    given_up = int(np.sum(records["winner"] == -1))
    assert table_row(out, "given up") == [str(given_up), f"{100 * given_up / games:.2f}%"]
    assert table_row(out, "all") == [str(games), "100.00%"]
    assert number_after(out, "mean plies") == round(float(np.mean(records["plies"])), 2)
    assert number_after(out, "mean turns") == round(float(np.mean(records["turns"])), 2)
    for term in (
        "games:",
        "%:",
        "single, mars, koks:",
        "points:",
        "given up:",
        "plies:",
        "turns:",
        "wall time:",
    ):
        assert term in out, term  # the legend defines every column


@pytest.mark.parametrize(
    ("arguments", "start", "options"),
    [
        (["--variant", "short", "--opening", "use_single_dice"], "short", {"opening": "use_single_dice"}),
        (["--variant", "long", "--policy", "first"], "long", {"policy": "first"}),
        (["--position", LONG_RACE], LONG_RACE, {}),
        (["--position", SHORT_RACE, "--threads", "2"], SHORT_RACE, {}),
    ],
)
def test_playout_summary_counts_the_games_of_playout(
    arguments: list[str],
    start: str,
    options: dict[str, str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # tiny chunks: the summary of many calls (first_game) must be that of one call
    monkeypatch.setattr(cli_progress, "_FIRST_CHUNK", 3)
    monkeypatch.setattr(cli_progress, "_CHUNK_SECONDS", 1e-9)
    games, seed, first = 14, 7, 5
    argv = ["playout", *arguments, "--games", str(games), "--seed", str(seed), "--first-game", str(first)]
    status, out, err = run(argv, capsys)
    assert (status, err) == (0, "")
    source: object = nardy_fast.Position.from_text(start) if " " in start else start
    records = nardy_fast.playout(source, games + first, seed=seed, **options)[first:]
    check_summary(out, records)
    assert f"games {first}..{first + games - 1} ({games})" in out


def test_playout_progress_goes_to_stderr_only_when_asked(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli_progress, "_FIRST_CHUNK", 2)
    monkeypatch.setattr(cli_progress, "_CHUNK_SECONDS", 1e-9)
    argv = ["playout", "--position", LONG_RACE, "--games", "6"]
    status, quiet_out, quiet_err = run(argv, capsys)  # stderr is no terminal under capsys
    assert (status, quiet_err) == (0, "")
    status, out, err = run([*argv, "--progress"], capsys)
    assert status == 0
    assert "\r" not in out and "games/s  ETA" not in out
    frames = err.rstrip("\n").split("\r")[1:]
    assert err.endswith("\n") and err.count("\n") == 1  # one line, redrawn, ended once
    assert re.fullmatch(r"0/6 games +0\.0% +\d+ games/s +ETA \S+ *", frames[0]), frames[0]
    assert re.fullmatch(r"6/6 games +100\.0% +[\d,]+ games/s +ETA 0:00 *", frames[-1]), frames[-1]
    assert len(frames) >= 4  # 0, then chunks of 2 (or 1) games
    # the same table either way, the wall time aside
    assert out.split("wall time")[0] == quiet_out.split("wall time")[0]
    assert run([*argv, "--no-progress"], capsys)[2] == ""


# --- rollout --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "stratify"), [(SHORT_RACE, True), (LONG_RACE, False)])
def test_rollout_prints_probabilities_errors_and_equity(
    text: str, stratify: bool, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # chunks of 5 games or fewer: the stratified first rolls follow the game numbers, not the chunks
    monkeypatch.setattr(cli_progress, "_FIRST_CHUNK", 5)
    monkeypatch.setattr(cli_progress, "_CHUNK_SECONDS", 1e-9)
    games, seed = 72, 3
    argv = ["rollout", "--position", text, "--games", str(games), "--seed", str(seed)]
    status, out, err = run(argv if stratify else [*argv, "--no-stratify"], capsys)
    assert (status, err) == (0, "")
    position = nardy_fast.Position.from_text(text)
    records = nardy_fast.playout(position, games, seed=seed, stratify=stratify)
    mover = ("white", "black").index(position.turn)
    for side, name in enumerate(("white", "black")):
        for value, kind in enumerate(("single", "mars", "koks"), 1):
            count = int(np.sum((records["winner"] == side) & (records["points"] == value)))
            p = count / games
            error = np.sqrt(p * (1 - p) / (games - 1))  # a proportion's sample standard error
            assert table_row(out, f"{name} {kind}") == [str(count), f"{p:.5f}", f"{error:.5f}"]
    assert table_row(out, "given up") == [str(int(np.sum(records["winner"] == -1)))]
    sign = np.where(records["winner"] == mover, 1, np.where(records["winner"] == 1 - mover, -1, 0))
    values = sign * records["points"]
    assert f"equity of {position.turn} (to move): {values.mean():+.5f} points per game" in out
    assert number_after(out, "std. error") == round(float(values.std(ddof=1) / np.sqrt(games)), 5)
    for term in ("probability:", "std. error:", "given up:", "equity:"):
        assert term in out, term


# --- bad input ------------------------------------------------------------------------------------------------

BAD_INPUT = [
    (["perft", "--position", "long w 24:15"], "--position", "'long w 24:15'"),
    (["perft", "--depth", "-1"], "--depth", "'-1'"),
    (["perft", "--depth", "65"], "--depth", "'65'"),
    (["perft", "--depth", "two"], "--depth", "'two'"),
    (["perft", "--divide", "--depth", "0"], "--depth", "'0'"),
    (["perft", "--variant", "chess"], "--variant", "'chess'"),
    (["perft", "--depht", "3"], "--depht", "'--depht'"),
    (["perft", "--budget", "-5"], "--budget", "'-5'"),
    (["playout", "--games", "0"], "--games", "'0'"),
    (["playout", "--games", "1e3"], "--games", "'1e3'"),
    (["playout", "--threads", "0"], "--threads", "'0'"),
    (["playout", "--seed", "-1"], "--seed", "'-1'"),
    (["playout", "--seed", str(1 << 64)], "--seed", f"'{1 << 64}'"),
    (["playout", "--first-game", "-1"], "--first-game", "'-1'"),
    (["playout", "--first-game", str((1 << 62) - 5), "--games", "10"], "--first-game", f"'{(1 << 62) - 5}'"),
    (["playout", "--policy", "best"], "--policy", "'best'"),
    (["playout", "--opening", "coin"], "--opening", "'coin'"),
    (["playout", "--position", LONG_RACE, "--opening", "fresh_roll"], "--opening", "'fresh_roll'"),
    (["playout", "--position", "garbage"], "--position", "'garbage'"),
    (["playout", "--position", FINISHED], "--position", repr(FINISHED)),
    (["rollout", "--position", "long w 24:15"], "--position", "'long w 24:15'"),
    (["rollout", "--position", FINISHED], "--position", repr(FINISHED)),
    (["rollout", "--position", LONG_RACE, "--games", "many"], "--games", "'many'"),
    (["rollout", "--position", LONG_RACE, "--no-stratify=yes"], "--no-stratify", "'yes'"),
    (["corpus", "--size", "0"], "--size", "'0'"),
    (["bench", "--repeats", "x"], "--repeats", "'x'"),
    (["deal"], "COMMAND", "'deal'"),
]


def check_one_error_line(status: int, out: str, err: str, option: str, value: str) -> None:
    assert status == 2
    assert out == ""
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith(f"nardy-fast: error: {option}: "), err
    assert value in err, err
    assert "Traceback" not in err and "usage:" not in err


@pytest.mark.parametrize(("argv", "option", "value"), BAD_INPUT)
def test_bad_input_is_one_line_naming_the_option(
    argv: list[str], option: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    check_one_error_line(*run(argv, capsys), option, value)


def test_a_missing_required_option_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(["rollout"], capsys)
    assert (status, out, err) == (2, "", "nardy-fast: error: --position: required\n")


def test_library_errors_name_the_option(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # a check of the library that the command line does not make itself: its field becomes the option
    def refuse(*args: object, **kwargs: object) -> object:
        raise field_error(NardyError, "threads", "must fit the machine", 3)

    monkeypatch.setattr(cli_playout, "playout", refuse)
    status, _, err = run(["playout", "--variant", "short", "--games", "4", "--threads", "3"], capsys)
    assert status == 2
    assert err == "nardy-fast: error: --threads: must fit the machine (got 3)\n"


def test_ctrl_c_exits_130_with_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(*args: object, **kwargs: object) -> object:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_rollout, "rollout", interrupted)
    status, _, err = run(["rollout", "--position", LONG_RACE], capsys)
    assert (status, err) == (130, "nardy-fast: interrupted\n")
    monkeypatch.setattr(cli_playout, "playout", interrupted)
    status, _, err = run(["playout", "--progress"], capsys)
    # the progress line is ended before the message, which stands on its own line
    assert status == 130 and err.endswith("\nnardy-fast: interrupted\n") and err.count("\n") == 2


# --- help -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", [[], ["bench"], ["perft"], ["playout"], ["rollout"], ["corpus"]])
def test_help_is_plain_text(command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main([*command, "--help"])
    assert exit_.value.code == 0
    text = capsys.readouterr().out
    assert text.startswith(f"usage: nardy-fast {' '.join(command)}".rstrip() + " ")
    assert "`" not in text and "**" not in text and "\n* " not in text
    if command:
        assert "print" in text.split("options:")[0]  # the description says what the command prints


def test_every_option_explains_itself() -> None:
    parser, subparsers = cli._parser()
    assert "nardy-fast" in (parser.description or "") and "python -m nardy_fast" in (parser.description or "")
    for name in ("bench", "perft", "playout", "rollout", "corpus"):
        assert name in (parser.description or "")
        for action in subparsers[name]._actions:
            if not isinstance(action, argparse._HelpAction):
                assert action.help and len(action.help) > 10, (name, action.option_strings)
    playout_help = subparsers["playout"].format_help()
    assert "gammon" in playout_help and "backgammon" in playout_help


# --- the program, end to end ----------------------------------------------------------------------------------


def test_python_m_nardy_fast_exit_statuses() -> None:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}

    def program(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "nardy_fast", *argv], capture_output=True, text=True, env=env, timeout=120
        )

    done = program("playout", "--position", LONG_RACE, "--games", "3")
    assert (done.returncode, done.stderr) == (0, "")
    assert "white won" in done.stdout
    for argv, option in [
        (["perft", "--depth", "-1"], "--depth"),
        (["perft", "--position", "long w 24:15"], "--position"),
    ]:
        failed = program(*argv)
        assert failed.returncode == 2 and failed.stdout == ""
        assert failed.stderr.count("\n") == 1 and failed.stderr.startswith(f"nardy-fast: error: {option}: ")


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT is POSIX")
def test_python_m_nardy_fast_interrupted_exits_130() -> None:
    argv = [sys.executable, "-m", "nardy_fast", "playout", "--games", str((1 << 31) - 1), "--no-progress"]

    def interruptible() -> None:
        # a suite started in the background of a non-interactive shell ignores SIGINT, and so would the child
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    with subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=interruptible
    ) as process:
        try:
            assert process.stdout is not None and process.stdout.readline().startswith("playout: ")  # playing
            process.send_signal(signal.SIGINT)
            _, err = process.communicate(timeout=60)
        finally:
            process.kill()  # never wait for two billion games
    assert (process.returncode, err) == (130, "nardy-fast: interrupted\n")
