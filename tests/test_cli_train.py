"""``nardy-fast train``: it writes the weights the library's ``train`` makes with the same arguments, prints
each strength check and a last line with the file, games, seconds and checksum, records the command that
reproduces the weights, resumes an interrupted run (Ctrl-C in-process and in a real process, a killed
process) to the same weights, and turns bad input into one line naming the option, exit status 2.
"""

from __future__ import annotations

import json
import re
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import nardy_fast
import nardy_fast.cli as cli
from nardy_fast.__main__ import main
from nardy_fast.errors import NardyError
from nardy_fast.evaluation.network import Network
from nardy_fast.policies import Greedy
from nardy_fast.training import check_config, train
from nardy_fast.training.trainer import EVAL_SEED, checkpoint_path, log_path

#: A tiny training of short nardy: 3 iterations of 20 games, a strength check of 20 games after each.
OPTIONS = {"seed": 3, "hidden": 8, "batch": 20, "eval_every": 20, "eval_games": 20}
GAMES = 60
ARGV = ["train", "--variant", "short", "--games", str(GAMES)]
ARGV += [f"--{key.replace('_', '-')}={value}" for key, value in OPTIONS.items()]

LOG_LINE = re.compile(
    r"^ +([\d,]+) games +([\d.]+) s +ppg vs heuristic ([-+][\d.]+) \+- ([\d.]+) \(20 games\)"
)
LAST_LINE = re.compile(r"^wrote (.+): ([\d,]+) games, ([\d.]+) s, sha256 ([0-9a-f]{64}) \(log: (.+)\)$")


