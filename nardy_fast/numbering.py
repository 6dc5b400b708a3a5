"""Converting a point between White's numbering and a side's own numbering (docs/rules.md, The board and its
numberings).

Positions (``position.board``, position texts) are in White's numbering; moves (move texts, ``move.steps``) are
in the mover's own numbering. For White the two are the same. For Black:

* the long family (``long``, ``sixone``, ``gulbar``, ``crazy``): Black's point ``b`` is White's ``b + 12``
  when ``b <= 12``, else ``b - 12``;
* short nardy: Black's point ``b`` is White's ``25 - b``.

Both maps are their own inverse. Only the 24 points are numbered here: the bar (25) and "borne off" (0) of
the mover's numbering are no points of White's board.

>>> to_white(24, "black", "long")    # Black's head
12
>>> to_own(1, "black", "short")      # White's point 1 is Black's 24 in short nardy
24
"""

from __future__ import annotations

from .board import mover_point
from .errors import NardyError, field_error
from .inputs import choice, integer
from .variants import VARIANTS

__all__ = ["to_white", "to_own"]

_SIDES = ("white", "black")


def _checked(point: object, side: object, variant: object) -> tuple[int, str, str]:
    """``(point, side, variant)`` checked: a point 1..24, ``"white"`` or ``"black"``, one of ``VARIANTS``."""
    number = integer(point)
    if number is None or not 1 <= number <= 24:
        raise field_error(NardyError, "point", "must be an integer 1..24", point)
    side_name = choice(side, _SIDES)
    if side_name is None:
        raise field_error(NardyError, "side", "must be 'white' or 'black'", side)
    variant_name = choice(variant, VARIANTS)
    if variant_name is None:
        raise field_error(NardyError, "variant", f"must be one of {VARIANTS}", variant)
    return number, side_name, variant_name


def to_white(point: object, side: str, variant: str) -> int:
    """White's number of ``side``'s own point ``point`` (1..24) in ``variant``.

    ``to_white(24, "black", "long") == 12`` (Black's head), ``to_white(24, "black", "short") == 1``, and
    White's own points keep their numbers. Raises :class:`~nardy_fast.NardyError` naming ``point``, ``side``
    or ``variant`` for anything else than a point 1..24, ``"white"``/``"black"`` and a variant name.
    """
    number, side, variant = _checked(point, side, variant)
    return number if side == "white" else mover_point(variant, number)


def to_own(point: object, side: str, variant: str) -> int:
    """``side``'s own number of White's point ``point`` (1..24) in ``variant``: the inverse of :func:`to_white`.

    ``to_own(12, "black", "long") == 24``, ``to_own(1, "black", "short") == 24``. Errors as :func:`to_white`.
    """
    number, side, variant = _checked(point, side, variant)
    return number if side == "white" else mover_point(variant, number)
