"""Where bear-off tables live once built: in memory for the life of the process, built once per table however
many threads ask at once and shared by all of them, and optionally on disk under the user's cache directory,
checked against a checksum when read back (a file that does not match is built again and rewritten).

The cache directory is ``$NARDY_FAST_CACHE`` when set, else ``$XDG_CACHE_HOME/nardy_fast``, else
``~/.cache/nardy_fast``. A cache file is read by :func:`nardy_fast.files.read_npz` (its members' exact shapes
checked before they are read) and written by :func:`nardy_fast.files.write_npz`; a file that cannot be read
(damaged, of other shapes, a FIFO) is treated as missing and the table built again, and one that cannot be
written (a directory or a special file in its place) leaves the table uncached.
"""

from __future__ import annotations

import copyreg
import hashlib
import math
import os
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Optional, cast

import numpy as np
import numpy.typing as npt

from ..errors import NardyError, field_error
from ..files import Member, read_npz, write_npz
from ..inputs import boolean
from .layouts import check_checkers, layouts
from .semantics import MAX_TURNS, SEMANTICS, semantics_of
from .tables import (
    TWO_SIDED_CHECKERS,
    CubefulKernel,
    CubefulTwoSided,
    OneSided,
    OneSidedArrays,
    OneSidedKernel,
    TwoSided,
    TwoSidedKernel,
)

__all__ = [
    "cache_directory",
    "one_sided_table",
    "two_sided_table",
    "two_sided_cubeful_table",
    "table_of",
    "FORMAT",
    "ONE_SIDED_DOC",
    "TWO_SIDED_DOC",
    "CUBEFUL_DOC",
]

ONE_SIDED_DOC = """The one-sided bear-off table of ``variant`` under rule ``flags`` (docs/rules.md, Bear-off tables):
for every layout of up to ``checkers`` checkers on the mover's points 1..6, the distribution of the
turns to bear them all off, and the first, under the play that minimises the expected turns of each.
Built on first use (the core: in C, in seconds; the reference: in Python, slowly) and kept for the
life of the process, one table shared by every thread; with ``cache=True`` also kept on disk (see
:mod:`nardy_fast.bearoff.store`). Variants whose bear-offs play alike share a table (long and short;
the flags that cannot matter in a bear-off select the same one)."""

TWO_SIDED_DOC = """The two-sided bear-off table of ``variant`` under rule ``flags`` (docs/rules.md, Bear-off tables):
for both sides with up to ``checkers`` (1..6) checkers on their points 1..6, the exact probability
that the side to move wins, both sides playing to maximise it. Built on first use (the core: in C;
the reference: in Python, fit for up to 3 checkers a side) and kept for the life of the process."""

CUBEFUL_DOC = """The exact money equities of the two-sided bear-offs of ``variant`` under rule ``flags``
(docs/rules.md, The doubling cube): for both sides with up to ``checkers`` (1..6) checkers on their
points 1..6, the equity per unit of the cube of the side to move, before its own cube action, with the
cube centred, its own or the opponent's, both sides playing and doubling to maximise it, as GNU
Backgammon's two-sided database holds them. Built on first use (the core: in C, in about a second for 6
checkers; the reference: in Python, fit for up to 3 or 4 checkers a side) and kept for the life of the
process."""

#: The version of the cache files' contents: a new one never reads an old file.
FORMAT = 1


# Re-entrant locks, so that a gc callback, signal handler or finalizer run on a thread that holds one (and
# asks for a table) is let in and refused rather than waiting for itself for ever.
_LOCKS: dict[tuple[object, ...], threading.RLock] = {}
_BUILT: dict[tuple[object, ...], object] = {}
_BUILDING: set[tuple[object, ...]] = set()
_GUARD = threading.RLock()


def built_once(key: tuple[object, ...], build: Callable[[], object]) -> object:
    """``build()``, called once per ``key`` for the life of the process, however many threads ask at once
    (the others wait for the first and share its result). A call for the table being built, made on the
    building thread itself (by a gc callback, a signal handler or a finalizer run in the middle of the
    build), is a :class:`~nardy_fast.NardyError`: it cannot wait for the build it interrupts."""
    with _GUARD:
        lock = _LOCKS.setdefault(key, threading.RLock())
    with lock:
        if key in _BUILT:
            return _BUILT[key]
        if key in _BUILDING:  # held by this very thread (others wait above): a build interrupted by itself
            problem = "is being built by a call on this thread, which must return first"
            raise field_error(NardyError, "table", problem, key)
        _BUILDING.add(key)
        try:
            _BUILT[key] = build()
        finally:
            _BUILDING.discard(key)
        return _BUILT[key]