def run(argv: Sequence[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def reference(tmp_path: Path, games: int = GAMES, **options: Any) -> Network:
    """The weights of the library's ``train`` for the tiny training (never interrupted)."""
    return train("short", games, out=tmp_path / "reference" / "w.npz", **{**OPTIONS, **options})


@pytest.fixture()
def made(tmp_path: Path) -> Network:
    (tmp_path / "reference").mkdir()
    return reference(tmp_path)


def log_lines(out: str) -> list[tuple[int, float, float]]:
    """The strength checks printed: games, ppg, stderr."""
    found = [LOG_LINE.match(line) for line in out.splitlines()]
    return [(int(m[1].replace(",", "")), float(m[3]), float(m[4])) for m in found if m]


def test_train_writes_the_weights_and_prints_its_progress(
    tmp_path: Path, made: Network, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "w.npz"
    status, printed, err = run([*ARGV, "--out", str(out)], capsys)
    assert (status, err) == (0, "")  # no bar: stderr is no terminal
    lines = printed.splitlines()
    assert lines[0].startswith("train: short, 60 games in batches of 20, seed 3, 8 hidden units, lambda 0.7")
    last = LAST_LINE.match(lines[-1])
    assert last, lines[-1]
    network = Network.load(out)
    assert (last[1], last[2], last[4], last[5]) == (str(out), "60", network.sha256, str(log_path(out)))
    assert network.sha256 == made.sha256 and float(last[3]) == network.training["seconds"]
    # one line a strength check, the figures of the log file
    entries = [json.loads(line) for line in log_path(out).read_text().splitlines()]
    assert [e["games"] for e in entries] == [20, 40, 60]
    assert log_lines(printed) == [(e["games"], round(e["ppg"], 3), round(e["stderr"], 3)) for e in entries]
    # the last check is the final network's duel against heuristic on the checks' dice
    final = nardy_fast.duel(Greedy(network), Greedy("heuristic"), "short", 20, seed=EVAL_SEED)
    assert log_lines(printed)[-1][1:] == (round(final.ppg, 3), round(final.stderr, 3))


def test_the_recorded_command_makes_the_same_weights(
    tmp_path: Path, made: Network, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "first run.npz"  # a space: the command quotes it
    assert run([*ARGV, "--out", str(out), "--threads", "2"], capsys)[0] == 0
    command = Network.load(out).training["command"]
    words = shlex.split(command)
    assert words[:2] == ["nardy-fast", "train"] and words[words.index("--out") + 1] == str(out)
    words[words.index("--out") + 1] = str(tmp_path / "again.npz")
    assert run(words[1:], capsys)[0] == 0
    assert Network.load(tmp_path / "again.npz").sha256 == made.sha256


def test_the_recorded_command_is_the_command_line_typed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [*ARGV, "--games", "20", "--out", str(tmp_path / "my weights.npz"), "--no-progress"]
    monkeypatch.setattr(sys, "argv", ["/usr/local/bin/nardy-fast", *argv])
    assert run(argv, capsys)[0] == 0
    assert Network.load(tmp_path / "my weights.npz").training["command"] == "nardy-fast " + shlex.join(argv)


def test_the_progress_bar_is_drawn_when_asked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, printed, err = run(
        [*ARGV, "--games", "40", "--out", str(tmp_path / "w.npz"), "--progress"], capsys
    )
    assert status == 0 and "\r20/40 games" in err and "\r40/40 games  100.0%" in err and err.endswith("\n")
    assert len(log_lines(printed)) == 2  # the log lines go to stdout, between the bar's redraws


# --- interruption and resumption -----------------------------------------------------------------------------


def interrupting(monkeypatch: pytest.MonkeyPatch, at: int) -> None:
    """Make the command's training raise KeyboardInterrupt (Ctrl-C) once ``at`` games are checkpointed."""
    real = train  # what the command calls

    def interrupted(*args: Any, progress: Any, **kwargs: Any) -> Network:
        def stop(done: int, games: int) -> None:
            progress(done, games)
            if done >= at:
                raise KeyboardInterrupt

        return real(*args, progress=stop, **kwargs)

    monkeypatch.setattr("nardy_fast.cli.train.train", interrupted)


def test_ctrl_c_says_where_the_checkpoint_is_and_the_same_command_resumes(
    tmp_path: Path, made: Network, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "w.npz"
    argv = [*ARGV, "--out", str(out)]
    interrupting(monkeypatch, 20)
    status, printed, err = run(argv, capsys)
    assert status == 130
    assert err == (
        f"nardy-fast train: interrupted; the checkpoint {checkpoint_path(out)} holds 20 of 60 games: the same "
        "command again resumes it\nnardy-fast: interrupted\n"
    )
    assert [games for games, _, _ in log_lines(printed)] == [20] and not out.exists()
    monkeypatch.undo()
    status, printed, err = run(argv, capsys)
    assert (status, err) == (0, "")
    assert f"resumed from {checkpoint_path(out)} at 20 games: 40 to play" in printed.splitlines()
    assert [games for games, _, _ in log_lines(printed)] == [40, 60]
    assert Network.load(out).sha256 == made.sha256
    # the log file has each check once, the checks before the interruption included
    assert [json.loads(line)["games"] for line in log_path(out).read_text().splitlines()] == [20, 40, 60]
    # run again, it has nothing left to play: it writes the same weights at once
    status, printed, _ = run(argv, capsys)
    assert status == 0 and "at 60 games: 0 to play" in printed and not log_lines(printed)
    assert Network.load(out).sha256 == made.sha256


def test_ctrl_c_before_a_checkpoint_and_with_no_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "w.npz"
    interrupting(monkeypatch, 0)
    status, _, err = run([*ARGV, "--out", str(out)], capsys)
    assert status == 130 and "no iteration was finished" in err and not checkpoint_path(out).exists()
    monkeypatch.undo()
    interrupting(monkeypatch, 40)
    status, _, err = run([*ARGV, "--out", str(out), "--no-resume"], capsys)
    assert status == 130 and "holds 40 of 60 games: the same command without --no-resume resumes it" in err


def test_a_ctrl_c_while_a_checkpoint_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # the checkpoint is written whole, then the interrupt ends the command as any Ctrl-C does (not with the
    # traceback of a half-closed archive), and the note says what the file holds
    real, checkpoints = np.savez, []

    def savez(file: Any, **arrays: Any) -> None:
        if ".checkpoint.npz" in str(getattr(file, "name", "")):
            checkpoints.append(file)
            if len(checkpoints) == 2:  # the user's Ctrl-C, while the checkpoint of 40 games is written
                signal.raise_signal(signal.SIGINT)
        real(file, **arrays)

    before = signal.signal(signal.SIGINT, signal.default_int_handler)  # as in an interactive program
    try:
        monkeypatch.setattr(np, "savez", savez)
        out = tmp_path / "w.npz"
        status, _, err = run([*ARGV, "--out", str(out)], capsys)
    finally:
        signal.signal(signal.SIGINT, before)
    assert status == 130 and len(checkpoints) == 2, err
    assert f"the checkpoint {checkpoint_path(out)} holds 40 of 60 games" in err and "Traceback" not in err
    assert games_of(checkpoint_path(out)) == 40 and not list(tmp_path.glob("*.tmp"))


def interruptible() -> None:
    # a suite started in the background of a non-interactive shell ignores SIGINT, and so would the child
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.fixture()
def endless(tmp_path: Path) -> Iterator[list[str]]:
    """The command line of a training too long to finish during a test, run as a program."""
    argv = [sys.executable, "-m", "nardy_fast", "train", "--variant", "short", "--games", "1000000"]
    yield [*argv, "--seed=3", "--hidden=8", "--batch=20", "--eval-every=0", "--out", str(tmp_path / "w.npz")]


def wait_for(condition: Any, process: subprocess.Popen[str], seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def games_of(check: Path) -> int:
    with np.load(check, allow_pickle=False) as archive:
        done: int = json.loads(str(archive["meta"]))["done"]
    return done


def test_a_real_ctrl_c_and_a_killed_process_resume(tmp_path: Path, endless: list[str]) -> None:
    check = checkpoint_path(tmp_path / "w.npz")
    with subprocess.Popen(
        endless, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=interruptible
    ) as process:
        try:
            wait_for(check.exists, process)
            process.send_signal(signal.SIGINT)
            _, err = process.communicate(timeout=120)
        finally:
            process.kill()
    assert process.returncode == 130, err
    saved = games_of(check)
    assert saved >= 20 and saved % 20 == 0
    assert f"the checkpoint {check} holds {saved:,} of 1,000,000 games" in err and err.endswith(
        "interrupted\n"
    )
    # the same command again resumes there; killed (no chance to clean up) it leaves its last checkpoint whole
    with subprocess.Popen(endless, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as process:
        try:
            assert process.stdout is not None
            process.stdout.readline()  # the header
            assert process.stdout.readline().startswith(f"resumed from {check} at {saved:,} games")
            wait_for(lambda: games_of(check) > saved, process)
            process.send_signal(signal.SIGKILL)
            process.communicate(timeout=120)
        finally:
            process.kill()
    killed = games_of(check)
    assert killed > saved and killed % 20 == 0
    # resumed here for 20 more games: the weights of a training of as many games never interrupted
    options: dict[str, Any] = {"seed": 3, "hidden": 8, "batch": 20, "eval_every": 0}
    resumed = train("short", killed + 20, out=tmp_path / "w.npz", **options)
    assert resumed.sha256 == train("short", killed + 20, out=tmp_path / "whole.npz", **options).sha256


# --- bad input ------------------------------------------------------------------------------------------------


def library_message(option: str, **bad: Any) -> str:
    """What ``check_config`` says of the tiny training with ``bad``, the field named by its option."""
    arguments = {"games": GAMES, **OPTIONS, **bad}
    games = arguments.pop("games")
    with pytest.raises(NardyError) as error:
        check_config("short", games, **arguments)
    field, problem = str(error.value).split(": ", 1)
    assert field == option.removeprefix("--").replace("-", "_")
    return f"{option}: {problem}"


LIBRARY_CHECKED = [
    ("--games", 0),
    ("--hidden", 0),
    ("--hidden", 513),
    ("--lam", -0.1),
    ("--lam", 1.5),
    ("--rate", 0),
    ("--rate", 2),
    ("--batch", 0),
    ("--minibatch", 0),
    ("--epochs", 0),
    ("--eval-every", -1),
    ("--eval-games", 21),
    ("--eval-games", 0),
    ("--threads", 0),
    ("--seed", -1),
    ("--seed", 1 << 64),
    ("--target-plies", 0),
    ("--target-plies", 3),
]


@pytest.mark.parametrize(("option", "value"), LIBRARY_CHECKED)
def test_arguments_out_of_range_get_the_library_message(
    option: str, value: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = library_message(option, **{option.removeprefix("--").replace("-", "_"): value})
    status, printed, err = run([*ARGV, "--out", str(tmp_path / "w.npz"), option, str(value)], capsys)
    assert (status, printed, err) == (2, "", f"nardy-fast: error: {expected}\n")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--games", "x"], "--games: must be an integer (got 'x')"),
        (["--games", "1.5"], "--games: must be an integer (got '1.5')"),
        (["--lam", "half"], "--lam: must be a number (got 'half')"),
        (["--lam", "nan"], "--lam: must be in [0, 1] (got nan)"),
        (["--variant", "chess"], "--variant: must be one of "),
        (["--targets", "rollout"], "--targets: must be one of "),
        (["--colour", "white"], "--colour: unknown option of train (got '--colour')"),
        (["--scheduler", "nonsense"], "--scheduler: cannot connect ("),
    ],
)
def test_bad_words_are_refused(
    extra: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, printed, err = run([*ARGV, "--out", str(tmp_path / "w.npz"), *extra], capsys)
    assert (status, printed) == (2, "") and err.startswith(f"nardy-fast: error: {message}"), err
    assert err.count("\n") == 1 and list(tmp_path.iterdir()) == []


def test_required_options(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(ARGV, capsys)
    assert (status, err) == (2, "nardy-fast: error: --out: required\n")
    status, _, err = run(["train", "--variant", "long", "--out", "w.npz"], capsys)
    assert (status, err) == (2, "nardy-fast: error: --games: required\n")


def test_an_output_that_cannot_be_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, printed, err = run([*ARGV, "--out", str(tmp_path)], capsys)
    assert (status, printed, err) == (
        2,
        "",
        f"nardy-fast: error: --out: is a directory (got {str(tmp_path)!r})\n",
    )
    status, printed, err = run([*ARGV, "--out", str(tmp_path / "no" / "w.npz")], capsys)
    assert (status, printed) == (2, "") and err.startswith("nardy-fast: error: --out: cannot be written")


def test_a_checkpoint_of_another_training(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "w.npz"
    assert run([*ARGV, "--games", "20", "--out", str(out)], capsys)[0] == 0
    status, printed, err = run([*ARGV, "--out", str(out), "--hidden", "4"], capsys)
    assert (status, printed) == (2, "")
    assert err.startswith("nardy-fast: error: --out: checkpoint: of another network shape (hidden 8, not 4)")
    assert err.endswith("; --no-resume starts afresh, overwriting it\n")
    status, printed, _ = run(
        [*ARGV, "--games", "20", "--out", str(out), "--hidden", "4", "--no-resume"], capsys
    )
    assert status == 0 and Network.load(out).hidden == 4


@pytest.mark.skipif(nardy_fast.IMPLEMENTATION == "python", reason="search trainings on the reference take minutes")
def test_search_targets_from_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    options: dict[str, Any] = {"seed": 3, "hidden": 4, "batch": 2, "eval_every": 0, "targets": "search", "target_plies": 1}
    made = train("short", 4, out=tmp_path / "library.npz", **options)
    out = tmp_path / "w.npz"
    argv = ["train", "--variant", "short", "--games", "4", "--out", str(out), "--seed", "3", "--hidden", "4"]
    status, printed, _ = run([*argv, "--batch", "2", "--eval-every", "0", "--targets", "search"], capsys)
    assert status == 0 and ", targets: 1-ply search, " in printed.splitlines()[0]
    network = Network.load(out)
    assert network.sha256 == made.sha256
    assert (network.training["targets"], network.training["target_plies"]) == ("search", 1)
    assert "--targets search" in network.training["command"]
    status, printed, err = run([*argv, "--batch", "2", "--targets", "search", "--target-plies", "2"], capsys)
    assert (status, printed) == (2, "")
    assert "checkpoint: made with another target_plies (target_plies 1, not 2)" in err


# --- Dask and help -------------------------------------------------------------------------------------------


def test_the_games_on_a_dask_scheduler_make_the_same_weights(
    tmp_path: Path, made: Network, capsys: pytest.CaptureFixture[str]
) -> None:
    distributed = pytest.importorskip(
        "distributed", reason="Dask's distributed scheduler (the dask extra) is absent"
    )
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        argv = [*ARGV, "--out", str(tmp_path / "w.npz"), "--scheduler", cluster.scheduler_address]
        status, printed, _ = run(argv, capsys)
    assert status == 0 and f"on the Dask scheduler {cluster.scheduler_address}" in printed.splitlines()[0]
    assert Network.load(tmp_path / "w.npz").sha256 == made.sha256


def test_train_explains_itself(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["train", "--help"])
    assert exit_.value.code == 0
    text = capsys.readouterr().out
    assert text.startswith("usage: nardy-fast train ") and "print" in text.split("options:")[0]
    parser, subparsers = cli._parser()
    assert "  train " in (parser.description or "")
    for action in subparsers["train"]._actions:
        assert action.help and len(action.help) > 10, action.option_strings
    # the defaults shown are the library's
    defaults = check_config("long", 1)
    for option, field in (
        ("--hidden", "hidden"),
        ("--lam", "lam"),
        ("--batch", "batch"),
        ("--eval-games", "eval_games"),
    ):
        assert subparsers["train"].get_default(option.removeprefix("--").replace("-", "_")) == getattr(
            defaults, field
        )
