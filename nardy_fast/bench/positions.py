"""The bench's positions section: the children (distinct legal results) of the embedded corpus positions,
every API of a variant on the same positions, and its table."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import NamedTuple, Optional

import numpy as np
import numpy.typing as npt

from .. import corpus
from .._dispatch import batch_children, children, implementations
from ..position import Position
from ..variants import VARIANTS
from .harness import DEFAULT_REPEATS, Count, Measure, Progress, Rows, Work, quiet, timed
from .parallel import batched, in_processes, parallel_ratios
from .peers import gnubg_work

__all__ = [
    "DEFAULT_SIZE",
    "TOP_FRACTION",
    "DOMINANT_SHARE",
    "PositionsResult",
    "per_call",
    "per_array",
    "top_share",
    "position_works",
    "run_positions",
    "report_positions",
]

#: Corpus positions per variant by default: enough that every variant's figures are stable, few enough that
#: the reference's ``legal_moves`` runs on all of them and the whole job takes about a minute.
DEFAULT_SIZE = 1_000
#: The share of children that the top ``TOP_FRACTION`` of positions (by children) give is printed per
#: variant; from ``DOMINANT_SHARE`` on, the variant is labelled as dominated by a few positions.
TOP_FRACTION = 0.01
DOMINANT_SHARE = 0.5


def _rolls_of(rolls: Rows) -> list[Optional[tuple[int, int]]]:
    return [None if r[0] == 0 else (int(r[0]), int(r[1])) for r in rolls]


def per_call(position_class: type[Position], rows: Rows, rolls: Rows) -> Callable[[], Count]:
    """``legal_moves`` one position at a time, a Python object per child."""
    positions = [position_class.from_array(row) for row in rows]
    dice = _rolls_of(rolls)
    return lambda: Count(len(positions), sum(len(p.legal_moves(d)) for p, d in zip(positions, dice)))


def per_array(rows: Rows, rolls: Rows) -> Callable[[], Count]:
    """``nardy_fast.children`` one packed row at a time, one array per position."""
    dice = _rolls_of(rolls)
    row_list = list(rows)
    return lambda: Count(len(row_list), sum(len(children(r, d)) for r, d in zip(row_list, dice)))


def top_share(counts: npt.NDArray[np.int64], fraction: float = TOP_FRACTION) -> float:
    """The share of all children that the ``fraction`` of positions with the most children give (at least
    one position): near ``fraction`` when positions weigh alike, near 1 when a few dominate."""
    total = int(counts.sum())
    if total == 0:
        return 0.0
    top = max(1, math.ceil(len(counts) * fraction))
    return int(np.sort(counts)[::-1][:top].sum()) / total


class PositionsResult(NamedTuple):
    """The positions section of one variant: its measurements and the children of each measured position."""

    variant: str
    counts: npt.NDArray[np.int64]
    measures: list[Measure]

    @property
    def top_share(self) -> float:
        """The share of the children from the top :data:`TOP_FRACTION` of positions."""
        return top_share(self.counts)


def position_works(rows: Rows, rolls: Rows, reference_size: int, with_gnubg: bool) -> list[Work]:
    """The measurements of one variant's positions, every API on all the rows but the reference's
    ``legal_moves``, which takes the first ``reference_size`` (and the core's again on those when they are
    fewer, for a ratio on the same positions)."""
    from .. import IMPLEMENTATION
    from .. import Position as Chosen

    n, small = len(rows), min(reference_size, len(rows))
    works = [
        Work(
            "reference legal_moves",
            per_call(implementations()["python"].Position, rows[:small], rolls[:small]),
            small,
        )
    ]
    if IMPLEMENTATION == "cython":
        if small < n:
            works.append(Work("core legal_moves", per_call(Chosen, rows[:small], rolls[:small]), small))
        works += [
            Work("core legal_moves", per_call(Chosen, rows, rolls), n),
            Work("core children (per position)", per_array(rows, rolls), n),
            Work("core batch_children", batched(rows, rolls), n),
            Work("core batch_children, 2 threads", batched(rows, rolls, 2), n, warm_up=True),
            Work("core batch_children, 2 processes", in_processes(rows, rolls, 2), n, warm_up=True),
        ]
    gnubg = gnubg_work(rows, rolls) if with_gnubg else None
    if gnubg is not None:
        works.append(gnubg)
    return works


def run_positions(
    variants: Sequence[str] = VARIANTS,
    size: int = DEFAULT_SIZE,
    reference_size: Optional[int] = None,
    repeats: int = DEFAULT_REPEATS,
    progress: Progress = quiet,
) -> list[PositionsResult]:
    """The positions section: every measurement of every variant, on its first ``size`` corpus positions."""
    results = []
    for number, variant in enumerate(variants, 1):
        rows, rolls = corpus.load(variant)
        rows, rolls = rows[:size], rolls[:size]
        where = f"bench positions, {variant} ({number}/{len(variants)} variants), "
        progress(where + "preparing")
        counts = np.diff(batch_children(rows, rolls)[1])
        works = position_works(
            rows, rolls, size if reference_size is None else reference_size, variant == "short"
        )
        results.append(PositionsResult(variant, counts, timed(works, repeats, progress, where)))
        del works  # the thread pool and the worker processes end with their work
    return results


def _same(measures: Sequence[Measure], label: str, items: int) -> Optional[Measure]:
    """The measurement ``label`` on ``items`` positions (the same ones: every list is a prefix)."""
    return next((m for m in measures if m.label == label and m.positions == items), None)


def report_positions(results: Sequence[PositionsResult]) -> str:
    """The positions table: per variant, a line on its positions (and whether a few dominate), then each
    measurement with the ratios the project's targets are stated in."""
    lines = [
        "positions: every API on the same corpus positions of each variant",
        f"{'variant':8} {'api':34} {'on':>7} {'positions/s':>13} {'plays/s':>13}  ratio",
    ]
    for result in results:
        share = result.top_share
        top = max(1, math.ceil(len(result.counts) * TOP_FRACTION))
        note = (
            f"{len(result.counts):,} positions, {int(result.counts.sum()):,} children; top 1% ({top:,}"
            f" position{'s' if top > 1 else ''}):"
            f" {share:.0%} of the children"
        )
        if share >= DOMINANT_SHARE:
            note += (
                " -- DOMINATED BY A FEW LADDER POSITIONS: its rates depend on which positions are measured"
            )
        lines.append(f"{result.variant:8} {note}")
        found = result.measures
        for m in found:
            ratios = []
            if m.label == "core legal_moves":
                ref = _same(found, "reference legal_moves", m.positions)
                if ref is not None:
                    ratios.append(f"{m.speedup(ref):,.0f}x reference")
            if m.label in ("core children (per position)", "core batch_children"):
                calls = _same(found, "core legal_moves", m.positions)
                if calls is not None:
                    ratios.append(f"{m.speedup(calls):.2f}x core legal_moves")
            gnubg = _same(found, "gnubg_nn.moves", m.positions)
            if gnubg is not None and m.label.startswith("core") and "legal_moves" not in m.label:
                ratios.append(f"{m.speedup(gnubg):.2f}x gnubg")
            ratios += parallel_ratios(m, _same(found, "core batch_children", m.positions), "position")
            lines.append(
                f"{result.variant:8} {m.label:34} {m.positions:7,} {m.positions_per_second:13,.0f}"
                f" {m.plays_per_second:13,.0f}  " + ", ".join(ratios)
            )
    return "\n".join(line.rstrip() for line in lines)
