"""Cubeful equities from the five cubeless outputs: Rick Janowski's model as GNU Backgammon states it (``eval.c``:
``Cl2CfMoney``, ``MoneyLive``, ``getMoneyPoints``; Joern Thyssen's generalisation to match play, ``Cl2CfMatch``
and ``GetPoints``; the manual's "Cubeful equities"), and the cube decision they give (``FindBestCubeDecision``).

From the outputs (:data:`nardy_fast.evaluation.outcomes.OUTPUTS`) of the side on roll: the average value of
a game won ``W`` and lost ``L``; the live-cube equity, piecewise linear in the chances of winning through the
take point and the cash point; and cubeful = dead x (1 - x) + live x x for a cube efficiency ``x``
(:func:`cube_efficiency`). Every function takes one row (5,) or many (n, 5) and answers in kind.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

import numpy as np
import numpy.typing as npt

from ..errors import NardyError, field_error
from ..evaluation.outcomes import check_probabilities
from ..inputs import choice
from .met import MatchEquityTable

__all__ = ["CLASSES", "EFFICIENCIES", "Efficiencies", "cube_efficiency", "money_points", "average_values", "money_cubeful", "dead_equity",
           "exact_efficiency"]

Floats = Union[float, npt.NDArray[np.float64]]

#: The position classes :func:`cube_efficiency` knows: GNU Backgammon's, a one-sided bear-off as ``"bearoff"``
#: (a two-sided one has exact cubeful values, which are not a matter of ``x``).
CLASSES = ("over", "contact", "crashed", "race", "bearoff")

#: GNU Backgammon's efficiencies since December 2023 (``eval.c``, ``EvalEfficiency``): by evaluations of 0 and
#: 1 ply (the first of each pair) and deeper (the second).
CONTACT_X = (0.76, 0.68)
CRASHED_X = (0.76, 0.68)
RACE_FACTOR_X = (0.0025, 0.00125)
RACE_COEFFICIENT_X = (0.60, 0.55)
RACE_MIN_X = (0.60, 0.60)
RACE_MAX_X = (0.80, 0.70)
BEAROFF_X = 0.60


@dataclass(frozen=True)
class Efficiencies:
    """The cube efficiencies of one variant: per class, a pair (0- and 1-ply evaluations, deeper ones), and the
    race's linear rule in the pips of the side on roll; ``measured`` says whether they were measured for this
    variant or stand in for figures not yet measured."""

    contact: tuple[float, float]
    crashed: tuple[float, float]
    race_factor: tuple[float, float]
    race_coefficient: tuple[float, float]
    race_min: tuple[float, float]
    race_max: tuple[float, float]
    bearoff: float
    measured: bool


GNUBG = Efficiencies(CONTACT_X, CRASHED_X, RACE_FACTOR_X, RACE_COEFFICIENT_X, RACE_MIN_X, RACE_MAX_X, BEAROFF_X, True)


def measured(contact: float, race: float, bearoff: float) -> Efficiencies:
    """A variant's efficiencies as measured (docs/rules.md, The doubling cube): one figure per class, at every
    depth of evaluation, a race's whatever its pips."""
    return Efficiencies((contact,) * 2, (contact,) * 2, (0.0, 0.0), (race,) * 2, (race,) * 2, (race,) * 2, bearoff,
                        True)


#: The one table of cube efficiencies per variant. Short nardy is backgammon without the cube: GNU Backgammon's
#: figures. The long family's were measured from cubeful and cubeless rollouts of the package on the same dice
#: (``tools/cube_efficiency_fit.py``; docs/rules.md, The doubling cube, gives the commands, the positions and
#: the standard errors): contact, races with a checker still to bring home, and bear-offs (every checker of
#: both sides home); crazy gulbar's where the figures measured agree with those the players decided with.
EFFICIENCIES: dict[str, Efficiencies] = {
    "long": measured(0.79, 0.82, 0.91),
    "sixone": measured(0.80, 0.87, 0.91),
    "short": GNUBG,
    "gulbar": measured(0.70, 0.76, 0.89),
    "crazy": measured(0.67, 0.85, 0.97),
}

#: Below this chance of winning (or above one minus it) GNU Backgammon takes the cube as dead.
EPSILON = 1e-7


