"""The replay half of reading ``.mat`` by the fast path (:mod:`nardy_fast.matfast`): the move lines as the
implementation's move-line kernel read them (:class:`Lexed`) and the plies in order (:class:`Order`), the
written moves of other lines in the kernel's form, every ply of a file matched to its legal move by the
implementation's replay kernel (each game in one call, the plies it leaves to
:func:`~nardy_fast.records.find_move` matched in Python), the plies made once per distinct value (and kept for
the next file), and a :class:`~nardy_fast.records.Replay` that takes them whole.
"""

from __future__ import annotations

from typing import Optional

import numpy as np
import numpy.typing as npt

from . import layout
from .board import Step
from .cube import Match
from .cube.state import SIDES
from .kernels import MoveLinesKernel, ReplayKernel
from .notation import parse_move
from .position import Position
from .records import Ply, Replay, find_move, variant_starts

__all__ = ["AsideError", "Order", "Lexed", "LINE_OTHER", "LINE_LEFT", "LINE_RIGHT", "LINE_TWO", "MAX_WRITTEN",
           "MAX_STEPS", "written", "step_of", "code_of", "position_of", "Replayed", "Plies"]

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


class Order:
    """The plies of a file in order: runs of the plies the move-line kernel read (``lexed``) and the written
    moves of the lines it left (``keys``, read by the patterns of :mod:`nardy_fast.matfast`), each run a piece
    ``[source, first, end]`` (source 0 the kernel's plies, 1 ``keys``)."""

    __slots__ = ("pieces", "keys", "count")

    def __init__(self) -> None:
        self.pieces: list[list[int]] = []
        self.keys: list[str] = []
        self.count = 0  # the plies so far

    def lexed(self, first: int, end: int) -> None:
        """The kernel's plies ``first`` up to ``end`` follow."""
        pieces = self.pieces
        if pieces and pieces[-1][0] == 0 and pieces[-1][2] == first:
            pieces[-1][2] = end
        else:
            pieces.append([0, first, end])
        self.count += end - first

    def written(self, key: str) -> None:
        """A written move ``d1d2: steps`` follows."""
        pieces = self.pieces
        if pieces and pieces[-1][0] == 1:
            pieces[-1][2] += 1
        else:
            pieces.append([1, len(self.keys), len(self.keys) + 1])
        self.keys.append(key)
        self.count += 1


#: The kinds of a line as the move-line kernel reads it (``read_move_lines``): another line (read by the
#: patterns of :mod:`nardy_fast.matfast`), a move line of one ply in the left column, of one ply in the right
#: column, of two plies.
LINE_OTHER, LINE_LEFT, LINE_RIGHT, LINE_TWO = range(4)


