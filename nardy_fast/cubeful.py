"""Cube decisions and cubeful equities of positions (docs/rules.md, The doubling cube; Cubeful search): the
cube facts (:mod:`nardy_fast.cube`) applied to an evaluator's outputs, at 0 ply and searched n plies deep as
GNU Backgammon does it (``eval.c``: ``EvaluatePositionCubeful4``, ``MakeCubePos``, ``GetECF3``).

The search values every position under a list of cube states at once. At a node whose side is to roll at the
start of its turn, each state is doubled into two (no double; double and take, when that side may double:
``MakeCubePos``; never mid-turn, after an extra roll); the roll's best move is chosen by its 0-ply cubeful
value under the cube of the position searched (GNU Backgammon's ``pciMove``) and valued one ply shallower
under those states; the values over the 21 rolls are averaged and the side's cube decision taken on them
(``GetECF3``). At the leaves Janowski's formulas turn the evaluator's outputs into cubeful values with the
efficiency of the leaf's class and variant, the cube efficiency of the whole search's depth
(``EvalEfficiency``), except in a two-sided bear-off, whose exact values are read at money play
(``CFMONEY``; it is a leaf at any depth there) and give the efficiency in a match. At the root no decision
is taken: its two states are the no-double and double-take lines of the decision. Written once over an
implementation's kernels, so the reference and the core answer alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple, Optional, Union

import numpy as np
import numpy.typing as npt

from . import layout
from .bearoff.semantics import ROLL_ORDER, ROLL_WEIGHTS
from .bearoff.tables import CUBE_STATES
from .bearoff.values import exact_cubeful
from .board import mover_point
from .cube.decision import CubeDecision, check_state, decided, merged, one_of
from .cube.janowski import EFFICIENCIES, exact_efficiency, money_cubeful, race_efficiency
from .cube.matchplay import Score, cubeful_mwc
from .cube.met import DEFAULT_TABLES, MatchEquityTable, match_equity_table
from .cube.state import MAX_CUBE, SIDES, Cube, Match
from .cubestates import CENTRED, MoveCube, groups, state_of, subset
from .errors import NardyError, field_error
from .evaluation.classes import BEAROFF, CONTACT, OVER, RACE, classes_of
from .evaluation.evaluators import check_positions, evaluate_rows
from .evaluation.outcomes import flipped
from .evaluation.search import MAX_PLIES
from .inputs import integer
from .variants import VARIANT_SPECS, VARIANTS

if TYPE_CHECKING:
    from .evaluation.builtin import Builtin
    from .evaluation.composite import Composite
    from .evaluation.evaluators import Evaluator
    from .kernels import Kernels
    from .position import Move, Position

__all__ = ["CubefulSearch", "MoneyHint", "MatchHint", "check_cube_plies", "pips_on_roll"]

Rows = npt.NDArray[np.int8]
Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]


ROLLS = np.array(ROLL_ORDER, dtype=np.int8)
WEIGHTS = np.array(ROLL_WEIGHTS, dtype=np.float64)
#: For each variant (by index), the board column of Black's own points 1..24.
BLACK_COLUMNS = np.array([[mover_point(spec.name, m) - 1 for m in range(1, 25)] for spec in VARIANT_SPECS])



class MoneyHint(NamedTuple):
    """A move of a cubeful hint at money play and its cubeful equity (points per unit of the cube)."""

    move: Move
    equity: float


class MatchHint(NamedTuple):
    """A move of a cubeful hint in a match and the match winning chances of the side to move after it."""

    move: Move
    mwc: float


def check_cube_plies(value: object) -> int:
    """A cubeful search depth: an integer 0..MAX_PLIES."""
    plies = integer(value)
    if plies is None or not 0 <= plies <= MAX_PLIES:
        raise field_error(NardyError, "plies", f"must be an integer 0..{MAX_PLIES}", value)
    return plies


def pips_on_roll(rows: Rows) -> Ints:
    """The pip count of each row's side to move (a checker on the bar counts 25), as ``Position.pips``."""
    board = rows[:, layout.BOARD : layout.BOARD + 24].astype(np.int64)
    points = np.arange(1, 25)
    white = (np.maximum(board, 0) * points).sum(axis=1) + 25 * rows[:, layout.BAR].astype(np.int64)
    own = np.take_along_axis(board, BLACK_COLUMNS[rows[:, layout.VARIANT]], axis=1)
    black = (np.maximum(-own, 0) * points).sum(axis=1) + 25 * rows[:, layout.BAR + 1].astype(np.int64)
    pips: Ints = np.where(rows[:, layout.TURN] == 0, white, black)
    return pips


