"""The fast path of reading ``.mat`` files (docs/rules.md, Match records), for short and long nardy, where every
ply passes the turn (no extra roll, no transfer): the move lines of the common form read by the
implementation's move-line kernel (each line's kind and number, each ply's dice and written steps, the whole
body in one call), the few other lines of a game by patterns here, every ply's written steps matched to its
legal move by the implementation's replay kernel (the whole file in one call, not a Python call per ply), the
plies made once per distinct value, and the games' cube actions, results and scores checked by
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

from . import layout
from .cube import Cube, Match
from .cube.state import SIDES
from .errors import NardyError, field_error
from .kernels import ReplayKernel
from .matread import GAME, NUMBERED, PLAYERS, RIGHT_COLUMN, WINS, Reader
from .matread import read_mat as slow
from .matreplay import LINE_RIGHT, LINE_TWO, AsideError, Lexed, Order, Plies, Replayed
from .position import Position
from .records import GameRecord, MatchRecord, Ply, next_match, score_after

__all__ = ["read_mat", "read_fast", "FAST_VARIANTS"]

#: The variants the fast path reads: those whose every ply passes the turn.
FAST_VARIANTS = frozenset({"short", "long"})

_ENTRY = r"(?:([1-6][1-6]):((?: +[^ /]*/[^ ]*)*)|(Doubles => \d+|Takes|Drops))"
#: A move line of the common form: the number, the gap before the first entry (its column), up to two entries
#: (a roll and its steps, or a double, a take, a drop), or a result in the line.
_MOVES = re.compile(rf" *(\d{{1,9}})\)( *)(?:{_ENTRY}(?: +(?:{_ENTRY}|(Wins .*)))?|(Wins .*))? *")
#: The common move line alone (step tokens the move-line kernel leaves): two plies, the first in the left column.
_TWO = re.compile(r" *(\d{1,9})\)( *)([1-6][1-6]:(?: [0-9a-z*/()]+)*) +([1-6][1-6]:(?: [0-9a-z*/()]+)*) *")
#: A move line of one ply (step tokens the move-line kernel leaves).
_ONE = re.compile(r" *(\d{1,9})\)( *)([1-6][1-6]:(?: [0-9a-z*/()]+)*) *")
_CUBE = {"Takes": "take", "Drops": "drop"}




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


def _parse(lexed: Lexed, order: Order, sides: bytearray) -> list[_Game]:
    """The games of a body's lines (``lexed.lines``), each ply put in ``order`` (those of the move lines of the
    common form as the kernel read them, ``lexed``; the others read here) and the side the lines say moves it
    (0 White, 1 Black: every ply passing the turn) appended to ``sides``; a game's plies between its cube
    actions and results are one run of its events."""
    games: list[_Game] = []
    game: Optional[_Game] = None
    turn, offered, started, run, move = 0, -1, False, 0, 0  # offered: the side whose double awaits, else -1
    two, one, general = _TWO.fullmatch, _ONE.fullmatch, _MOVES.fullmatch
    lines, kinds, numbers, first_plies, runs = lexed.lines, lexed.kinds, lexed.numbers, lexed.plies, lexed.runs
    reading = False  # whether a game's players line was read: its move lines follow
    edge = RIGHT_COLUMN - 5  # a first entry from this column on is the right column's
    at, count = 0, len(lines)
    while at < count:
        kind = kinds[at]
        if kind == LINE_TWO and reading:
            # move lines of the common form, numbered in a row: White's ply in the left column, Black's after it
            if numbers[at] != move + 1 or turn or offered >= 0:
                raise AsideError
            end = runs[at]
            move += end - at
            started = True
            order.lexed(first_plies[at], first_plies[at] + 2 * (end - at))
            sides += b"\x00\x01" * (end - at)
            at = end
            continue
        line = lines[at]
        at += 1
        if kind and reading:  # a line of one ply (a game's first or last), in either column
            move += 1
            right = int(kind == LINE_RIGHT)
            side = turn if offered < 0 else 1 - offered
            if numbers[at - 1] != move:
                raise AsideError
            if not started and turn != right:  # matread's enter: who moves first
                game.black_first = bool(right)  # type: ignore[union-attr]
                turn = side = right
            elif right != side:
                raise AsideError
            started = True
            order.lexed(first_plies[at - 1], first_plies[at - 1] + 1)
            sides.append(turn)
            turn = 1 - turn
            continue
        numbered = reading and ")" in line  # a move line is numbered (``12)``): others need no pattern of one
        plies = two(line) if numbered else None
        if plies is not None:
            # the common line (tokens the kernel leaves): White's ply in the left column, Black's after it
            number, gap, key, key2 = plies.groups()
            move += 1
            if int(number) != move or turn or offered >= 0 or len(gap) >= edge:
                raise AsideError
            started = True
            order.written(key)
            order.written(key2)
            sides += b"\x00\x01"
            continue
        plies = one(line) if numbered else None
        if plies is not None:  # a line of one ply (tokens the kernel leaves), in either column
            number, gap, key = plies.groups()
            move += 1
            right = int(len(gap) >= edge)
            side = turn if offered < 0 else 1 - offered
            if int(number) != move:
                raise AsideError
            if not started and turn != right:
                game.black_first = bool(right)  # type: ignore[union-attr]
                turn = side = right
            elif right != side:
                raise AsideError
            started = True
            order.written(key)
            sides.append(turn)
            turn = 1 - turn
            continue
        moves = general(line) if numbered else None
        if moves is not None:
            assert game is not None
            number, gap, *entries = moves.groups()
            if int(number) != move + 1:
                raise AsideError
            move += 1
            column = len(gap)
            line_sides: list[int] = []
            for roll, steps, cube, wins in ((*entries[:3], entries[7]), (*entries[3:7],)):
                if wins is not None:  # matread's result in a move line: White's entries before it, if any
                    result = WINS.fullmatch(" ".join(wins.split()))
                    if result is None or line_sides[-1:] == [1]:
                        raise AsideError
                    if order.count > run:
                        game.events.append(("plies", run, order.count))
                    run = order.count
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
                        raise AsideError
                if not line_sides or line_sides[-1] != side:
                    line_sides.append(side)
                started = True
                if roll is not None:
                    order.written(f"{roll}:{steps}")
                    sides.append(turn)
                    turn = 1 - turn
                    continue
                if order.count > run:
                    game.events.append(("plies", run, order.count))
                run = order.count
                if cube.startswith("Doubles"):
                    game.events.append(("double", SIDES[turn], cube.rsplit(" ", 1)[1]))
                    offered = turn
                elif offered < 0:
                    raise AsideError
                else:
                    game.events.append((_CUBE[cube], SIDES[1 - offered], None))
                    offered = -1
            if len(line_sides) > 2 or (line_sides[:1] == [1] and len(line_sides) > 1):
                raise AsideError
            continue
        stripped = line.strip()
        if not stripped or stripped.startswith(";"):
            continue
        found = GAME.fullmatch(stripped)
        if found:
            if game is not None:
                _close(game, run, order.count)
            game = _Game(int(found[1]), order.count)
            games.append(game)
            reading = False
            turn, offered, started, run, move = 0, -1, False, order.count, 0
        elif game is None:
            raise AsideError
        elif game.players is None:
            players = PLAYERS.fullmatch(stripped)
            if players is None or not players[1] or not players[3]:
                raise AsideError
            game.players = ((players[1], players[3]), (int(players[2]), int(players[4])))
            reading = True
        elif NUMBERED.match(line):
            raise AsideError  # a move line of another form
        else:
            result = WINS.fullmatch(stripped)
            if result is None:
                raise AsideError
            if order.count > run:
                game.events.append(("plies", run, order.count))
            run = order.count
            indent = len(line) - len(line.lstrip())
            game.events.append(("wins", SIDES[indent >= RIGHT_COLUMN], int(result[1])))
    if game is not None:
        _close(game, run, order.count)
    return games


def _close(game: _Game, run: int, count: int) -> None:
    """The end of a game's lines: its last run of plies."""
    if count > run:
        game.events.append(("plies", run, count))
    game.last = count