class Lexed:
    """A body's lines as the implementation's move-line kernel read them: the lines, each one's kind (bytes:
    an int each), number, first ply and run of two-ply lines numbered in a row, and the plies' dice, pair
    counts and pairs in the replay kernel's form."""

    __slots__ = ("lines", "kinds", "numbers", "plies", "runs", "rolls", "npairs", "pairs")

    def __init__(self, kernel: MoveLinesKernel, lines: list[str], edge: int) -> None:
        count = len(lines)
        self.lines = lines
        kinds = np.zeros(count, dtype=np.int8)
        numbers, plies, runs = (np.zeros(count, dtype=np.int64) for _ in range(3))
        rolls = np.zeros((2 * count, 2), dtype=np.int8)
        npairs = np.zeros(2 * count, dtype=np.int8)
        pairs = np.zeros((2 * count, 2 * MAX_WRITTEN), dtype=np.int8)
        # the kernel's own bytes (it reads them without the GIL), a separator of no other line's character
        made = kernel("\n".join(lines).encode("utf-8", "surrogatepass"), edge, kinds, numbers, plies, runs, rolls,
                      npairs, pairs) if count else 0
        self.kinds = kinds.tobytes()
        self.numbers, self.plies, self.runs = numbers.tolist(), plies.tolist(), runs.tolist()
        self.rolls, self.npairs, self.pairs = rolls[:made], npairs[:made], pairs[:made]

    def arrays(self, order: Order) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int8], npt.NDArray[np.int8]]:
        """The dice, pair counts and pairs of the plies of ``order``, in order."""
        pieces = order.pieces
        if len(pieces) == 1 and pieces[0][0] == 0:  # the kernel read every move line
            first, end = pieces[0][1:]
            return self.rolls[first:end], self.npairs[first:end], self.pairs[first:end]
        known = [written(key) for key in order.keys]
        data = np.frombuffer(b"".join(known), dtype=np.int8).reshape(len(known), 3 + 2 * MAX_WRITTEN)
        lexed = len(self.rolls)
        index = np.concatenate([np.arange(first + lexed * source, end + lexed * source, dtype=np.int64)
                                for source, first, end in pieces])
        return (np.concatenate([self.rolls, data[:, :2]])[index], np.concatenate([self.npairs, data[:, 2]])[index],
                np.concatenate([self.pairs, data[:, 3:]])[index])


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
                 bounds: npt.NDArray[np.int64], rolls: npt.NDArray[np.int8], npairs: npt.NDArray[np.int8],
                 pairs: npt.NDArray[np.int8], sides: bytearray) -> None:
        """Match the plies (their dice ``rolls``, their written pairs ``pairs`` (from, to) and their number
        ``npairs``) of the games whose plies are ``bounds[k, 0]`` up to ``bounds[k, 1]``, each from its start
        row ``starts[k]``; ``sides``: each ply's side as the lines say."""
        count = len(rolls)
        rolls, npairs, pairs = map(np.ascontiguousarray, (rolls, npairs, pairs))
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
        self.plies = _plies_of(key.tolist())


def _plies_of(keys: list[int]) -> list[Ply]:
    """The ply of each key, those not seen before made once each."""
    global _PLIES
    cache = _PLIES  # this call's (another thread's call may start a new cache, never empties this one)
    try:
        return list(map(cache.__getitem__, keys))
    except KeyError:
        distinct = dict.fromkeys(keys)
        if len(cache) + len(distinct) > 100_000:  # a bound on the cache, kept across files (values: shared)
            cache = _PLIES = {}
        cache.update(_new_plies([key for key in distinct if key not in cache]))
        return list(map(cache.__getitem__, keys))


#: Each ply seen, by its key (:class:`Plies`): a session's plies repeat, within a file and from file to file.
_PLIES: dict[int, Ply] = {}


def _new_plies(keys: list[int]) -> dict[int, Ply]:
    """The plies of distinct ``keys``."""
    packed = np.array(keys, dtype=np.int64)
    # the steps of each distinct move (the same for either side and roll): Step values picked by their codes
    moves, inverse = np.unique(packed >> 7, return_inverse=True)
    table = _STEP_TABLE if len(_STEP_TABLE) else _step_table()
    picked = table[moves[:, None] >> np.arange(3, 10 * MAX_STEPS, 10) & 1023].tolist()
    steps = [tuple(row[:count]) for row, count in zip(picked, (moves & 7).tolist())]
    made: dict[int, Ply] = {}
    for key, side, roll, move in zip(keys, (packed & 1).tolist(), (packed >> 1 & 63).tolist(), inverse.tolist()):
        # Ply(side, roll, steps), made without the frozen dataclass's __init__ (an object.__setattr__ per
        # field): a file's distinct plies are some thousands, and a Ply checks nothing
        ply = _NEW(Ply)
        fields = ply.__dict__
        fields["side"] = SIDES[side]
        fields["roll"] = _ROLL_OF[roll]
        fields["steps"] = steps[move]
        fields["pending"] = ()
        made[key] = ply
    return made


#: The step of each code (``step_of``), made on the first use.
_STEP_TABLE: npt.NDArray[np.object_] = np.empty(0, dtype=object)


def _step_table() -> npt.NDArray[np.object_]:
    global _STEP_TABLE
    table = np.empty(1024, dtype=object)
    for code in range(1024):  # one by one: a Step is a tuple, which numpy would spread over a second axis
        table[code] = step_of(code)
    _STEP_TABLE = table
    return table
