"""The small frictions of the first hour (issue 41, item 5).

Checked here:

1. ``nardy-fast --version`` (and ``python -m nardy_fast --version``) prints the package's version and exits
   with status 0, and the help says so;
2. the help names the default evaluator, ``net``, and says what it is;
3. the progress bar's time left is steady: perft's first moves take very different times, so that the rate
   over the whole run swings, but the time left shown changes by a bounded factor a second;
4. the percent of the main job's progress line (the bench) never goes back, whatever the estimates do;
5. a training on ``threads`` threads runs NumPy's BLAS on at most that many, and puts its count back after;
6. the README's install section says how to avoid importing the clone's folder as a namespace package.
"""

from __future__ import annotations

import io
import math
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import nardy_fast
from nardy_fast import bench
from nardy_fast.cli import main
from nardy_fast.cli.progress import Progress
from nardy_fast.training import blas, trainer

README = Path(__file__).resolve().parent.parent / "README.md"


class FakeClock:
    """A clock that stands still until told: ``now`` seconds."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


# --- 1. --version --------------------------------------------------------------------------------------------


def test_version_prints_the_version_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    out, err = capsys.readouterr()
    assert exit_.value.code == 0 and (out, err) == (f"nardy-fast {nardy_fast.__version__}\n", "")


def test_python_m_nardy_fast_version() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "nardy_fast", "--version"], capture_output=True, text=True, timeout=120
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, f"nardy-fast {nardy_fast.__version__}\n", "")


def test_help_says_what_is_new(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    text = capsys.readouterr().out
    assert "--version" in text
    # 2. the default evaluator named, and what it is
    assert re.search(r"net\b[^.]*default", text) and "network" in text, text


# --- 3. a steady time left -------------------------------------------------------------------------------------


def _left(line: str) -> float:
    """The seconds of a bar's ``ETA h:mm:ss`` (``inf`` for ``?``)."""
    text = line.rsplit("ETA ", 1)[1].split()[0]
    if text == "?":
        return math.inf
    seconds = 0
    for part in text.split(":"):
        seconds = 60 * seconds + int(part)
    return float(seconds)


def test_the_time_left_is_steady_while_perft_counts() -> None:
    """Perft's first moves take very different times: the first part of the first move is counted at once,
    then nothing moves for seconds, then a large part at once. The time left from the rate over the whole
    run doubles within two seconds and then drops fifteenfold; the bar's changes by a bounded factor."""
    clock, stream = FakeClock(), io.StringIO()
    progress = Progress(20, stream, "first moves", clock=clock)
    # (seconds, first moves done) as perft's bar is told them (and redrawn by the ticker in between)
    steps = [(2.0, 0.05), (3.0, 0.05), (4.0, 0.05), (5.0, 1.0), (6.0, 1.0), (7.0, 2.0), (8.0, 2.0)]
    whole_run = [t * (20 - done) / done for t, done in steps]
    assert whole_run[2] / whole_run[0] > 1.9 and whole_run[2] / whole_run[3] > 15  # the old formula's swings
    shown = []
    for t, done in steps:
        clock.now = t
        progress.update(done)
        shown.append(_left(stream.getvalue().rsplit("\r", 1)[1]))
    for (t0, _), (t1, _), a, b in zip(steps, steps[1:], shown, shown[1:]):
        bound = math.exp((t1 - t0) / 10)  # at most ~10% a second either way
        assert (a - (t1 - t0) - 1) / bound <= b <= (a + 1) * bound, shown
    clock.now = 9.0
    progress.update(20)
    assert _left(stream.getvalue().rsplit("\r", 1)[1]) == 0.0  # done is done


def test_the_time_left_catches_up_with_a_steady_rate() -> None:
    """Damped, not stuck: after a bad first guess, a steady rate brings the time left to the truth."""
    clock, stream = FakeClock(), io.StringIO()
    progress = Progress(1000, stream, "games", clock=clock)
    clock.now = 1.0
    progress.update(1)  # a slow first game: the whole run's rate says 999 s
    for t in range(2, 200):  # then 5 games a second
        clock.now = float(t)
        progress.update(min(1000, 1 + 5 * (t - 1)))
    truth = (1000 - (1 + 5 * 198)) / 5
    assert abs(_left(stream.getvalue().rsplit("\r", 1)[1]) - truth) <= 0.2 * truth + 2


# --- 4. the main job's percent ------------------------------------------------------------------------------


def test_the_main_jobs_percent_never_goes_back() -> None:
    clock, lines = FakeClock(), list[str]()
    tracker = bench.Tracker(lines.append, clock=clock)
    tracker.plan([("a", 10.0), ("b", 10.0)])
    tracker.begin("a")
    clock.now = 10.0
    tracker("a runs")  # 10 s of about 20: 50%
    tracker.expect(30.0)  # its runs measured say much more is left: 13 s of about 50 would be 26%
    clock.now = 13.0
    tracker("a still runs")
    clock.now = 50.0
    tracker("a nearly done")
    percents = [int(line[1:4]) for line in lines]
    assert percents[0] == 50 and percents == sorted(percents) and percents[-1] > 50, lines
    assert "about 0:37 left" in lines[1]  # the time left is the estimate's, only the percent holds


# --- 5. BLAS threads ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("threads", [1, 2])
def test_training_runs_blas_on_its_threads(
    threads: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``nardy-fast train --threads T``: NumPy's OpenBLAS runs Adam's products on at most T threads (a count
    read from the library, not a timing), and has its own count back after the training."""
    libraries = blas.openblas_threads()
    if not libraries:
        pytest.skip("no OpenBLAS loaded by NumPy here")
    get, put = libraries[0]
    before = get()
    learn = trainer._learn
    seen: list[int] = []

    def watched(*args: Any, **kwargs: Any) -> float:
        seen.append(get())
        return learn(*args, **kwargs)

    monkeypatch.setattr(trainer, "_learn", watched)
    put(3)  # as on a machine of three cores or more, whatever OPENBLAS_NUM_THREADS says here
    try:
        argv = ["train", "--variant", "long", "--games", "4", "--batch", "2", "--hidden", "4"]
        status = main(
            [*argv, "--eval-every", "0", "--threads", str(threads), "--out", str(tmp_path / "w.npz")]
        )
        after = get()
    finally:
        put(before)
    assert status == 0, capsys.readouterr()
    assert seen == [threads, threads] and after == 3


def test_train_help_says_threads_bound_blas(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["train", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert re.search(r"--threads T +threads the self-play games are played on, and [^(]*\(BLAS\)", text), text


@pytest.mark.skipif(not os.path.exists("/proc/self/maps"), reason="no /proc: OpenBLAS is not looked for")
def test_openblas_is_found_where_numpy_loaded_it() -> None:
    import numpy as np

    try:
        config = np.show_config(mode="dicts")
    except TypeError:  # an older NumPy: its configuration only printed
        pytest.skip("NumPy too old to say its BLAS")
    name = str(config.get("Build Dependencies", {}).get("blas", {}).get("name", ""))
    if "openblas" not in name:
        pytest.skip(f"NumPy's BLAS here is {name or 'unknown'}")
    assert blas.openblas_threads()


# --- 6. the README -------------------------------------------------------------------------------------------


def test_the_install_section_warns_of_the_namespace_package() -> None:
    text = README.read_text(encoding="utf-8")
    install = text.split("## Install", 1)[1].split("\n## ", 1)[0]
    assert "namespace package" in install and "cannot import name 'Position'" in install
