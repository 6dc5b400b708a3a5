"""Match files in and out (docs/rules.md, Match records): ``read_match`` and ``write_match`` over the formats
of :data:`FORMATS`, each a reader of text and a writer of it by name (``"mat"`` and ``"sgf"``; another format
is one module with its ``read`` and ``write`` and one entry here). A file is read whole, no larger than
:data:`MAX_BYTES`, and written through :func:`nardy_fast.files.write_bytes`: never half-written.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import IO, Optional, Union

from .errors import NardyError, field_error
from .files import write_bytes
from .position import Position
from .records import MatchRecord

__all__ = ["read_match", "write_match", "FORMATS", "MAX_BYTES", "SUFFIXES"]

#: The largest match file read (bytes, or characters of a text stream): a bound on the work and memory of a
#: file that is not what it claims.
MAX_BYTES = 64 * 1024 * 1024
#: The file name endings that name a format, for ``format=None``.
SUFFIXES = {".mat": "mat", ".txt": "mat", ".sgf": "sgf"}


def _mat() -> tuple[Callable[[str, Optional[type[Position]]], MatchRecord], Callable[[MatchRecord], str]]:
    from .matfast import read_mat  # matread's reader, with a fast path for the common games
    from .matwrite import write_mat

    return read_mat, write_mat


def _sgf() -> tuple[Callable[[str, Optional[type[Position]]], MatchRecord], Callable[[MatchRecord], str]]:
    from .sgfread import read_sgf
    from .sgfwrite import write_sgf

    return read_sgf, write_sgf


#: Each format's (reader, writer) by name, loaded when used.
FORMATS: dict[str, Callable[[], tuple[Callable[[str, Optional[type[Position]]], MatchRecord],
                                      Callable[[MatchRecord], str]]]] = {"mat": _mat, "sgf": _sgf}

Source = Union[str, "os.PathLike[str]", IO[str], IO[bytes], bytes]


def _format(format: Optional[str], name: Optional[str], text: Optional[str]) -> str:
    if format is not None:
        if format not in FORMATS:
            raise field_error(NardyError, "format", f"must be one of {sorted(FORMATS)}", format)
        return format
    suffix = Path(name).suffix.lower() if name else ""
    if suffix in SUFFIXES:
        return SUFFIXES[suffix]
    if text is not None and text.lstrip("\ufeff \t\r\n").startswith("(;") and "sgf" in FORMATS:
        return "sgf"
    return "mat"  # the reader says where a text is no match file


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")  # older match files name their players in a one-byte code page


def _read_text(source: object) -> tuple[str, Optional[str]]:
    """The text of ``source`` (a path, a binary or text stream, bytes) and its name, within :data:`MAX_BYTES`."""
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        try:
            with open(path, "rb") as stream:
                data = stream.read(MAX_BYTES + 1)
        except OSError as error:
            raise field_error(NardyError, "source", f"cannot be read ({error.strerror})", str(path)) from None
        if len(data) > MAX_BYTES:
            raise field_error(NardyError, "source", f"is larger than {MAX_BYTES} bytes: no match file", str(path))
        return _decode(data), str(path)
    if isinstance(source, (bytes, bytearray)):
        if len(source) > MAX_BYTES:
            raise field_error(NardyError, "source", f"is larger than {MAX_BYTES} bytes: no match file", len(source))
        return _decode(bytes(source)), None
    read = getattr(source, "read", None)
    if not callable(read):
        raise field_error(NardyError, "source", "must be a path, a file object or bytes", source)
    data = read(MAX_BYTES + 1)
    if not isinstance(data, (str, bytes)):
        raise field_error(NardyError, "source", "must read str or bytes", type(data).__name__)
    if len(data) > MAX_BYTES:
        raise field_error(NardyError, "source", f"is larger than {MAX_BYTES} bytes: no match file", len(data))
    name = getattr(source, "name", None)
    return (_decode(data) if isinstance(data, bytes) else data), (name if isinstance(name, str) else None)


def read_match(source: Source, format: Optional[str] = None, *,
               position_class: Optional[type[Position]] = None) -> MatchRecord:
    """The match record in ``source`` (a path, a file object open for reading, or the file's bytes), in
    ``format`` (``"mat"`` or ``"sgf"``; ``None``: by the file's name or its text), every game replayed through
    the rules of ``position_class`` (the package's ``Position`` by default). Anything that is not such a
    match, or a file larger than :data:`MAX_BYTES`, is a :class:`~nardy_fast.NardyError` naming the line and quoting it."""
    text, name = _read_text(source)
    reader, _ = FORMATS[_format(format, name, text)]()
    return reader(text, position_class)


def write_match(record: MatchRecord, path_or_file: Union[str, os.PathLike[str], IO[str], IO[bytes]],
                format: str = "mat") -> None:
    """Write ``record`` to ``path_or_file`` in ``format`` (``"mat"`` or ``"sgf"``): to a path atomically (a
    complete file or none), to a file object in one write, after the whole text is made (an error leaves it
    as it was)."""
    if not isinstance(record, MatchRecord):
        raise field_error(NardyError, "record", "must be a nardy_fast.MatchRecord", record)
    _, writer = FORMATS[_format(format, None, None)]()
    text = writer(record)
    if isinstance(path_or_file, (str, os.PathLike)):
        write_bytes(Path(path_or_file), text.encode("utf-8"), field="path_or_file")
        return
    write = getattr(path_or_file, "write", None)
    if not callable(write):
        raise field_error(NardyError, "path_or_file", "must be a path or a file object open for writing",
                          path_or_file)
    try:
        write(text)
    except TypeError:  # a binary stream
        write(text.encode("utf-8"))
