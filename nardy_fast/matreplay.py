"""The replay half of reading ``.mat`` by the fast path (:mod:`nardy_fast.matfast`): the written moves in the
kernel's form, every ply of a file matched to its legal move by the implementation's replay kernel (each game
in one call, the plies it leaves to :func:`~nardy_fast.records.find_move` matched in Python), the plies made
once per distinct value, and a :class:`~nardy_fast.records.Replay` that takes them whole.
"""

from __future__ import annotations

from typing import Optional

import numpy as np
import numpy.typing as npt

from . import layout
from .board import Step
from .cube import Match
from .cube.state import SIDES
from .kernels import ReplayKernel
from .notation import parse_move
from .position import Position
from .records import Ply, Replay, find_move, variant_starts

__all__ = ["AsideError", "MAX_WRITTEN", "MAX_STEPS", "written", "step_of", "code_of", "position_of", "Replayed",
           "Plies"]

#: The written pairs of a ply the kernel compares (its ``MAX_WRITTEN``), and the steps of a move it returns.
MAX_WRITTEN = 16
MAX_STEPS = 4
#: Each written move seen, by its roll and steps text: its dice, its number of pairs and the pairs, as the
#: kernel reads them (a session repeats its moves), or ``None`` for a text the kernel cannot take.
_WRITTEN: dict[str, Optional[bytes]] = {}
#: Step objects by their code (``src | die << 5 | special << 8 | hit << 9``).
_STEP_OF: dict[int, Step] = {}
#: Each step token seen (``13/9``, ``25/20*``, ``13/7(2)``): its pairs, flat.
_TOKENS: dict[str, tuple[int, ...]] = {}


class AsideError(Exception):
    """The fast path steps aside: the reader of :mod:`nardy_fast.matread` reads the file."""


def written(key: str) -> bytes:
    """The kernel's form of a written move ``d1d2: steps``."""
    found = _WRITTEN.get(key)
    if found is None:
        if key in _WRITTEN:
            raise AsideError
        roll = key[:2]
        pairs: list[int] = []  # each step token's pairs, as parse_move reads them (a file's tokens are few)
        for token in key[3:].split():
            known = _TOKENS.get(token)
            if known is None:
                if len(_TOKENS) > 100_000:  # a bound on the cache: a hostile file may hold any number of tokens
                    _TOKENS.clear()
                # a token parse_move refuses is a NardyError: the fast path steps aside, the reader names it
                known = _TOKENS[token] = tuple(v for pair in parse_move(token) for v in pair)
            pairs += known
        if len(pairs) > 2 * MAX_WRITTEN:
            _WRITTEN[key] = None
            raise AsideError
        if len(_WRITTEN) > 100_000:  # a bound on the cache: a hostile file may hold any number of moves
            _WRITTEN.clear()
        found = _WRITTEN[key] = bytes([int(roll[0]), int(roll[1]), len(pairs) // 2, *pairs,
                                       *[0] * (2 * MAX_WRITTEN - len(pairs))])
    return found


def step_of(code: int) -> Step:
    """The step of a code, as the core's ``step_object`` makes it."""
    step = _STEP_OF.get(code)
    if step is None:
        src, die, special = code & 31, (code >> 5) & 7, (code >> 8) & 1
        dst = src - die
        if dst < 0 or (src == 24 and special):
            dst = die if special else 0
        step = _STEP_OF[code] = Step(src, dst, die, bool(special), bool((code >> 9) & 1))
    return step


def code_of(step: Step) -> int:
    """A step's code (``rows.step_object``'s inverse)."""
    return step.src | step.die << 5 | int(step.special) << 8 | int(step.hit) << 9


def position_of(row: npt.NDArray[np.int8], start: Position) -> Position:
    """The position of a row the kernel made from ``start``'s game: ``layout.unpack``'s state without its
    checks (the kernel's rows pass the core's row gate), the rule flags the start's."""
    values = row.tolist()
    npending = values[layout.NPENDING]
    state = start.state._replace(
        turn=SIDES[values[layout.TURN]], board=tuple(values[layout.BOARD : layout.BOARD + 24]),
        bar=(values[layout.BAR], values[layout.BAR + 1]), off=(values[layout.OFF], values[layout.OFF + 1]),
        first_roll=(bool(values[layout.FIRST_ROLL]), bool(values[layout.FIRST_ROLL + 1])),
        pending=tuple(values[layout.PENDING : layout.PENDING + npending]),
        rolls_played=(values[layout.ROLLS_PLAYED], values[layout.ROLLS_PLAYED + 1]))
    return type(start)._trusted(state)


_NEW = object.__new__
#: Each roll by its six bits (d1 | d2 << 3), one tuple for all its plies.
_ROLL_OF = {a | b << 3: (a, b) for a in range(1, 7) for b in range(1, 7)}