def read_fast(text: str, position_class: Optional[type[Position]] = None) -> Optional[MatchRecord]:
    """The record of a ``.mat`` text (a checked ``str``, tabs expanded) by the fast path, or ``None`` where it
    steps aside for :func:`nardy_fast.matread.read_mat`: a variant other than :data:`FAST_VARIANTS`, an
    implementation without a replay kernel and a move-line kernel, anything it does not read as sure."""
    cls = position_class
    if cls is None:
        import nardy_fast  # the package's Position (the readers name no implementation)

        cls = nardy_fast.Position
    kernels = getattr(cls, "kernels", None)
    kernel, lines_kernel = getattr(kernels, "replay", None), getattr(kernels, "move_lines", None)
    if kernel is None or lines_kernel is None:
        return None
    reader = Reader(cls)
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
        return _read(reader, cls, kernel, Lexed(lines_kernel, lines[index + 1 :], RIGHT_COLUMN - 5), tags)
    except (NardyError, AsideError):
        return None
    finally:
        if collecting:
            gc.enable()


def _read(reader: Reader, cls: type[Position], kernel: ReplayKernel, lexed: Lexed,
          tags: list[tuple[str, str]]) -> MatchRecord:
    order = Order()
    sides = bytearray()
    games = _parse(lexed, order, sides)
    start = cls.start(reader.variant, **dict(reader.flags))
    black = type(start)(start.state._replace(turn="black"))
    rows = np.stack([start.to_array(), black.to_array()])
    starts = rows[[int(g.black_first) for g in games]] if games else rows[:0]
    bounds = np.array([(g.first, g.last) for g in games], dtype=np.int64).reshape(-1, 2)
    plies = Plies(kernel, cls, starts, bounds, *lexed.arrays(order), sides) if order.count else None
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
            raise AsideError
        if length is None and reader.cube:
            match = money
        names, told = game.players
        if reader.players is None:
            reader.players = names
        if names != reader.players or told != score:
            raise AsideError
        events = game.events
        if events and events[0][0] == "plies" and (
                len(events) == 1 or (len(events) == 2 and events[1][0] == "wins" and won[number - 1] >= 0)):
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
           plies: Optional[Plies], won: int, multiple: int, last: bool) -> GameRecord:
    """The record of a game of plies alone and a result: ``Replay.record``'s winner and points (the cube
    centred: ``Replay.raw_points`` with no cube action), without a replay."""
    run = game.events[0]
    assert plies is not None and isinstance(run[1], int) and isinstance(run[2], int)
    winner = None if won < 0 else SIDES[won]
    if winner is None:
        if not last:
            raise AsideError  # matread's "ends without a result"
        points = 0
    elif match is None:
        points = multiple
    else:
        points = match.points(texts[0].split(" ", 1)[0], _RESULTS[multiple], _CENTRED)
    if len(game.events) == 2 and game.events[1][1:] != (winner, points):
        raise AsideError  # a result that does not add up (or the Jacoby rule learnt from the file)
    return _record(number, texts[game.black_first], score, match, tuple(plies.plies[run[1] : run[2]]), winner,
                   points)


