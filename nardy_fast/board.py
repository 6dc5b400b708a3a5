"""The board vocabulary both implementations share: the numberings (docs/rules.md, The board and its
numberings), the board seen by the side to move, a step, moving one checker, the block test (Block rule) and
scoring (Game end and scoring).

The side to move is X, the opponent Y; points are M1..M24 of X's own path, 0 is "borne off" and 25 the bar.
The reference (:mod:`nardy_fast.reference.rules`) builds its move generator on these; the validation, the
notation and the public objects use them too, so none of them depends on the reference.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from .variants import LONG_FAMILY

__all__ = [
    "BAR",
    "OFF",
    "HEAD",
    "Side",
    "Step",
    "mover_point",
    "to_mover",
    "to_white",
    "move_checker",
    "Y_TRACK",
    "block_is_legal",
    "points",
]


BAR = 25
OFF = 0
HEAD = 24


class Side(NamedTuple):
    """The board seen by the side to move, in its own numbering: ``x[m]``/``y[m]`` are counts on M``m``,
    m = 1..24.

    Index 0 and 25 of ``x`` and ``y`` are always 0; bar and borne-off checkers are counted apart.
    """

    x: tuple[int, ...]
    y: tuple[int, ...]
    xbar: int
    ybar: int
    xoff: int
    yoff: int


class Step(NamedTuple):
    """One checker moved once with one die value, in the mover's numbering.

    ``src`` is 25 for the bar; ``dst`` is 0 for borne off. ``special`` marks a six-one special step and
    ``hit`` a short-nardy hit (docs/rules.md, Six-one special step; Bar entry and hitting).
    """

    src: int
    dst: int
    die: int
    special: bool = False
    hit: bool = False

    def __str__(self) -> str:
        src = "bar" if self.src == BAR else str(self.src)
        dst = "off" if self.dst == OFF else str(self.dst)
        return f"{src}/{dst}{'s' if self.special else ''}{'*' if self.hit else ''}"

    def order_key(self) -> tuple[int, int, int]:
        """The canonical step order (docs/rules.md, Canonical step order): from-point (bar = 25), then die,
        then normal > special."""
        return (self.src, self.die, 0 if self.special else 1)


def mover_point(variant: str, point: int) -> int:
    """The other side's point ``point`` in this side's numbering (docs/rules.md, The mover's numbering; the
    mapping is an involution)."""
    if variant in LONG_FAMILY:
        return point + 12 if point <= 12 else point - 12
    return 25 - point


def to_mover(variant: str, turn: str, board: Sequence[int], bar: Sequence[int], off: Sequence[int]) -> Side:
    """White's absolute board as seen by the side to move (docs/rules.md, The mover's numbering)."""
    x = [0] * 26
    y = [0] * 26
    for m in range(1, 25):
        w = m if turn == "white" else mover_point(variant, m)
        count = board[w - 1] if turn == "white" else -board[w - 1]
        if count > 0:
            x[m] = count
        elif count < 0:
            y[m] = -count
    me, other = (0, 1) if turn == "white" else (1, 0)
    return Side(tuple(x), tuple(y), bar[me], bar[other], off[me], off[other])


def to_white(variant: str, turn: str, side: Side) -> tuple[tuple[int, ...], tuple[int, int], tuple[int, int]]:
    """The inverse of :func:`to_mover`: ``(board, bar, off)`` in White's numbering."""
    board = [0] * 24
    sign = 1 if turn == "white" else -1
    for m in range(1, 25):
        w = m if turn == "white" else mover_point(variant, m)
        board[w - 1] = sign * (side.x[m] - side.y[m])
    if turn == "white":
        return tuple(board), (side.xbar, side.ybar), (side.xoff, side.yoff)
    return tuple(board), (side.ybar, side.xbar), (side.yoff, side.xoff)


def move_checker(variant: str, side: Side, src: int, dst: int) -> tuple[Side, bool]:
    """``side`` with one X checker moved from ``src`` (25 = bar) to ``dst`` (0 = off); hits a short blot."""
    x = list(side.x)
    y = list(side.y)
    xbar, ybar, xoff = side.xbar, side.ybar, side.xoff
    if src == BAR:
        xbar -= 1
    else:
        x[src] -= 1
    hit = False
    if dst == OFF:
        xoff += 1
    else:
        x[dst] += 1
        if variant not in LONG_FAMILY and y[dst] == 1:
            y[dst] = 0
            ybar += 1
            hit = True
    return Side(tuple(x), tuple(y), xbar, ybar, xoff, side.yoff), hit


#: Y's track in M coordinates (docs/rules.md, Block rule): M12, M11, …, M1, M24, M23, …, M13.
Y_TRACK: tuple[int, ...] = tuple(range(12, 0, -1)) + tuple(range(24, 12, -1))


def block_is_legal(x: Sequence[int], y: Sequence[int]) -> bool:
    """(B) X holds no run of 6+ points consecutive on Y's track with no Y checker past it (docs/rules.md,
    Block rule).

    Consecutiveness is along Y's track, so M1|M24 joins a run and M13|M12 does not. With no Y checker
    on the board the rule is moot.
    """
    y_indices = [t for t, m in enumerate(Y_TRACK) if y[m] > 0]
    if not y_indices:
        return True
    farthest_y = max(y_indices)
    run = 0
    for t, m in enumerate(Y_TRACK):
        run = run + 1 if x[m] > 0 else 0
        if run >= 6 and farthest_y <= t:
            return False
    return True


def points(variant: str, loser_off: int, loser_bar: int, loser_in_winner_home: int) -> int:
    """Points won (docs/rules.md, Game end and scoring): 1; mars 2 if the loser bore off none; koks 3 in short
    nardy only, when the mars loser also has a checker on the bar or in the winner's home."""
    if loser_off > 0:
        return 1
    if variant not in LONG_FAMILY and (loser_bar > 0 or loser_in_winner_home > 0):
        return 3
    return 2