class Replayed(Replay):
    """A :class:`Replay` of plies the kernel matched: taken in runs, the position made from the last one's row
    only when a cube action, a result or the record reads it."""

    def __init__(self, start: Position, match: Optional[Match]) -> None:
        super().__init__(start, match)
        self.row: Optional[npt.NDArray[np.int8]] = None
        self.last_side: Optional[str] = None

    @property
    def position(self) -> Position:
        """The position now."""
        if self.row is not None:
            self.current = position_of(self.row, self.start)
            self.row = None
        return self.current

    def follow(self, plies: list[Ply], row: npt.NDArray[np.int8]) -> None:
        """Plies that follow (each matched from the position before it, which was not over)."""
        if self.resigned is not None or self.dropped is not None or self.offered is not None:
            raise AsideError
        self.events.extend(plies)
        self.row = row
        self.last_side = plies[-1].side

    def turn_start(self) -> bool:
        """:meth:`Replay.turn_start`, the last ply's side kept for its parent's turn."""
        position = self.position
        if self.is_over() or position.pending:
            return False
        if self.last_side is None:
            return self.start.to_text() not in variant_starts(self.start) and not self.actions
        return self.last_side != position.turn


class Plies:
    """Every ply of a file matched by the kernel: their results' rows and their values."""

    def __init__(self, kernel: ReplayKernel, cls: type[Position], starts: npt.NDArray[np.int8],
                 bounds: npt.NDArray[np.int64], keys: list[str], sides: bytearray) -> None:
        """Match the plies ``keys`` (``d1d2: steps``) of the games whose plies are ``bounds[k, 0]`` up to
        ``bounds[k, 1]``, each from its start row ``starts[k]``; ``sides``: each ply's side as the lines say."""
        count = len(keys)
        known = list(map(_WRITTEN.get, keys))
        if None in known:  # moves not seen before (a file's distinct moves, once each)
            known = [seen or written(key) for seen, key in zip(known, keys)]
        data = np.frombuffer(b"".join(known), dtype=np.int8).reshape(count, 3 + 2 * MAX_WRITTEN)  # type: ignore[arg-type]
        rolls = np.ascontiguousarray(data[:, :2])
        npairs = np.ascontiguousarray(data[:, 2])
        pairs = np.ascontiguousarray(data[:, 3:])
        self.rows = results = np.zeros((count, layout.WIDTH), dtype=np.int8)
        steps = np.zeros((count, MAX_STEPS), dtype=np.uint16)
        levels = np.zeros(count, dtype=np.int8)
        first, last = bounds[:, 0].copy(), bounds[:, 1].copy()
        first_turns = starts[:, layout.TURN].copy()
        starts = starts.copy()  # each game's row before the next ply the kernel is to match
        active = np.flatnonzero(first < last)
        while len(active):
            stops = np.zeros(len(active), dtype=np.int64)
            kernel(np.ascontiguousarray(starts[active]), first[active], last[active], rolls, pairs, npairs, results,
                   steps, levels, stops)
            active = active[stops >= 0]
            for k, j in zip(active.tolist(), stops[stops >= 0].tolist()):
                parent = cls.from_array(starts[k] if j == first[k] else results[j - 1])
                if parent.is_over() or parent.pending:
                    raise AsideError
                given = pairs[j].tolist()
                move = find_move(parent, (int(rolls[j, 0]), int(rolls[j, 1])),
                                 [(given[2 * i], given[2 * i + 1]) for i in range(npairs[j])], "", "")
                if len(move.steps) > MAX_STEPS:
                    raise AsideError
                results[j] = move.result.to_array()
                steps[j, : len(move.steps)] = [code_of(step) for step in move.steps]
                levels[j] = len(move.steps)
                starts[k] = results[j]
                first[k] = j + 1
            active = active[first[active] < last[active]]
        # each ply's side is the turn of the position before it: as the lines said, and passed on by it
        parent_turn = np.empty(count, dtype=np.int8)
        parent_turn[1:] = results[:-1, layout.TURN]
        played = bounds[:, 0] < bounds[:, 1]
        parent_turn[bounds[played, 0]] = first_turns[played]
        over = (results[:, layout.OFF] == 15) | (results[:, layout.OFF + 1] == 15)
        if (parent_turn != np.frombuffer(sides, dtype=np.int8)).any() or (
                (results[:, layout.TURN] == parent_turn) & ~over).any():
            raise AsideError
        # one Ply per distinct (side, roll, steps): a ply's key packs them in 50 bits (10 a step code)
        key = parent_turn.astype(np.int64) | (rolls[:, 0].astype(np.int64) << 1) | (rolls[:, 1].astype(np.int64) << 4)
        # (bits: the side, the dice, the number of steps, each step's code)
        key |= levels.astype(np.int64) << 7
        for s in range(MAX_STEPS):
            key |= steps[:, s].astype(np.int64) << (10 + 10 * s)
        _, first_of, inverse = np.unique(key, return_index=True, return_inverse=True)
        moves: dict[int, tuple[Step, ...]] = {}  # the steps of a move, the same for either side
        made = []
        for turn, roll, move, codes in zip(parent_turn[first_of].tolist(), (key[first_of] >> 1 & 63).tolist(),
                                           (key[first_of] >> 7).tolist(), steps[first_of].tolist()):
            found = moves.get(move)
            if found is None:
                found = moves[move] = tuple([step_of(code) for code in codes[: move & 7]])
            # Ply(side, roll, steps), made without the frozen dataclass's __init__ (an object.__setattr__ per
            # field): a file's distinct plies are some thousands, and a Ply checks nothing
            ply = _NEW(Ply)
            fields = ply.__dict__
            fields["side"] = SIDES[turn]
            fields["roll"] = _ROLL_OF[roll]
            fields["steps"] = found
            fields["pending"] = ()
            made.append(ply)
        self.plies = [made[i] for i in inverse.ravel().tolist()]
