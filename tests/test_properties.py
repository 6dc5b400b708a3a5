"""Property tests: invariants of the rules (docs/rules.md, Rules: from Rolls and the dice list to Gulbar
transfers) on every legal move of thousands of random positions per variant, plus hypothesis tests that
shrink a failure to a small case.

* The positions come from seeded self-play (``tests/selfplay.py``): 2,000 plies per variant with default flags
  and 500 per flag combination. The seeds are fixed in ``CONFIGS``; changing one changes the positions but not
  what is checked. Crazy 1-1 and 2-2 ladders are re-rolled there (tens of thousands of results each); the
  opening test plays them from every opening position.
* The rule checks are written here from docs/rules.md, independently of the engine's rule functions: a mover's
  view, a block test, a single-step generator, the dice lists (docs/rules.md, Rolls and the dice list) and a search for all legal
  results (completeness and canonical steps: One move per result, Canonical step order).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from selfplay import SLOW_CRAZY_ROLLS, Ply, Roll, plies, random_pairs, random_positions

import nardy_fast
import nardy_fast.reference
from nardy_fast.position import Move, Position

LONG_FAMILY = frozenset({"long", "sixone", "gulbar", "crazy"})
HEAD, BAR, OFF = 24, 25, 0
#: Y's track in the mover's numbering (docs/rules.md, The mover's numbering): M12, M11, …, M1, M24, M23, …, M13.
Y_TRACK = tuple(range(12, 0, -1)) + tuple(range(24, 12, -1))


@dataclass(frozen=True)
class Config:
    """A variant, its rule flags, and the self-play run checked for it."""

    variant: str
    flags: tuple[tuple[str, object], ...] = ()
    count: int = 2000
    seed: int = 0
    reroll: tuple[Roll, ...] = ()

    @property
    def id(self) -> str:
        return "-".join([self.variant, *(f"{k}={v}" for k, v in self.flags)]).replace(" ", "")

    def self_play(self, position_cls: type[Position]) -> Iterator[Ply[Position]]:
        return plies(
            position_cls, self.variant, self.count, self.seed, reroll=self.reroll, **dict(self.flags)
        )


#: The self-play runs: 2,000 plies per variant with default flags, 500 per flag combination.
CONFIGS: tuple[Config, ...] = (
    Config("long", seed=1001),
    Config("sixone", seed=1002),
    Config("short", seed=1003),
    Config("gulbar", seed=1004),
    Config("crazy", seed=1005, reroll=SLOW_CRAZY_ROLLS),
    Config("long", (("block_check", "per_step"),), 500, 2001),
    Config("long", (("first_roll_exception_doubles", (6,)),), 500, 2002),
    Config("sixone", (("sixone_extra_roll_requires_play", True),), 500, 2003),
    Config("gulbar", (("block_check", "per_step"),), 500, 2004),
    Config("crazy", (("ladder_per_value", 4),), 500, 2005, (*SLOW_CRAZY_ROLLS, (3, 3))),
    Config(
        "crazy",
        (("block_check", "per_step"), ("first_roll_exception_doubles", ())),
        500,
        2006,
        SLOW_CRAZY_ROLLS,
    ),
    Config("crazy", (("normal_doubles_first_rolls", 3),), 500, 2007, SLOW_CRAZY_ROLLS),
)
ALL_ROLLS: tuple[Roll, ...] = tuple((a, b) for a in range(6, 0, -1) for b in range(a, 0, -1))

#: Open engine bugs found by these tests, by (implementation, variant): the completeness test is then a strict
#: xfail (it fails loudly once the bug is fixed) and the other tests skip only the completeness check. None is
#: open: ("python", "short"), the reference applying the block rule in short nardy, was fixed in 498bbe0.
KNOWN_BUGS: dict[tuple[str, str], str] = {}


def implementation(position_cls: type[Position]) -> str:
    """The conftest name of the implementation behind ``position_cls``."""
    return "python" if position_cls is nardy_fast.reference.Position else nardy_fast.IMPLEMENTATION


def known_bug(position_cls: type[Position], variant: str) -> str | None:
    return KNOWN_BUGS.get((implementation(position_cls), variant))


# --- the rules, written from docs/rules.md ----------------------------------------------------------------


@dataclass
class View:
    """A position seen by one side (docs/rules.md, The mover's numbering): ``x[m]``/``y[m]`` = own/opponent checkers on M``m``."""

    x: list[int]
    y: list[int]
    xbar: int = 0
    ybar: int = 0
    xoff: int = 0
    yoff: int = 0

    def copy(self) -> View:
        return View(self.x.copy(), self.y.copy(), self.xbar, self.ybar, self.xoff, self.yoff)


def white_point(variant: str, side: str, m: int) -> int:
    """White's number of ``side``'s own point ``m`` (docs/rules.md, The mover's numbering)."""
    if side == "white":
        return m
    if variant in LONG_FAMILY:
        return m + 12 if m <= 12 else m - 12
    return 25 - m


#: ``_WHITE_INDEX[variant in LONG_FAMILY, side]``: the board index of each of the side's points M0..M25.
_WHITE_INDEX = {
    (long, side): [0] + [white_point("long" if long else "short", side, m) - 1 for m in range(1, 25)] + [0]
    for long in (False, True)
    for side in ("white", "black")
}


def view(position: Position, side: str | None = None) -> View:
    """``position`` seen by ``side`` (default: the side to move)."""
    side = side or position.turn
    me = 0 if side == "white" else 1
    board = position.board if me == 0 else [-c for c in position.board]
    cells = [board[w] for w in _WHITE_INDEX[position.variant in LONG_FAMILY, side]]
    cells[0] = cells[25] = 0
    x = [max(c, 0) for c in cells]
    y = [max(-c, 0) for c in cells]
    bar, off = position.bar, position.off
    return View(x, y, bar[me], bar[1 - me], off[me], off[1 - me])


def block_ok(v: View) -> bool:
    """docs/rules.md, Block rule: no run of 6+ X points consecutive along Y's track without a Y checker past its end."""
    y_at = [t for t, m in enumerate(Y_TRACK) if v.y[m]]
    if not y_at:
        return True
    run = 0
    for t, m in enumerate(Y_TRACK):
        run = run + 1 if v.x[m] else 0
        if run >= 6 and y_at[-1] < t:
            return False
    return True


StepKey = tuple[int, int, int, bool, bool]  # src, dst, die, special, hit


def single_steps(variant: str, v: View, die: int) -> list[StepKey]:
    """Every legal single step with ``die`` (docs/rules.md, Normal step, Bearing off, Bar entry and hitting, Six-one special step), as (src, dst, die, special, hit)."""
    out: list[StepKey] = []
    closed = 0 if variant in LONG_FAMILY else 1

    def add(src: int, dst: int, special: bool = False) -> None:
        if dst == OFF or v.y[dst] <= closed:
            out.append((src, dst, die, special, dst != OFF and v.y[dst] == 1 and closed == 1))

    if v.xoff == 15:
        return out
    if v.xbar:
        add(BAR, 25 - die)
        return out
    home = not any(v.x[7:25])
    for src in range(1, 25):
        if not v.x[src]:
            continue
        if src > die:
            add(src, src - die)
        elif home and (src == die or not any(v.x[src + 1 : 25])):
            add(src, OFF)
    if variant == "sixone" and die in (1, 6) and v.x[HEAD]:
        add(HEAD, die, special=True)
    return out


def after(v: View, key: StepKey) -> View:
    """``v`` after the step ``key``: one X checker moved, a hit blot sent to the bar, a checker borne off."""
    src, dst, _, _, hit = key
    out = v.copy()
    if src == BAR:
        out.xbar -= 1
    else:
        out.x[src] -= 1
    if dst == OFF:
        out.xoff += 1
    else:
        out.x[dst] += 1
    if hit:
        out.y[dst], out.ybar = 0, out.ybar + 1
    return out


def dice_list(position: Position, roll: Roll | None) -> tuple[int, ...]:
    """The values to play (docs/rules.md, Rolls and the dice list): the pending list, {a, b}, four of a double or a crazy ladder."""
    if roll is None:
        return position.pending
    a, b = roll
    if a != b:
        return (max(a, b), min(a, b))
    counted = position.flags.get("normal_doubles_first_rolls", 0)
    assert isinstance(counted, int)
    normal = position.rolls_played[0 if position.turn == "white" else 1] < counted
    if position.variant == "crazy" and not normal:  # docs/rules.md, Crazy gulbar ladders and flag normal_doubles_first_rolls
        per_value = position.flags["ladder_per_value"]
        assert isinstance(per_value, int)
        return tuple(d for d in range(a, 7) for _ in range(per_value))
    return (a,) * 4


def is_ordered(dice: Sequence[int]) -> bool:
    """Exactly two different values are played in either order, any other list in order (docs/rules.md, What follows a move)."""
    return not (len(dice) == 2 and dice[0] != dice[1])


def head_limit(position: Position, roll: Roll | None) -> int:
    """Normal head departures allowed in one move (docs/rules.md, Head rule; First-roll exception; Gulbar transfers); 99 = no limit (short)."""
    if position.variant not in LONG_FAMILY:
        return 99
    mover = 0 if position.turn == "white" else 1
    exception = position.flags.get("first_roll_exception_doubles", ())
    assert isinstance(exception, tuple)
    if (
        roll is not None
        and position.variant != "sixone"
        and position.first_roll[mover]
        and roll[0] == roll[1]
        and roll[0] in exception
    ):
        return 2
    return 1


def is_head_departure(key: StepKey) -> bool:
    return key[0] == HEAD and not key[3]


# --- checks -----------------------------------------------------------------------------------------------


@dataclass
class Walk:
    """A move's steps replayed on the mover's view, with what the move left."""

    end: View
    unplayed: tuple[int, ...]
    heads: int
    specials: int = 0
    intermediates: list[View] = field(default_factory=list)


def walk(position: Position, roll: Roll | None, move: Move) -> Walk:
    """Replay ``move.steps`` with the single-step generator, asserting each step is legal for its value."""
    variant = position.variant
    dice = dice_list(position, roll)
    ordered = is_ordered(dice)
    left = list(dice)
    v, heads, specials = view(position), 0, 0
    states = []
    for i, step in enumerate(move.steps):
        key: StepKey = (step.src, step.dst, step.die, step.special, step.hit)
        assert i < len(dice), f"more steps than the values {dice}"
        assert (step.die == left[0]) if ordered else (step.die in left), (
            f"{step} does not use {dice} in order"
        )
        left.remove(step.die)
        assert key in single_steps(variant, v, step.die), f"step {step} {key} is not legal (docs/rules.md, Normal step)"
        v = after(v, key)
        heads += is_head_departure(key)
        specials += step.special
        states.append(v)
    return Walk(v, tuple(left), heads, specials, states)


def legal_extension(position: Position, roll: Roll | None, w: Walk) -> StepKey | None:
    """A further step the move could have played (docs/rules.md, Maximal use of the dice): legal, within (H), (B)-legal result."""
    if w.end.xoff == 15 or not w.unplayed:
        return None
    values = w.unplayed[:1] if is_ordered(dice_list(position, roll)) else tuple(set(w.unplayed))
    for die in values:
        for key in single_steps(position.variant, w.end, die):
            if w.heads + is_head_departure(key) > head_limit(position, roll):
                continue
            if position.variant not in LONG_FAMILY or block_ok(after(w.end, key)):
                return key
    return None


ViewKey = tuple[tuple[int, ...], tuple[int, ...], int, int, int, int]


def view_key(v: View) -> ViewKey:
    return (tuple(v.x), tuple(v.y), v.xbar, v.ybar, v.xoff, v.yoff)


def step_order(key: StepKey) -> tuple[int, int, int]:
    """docs/rules.md, Canonical step order: from-point (bar 25), then die value, then normal > special."""
    return (key[0], key[2], 0 if key[3] else 1)


def all_legal_results(position: Position, roll: Roll | None) -> dict[ViewKey, list[StepKey]]:
    """Every legal result with its canonical steps, by a level-by-level search over all step sequences
    (docs/rules.md, Head rule, Block rule, Maximal use of the dice, Higher die, Passing, One move per result): the greatest sequence reaching a node is kept, which is enough
    because sequences of one length compare on their first differing step."""
    variant, dice = position.variant, dice_list(position, roll)
    ordered, limit = is_ordered(dice), head_limit(position, roll)
    per_step, blocks = position.flags.get("block_check") == "per_step", variant in LONG_FAMILY
    start = view(position)
    Node = tuple[ViewKey, tuple[int, ...], int]
    level: dict[Node, tuple[View, list[StepKey]]] = {(view_key(start), dice, 0): (start, [])}
    best = level
    while level:
        legal = {n: vs for n, vs in level.items() if not blocks or block_ok(vs[0])}
        best = legal or best
        following: dict[Node, tuple[View, list[StepKey]]] = {}
        for (_, left, heads), (v, seq) in (legal if per_step else level).items():
            if v.xoff == 15:
                continue
            for die in left[:1] if ordered else sorted(set(left)):
                rest = list(left)
                rest.remove(die)
                for step in single_steps(variant, v, die):
                    used = heads + is_head_departure(step)
                    if used > limit:
                        continue
                    nv = after(v, step)
                    node = (view_key(nv), tuple(rest), used)
                    old = following.get(node)
                    if old is None or [step_order(k) for k in old[1]] < [step_order(k) for k in seq + [step]]:
                        following[node] = (nv, seq + [step])
        level = following
    if not ordered and any(len(seq) == 1 for _, seq in best.values()):
        high = [(n, vs) for n, vs in best.items() if vs[1][0][2] == max(dice)]
        best = dict(high) or best
    results: dict[ViewKey, list[StepKey]] = {}
    for (key, _, _), (_, seq) in best.items():
        old_seq = results.get(key)
        if old_seq is None or [step_order(k) for k in old_seq] < [step_order(k) for k in seq]:
            results[key] = seq
    return results


def check_complete(ply: Ply[Position]) -> None:
    """The moves are exactly the legal results of :func:`all_legal_results`, each with its canonical steps."""
    p, roll = ply.position, ply.roll
    if p.is_over():
        return
    expected = all_legal_results(p, roll)
    got = {view_key(view(m.result, p.turn)): m for m in ply.moves}
    where = f"{p!r} roll={roll}"
    missing = [seq for key, seq in expected.items() if key not in got]
    extra = [str(m) for key, m in got.items() if key not in expected]
    assert not missing and not extra, (
        f"{where}: missing results {missing[:3]}, extra {extra[:3]} (docs/rules.md, Maximal use of the dice)"
    )
    for key, move in got.items():
        steps = [(s.src, s.dst, s.die, s.special, s.hit) for s in move.steps]
        assert steps == expected[key], (
            f"{where}: {move} is not canonical, expected {expected[key]} (docs/rules.md, Canonical step order)"
        )


def expected_points(variant: str, winner: View) -> int:
    """docs/rules.md, Game end and scoring: 1; mars 2; koks 3 (short only): mars with a loser checker on the bar or in M1..M6."""
    if winner.yoff:
        return 1
    return 3 if variant == "short" and (winner.ybar or any(winner.y[1:7])) else 2


def check_conservation(p: Position) -> dict[str, View]:
    """15 checkers a side on board + bar + off, counts in range, no bar and no illegal block of
    either side in the long family. Returns both sides' views."""
    assert len(p.board) == 24 and all(-15 <= c <= 15 for c in p.board), f"board {p.board}"
    views = {side: view(p, side) for side in ("white", "black")}
    for v in views.values():
        assert sum(v.x) + v.xbar + v.xoff == 15 and v.xbar >= 0 and v.xoff >= 0, (
            "not 15 checkers"
        )
    pips = tuple(sum(m * v.x[m] for m in range(25)) + BAR * v.xbar for v in views.values())
    assert p.pips() == pips, f"pips {p.pips()}, expected {pips}"
    if p.variant in LONG_FAMILY:
        assert p.bar == (0, 0), f"bar {p.bar} in the long family"
        assert all(block_ok(v) for v in views.values()), "an illegal block (docs/rules.md, Block rule)"
    return views


def check_ply(ply: Ply[Position]) -> None:
    """Every invariant of one position, its roll and its moves; a failure names the position and roll."""
    try:
        check_moves(ply.position, ply.roll, ply.moves)
    except AssertionError as error:
        raise AssertionError(f"{ply.position!r} roll={ply.roll}: {error}") from error


def check_moves(p: Position, roll: Roll | None, moves: Sequence[Move]) -> None:
    """The rules (docs/rules.md, Rules) on the moves of ``p`` for ``roll``."""
    check_conservation(p)
    if p.is_over():
        assert not moves and p.legal_moves(roll) == [], "a finished game has no moves"
        return
    assert moves, "no move: a side that cannot play gets the empty move (docs/rules.md, Passing)"
    dice = dice_list(p, roll)
    used = {len(m.steps) for m in moves}
    assert len(used) == 1, f"moves of different lengths {sorted(used)} (docs/rules.md, Maximal use of the dice)"
    (u_max,) = used
    assert u_max <= len(dice), f"{u_max} steps for the values {dice}"
    if u_max == 0:
        assert len(moves) == 1 and moves[0].result.board == p.board, "a pass is one empty move (docs/rules.md, Passing)"
    assert len({m.result for m in moves}) == len(moves), "two moves with one result (docs/rules.md, One move per result)"
    assert len({(m.result.board, m.result.bar, m.result.off) for m in moves}) == len(moves), (
        "two moves reach one board (docs/rules.md, One move per result)"
    )
    for move in moves:
        try:
            check_move(p, roll, move, u_max)
        except AssertionError as error:
            raise AssertionError(f"move {move}: {error}") from error


def check_move(p: Position, roll: Roll | None, move: Move, u_max: int) -> None:
    """One move: a legal step sequence within (H), its result valid (B) and maximal (M, D), next state."""
    dice, limit = dice_list(p, roll), head_limit(p, roll)
    assert move.roll == roll, f"roll {move.roll}"
    end = check_conservation(move.result)[p.turn]
    start, w = view(p), walk(p, roll, move)
    assert w.end == end, "the steps do not reach the result"
    assert w.heads <= limit, f"{w.heads} head departures > {limit} (docs/rules.md, Head rule)"
    assert start.x[HEAD] - end.x[HEAD] - w.specials <= limit, "too many checkers left the head (docs/rules.md, Head rule)"
    if p.flags.get("block_check") == "per_step":
        assert all(block_ok(s) for s in w.intermediates), (
            "a step makes an illegal block (block_check=per_step)"
        )
    extension = legal_extension(p, roll, w)
    assert extension is None, f"{extension} could also be played (docs/rules.md, Maximal use of the dice)"
    if not is_ordered(dice) and u_max == 1 and move.steps[0].die < max(dice):
        higher = single_steps(p.variant, start, max(dice))
        playable = [k for k in higher if p.variant not in LONG_FAMILY or block_ok(after(start, k))]
        assert not playable, f"the higher die is playable by {playable[0]} (docs/rules.md, Higher die)"
    check_next_state(p, roll, move, w)


def check_next_state(p: Position, roll: Roll | None, move: Move, w: Walk) -> None:
    """docs/rules.md, What follows a move, Six-one extra roll, Gulbar transfers, Gulbar extra roll: side to move, pending list, extra roll and first-roll flags."""
    r, u = move.result, len(move.steps)
    mover, me = p.turn, (0 if p.turn == "white" else 1)
    other = "black" if mover == "white" else "white"
    assert r.variant == p.variant and r.flags == p.flags, "variant or flags changed"
    first = list(p.first_roll)
    if roll is not None:
        first[me] = False
    assert r.first_roll == tuple(first), f"first_roll {r.first_roll} (docs/rules.md, What follows a move)"
    played = list(p.rolls_played)
    counted = p.flags.get("normal_doubles_first_rolls", 0)
    assert isinstance(counted, int)
    if roll is not None:
        played[me] = min(counted, played[me] + 1)
    assert r.rolls_played == tuple(played), f"rolls_played {r.rolls_played} (docs/rules.md, Rule flags)"
    if w.end.xoff == 15:
        assert r.turn == other and r.pending == (), "a finished game: the loser to move, nothing pending"
        assert not move.extra_roll and move.remainder == (), "a finished game: no extra roll, no remainder"
        assert r.is_over() and r.winner() == mover and r.legal_moves((6, 5)) == [], "the game is not over"
        assert r.points() == expected_points(r.variant, w.end), f"scores {r.points()} (docs/rules.md, Game end and scoring)"
        return
    assert not r.is_over() and r.winner() is None and r.points() == 0, "the game is over"
    extra = roll is not None and (
        (
            p.variant == "sixone"
            and sorted(roll) == [1, 6]
            and (u == 2 or not p.flags["sixone_extra_roll_requires_play"])
        )
        or (p.variant == "gulbar" and roll[0] == roll[1] and u == 4)
    )
    assert move.extra_roll == extra, f"extra_roll {move.extra_roll} (docs/rules.md, Six-one extra roll, Gulbar extra roll)"
    remainder: tuple[int, ...] = ()
    if roll is not None and p.variant in ("gulbar", "crazy"):
        two = not is_ordered(dice_list(p, roll))
        remainder = tuple(sorted(w.unplayed, reverse=True)) if two else w.unplayed
    assert move.remainder == remainder and r.pending == remainder, (
        f"remainder {move.remainder}, pending {r.pending}, expected {remainder} (docs/rules.md, Gulbar transfers)"
    )
    turn = mover if extra or roll is None else other
    assert r.turn == turn, f"{r.turn} to move (docs/rules.md, What follows a move)"


def state_of(p: Position) -> tuple[object, ...]:
    """Everything a position holds, via the public API (a result's identity, docs/rules.md, One move per
    result, plus the next-state fields)."""
    flags = tuple(sorted(p.flags.items()))
    return (p.variant, p.turn, p.board, p.bar, p.off, p.first_roll, p.pending, flags)


def check_identity(positions: Sequence[Position]) -> None:
    """Equal states ⇔ equal ``==`` ⇔ equal text ⇔ equal Zobrist key; ``hash`` agrees with ``==``."""
    text_of: dict[tuple[object, ...], str] = {}
    first_of: dict[str, Position] = {}
    state_by_key: dict[int, tuple[object, ...]] = {}
    for p in positions:
        state, text, key = state_of(p), p.to_text(), p.zobrist
        assert 0 <= key < 1 << 64
        assert text_of.setdefault(state, text) == text, f"one state, two texts: {text}"
        assert state_by_key.setdefault(key, state) == state, f"two states share the key {key:#x}: {text}"
        q = first_of.setdefault(text, p)
        assert p == q and hash(p) == hash(q) and q.zobrist == key, f"equal texts, unequal positions: {text}"
        assert state_of(q) == state, f"one text, two states: {text}"
    distinct = sorted(first_of.values(), key=lambda p: p.zobrist)
    for p, q in itertools.pairwise(distinct):
        assert p != q, f"{p!r} == {q!r}"


#: Values of every rule flag (docs/rules.md, Rule flags), to build positions that differ from a given one in a single field.
FLAG_VALUES: dict[str, tuple[object, ...]] = {
    "block_check": ("end_of_turn", "per_step"),
    "ladder_per_value": (2, 4),
    "first_roll_exception_doubles": ((6, 4, 3), (6,), ()),
    "sixone_extra_roll_requires_play": (False, True),
    "normal_doubles_first_rolls": (0, 3),
}


def siblings(p: Position, position_cls: type[Position]) -> list[Position]:
    """``p`` with one field changed at a time (where still valid): side to move, first rolls, pending
    list, each flag."""
    fields: dict[str, object] = {
        "turn": p.turn,
        "bar": p.bar,
        "off": p.off,
        "first_roll": p.first_roll,
        "pending": p.pending,
        **p.flags,
    }
    options: list[tuple[str, tuple[object, ...]]] = [
        ("turn", ("white", "black")),
        ("first_roll", ((True, True), (True, False), (False, True), (False, False))),
    ]
    if p.variant in ("gulbar", "crazy") and not p.is_over():
        options.append(("pending", ((), (6,), (6, 5))))
    options += [(name, FLAG_VALUES[name]) for name in p.flags]
    out = []
    for name, values in options:
        for value in values:
            changed = {**fields, name: value}
            try:
                out.append(position_cls.from_board(p.variant, p.board, **changed))  # type: ignore[arg-type]
            except nardy_fast.InvalidPositionError:
                continue  # e.g. a crazy ladder suffix under the other ladder length
    return out


def check_round_trip(p: Position, position_cls: type[Position]) -> None:
    """``from_text(to_text(p)) == p`` and ``eval(repr(p)) == p``, with the same text and key."""
    text = p.to_text()
    back = position_cls.from_text(text)
    assert back == p and back.to_text() == text and back.zobrist == p.zobrist, text
    assert eval(repr(p), {"Position": position_cls}) == p, repr(p)


def check_replay(p: Position, roll: Roll | None, move: Move, as_move: bool = True) -> None:
    """The move played back by its text (and as a ``Move``) reaches its result."""
    text = " ".join(str(s) for s in move.steps)
    assert p.play(text, roll) == move.result, f"{p!r} roll={roll}: play({text!r})"
    assert not as_move or p.play(move) == move.result, f"{p!r} roll={roll}: play(<Move {move}>)"


# --- the tests ----------------------------------------------------------------------------------------------


@pytest.fixture(scope="module", params=CONFIGS, ids=[c.id for c in CONFIGS])
def run(request: pytest.FixtureRequest, Position: type[Position]) -> tuple[Ply[Position], ...]:
    """The self-play plies of one config, generated once per implementation and config."""
    config: Config = request.param
    return tuple(config.self_play(Position))


def test_selfplay_is_reproducible(Position: type[Position]) -> None:
    """Same seed, same games, whatever the implementation; re-rolled rolls never played; (position, roll)."""
    first = [p.to_text() for p in random_positions(Position, "gulbar", 300, 7)]
    assert len(first) == 300
    assert first == [p.to_text() for p in random_positions(Position, "gulbar", 300, 7)]
    assert first == [p.to_text() for p in random_positions(nardy_fast.reference.Position, "gulbar", 300, 7)]
    assert first != [p.to_text() for p in random_positions(Position, "gulbar", 300, 8)]
    pairs = list(random_pairs(Position, "crazy", 300, 7, reroll=SLOW_CRAZY_ROLLS))
    assert all(roll is None or sorted(roll) not in ([1, 1], [2, 2]) for _, roll in pairs)
    assert all((roll is None) == bool(p.pending) for p, roll in pairs)
    assert sum(p.is_over() for p, _ in pairs) <= 10


@pytest.mark.slow  # every move of every self-play ply checked: about a minute over the variants
def test_every_move_keeps_the_rules(run: tuple[Ply[Position], ...]) -> None:
    """docs/rules.md, Rules: checkers and blocks, steps, H/B/M/D/P, distinct results, what follows a move."""
    assert sum(not ply.position.is_over() for ply in run) >= 0.95 * len(run)
    for ply in run:
        check_ply(ply)


@pytest.mark.slow  # an independent search of every self-play ply (the runs take half a minute to play)
def test_moves_are_complete_and_canonical(
    run: tuple[Ply[Position], ...], Position: type[Position], request: pytest.FixtureRequest
) -> None:
    """The moves are exactly the legal results found by an independent search, with canonical steps (One move per result)."""
    reason = known_bug(Position, run[0].position.variant)
    if reason:
        request.applymarker(pytest.mark.xfail(strict=True, reason=reason))
    for ply in run:
        check_complete(ply)


@pytest.mark.slow  # every position and result of every self-play run (the runs take half a minute to play)
def test_keys_and_equality(run: tuple[Ply[Position], ...], Position: type[Position]) -> None:
    """Zobrist key, ``==``, ``hash`` and the text agree over every position and result of the run, and over
    positions that differ from one of every ten in a single field."""
    check_identity([ply.position for ply in run] + [m.result for ply in run for m in ply.moves])
    for ply in run[::10]:
        check_identity(siblings(ply.position, Position))


@pytest.mark.slow  # every position of every self-play run (the runs take half a minute to play)
def test_text_round_trip(run: tuple[Ply[Position], ...], Position: type[Position]) -> None:
    """Text and ``repr`` round trips: every position, and every result of one ply in eight."""
    for i, ply in enumerate(run):
        check_round_trip(ply.position, Position)
        for move in ply.moves if i % 8 == 0 else ():
            check_round_trip(move.result, Position)


@pytest.mark.slow  # moves of every self-play ply played back (the runs take half a minute to play)
def test_replay_by_play(run: tuple[Ply[Position], ...]) -> None:
    """``play`` reaches the result: one random move of every ply by its text, one in ten also as a ``Move``,
    and up to 8 moves of one ply in 50."""
    rng = random.Random(3)
    for i, ply in enumerate(run):
        if not ply.moves:
            continue
        chosen = ply.moves[:: -(-len(ply.moves) // 8)] if i % 50 == 0 else (rng.choice(ply.moves),)
        for move in chosen:
            check_replay(ply.position, ply.roll, move, as_move=i % 10 == 0)


def opening_plies(position_cls: type[Position], config: Config) -> Iterator[Ply[Position]]:
    """Every ply of the opening: all rolls from the start, and, in the long family, from each position where
    the side to move still has its first roll or a pending list (docs/rules.md, First-roll exception, Gulbar transfers), up to 3 plies deep."""
    frontier = [position_cls.start(config.variant, **dict(config.flags))]
    seen = set(frontier)
    for depth in range(3):
        following = []
        for p in frontier:
            mover = 0 if p.turn == "white" else 1
            if depth and (p.variant not in LONG_FAMILY or not (p.first_roll[mover] or p.pending)):
                continue
            for roll in (None,) if p.pending else ALL_ROLLS:
                moves = tuple(p.legal_moves(roll))
                yield Ply(p, roll, moves)
                for move in moves:
                    if move.result not in seen:
                        seen.add(move.result)
                        following.append(move.result)
        frontier = following


def check_all(position_cls: type[Position], run: Sequence[Ply[Position]], replay: int = 0) -> None:
    """Every check on a few plies: rules, completeness (unless a known bug), keys, round trips, replays."""
    for ply in run:
        check_ply(ply)
        if not known_bug(position_cls, ply.position.variant):
            check_complete(ply)
        check_round_trip(ply.position, position_cls)
        check_identity(siblings(ply.position, position_cls))
        for move in ply.moves[:replay]:
            check_replay(ply.position, ply.roll, move)
    check_identity([ply.position for ply in run] + [m.result for ply in run for m in ply.moves])


@pytest.mark.parametrize("config", CONFIGS, ids=[c.id for c in CONFIGS])
def test_opening_plies(Position: type[Position], config: Config) -> None:
    """All rolls of both first rolls (crazy 1-1 and 2-2 ladders included), with every check."""
    run = list(opening_plies(Position, config))
    assert len(run) >= 21
    check_all(Position, run)


@pytest.mark.slow  # a self-play game per example, in both implementations
@given(
    config=st.sampled_from(CONFIGS),
    seed=st.integers(0, 2**32 - 1),
    ply=st.integers(0, 100),
    roll=st.tuples(st.integers(1, 6), st.integers(1, 6)),
)
def test_selfplay_position_hypothesis(
    Position: type[Position], config: Config, seed: int, ply: int, roll: Roll
) -> None:
    """Every check for a position drawn as (config, seed, ply) of self-play and a drawn roll."""
    assume(roll not in config.reroll)
    position = random_positions(
        Position, config.variant, ply + 1, seed, reroll=config.reroll, **dict(config.flags)
    )[-1]
    dice = None if position.pending else roll
    moves = () if position.is_over() else tuple(position.legal_moves(dice))
    check_all(Position, [Ply(position, dice, moves)], replay=3)


def _pending_lists(variant: str) -> st.SearchStrategy[tuple[int, ...]]:
    """Transfer lists a gulbar/crazy position may hold (docs/rules.md, Gulbar transfers), short enough to play quickly."""
    if variant not in ("gulbar", "crazy"):
        return st.just(())
    two = st.tuples(st.integers(1, 6), st.integers(1, 6)).filter(lambda t: t[0] != t[1])
    equal = st.builds(
        lambda d, k: (d,) * k, st.integers(4, 6), st.integers(2, 4 if variant == "gulbar" else 2)
    )
    suffix = st.sampled_from([(5, 6, 6), (5, 5, 6, 6), (4, 5, 5, 6, 6)] if variant == "crazy" else [()])
    one = st.integers(1, 6).map(lambda d: (d,))
    return st.one_of(st.just(()), one, two, equal, suffix)


@st.composite
def arbitrary_positions(draw: st.DrawFn, position_cls: type[Position]) -> Position:
    """A valid position with checkers placed anywhere (15 checkers a side, no illegal block): each side's 15 checkers spread over a
    drawn stretch of its own points (``low..reach``; 1..6 = all home), off or (short) on the bar; the second
    side avoids the points the first took."""
    config = draw(st.sampled_from(CONFIGS))
    variant = config.variant
    board, bar, off = [0] * 24, [0, 0], [0, 0]
    for s, side in enumerate(("white", "black")):
        reach = draw(st.sampled_from((6, 12, 18, 24)))
        low = draw(st.sampled_from([p for p in (1, 7, 13) if p <= reach]))
        top = reach + (variant == "short")
        sign = 1 if side == "white" else -1
        for spot in draw(st.lists(st.integers(low - 1, top), min_size=15, max_size=15)):
            if spot > reach:
                bar[s] += 1
                continue
            spot = 0 if spot < low else spot
            while spot and board[white_point(variant, side, spot) - 1] * sign < 0:
                spot -= 1  # taken by the other side: the next free point nearer home, or off
            if spot:
                board[white_point(variant, side, spot) - 1] += sign
            else:
                off[s] += 1
    first = (draw(st.booleans()), draw(st.booleans()))
    pending = draw(_pending_lists(variant))
    try:
        return position_cls.from_board(
            variant,
            board,
            turn=draw(st.sampled_from(("white", "black"))),
            bar=tuple(bar),
            off=tuple(off),
            first_roll=first,
            pending=pending,
            rolls_played=(0, 0),
            **dict(config.flags),
        )
    except nardy_fast.InvalidPositionError:
        assume(False)
        raise


@pytest.mark.slow  # 200 arbitrary positions searched in both implementations
@given(data=st.data(), roll=st.tuples(st.integers(1, 6), st.integers(1, 6)))
def test_arbitrary_position_hypothesis(Position: type[Position], data: st.DataObject, roll: Roll) -> None:
    """Every check for an arbitrary valid position (bear-offs, bars, blocks self-play rarely reaches)."""
    position = data.draw(arbitrary_positions(Position))
    ladder = position.flags.get("ladder_per_value")
    assume(not (ladder and roll[0] == roll[1] and roll[0] < (4 if ladder == 2 else 6)))
    dice = None if position.pending else roll
    moves = () if position.is_over() else tuple(position.legal_moves(dice))
    check_all(Position, [Ply(position, dice, moves)], replay=3)