def _larger(kind: str, implementation: str, key: str, count: int) -> object:
    """A table of ``kind`` already built for more than ``count`` checkers, or None: its prefix is the
    smaller table (:mod:`nardy_fast.bearoff.layouts`)."""
    with _GUARD:
        found = {k[3]: table for k, table in _BUILT.items() if k[:3] == (kind, implementation, key)}
    larger = [c for c in found if isinstance(c, int) and c > count]
    return found[max(larger)] if larger else None


def cache_directory() -> Path:
    """The directory of cached tables (see the module docstring)."""
    given = os.environ.get("NARDY_FAST_CACHE")
    if given:
        return Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "nardy_fast"


Arrays = tuple[npt.NDArray[np.float64], ...]


def _digest(name: str, arrays: Arrays) -> str:
    """The checksum of a cache file: its name (which says which table it holds) and its arrays."""
    sha = hashlib.sha256(name.encode())
    for array in arrays:
        sha.update(str(array.shape).encode())
        sha.update(np.ascontiguousarray(array, dtype=np.float64).tobytes())
    return sha.hexdigest()


def _read(path: Path, names: tuple[str, ...], shapes: list[tuple[int, ...]]) -> Optional[Arrays]:
    """The arrays of a cache file, or None when it is missing, unreadable, not of the expected ``shapes`` or
    does not match its checksum."""
    members = {name: Member("f", 8, math.prod(shape), shape=shape) for name, shape in zip(names, shapes)}
    members["sha256"] = Member("U", 4 * 64, 1, shape=())
    try:
        data = read_npz(path, "cache", "is not a table", members)
    except NardyError:
        return None
    arrays = tuple(np.array(data[name], dtype=np.float64) for name in names)
    digest = str(data["sha256"])
    if [a.shape for a in arrays] != shapes:
        return None
    return arrays if digest == _digest(path.name, arrays) else None


