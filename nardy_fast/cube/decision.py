"""The cube decision from the five cubeless outputs (docs/rules.md, The doubling cube): the cubeful equities of
no double, double-take and double-pass, and the proper action in GNU Backgammon's words
(``FindBestCubeDecision``, ``GetCubeRecommendation``). At money play the equities are points per unit of
the current cube; under a match they are chances of winning the match, and the action is chosen on
GNU Backgammon's normalised equities (``mwc2eq``), as it does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union

import numpy as np
import numpy.typing as npt

from ..errors import NardyError, field_error
from ..evaluation.outcomes import check_probabilities
from ..inputs import choice
from .janowski import average_values, efficiency_array, match_table_check, money_cubeful
from .matchplay import Score, cash_points, cubeful_mwc
from .met import MatchEquityTable, default_table
from .state import SIDES, Cube, Match, other

__all__ = ["CubeDecision", "cube_decision", "check_state", "decided", "proper_actions", "merged", "one_of", "ACTIONS"]

#: Every action :func:`cube_decision` may give, GNU Backgammon's texts.
ACTIONS = (
    "No double, take", "Double, take", "Double, pass", "Too good to double, take", "Too good to double, pass",
    "No double, beaver", "Double, beaver", "Optional double, take", "Optional double, pass",
    "Optional double, beaver", "No redouble, take", "Redouble, take", "Redouble, pass",
    "Too good to redouble, take", "Too good to redouble, pass", "No redouble, beaver", "Optional redouble, take",
    "Optional redouble, pass", "Never double, take (dead cube)", "Never redouble, take (dead cube)",
    "Cube not available",
)

#: Two equities this close make a double optional (GNU Backgammon's ``isOptional``).
OPTIONAL = 1e-5

Floats = Union[float, npt.NDArray[np.float64]]


@dataclass(frozen=True)
class CubeDecision:
    """The side on roll's cubeful values of the three lines, the proper action (one text, or a tuple of them
    for many rows), the live-cube take point and cash point (the side on roll's chances of winning the game
    at which it would just take a double, and at which its opponent would just pass one: Janowski's money
    points, or GNU Backgammon's ``GetPoints`` under a match), and the outputs they came from. ``equities``
    are the three values as normalised money equity (the values themselves at money play)."""

    no_double: Floats
    double_take: Floats
    double_pass: Floats
    action: Union[str, tuple[str, ...]]
    take_point: Floats
    cash_point: Floats
    equities: npt.NDArray[np.float64]
    outputs: npt.NDArray[np.float64]


def proper_actions(e: npt.NDArray[np.float64], p: npt.NDArray[np.float64], centred: bool, money: bool, beavers: bool,
             jacoby: bool) -> tuple[str, ...]:
    """GNU Backgammon's choice among the lines (``FindBestCubeDecision``) for rows of normalised equities
    ``e`` (n, 3) and outputs ``p`` (n, 5), where the cube is available."""
    nd, dt, dp = e[:, 0], e[:, 1], e[:, 2]
    gammon, win = p[:, 1] > 0.0, p[:, 0] > 0.0
    re = "" if centred else "re"
    up = "Double" if centred else "Redouble"
    beaver = money and beavers
    beaverable = beaver & (dt >= -2.0) & (dt <= 0.0)
    doubles = (dt >= nd) & (dp >= nd)
    takes = doubles & (dp > dt)
    optional_take = np.abs(dt - nd) <= OPTIONAL
    optional_pass = (np.abs(nd - dp) <= OPTIONAL) & gammon & (not money or not centred or not jacoby)
    too_good_pass = ~doubles & (((nd > dt) & (dt > dp)) | (nd <= dt))
    too_good_take = ~doubles & (nd > dt) & (dt <= dp) & (nd > dp)
    choices = [
        (takes & beaverable & (dt * 2.0 < nd), "No double, beaver"),
        (takes & beaverable & optional_take, "Optional double, beaver"),
        (takes & beaverable, "Double, beaver"),
        (takes & win & optional_take, f"Optional {re}double, take"),
        (takes & win, f"{up}, take"),
        (takes, f"No {re}double, take"),
        (doubles & optional_pass, f"Optional {re}double, pass"),
        (doubles, f"{up}, pass"),
        (too_good_pass & gammon, f"Too good to {re}double, pass"),
        (too_good_pass, f"{up}, pass"),
        (too_good_take & gammon, f"Too good to {re}double, take"),
        (too_good_take, f"No {re}double, take"),
        (beaverable, f"No {re}double, beaver"),
    ]
    names = np.array([text for _, text in choices] + [f"No {re}double, take"])
    codes = np.select([mask for mask, _ in choices], np.arange(len(choices)), default=len(choices))
    return tuple(names[codes].tolist())


def cube_decision(outputs: object, x: object, *, cube: Optional[Cube] = None, match: Optional[Match] = None,
                  side: object = "white", table: Optional[MatchEquityTable] = None,
                  variant: str = "short") -> CubeDecision:
    """The cube decision of ``side`` (on roll) from its cubeless ``outputs`` (5,) or (n, 5) and cube
    efficiency ``x`` (a number or one per row; :func:`~nardy_fast.cube.janowski.cube_efficiency`), with
    ``cube`` (default centred at 1), ``match`` (default money play) and, under a match, ``table`` (default
    the ``variant``'s, :func:`~nardy_fast.cube.met.default_table`)."""
    cube, match, met = check_state(cube, match, table, variant)
    me = choice(side, SIDES)
    if me is None:
        raise field_error(NardyError, "side", f"must be one of {SIDES}", side)
    p = check_probabilities(outputs, "outputs")
    eff = efficiency_array(x, p.shape[:-1])
    owner = "centred" if cube.owner is None else ("own" if cube.owner == me else "opponent")
    if met is None:
        nd = np.asarray(money_cubeful(p, eff, owner, jacoby=match.jacoby))
        dt = 2.0 * np.asarray(money_cubeful(p, eff, "opponent"))
    else:
        score = Score(met, match.away(me), match.away(other(me)), match.crawford)
        nd = np.asarray(cubeful_mwc(p, score, cube.value, owner, eff))
        dt = np.asarray(cubeful_mwc(p, score, 2 * cube.value, "opponent", eff))
    return decided(p, nd, dt, cube, match, me, met)


def check_state(cube: object, match: object, table: object,
                variant: str = "short") -> tuple[Cube, Match, Optional[MatchEquityTable]]:
    """``cube`` (default centred at 1) and ``match`` (default money play) checked, and the match equity table
    a match reads (``table``, default the ``variant``'s; ``None`` at money play), or the error naming the
    field."""
    cube = Cube() if cube is None else cube
    match = Match() if match is None else match
    if not isinstance(cube, Cube):
        raise field_error(NardyError, "cube", "must be a nardy_fast.Cube", cube)
    if not isinstance(match, Match):
        raise field_error(NardyError, "match", "must be a nardy_fast.Match", match)
    if match.length is None:
        if table is not None:
            match_table_check(table)
        return cube, match, None
    met = default_table(variant) if table is None else match_table_check(table)
    if max(match.away("white"), match.away("black")) > met.size:
        raise field_error(NardyError, "match.length", f"the table covers matches up to {met.size}", match.length)
    return cube, match, met


def decided(p: npt.NDArray[np.float64], nd: npt.NDArray[np.float64], dt: npt.NDArray[np.float64], cube: Cube,
            match: Match, me: str, met: Optional[MatchEquityTable]) -> CubeDecision:
    """The decision of ``me`` (on roll) from the cubeful values of no double ``nd`` and double-take ``dt``
    (money: per unit of the current cube; a match: match winning chances), however they were found (Janowski's
    formulas at 0 ply, a cubeful search deeper), and the cubeless outputs ``p`` the points are read from."""
    owner = "centred" if cube.owner is None else ("own" if cube.owner == me else "opponent")
    if met is None:
        dp = np.ones_like(nd)
        values = np.stack([nd, dt, dp], axis=-1)
        equities = values
        available = cube.available(me)
        w, lo = (np.asarray(v) for v in average_values(p))
        take, cash = (lo - 0.5) / (w + lo + 0.5), (lo + 1.0) / (w + lo + 0.5)
    else:
        score = Score(met, match.away(me), match.away(other(me)), match.crawford)
        dp = np.full_like(nd, score.mwc(0, won=cube.value))
        values = np.stack([nd, dt, dp], axis=-1)
        win, lose = score.mwc(0, won=cube.value), score.mwc(0, lost=cube.value)
        equities = (2.0 * values - (win + lose)) / (win - lose)
        available = match.may_double(cube, me)
        cash, theirs = cash_points(p, score, cube.value)
        take = 1.0 - theirs
    rows = equities.reshape(-1, 3)
    if available:
        actions = proper_actions(rows, p.reshape(-1, 5), cube.owner is None, match.length is None, match.beavers,
                           match.jacoby)
    else:
        dead = match.length is not None and owner != "opponent"
        text = ("Never double, take (dead cube)" if owner == "centred" else "Never redouble, take (dead cube)") \
            if dead else "Cube not available"
        actions = (text,) * len(rows)
    single = p.ndim == 1
    pick = (lambda a: float(a)) if single else (lambda a: a)
    return CubeDecision(pick(values[..., 0]), pick(values[..., 1]), pick(values[..., 2]),
                        actions[0] if single else actions, pick(np.asarray(take)), pick(np.asarray(cash)), equities, p)


def merged(parts: list[tuple[npt.NDArray[np.int64], CubeDecision]], n: int) -> CubeDecision:
    """One decision of ``n`` rows from the decisions of the rows of each side to move."""
    if len(parts) == 1:
        return parts[0][1]
    names = ("no_double", "double_take", "double_pass", "take_point", "cash_point")
    fields: dict[str, npt.NDArray[np.float64]] = {name: np.zeros(n) for name in names}
    equities, outputs = np.zeros((n, 3)), np.zeros((n, 5))
    actions = np.empty(n, dtype=object)
    for index, part in parts:
        for name, array in fields.items():
            array[index] = getattr(part, name)
        equities[index], outputs[index] = part.equities, part.outputs
        actions[index] = part.action
    return CubeDecision(fields["no_double"], fields["double_take"], fields["double_pass"], tuple(actions.tolist()),
                        fields["take_point"], fields["cash_point"], equities, outputs)


def one_of(found: CubeDecision) -> CubeDecision:
    """The decision of a batch of one row as one position's: numbers and one text."""

    def first(name: str) -> float:
        return float(np.asarray(getattr(found, name)).reshape(-1)[0])

    action = found.action if isinstance(found.action, str) else found.action[0]
    return CubeDecision(first("no_double"), first("double_take"), first("double_pass"), action, first("take_point"),
                        first("cash_point"), found.equities.reshape(-1, 3)[0], found.outputs.reshape(-1, 5)[0])
