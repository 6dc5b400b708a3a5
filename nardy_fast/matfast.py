"""The fast path of reading ``.mat`` files (docs/rules.md, Match records), for short and long nardy, where every
ply passes the turn (no extra roll, no transfer): each move line read by one pattern, every ply's written steps
matched to its legal move by the implementation's replay kernel (the whole file in one call, not a Python call
per ply), the plies made once per distinct value, and the games' cube actions, results and scores checked by
:class:`~nardy_fast.records.Replay`'s own rules. It reads what it is sure of; anything else in a file (a line of
another form, an illegal move, a score that does not add up, the Jacoby rule or beavers learnt from the file)
makes it step aside for :mod:`nardy_fast.matread`'s reader, which replays the file move by move and names the
error: a file reads to the same record, or fails with the same error, either way.
"""

from __future__ import annotations

import gc
import re
from typing import Optional

import numpy as np
import numpy.typing as npt

from . import layout
from .board import Step
from .cube import Cube, Match
from .cube.state import SIDES, other
from .errors import NardyError, field_error
from .kernels import ReplayKernel
from .matread import _GAME, _NUMBERED, _PLAYERS, _WINS, RIGHT_COLUMN, _Reader
from .matread import read_mat as slow
from .notation import parse_move
from .position import Position
from .records import GameRecord, MatchRecord, Ply, Replay, find_move, next_match, score_after, variant_starts

__all__ = ["read_mat", "read_fast", "FAST_VARIANTS"]

#: The variants the fast path reads: those whose every ply passes the turn.
FAST_VARIANTS = frozenset({"short", "long"})
#: The written pairs of a ply the kernel compares (its ``MAX_WRITTEN``), and the steps of a move it returns.
MAX_WRITTEN = 16
MAX_STEPS = 4

_ENTRY = r"(?:([1-6][1-6]):((?: +[^ /]*/[^ ]*)*)|(Doubles => \d+|Takes|Drops))"
#: A move line of the common form: the number, the gap before the first entry (its column), up to two entries
#: (a roll and its steps, or a double, a take, a drop), or a result in the line.
_MOVES = re.compile(rf" *(\d{{1,9}})\)( *)(?:{_ENTRY}(?: +(?:{_ENTRY}|(Wins .*)))?|(Wins .*))? *")
#: The common move line alone: two plies, the first in the left column.
_TWO = re.compile(r" *(\d{1,9})\)( *)([1-6][1-6]:(?: [0-9a-z*/()]+)*) +([1-6][1-6]:(?: [0-9a-z*/()]+)*) *")
_CUBE = {"Takes": "take", "Drops": "drop"}
#: Each written move seen, by its roll and steps text: its dice, its number of pairs and the pairs, as the
#: kernel reads them (a session repeats its moves), or ``None`` for a text the kernel cannot take.
_WRITTEN: dict[str, Optional[bytes]] = {}
#: Step objects by their code (``src | die << 5 | special << 8 | hit << 9``).
_STEP_OF: dict[int, Step] = {}


class _Aside(Exception):
    """The fast path steps aside: the reader of :mod:`nardy_fast.matread` reads the file."""


def _written(key: str) -> bytes:
    """The kernel's form of a written move ``d1d2: steps``."""
    found = _WRITTEN.get(key)
    if found is None:
        if key in _WRITTEN:
            raise _Aside
        roll = key[:2]
        pairs = parse_move(key[3:])  # a NardyError: the reader names it
        if len(pairs) > MAX_WRITTEN:
            _WRITTEN[key] = None
            raise _Aside
        if len(_WRITTEN) > 100_000:  # a bound on the cache: a hostile file may hold any number of moves
            _WRITTEN.clear()
        flat = [v for pair in pairs for v in pair] + [0] * (2 * (MAX_WRITTEN - len(pairs)))
        found = _WRITTEN[key] = bytes([int(roll[0]), int(roll[1]), len(pairs), *flat])
    return found