def _write(path: Path, names: tuple[str, ...], arrays: Arrays) -> None:
    """Write a cache file atomically (a reader never sees half of one); a directory that cannot be written is
    no error: the table is simply not cached."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        arrays_of = {"sha256": np.array(_digest(path.name, arrays)), **dict(zip(names, arrays))}
        write_npz(path, arrays_of, field="cache")
    except (OSError, NardyError):  # NardyError: a directory or a special file where the file would be
        pass


def _cache_flag(cache: object) -> bool:
    flag = boolean(cache)
    if flag is None:
        raise field_error(NardyError, "cache", "must be True or False", cache)
    return flag


def one_sided_table(
    implementation: str, kernel: OneSidedKernel, variant: object, checkers: object, cache: object, flags: Mapping[str, object]
) -> OneSided:
    """The one-sided table of ``variant`` with rule ``flags`` from an implementation's ``kernel``: built once
    per process, and read from or written to the disk cache when ``cache`` is true."""
    semantics = semantics_of(variant, flags)
    count = check_checkers(checkers)
    use_cache = _cache_flag(cache)
    names = OneSidedArrays._fields

    def build() -> OneSided:
        larger = _larger("one_sided", implementation, semantics.key, count)
        if isinstance(larger, OneSided):
            n = layouts(count)
            return OneSided(semantics, count, OneSidedArrays(*(a[:n] for a in larger.arrays)), implementation)
        path = cache_directory() / f"one_sided-{implementation}-{semantics.key}-{count}-v{FORMAT}.npz"
        n = layouts(count)
        found = _read(path, names, [(n,), (n, MAX_TURNS + 1)] * 2) if use_cache else None
        if found is None:
            arrays = kernel(semantics, count)
            if use_cache:
                _write(path, names, tuple(arrays))
        else:
            arrays = OneSidedArrays(*found)
        return OneSided(semantics, count, arrays, implementation)

    table = built_once(("one_sided", implementation, semantics.key, count), build)
    assert isinstance(table, OneSided)
    return table


def two_sided_table(
    implementation: str, kernel: TwoSidedKernel, variant: object, checkers: object, flags: Mapping[str, object]
) -> TwoSided:
    """The two-sided table of ``variant`` with rule ``flags`` from an implementation's ``kernel``, built once
    per process."""
    semantics = semantics_of(variant, flags)
    count = check_checkers(checkers, 1, TWO_SIDED_CHECKERS)

    def build() -> TwoSided:
        larger = _larger("two_sided", implementation, semantics.key, count)
        if isinstance(larger, TwoSided):
            n = layouts(count)
            return TwoSided(semantics, count, larger.win[:n, :n], implementation)
        return TwoSided(semantics, count, kernel(semantics, count), implementation)

    table = built_once(("two_sided", implementation, semantics.key, count), build)
    assert isinstance(table, TwoSided)
    return table


def two_sided_cubeful_table(
    implementation: str, kernel: CubefulKernel, variant: object, checkers: object, flags: Mapping[str, object]
) -> CubefulTwoSided:
    """The cubeful two-sided table of ``variant`` with rule ``flags`` from an implementation's ``kernel``,
    built once per process (a larger one already built gives it as its prefix)."""
    semantics = semantics_of(variant, flags)
    count = check_checkers(checkers, 1, TWO_SIDED_CHECKERS)

    def build() -> CubefulTwoSided:
        larger = _larger("two_sided_cubeful", implementation, semantics.key, count)
        if isinstance(larger, CubefulTwoSided):
            n = layouts(count)
            return CubefulTwoSided(semantics, count, larger.values[:, :n, :n], implementation)
        return CubefulTwoSided(semantics, count, kernel(semantics, count), implementation)

    table = built_once(("two_sided_cubeful", implementation, semantics.key, count), build)
    assert isinstance(table, CubefulTwoSided)
    return table


def table_of(kind: object, implementation: object, key: object, checkers: object) -> object:
    """The table a pickle names (``OneSided``/``TwoSided`` pickle as their kind, implementation, table key and
    checkers, not as arrays): built, or found, as any other, every part checked."""
    from ..kernels import kernels_named

    kernels = kernels_named(implementation)
    semantics = next((s for k, s in SEMANTICS.items() if type(key) is str and key == k), None)
    if semantics is None:
        raise field_error(NardyError, "key", f"must be one of {sorted(SEMANTICS)}", key)
    variant, flags = semantics.variant, semantics.flags
    if type(kind) is str and kind == "one_sided":
        return one_sided_table(kernels.name, kernels.one_sided, variant, checkers, False, flags)
    if type(kind) is str and kind == "two_sided":
        return two_sided_table(kernels.name, kernels.two_sided, variant, checkers, flags)
    if type(kind) is str and kind == "two_sided_cubeful":
        return two_sided_cubeful_table(kernels.name, kernels.two_sided_cubeful, variant, checkers, flags)
    raise field_error(NardyError, "kind", "must be 'one_sided', 'two_sided' or 'two_sided_cubeful'", kind)


def _one_sided_of(implementation: object, key: object, checkers: object) -> OneSided:
    return cast(OneSided, table_of("one_sided", implementation, key, checkers))


def _two_sided_of(implementation: object, key: object, checkers: object) -> TwoSided:
    return cast(TwoSided, table_of("two_sided", implementation, key, checkers))


def _cubeful_of(implementation: object, key: object, checkers: object) -> CubefulTwoSided:
    return cast(CubefulTwoSided, table_of("two_sided_cubeful", implementation, key, checkers))


def _one_sided_reduced(table: OneSided) -> tuple[Callable[..., OneSided], tuple[object, ...]]:
    return (_one_sided_of, (table.implementation, table.semantics.key, table.checkers))


def _two_sided_reduced(table: TwoSided) -> tuple[Callable[..., TwoSided], tuple[object, ...]]:
    return (_two_sided_of, (table.implementation, table.semantics.key, table.checkers))


def _cubeful_reduced(table: CubefulTwoSided) -> tuple[Callable[..., CubefulTwoSided], tuple[object, ...]]:
    return (_cubeful_of, (table.implementation, table.semantics.key, table.checkers))


# a table pickles as what it is (built again, or found, where it is loaded), never as arrays to trust
copyreg.pickle(OneSided, _one_sided_reduced)
copyreg.pickle(TwoSided, _two_sided_reduced)
copyreg.pickle(CubefulTwoSided, _cubeful_reduced)
