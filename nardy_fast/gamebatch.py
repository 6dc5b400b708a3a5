"""The 0-ply cubeful values of a game's checker plays and rolls in one batch (docs/rules.md, Game analysis):
the values :meth:`Position.hint` finds with the cube at 0 plies, for many positions, each under its own cube,
in one search of the cube layer rather than one per position (one call costs about a millisecond whatever its
size, and a game's analysis asks for some thousands); and GNU Backgammon's thresholds the analysis judges by."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple, Optional

import numpy as np
import numpy.typing as npt

from . import layout
from .cube import Cube, Match
from .cube.decision import check_state
from .cube.met import MatchEquityTable
from .cube.state import SIDES
from .cubeful import CubefulSearch
from .cubestates import cube_rows
from .errors import NardyError, field_error
from .evaluation.composite import resolve_evaluator
from .evaluation.constants import MoveFilter
from .evaluation.search import filter_kept
from .inputs import integer, items
from .kernels import kernels_of
from .position import Position
from .records import CubeAction, GameRecord, Ply, Replay

__all__ = ["child_values", "prefetched", "Prefetched", "check_filter", "kept", "normalised", "ROWS_AT", "ROLLS", "WEIGHTS", "MARKS", "MARK_LEVELS", "RATINGS", "CLOSE_CUBE", "mark_of", "rating_of"]

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]
Rows = npt.NDArray[np.int8]

#: The 21 rolls, high die first.
ROLLS = tuple((a, b) for a in range(1, 7) for b in range(1, a + 1))
#: The 21 rolls' chances (:data:`ROLLS`), out of 36.
WEIGHTS = np.array([1.0 if a == b else 2.0 for a, b in ROLLS]) / 36.0
#: GNU Backgammon's marks of a decision by the equity it lost (more than the threshold: ``Skill`` with its
#: ``arSkillLevel`` defaults since 2019, 0.03, 0.06 and 0.12; before, 0.04, 0.08 and 0.16).
MARKS = ((0.12, "very bad"), (0.06, "bad"), (0.03, "doubtful"))
#: The thresholds of :data:`MARKS` from the smallest, the default of ``analyse(..., marks=)``.
MARK_LEVELS = (0.03, 0.06, 0.12)
#: GNU Backgammon's rating words by the error per decision in normalised equity (less than the limit:
#: ``GetRating`` of its analysis.c since 2024, thresholds like the BMAB's: 5, 8, 13, 20 and 32 mEMG); at or
#: above the last, "Beginner".
RATINGS = ((0.005, "Super Grandmaster"), (0.008, "Grandmaster"), (0.013, "Master"), (0.020, "Advanced"),
           (0.032, "Intermediate"))
#: A cube decision counts in the error rates where the best action is within this much of doubling (GNU
#: Backgammon's ``isCloseCubedecision``: best - min(double-take, 1) < 0.16), or where a double was offered.
CLOSE_CUBE = 0.16


def mark_of(loss: float, levels: tuple[float, float, float] = MARK_LEVELS) -> str:
    """GNU Backgammon's mark of a decision that lost ``loss`` (normalised equity) by the thresholds
    ``levels`` (doubtful, bad, very bad): "" for none."""
    for limit, (_, word) in zip(reversed(levels), MARKS):
        if loss > limit:
            return word
    return ""


def rating_of(error: float) -> str:
    """GNU Backgammon's rating words for an error per decision (normalised equity, not ×1000)."""
    for limit, word in RATINGS:
        if error < limit:
            return word
    return "Beginner"


def child_values(positions: Sequence[Position], rolls: Sequence[Optional[tuple[int, int]]], cubes: Sequence[Cube],
                 match: Optional[Match], evaluator: object,
                 table: Optional[MatchEquityTable]) -> list[Floats]:
    """For each position, roll (``None``: its pending list) and cube, the 0-ply cubeful value of each of its
    legal moves' results, in ``legal_moves`` order, for the side to move: points per unit of the cube at money
    play, match winning chances under ``match`` (one match for all: a game's)."""
    if not positions:
        return []
    return _Batch(positions[0], cubes[0], match, evaluator, table, 0).children(positions, rolls, cubes)[0]