def _step(code: int) -> Step:
    """The step of a code, as the core's ``step_object`` makes it."""
    step = _STEP_OF.get(code)
    if step is None:
        src, die, special = code & 31, (code >> 5) & 7, (code >> 8) & 1
        dst = src - die
        if dst < 0 or (src == 24 and special):
            dst = die if special else 0
        step = _STEP_OF[code] = Step(src, dst, die, bool(special), bool((code >> 9) & 1))
    return step


def _code(step: Step) -> int:
    return step.src | step.die << 5 | int(step.special) << 8 | int(step.hit) << 9


def _position_of(row: npt.NDArray[np.int8], start: Position) -> Position:
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


def _ply(side: str, roll: tuple[int, int], steps: tuple[Step, ...]) -> Ply:
    """``Ply(side, roll, steps)``, made without the frozen dataclass's ``__init__`` (an attribute set through
    ``object.__setattr__`` each): a file's distinct plies are some thousands, and a ``Ply`` checks nothing."""
    ply = _NEW(Ply)
    ply.__dict__.update(side=side, roll=roll, steps=steps, pending=())
    return ply


_NEW = object.__new__
#: Each roll by its six bits (d1 | d2 << 3), one tuple for all its plies.
_ROLL_OF = {a | b << 3: (a, b) for a in range(1, 7) for b in range(1, 7)}


class _Game:
    """One game as read: its number, players line (names, score), whether Black moves first, its events in
    order (runs of plies by their indices, cube actions, results) and its plies' range."""

    __slots__ = ("number", "players", "black_first", "events", "first", "last")

    def __init__(self, number: int, first: int) -> None:
        self.number = number
        self.players: Optional[tuple[tuple[str, str], tuple[int, int]]] = None
        self.black_first = False
        self.events: list[tuple[str, object, object]] = []
        self.first = self.last = first


class _Replayed(Replay):
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
            self.current = _position_of(self.row, self.start)
            self.row = None
        return self.current

    def follow(self, plies: list[Ply], row: npt.NDArray[np.int8]) -> None:
        """Plies that follow (each matched from the position before it, which was not over)."""
        if self.resigned is not None or self.dropped is not None or self.offered is not None:
            raise _Aside
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