def efficiencies(rows: Rows, plies: int) -> Floats:
    """The cube efficiency of each row (:data:`~nardy_fast.cube.janowski.EFFICIENCIES` of its variant and
    class) for a search ``plies`` deep. Every bear-off of a race (all checkers of both sides home, none to
    play of a pending list) takes the bear-off figure, as GNU Backgammon's one-sided bear-off class does; so
    does a two-sided one, where only a match reads it, as the bound of the efficiency its exact values give
    (at money play they replace Janowski's: GNU Backgammon's ``rTSCubeX``, "for match play only")."""
    deep = 1 if plies >= 2 else 0
    classes = classes_of(rows)
    home = (classes == RACE) & layout.is_bearoff(rows) & (rows[:, layout.NPENDING] == 0)
    classes[home] = BEAROFF
    out = np.zeros(len(rows))
    variants = rows[:, layout.VARIANT]
    for number in np.unique(variants):
        table = EFFICIENCIES[VARIANTS[int(number)]]
        here = variants == number
        out[here & (classes == CONTACT)] = table.contact[deep]
        out[here & (classes == BEAROFF)] = table.bearoff
        race = np.flatnonzero(here & (classes == RACE))
        if race.size:
            out[race] = race_efficiency(table, pips_on_roll(rows[race]), deep)
        out[here & (classes == OVER)] = 0.0
    return out


