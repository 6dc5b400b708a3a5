"""Game analysis of a match record (docs/rules.md, Game analysis): every checker play and cube decision of
its games judged by the engine as GNU Backgammon judges them (the equity lost against the best choice, in
normalised money equity per unit of the cube, and in a match the match winning chances lost; the marks at
0.03, 0.06 and 0.12), the luck of every roll (the opening roll's as GNU Backgammon's ``LuckFirst``), and per
player the error rates, eXtreme Gammon's performance rating, GNU Backgammon's rating words and the
luck-adjusted result."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from typing import Optional, cast

import numpy as np

from .analysis import AnalysedPosition
from .cube import Cube, Match
from .cube.met import MatchEquityTable, default_table
from .cube.state import other
from .errors import NardyError, field_error
from .evaluation.constants import ANALYSIS_FILTER, MoveFilter
from .gamebatch import (
    CLOSE_CUBE,
    MARK_LEVELS,
    MARKS,
    RATINGS,
    ROLLS,
    WEIGHTS,
    Prefetched,
    check_filter,
    child_values,
    mark_of,
    normalised,
    prefetched,
    rating_of,
)
from .gamesummary import Analysis, Decision, PlayerSummary, summarise
from .position import Move, Position
from .records import CubeAction, GameRecord, MatchRecord, Ply, Replay, variant_starts

__all__ = ["Decision", "PlayerSummary", "Analysis", "analyse", "mark_of", "rating_of", "summarise", "ROLLS", "roll_luck",
           "MARKS", "RATINGS", "CLOSE_CUBE"]

class _Judge:
    """The engine's values at one game's cube and match: equities normalised, match chances kept."""

    def __init__(self, replay: Replay, evaluator: object, plies: int, table: Optional[MatchEquityTable],
                 move_filter: Optional[MoveFilter] = None) -> None:
        self.replay, self.evaluator, self.plies, self.table = replay, evaluator, plies, table
        self.move_filter = move_filter
        #: A game's values found in batches (:meth:`prefetch`), by event number.
        self.found = Prefetched({}, {}, {})

    def prefetch(self, game: GameRecord, position_class: Optional[type[Position]]) -> None:
        """Find in a few batches the values :meth:`ranked`, :meth:`lucks` and :meth:`cube_values` would find
        one by one (:func:`~nardy_fast.gamebatch.prefetched`)."""
        self.found = prefetched(game, self.evaluator, self.plies, self.table, position_class, self.move_filter)

    def state(self) -> tuple[Optional[Cube], Optional[Match]]:
        replay = self.replay
        return (replay.cube, replay.match) if replay.cubeful else (None, None)

    def normal(self, value: float, side: str) -> tuple[float, Optional[float]]:
        """A hint's value for ``side`` as (normalised equity, match winning chances or None)."""
        cube, match = self.state()
        if match is None or match.money or self.table is None or cube is None:
            return value, None
        return float(normalised(value, side, cube, match, self.table)), value

    def ranked(self, position: Position, roll: Optional[tuple[int, int]], plies: int,
               key: int = 0) -> list[tuple[Move, float]]:
        """:meth:`Position.hint`'s ranking, cubeful where the game has the cube (``key``: the event's number,
        for values prefetched: the moves searched deepest first, then by value, then in ``legal_moves``
        order)."""
        if key in self.found.moves:
            values, reached = self.found.moves[key]
            moves = position.legal_moves(roll)
            order = np.lexsort((np.arange(len(values)), -values, -reached))
            return [(moves[i], float(values[i])) for i in order]
        cube, match = self.state()
        judged = cast(AnalysedPosition, position)  # every implementation's Position is one
        evaluator = "net" if self.evaluator is None else self.evaluator
        if cube is None:
            return judged.hint(roll, evaluator=evaluator, plies=plies)
        return judged.hint(roll, evaluator=evaluator, plies=plies, cube=cube, match=match,
                           table=self.table)

    def bests(self, position: Position, key: int = 0) -> np.ndarray:
        """Each of :data:`ROLLS`' best move's 0-ply equity (normalised) for the side to move."""
        cube, match = self.state()
        if cube is None or match is None:
            return np.array([self.ranked(position, r, 0)[0][1] for r in ROLLS])
        raw = self.found.rolls[key] if key in self.found.rolls else [float(np.max(v)) for v in child_values(
            [position] * len(ROLLS), ROLLS, [cube] * len(ROLLS), match, self.evaluator, self.table)]
        return normalised(raw, position.turn, cube, match, self.table)

    def cube_values(self, position: Position, key: int = 0) -> tuple[np.ndarray, Optional[np.ndarray]]:
        """The cube decision of ``position``'s side to move: its normalised equities of no double,
        double-take and double-pass, and in a match their match winning chances."""
        cube, match = self.state()
        if key in self.found.cubes:
            equities, values = self.found.cubes[key]
        else:
            found = cast(AnalysedPosition, position).cube_decision(
                evaluator=self.evaluator, plies=self.plies, cube=cube, match=match, table=self.table)
            equities = np.asarray(found.equities, dtype=np.float64).reshape(3)
            values = np.array([found.no_double, found.double_take, found.double_pass], dtype=np.float64)
        return equities, (None if match is None or match.money else values)

    def lucks(self, position: Position, key: int = 0) -> np.ndarray:
        """Each of :data:`ROLLS`' luck: its best equity minus the mean over all rolls (36 weighted) of the
        best equities, at 0 plies, for the side to move (GNU Backgammon's ``LuckNormal``)."""
        best = self.bests(position, key)
        return best - float(np.dot(best, WEIGHTS))

    def luck(self, position: Position, roll: tuple[int, int], key: int = 0, opening: bool = False) -> float:
        """The luck of ``roll`` (:meth:`lucks`); an ``opening`` roll (the first of a game from the variant's
        start, not a double) against the 30 non-doubles either side could have started with, the other
        side's best equities turned (GNU Backgammon's ``LuckFirst``)."""
        index = ROLLS.index((max(roll), min(roll)))
        if not opening:
            return float(self.lucks(position, key)[index])
        texts = variant_starts(position)
        theirs = type(position).from_text(texts[1 - texts.index(position.to_text())])
        mine, others = self.bests(position, key), self.bests(theirs)
        mean = sum(float(mine[i]) - float(others[i]) for i, (a, b) in enumerate(ROLLS) if a != b) / 30.0
        return float(mine[index]) - mean


