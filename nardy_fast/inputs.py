"""The input policy shared by both implementations: which Python and NumPy values count as integers,
booleans and sequences.

* An integer is a Python ``int`` or a NumPy integer scalar; ``bool`` (Python's or NumPy's) never is one.
* A boolean is a Python ``bool`` or a NumPy ``bool_``.
* A sequence is any sized iterable but a string or bytes, NumPy arrays of one dimension included.
* A name (a variant, a scheme, a side, a policy, ...) is a ``str`` (NumPy's ``str_`` included) equal to one
  of the choices; nothing else is compared with them, so a NumPy array or an object whose ``__eq__`` raises
  is simply not a name.

Range checks belong to the caller, which names the field in its error.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any, Optional, Union

import numpy as np
import numpy.typing as npt

__all__ = ["IntLike", "Ints", "Bools", "integer", "boolean", "items", "choice"]

#: What the package accepts as an integer, a sequence of integers and a sequence of booleans.
IntLike = Union[int, np.integer[Any]]
Ints = Union[Sequence[IntLike], npt.NDArray[np.integer[Any]]]
Bools = Union[Sequence[Union[bool, np.bool_]], npt.NDArray[np.bool_]]


def integer(value: object) -> Optional[int]:
    """``value`` as a Python ``int`` when it is an integer (not a bool), else ``None``."""
    if type(value) is int:
        return value
    if isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, (int, np.integer)):
        return int(value)
    return None


def boolean(value: object) -> Optional[bool]:
    """``value`` as a Python ``bool`` when it is a boolean, else ``None``."""
    if type(value) is bool:
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    return None


def items(value: object) -> Optional[tuple[object, ...]]:
    """The items of a sequence (see the module docstring), else ``None``."""
    if isinstance(value, (tuple, list)):
        return tuple(value)
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or not hasattr(value, "__iter__"):
        return None
    if isinstance(value, np.ndarray) and value.ndim != 1:
        return None
    try:
        return tuple(value)
    except (TypeError, ValueError):
        return None


def choice(value: object, choices: Collection[str]) -> Optional[str]:
    """``value`` as a plain ``str`` when it is a string among ``choices``, else ``None``. Only strings are
    compared, as plain strings: a subclass's ``__eq__`` or ``__hash__`` is never called."""
    if not isinstance(value, str):
        return None
    name = str.__str__(value)
    return name if name in choices else None