class _Batch:
    """The cubeful searches of one game's positions: their kernels, evaluator, match and table."""

    def __init__(self, first: Position, cube: Cube, match: Optional[Match], evaluator: object,
                 table: Optional[MatchEquityTable], plies: int) -> None:
        self.kernels = kernels_of(first)
        _, self.match, self.table = check_state(cube, match, table, first.variant)
        self.evaluator = resolve_evaluator("net" if evaluator is None else evaluator)
        self.plies = plies

    def search(self, plies: int) -> CubefulSearch:
        return CubefulSearch(self.kernels, self.evaluator, self.match, self.table, plies)

    def children(self, positions: Sequence[Position], rolls: Sequence[Optional[tuple[int, int]]],
                 cubes: Sequence[Cube]) -> tuple[list[Floats], list[Rows]]:
        """:func:`child_values`, and each position's children (its moves' results as rows)."""
        rows = _rows(positions)
        dice = np.array([(0, 0) if r is None or p.pending else (r[0], r[1]) for p, r in zip(positions, rolls)],
                        dtype=np.int8)
        children, offsets, _ = self.kernels.batch_children(rows, dice)
        children, offsets = np.asarray(children), np.asarray(offsets, dtype=np.int64)
        parent = np.repeat(np.arange(len(rows)), np.diff(offsets))
        value, owner = cube_rows(cubes)
        mine = self.after_move(rows[parent], children, (value[parent], owner[parent]), 0)
        cut = offsets.tolist()
        return ([mine[cut[i]:cut[i + 1]] for i in range(len(rows))],
                [children[cut[i]:cut[i + 1]] for i in range(len(rows))])

    def after_move(self, parents: Rows, children: Rows, cube: tuple[Ints, Ints], plies: int) -> Floats:
        """The cubeful value of each child, searched ``plies`` deep under its own cube (the cube its move is
        chosen under too), for its parent's side to move; a few rows at a time deeper than 0 plies, so that
        the memory of the search stays bounded."""
        search = self.search(plies)
        out = np.zeros(len(children))
        step = ROWS_AT[min(plies, len(ROWS_AT) - 1)]
        for begin in range(0, len(children), step):
            at = slice(begin, begin + step)
            value, owner = cube[0][at], cube[1][at]
            found, _ = search.after_move(parents[at], children[at], value[:, None], owner[:, None], plies,
                                         (value, owner))
            passed = children[at, layout.TURN] != parents[at, layout.TURN]
            out[at] = np.where(passed, search.flip(found[:, 0]), found[:, 0])
        return out

    def decisions(self, positions: Sequence[Position], cubes: Sequence[Cube]) -> tuple[Floats, Floats]:
        """The cube decisions of ``positions``' sides to move, each under its cube, searched as deep as the
        batch: the normalised equities (n, 3) and the values (n, 3) of no double, double-take and
        double-pass."""
        search = self.search(self.plies)
        rows = _rows(positions)
        value, owner = cube_rows(cubes)
        equities, values = np.zeros((len(rows), 3)), np.zeros((len(rows), 3))
        step = ROWS_AT[min(self.plies, len(ROWS_AT) - 1)]
        for begin in range(0, len(rows), step):
            at = slice(begin, begin + step)
            found = search.decisions(rows[at], (value[at], owner[at]), self.plies)
            equities[at] = np.asarray(found.equities).reshape(-1, 3)
            values[at] = np.stack([np.asarray(v, dtype=np.float64).reshape(-1) for v in
                                   (found.no_double, found.double_take, found.double_pass)], axis=1)
        return equities, values


def _rows(positions: Sequence[Position]) -> Rows:
    """The rows of ``positions``, each position's packed once however often it is listed (a luck batch
    lists each position once a roll)."""
    packed: dict[int, Rows] = {}
    for position in positions:
        if id(position) not in packed:
            packed[id(position)] = position.to_array()
    return np.stack([packed[id(position)] for position in positions])


#: How many rows a batch searches at once at 0, 1 and 2 plies (each row's subtree is searched whole: a 2-ply
#: row's holds a few hundred thousand positions).
ROWS_AT = (1 << 14, 256, 2)


class Prefetched(NamedTuple):
    """A game's values found in batches by event number (:func:`prefetched`): each ply's moves' values in
    ``legal_moves`` order and the plies each was searched to, each roll's best 0-ply value before a ply
    with a roll (:data:`ROLLS` in order), and each cube decision's normalised equities and values of no
    double, double-take and double-pass."""

    moves: dict[int, tuple[Floats, npt.NDArray[np.int64]]]
    rolls: dict[int, Floats]
    cubes: dict[int, tuple[Floats, Floats]]


def normalised(values: object, side: str, cube: Cube, match: Match, table: Optional[MatchEquityTable]) -> Floats:
    """Values for ``side`` in normalised money equity per unit of the cube (GNU Backgammon's ``mwc2eq`` of
    match winning chances at the score and cube; money values as they are)."""
    found = np.asarray(values, dtype=np.float64)
    if match.money or table is None:
        return found
    return np.asarray(table.mwc2eq(found, match.away(side), match.away(SIDES[1 - SIDES.index(side)]), cube.value,
                                   match.crawford), dtype=np.float64)


def check_filter(value: object) -> Optional[MoveFilter]:
    """``analyse``'s ``move_filter``: ``None`` or a (keep, width) pair, keep an integer 1 or more, width a
    finite number 0 or more."""
    if value is None:
        return None
    pair = items(value)
    keep = integer(pair[0]) if pair is not None and len(pair) == 2 else None
    width = pair[1] if pair is not None and len(pair) == 2 else None
    if not (keep is not None and keep >= 1 and isinstance(width, (int, float, np.floating, np.integer))
            and not isinstance(width, (bool, np.bool_)) and 0 <= float(width) < math.inf):
        raise field_error(NardyError, "move_filter", "must be None or a MoveFilter(keep >= 1, width >= 0)", value)
    return MoveFilter(keep, float(width))


