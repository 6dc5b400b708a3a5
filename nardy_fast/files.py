"""Files the package writes and reads for its users (network weights, training checkpoints and logs, bear-off
caches, the corpus): one writer and one archive reader, so that no file is half written, no file but the
package's own is touched, and no file read costs more than what it may hold.

Writing (:func:`write_file`, :func:`write_npz`, :func:`write_bytes`):

- A target that exists and is not a regular file (a directory, FIFO, socket, device node or symlink) is
  refused with a :class:`~nardy_fast.NardyError` naming the caller's field, and left as it is: renaming over
  a device would replace it (as root, ``/dev/null``), and a symlink is neither written through (that writes
  another file than the one named) nor replaced (that silently cuts the user's link). A name longer than
  the file system allows (``PC_NAME_MAX``, else 255), measured in bytes, is refused the same way.
- The file is written to a temporary file of the writer's own, created exclusively (``O_EXCL``) beside the
  target, and renamed over it, so a reader (or a killed writer) sees the old file or the new one, never half
  of one. Its name is the target's cut, in bytes and at a character's end, so that it fits however long the
  target's name is, then ``.nardy-<12 hex digits>.tmp``; it has the permissions the user's umask gives.
- The writer holds an exclusive ``flock`` on its temporary file until the file is renamed or removed. A
  writer killed (SIGKILL, out of memory) leaves its temporary file behind, but not its lock: each write
  first looks in the target's directory for temporary files of that target's pattern and removes those it
  can lock, which are dead writers' (a live writer's lock keeps its own). A writer that finds its new file
  removed that way before it took the lock starts again with another name. Where ``fcntl`` does not exist
  (Windows), no file is locked and none is removed.
- A Ctrl-C that arrives while the file is written is held until the file is whole, then raised: the writers
  below (NumPy's ``savez`` and ``zipfile``) would otherwise turn the interrupt into a ``ValueError`` from a
  half-closed archive and end a program that asked to be interrupted with an unrelated traceback.
- The check of the target and the rename are two steps: a special file made at the target between them is
  replaced (POSIX has no rename that replaces regular files only). Failures of the system (a full disk, a
  missing directory) are raised as ``OSError`` for the caller to name; nothing is left behind.

Reading (:func:`read_npz`): only the members asked for are read, each ``.npy`` header's dtype and shape are
checked against the member's bounds, and the member's size against what they need, before any data is
allocated or inflated; members not asked for are never decompressed. Every failure of zipfile, zlib or
NumPy's header parser is the caller's :class:`~nardy_fast.NardyError`. :func:`parse_json` reads a file's
JSON with no number a count cannot be (past 2**64, or not finite).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import secrets
import signal
import stat
import tokenize
import zipfile
import zlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import IO, Any, Optional

import numpy as np
import numpy.typing as npt
from numpy.lib import format as npy_format

from .errors import NardyError, field_error

try:
    import fcntl
except ImportError:  # Windows: no locks, so no dead writers' files are recognised
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "interrupts_held",
    "write_file",
    "write_npz",
    "write_bytes",
    "check_target",
    "name_max",
    "Member",
    "read_npz",
    "parse_json",
    "MAX_JSON_INT",
]

#: What a temporary file's name ends with, after the target's name (cut) and a dot.
_TEMPORARY = re.compile(r"\.nardy-[0-9a-f]{12}\.tmp")
_TEMPORARY_LENGTH = len(".nardy-") + 12 + len(".tmp")
#: A name's most bytes where the file system does not say.
DEFAULT_NAME_MAX = 255
#: The largest magnitude of an integer :func:`parse_json` takes (seeds are up to 2**64 - 1).
MAX_JSON_INT = 1 << 64
#: The most bytes of a ``.npy`` header (NumPy's own default bound).
_HEADER_MAX = 10_000


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


def name_max(directory: Path) -> int:
    """The most bytes a name may have in ``directory`` (255 where the system does not say)."""
    try:
        return int(os.pathconf(os.fspath(directory) or ".", "PC_NAME_MAX"))
    except (OSError, ValueError, AttributeError):  # no such directory, no pathconf (Windows)
        return DEFAULT_NAME_MAX


def _kind(mode: int) -> str:
    kinds = (
        (stat.S_ISDIR, "Is a directory"),  # as the system says it (os.strerror(EISDIR))
        (stat.S_ISLNK, "is a symlink"),
        (stat.S_ISFIFO, "is a FIFO"),
        (stat.S_ISSOCK, "is a socket"),
        (stat.S_ISCHR, "is a device"),
        (stat.S_ISBLK, "is a device"),
    )
    for test, kind in kinds:
        if test(mode):
            return kind
    return "is not a regular file"


def check_target(path: Path, field: str) -> None:
    """Refuse (a :class:`~nardy_fast.NardyError` naming ``field``) a ``path`` the writer would not write: no
    file name, a name longer than its directory allows, or an existing file that is not a regular one (the
    module docstring). An ``OSError`` of the system (a directory that is a file) is raised as it is."""
    name = path.name
    if name in ("", ".", ".."):
        raise field_error(NardyError, field, "cannot be written (Is a directory)", str(path))
    size, most = len(os.fsencode(name)), name_max(path.parent)
    if size > most:
        problem = f"cannot be written (its name is {size} bytes, more than {most})"
        raise field_error(NardyError, field, problem, str(path))
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISREG(mode):
        raise field_error(NardyError, field, f"cannot be written ({_kind(mode)})", str(path))


def _cut(name: str, limit: int) -> str:
    """``name``'s first characters, as many as fit in ``limit`` bytes."""
    size = 0
    for at, letter in enumerate(name):
        size += len(os.fsencode(letter))
        if size > limit:
            return name[:at]
    return name


