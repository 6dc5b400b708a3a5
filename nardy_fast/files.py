"""Files the package writes for its users (network weights, training checkpoints, bear-off caches): written
whole or not at all.

A file is written to a temporary file in its directory and renamed over the target, so a reader (or a killed
writer) sees the old file or the new one, never half of one. A Ctrl-C that arrives while the file is written
is held until the file is whole, then raised: the writers below (NumPy's ``savez`` and ``zipfile``) would
otherwise turn the interrupt into a ``ValueError`` from a half-closed archive, leave the temporary file
behind and end a program that asked to be interrupted with an unrelated traceback.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import FrameType
from typing import Any, Optional

import numpy as np

__all__ = ["interrupts_held", "write_npz"]


@contextlib.contextmanager
def interrupts_held() -> Iterator[None]:
    """Hold a SIGINT that arrives inside the block and raise its ``KeyboardInterrupt`` when the block ends.

    Only Python's own SIGINT handler is held, and only on the main thread (the one thread signals reach): a
    handler the program installed itself is left alone, and so are other threads."""
    handler = signal.getsignal(signal.SIGINT)
    if handler is not signal.default_int_handler:
        yield
        return
    arrived: list[tuple[int, Optional[FrameType]]] = []

    def hold(signum: int, frame: Optional[FrameType]) -> None:
        arrived.append((signum, frame))

    try:
        signal.signal(signal.SIGINT, hold)
    except ValueError:  # off the main thread (or in a subinterpreter), where handlers cannot be set
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, handler)
        if arrived:
            signal.default_int_handler(*arrived[0])


def write_npz(path: Path, arrays: Mapping[str, Any], compressed: bool = False) -> None:
    """Write ``arrays`` to ``path`` as ``.npz`` (``np.savez``, or ``np.savez_compressed``), whole or not at
    all, a Ctrl-C held until it is written (the module docstring). An ``OSError`` (or NumPy's ``ValueError``)
    is raised with no temporary file left behind."""
    save = np.savez_compressed if compressed else np.savez
    with interrupts_held():
        # a name of its own for each writer, so that two writing one path never write one temporary file, and
        # short enough for any name the target may have (255 bytes); made by open() rather than mkstemp so that
        # it has the permissions the user's umask gives
        temporary = path.with_name(f"{path.name[:200]}.{secrets.token_hex(6)}.tmp")
        out = open(temporary, "xb")
        try:
            with out:
                save(out, **arrays)
            os.replace(temporary, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
