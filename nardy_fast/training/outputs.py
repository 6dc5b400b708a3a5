"""Where a training writes (docs/rules.md, Training): ``out``, its checkpoint and its log, their names and
the checks made before any game is played, what a checkpoint may hold, and the log's lines.

``out`` is checked writable without writing anything (a probe file would truncate a user's file of its name,
or the file a symlink there points to): a file name, in an existing directory the user may write, the names
of ``out``, its checkpoint and its log each within the bytes a name may have, none an existing file that is
not a regular one (:func:`nardy_fast.files.check_target`). Every file is written by :mod:`nardy_fast.files`;
the log is written again whole with its new line, so that it is never appended through a symlink or to a
FIFO.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from pathlib import Path
from typing import Any, Optional

from ..errors import NardyError, field_error
from ..evaluation.network import MAX_HIDDEN, MAX_INPUTS
from ..files import Member, check_target, write_bytes
from ..inputs import integer

__all__ = [
    "MAX_GAMES",
    "MAX_STEPS",
    "MAX_META_CHARS",
    "checkpoint_path",
    "log_path",
    "out_path",
    "checkpoint_members",
    "checkpoint_counts",
    "checkpoint_log",
    "append_log",
]

#: The most games one training may play.
MAX_GAMES = 1 << 40
#: The most of Adam's steps, or iterations, a checkpoint may count (far past what MAX_GAMES can make).
MAX_STEPS = 1 << 62
#: The most characters of a checkpoint's JSON ``meta`` (its log grows by a line a strength check).
MAX_META_CHARS = 1 << 24


def checkpoint_path(out: Path) -> Path:
    """Where the checkpoint of a training to ``out`` is kept."""
    return Path(f"{os.fspath(out)}.checkpoint.npz")


def log_path(out: Path) -> Path:
    """Where the log of a training to ``out`` is written."""
    return Path(f"{os.fspath(out)}.log.jsonl")


def out_path(out: object) -> Path:
    """``out`` as a path a training can write with its checkpoint and log (the module docstring), checked
    without writing anything: a probe file would truncate a user's file of its name, or the file a symlink
    there points to."""
    try:
        text = os.fspath(out)  # type: ignore[call-overload]
        path = Path(text)
    except TypeError:
        raise field_error(NardyError, "out", "must be a path", out) from None
    if text in ("", ".", "..") or path.name in ("", ".", "..") or text.endswith(("/", os.sep)):
        raise field_error(NardyError, "out", "is not a file name", text)
    with contextlib.suppress(OSError):
        if stat.S_ISDIR(os.lstat(path).st_mode):
            raise field_error(NardyError, "out", "is a directory", str(path))
    directory = path.parent
    try:
        for target in (path, checkpoint_path(path), log_path(path)):
            check_target(target, "out")
        if not directory.is_dir():
            raise FileNotFoundError(2, os.strerror(2))
        if not os.access(directory, os.W_OK | os.X_OK):
            raise PermissionError(13, os.strerror(13))
    except (OSError, ValueError) as error:
        if isinstance(error, NardyError):
            raise
        reason = error.strerror if isinstance(error, OSError) else str(error)
        raise field_error(NardyError, "out", f"cannot be written ({reason})", str(path)) from None
    return path


def checkpoint_members() -> dict[str, Member]:
    """What a checkpoint holds (``read_npz``): real arrays of at most a network's size (their exact shapes
    and float32 checked after), and ``meta``."""
    members = {"meta": Member("U", 4 * MAX_META_CHARS, 1, shape=())}
    for key in ("w1", "b1", "w2", "b2"):
        for prefix in ("", "m_", "v_"):
            # any network's size: a checkpoint of another shape is named as such once its meta is read
            members[prefix + key] = Member("f", 8, MAX_INPUTS * MAX_HIDDEN)
    return members


def checkpoint_counts(meta: dict[str, Any]) -> Optional[tuple[int, int, int, float]]:
    """A checkpoint's games done, Adam's steps, iterations and seconds, or None when one is not a count (or
    a time) within bounds."""
    counts = [integer(meta["done"]), integer(meta["step"]), integer(meta.get("iterations", 0))]
    if any(c is None or not 0 <= c <= bound for c, bound in zip(counts, (MAX_GAMES, MAX_STEPS, MAX_STEPS))):
        return None
    seconds = meta["seconds"]
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 <= seconds < 1e15:
        return None
    done, step, iterations = (int(c) for c in counts)  # type: ignore[arg-type]
    return done, step, iterations, float(seconds)


def checkpoint_log(log: object) -> Optional[list[dict[str, Any]]]:
    """A checkpoint's log when it is a list of strength checks (dicts of numbers), else None."""
    if not isinstance(log, list):
        return None
    for entry in log:
        if not isinstance(entry, dict) or not all(isinstance(v, (int, float)) for v in entry.values()):
            return None
    return log


def append_log(target: Path, entry: dict[str, Any]) -> None:
    """Add ``entry`` to the log as a line: the file written again whole, with the lines it had (a log that
    was removed, or never was, starts with this one)."""
    path = log_path(target)
    try:
        try:
            old = path.read_bytes() if os.path.isfile(path) and not os.path.islink(path) else b""
        except FileNotFoundError:
            old = b""
        write_bytes(path, old + (json.dumps(entry) + "\n").encode())
    except OSError as error:
        raise field_error(NardyError, "out", f"cannot be written ({error.strerror})", str(path)) from None