def _parse(lines: list[str], index: int, keys: list[bytes], sides: list[int]) -> list[_Game]:
    """The games of a body, each ply's written move appended to ``keys`` and the side the lines say moves it
    (0 White, 1 Black: every ply passing the turn) to ``sides``; a game's plies between its cube actions and
    results are one run of its events."""
    games: list[_Game] = []
    game: Optional[_Game] = None
    turn, offered, started, run, move = 0, -1, False, 0, 0  # offered: the side whose double awaits, else -1
    written, cached, two, general = _written, _WRITTEN.get, _TWO.fullmatch, _MOVES.fullmatch
    append, count = keys.append, len(keys)
    reading = False  # whether a game's players line was read: its move lines follow
    edge = RIGHT_COLUMN - 5  # a first entry from this column on is the right column's
    for line in lines[index + 1 :]:
        plies = two(line) if reading else None
        if plies is not None:
            # the common line: White's ply in the left column, Black's after it
            number, gap, key, key2 = plies.groups()
            move += 1
            if int(number) != move or turn or offered >= 0 or len(gap) >= edge:
                raise _Aside
            started = True
            append(cached(key) or written(key))
            append(cached(key2) or written(key2))
            sides += (0, 1)
            count += 2
            continue
        moves = general(line) if reading else None
        if moves is not None:
            assert game is not None
            number, gap, roll, steps, cube, roll2, steps2, cube2, wins2, wins = moves.groups()
            if int(number) != move + 1:
                raise _Aside
            move += 1
            column = len(gap)
            line_sides: list[int] = []
            for roll, steps, cube, wins in ((roll, steps, cube, wins), (roll2, steps2, cube2, wins2)):
                if wins is not None:  # matread's result in a move line: White's entries before it, if any
                    result = _WINS.fullmatch(" ".join(wins.split()))
                    if result is None or line_sides[-1:] == [1]:
                        raise _Aside
                    if count > run:
                        game.events.append(("plies", run, count))
                    run = count
                    game.events.append(("wins", SIDES[bool(line_sides) or column >= edge],
                                        int(result[1])))
                    break
                if roll is None and cube is None:
                    continue
                side = turn if offered < 0 else 1 - offered  # matread's enter
                if not line_sides:
                    right = int(column >= edge)
                    if not started and turn != right:
                        game.black_first = bool(right)
                        turn = side = right
                    elif right != side:
                        raise _Aside
                if not line_sides or line_sides[-1] != side:
                    line_sides.append(side)
                started = True
                if roll is not None:
                    key = f"{roll}:{steps}"
                    append(cached(key) or written(key))
                    sides.append(turn)
                    count += 1
                    turn = 1 - turn
                    continue
                if count > run:
                    game.events.append(("plies", run, count))
                run = count
                if cube.startswith("Doubles"):
                    game.events.append(("double", SIDES[turn], cube.rsplit(" ", 1)[1]))
                    offered = turn
                elif offered < 0:
                    raise _Aside
                else:
                    game.events.append((_CUBE[cube], SIDES[1 - offered], None))
                    offered = -1
            if len(line_sides) > 2 or (line_sides[:1] == [1] and len(line_sides) > 1):
                raise _Aside
            continue
        stripped = line.strip()
        if not stripped or stripped.startswith(";"):
            continue
        found = _GAME.fullmatch(stripped)
        if found:
            if game is not None:
                _close(game, run, count)
            game = _Game(int(found[1]), count)
            games.append(game)
            reading = False
            turn, offered, started, run, move = 0, -1, False, count, 0
        elif game is None:
            raise _Aside
        elif game.players is None:
            players = _PLAYERS.fullmatch(stripped)
            if players is None or not players[1] or not players[3]:
                raise _Aside
            game.players = ((players[1], players[3]), (int(players[2]), int(players[4])))
            reading = True
        elif _NUMBERED.match(line):
            raise _Aside  # a move line of another form
        else:
            result = _WINS.fullmatch(stripped)
            if result is None:
                raise _Aside
            if count > run:
                game.events.append(("plies", run, count))
            run = count
            indent = len(line) - len(line.lstrip())
            game.events.append(("wins", SIDES[indent >= RIGHT_COLUMN], int(result[1])))
    if game is not None:
        _close(game, run, count)
    return games


def _close(game: _Game, run: int, count: int) -> None:
    """The end of a game's lines: its last run of plies."""
    if count > run:
        game.events.append(("plies", run, count))
    game.last = count


class _Plies:
    """Every ply of a file matched by the kernel: their results' rows and their values."""

    def __init__(self, kernel: ReplayKernel, cls: type[Position], starts: npt.NDArray[np.int8],
                 games: list[_Game], keys: list[bytes], sides: list[int]) -> None:
        count = len(keys)
        data = np.frombuffer(b"".join(keys), dtype=np.int8).reshape(count, 3 + 2 * MAX_WRITTEN)
        rolls = np.ascontiguousarray(data[:, :2])
        npairs = np.ascontiguousarray(data[:, 2])
        pairs = np.ascontiguousarray(data[:, 3:])
        self.rows = results = np.zeros((count, layout.WIDTH), dtype=np.int8)
        steps = np.zeros((count, MAX_STEPS), dtype=np.uint16)
        levels = np.zeros(count, dtype=np.int8)
        first = np.array([g.first for g in games], dtype=np.int64)
        last = np.array([g.last for g in games], dtype=np.int64)
        starts = starts.copy()
        active = np.flatnonzero(first < last)
        while len(active):
            stops = np.zeros(len(active), dtype=np.int64)
            kernel(np.ascontiguousarray(starts[active]), first[active], last[active], rolls, pairs, npairs, results,
                   steps, levels, stops)
            active = active[stops >= 0]
            for k, j in zip(active.tolist(), stops[stops >= 0].tolist()):
                parent = cls.from_array(starts[k] if j == first[k] else results[j - 1])
                if parent.is_over() or parent.pending:
                    raise _Aside
                written = pairs[j].tolist()
                move = find_move(parent, (int(rolls[j, 0]), int(rolls[j, 1])),
                                 [(written[2 * i], written[2 * i + 1]) for i in range(npairs[j])], "", "")
                if len(move.steps) > MAX_STEPS:
                    raise _Aside
                results[j] = move.result.to_array()
                steps[j, : len(move.steps)] = [_code(step) for step in move.steps]
                levels[j] = len(move.steps)
                starts[k] = results[j]
                first[k] = j + 1
            active = active[first[active] < last[active]]
        # each ply's side is the turn of the position before it: as the lines said, and passed on by it
        parent_turn = np.empty(count, dtype=np.int8)
        parent_turn[1:] = results[:-1, layout.TURN]
        begins = np.array([g.first for g in games if g.first < g.last], dtype=np.int64)
        parent_turn[begins] = [int(g.black_first) for g in games if g.first < g.last]
        over = (results[:, layout.OFF] == 15) | (results[:, layout.OFF + 1] == 15)
        if (parent_turn != np.array(sides, dtype=np.int8)).any() or (
                (results[:, layout.TURN] == parent_turn) & ~over).any():
            raise _Aside
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
                found = moves[move] = tuple([_step(code) for code in codes[: move & 7]])
            made.append(_ply(SIDES[turn], _ROLL_OF[roll], found))
        self.plies = [made[i] for i in inverse.ravel().tolist()]


