"""The move lines of a ``.mat`` file of the common form, read by patterns: the reference's twin of the core's
``read_move_lines`` (``src_pyx/matlines.pxi``), the same arrays for the same text, read by the fast path of
:mod:`nardy_fast.matfast`."""

from __future__ import annotations

import re
from itertools import pairwise

import numpy as np
import numpy.typing as npt

from ..errors import NardyError, field_error

__all__ = ["read_move_lines", "MAX_WRITTEN", "LINE_OTHER", "LINE_LEFT", "LINE_RIGHT", "LINE_TWO"]

#: The written pairs of a ply the readers take (the replay kernel's ``MAX_WRITTEN``).
MAX_WRITTEN = 16
#: The kinds of a line: another line (the caller reads it), a move line of one ply in the left column, of one
#: ply in the right column, of two plies (the first in the left column).
LINE_OTHER, LINE_LEFT, LINE_RIGHT, LINE_TWO = range(4)

_TOKEN = rb"(?:bar|[0-9]{1,2})(?:/(?:[0-9]{1,2}|off)\*?)+(?:\([1-9]\))?"
_ENTRY = rb"([1-6])([1-6]):((?: " + _TOKEN + rb")*)"
_LINE = re.compile(rb" *([0-9]{1,9})\)( *)" + _ENTRY + rb"(?: +" + _ENTRY + rb")? *")
_STEP = re.compile(rb"(bar|[0-9]{1,2})((?:/(?:[0-9]{1,2}|off)\*?)+)(?:\(([1-9])\))?")


def _pairs(tokens: bytes) -> list[int]:
    """The pairs of an entry's step tokens, flat; too many, or points not 25 down to 0 each lower: ``[-1]``."""
    flat: list[int] = []
    for token in tokens.split():
        found = _STEP.fullmatch(token)
        assert found is not None  # the line's pattern took it
        points = [25 if found[1] == b"bar" else int(found[1])]
        points += [0 if target == b"off" else int(target) for target in found[2].replace(b"*", b"").split(b"/")[1:]]
        if points[0] > 25 or any(a <= b for a, b in pairwise(points)):
            return [-1]
        flat += [v for pair in pairwise(points) for v in pair] * int(found[3] or 1)
    return flat if len(flat) <= 2 * MAX_WRITTEN else [-1]


def read_move_lines(text: bytes, edge: int, kinds: npt.NDArray[np.int8], numbers: npt.NDArray[np.int64],
                    plies: npt.NDArray[np.int64], runs: npt.NDArray[np.int64], rolls: npt.NDArray[np.int8],
                    npairs: npt.NDArray[np.int8], pairs: npt.NDArray[np.int8]) -> int:
    """The core's ``read_move_lines``: each line's kind, number, first ply and run of two-ply lines numbered
    in a row, each ply's dice and written pairs; the plies read."""
    lines = len(kinds)
    if (lines < 1 or not len(numbers) == len(plies) == len(runs) == lines or rolls.shape[1:] != (2,)
            or pairs.shape[1] < 2 * MAX_WRITTEN or len(rolls) < 2 * lines or not len(npairs) == len(pairs) == len(rolls)):
        raise field_error(NardyError, "read_move_lines", "the arrays' shapes do not agree", None)
    split = bytes(text).split(b"\n")
    if len(split) != lines:
        raise field_error(NardyError, "read_move_lines", "the text's lines are not as many as kinds", lines)
    ply = 0
    for line, content in enumerate(split):
        numbers[line] = 0
        plies[line] = ply
        kinds[line] = LINE_OTHER
        found = _LINE.fullmatch(content)
        if found is None:
            continue
        entries = [(int(found[3 + 3 * e]), int(found[4 + 3 * e]), _pairs(found[5 + 3 * e]))
                   for e in range(2) if found[3 + 3 * e] is not None]
        if any(flat == [-1] for _, _, flat in entries) or (len(entries) == 2 and len(found[2]) >= edge):
            continue
        kinds[line] = LINE_TWO if len(entries) == 2 else LINE_RIGHT if len(found[2]) >= edge else LINE_LEFT
        numbers[line] = int(found[1])
        for d1, d2, flat in entries:
            rolls[ply] = (d1, d2)
            npairs[ply] = len(flat) // 2
            pairs[ply, : len(flat)] = flat
            pairs[ply, len(flat) : 2 * MAX_WRITTEN] = 0
            ply += 1
    for line in range(lines - 1, -1, -1):
        following = line + 1 < lines and kinds[line + 1] == LINE_TWO and numbers[line + 1] == numbers[line] + 1
        runs[line] = runs[line + 1] if kinds[line] == LINE_TWO and following else line + 1
    return ply
