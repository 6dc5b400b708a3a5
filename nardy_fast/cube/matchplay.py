"""Cubeful match winning chances from the five cubeless outputs: Joern Thyssen's generalisation of Janowski's
model to match play, as GNU Backgammon states it (``eval.c``: ``Cl2CfMatch`` and its centred, owned and
unavailable cases; ``matchequity.c``: ``GetPoints``, the live cash points found backwards from the
highest cube that is still alive).

Everything is from the side on roll ("me", ``away`` points away) against the other side
(``opponent_away``), with the gammon and koks ratios of the outputs: the share of games won (lost) that are
a mars but no koks, and that are a koks.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .met import MatchEquityTable

__all__ = ["Score", "cubeful_mwc", "dead_mwc", "cash_points", "cube_is_live"]

Array = npt.NDArray[np.float64]


class Score:
    """A score seen from the side on roll: its points away, the other side's, and the Crawford game flag."""

    __slots__ = ("table", "away", "opponent_away", "crawford")

    def __init__(self, table: MatchEquityTable, away: int, opponent_away: int, crawford: bool) -> None:
        self.table, self.away, self.opponent_away, self.crawford = table, away, opponent_away, crawford

    def mwc(self, player: int, won: int = 0, lost: int = 0) -> float:
        """The chances of ``player`` (0: the side on roll, 1: the other) after it wins ``won`` points or loses
        ``lost`` (GNU Backgammon's ``getMEMultiple``, one entry)."""
        mine, theirs = (self.away, self.opponent_away) if player == 0 else (self.opponent_away, self.away)
        return self.table.after(mine, theirs, self.crawford, won=won, lost=lost)


def _ratios(p: Array) -> tuple[list[Array], list[Array]]:
    """The mars-but-not-koks ratio and the koks ratio of games won by each player (0: on roll, 1: other)."""
    win, lose = p[..., 0], 1.0 - p[..., 0]
    with np.errstate(divide="ignore", invalid="ignore"):
        g0 = np.where(win > 0.0, (p[..., 1] - p[..., 2]) / win, 0.0)
        b0 = np.where(win > 0.0, p[..., 2] / win, 0.0)
        g1 = np.where(lose > 0.0, (p[..., 3] - p[..., 4]) / lose, 0.0)
        b1 = np.where(lose > 0.0, p[..., 4] / lose, 0.0)
    return [g0, g1], [b0, b1]


def _prime(mine: int, theirs: int, value: int) -> int:
    """The cube ``mine``'s opponent takes (GNU Backgammon's ``GetCubePrimeValue``): doubled once more when
    the other side will redouble at once (an automatic redouble: ``mine`` is near the end, ``theirs`` not)."""
    return 2 * value if mine < 2 * value <= theirs else value


def cash_points(p: Array, score: Score, cube: int) -> tuple[Array, Array]:
    """The live-cube cash points of the side on roll and of the other side, as chances of winning of the side
    that doubles (GNU Backgammon's ``GetPoints``)."""
    g, b = _ratios(p)
    i, j = score.away - 1, score.opponent_away - 1
    dead, top = cube, 0
    while i >= 2 * dead and j >= 2 * dead:
        top += 1
        dead *= 2
    live: dict[tuple[int, int], Array] = {}
    value, level = dead, top
    while value >= cube:
        primes = (_prime(i, j, value), _prime(j, i, value))
        for k in (0, 1):
            gk, bk, go, bo = g[k], b[k], g[1 - k], b[1 - k]
            single_k, single_o = 1.0 - gk - bk, 1.0 - go - bo
            cash = score.mwc(k, won=value)
            with np.errstate(divide="ignore", invalid="ignore"):
                if i < 2 * value or j < 2 * value:
                    # the doubled cube will be dead: the take is for one game at the higher stakes
                    v = primes[k]
                    lose = single_o * score.mwc(k, lost=2 * v) + go * score.mwc(k, lost=4 * v) + bo * score.mwc(
                        k, lost=6 * v)
                    win = single_k * score.mwc(k, won=2 * v) + gk * score.mwc(k, won=4 * v) + bk * score.mwc(
                        k, won=6 * v)
                    live[k, level] = (lose - cash) / (lose - win)
                else:
                    # the doubled cube is alive: the taker redoubles at its own cash point one level up
                    pass_redouble = score.mwc(k, lost=2 * value)
                    win = single_k * score.mwc(k, won=2 * value) + gk * score.mwc(k, won=4 * value) + bk * (
                        score.mwc(k, won=6 * value))
                    live[k, level] = 1.0 - live[1 - k, level + 1] * (cash - win) / (pass_redouble - win)
        value //= 2
        level -= 1
    return live[0, 0], live[1, 0]