def cube_efficiency(position_class: object, pips: object = 0, plies: object = 0, variant: object = "short") -> float:
    """The cube efficiency ``x`` of a position of ``variant`` and ``position_class`` (:data:`CLASSES`) with
    ``pips`` the pip count of the side on roll, for an evaluation of ``plies`` (:data:`EFFICIENCIES`). Short
    nardy has GNU Backgammon's: contact and crashed 0.76 at 0 and 1 ply, 0.68 deeper; race 0.60 + 0.0025 x
    pips within 0.60-0.80 (0.55 + 0.00125 x pips within 0.60-0.70 deeper); a one-sided bear-off 0.60; a game
    over 0 (a dead cube). The long family's were measured from cubeful rollouts, one figure per class at
    every depth."""
    kind = choice(position_class, CLASSES)
    if kind is None:
        raise field_error(NardyError, "position_class", f"must be one of {CLASSES}", position_class)
    depth = plies if isinstance(plies, (int, np.integer)) and not isinstance(plies, bool) else None
    if depth is None or depth < 0:
        raise field_error(NardyError, "plies", "must be an integer >= 0", plies)
    name = choice(variant, tuple(EFFICIENCIES))
    if name is None:
        raise field_error(NardyError, "variant", f"must be one of {tuple(EFFICIENCIES)}", variant)
    table = EFFICIENCIES[name]
    deep = 1 if depth >= 2 else 0
    if kind == "over":
        return 0.0
    if kind == "bearoff":
        return table.bearoff
    if kind in ("contact", "crashed"):
        return (table.contact if kind == "contact" else table.crashed)[deep]
    count = pips if isinstance(pips, (int, np.integer)) and not isinstance(pips, bool) else None
    if count is None or count < 0:
        raise field_error(NardyError, "pips", "must be an integer >= 0", pips)
    return float(race_efficiency(table, np.asarray([count]), deep)[0])


def race_efficiency(table: Efficiencies, pips: npt.NDArray[np.int64], deep: int) -> npt.NDArray[np.float64]:
    """The race rule of ``table`` for many pip counts at once, in single precision as GNU Backgammon computes
    it (so that the same pips give the same ``x`` to the last bit)."""
    x = pips.astype(np.float32) * np.float32(table.race_factor[deep]) + np.float32(table.race_coefficient[deep])
    clipped = np.minimum(np.maximum(x.astype(np.float64), table.race_min[deep]), table.race_max[deep])
    return clipped


def money_points(
    win_value: float, lose_value: float, *, jacoby: bool = False, beavers: bool = False
) -> dict[str, tuple[float, float]]:
    """The money points (GNU Backgammon's ``getMoneyPoints``) of the side whose games won average
    ``win_value`` points and lost ``lose_value`` (1 + mars rate + 2 x koks rate): each a pair, the chances of
    winning at the point for a dead cube and for a fully live one (Janowski's formulas). ``"initial double"``
    is the first double from a centred cube, with the Jacoby rule (and beavers) when given."""
    w, lo = float(win_value), float(lose_value)
    if jacoby:
        initial = (lo - 0.25) / (lo + w - 0.5) if beavers else (lo - 0.5) / (lo + w - 1.0)
    else:
        initial = lo / (w + lo)
    return {
        "take": ((lo - 0.5) / (w + lo), (lo - 0.5) / (w + lo + 0.5)),
        "beaver": (lo / (w + lo), lo / (w + lo + 0.5)),
        "raccoon": (lo / (w + lo), (lo + 0.5) / (w + lo + 0.5)),
        "initial double": (initial, (lo + 1.0) / (lo + w + 0.5)),
        "redouble": (lo / (w + lo), (lo + 1.0) / (lo + w + 0.5)),
        "cash": ((lo + 0.5) / (w + lo), (lo + 1.0) / (w + lo + 0.5)),
        "too good": ((lo + 1.0) / (w + lo), (lo + 1.0) / (w + lo + 0.5)),
    }


def average_values(outputs: object) -> tuple[Floats, Floats]:
    """``W`` and ``L``: the average points of a game won and of a game lost by the side on roll, cubeless
    (a mars counts 2, a koks 3). Where it cannot win (or lose) the value is 1."""
    p = check_probabilities(outputs, "outputs")
    win, lose = p[..., 0], 1.0 - p[..., 0]
    with np.errstate(divide="ignore", invalid="ignore"):
        w = np.where(win > 0.0, 1.0 + (p[..., 1] + p[..., 2]) / win, 1.0)
        lo = np.where(lose > 0.0, 1.0 + (p[..., 3] + p[..., 4]) / lose, 1.0)
    return (float(w), float(lo)) if w.ndim == 0 else (w, lo)


def dead_equity(p: npt.NDArray[np.float64], gammons: bool = True) -> npt.NDArray[np.float64]:
    """Cubeless money equity of checked outputs ``p``, with mars and koks counted or (``gammons`` False: the
    Jacoby rule on a centred cube) not."""
    base: npt.NDArray[np.float64] = 2.0 * p[..., 0] - 1.0
    if gammons:
        base = base + p[..., 1] + p[..., 2] - p[..., 3] - p[..., 4]
    return base


