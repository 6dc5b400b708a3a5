"""The rules of docs/rules.md, one function per rule, in the mover's coordinates (its section The mover's
numbering).

This module is the executable specification. It favours being checkable line by line against docs/rules.md
over speed: every function names the section of docs/rules.md it implements. The side to move is X, the
opponent Y; points are M1..M24 of X's own path, 0 is "borne off" and 25 is the bar. The vocabulary shared
with the rest of the package (numbering, ``Side``, ``Step``, moving a checker, the block test, scoring)
lives in :mod:`nardy_fast.board` and is re-exported here, so that every rule can be read from this module.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from typing import NamedTuple, Optional

from ..board import (
    BAR,
    HEAD,
    OFF,
    Y_TRACK,
    Side,
    Step,
    block_is_legal,
    move_checker,
    mover_point,
    points,
    to_mover,
    to_white,
)
from ..variants import LONG_FAMILY, SPECS
from .levels import BOARD_BYTES, WORK_BLOCK, Level, Steps, add_searched, node, node_state, unpack, walk_back

__all__ = [
    "BAR",
    "OFF",
    "HEAD",
    "Side",
    "Step",
    "Candidate",
    "Candidates",
    "mover_point",
    "to_mover",
    "to_white",
    "plays_ladder",
    "dice_list",
    "is_ordered",
    "head_limit",
    "move_checker",
    "all_home",
    "normal_step",
    "bear_off_step",
    "bar_entry_step",
    "special_step",
    "steps_for",
    "Y_TRACK",
    "block_is_legal",
    "legal_candidates",
    "remainder",
    "extra_roll",
    "points",
]


class Candidate(NamedTuple):
    """A legal move found by :func:`legal_candidates`: its canonical steps (none when the search was asked
    for results only), result, unplayed dice and the number of its steps."""

    steps: tuple[Step, ...]
    result: Side
    unplayed: tuple[int, ...]
    played: int


class Candidates:
    """The legal moves one search found (:func:`legal_candidates`), in canonical order: their number, and
    each made only when it is read, so that a ladder's millions of results need never be objects at once."""

    def __init__(
        self,
        levels: list[Level],
        depth: int,
        nodes: list[bytes],
        keep: array[int],
        steps: Optional[Steps],
        dice: tuple[int, ...],
    ) -> None:
        self._levels = levels
        self._depth = depth
        self._dice = dice
        self._ordered = is_ordered(dice)
        self._nodes = nodes  # the nodes of the level ``depth``
        self._keep = keep  # the found ones' indices there
        self._steps = steps  # None: the steps are not walked back

    def __len__(self) -> int:
        return len(self._keep)

    def __getitem__(self, k: int) -> Candidate:
        index = self._keep[k]
        result = unpack(self._nodes[index][:BOARD_BYTES])
        moved = () if self._steps is None else walk_back(self._levels, self._depth, index, self._steps)
        unplayed = node_state(self._nodes[index], self._dice, self._ordered)[1]
        return Candidate(moved, result, unplayed, self._depth)

    def __iter__(self) -> Iterator[Candidate]:
        return (self[k] for k in range(len(self)))


# --- the dice list (docs/rules.md, Rolls and the dice list) -------------------------------------------------


def plays_ladder(variant: str, rolls_played: int, normal_doubles_first_rolls: int) -> bool:
    """Whether the mover's doubles are ladders (docs/rules.md, Crazy gulbar ladders): in crazy gulbar, once
    the mover has played ``normal_doubles_first_rolls`` rolls (flag, 0 by default: from the first roll on);
    never elsewhere."""
    return SPECS[variant].ladder and rolls_played >= normal_doubles_first_rolls


def dice_list(variant: str, roll: tuple[int, int], ladder_per_value: int, ladder: bool = True) -> tuple[int, ...]:
    """The values to play for a roll (docs/rules.md, Rolls and the dice list; Crazy gulbar
    ladders): {a, b}; four of a double; a crazy ladder (when
    ``ladder``, see :func:`plays_ladder`).

    A non-double is returned higher value first.
    """
    a, b = roll
    if a != b:
        return (max(a, b), min(a, b))
    if SPECS[variant].ladder and ladder:
        return tuple(v for v in range(a, 7) for _ in range(ladder_per_value))
    return (a, a, a, a)


def is_ordered(dice: Sequence[int]) -> bool:
    """Whether the values must be consumed in the given order (docs/rules.md, Maximal use of the dice).

    Exactly two different values may be played in either order; any other list is played in order (for equal
    values the order is immaterial).
    """
    return not (len(dice) == 2 and dice[0] != dice[1])


# --- (H) docs/rules.md, Head rule -------------------------------------------------------------------------


def head_limit(
    variant: str,
    roll: Optional[tuple[int, int]],
    first_roll: bool,
    exception_doubles: Sequence[int],
) -> Optional[int]:
    """How many normal steps may leave the head M24 in this move (docs/rules.md, Head rule; First-roll
    exception; Gulbar transfers).

    ``None`` means no limit (short nardy). ``roll`` is ``None`` for a gulbar/crazy transfer segment, which
    gets 1 and never the first-roll exception. Six-one has no exception (its flag does not apply).
    """
    if variant not in LONG_FAMILY:
        return None
    exception = SPECS[variant].first_roll_exception and roll is not None and first_roll
    if exception and roll[0] == roll[1] and roll[0] in exception_doubles:  # type: ignore[index]
        return 2
    return 1


