"""The n-ply search of every implementation (docs/rules.md, Evaluation and search): its move filters."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple, Optional, Union

import numpy as np
import numpy.typing as npt

from .. import layout
from ..bearoff.semantics import ROLL_ORDER, ROLL_WEIGHTS
from .evaluators import Builtin, Evaluator, evaluate_rows, terminal_probabilities
from .outcomes import flipped

if TYPE_CHECKING:
    from ..implementation import Implementation

__all__ = ["MoveFilter", "TOP_FILTER", "INNER_FILTER", "MAX_PLIES", "Search", "ranking"]

Rows = npt.NDArray[np.int8]
Floats = npt.NDArray[np.float64]


class MoveFilter(NamedTuple):
    """Which candidates a deeper search looks at: the best ``keep`` by 0-ply equity, each within ``width``
    points of the best one's (GNU Backgammon's move filters)."""

    keep: int
    width: float


#: A 2-ply hint's first cut of the moves of the position itself.
TOP_FILTER = MoveFilter(8, 0.16)
#: The replies inside a search whose values need one more ply.
INNER_FILTER = MoveFilter(3, 0.10)
#: The deepest search.
MAX_PLIES = 2


ROLLS = np.array(ROLL_ORDER, dtype=np.int8)
WEIGHTS = np.array(ROLL_WEIGHTS, dtype=np.float64)


def seen_from(parents: Rows, owners: npt.NDArray[np.int64], children: Rows, values: Floats) -> Floats:
    """Children's values from their parents' sides to move: flipped where the turn passed."""
    passed = children[:, layout.TURN] != parents[owners, layout.TURN]
    out = values.copy()
    if passed.any():
        out[passed] = flipped(values[passed])
    return out


def equity_of(p: Floats) -> Floats:
    # the same float order as the core's equity_of
    result: Floats = 2.0 * p[:, 0] - 1.0 + p[:, 1] + p[:, 2] - p[:, 3] - p[:, 4]
    return result


def _kept(equities: Floats, offsets: npt.NDArray[np.int64], keep: int, width: float) -> npt.NDArray[np.bool_]:
    """For each segment, the best ``keep`` entries by equity (ties: the earlier) within ``width`` of its best."""
    owners = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    order = np.lexsort((np.arange(len(equities)), -equities, owners))
    rank = np.empty(len(equities), dtype=np.int64)
    rank[order] = np.arange(len(equities)) - offsets[owners[order]]
    best = np.maximum.reduceat(equities, offsets[:-1]) if len(equities) else equities
    kept: npt.NDArray[np.bool_] = (rank < keep) & (best[owners] - equities <= width)
    return kept


class Search:
    """The n-ply search of docs/rules.md, Evaluation and search, over one implementation's
    ``batch_children`` and an evaluator (:func:`~nardy_fast.evaluation.evaluators.evaluate_rows`), batched:
    each level of the search is one ``batch_children`` call and one evaluator call for all its positions.
    The reference's search, and the core's for Python evaluators."""

    def __init__(self, record: Implementation, evaluator: Union[Builtin, Evaluator]) -> None:
        self.record = record
        self.evaluator = evaluator

    def evaluate(self, rows: Rows, parents: Optional[Rows] = None) -> Floats:
        """value(row, 0) of every row (children of ``parents``, when given)."""
        return evaluate_rows(self.record, rows, self.evaluator, parents)

    def values(self, rows: Rows, depth: int) -> Floats:
        """value(row, depth) of every row, for its side to move."""
        if depth == 0 or not len(rows):
            return self.evaluate(rows)
        out = np.zeros((len(rows), 5))
        over = layout.is_over(rows)
        if over.any():
            out[over] = terminal_probabilities(rows[over])
        pending = ~over & (rows[:, layout.NPENDING] > 0)
        if pending.any():
            part = rows[pending]
            out[pending] = self.choose(part, np.zeros((len(part), 2), dtype=np.int8), depth)
        rolling = np.flatnonzero(~over & ~pending)
        if rolling.size:
            part = rows[rolling]
            n = len(part)
            tiled = np.tile(part, (len(ROLLS), 1))
            chosen = self.choose(tiled, np.repeat(ROLLS, n, axis=0), depth - 1).reshape(len(ROLLS), n, 5)
            acc = np.zeros((n, 5))
            for r in range(len(ROLLS)):  # in ROLL_ORDER, as the core adds them up
                acc += WEIGHTS[r] * chosen[r]
            out[rolling] = acc / 36.0
        return out

    def children(self, rows: Rows, rolls: npt.NDArray[np.int8]) -> tuple[Rows, npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """The children of every row for its roll, their offsets, and the row each belongs to."""
        children, offsets, _ = self.record.batch_children(rows, rolls)
        owners = np.repeat(np.arange(len(rows)), np.diff(offsets))
        return np.asarray(children), np.asarray(offsets, dtype=np.int64), owners

    def choose(self, rows: Rows, rolls: npt.NDArray[np.int8], depth: int) -> Floats:
        """choose(row, roll, depth) of every row with its roll, from the row's side to move."""
        children, offsets, owners = self.children(rows, rolls)
        first = seen_from(rows, owners, children, self.evaluate(children, rows[owners]))
        if depth == 0:
            best = self.record.segment_argmax(equity_of(first), offsets)
            picked: Floats = first[offsets[:-1] + best]
            return picked
        kept = np.flatnonzero(_kept(equity_of(first), offsets, INNER_FILTER.keep, INNER_FILTER.width))
        deeper = seen_from(rows, owners[kept], children[kept], self.values(children[kept], depth))
        ends = np.searchsorted(owners[kept], np.arange(len(rows) + 1))
        best = self.record.segment_argmax(equity_of(deeper), ends)
        chosen: Floats = deeper[ends[:-1] + best]
        return chosen

    def hint(self, row: Rows, roll: tuple[int, int], plies: int) -> tuple[Rows, Floats, npt.NDArray[np.int8]]:
        """The children of ``row`` (64,) for ``roll`` ((0, 0) for a pending list), their probabilities from
        ``row``'s side to move at ``plies``, and the plies each was searched to (a 2-ply hint's top filter
        leaves the moves it cuts at 0)."""
        children, _, _ = self.children(row[None, :], np.array([roll], dtype=np.int8))
        values, reached = self.ranked(row, children, plies)
        return children, values, reached

    def ranked(self, row: Rows, children: Rows, plies: int) -> tuple[Floats, npt.NDArray[np.int8]]:
        """:meth:`hint`'s values and plies reached for the given ``children`` of ``row``."""
        parent = row[None, :]
        owners = np.zeros(len(children), dtype=np.int64)
        offsets = np.array([0, len(children)], dtype=np.int64)
        base = 0 if plies >= 2 else plies
        found = self.values(children, 1) if base else self.evaluate(children, parent[owners])
        values = seen_from(parent, owners, children, found)
        reached = np.full(len(children), base, dtype=np.int8)
        if plies >= 2:
            kept = np.flatnonzero(_kept(equity_of(values), offsets, TOP_FILTER.keep, TOP_FILTER.width))
            values[kept] = seen_from(parent, owners[kept], children[kept], self.values(children[kept], plies))
            reached[kept] = plies
        return values, reached

def ranking(values: Floats, reached: npt.NDArray[np.int8]) -> npt.NDArray[np.int64]:
    """The order of a hint's moves, best first: the deepest searched first, then by equity, then in
    ``legal_moves`` order."""
    index = np.arange(len(values))
    order: npt.NDArray[np.int64] = np.lexsort((index, -equity_of(values), -reached.astype(np.int64)))
    return order