def read_fast(text: str, position_class: Optional[type[Position]] = None) -> Optional[MatchRecord]:
    """The record of a ``.mat`` text (a checked ``str``, tabs expanded) by the fast path, or ``None`` where it
    steps aside for :func:`nardy_fast.matread.read_mat`: a variant other than :data:`FAST_VARIANTS`, an
    implementation without a replay kernel, anything it does not read as sure."""
    cls = position_class
    if cls is None:
        import nardy_fast  # the package's Position (the readers name no implementation)

        cls = nardy_fast.Position
    kernel = getattr(getattr(cls, "kernels", None), "replay", None)
    if kernel is None:
        return None
    reader = _Reader(cls)
    lines = text.splitlines()
    # The cyclic garbage collector is held off meanwhile (as Mercurial's ``nogc`` does): a record is some
    # hundred thousand new containers and none of them in a cycle, and each collection of the oldest
    # generation they trigger walks every object of the process (most of the reading's time in a large one).
    collecting = gc.isenabled()
    gc.disable()
    try:
        index, tags = reader.read_header(lines)
        if reader.variant not in FAST_VARIANTS:
            return None
        return _read(reader, cls, kernel, lines, index, tags)
    except (NardyError, _Aside):
        return None
    finally:
        if collecting:
            gc.enable()


def _read(reader: _Reader, cls: type[Position], kernel: ReplayKernel, lines: list[str], index: int,
          tags: list[tuple[str, str]]) -> MatchRecord:
    keys: list[bytes] = []
    sides: list[int] = []
    games = _parse(lines, index, keys, sides)
    start = cls.start(reader.variant, **dict(reader.flags))
    black = type(start)(start.state._replace(turn="black"))
    rows = np.stack([start.to_array(), black.to_array()])
    starts = rows[[int(g.black_first) for g in games]] if games else rows[:0]
    plies = _Plies(kernel, cls, starts, games, keys, sides) if keys else None
    # each game's last row and what it scores on the board (a game without a ply: its start)
    ends = np.array([g.last - 1 if g.last > g.first else -1 for g in games], dtype=np.int64)
    last_rows = np.concatenate([plies.rows if plies is not None else rows[:0], rows[:1]])[ends]
    won = layout.winner(last_rows).tolist()
    multiples = layout.points(last_rows).tolist()
    texts = (start.to_text(), black.to_text())
    match = reader.match
    money = Match(jacoby=reader.jacoby, beavers=reader.beavers)  # every money game's (a value: shared)
    score = (0, 0)
    length = reader.length
    for number, game in enumerate(games, 1):  # matread's new_game, read_players, read_wins and finish
        if game.number != number or (length is not None and match is None) or game.players is None:
            raise _Aside
        if length is None and reader.cube:
            match = money
        names, told = game.players
        if reader.players is None:
            reader.players = names
        if names != reader.players or told != score:
            raise _Aside
        events = game.events
        if (len(events) == 1 and events[0][0] == "plies" or len(events) == 2 and events[0][0] == "plies"
                and events[1][0] == "wins") and (won[number - 1] >= 0 or len(events) == 1):
            # the common game: plies alone (no cube action, no resignation), then its result if any
            record = _plain(game, number, texts, score, match if reader.cube else None, plies,
                            won[number - 1], multiples[number - 1], number == len(games))
        else:
            record = _replayed(game, number, black if game.black_first else start, score,
                               match if reader.cube else None, plies, number == len(games))
        reader.games.append(record)
        if record.winner is not None:
            score = score_after(score, record.winner, record.points, length)
            if match is not None and length is not None:
                match = next_match(match, record.winner, record.points, reader.crawford)
    return reader.record(tags)


