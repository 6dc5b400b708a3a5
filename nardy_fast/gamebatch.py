"""The 0-ply cubeful values of a game's checker plays and rolls in one batch (docs/rules.md, Game analysis):
the values :meth:`Position.hint` finds with the cube at 0 plies, for many positions, each under its own cube,
in one search of the cube layer rather than one per position (one call costs about a millisecond whatever its
size, and a game's analysis asks for some thousands); and GNU Backgammon's thresholds the analysis judges by."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Optional

import numpy as np
import numpy.typing as npt

from . import layout
from .cube import Cube, Match
from .cube.decision import check_state
from .cube.met import MatchEquityTable
from .cube.state import SIDES
from .cubeful import CENTRED, CubefulSearch
from .evaluation.composite import resolve_evaluator
from .kernels import kernels_of
from .position import Position
from .records import CubeAction, GameRecord, Ply, Replay

__all__ = ["child_values", "prefetched", "ROLLS", "WEIGHTS", "MARKS", "MARK_LEVELS", "RATINGS", "CLOSE_CUBE", "mark_of", "rating_of"]

Floats = npt.NDArray[np.float64]

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
    first = positions[0]
    kernels = kernels_of(first)
    _, game, met = check_state(cubes[0], match, table, first.variant)
    search = CubefulSearch(kernels, resolve_evaluator("net" if evaluator is None else evaluator), game, met, 0)
    rows = np.stack([p.to_array() for p in positions])
    dice = np.array([(0, 0) if r is None or p.pending else (r[0], r[1]) for p, r in zip(positions, rolls)],
                    dtype=np.int8)
    children, offsets, _ = kernels.batch_children(rows, dice)
    children, offsets = np.asarray(children), np.asarray(offsets, dtype=np.int64)
    parent = np.repeat(np.arange(len(rows)), np.diff(offsets))
    value = np.array([c.value for c in cubes], dtype=np.int64)
    owner = np.array([CENTRED if c.owner is None else SIDES.index(c.owner) for c in cubes], dtype=np.int64)
    found, _ = search.after_move(rows[parent], children, value[parent][:, None], owner[parent][:, None], 0,
                                 cubes[0])  # the cube of the moves searched deeper: none at 0 plies
    passed = children[:, layout.TURN] != rows[parent, layout.TURN]
    mine = np.where(passed, search.flip(found[:, 0]), found[:, 0])
    return [mine[offsets[i]:offsets[i + 1]] for i in range(len(rows))]


def prefetched(game: GameRecord, evaluator: object, plies: int, table: Optional[MatchEquityTable],
           position_class: Optional[type[Position]]) -> tuple[dict[int, Floats], dict[int, Floats]]:
    """``game`` replayed once, and in one batch of :func:`child_values` (a game with the cube only) by
    event number: at 0 plies each ply's moves' values, and each roll's best value before each ply with
    a roll, :data:`ROLLS` in order."""
    if game.match is None:
        return {}, {}
    replay = Replay(game.start, game.match, position_class)
    keys: list[int] = []
    positions: list[Position] = []
    rolls: list[Optional[tuple[int, int]]] = []
    cubes: list[Cube] = []
    for index, event in enumerate(game.events, 1):
        if isinstance(event, Ply):
            position = replay.position
            keys.append(index)
            positions.append(position)
            rolls.append(event.roll)
            cubes.append(replay.cube)
            replay.play(event.roll, [(s.src, s.dst) for s in event.steps], event.text, f"event {index}")
        elif isinstance(event, CubeAction):
            replay.cube_action(event.side, event.action, f"event {index}")
    luck = [i for i, roll in enumerate(rolls) if roll is not None]
    wanted = ([] if plies else list(range(len(keys)))) + [i for i in luck for _ in ROLLS]
    dice: list[Optional[tuple[int, int]]] = [rolls[i] for i in wanted[:len(wanted) - 21 * len(luck)]]
    dice += list(ROLLS) * len(luck)
    found = child_values([positions[i] for i in wanted], dice, [cubes[i] for i in wanted], game.match, evaluator,
                         table)
    moves = {} if plies else {keys[i]: found[i] for i in range(len(keys))}
    bests = [float(np.max(v)) for v in found[len(found) - 21 * len(luck):]]
    return moves, {keys[i]: np.array(bests[21 * n:21 * n + 21]) for n, i in enumerate(luck)}

