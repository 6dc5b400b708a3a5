"""The public ``Move`` type and what an implementation's move generator is (:class:`Engine`), shared by both
implementations; :mod:`nardy_fast.position` registers how a move pickles (as its position, roll and result,
found again among the legal moves when it is loaded: ``position.move_of``).
"""

from __future__ import annotations

from abc import ABCMeta
from typing import TYPE_CHECKING, Optional, Protocol

from .board import Step
from .errors import uninitialised_error

if TYPE_CHECKING:
    from .position import Position

__all__ = ["Move", "Engine"]


class Engine(Protocol):
    """A move generator: all legal moves of ``position`` for ``roll`` (``None`` plays the pending list)."""

    def __call__(self, position: Position, roll: Optional[tuple[int, int]], limit: int) -> list[Move]:
        """The legal moves of ``position`` for ``roll`` (``None``: the pending list), one per distinct result;
        ``SearchLimitError`` when the search holds more than ``limit`` positions after one number of steps
        (0: no limit)."""
        ...


class Move(metaclass=ABCMeta):  # noqa: B024 - an ABC so that the core registers its Move
    """One legal move: its canonical steps (docs/rules.md, Canonical step order) and what follows it
    (docs/rules.md, What follows a move).

    Moves are equal when they were made for the same roll from equal positions and reach equal results. Only
    ``legal_moves`` makes them; a move pickles as its position, roll and result, and is found again among
    the legal moves when it is loaded.
    """

    # The compiled core's moves are registered as ``Move`` and build their steps and result on first access;
    # the attributes' docstrings are the core's properties' docstrings, word for word.
    __slots__ = {
        "steps": "The canonical step sequence, in the mover's own numbering.",
        "result": "The next position.",
        "remainder": (
            "The unplayed values passed to the opponent (gulbar, crazy; docs/rules.md, Gulbar transfers)."
        ),
        "extra_roll": (
            "Whether the same side rolls again (docs/rules.md, Six-one extra roll, Gulbar extra roll)."
        ),
        "roll": "The roll the move was made for; ``None`` for a pending transfer list.",
        "parent": "The position the move was made from.",
    }

    def __init__(
        self,
        parent: Position,
        roll: Optional[tuple[int, int]],
        steps: tuple[Step, ...],
        result: Position,
        remainder: tuple[int, ...],
        extra_roll: bool,
    ) -> None:
        self.parent = parent
        self.roll = roll
        self.steps = steps
        self.result = result
        self.remainder = remainder
        self.extra_roll = extra_roll

    def __getattr__(self, name: str) -> object:
        if name in Move.__slots__:
            raise uninitialised_error("Move")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __str__(self) -> str:
        return " ".join(map(str, self.steps)) or "pass"

    def __repr__(self) -> str:
        roll = "pending" if self.roll is None else f"{self.roll[0]}-{self.roll[1]}"
        return f"<Move {self} ({roll})>"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Move):
            return NotImplemented
        return (self.parent, self.roll, self.result) == (other.parent, other.roll, other.result)

    def __hash__(self) -> int:
        return hash((self.parent, self.roll, self.result))
