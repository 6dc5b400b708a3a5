"""The threads of NumPy's math library (BLAS) while a training runs: at most ``--threads``.

NumPy's OpenBLAS starts a thread per core when it loads and spreads every large enough product over them,
so a training on one thread ran at 146% CPU. Its environment variables (``OPENBLAS_NUM_THREADS``,
``OMP_NUM_THREADS``, ``MKL_NUM_THREADS``) are read once, when NumPy loads, which is before any command runs:
too late to set them here. So the count is set through the library itself while the training runs, and put
back after: by threadpoolctl when it is installed (any BLAS NumPy may use), else by OpenBLAS's own
``openblas_set_num_threads`` found among the libraries the process loaded (Linux; NumPy's wheels bundle
OpenBLAS). Elsewhere the count is left alone: set those variables before starting Python instead.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["blas_threads", "openblas_threads"]

#: The names OpenBLAS's thread functions take in its builds: plain, NumPy's wheels' (``scipy_`` prefix and a
#: ``64_`` suffix for 64-bit integers) and other 64-bit builds'.
_PREFIXES = ("", "scipy_")
_SUFFIXES = ("", "64_", "_64")


def _loaded_openblas() -> list[str]:
    """The paths of the OpenBLAS libraries this process has loaded (read from ``/proc/self/maps``; none
    where there is no such file)."""
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            paths = {line.split(maxsplit=5)[-1].strip() for line in maps if "openblas" in line.lower()}
    except OSError:
        return []
    return sorted(p for p in paths if p.startswith("/") and "openblas" in os.path.basename(p).lower())


def openblas_threads() -> list[tuple[Callable[[], int], Callable[[int], None]]]:
    """The ``(get, set)`` thread-count functions of every OpenBLAS this process loaded (none found: ``[]``)."""
    found = []
    for path in _loaded_openblas():
        try:  # RTLD_NOLOAD: only a library already loaded, never one loaded afresh
            library: Any = ctypes.CDLL(path, mode=os.RTLD_NOLOAD | os.RTLD_NOW)
        except OSError:
            continue
        for prefix in _PREFIXES:
            for suffix in _SUFFIXES:
                get = getattr(library, f"{prefix}openblas_get_num_threads{suffix}", None)
                put = getattr(library, f"{prefix}openblas_set_num_threads{suffix}", None)
                if get is not None and put is not None:
                    get.restype, put.argtypes = ctypes.c_int, [ctypes.c_int]
                    found.append((get, put))
    return found


@contextlib.contextmanager
def blas_threads(threads: int) -> Iterator[None]:
    """At most ``threads`` threads for NumPy's BLAS inside the block, the previous counts after it."""
    try:
        from threadpoolctl import threadpool_limits  # type: ignore[import-not-found, unused-ignore]  # optional
    except ImportError:
        threadpool_limits = None
    if threadpool_limits is not None:
        with threadpool_limits(limits=threads, user_api="blas"):
            yield
        return
    libraries = openblas_threads()
    before = [get() for get, _ in libraries]
    for (_, put), count in zip(libraries, before):
        if count > threads:
            put(threads)
    try:
        yield
    finally:
        for (_, put), count in zip(libraries, before):
            put(count)