class CubefulSearch:
    """The cubeful search of one implementation's kernels with ``evaluator`` under ``match`` (and its table),
    for a search ``plies`` deep (which sets the leaves' cube efficiency). States are arrays (n, k) of cube
    values (0: a state that cannot arise, a double not allowed) and owners (:data:`CENTRED` or a side's
    index); values are the side to move's, per unit of the state's cube at money play, match winning chances
    in a match."""

    def __init__(self, kernels: Kernels, evaluator: Union[Builtin, Composite, Evaluator], match: Match,
                 table: Optional[MatchEquityTable], plies: int) -> None:
        self.kernels, self.evaluator, self.match, self.table, self.plies = kernels, evaluator, match, table, plies

    # --- the facts of one state --------------------------------------------------------------------------------

    def _score(self, me: int) -> Score:
        assert self.table is not None
        side, them = SIDES[me], SIDES[1 - me]
        return Score(self.table, self.match.away(side), self.match.away(them), self.match.crawford)

    def _cube(self, value: int, owner: int) -> Cube:
        return Cube(value, None if owner == CENTRED else SIDES[owner])

    def _may_double(self, value: int, owner: int, me: int) -> bool:
        if value <= 0 or 2 * value > MAX_CUBE:
            return False
        return self.match.may_double(self._cube(value, owner), SIDES[me])

    def _pass_value(self, value: int, me: int) -> float:
        """What the side on roll gets when its double is passed: 1 per unit of the cube, or its chances after
        winning ``value`` points."""
        return 1.0 if self.table is None else self._score(me).mwc(0, won=value)

    def flip(self, values: Floats) -> Floats:
        """Values seen by the other side."""
        return -values if self.table is None else 1.0 - values

    # --- the search --------------------------------------------------------------------------------------------

    def expand(self, rows: Rows, values: Ints, owners: Ints, top: bool) -> tuple[Ints, Ints]:
        """``MakeCubePos``: each state followed by its doubled and taken form where the side to roll may
        double it (never at the root, and never mid-turn, with a pending list to play)."""
        n, k = values.shape
        ev, eo = np.zeros((n, 2 * k), dtype=np.int64), np.full((n, 2 * k), CENTRED, dtype=np.int64)
        ev[:, 0::2], eo[:, 0::2] = values, owners
        if top:
            return ev, eo
        movers = rows[:, layout.TURN].astype(np.int64)
        rolling = rows[:, layout.NPENDING] == 0
        for (value, owner, me), index in groups(values, owners, movers, rolling):
            if self._may_double(value, owner, me):
                i, j = index
                ev[i, 2 * j + 1], eo[i, 2 * j + 1] = 2 * value, 1 - me
        return ev, eo

    def collapse(self, rows: Rows, cf: Floats, ev: Ints) -> Floats:
        """``GetECF3``: the side to roll's value of each state, doubling where that is worth more."""
        nd, dt = cf[:, 0::2], cf[:, 1::2]
        if self.table is None:
            dt = 2.0 * dt
        movers = rows[:, layout.TURN].astype(np.int64)
        dp = np.ones_like(nd)
        if self.table is not None:
            for me in (0, 1):
                for value in np.unique(ev[movers == me, 0::2]):
                    if value > 0:
                        dp[(movers == me)[:, None] & (ev[:, 0::2] == value)] = self._pass_value(int(value), me)
        doubles = (ev[:, 1::2] > 0) & (dt >= nd) & (dp >= nd)
        result: Floats = np.where(doubles, np.minimum(dt, dp), nd)
        return result

    def leaf(self, rows: Rows, p: Floats, ev: Ints, eo: Ints, exact: npt.NDArray[np.bool_], known: Floats) -> Floats:
        """Janowski's cubeful value of every row under every state (``Cl2CfMoney``, ``Cl2CfMatch``). Rows of
        two-sided bear-offs (``exact``, their values ``known``: :func:`exact_cubeful`) take their exact
        values at money play (``CFMONEY``) and in a match the efficiency their exact money values imply
        (docs/rules.md, The doubling cube)."""
        x = efficiencies(rows, self.plies)
        movers = rows[:, layout.TURN].astype(np.int64)
        out = np.zeros(ev.shape)
        for (value, owner, me), (i, j) in groups(ev, eo, movers, np.ones(len(rows), dtype=bool)):
            if value <= 0:
                continue
            relative = "centred" if owner == CENTRED else ("own" if owner == me else "opponent")
            money = known[i, 1 + CUBE_STATES.index(relative)]
            if self.table is None:
                found = money_cubeful(p[i], x[i], relative, jacoby=self.match.jacoby)
                out[i, j] = np.where(exact[i], money, found)
            else:
                eff = np.where(exact[i], exact_efficiency(p[i], money, relative, x[i]), x[i])
                out[i, j] = cubeful_mwc(p[i], self._score(me), value, relative, eff)
        return out

    def values(self, rows: Rows, values: Ints, owners: Ints, depth: int, top: bool, move: MoveCube,
               outputs: Optional[Floats] = None) -> tuple[Floats, Floats]:
        """The cubeful values (n, k) of ``rows`` under their states searched ``depth`` plies deep, and their
        cubeless outputs (n, 5), for their sides to move. ``outputs``, when given, are the rows' 0-ply
        outputs, already found. A two-sided bear-off is a leaf at money play however deep the search (its
        values are exact), its outputs the exact chance of winning (``EvaluatePositionCubeful4``)."""
        ev, eo = self.expand(rows, values, owners, top)
        exact, known = exact_cubeful(self.kernels, rows)
        over = layout.is_over(rows) | (exact & (self.table is None))
        searched = ~over if depth > 0 else np.zeros(len(rows), dtype=bool)
        inner, leaves = np.flatnonzero(searched), np.flatnonzero(~searched)
        cf = np.zeros(ev.shape)
        p = np.zeros((len(rows), 5))
        if leaves.size:
            p[leaves] = evaluate_rows(self.kernels, rows[leaves], self.evaluator) if outputs is None else \
                outputs[leaves]
            p[exact, 1:], p[exact, 0] = 0.0, known[exact, 0]
            cf[leaves] = self.leaf(rows[leaves], p[leaves], ev[leaves], eo[leaves], exact[leaves], known[leaves])
        if inner.size:
            cf[inner], p[inner] = self._searched(rows[inner], ev[inner], eo[inner], depth, subset(move, inner))
        return (cf[:, 0::2] if top else self.collapse(rows, cf, ev)), p

    def after_move(self, parents: Rows, children: Rows, values: Ints, owners: Ints, depth: int, move: MoveCube,
                   outputs: Optional[Floats] = None) -> tuple[Floats, Floats]:
        """:meth:`values` of the positions moves of ``parents`` lead to: one whose side to move is still the
        mover's continues its turn (an extra roll, a pending list), where no double is offered."""
        same = children[:, layout.TURN] == parents[:, layout.TURN]
        cf, p = np.zeros(values.shape), np.zeros((len(children), 5))
        for mid_turn in (False, True):
            at = np.flatnonzero(same == mid_turn)
            if at.size:
                cf[at], p[at] = self.values(children[at], values[at], owners[at], depth, mid_turn, subset(move, at),
                                            None if outputs is None else outputs[at])
        return cf, p

    def _searched(self, rows: Rows, ev: Ints, eo: Ints, depth: int, move: MoveCube) -> tuple[Floats, Floats]:
        """The average over the rolls (or the one pending list) of each row's best move's values."""
        n = len(rows)
        pending = rows[:, layout.NPENDING] > 0
        # a pending list is played within the turn: no roll, and no ply spent
        count = np.where(pending, 1, len(ROLLS))
        parent = np.repeat(np.arange(n), count)
        roll_index = np.concatenate([[0] if pending[i] else np.arange(len(ROLLS)) for i in range(n)]) if n else \
            np.zeros(0, dtype=np.int64)
        rolls = np.where(pending[parent][:, None], 0, ROLLS[roll_index]).astype(np.int8)
        weights = np.where(pending[parent], 36.0, WEIGHTS[roll_index])
        deeper = np.where(pending[parent], depth, depth - 1)
        chosen, chosen_p = self.best_moves(rows[parent], rolls, subset(move, parent))
        cf = np.zeros((len(parent), ev.shape[1]))
        p = np.zeros((len(parent), 5))
        for d in np.unique(deeper):
            at = np.flatnonzero(deeper == d)
            cf[at], p[at] = self.after_move(rows[parent[at]], chosen[at], ev[parent[at]], eo[parent[at]], int(d),
                                            subset(move, parent[at]), chosen_p[at] if d == 0 else None)
        passed = chosen[:, layout.TURN] != rows[parent, layout.TURN]
        cf[passed] = self.flip(cf[passed])
        p[passed] = flipped(p[passed])
        total_cf, total_p = np.zeros((n, ev.shape[1])), np.zeros((n, 5))
        for r in range(len(ROLLS)):  # in ROLL_ORDER, as the cubeless search adds them up
            at = np.flatnonzero(roll_index == r)
            np.add.at(total_cf, parent[at], weights[at, None] * cf[at])
            np.add.at(total_p, parent[at], weights[at, None] * p[at])
        return total_cf / 36.0, total_p / 36.0

    def best_moves(self, rows: Rows, rolls: Rows, move: MoveCube) -> tuple[Rows, Floats]:
        """For each row and roll, the child its side to move picks by 0-ply cubeful value under the cube
        ``move`` (its row's; ties: the first in ``legal_moves`` order), and that child's 0-ply outputs."""
        children, offsets, _ = self.kernels.batch_children(rows, rolls)
        children, offsets = np.asarray(children), np.asarray(offsets, dtype=np.int64)
        owners = np.repeat(np.arange(len(rows)), np.diff(offsets))
        p = evaluate_rows(self.kernels, children, self.evaluator, rows[owners])
        move = subset(move, owners)
        values, owners_code = state_of(move, len(children))
        cf, _ = self.after_move(rows[owners], children, values, owners_code, 0, move, p)
        passed = children[:, layout.TURN] != rows[owners, layout.TURN]
        mine = np.where(passed, self.flip(cf[:, 0]), cf[:, 0])
        best = np.asarray(self.kernels.segment_argmax(mine, offsets), dtype=np.int64)
        picked = offsets[:-1] + best
        return children[picked], p[picked]

    def decisions(self, rows: Rows, cube: MoveCube, plies: int) -> CubeDecision:
        """The cube decision of every row's side to move under ``cube`` (one for all rows, or each row's), from
        the no-double and double-take values the search finds ``plies`` deep (rows of one side to move or
        both)."""
        n = len(rows)
        state = state_of(cube, n)
        value, owner = state[0][:, 0], state[1][:, 0]
        movers = rows[:, layout.TURN].astype(np.int64)
        values = np.stack([value, 2 * value], axis=1)
        owners = np.stack([owner, 1 - movers], axis=1)
        cf, p = self.values(rows, values, owners, plies, True, cube)
        if self.table is None:
            cf[:, 1] *= 2.0
        parts = []
        for (cube_value, code, me), (index, _) in groups(value[:, None], owner[:, None], movers,
                                                          np.ones(n, dtype=bool)):
            here = Cube(cube_value, None if code == CENTRED else SIDES[code])
            parts.append((index, decided(p[index], cf[index, 0], cf[index, 1], here, self.match, SIDES[me],
                                         self.table)))
        return merged(parts, n)


