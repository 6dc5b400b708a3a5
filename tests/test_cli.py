"""The command line (``nardy-fast``, ``python -m nardy_fast``): each command prints what it promises, its
figures agree with the library's API called directly, and bad input gets one line naming the option."""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

import nardy_fast
import nardy_fast.cli as cli
import nardy_fast.cli.perft as cli_perft
import nardy_fast.cli.playout as cli_playout
import nardy_fast.cli.progress as cli_progress
import nardy_fast.cli.rollout as cli_rollout
from nardy_fast.__main__ import main
from nardy_fast.errors import NardyError, field_error
from nardy_fast.game import RECORD

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


def divide_lines(out: str) -> dict[str, int]:
    """The ``  <label>: <count>`` lines of ``perft --divide``."""
    pairs = [line.strip().rsplit(": ", 1) for line in out.splitlines() if re.match(r"  \S.*: \d+$", line)]
    return {label: int(count) for label, count in pairs}


def test_perft_divide_with_check_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    # --check ignored --divide; it prints the divide of a mismatch by itself
    for argv in (["perft", "--divide", "--check"], ["perft", "--check", "--divide"]):
        status, out, err = run(argv, capsys)
        assert (status, out) == (2, "") and err.count("\n") == 1
        assert re.fullmatch(r"nardy-fast: error: --(check|divide): not allowed with --(divide|check)\n", err), err


