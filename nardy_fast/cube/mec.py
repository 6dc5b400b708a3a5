"""A match equity table computed from a gammon rate: Claes Tornberg's ``mec`` (1996), as GNU Backgammon runs it
(``mec.c``, with Joern Thyssen's free-drop terms after the Crawford game), for the variants whose tables
nobody has published (docs/rules.md, Match play).

The model: every game is won by either side with chances ``win_rate`` and ``1 - win_rate`` (0.5: equal
players), and a game won is a mars (a gammon) with chances ``gammon_rate`` and a koks (a backgammon, 3 points)
with chances ``koks_rate``, whoever wins it. Tornberg's ``mec`` knows no backgammons (its one rate is "how
many of games won/lost will be gammons"); the koks term is ours, the same recursions with a third result at
three times the cube, so that ``koks_rate=0`` is ``mec`` itself (docs/rules.md, Match play).

* After the Crawford game (the leader 1 away), the trailer doubles at once; at an even number away the
  leader's free drop makes it worth the same as one point less, less ``free_drop_2`` at 2 away (and, as GNU
  Backgammon has it, plus ``free_drop_4`` at 4 away).
* In the Crawford game nobody doubles: one game at the stakes of a single point or a mars.
* Before it, each side doubles at the take point of the other, found backwards through the redoubles
  (``dpt``), and the equity is linear in the chances of winning between the two take points.
"""

from __future__ import annotations

import numpy as np

from ..errors import NardyError, field_error
from .met import MatchEquityTable

__all__ = ["mec_table"]

#: GNU Backgammon's free-drop terms at 2 and 4 away after the Crawford game (``met/mec.xml``).
FREE_DROP_2 = 0.015
FREE_DROP_4 = 0.004