def cube_decisions(kernels: Kernels, rows: object, evaluator: object, cube: object, match: object, table: object,
                   plies: object) -> CubeDecision:
    """:func:`nardy_fast.cube_decisions` with ``kernels``: the arguments checked, then the search."""
    from .batch import as_array, check_rows
    from .evaluation.composite import resolve_evaluator
    from .position import Position

    checked = resolve_evaluator("net" if evaluator is None else evaluator)
    state, game, met = check_state(cube, match, table)
    depth = check_cube_plies(plies)
    single = isinstance(rows, Position)
    array = as_array(rows.to_array() if isinstance(rows, Position) else rows, "rows", NardyError,
                     f"(N, {layout.WIDTH})")
    matrix = check_positions(kernels, check_rows(array, "rows"))
    parts = []
    for tables, index in _by_table(matrix, game, table):
        search = CubefulSearch(kernels, checked, game, met if tables is None else tables, depth)
        parts.append((index, search.decisions(matrix[index], state, depth)))
    found = merged(parts, len(matrix))
    if single or array.ndim == 1:
        return one_of(found)
    return found


def _by_table(rows: Rows, match: Match, table: object) -> list[tuple[Optional[MatchEquityTable], Ints]]:
    """The rows by the match equity table they read: one group (``None``: the table given, or none at money
    play) unless a match's table is left to each row's variant (:func:`~nardy_fast.cube.met.default_table`)."""
    everything = np.arange(len(rows), dtype=np.int64)
    if match.money or table is not None:
        return [(None, everything)]
    numbers = rows[:, layout.VARIANT].astype(np.int64)
    groups: dict[str, list[Ints]] = {}
    for number in np.unique(numbers):
        name = DEFAULT_TABLES[VARIANTS[int(number)]]
        groups.setdefault(name, []).append(np.flatnonzero(numbers == number))
    return [(match_equity_table(name), np.sort(np.concatenate(parts))) for name, parts in groups.items()]