def _remove_dead(directory: Path, prefix: str) -> None:
    """Remove the temporary files named ``prefix`` + the pattern in ``directory`` whose writers are dead (the
    module docstring): those that can be locked."""
    if fcntl is None:
        return
    pattern = re.compile(re.escape(prefix) + _TEMPORARY.pattern)
    with contextlib.suppress(OSError), os.scandir(os.fspath(directory) or ".") as entries:
        for entry in entries:
            if pattern.fullmatch(entry.name) is None:
                continue
            try:
                fd = os.open(entry.path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
            except OSError:
                continue
            try:
                found = os.fstat(fd)
                if stat.S_ISREG(found.st_mode):
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # raises while its writer lives
                    now = os.lstat(entry.path)
                    if (now.st_dev, now.st_ino) == (found.st_dev, found.st_ino):
                        os.unlink(entry.path)
            except OSError:
                pass
            finally:
                os.close(fd)


def _create(target: Path, prefix: str) -> tuple[int, Path]:
    """A new temporary file for ``target``, open for writing and locked: its descriptor and path."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        temporary = target.with_name(f"{prefix}.nardy-{secrets.token_hex(6)}.tmp")
        fd = os.open(temporary, flags, 0o666)  # the umask's permissions, as open() gives
        if fcntl is None:
            return fd, temporary
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            if os.fstat(fd).st_nlink > 0:
                return fd, temporary
        except BaseException:
            os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
        os.close(fd)  # another write took it for a dead writer's in the instant before the lock: a new one
    raise FileExistsError(f"no temporary file could be kept beside {target}")


def write_file(path: Path, write: Callable[[IO[bytes]], None], field: str = "out") -> None:
    """Write ``path`` by ``write(file)``, whole or not at all (the module docstring): a target that is not a
    regular file is refused naming ``field``; an ``OSError`` (or ``write``'s own error) is raised with no
    temporary file left behind, a Ctrl-C held until the file is written."""
    target = Path(path)
    check_target(target, field)
    prefix = _cut(target.name, name_max(target.parent) - _TEMPORARY_LENGTH)
    with interrupts_held():
        _remove_dead(target.parent, prefix)
        fd, temporary = _create(target, prefix)
        try:
            # open() over the descriptor made above: the file object is named by its path (as a writer may
            # report), and the lock lasts until the file is renamed
            with open(temporary, "wb", opener=lambda _path, _flags: fd) as out:
                write(out)
                out.flush()
                check_target(target, field)  # made special since the first check: refused still
                os.replace(temporary, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise


def write_npz(path: Path, arrays: Mapping[str, Any], compressed: bool = False, field: str = "out") -> None:
    """Write ``arrays`` to ``path`` as ``.npz`` (``np.savez``, or ``np.savez_compressed``) by
    :func:`write_file`."""
    save = np.savez_compressed if compressed else np.savez
    write_file(path, lambda out: save(out, **arrays), field)


def write_bytes(path: Path, data: bytes, field: str = "out") -> None:
    """Write ``data`` to ``path`` by :func:`write_file`."""
    def put(out: IO[bytes]) -> None:
        out.write(data)

    write_file(path, put, field)


@dataclass(frozen=True)
class Member:
    """What a member of an archive may be: its dtype's ``kinds`` (NumPy's letters: ``"f"`` floats, ``"U"``
    text), the most bytes an element has, the most elements, its exact ``shape`` when known, and whether the
    archive must have it (a missing optional member is left out of :func:`read_npz`'s answer)."""

    kinds: str
    itemsize: int
    size: int
    shape: Optional[tuple[int, ...]] = None
    required: bool = True

    @property
    def most(self) -> int:
        """The most bytes the member's ``.npy`` can have."""
        return _HEADER_MAX + 16 + self.itemsize * self.size


class _BadArchiveError(ValueError):
    """An archive that is not what it should be (the message says how)."""


#: What zipfile, zlib, NumPy's header parser and the checks below raise for a damaged archive.
_DECODING = (
    OSError, ValueError, EOFError, KeyError, TypeError, RuntimeError, SyntaxError, MemoryError, OverflowError,
    zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, tokenize.TokenError,
)


def _read_member(archive: zipfile.ZipFile, name: str, member: Member) -> Optional[npt.NDArray[Any]]:
    try:
        info = archive.getinfo(name + ".npy")
    except KeyError:
        if member.required:
            raise _BadArchiveError(f"no {name}") from None
        return None
    if info.file_size > member.most:
        raise _BadArchiveError(f"{name} is {info.file_size} bytes, more than {member.most}")
    with archive.open(info) as handle:
        version = npy_format.read_magic(handle)
        if version == (1, 0):
            shape, fortran, dtype = npy_format.read_array_header_1_0(handle, max_header_size=_HEADER_MAX)
        elif version == (2, 0):
            shape, fortran, dtype = npy_format.read_array_header_2_0(handle, max_header_size=_HEADER_MAX)
        else:
            raise _BadArchiveError(f"{name} is in .npy format {version}, not read")
        plain = not dtype.hasobject and dtype.names is None and dtype.subdtype is None
        if not plain or dtype.kind not in member.kinds or not 0 < dtype.itemsize <= member.itemsize:
            raise _BadArchiveError(f"{name} is of type {dtype.str}")
        count = math.prod(int(n) for n in shape)
        if (member.shape is not None and tuple(shape) != member.shape) or count > member.size:
            raise _BadArchiveError(f"{name} has shape {tuple(shape)}")
        need = count * dtype.itemsize
        if info.file_size != handle.tell() + need:
            raise _BadArchiveError(f"{name} has {info.file_size - handle.tell()} bytes of data, not {need}")
        data = bytearray(need)
        view, done = memoryview(data), 0
        while done < need:
            chunk = handle.read(min(need - done, 1 << 20))
            if not chunk:
                raise _BadArchiveError(f"{name} is cut short")
            view[done : done + len(chunk)] = chunk
            done += len(chunk)
        if handle.read(1):  # at its end, zipfile checks the member's CRC
            raise _BadArchiveError(f"{name} is longer than its shape")
    array = np.frombuffer(data, dtype=dtype, count=count)
    return array.reshape(shape, order="F" if fortran else "C")


def read_npz(
    path: object, field: str, problem: str, members: Mapping[str, Member]
) -> dict[str, npt.NDArray[Any]]:
    """The ``members`` of the ``.npz`` archive at ``path`` (the module docstring), each checked against its
    :class:`Member` before it is read: a missing file is ``<field>: no such file``, any other failure
    ``<field>: <problem> (<what is wrong>)``, quoting the path."""
    where = os.fspath(path)  # type: ignore[call-overload]
    most = sum(member.most + 1024 for member in members.values()) + (1 << 20)
    try:
        fd = os.open(where, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise field_error(NardyError, field, "no such file", str(where)) from None
    except (OSError, ValueError) as error:
        reason = error.strerror if isinstance(error, OSError) else str(error)
        raise field_error(NardyError, field, f"{problem} ({reason})", str(where)) from None
    try:
        with os.fdopen(fd, "rb") as handle:
            found = os.fstat(handle.fileno())
            if not stat.S_ISREG(found.st_mode):  # a FIFO would never end, a device never be a file
                raise _BadArchiveError(_kind(found.st_mode).lower())
            if found.st_size > most:
                raise _BadArchiveError(f"{found.st_size} bytes, more than such a file has ({most})")
            with zipfile.ZipFile(handle) as archive:
                read = {name: _read_member(archive, name, member) for name, member in members.items()}
    except _DECODING as error:
        raise field_error(NardyError, field, f"{problem} ({error})", str(where)) from None
    return {name: array for name, array in read.items() if array is not None}


def _json_int(text: str) -> int:
    if len(text) > 22 or abs(number := int(text)) >= MAX_JSON_INT:
        raise ValueError(f"a number past 2**64 ({text[:30]}...)")
    return number


def _json_float(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise ValueError(f"a number past a float's range ({text[:30]})")
    return number


def _json_constant(text: str) -> None:
    raise ValueError(f"{text} is not a number JSON allows")


def parse_json(text: str) -> Any:
    """``json.loads(text)`` of a file's JSON, with integers within +-2**64, finite floats and no ``NaN`` or
    ``Infinity``; nesting too deep for the parser is a ``ValueError`` too."""
    try:
        return json.loads(text, parse_int=_json_int, parse_float=_json_float, parse_constant=_json_constant)
    except RecursionError:
        raise ValueError("JSON nested too deep") from None