# --- step legality (docs/rules.md, Normal step to Six-one special step) -------------------------------------


def _is_open(variant: str, side: Side, point: int) -> bool:
    """A landing point is open (docs/rules.md, Normal step): empty of Y in the long family, at most one Y in
    short."""
    return side.y[point] == 0 if variant in LONG_FAMILY else side.y[point] <= 1


def all_home(side: Side) -> bool:
    """Every X checker still in play is on M1..M6 and none is on the bar (docs/rules.md, Bearing off)."""
    return side.xbar == 0 and not any(side.x[7:25])


def normal_step(variant: str, side: Side, src: int, die: int) -> Optional[tuple[Step, Side]]:
    """(N) ``src → src−die`` onto an open point (docs/rules.md, Normal step); in short nardy a lone Y checker
    is hit."""
    dst = src - die
    if side.x[src] < 1 or dst < 1 or side.xbar > 0 or not _is_open(variant, side, dst):
        return None
    result, hit = move_checker(variant, side, src, dst)
    return Step(src, dst, die, hit=hit), result


def bear_off_step(variant: str, side: Side, src: int, die: int) -> Optional[tuple[Step, Side]]:
    """(O) ``src → off`` (docs/rules.md, Bearing off): all home; exact die, or a higher die from the farthest
    point."""
    if side.x[src] < 1 or not all_home(side):
        return None
    if not (src == die or (src < die and not any(side.x[src + 1 : 25]))):
        return None
    result, _ = move_checker(variant, side, src, OFF)
    return Step(src, OFF, die), result


def bar_entry_step(variant: str, side: Side, die: int) -> Optional[tuple[Step, Side]]:
    """(E) ``bar → 25−die`` into Y's home, short nardy only (docs/rules.md, Bar entry and hitting); may
    hit."""
    dst = BAR - die
    if variant in LONG_FAMILY or side.xbar < 1 or not _is_open(variant, side, dst):
        return None
    result, hit = move_checker(variant, side, BAR, dst)
    return Step(BAR, dst, die, hit=hit), result


def special_step(variant: str, side: Side, die: int) -> Optional[tuple[Step, Side]]:
    """(S) six-one ``24/ds``: die 1 or 6 takes a head checker straight to M1 or M6 (docs/rules.md, Six-one
    special step)."""
    if not SPECS[variant].special_step or die not in (1, 6) or side.x[HEAD] < 1 or side.y[die] != 0:
        return None
    result, _ = move_checker(variant, side, HEAD, die)
    return Step(HEAD, die, die, special=True), result


def steps_for(variant: str, side: Side, values: Sequence[int]) -> Iterator[tuple[Step, Side]]:
    """Every legal single step with one of ``values``, in descending canonical order (docs/rules.md, Canonical
    step order).

    While X has a checker on the bar only entries are legal (Bar entry and hitting). Head departures are
    counted by the caller (Head rule).
    """
    dice = sorted(set(values), reverse=True)
    if side.xbar > 0:
        for die in dice:
            entry = bar_entry_step(variant, side, die)
            if entry is not None:
                yield entry
        return
    for src in range(24, 0, -1):
        if side.x[src] == 0:
            continue
        for die in dice:
            step = normal_step(variant, side, src, die) if src > die else bear_off_step(variant, side, src, die)
            if step is not None:
                yield step
            if src == HEAD:
                special = special_step(variant, side, die)
                if special is not None:
                    yield special


# --- (M), (D), (P), one move per result: the legal moves ----------------------------------------------------


def _after_playing(dice: tuple[int, ...], die: int, ordered: bool) -> tuple[int, ...]:
    """The values left after one step used ``die`` (the first value of an ordered list; docs/rules.md,
    Maximal use of the dice)."""
    if ordered:
        return dice[1:]
    rest = list(dice)
    rest.remove(die)
    return tuple(rest)


