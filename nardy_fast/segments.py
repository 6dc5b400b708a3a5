"""Per-segment reductions over CSR children (``offsets`` as :func:`nardy_fast.batch_children` and a callable
playout policy give them): what a policy that scores every child needs to pick one per game.

``segment_argmax(scores, offsets)`` is, for each segment ``i``, the index within the segment of its highest
score, ``argmax(scores[offsets[i]:offsets[i + 1]])`` (the first of equal highest scores), as one int64 array:
exactly the choices a callable policy returns. The compiled core runs it in C without the GIL; the reference
below is the definition.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from .errors import NardyError, field_error

__all__ = ["SegmentKernel", "check_segments", "python_kernel"]

Scores = npt.NDArray[np.float64]
Offsets = npt.NDArray[np.int64]
#: An implementation's kernel: the argmax of every segment of checked (float64, int64) arrays into ``out``.
SegmentKernel = Callable[[Scores, Offsets, Offsets], None]


def check_segments(scores: object, offsets: object) -> tuple[Scores, Offsets]:
    """Copies of ``scores`` (float64, one dimension, no NaN) and ``offsets`` (int64: from 0 up to
    ``len(scores)``, every segment holding at least one score), checked; copies first, so that another thread
    changing the caller's arrays meanwhile cannot make the values used differ from those checked."""
    try:
        points = np.array(offsets, copy=True)
    except (ValueError, TypeError):
        points = np.zeros((0, 0))
    if points.ndim != 1 or points.dtype.kind not in "iu" or len(points) < 1:
        raise field_error(NardyError, "offsets", "must be a 1-D integer array of segment starts and the end", offsets)
    try:
        values = np.array(scores, dtype=np.float64, copy=True)
    except (ValueError, TypeError, OverflowError):
        values = np.zeros((0, 0))
    if values.ndim != 1 or np.asarray(scores).dtype.kind not in "iuf":
        raise field_error(NardyError, "scores", "must be a 1-D array of real numbers", scores)
    if np.isnan(values).any():
        raise field_error(NardyError, "scores", "must hold no NaN", int(np.flatnonzero(np.isnan(values))[0]))
    # compared as given, not by differences: a difference can wrap around (2**63 - 1 up to -2 is a "rise" of
    # 2**63 - 1 in int64), a comparison cannot; offsets that pass lie in 0..len(scores), so the cast is exact
    if points[0] != 0 or points[-1] != len(values) or (points[1:] <= points[:-1]).any():
        raise field_error(
            NardyError,
            "offsets",
            f"must rise strictly from 0 to len(scores) = {len(values)} (a segment of no scores has no argmax)",
            offsets,
        )
    return np.ascontiguousarray(values), np.ascontiguousarray(points.astype(np.int64))


def python_kernel(scores: Scores, offsets: Offsets, out: Offsets) -> None:
    """The reference: NumPy's argmax (the first highest) of each segment."""
    for i in range(len(offsets) - 1):
        out[i] = int(np.argmax(scores[offsets[i] : offsets[i + 1]]))
