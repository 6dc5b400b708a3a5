"""Seeded random self-play: reproducible positions and rolls for property tests, benchmarks and differential
tests.

A game starts at ``Position.start(variant, **flags)``. At every ply the side to move rolls two dice from
``random.Random(seed)`` (or plays its pending transfer list with no roll; docs/rules.md, Gulbar transfers), and one of the legal
moves is picked at random. The moves are sorted by the Zobrist key of their result before the pick, so the
games do not depend on the order in which an implementation returns its moves: every implementation walks
the same games for the same seed. A finished game is yielded once (with the roll that would come next and no
moves) and a new game starts from the same random stream.

Crazy-gulbar ladders of small doubles (docs/rules.md, Crazy gulbar ladders) can have well over 100,000 results; pass
``reroll=SLOW_CRAZY_ROLLS`` to re-roll them where a run must stay fast (the positions are then those of games
without 1-1 and 2-2 ladders).
"""

from __future__ import annotations

import random
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar

from nardy_fast.position import Move, Position

__all__ = ["SLOW_CRAZY_ROLLS", "Ply", "Roll", "plies", "random_pairs", "random_positions"]

#: Two die values, in the order they were rolled.
Roll = tuple[int, int]
P = TypeVar("P", bound=Position)

#: Crazy-gulbar rolls whose ladders (1,1,2,2,…,6,6 and 2,2,…,6,6) can take the reference many seconds.
SLOW_CRAZY_ROLLS: tuple[Roll, ...] = ((1, 1), (2, 2))


@dataclass(frozen=True)
class Ply(Generic[P]):
    """One ply of a random game: the position, the roll (``None`` for a pending transfer list) and the legal
    moves for it (empty once the game is over)."""

    position: P
    roll: Roll | None
    moves: tuple[Move, ...]


def _roll(rng: random.Random, reroll: Collection[Roll]) -> Roll:
    """Two fresh dice, rolled again while they show one of ``reroll`` (in either order)."""
    while True:
        roll = (rng.randint(1, 6), rng.randint(1, 6))
        if roll not in reroll and roll[::-1] not in reroll:
            return roll


def plies(
    position_cls: type[P],
    variant: str,
    count: int,
    seed: int,
    *,
    reroll: Collection[Roll] = (),
    **flags: object,
) -> Iterator[Ply[P]]:
    """``count`` consecutive plies of seeded random games of ``variant`` (see the module docstring)."""
    rng = random.Random(seed)
    position = position_cls.start(variant, **flags)
    for _ in range(count):
        roll = None if position.pending else _roll(rng, reroll)
        if position.is_over():
            yield Ply(position, roll, ())
            position = position_cls.start(variant, **flags)
            continue
        moves = tuple(position.legal_moves(roll))
        yield Ply(position, roll, moves)
        ordered = sorted(moves, key=lambda move: move.result.zobrist)
        position = rng.choice(ordered).result  # type: ignore[assignment]


def random_positions(
    position_cls: type[P],
    variant: str,
    count: int,
    seed: int,
    *,
    reroll: Collection[Roll] = (),
    **flags: object,
) -> list[P]:
    """The positions of :func:`plies`: mostly in play, a finished one at the end of each game."""
    return [ply.position for ply in plies(position_cls, variant, count, seed, reroll=reroll, **flags)]


def random_pairs(
    position_cls: type[P],
    variant: str,
    count: int,
    seed: int,
    *,
    reroll: Collection[Roll] = (),
    **flags: object,
) -> Iterator[tuple[P, Roll | None]]:
    """``(position, roll)`` pairs of :func:`plies`; the roll is ``None`` for a pending list."""
    for ply in plies(position_cls, variant, count, seed, reroll=reroll, **flags):
        yield ply.position, ply.roll
