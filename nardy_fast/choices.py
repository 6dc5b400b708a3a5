"""The choices a callable policy returns, read once and checked (:func:`check_choices`): one integer per game,
each an index among its game's children. Apart from :mod:`nardy_fast.policies`, which re-exports them, so that
the players' module stays one concern."""

from __future__ import annotations

from typing import Optional

import numpy as np
import numpy.typing as npt

from .errors import NardyError, field_error

__all__ = ["check_choices", "read_choices", "choices_problem"]


def check_choices(
    choices: object,
    counts: npt.NDArray[np.int64],
    field: str = "policy",
    wrong_shape: str = "must return {n} integer choices, one per game (shape ({n},))",
    wrong_choice: str = "returned choice {choice} for a game with {moves} moves (game {i} of the call)",
    slots: Optional[npt.NDArray[np.int64]] = None,
) -> npt.NDArray[np.int64]:
    """What a callable policy returned, checked: one integer per game, each ``0 <= c < count``. The checks are
    made on a copy, which alone is returned: the policy's own array may be changed meanwhile (by a thread it
    started, say), and a choice checked must be the choice played. The errors name ``field``, their problems
    ``wrong_shape`` (formatted with ``n``) and ``wrong_choice`` (with ``choice``, ``moves``, ``i`` and, given
    ``slots``, the game's ``slot``)."""
    array = read_choices(choices)
    problem = choices_problem(array, counts, wrong_shape, wrong_choice, slots)
    if problem is not None:
        raise field_error(NardyError, field, problem, choices)
    return array.astype(np.int64, copy=False)


def read_choices(choices: object) -> npt.NDArray[np.generic]:
    """``choices`` read once into an array of our own (an object array for what NumPy cannot convert): the
    one place their user code (``__array__``, ``__len__``, ``__getitem__``) runs, so that a caller holding a
    lock reads them before taking it."""
    try:
        return np.array(choices)
    except (ValueError, TypeError):
        return np.zeros(0, dtype=object)


def choices_problem(
    array: npt.NDArray[np.generic],
    counts: npt.NDArray[np.int64],
    wrong_shape: str,
    wrong_choice: str,
    slots: Optional[npt.NDArray[np.int64]] = None,
) -> Optional[str]:
    """What is wrong with choices read by :func:`read_choices` (:func:`check_choices`' problems), or ``None``:
    no user code runs here, and the value is not quoted, so that a caller may check under a lock and raise
    the error, quoting the caller's object, once the lock is released."""
    if array.shape != counts.shape or array.dtype.kind not in "iu":
        return wrong_shape.format(n=len(counts))
    wrong = np.less(array, 0) | np.greater_equal(array, counts)
    if not wrong.any():
        return None
    i = int(np.argmax(wrong))
    slot = -1 if slots is None else int(slots[i])
    return wrong_choice.format(choice=int(array[i]), moves=int(counts[i]), i=i, slot=slot)
