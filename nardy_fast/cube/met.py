"""Match equity tables (docs/rules.md, Match play): the chances of winning a match from each score, as GNU
Backgammon reads and uses them (``matchequity.c``: ``getME``, ``mwc2eq``, ``eq2mwc``).

A table holds the pre-Crawford equities ``pre[i][j]``, the chances of the side ``i + 1`` points away against
``j + 1`` away at the start of a game (a row or column of a 1-away side is the Crawford game), and the
post-Crawford row ``post[i]``, the chances of the side ``i + 1`` away against a 1-away leader after the
Crawford game. The shipped tables (``nardy_fast/data/met/``, each file naming its source) are Kazaross-XG2,
the published table of backgammon and short nardy, and a table computed for each variant by :func:`nardy_fast.cube.mec.mec_table` from the mars and koks rates of the
variant's shipped network in self-play (``tools/make_met.py``, the command in each file's header). A match
reads :func:`default_table` of its variant unless given another table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources
from typing import Union

import numpy as np
import numpy.typing as npt

from ..errors import NardyError, field_error
from ..inputs import boolean, choice, integer
from ..variants import VARIANTS

__all__ = ["MatchEquityTable", "TABLES", "DEFAULT_TABLES", "default_table", "match_equity_table", "table_header", "parse_table", "format_table"]

#: The tables :func:`match_equity_table` knows, by name, and their files under ``nardy_fast/data/met/``: the
#: published one, and each variant's computed one by the variant's name.
TABLES = {"kazaross-xg2": "kazaross-xg2.txt", **{variant: f"{variant}.txt" for variant in VARIANTS}}

#: How far a table may stray from complementary (``pre[i][j] + pre[j][i] = 1``) or monotone: the published
#: tables are written to five or six digits.
SLACK = 1e-5

Floats = Union[float, npt.NDArray[np.float64]]


def _away(value: object, field_name: str, size: int) -> int:
    away = integer(value)
    if away is None or away < 1 or away > size:
        raise field_error(NardyError, field_name, f"must be an integer 1 to {size} (points away)", value)
    return away


@dataclass(frozen=True, eq=False)
class MatchEquityTable:
    """A square pre-Crawford table and its post-Crawford row (see the module docstring), checked when made:
    square, the row as long as the table, every entry in [0, 1], complementary, and monotone (more points
    away never wins more often)."""

    name: str
    pre: npt.NDArray[np.float64] = field(repr=False)
    post: npt.NDArray[np.float64] = field(repr=False)

    def __post_init__(self) -> None:
        pre = np.array(self.pre, dtype=np.float64)
        post = np.array(self.post, dtype=np.float64)
        if pre.ndim != 2 or pre.shape[0] != pre.shape[1] or pre.shape[0] < 1:
            raise field_error(NardyError, "table.pre", "must be a square table (n, n)", self.pre)
        if post.shape != (pre.shape[0],):
            raise field_error(NardyError, "table.post", f"must be one row of {pre.shape[0]}", self.post)
        for name, values in (("table.pre", pre), ("table.post", post)):
            if not np.isfinite(values).all() or values.min() < 0.0 or values.max() > 1.0:
                raise field_error(NardyError, name, "must hold chances in [0, 1]", values)
        if np.abs(pre + pre.T - 1.0).max() > SLACK:
            raise field_error(NardyError, "table.pre", "must be complementary: pre[i][j] + pre[j][i] = 1", pre)
        if (np.diff(pre, axis=0) > SLACK).any() or (np.diff(pre, axis=1) < -SLACK).any():
            raise field_error(NardyError, "table.pre", "must be monotone: more points away, fewer chances", pre)
        # by two points away: a free drop makes neighbours nearly equal, and GNU Backgammon's mec adds its
        # 4-away term the other way (nardy_fast.cube.mec)
        if (post[2:] - post[:-2] > SLACK).any():
            raise field_error(NardyError, "table.post", "must be monotone: more points away, fewer chances", post)
        pre.setflags(write=False)
        post.setflags(write=False)
        object.__setattr__(self, "pre", pre)
        object.__setattr__(self, "post", post)

    @property
    def size(self) -> int:
        """The longest match the table covers (its number of rows)."""
        return int(self.pre.shape[0])

    def mwc(self, away: object, opponent_away: object, crawford: object = False) -> float:
        """The chances of winning the match of a side ``away`` points away against ``opponent_away``, at the
        start of a game. Where a side is 1 away, ``crawford`` says whether this game is the Crawford game (the
        pre-Crawford table) or comes after it (the post-Crawford row); elsewhere it must be False."""
        a = _away(away, "away", self.size)
        b = _away(opponent_away, "opponent_away", self.size)
        flag = boolean(crawford)
        if flag is None:
            raise field_error(NardyError, "crawford", "must be a bool", crawford)
        if flag and (a == 1) == (b == 1):
            raise field_error(NardyError, "crawford", "the Crawford game needs exactly one side 1 away", crawford)
        if flag or (a != 1 and b != 1):
            return float(self.pre[a - 1, b - 1])
        return self.post_crawford(a) if b == 1 else 1.0 - self.post_crawford(b)

    def post_crawford(self, away: object) -> float:
        """The chances of the side ``away`` points away against a 1-away leader after the Crawford game."""
        return float(self.post[_away(away, "away", self.size) - 1])

    def after(self, away: int, opponent_away: int, crawford: bool, won: int = 0, lost: int = 0) -> float:
        """The chances of a side ``away`` against ``opponent_away`` after this game, when it wins ``won``
        points or loses ``lost`` (GNU Backgammon's ``getME``): 1 or 0 when that ends the match; the Crawford
        game when the game brings a side to 1 away for the first time; post-Crawford after that. Checked by
        the callers (plain integers within the table)."""
        a, b = away - won, opponent_away - lost
        if a <= 0:
            return 1.0
        if b <= 0:
            return 0.0
        if crawford or away == 1 or opponent_away == 1:
            return float(1.0 - self.post[b - 1]) if a == 1 else float(self.post[a - 1])
        return float(self.pre[a - 1, b - 1])

    def _ends(self, away: object, opponent_away: object, cube: object, crawford: object) -> tuple[float, float]:
        a = _away(away, "away", self.size)
        b = _away(opponent_away, "opponent_away", self.size)
        value = integer(cube)
        if value is None or value < 1 or value & (value - 1):
            raise field_error(NardyError, "cube", "must be a power of two", cube)
        flag = boolean(crawford)
        if flag is None:
            raise field_error(NardyError, "crawford", "must be a bool", crawford)
        win = self.after(a, b, flag, won=value)
        lose = self.after(a, b, flag, lost=value)
        if win == lose:
            raise field_error(NardyError, "cube", "leaves the match where it is, win or lose", cube)
        return win, lose

    def mwc2eq(self, mwc: object, away: object, opponent_away: object, cube: object = 1,
               crawford: object = False) -> Floats:
        """Match winning chances as normalised money equity at this score and cube (GNU Backgammon's
        ``mwc2eq``): linear, -1 where the side loses the cube's points and +1 where it wins them."""
        win, lose = self._ends(away, opponent_away, cube, crawford)
        chances = np.asarray(mwc, dtype=np.float64)
        result = (2.0 * chances - (win + lose)) / (win - lose)
        return float(result) if result.ndim == 0 else result

    def eq2mwc(self, equity: object, away: object, opponent_away: object, cube: object = 1,
               crawford: object = False) -> Floats:
        """The inverse of :meth:`mwc2eq` (GNU Backgammon's ``eq2mwc``)."""
        win, lose = self._ends(away, opponent_away, cube, crawford)
        values = np.asarray(equity, dtype=np.float64)
        result = 0.5 * (values * (win - lose) + (win + lose))
        return float(result) if result.ndim == 0 else result


def parse_table(name: str, text: str) -> MatchEquityTable:
    """A table from the shipped text format: ``#`` comments, a line ``pre-crawford``, n rows of n numbers, a
    line ``post-crawford`` and one row of n numbers."""
    lines = [line.split("#", 1)[0].strip() for line in text.splitlines()]
    lines = [line for line in lines if line]
    try:
        split = lines.index("post-crawford")
        if lines[0] != "pre-crawford" or split != len(lines) - 2:
            raise ValueError("sections")
        pre = [[float(word) for word in line.split()] for line in lines[1:split]]
        post = [float(word) for word in lines[-1].split()]
        if any(len(row) != len(pre) for row in pre):
            raise ValueError("not square")
    except (ValueError, IndexError) as error:
        raise field_error(NardyError, "table", f"is not a match equity table file ({error})", name) from None
    return MatchEquityTable(name, np.array(pre), np.array(post))


def format_table(table: MatchEquityTable, header: list[str], digits: int = 6) -> str:
    """``table`` in the shipped text format (what :func:`parse_table` reads), under ``header`` (one comment
    line each), every chance to ``digits`` decimals."""
    def row(values: npt.NDArray[np.float64]) -> str:
        return " ".join(f"{value:.{digits}f}" for value in values)

    lines = [f"# {line}".rstrip() for line in header]
    lines += ["pre-crawford", *(row(values) for values in table.pre), "post-crawford", row(table.post)]
    return "\n".join(lines) + "\n"


_LOADED: dict[str, MatchEquityTable] = {}


def _key(name: object) -> str:
    key = choice(name, tuple(TABLES))
    if key is None:
        raise field_error(NardyError, "name", f"must be one of {tuple(TABLES)}", name)
    return key


def _text(key: str) -> str:
    return resources.files("nardy_fast").joinpath(f"data/met/{TABLES[key]}").read_text(encoding="utf-8")


def match_equity_table(name: object) -> MatchEquityTable:
    """The shipped match equity table ``name`` (one of :data:`TABLES`: ``"kazaross-xg2"`` or a variant's
    name), read once."""
    key = _key(name)
    if key not in _LOADED:
        _LOADED[key] = parse_table(key, _text(key))
    return _LOADED[key]


#: The table a match of each variant reads unless given another (cube decisions, cube players, cubeful match
#: rollouts, duels): Kazaross-XG2 for short nardy, played at the table as backgammon is, and for every other
#: variant its own computed table, whose mars and koks rates are that variant's.
DEFAULT_TABLES = {variant: "kazaross-xg2" if variant == "short" else variant for variant in VARIANTS}


def default_table(variant: str = "short") -> MatchEquityTable:
    """The table :data:`DEFAULT_TABLES` names for ``variant`` (one of the variants' names; short nardy's,
    Kazaross-XG2, where no variant is known)."""
    key = choice(variant, VARIANTS)
    if key is None:
        raise field_error(NardyError, "variant", f"must be one of {VARIANTS}", variant)
    return match_equity_table(DEFAULT_TABLES[key])


def table_header(name: object) -> list[str]:
    """The comment lines that open the shipped table ``name``'s file (its source: who made it, and how),
    without their ``#``."""
    lines = []
    for line in _text(_key(name)).splitlines():
        if not line.startswith("#"):
            break
        lines.append(line[1:].strip())
    return lines