def roll_luck(position: Position, *, evaluator: object = None, cube: Optional[Cube] = None,
              match: Optional[Match] = None) -> dict[tuple[int, int], float]:
    """The luck of each roll (high die first) for ``position``'s side to move, as :func:`analyse` finds it:
    cubeless without ``cube`` and ``match``, else cubeful (normalised equity; the variant's match equity
    table in a match): GNU Backgammon's ``LuckNormal``; :func:`analyse` judges a game's opening roll by
    ``LuckFirst`` instead (docs/rules.md, Game analysis)."""
    replay = Replay(position, None if cube is None and match is None else (match or Match()))
    if cube is not None:
        replay.cube = cube
    table = None if match is None or match.money else default_table(position.variant)
    return dict(zip(ROLLS, map(float, _Judge(replay, evaluator, 0, table).lucks(position))))


def analyse(record: MatchRecord, *, evaluator: object = None, plies: int = 0, threads: int = 1,
            progress: Optional[Callable[[int], None]] = None,
            position_class: Optional[type[Position]] = None,
            marks: tuple[float, float, float] = MARK_LEVELS,
            move_filter: Optional[MoveFilter] = ANALYSIS_FILTER) -> Analysis:
    """The analysis of ``record`` (docs/rules.md, Game analysis): each checker play ranked by
    :meth:`Position.hint` ``plies`` deep (cubeful, with the game's cube and match score, where the game is
    played with the cube), each cube decision by :meth:`Position.cube_decision`, the luck of each roll at 0
    plies; ``progress`` is called with the number of decisions done after each game's. ``threads`` above 1
    analyses games in parallel threads (the compiled core's searches release the GIL). ``marks`` are the
    thresholds of the marks doubtful, bad and very bad (GNU Backgammon's since 2019; its older ones were
    ``(0.04, 0.08, 0.16)``). Deeper than 0 plies, a game played with the cube has the moves ``move_filter``
    keeps by their 0-ply values and the move played searched ``plies`` deep, the others ranked below them
    by their 0-ply values (GNU Backgammon's analysis; ``None`` searches every move); a game without the cube
    is ranked by :meth:`Position.hint`."""
    if not isinstance(record, MatchRecord):
        raise field_error(NardyError, "record", "must be a nardy_fast.MatchRecord", record)
    if not (isinstance(threads, int) and threads >= 1):
        raise field_error(NardyError, "threads", "must be an integer 1 or more", threads)
    levels = tuple(marks) if isinstance(marks, (tuple, list)) else ()
    if not (len(levels) == 3 and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in levels)
            and 0 <= levels[0] < levels[1] < levels[2] < math.inf):
        raise field_error(NardyError, "marks", "must be three increasing thresholds (doubtful, bad, very bad)",
                          marks)
    move_filter = check_filter(move_filter)
    table = None if record.money else default_table(record.variant)
    games: list[list[Decision]]
    if threads == 1:
        games = []
        for game in record.games:
            games.append(_game(game, evaluator, plies, table, position_class, move_filter))
            if progress is not None:
                progress(sum(map(len, games)))
    else:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(threads) as pool:
            games = list(pool.map(lambda g: _game(g, evaluator, plies, table, position_class, move_filter),
                                  record.games))
        if progress is not None:
            progress(sum(map(len, games)))
    decisions = tuple(d if levels == MARK_LEVELS else replace(d, mark=mark_of(d.loss, levels))
                      for found in games for d in found)
    return Analysis(decisions, summarise(record, decisions, table), plies)


