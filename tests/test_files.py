"""Files written whole or not at all (``nardy_fast.files``): a Ctrl-C that arrives while a file is written is
raised once the file is whole, a failed write leaves the old file and no temporary file, and a written file
has the permissions the user's umask gives, as a file made by ``open`` has.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any, Optional

import numpy as np
import pytest

from nardy_fast.files import interrupts_held, write_npz


@pytest.fixture(autouse=True)
def python_handles_ctrl_c() -> Iterator[None]:
    """Python's own SIGINT handler, as an interactive program has (a suite started in the background of a
    non-interactive shell inherits SIGINT ignored)."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


def test_a_ctrl_c_inside_is_raised_when_the_block_is_done() -> None:
    steps = []
    with pytest.raises(KeyboardInterrupt):
        with interrupts_held():
            signal.raise_signal(signal.SIGINT)
            steps.append("after the signal")
            signal.raise_signal(signal.SIGINT)  # two arrivals make one interrupt
            steps.append("end of the block")
    assert steps == ["after the signal", "end of the block"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_no_ctrl_c_raises_nothing_and_the_handler_is_put_back() -> None:
    with interrupts_held():
        assert signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with pytest.raises(ZeroDivisionError), interrupts_held():
        1 / 0  # noqa: B018
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_programs_own_handler_and_other_threads_are_left_alone() -> None:
    seen: list[int] = []

    def own(signum: int, frame: Optional[FrameType]) -> None:
        seen.append(signum)

    signal.signal(signal.SIGINT, own)
    with interrupts_held():
        assert signal.getsignal(signal.SIGINT) is own
        signal.raise_signal(signal.SIGINT)
        assert seen == [signal.SIGINT]  # handled at once, not held
    signal.signal(signal.SIGINT, signal.default_int_handler)
    handlers: list[Any] = []

    def elsewhere() -> None:
        with interrupts_held():  # signal.signal would raise ValueError off the main thread
            handlers.append(signal.getsignal(signal.SIGINT))

    thread = threading.Thread(target=elsewhere)
    thread.start()
    thread.join()
    assert handlers == [signal.default_int_handler]


def arrays(value: float) -> dict[str, Any]:
    return {"meta": np.array("a file"), "w": np.full((64, 64), value, dtype=np.float32)}


def read(path: Path) -> float:
    with np.load(path, allow_pickle=False) as archive:
        assert str(archive["meta"]) == "a file"
        return float(archive["w"][0, 0])


def test_a_ctrl_c_while_a_file_is_written_leaves_it_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "w.npz"
    write_npz(path, arrays(1.0))
    real = np.savez

    def interrupted(file: Any, **kwargs: Any) -> None:
        signal.raise_signal(signal.SIGINT)  # the user's Ctrl-C, in the middle of the write
        real(file, **kwargs)

    monkeypatch.setattr(np, "savez", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_npz(path, arrays(2.0))
    assert read(path) == 2.0 and os.listdir(tmp_path) == ["w.npz"]


@pytest.mark.parametrize("compressed", [False, True])
def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, compressed: bool
) -> None:
    path = tmp_path / "w.npz"
    write_npz(path, arrays(1.0), compressed)

    def full_disk(file: Any, **kwargs: Any) -> None:
        file.write(b"PK half an archive")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np, "savez_compressed" if compressed else "savez", full_disk)
    with pytest.raises(OSError, match="No space left"):
        write_npz(path, arrays(2.0), compressed)
    assert read(path) == 1.0 and os.listdir(tmp_path) == ["w.npz"]


def test_a_written_file_has_the_permissions_open_gives(tmp_path: Path) -> None:
    made = tmp_path / "made"
    made.write_bytes(b"")
    write_npz(tmp_path / "w.npz", arrays(1.0))
    assert (tmp_path / "w.npz").stat().st_mode == made.stat().st_mode


def test_a_directory_that_cannot_be_written_raises_and_leaves_nothing(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        write_npz(tmp_path / "missing" / "w.npz", arrays(1.0))
    assert os.listdir(tmp_path) == []


def test_a_name_as_long_as_the_system_allows_is_written(tmp_path: Path) -> None:
    path = tmp_path / ("w" * 251 + ".npz")  # 255 bytes, the longest name of most file systems
    write_npz(path, arrays(1.0))
    assert read(path) == 1.0 and os.listdir(tmp_path) == [path.name]
