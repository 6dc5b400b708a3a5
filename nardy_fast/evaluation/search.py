"""The n-ply search of every implementation (docs/rules.md, Evaluation and search): its move filters."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Union

import numpy as np
import numpy.typing as npt

from .. import layout
from ..bearoff.semantics import ROLL_ORDER, ROLL_WEIGHTS
from .constants import INNER_FILTER, MAX_PLIES, TOP_FILTER, MoveFilter
from .evaluators import Builtin, Evaluator, evaluate_rows
from .outcomes import flipped, terminal_probabilities

if TYPE_CHECKING:
    from ..kernels import Kernels

__all__ = ["MoveFilter", "TOP_FILTER", "INNER_FILTER", "MAX_PLIES", "CHUNK", "Search", "ranking", "filter_kept"]

Rows = npt.NDArray[np.int8]
Floats = npt.NDArray[np.float64]


#: The most rows the search expands or evaluates at once (about: a chunk ends at a parent's last child, and
#: one position's own results are never split): a level of a 1-ply search below a crazy gulbar ladder's
#: results holds tens of millions of rows, each chunk 4 MiB of them and what the evaluator makes of them.
CHUNK = 1 << 16


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


def filter_kept(equities: Floats, offsets: npt.NDArray[np.int64], keep: int, width: float) -> npt.NDArray[np.bool_]:
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
    each level of the search is expanded and evaluated in chunks of about ``chunk`` rows (:data:`CHUNK`), a
    ``batch_children`` call and an evaluator call each, so that its memory stays bounded however many
    positions a level holds; every value depends on its own row's subtree alone, so the chunks change no
    answer. The reference's search, and the core's for Python evaluators."""

    def __init__(
        self, kernels: Kernels, evaluator: Union[Builtin, Evaluator], chunk: Optional[int] = None
    ) -> None:
        self.kernels = kernels
        self.evaluator = evaluator
        self.chunk = max(1, CHUNK if chunk is None else chunk)

    def evaluate(self, rows: Rows, parents: Optional[Rows] = None) -> Floats:
        """value(row, 0) of every row (children of ``parents``, when given), ``chunk`` rows at a time."""
        if len(rows) <= self.chunk:
            return evaluate_rows(self.kernels, rows, self.evaluator, parents)
        out = np.empty((len(rows), 5))
        for begin in range(0, len(rows), self.chunk):
            end = begin + self.chunk
            part = None if parents is None else parents[begin:end]
            out[begin:end] = evaluate_rows(self.kernels, rows[begin:end], self.evaluator, part)
        return out

    def values(self, rows: Rows, depth: int) -> Floats:
        """value(row, depth) of every row, for its side to move: a chunk of rows at a time, each row's 21 rolls
        making a row to expand."""
        if depth == 0 or not len(rows):
            return self.evaluate(rows)
        span = max(1, self.chunk // len(ROLLS))
        if len(rows) > span:
            return np.concatenate([self.values(rows[i : i + span], depth) for i in range(0, len(rows), span)])
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
        children, offsets, _ = self.kernels.batch_children(rows, rolls)
        owners = np.repeat(np.arange(len(rows)), np.diff(offsets))
        return np.asarray(children), np.asarray(offsets, dtype=np.int64), owners

    def choose(self, rows: Rows, rolls: npt.NDArray[np.int8], depth: int) -> Floats:
        """choose(row, roll, depth) of every row with its roll, from the row's side to move. The rows are
        expanded a few at a time, as many as are expected to have about ``chunk`` children by the rows
        before them (at first a 64th of ``chunk``, as if each had 64; then at most twice as many as the time
        before), and their children valued once about ``chunk`` of them are held: a level smaller than a
        chunk is one evaluator call."""
        out = np.empty((len(rows), 5))
        pieces: list[tuple[Rows, npt.NDArray[np.int64]]] = []
        held, valued, begin, span = 0, 0, 0, max(1, self.chunk // 64)
        while begin < len(rows):
            end = min(begin + span, len(rows))
            children, offsets, _ = self.children(rows[begin:end], rolls[begin:end])
            pieces.append((children, offsets))
            held += len(children)
            per_row = max(1.0, len(children) / (end - begin))
            begin, span = end, max(1, min(2 * span, int(self.chunk / per_row)))
            if held >= self.chunk or begin == len(rows):
                out[valued:begin] = self._valued(rows[valued:begin], pieces, depth)
                pieces, held, valued = [], 0, begin
        return out

    def _valued(self, rows: Rows, pieces: list[tuple[Rows, npt.NDArray[np.int64]]], depth: int) -> Floats:
        """:meth:`choose` of ``rows`` from their children, expanded in ``pieces`` (CSR each), valued a few
        rows' at a time: about ``chunk`` children (more than expected when some rows are ladders), and the
        children of at least one row."""
        children = pieces[0][0] if len(pieces) == 1 else np.concatenate([piece for piece, _ in pieces])
        shifts = np.cumsum([0] + [len(piece) for piece, _ in pieces])
        offsets = np.concatenate([[0]] + [o[1:] + shift for (_, o), shift in zip(pieces, shifts)]).astype(np.int64)
        out = np.empty((len(rows), 5))
        begin = 0
        while begin < len(rows):
            end = int(np.searchsorted(offsets, offsets[begin] + self.chunk, side="right")) - 1
            end = min(max(end, begin + 1), len(rows))
            first, last = offsets[begin], offsets[end]
            part = offsets[begin : end + 1] - first
            out[begin:end] = self._chosen(rows[begin:end], children[first:last], part, depth)
            begin = end
        return out

    def _chosen(self, rows: Rows, children: Rows, offsets: npt.NDArray[np.int64], depth: int) -> Floats:
        """choose(row, roll, depth) of ``rows`` from their ``children`` (CSR, ``offsets`` from 0)."""
        owners = np.repeat(np.arange(len(rows)), np.diff(offsets))
        first = seen_from(rows, owners, children, self.evaluate(children, rows[owners]))
        if depth == 0:
            best = self.kernels.segment_argmax(equity_of(first), offsets)
            picked: Floats = first[offsets[:-1] + best]
            return picked
        kept = np.flatnonzero(filter_kept(equity_of(first), offsets, INNER_FILTER.keep, INNER_FILTER.width))
        deeper = seen_from(rows, owners[kept], children[kept], self.values(children[kept], depth))
        ends = np.searchsorted(owners[kept], np.arange(len(rows) + 1))
        best = self.kernels.segment_argmax(equity_of(deeper), ends)
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
            kept = np.flatnonzero(filter_kept(equity_of(values), offsets, TOP_FILTER.keep, TOP_FILTER.width))
            values[kept] = seen_from(parent, owners[kept], children[kept], self.values(children[kept], plies))
            reached[kept] = plies
        return values, reached

def ranking(values: Floats, reached: npt.NDArray[np.int8]) -> npt.NDArray[np.int64]:
    """The order of a hint's moves, best first: the deepest searched first, then by equity, then in
    ``legal_moves`` order."""
    index = np.arange(len(values))
    order: npt.NDArray[np.int64] = np.lexsort((index, -equity_of(values), -reached.astype(np.int64)))
    return order