def kept(equities: Floats, keep: Optional[MoveFilter], played: int) -> npt.NDArray[np.int64]:
    """The moves a search deeper than 0 plies values (GNU Backgammon's analysis: the best ``keep.keep`` by
    0-ply equity within ``keep.width`` of the best, ties the earlier; every move without a filter) and the
    move ``played``, in order."""
    if keep is None:
        return np.arange(len(equities), dtype=np.int64)
    chosen = filter_kept(equities, np.array([0, len(equities)], dtype=np.int64), keep.keep, keep.width)
    chosen[played] = True
    return np.flatnonzero(chosen).astype(np.int64)


def prefetched(game: GameRecord, evaluator: object, plies: int, table: Optional[MatchEquityTable],
               position_class: Optional[type[Position]], move_filter: Optional[MoveFilter]) -> Prefetched:
    """``game`` replayed once, and its values found in a few batches (a game with the cube only): each ply's
    moves' values (at 0 plies all; deeper the moves of ``move_filter`` and the move played, the others at
    their 0-ply values), the best value of each roll before each ply with a roll (0 plies), and the cube
    decision of each turn start where the side to move may double and of each double (``plies`` deep)."""
    if game.match is None:
        return Prefetched({}, {}, {})
    replay = Replay(game.start, game.match, position_class)
    keys: list[int] = []
    plays: list[tuple[Position, Optional[tuple[int, int]], Cube, Position]] = []
    asked: list[tuple[int, Position, Cube]] = []  # the cube decisions: event number, position, cube
    decided = False
    for index, event in enumerate(game.events, 1):
        where = f"event {index}"
        if isinstance(event, Ply):
            position = replay.position
            if not decided and event.roll is not None and replay.may_double():
                asked.append((index, position, replay.cube))
            cube = replay.cube
            move = replay.play(event.roll, [(s.src, s.dst) for s in event.steps], event.text, where)
            keys.append(index)
            plays.append((position, event.roll, cube, move.result))
            decided = False
        elif isinstance(event, CubeAction):
            if event.action == "double":
                asked.append((index, replay.position, replay.cube))
                decided = True
            replay.cube_action(event.side, event.action, where)
    if not plays and not asked:
        return Prefetched({}, {}, {})
    first, cube0 = (plays[0][0], plays[0][2]) if plays else (asked[0][1], asked[0][2])
    batch = _Batch(first, cube0, game.match, evaluator, table, plies)
    luck = [i for i, (_, roll, _, _) in enumerate(plays) if roll is not None]
    positions = [p for p, _, _, _ in plays] + [plays[i][0] for i in luck for _ in ROLLS]
    dice = [r for _, r, _, _ in plays] + list(ROLLS) * len(luck)
    cubes = [c for _, _, c, _ in plays] + [plays[i][2] for i in luck for _ in ROLLS]
    found, children = batch.children(positions, dice, cubes) if plays else ([], [])
    moves = {keys[i]: (found[i], np.zeros(len(found[i]), dtype=np.int64)) for i in range(len(plays))}
    if plies:
        _deepen(batch, plays, keys, found, children, moves, move_filter)
    bests = [float(np.max(v)) for v in found[len(plays):]]
    rolls = {keys[i]: np.array(bests[21 * n:21 * n + 21]) for n, i in enumerate(luck)}
    cube_values: dict[int, tuple[Floats, Floats]] = {}
    if asked:
        equities, values = batch.decisions([p for _, p, _ in asked], [c for _, _, c in asked])
        cube_values = {key: (equities[n], values[n]) for n, (key, _, _) in enumerate(asked)}
    return Prefetched(moves, rolls, cube_values)


def _deepen(batch: _Batch, plays: list[tuple[Position, Optional[tuple[int, int]], Cube, Position]], keys: list[int],
            found: list[Floats], children: list[Rows], moves: dict[int, tuple[Floats, npt.NDArray[np.int64]]],
            move_filter: Optional[MoveFilter]) -> None:
    """Each ply's moves of ``move_filter`` and the move played searched ``batch.plies`` deep, in one batch."""
    assert batch.match is not None
    parents, picked, values, owners = [], [], [], []
    where: list[tuple[int, int]] = []
    for i, (position, _, cube, result) in enumerate(plays):
        row = result.to_array()
        played = int(np.flatnonzero((children[i] == row).all(axis=1))[0])
        chosen = kept(normalised(found[i], position.turn, cube, batch.match, batch.table), move_filter, played)
        parents.append(np.repeat(position.to_array()[None, :], len(chosen), axis=0))
        picked.append(children[i][chosen])
        value, owner = cube_rows([cube])
        values.append(np.repeat(value, len(chosen)))
        owners.append(np.repeat(owner, len(chosen)))
        where.extend((i, int(j)) for j in chosen)
    deep = batch.after_move(np.concatenate(parents), np.concatenate(picked),
                            (np.concatenate(values), np.concatenate(owners)), batch.plies)
    for (i, j), value in zip(where, deep.tolist()):
        valued, reached = moves[keys[i]]
        valued[j], reached[j] = value, batch.plies