def _game(game: GameRecord, evaluator: object, plies: int, table: Optional[MatchEquityTable],
          position_class: Optional[type[Position]], move_filter: Optional[MoveFilter]) -> list[Decision]:
    replay = Replay(game.start, game.match, position_class)
    judge = _Judge(replay, evaluator, plies, table, move_filter)
    judge.prefetch(game, position_class)
    found: list[Decision] = []
    decided = None  # the cube decision of this turn, once the side to move doubled
    turn = 1
    for index, event in enumerate(game.events, 1):
        where = f"game {game.number}, event {index}"
        position = replay.position
        if isinstance(event, CubeAction):
            if event.action == "double":
                decided = judge.cube_values(position, index)
                found.append(_cube_row(game.number, turn, judge, position, decided, "double"))
            elif decided is not None:
                found.append(_cube_row(game.number, turn, judge, position, decided, event.action))
            replay.cube_action(event.side, event.action, where)
        elif isinstance(event, Ply):
            if decided is None and event.roll is not None and replay.may_double():
                values = judge.cube_values(position, index)
                found.append(_cube_row(game.number, turn, judge, position, values, "no double"))
            found.append(_move_row(game.number, turn, judge, position, event, where, index))
            decided = None
            if replay.position.turn != position.turn:
                turn += 1
        else:
            replay.resign(other(event.side), event.points, where)
    return found


def _move_row(number: int, turn: int, judge: _Judge, position: Position, event: Ply, where: str,
              key: int = 0) -> Decision:
    roll = event.roll
    # GNU Backgammon's opening roll: the game's first, from the variant's start, not a double
    opening = (not judge.replay.history and roll is not None and roll[0] != roll[1]
               and position.to_text() in variant_starts(position))
    move = judge.replay.play(roll, [(s.src, s.dst) for s in event.steps], event.text, where)
    side = position.turn
    ranked = judge.ranked(position, event.roll, judge.plies, key)
    results: dict[Position, tuple[Move, float]] = {}
    for entry, value in ranked:  # distinct results: a move reaching the same position is the same choice
        results.setdefault(entry.result, (entry, value))
    best_move, best_value = ranked[0]
    played_value = results[move.result][1]
    best_eq, best_mwc = judge.normal(best_value, side)
    eq, mwc = judge.normal(played_value, side)
    loss = max(0.0, best_eq - eq)
    luck = None if roll is None else judge.luck(position, roll, key, opening)
    return Decision(number, turn, side, event.roll, "move", str(move) or "pass",
                    str(best_move) or "pass", eq, best_eq, loss,
                    None if mwc is None or best_mwc is None else max(0.0, best_mwc - mwc), mark_of(loss), luck,
                    len(results) > 1, judge.replay.cube.value, position.to_text())


def _cube_row(number: int, turn: int, judge: _Judge, position: Position,
              values: tuple[np.ndarray, Optional[np.ndarray]], action: str) -> Decision:
    # the doubler's choice takes a line (a double's value is the taker's best answer); the taker's values are
    # the doubler's turned (a difference of the taker's chances is minus the doubler's)
    eq, mwc = values
    doubler = position.turn
    if action in ("no double", "double"):
        side = doubler

        def value(v: np.ndarray, choice: str) -> float:
            return float(v[0]) if choice == "no double" else float(min(v[1], v[2]))

        choices = ("no double", "double")
        # GNU Backgammon's isCloseCubedecision: the best action within CLOSE_CUBE of doubling (double-take
        # capped at the cash, 1)
        counted = action == "double" or max(value(eq, c) for c in choices) - min(float(eq[1]), 1.0) < CLOSE_CUBE
    else:
        side = other(doubler)

        def value(v: np.ndarray, choice: str) -> float:  # the taker's view of the doubler's values
            return -float(v[1]) if choice == "take" else -float(v[2])

        choices = ("take", "drop")
        action = "take" if action == "beaver" else action
        counted = True
    best = max(choices, key=lambda c: value(eq, c))
    loss = max(0.0, value(eq, best) - value(eq, action))
    mwc_loss = None if mwc is None else max(0.0, value(mwc, best) - value(mwc, action))
    return Decision(number, turn, side, None, "cube", action, best, value(eq, action), value(eq, best), loss,
                    mwc_loss, mark_of(loss), None, counted, judge.replay.cube.value, position.to_text())