def dead_mwc(p: Array, score: Score, cube: int) -> Array:
    """The cubeless chances of winning the match: every result's probability times the chances after it."""
    single_win = p[..., 0] - p[..., 1]
    single_loss = 1.0 - p[..., 0] - p[..., 3]
    return (
        single_win * score.mwc(0, won=cube)
        + (p[..., 1] - p[..., 2]) * score.mwc(0, won=2 * cube)
        + p[..., 2] * score.mwc(0, won=3 * cube)
        + single_loss * score.mwc(0, lost=cube)
        + (p[..., 3] - p[..., 4]) * score.mwc(0, lost=2 * cube)
        + p[..., 4] * score.mwc(0, lost=3 * cube)
    )


def cube_is_live(score: Score, cube: int) -> bool:
    """Whether the cube can still change the match (GNU Backgammon's ``fDoCubeful``): not when a win at this
    cube ends the match for both sides, not at 2-away both, not in the Crawford game."""
    if score.away <= cube and score.opponent_away <= cube:
        return False
    if score.away == 2 and score.opponent_away == 2:
        return False
    return not score.crawford


def cubeful_mwc(p: Array, score: Score, cube: int, owner: str, x: Array) -> Array:
    """The cubeful chances of winning the match of the side on roll (GNU Backgammon's ``Cl2CfMatch``) with
    ``cube`` owned by ``owner`` (``"centred"``, ``"own"``, ``"opponent"``) and efficiency ``x``."""
    dead = dead_mwc(p, score, cube)
    if not cube_is_live(score, cube):
        return dead
    g, b = _ratios(p)
    win_p = p[..., 0]
    mine, theirs = cash_points(p, score, cube)
    cash, opp_cash = score.mwc(0, won=cube), score.mwc(0, lost=cube)
    lose_all = (1.0 - g[1] - b[1]) * opp_cash + g[1] * score.mwc(0, lost=2 * cube) + b[1] * score.mwc(0, lost=3 * cube)
    win_all = (1.0 - g[0] - b[0]) * cash + g[0] * score.mwc(0, won=2 * cube) + b[0] * score.mwc(0, won=3 * cube)
    opp_too_good, too_good = 1.0 - theirs, mine
    with np.errstate(divide="ignore", invalid="ignore"):
        # from losing everything (p = 0) to the other side's cash
        below = np.where(opp_too_good > 0.0, lose_all + (opp_cash - lose_all) * win_p / opp_too_good, lose_all)
        # from my cash to winning everything (p = 1)
        above = np.where(too_good < 1.0, cash + (win_all - cash) * (win_p - too_good) / (1.0 - too_good), win_all)
        if owner == "centred":
            window = opp_cash + (cash - opp_cash) * (win_p - opp_too_good) / (too_good - opp_too_good)
            live = np.where(win_p <= opp_too_good, below, np.where(win_p < too_good, window, above))
        elif owner == "own":
            up = np.where(too_good > 0.0, lose_all + (cash - lose_all) * win_p / too_good, lose_all)
            live = np.where(win_p <= too_good, up, above)
        else:
            rest = np.where(win_p != opp_too_good,
                            opp_cash + (win_all - opp_cash) * (win_p - opp_too_good) / (1.0 - opp_too_good), win_all)
            live = np.where(win_p <= opp_too_good, below, rest)
    result: Array = dead * (1.0 - x) + live * x
    return result
