"""A Python child process interrupted as a user would with Ctrl-C, for the tests that Ctrl-C stops long runs
(playouts, duels) promptly and cleanly."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from typing import Optional


def _interruptible() -> None:
    # a suite started in the background of a non-interactive shell ignores SIGINT, and so would the child
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def interrupted_child(
    code: str, args: list[str], ready_lines: int, interrupt_after: Optional[float], bound: float
) -> tuple[list[str], str, str, int, float]:
    """Run ``python -c code *args``; once it printed ``ready_lines`` lines (it is playing), wait
    ``interrupt_after`` seconds and send it SIGINT (``None``: no signal). Returns the ready lines, the rest of
    its stdout and its stderr ("" for both when it was still running ``bound + 60`` seconds on: it is then
    killed), its exit status and the seconds from the signal (or the start of play) to its exit."""
    with subprocess.Popen(
        [sys.executable, "-c", code, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_interruptible,
    ) as process:
        try:
            assert process.stdout is not None
            ready = [process.stdout.readline() for _ in range(ready_lines)]
            assert all(ready), process.communicate(timeout=60)[1][-4000:]
            if interrupt_after is not None:
                time.sleep(interrupt_after)
                process.send_signal(signal.SIGINT)
            since = time.perf_counter()
            try:
                out, err = process.communicate(timeout=bound + 60)
            except subprocess.TimeoutExpired:
                out = err = ""
            elapsed = time.perf_counter() - since
        finally:
            process.kill()  # never wait for the whole run
    return ready, out, err, process.returncode, elapsed