def _record(number: int, start: str, score: tuple[int, int], match: Optional[Match], events: tuple[Ply, ...],
            winner: Optional[str], points: int) -> GameRecord:
    """``GameRecord(...)`` without its ``__post_init__``, whose checks hold here (plies, a side or None)."""
    record = object.__new__(GameRecord)
    record.__dict__.update(number=number, start=start, score=score, match=match, events=events, winner=winner,
                           points=points)
    return record


_CENTRED = Cube()


def _replayed(game: _Game, number: int, start: Position, score: tuple[int, int], match: Optional[Match],
              plies: Optional[Plies], last: bool) -> GameRecord:
    """The record of any other game, its cube actions and results checked by a :class:`Replay`."""
    replay = Replayed(start, match)
    for kind, a, b in game.events:
        if kind == "plies":
            assert plies is not None and isinstance(a, int) and isinstance(b, int)
            replay.follow(plies.plies[a:b], plies.rows[b - 1])
        elif kind == "wins":
            assert isinstance(a, str) and isinstance(b, int)
            if replay.is_over():
                if (replay.winner(), replay.raw_points()) != (a, b):
                    raise AsideError  # or the Jacoby rule learnt from the file
            else:
                replay.resign(a, b, "")
        else:
            assert isinstance(a, str)
            if kind == "double" and b != str(2 * replay.cube.value):
                raise AsideError
            replay.cube_action(a, kind, "")
    if replay.offered is not None or (not replay.is_over() and not last):
        raise AsideError
    return replay.record(number, score, match)


def read_mat(text: str, position_class: Optional[type[Position]] = None) -> MatchRecord:
    """:func:`nardy_fast.matread.read_mat`, by the fast path where it reads the file."""
    if not isinstance(text, str):
        raise field_error(NardyError, "text", "must be a str", text)
    plain = str.__str__(text).lstrip("\ufeff").expandtabs(8)
    return read_fast(plain, position_class) or slow(text, position_class)