def test_perft_shows_its_progress_by_first_move(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(["perft", "--variant", "short", "--depth", "2", "--progress"], capsys)
    start = nardy_fast.Position.start("short")
    assert status == 0 and int(table_row(out, "   short")[3]) == nardy_fast.perft(start, 2)
    bars = err.split("\r")
    total = len(cli_perft.first_moves(start))
    assert f"{total}/{total} first moves  100.0%" in err and len(bars) > total  # a redraw per first move
    assert err.endswith("\n")  # the bar's line is ended before what follows
    # without --progress (stderr is no terminal here) nothing is drawn
    assert run(["perft", "--variant", "short", "--depth", "2"], capsys)[2] == ""


def test_a_deep_perft_moves_its_bar_below_the_first_moves(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # every count deeper than 0 split into its moves' counts: the sums must stay perft's
    monkeypatch.setattr(cli_perft, "_SPLIT_DEPTH", 0)
    for variant in ("long", "gulbar"):
        status, out, err = run(["perft", "--variant", variant, "--depth", "3", "--divide", "--progress"], capsys)
        start = nardy_fast.Position.start(variant)
        assert status == 0 and int(table_row(out, f"{variant:>8}")[3]) == nardy_fast.perft(start, 3)
        assert divide_lines(out) == nardy_fast.divide(start, 3)
        assert "\r" in err


def test_perft_divide_prints_each_count_with_the_bar_apart(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["perft", "--position", LONG_RACE, "--depth", "2", "--divide", "--progress"], capsys)
    assert status == 0 and "\r" not in out and "first moves" not in out
    assert divide_lines(out) == nardy_fast.divide(nardy_fast.Position.from_text(LONG_RACE), 2)


def test_perft_check_shows_its_progress(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(["perft", "--check", "--budget", "10000", "--progress"], capsys)
    assert status == 0 and " counts " in err and "100.0%" in err and "counts" not in out.split("\n", 1)[1]


# --- playout --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".csv", ".json", ".npy", ".CSV"])
def test_playout_out_writes_every_record(
    suffix: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli_progress, "_FIRST_CHUNK", 3)  # several chunks: the file holds them all, in order
    monkeypatch.setattr(cli_progress, "_CHUNK_SECONDS", 1e-9)
    target = tmp_path / f"records{suffix}"
    argv = ["playout", "--variant", "short", "--games", "11", "--seed", "3", "--first-game", "2", "--out", str(target)]
    status, out, err = run(argv, capsys)
    assert (status, err) == (0, "") and out.endswith(f"wrote the records of 11 games to {target}\n")
    expected = nardy_fast.playout("short", 13, seed=3)[2:]
    names = list(RECORD.names or ())
    assert names == ["winner", "points", "plies", "turns", "start"]
    if suffix == ".npy":
        found = np.load(target, allow_pickle=False)
        assert found.dtype == RECORD and np.array_equal(found, expected)
        return
    text = target.read_text(encoding="utf-8")
    if suffix == ".json":
        rows = json.loads(text)
        assert rows == [{name: int(record[name]) for name in names} for record in expected]
    else:
        lines = text.splitlines()
        assert lines[0] == ",".join(names)
        assert [list(map(int, line.split(","))) for line in lines[1:]] == [[int(r[n]) for n in names] for r in expected]


def test_playout_out_that_cannot_be_written_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "records.csv"
    folder.mkdir()  # a folder where the file should go
    status, _, err = run(["playout", "--variant", "short", "--games", "2", "--out", str(folder)], capsys)
    assert status == 2 and err.startswith("nardy-fast: error: --out: cannot be written (") and err.count("\n") == 1


# --- playout summaries ----------------------------------------------------------------------------------------


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
    records = nardy_fast.playout(source, games + first, seed=seed, **options)[first:]  # type: ignore[call-overload]
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


def test_rollout_gives_up_the_games_over_max_results(capsys: pytest.CaptureFixture[str]) -> None:
    # LONG_RACE's bear-off: some rolls have more than 4 results, and a game that meets one is given up, as
    # nardy_fast.rollout(..., max_results=4) counts it
    argv = ["rollout", "--position", LONG_RACE, "--games", "100", "--seed", "4", "--no-stratify"]
    status, out, err = run([*argv, "--max-results", "4"], capsys)
    assert (status, err) == (0, "")
    expected = nardy_fast.rollout(
        nardy_fast.Position.from_text(LONG_RACE), 100, seed=4, stratify=False, max_results=4
    )
    assert 0 < expected.unfinished < 100
    assert table_row(out, "given up") == [str(expected.unfinished)]
    assert "or at a ply whose search was over --max-results" in out
    status, out, err = run([*argv, "--max-results", "0"], capsys)
    assert status == 2 and "--max-results" in err


def test_rollout_truncated_at_the_bearoff(capsys: pytest.CaptureFixture[str]) -> None:
    # a bear-off already: every game stops at once and the probabilities are the position's race values
    text = "long w 1:2,2:1,13:-1,14:-2 off=12/12 first=-"
    status, out, err = run(["rollout", "--position", text, "--games", "1296", "--truncate", "bearoff"], capsys)
    assert (status, err) == (0, "")
    race = nardy_fast.Position.from_text(text).race_probabilities()
    assert table_row(out, "white single") == ["0", f"{race.win_single:.5f}", "0.00000"]
    assert table_row(out, "black single") == ["0", f"{race.lose_single:.5f}", "0.00000"]
    assert table_row(out, "truncated") == ["1296"]  # table_row reads numbers without their commas
    assert "truncated at the bear-off" in out and "with --truncate bearoff at their first bear-off position" in out
    status, out, err = run(["rollout", "--position", text, "--truncate", "race"], capsys)
    assert status == 2 and "--truncate" in err


def test_rollout_notes_a_count_that_does_not_balance_the_first_rolls(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli_progress, "_FIRST_CHUNK", 100)  # chunks that are no multiple of 1,296 either
    base = ["rollout", "--position", LONG_RACE]
    status, out, err = run([*base, "--games", "1000"], capsys)
    assert (status, err) == (0, "")  # the chunks warn nothing: only the total counts, and it is noted once
    assert out.count("note: ") == 1 and "1,000 games are not a multiple of 1,296" in out and "--games 1,296" in out
    for argv in ([*base, "--games", "2592"], [*base, "--games", "1000", "--no-stratify"]):
        status, out, err = run(argv, capsys)
        assert (status, err) == (0, "") and "note: " not in out
    assert "both sides playing policy first" in run([*base, "--games", "10", "--policy", "first"], capsys)[1]


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
    (["playout", "--out", "records.txt"], "--out", "'records.txt'"),
    (["playout", "--out", "no-such-folder/records.csv"], "--out", "'no-such-folder/records.csv'"),
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
