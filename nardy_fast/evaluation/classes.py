"""Position classes (docs/rules.md, Evaluation, Position classes), as GNU Backgammon's ``ClassifyPosition``:
which evaluator of a composite values a position. Written once for every implementation: the class names,
their numbers and :func:`classify`, a NumPy rule over :mod:`nardy_fast.layout`'s own tests of a finished game,
a race and a bear-off. The twins the evaluators dispatch with, one position at a time, are
``position_class`` of the reference (:mod:`nardy_fast.reference.evaluate`) and of the core
(``src_pyx/evaluate.pxi``); the tests hold all three to the same answers.

* :data:`OVER`: a side has borne off all 15 checkers; its outcome is known.
* :data:`BEAROFF`: a race in which every checker of both sides still on the board is on its own home points,
  none on the bar, no pending list to play, and each side has at most :data:`TWO_SIDED_CHECKERS` checkers
  left: a position of the exact two-sided bear-off table the race evaluator reads.
* :data:`RACE`: any other race (the sides can never touch again: :func:`nardy_fast.layout.is_race`).
* :data:`CONTACT`: the rest.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .. import layout
from ..batch import as_array, check_rows
from ..bearoff.tables import TWO_SIDED_CHECKERS
from ..errors import NardyError

__all__ = ["CLASSES", "OVER", "BEAROFF", "RACE", "CONTACT", "TWO_SIDED_CHECKERS", "classify"]

#: The classes, by name; a name's index is its number (what :func:`classify` returns).
CLASSES = ("over", "bearoff", "race", "contact")
#: A finished game.
OVER = CLASSES.index("over")
#: A bear-off inside the exact two-sided tables.
BEAROFF = CLASSES.index("bearoff")
#: Any other race.
RACE = CLASSES.index("race")
#: A position in contact.
CONTACT = CLASSES.index("contact")

Rows = npt.NDArray[np.int8]


def classes_of(rows: Rows) -> npt.NDArray[np.int8]:
    """The class of each checked row (n, 64): the rule of the module docstring, without checking them."""
    over = layout.is_over(rows)
    race = layout.is_race(rows)
    left = 15 - rows[:, layout.OFF : layout.OFF + 2].astype(np.int64)
    small = (left <= TWO_SIDED_CHECKERS).all(axis=1)
    bearoff = race & layout.is_bearoff(rows) & (rows[:, layout.NPENDING] == 0) & small
    out = np.full(len(rows), CONTACT, dtype=np.int8)
    out[race] = RACE
    out[bearoff] = BEAROFF
    out[over] = OVER
    return out


def classify(rows: object) -> npt.NDArray[np.int8]:
    """The class of each position (:data:`CLASSES` numbers), ``int8``: (N,) for packed rows (N, 64), (1,) for
    one row (64,). The rows are copied and checked as ``nardy_fast.evaluate`` checks them: a row that is no
    position is refused (``rows[i]: ...``)."""
    array = as_array(rows, "rows", NardyError, f"(N, {layout.WIDTH})")
    checked = check_rows(array, "rows")
    for i, row in enumerate(checked):
        try:
            layout.unpack(row)
        except NardyError as error:
            raise type(error)(f"rows[{i}]: {error}") from None
    return classes_of(checked)