def legal_candidates(
    variant: str,
    side: Side,
    dice: tuple[int, ...],
    heads_allowed: Optional[int],
    per_step_blocks: bool,
    limit: int = 0,
    walk: bool = True,
) -> Optional[Candidates]:
    """The legal moves for the dice list: one per distinct result, each with its canonical steps.

    * (M) docs/rules.md, Maximal use of the dice: every sequence of legal steps respecting (H) whose result
      satisfies (B) (long family only) is a candidate (a finished side stops); only those using the most
      values are legal.
    * (D) Higher die: with two different values of which only one can be played, the higher wins.
    * (P) Passing: with nothing playable the empty move is the only legal move.
    * One move per result and Canonical step order: one move per distinct result, with the lexicographically
      greatest sequence reaching it.

    The search goes level by level (one level per step), merging nodes that agree on position, unplayed
    values and head departures. Each level is kept in descending order of its step sequences, so the first
    node reaching a state carries the greatest sequence (crazy ladders can have very many results). The
    levels are kept packed (:mod:`nardy_fast.reference.levels`): a node is its board and state in a few bytes,
    and its steps are walked back from parent to parent for the results only.
    Under ``block_check = per_step`` a node that breaks (B) is not kept: no step may be taken from it.

    ``None`` when a level would hold more than ``limit`` nodes (0: no limit), the bound of ``max_results``.
    The search is done when this returns; the candidates are made one at a time as they are read
    (:class:`Candidates`), with their steps unless ``walk`` is false (then no level keeps its steps).
    """
    ordered = is_ordered(dice)
    long_family = variant in LONG_FAMILY
    steps = Steps()
    levels = [Level.empty()]
    levels[0].add(node(side, 0, dice, ordered))
    # the deepest level with a legal node (the root's, legal or not, if none): its nodes are kept until a
    # deeper level has one, the other levels' nodes only while they are expanded
    best, best_legal = 0, _has_legal(levels[0], long_family)
    work = 1  # this search, then each node expanded, as the core counts them (levels.searched)
    while levels[-1].nodes:
        depth = len(levels) - 1
        level = levels[-1]
        following = Level.empty()
        for index, packed in enumerate(level.nodes):
            board = unpack(packed)
            heads_here, unplayed_here = node_state(packed, dice, ordered)
            if board.xoff == 15 or not unplayed_here:
                continue
            if per_step_blocks and long_family and not block_is_legal(board.x, board.y):
                continue
            work += 1
            if work == WORK_BLOCK:
                add_searched(work)
                work = 0
            values = unplayed_here[:1] if ordered else unplayed_here
            for step, result in steps_for(variant, board, values):
                # (H) counts head departures where it applies (a count kept in short nardy would keep apart
                # nodes that are the same position)
                heads = heads_here + (heads_allowed is not None and step.src == HEAD and not step.special)
                if heads_allowed is not None and heads > heads_allowed:
                    continue
                if per_step_blocks and long_family and not block_is_legal(result.x, result.y):
                    continue
                child = node(result, heads, _after_playing(unplayed_here, step.die, ordered), ordered)
                if child not in following.nodes:
                    following.add(child)
                    if walk or depth == 0:  # the first steps also tell which die was played: (D) below
                        following.link(index, steps.number(step))
                    if limit and len(following.nodes) > limit:
                        add_searched(work)
                        return None
        levels.append(following)
        if _has_legal(following, long_family):
            levels[best].drop_nodes()
            best, best_legal = depth + 1, True
        if best != depth:
            level.drop_nodes()  # only its parents and steps are needed now, to walk back
    add_searched(work)
    found = levels[best]
    nodes = list(found.nodes)
    keep = array("i", (i for i, packed in enumerate(nodes) if not (long_family and best_legal) or _legal(packed)))
    if not ordered and best == 1:
        higher = max(dice)
        if any(steps.steps[found.steps[i]].die == higher for i in keep):
            keep = array("i", (i for i in keep if steps.steps[found.steps[i]].die == higher))
    if best != len(dice):  # values left unplayed: nodes that differ only in them are one result
        first: dict[bytes, int] = {}
        for i in keep:
            first.setdefault(nodes[i][:BOARD_BYTES], i)
        keep = array("i", first.values())
    found.nodes.clear()
    return Candidates(levels, best, nodes, keep, steps if walk else None, dice)


def _legal(node: bytes) -> bool:
    """(B) at a packed node."""
    board = unpack(node)
    return block_is_legal(board.x, board.y)


def _has_legal(level: Level, long_family: bool) -> bool:
    """Whether a node of ``level`` satisfies (B) (every node outside the long family)."""
    return bool(level.nodes) and (not long_family or any(_legal(packed) for packed in level.nodes))


# --- docs/rules.md, What follows a move ---------------------------------------------------------------------


def remainder(variant: str, candidate: Candidate, segment: bool) -> tuple[int, ...]:
    """The unplayed values that go to the opponent (docs/rules.md, Gulbar transfers),
    gulbar and crazy only.

    Empty after a transfer segment (what it cannot play is forfeited) and after bearing off the last checker.
    """
    if not SPECS[variant].transfers or segment or candidate.result.xoff == 15:
        return ()
    return candidate.unplayed


def extra_roll(
    variant: str,
    roll: Optional[tuple[int, int]],
    candidate: Candidate,
    sixone_requires_play: bool,
) -> bool:
    """Whether the mover rolls again (docs/rules.md, Six-one extra roll: after 6-1; Gulbar extra roll: after a
    full double).

    Never after a transfer segment (``roll`` is ``None``) or when the game ended.
    """
    if roll is None or candidate.result.xoff == 15:
        return False
    kind = SPECS[variant].extra_roll
    if kind == "six_one":
        return sorted(roll) == [1, 6] and (not sixone_requires_play or candidate.played == 2)
    if kind == "full_double":
        return roll[0] == roll[1] and candidate.played == 4
    return False