def _money_live(w: npt.NDArray[np.float64], lo: npt.NDArray[np.float64], p: npt.NDArray[np.float64], owner: str,
                jacoby: bool) -> npt.NDArray[np.float64]:
    """The fully live cube's equity (GNU Backgammon's ``MoneyLive``): piecewise linear in ``p``."""
    tp = (lo - 0.5) / (w + lo + 0.5)
    cp = (lo + 1.0) / (w + lo + 0.5)
    with np.errstate(divide="ignore", invalid="ignore"):
        if owner == "centred":
            low = -np.ones_like(p) if jacoby else -lo + (-1.0 + lo) * p / tp
            high = np.ones_like(p) if jacoby else 1.0 + (w - 1.0) * (p - cp) / (1.0 - cp)
            return np.where(p < tp, low, np.where(p < cp, -1.0 + 2.0 * (p - tp) / (cp - tp), high))
        if owner == "own":
            return np.where(p < cp, -lo + (1.0 + lo) * p / cp, 1.0 + (w - 1.0) * (p - cp) / (1.0 - cp))
        return np.where(p < tp, -lo + (-1.0 + lo) * p / tp, -1.0 + (w + 1.0) * (p - tp) / (1.0 - tp))


def money_cubeful(outputs: object, x: object, owner: object = "centred", *, jacoby: bool = False) -> Floats:
    """Cubeful money equity per unit of the cube (GNU Backgammon's ``Cl2CfMoney``) of the side on roll with
    the cube ``owner`` (``"centred"``, ``"own"``: the side on roll has it, ``"opponent"``) and efficiency
    ``x`` (a number or one per row): dead x (1 - x) + live x x; dead where the side cannot win or lose."""
    side = choice(owner, ("centred", "own", "opponent"))
    if side is None:
        raise field_error(NardyError, "owner", "must be 'centred', 'own' or 'opponent'", owner)
    p = check_probabilities(outputs, "outputs")
    eff = efficiency_array(x, p.shape[:-1])
    dead = dead_equity(p, gammons=not (jacoby and side == "centred"))
    win = p[..., 0]
    alive = (win > EPSILON) & (win < 1.0 - EPSILON)
    # rows whose cube is dead get a harmless stand-in, so that no division by zero is ever made
    safe = np.where(alive[..., None], p, np.array([0.5, 0.0, 0.0, 0.0, 0.0]))
    w, lo = average_values(safe)
    live = _money_live(np.asarray(w), np.asarray(lo), safe[..., 0], side, jacoby)
    result = np.where(alive, dead * (1.0 - eff) + live * eff, dead)
    return float(result) if result.ndim == 0 else result


def exact_efficiency(outputs: object, exact: object, owner: str, x: object) -> Floats:
    """The cube efficiency a match gives a position whose exact money equity ``exact`` (per unit of the cube,
    cube ``owner``) is known (GNU Backgammon's two-sided bear-offs in ``EvaluatePositionCubeful4``): the
    ``x`` for which Janowski's money equity of ``outputs`` would be ``exact``, within 0 and the class's
    ``x``; the class's ``x`` where the live and dead equities are less than 0.0001 apart."""
    p = check_probabilities(outputs, "outputs")
    dead = dead_equity(p, gammons=True)
    live = np.asarray(money_cubeful(p, 1.0, owner))
    eff = efficiency_array(x, p.shape[:-1])
    apart = np.abs(live - dead) > 1e-4
    guess = np.divide(np.asarray(exact, dtype=np.float64) - dead, live - dead, out=eff.copy(), where=apart)
    found: Floats = np.clip(guess, 0.0, eff)
    return found


def efficiency_array(x: object, shape: tuple[int, ...]) -> npt.NDArray[np.float64]:
    try:
        eff = np.broadcast_to(np.asarray(x, dtype=np.float64), shape)
    except (TypeError, ValueError):
        raise field_error(NardyError, "x", f"must be a number in [0, 1] or one per row {shape}", x) from None
    if not np.isfinite(eff).all() or (eff < 0.0).any() or (eff > 1.0).any():
        raise field_error(NardyError, "x", "must be in [0, 1]", x)
    return eff


def match_table_check(table: object) -> MatchEquityTable:
    """``table`` when it is a :class:`MatchEquityTable`, else a :class:`~nardy_fast.NardyError`."""
    if not isinstance(table, MatchEquityTable):
        raise field_error(NardyError, "table", "must be a MatchEquityTable (nardy_fast.match_equity_table)", table)
    return table