def _rate(value: object, name: str, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
        raise field_error(NardyError, name, "must be a real number", value)
    rate = float(value)
    if not low <= rate <= high:
        raise field_error(NardyError, name, f"must be in [{low}, {high}]", value)
    return rate


def mec_table(gammon_rate: object, *, size: int = 25, win_rate: object = 0.5, free_drop_2: object = FREE_DROP_2,
              free_drop_4: object = FREE_DROP_4, post: object = None, name: str = "mec",
              koks_rate: object = 0.0) -> MatchEquityTable:
    """The table of ``size`` x ``size`` scores (1 to 64) for ``gammon_rate`` (the share of games won that are
    a mars, in [0, 1)) and ``koks_rate`` (the share that are a koks, 0 unless the variant scores them); see
    the module docstring for the model and the other parameters. ``post``, when given, is the post-Crawford
    row to start from (``size`` chances, e.g. a published or rolled-out row) instead of the free-drop
    recursion's."""
    gr = _rate(gammon_rate, "gammon_rate", 0.0, 0.99)
    kr = _rate(koks_rate, "koks_rate", 0.0, 0.99 - gr)
    rates = (1.0 - gr - kr, gr, kr)
    wpf = _rate(win_rate, "win_rate", 0.5, 0.99)
    fd2 = _rate(free_drop_2, "free_drop_2", 0.0, 0.1)
    fd4 = _rate(free_drop_4, "free_drop_4", 0.0, 0.1)
    if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= 64:
        raise field_error(NardyError, "size", "must be an integer 1 to 64", size)
    n = size + 1
    # E[p][o]: the favourite's chances p away against o away; 0 away has won
    e = np.zeros((n, n))
    e[0, 1:] = 1.0
    if post is None:
        _post_crawford(e, rates, wpf, fd2, fd4)
        row = e[1:, 1].copy()
    else:
        try:
            row = np.array(post, dtype=np.float64)
        except (TypeError, ValueError):
            row = np.zeros(0)
        if row.shape != (size,) or not np.isfinite(row).all() or row.min() < 0.0 or row.max() > 1.0:
            raise field_error(NardyError, "post", f"must be {size} chances in [0, 1]", post)
    # GNU Backgammon keeps the trailer's post-Crawford row and mirrors it for the 1-away leader
    e[1:, 1] = row
    e[1, 1:] = 1.0 - row
    _crawford(e, rates, wpf)
    _pre_crawford(e, rates, wpf)
    return MatchEquityTable(name, e[1:, 1:], row)


Rates = tuple[float, float, float]


def _post_crawford(e: np.ndarray, rates: Rates, wpf: float, fd2: float, fd4: float) -> None:
    single, mars, koks = rates
    n = e.shape[0]
    e[1, 1] = wpf
    for i in range(2, n):
        if i % 2 == 0:
            # the leader's free drop: an even number away is worth what one point less is
            e[1, i] = e[1, i - 1]
            e[i, 1] = e[i - 1, 1]
            if i == 2:
                e[1, i] += fd2
                e[i, 1] -= fd2
            elif i == 4:
                e[1, i] += fd4
                e[i, 1] += fd4
        else:
            # the trailer doubles at once: a game for 2, 4 or 6 points
            e[1, i] = (wpf + e[1, max(i - 2, 0)] * (1 - wpf) * single + e[1, max(i - 4, 0)] * (1 - wpf) * mars
                       + e[1, max(i - 6, 0)] * (1 - wpf) * koks)
            e[i, 1] = (e[max(i - 2, 0), 1] * wpf * single + e[max(i - 4, 0), 1] * wpf * mars
                       + e[max(i - 6, 0), 1] * wpf * koks)


def _crawford(e: np.ndarray, rates: Rates, wpf: float) -> None:
    single, mars, koks = rates
    # backwards, so that each entry overwritten (post-Crawford) is no longer needed
    for i in range(e.shape[0] - 1, 1, -1):
        e[1, i] = (e[0, i] * wpf + e[1, i - 1] * (1 - wpf) * single + e[1, i - 2] * (1 - wpf) * mars
                   + e[1, max(i - 3, 0)] * (1 - wpf) * koks)
        e[i, 1] = (e[i, 0] * (1 - wpf) + e[i - 1, 1] * wpf * single + e[i - 2, 1] * wpf * mars
                   + e[max(i - 3, 0), 1] * wpf * koks)


def _pre_crawford(e: np.ndarray, rates: Rates, wpf: float) -> None:
    n = e.shape[0]
    for i in range(2, n):
        for j in range(i, n):
            e[i, j] = _between(i, j, rates, wpf, e)
            if i != j:
                e[j, i] = _between(j, i, rates, wpf, e)


def _between(p: int, o: int, rates: Rates, wpf: float, e: np.ndarray) -> float:
    """The equity of ``p`` against ``o`` at the game's start: linear between the two doubling points."""
    fav_e, fav_w = _double_point(p, o, 2, rates, wpf, e)
    dog_e, dog_w = _double_point(o, p, 2, rates, 1 - wpf, e)
    dog_e, dog_w = 1 - dog_e, 1 - dog_w
    return dog_e + (fav_e - dog_e) * (wpf - dog_w) / (fav_w - dog_w)


def _double_point(p: int, o: int, c: int, rates: Rates, wpp: float, e: np.ndarray) -> tuple[float, float]:
    """Where ``p`` doubles ``o`` to ``c`` (``o`` as well off passing as taking), as ``p``'s equity and chances of
    winning the game (Tornberg's ``dpt``)."""
    if p <= c // 2:
        # a single win takes p home: no reason to double
        return 1.0, 1.0
    redouble_e, redouble_w = _double_point(o, p, 2 * c, rates, 1 - wpp, e)
    single, mars, koks = rates
    if wpp > 0.5:
        lose_all = ((1 - e[max(p - c, 0), o]) * single + (1 - e[max(p - 2 * c, 0), o]) * mars
                    + (1 - e[max(p - 3 * c, 0), o]) * koks)
        passing = 1 - e[max(p - c // 2, 0), o]
    else:
        lose_all = e[o, max(p - c, 0)] * single + e[o, max(p - 2 * c, 0)] * mars + e[o, max(p - 3 * c, 0)] * koks
        passing = e[o, max(p - c // 2, 0)]
    chances = (passing - lose_all) * redouble_w / (redouble_e - lose_all)
    return 1 - passing, 1 - chances
