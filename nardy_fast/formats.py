"""The interchange formats of a position, as methods of :class:`Formats`, the base of
:class:`nardy_fast.Position`: the compact ID, GNU Backgammon's Position and Match IDs, the XGID, the text
board. Each method imports its format's module when it is called (:mod:`nardy_fast.ids`,
:mod:`nardy_fast.svg`), so that the central type depends on no output format and a new format leaves
``position.py`` alone.
"""

from __future__ import annotations

from typing import Optional, TypeVar

from .inputs import Bools, Ints
from .state import State

__all__ = ["Formats"]

F = TypeVar("F", bound="Formats")


class Formats:
    """What :class:`nardy_fast.Position` offers in other formats (its subclass supplies the state)."""

    __slots__ = ()
    _state: State

    @classmethod
    def _trusted(cls: type[F], state: State) -> F:
        """A position of a checked state (:class:`nardy_fast.Position` makes it)."""
        raise NotImplementedError

    # --- IDs (layouts in :mod:`nardy_fast.ids`) -----------------------------------------------------------
    # The ID and picture modules are imported when used: the central type depends on no output format.

    def id(self) -> str:
        """The compact URL-safe ID of the whole state (at most 29 characters, any variant); ``from_id`` reads
        it back exactly."""
        from . import ids

        return ids.to_id(self._state)

    @classmethod
    def from_id(cls: type[F], text: str) -> F:
        """A position from its compact ID (``position.id()``); raises :class:`~nardy_fast.InvalidNotationError`
        or :class:`~nardy_fast.InvalidPositionError` naming ``id`` for a malformed or impossible one."""
        from . import ids

        return cls._trusted(ids.from_id(text))

    def gnubg_id(self) -> str:
        """GNU Backgammon's 14-character Position ID (short nardy only). It carries the checkers only, not who
        is to move nor the first-roll marks: ``from_gnubg_id(pid, turn=p.turn, first_roll=p.first_roll)``
        gives ``p`` back exactly (``==``)."""
        from . import ids

        return ids.to_gnubg_id(self._state)

    def gnubg_match_id(self, dice: Optional[Ints] = None) -> str:
        """GNU Backgammon's 12-character Match ID for this short nardy position: the side to move on roll with
        ``dice`` (``None``: not rolled yet), in a money game with a centred 1-cube."""
        from . import ids

        return ids.to_match_id(self._state, dice)

    @classmethod
    def from_gnubg_id(
        cls: type[F],
        position_id: str,
        *,
        turn: Optional[str] = None,
        match_id: Optional[str] = None,
        first_roll: Optional[Bools] = None,
    ) -> F:
        """A short nardy position from GNU Backgammon's Position ID, ``turn`` to move (``"white"`` or
        ``"black"``, or ``"w"``, ``"b"``; default ``"white"``) or the player on roll of the Match ID
        ``match_id``. The IDs do not carry the first-roll marks: ``first_roll`` gives them, a (White, Black)
        pair of booleans as in :meth:`from_board`, and defaults to both to come on the start board and both
        played elsewhere. With both given as the position had them, the round trip is exact (``==``)."""
        from . import ids

        return cls._trusted(ids.from_gnubg_id(position_id, turn, match_id, first_roll))

    def xgid(self, dice: Optional[Ints] = None) -> str:
        """eXtreme Gammon's XGID of this short nardy position with ``dice`` rolled (``None``: not rolled yet);
        the cube and match fields are those of a money game with a centred 1-cube. It carries the checkers and
        the side to move, not the first-roll marks: ``from_xgid(x, first_roll=p.first_roll)`` gives ``p`` back
        exactly (``==``)."""
        from . import ids

        return ids.to_xgid(self._state, dice)

    @classmethod
    def from_xgid(cls: type[F], xgid: str, *, first_roll: Optional[Bools] = None) -> F:
        """A short nardy position from an XGID (its dice: :func:`nardy_fast.ids.read_xgid`). The XGID does not
        carry the first-roll marks: ``first_roll`` gives them, as in :meth:`from_gnubg_id` (default: both to
        come on the start board, both played elsewhere)."""
        from . import ids

        return cls._trusted(ids.read_xgid(xgid, first_roll).state)

    def __str__(self) -> str:
        """A text board of a few lines (White's numbering, as docs/rules.md draws boards); ``to_text()`` is
        the one-line text."""
        from . import svg

        return svg.text_board(self._state)