def cubeful_hint(kernels: Kernels, position: Position, roll: Optional[Sequence[int]], evaluator: object,
                 plies: object, cube: object, match: object, table: object) -> list[Union[MoneyHint, MatchHint]]:
    """:meth:`Position.hint` with the cube: every legal move ranked best first by the cubeful value of the
    position it leads to (``ScoreMove``: that position's cubeful value under ``cube`` searched ``plies``
    deep, the other side's cube decisions taken in it, seen by the side to move): :class:`MoneyHint` entries
    at money play, :class:`MatchHint` (match winning chances) in a match. Ties keep ``legal_moves`` order."""
    from .evaluation.composite import resolve_evaluator

    checked = resolve_evaluator("net" if evaluator is None else evaluator)
    state, game, met = check_state(cube, match, table, position.variant)
    depth = check_cube_plies(plies)
    moves = position.legal_moves(roll)  # checks the roll, and a pending list's lack of one
    row = position.to_array()
    dice = (0, 0) if roll is None or position.pending else (int(roll[0]), int(roll[1]))
    children, _, _ = kernels.batch_children(row[None, :], np.array([dice], dtype=np.int8))
    children = np.asarray(children)
    search = CubefulSearch(kernels, checked, game, met, depth)
    values, owners = state_of(state, len(children))
    found, _ = search.after_move(np.repeat(row[None, :], len(children), axis=0), children, values, owners, depth,
                                 state)
    passed = children[:, layout.TURN] != row[layout.TURN]
    mine = np.where(passed, search.flip(found[:, 0]), found[:, 0])
    order = np.lexsort((np.arange(len(mine)), -mine))
    kind = MoneyHint if met is None else MatchHint
    return [kind(moves[i], float(mine[i])) for i in order]
