"""The memory of the reference's level-by-level search (:func:`nardy_fast.reference.rules.legal_candidates`):
each position of a level packed in a short ``bytes``, and the step that led to it kept as two numbers in
arrays, so that a crazy ladder's levels of millions of positions fit in memory.

A position (a :class:`~nardy_fast.board.Side`) is 28 bytes: byte ``m`` holds X's count on M``m`` in its low
four bits and Y's in its high four (m = 0..25; 0 and 25 are always empty), byte 26 X's and Y's bar, byte 27
X's and Y's borne-off checkers. No count exceeds 15, so nothing overlaps. A level's node is that board
followed by what the search must tell apart besides the board (docs/rules.md, One move per result): the
head departures, and the values left to play (their count for an ordered list, which plays a suffix of the
list; the values themselves otherwise).

The searches' work is counted here too (:func:`searched`), as the core counts it, for a display of progress.
"""

from __future__ import annotations

import threading
from array import array
from typing import NamedTuple

from ..board import Side, Step

__all__ = [
    "BOARD_BYTES", "WORK_BLOCK", "Level", "Steps", "add_searched", "node", "node_state", "pack", "searched", "unpack"
]

#: The bytes of a packed position.
BOARD_BYTES = 28

#: The most work a search keeps to itself before it adds it to :func:`searched`: the core's block
#: (``TICK_MASK + 1`` in src_pyx/tables.pxi), so that a long search shows as it runs.
WORK_BLOCK = 4096

# A byte's low and high nibbles, for bytes.translate: unpack splits a board's 26 bytes in C, where a
# generator over them made unpack a third of the reference's legal_moves
_LOW_NIBBLE = bytes(b & 15 for b in range(256))
_HIGH_NIBBLE = bytes(b >> 4 for b in range(256))

_searched = 0
# rarely taken (once a block and once a search): += on a global is no atomic operation between threads.
# Reentrant, so that a search run by a signal handler or gc callback while this thread holds it adds its work
# instead of waiting for ever: only the one += runs under it, and a handler cannot enter between its load and
# its store (no call there), so a nested add is never lost.
_searched_lock = threading.RLock()


def add_searched(work: int) -> None:
    """Add ``work`` (searches started, nodes expanded) to the count of :func:`searched`."""
    global _searched
    with _searched_lock:
        _searched += work


def searched() -> int:
    """The move searches' work in this process so far, for a display of progress, not an exact count:
    searches started and level-search nodes expanded, counted in blocks of 4096 (a search adds a block
    once it has done that much work, and the rest when it ends)."""
    return _searched


def pack(side: Side) -> bytes:
    """``side`` in :data:`BOARD_BYTES` bytes (see the module's docstring)."""
    counts = int.from_bytes(bytes(side.x), "little") | int.from_bytes(bytes(side.y), "little") << 4
    return counts.to_bytes(26, "little") + bytes((side.xbar | side.ybar << 4, side.xoff | side.yoff << 4))


def node(side: Side, heads: int, left: tuple[int, ...], ordered: bool) -> bytes:
    """A level's node: ``side`` packed, then, while values are left to play, the head departures and the
    values left (their count for an ordered list, which plays a suffix of its list)."""
    if not left:
        return pack(side)  # a result: its board alone tells it apart
    return pack(side) + bytes((heads, len(left))) + (b"" if ordered else bytes(left))


def node_state(packed: bytes, dice: tuple[int, ...], ordered: bool) -> tuple[int, tuple[int, ...]]:
    """The head departures and values left to play of a :func:`node` of a search of ``dice``."""
    if len(packed) == BOARD_BYTES:
        return 0, ()
    heads, count = packed[BOARD_BYTES], packed[BOARD_BYTES + 1]
    return heads, dice[len(dice) - count :] if ordered else tuple(packed[BOARD_BYTES + 2 :])


def unpack(board: bytes) -> Side:
    """The :class:`~nardy_fast.board.Side` that :func:`pack` packed into the first bytes of ``board``."""
    points = board[:26]
    return Side(
        tuple(points.translate(_LOW_NIBBLE)),
        tuple(points.translate(_HIGH_NIBBLE)),
        board[26] & 15,
        board[26] >> 4,
        board[27] & 15,
        board[27] >> 4,
    )


class Steps:
    """The distinct steps of one search, each numbered once, so that a level keeps a number per node."""

    def __init__(self) -> None:
        self.numbers: dict[Step, int] = {}
        self.steps: list[Step] = []

    def number(self, step: Step) -> int:
        """The number of ``step``, given it the first time."""
        found = self.numbers.get(step)
        if found is None:
            found = self.numbers[step] = len(self.steps)
            self.steps.append(step)
        return found


class Level(NamedTuple):
    """One level of the search: its nodes (:func:`node`, in descending order of their step sequences), with
    each node's parent (its index in the level before) and last step (its number in :class:`Steps`). The
    nodes are the keys of a dict, which keeps them in the order added and tells a node already there, in
    less memory than a list beside a set."""

    nodes: dict[bytes, None]
    parents: array[int]
    steps: array[int]

    @classmethod
    def empty(cls) -> Level:
        """A level with no node."""
        return cls({}, array("i"), array("H"))

    def add(self, node: bytes) -> None:
        """Append a node not in the level yet (after every node made before it, so the level stays in
        canonical order)."""
        self.nodes[node] = None

    def link(self, parent: int, step: int) -> None:
        """The parent and step of the node added last (a search that walks no steps back keeps none)."""
        self.parents.append(parent)
        self.steps.append(step)

    def drop_nodes(self) -> None:
        """Forget the nodes once the next level is made; the parents and steps stay for walking back."""
        self.nodes.clear()


def walk_back(levels: list[Level], depth: int, index: int, steps: Steps) -> tuple[Step, ...]:
    """The steps that led to node ``index`` of level ``depth``, first step first."""
    found = []
    for level in range(depth, 0, -1):
        found.append(steps.steps[levels[level].steps[index]])
        index = levels[level].parents[index]
    return tuple(reversed(found))