#: A game's result by its multiple (docs/rules.md, Game end and scoring), as ``Replay.raw_points`` names it.
_RESULTS = {1: "single", 2: "mars", 3: "koks"}


def _plain(game: _Game, number: int, texts: tuple[str, str], score: tuple[int, int], match: Optional[Match],
           plies: Optional[_Plies], won: int, multiple: int, last: bool) -> GameRecord:
    """The record of a game of plies alone and a result: ``Replay.record``'s winner and points (the cube
    centred: ``Replay.raw_points`` with no cube action), without a replay."""
    run = game.events[0]
    assert plies is not None and isinstance(run[1], int) and isinstance(run[2], int)
    winner = None if won < 0 else SIDES[won]
    if winner is None:
        if not last:
            raise _Aside  # matread's "ends without a result"
        points = 0
    elif match is None:
        points = multiple
    else:
        points = match.points(texts[0].split(" ", 1)[0], _RESULTS[multiple], _CENTRED)
    if len(game.events) == 2 and game.events[1][1:] != (winner, points):
        raise _Aside  # a result that does not add up (or the Jacoby rule learnt from the file)
    return _record(number, texts[game.black_first], score, match, tuple(plies.plies[run[1] : run[2]]), winner,
                   points)


def _record(number: int, start: str, score: tuple[int, int], match: Optional[Match], events: tuple[Ply, ...],
            winner: Optional[str], points: int) -> GameRecord:
    """``GameRecord(...)`` without its ``__post_init__``, whose checks hold here (plies, a side or None)."""
    record = _NEW(GameRecord)
    record.__dict__.update(number=number, start=start, score=score, match=match, events=events, winner=winner,
                           points=points)
    return record


_CENTRED = Cube()


def _replayed(game: _Game, number: int, start: Position, score: tuple[int, int], match: Optional[Match],
              plies: Optional[_Plies], last: bool) -> GameRecord:
    """The record of any other game, its cube actions and results checked by a :class:`Replay`."""
    replay = _Replayed(start, match)
    for kind, a, b in game.events:
        if kind == "plies":
            assert plies is not None and isinstance(a, int) and isinstance(b, int)
            replay.follow(plies.plies[a:b], plies.rows[b - 1])
        elif kind == "wins":
            assert isinstance(a, str) and isinstance(b, int)
            if replay.is_over():
                if (replay.winner(), replay.raw_points()) != (a, b):
                    raise _Aside  # or the Jacoby rule learnt from the file
            else:
                replay.resign(a, b, "")
        else:
            assert isinstance(a, str)
            if kind == "double" and b != str(2 * replay.cube.value):
                raise _Aside
            replay.cube_action(a, kind, "")
    if replay.offered is not None or (not replay.is_over() and not last):
        raise _Aside
    return replay.record(number, score, match)


def read_mat(text: str, position_class: Optional[type[Position]] = None) -> MatchRecord:
    """:func:`nardy_fast.matread.read_mat`, by the fast path where it reads the file."""
    if not isinstance(text, str):
        raise field_error(NardyError, "text", "must be a str", text)
    plain = str.__str__(text).lstrip("\ufeff").expandtabs(8)
    return read_fast(plain, position_class) or slow(text, position_class)

