"""The public ``Move`` type and what an implementation's move generator is (:class:`Engine`), named here too:
both are defined beside :class:`~nardy_fast.position.Position` (:mod:`nardy_fast.position`), whose moves they
are and which they name (a move joins two positions, a position's moves are moves), so that neither module
imports the other.
"""

from __future__ import annotations

from .position import Engine, Move

__all__ = ["Move", "Engine"]
