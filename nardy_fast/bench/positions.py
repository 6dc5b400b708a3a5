"""The bench's positions section: the children (distinct legal results) of the embedded corpus positions,
every API of a variant on the same positions, and its table."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import NamedTuple, Optional

import numpy as np
import numpy.typing as npt

from .. import batch_children, children, corpus, implementations
from ..layout import VARIANT
from ..position import Position
from ..variants import VARIANTS
from .harness import (
    DEFAULT_REPEATS,
    Count,
    Measure,
    Progress,
    Rows,
    Work,
    quiet,
    stage,
    timed,
    timed_estimate,
)
from .parallel import PROCESS_START_SECONDS, batched, in_processes, parallel_ratios
from .peers import gnubg_installed, gnubg_work

__all__ = [
    "DEFAULT_SIZE",
    "DEFAULT_REFERENCE_SIZE",
    "TOP_FRACTION",
    "DOMINANT_SHARE",
    "PositionsResult",
    "per_call",
    "per_array",
    "top_share",
    "position_works",
    "positions_plan",
    "run_positions",
    "positions_header",
    "positions_rows",
    "report_positions",
]

#: Corpus positions per variant by default: enough that every variant's figures are stable (the core's
#: calls are timed for at least ``MIN_SECONDS`` whatever their number), few enough to stay under 300 MB.
DEFAULT_SIZE = 1_000
#: The reference's ``legal_moves`` runs on the first of them only (and the core's again on those, for the
#: ratio on the same positions): it makes about 2,000 positions a second (crazy gulbar 250), and on all
#: 1,000 it alone took most of a minute.
DEFAULT_REFERENCE_SIZE = 200
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


#: Children made per second by each API on a quiet machine (crazy gulbar's ladders are slower per child),
#: for the time left before a run measures it: the estimates only steer the progress line.
_PLAYS_PER_SECOND = {
    "reference legal_moves": (30e3, 12e3),
    "core legal_moves": (5e6, 1.8e6),
    "core children (per position)": (8e6, 2.4e6),
    "core batch_children": (15e6, 2.3e6),
    "core batch_children, 2 threads": (25e6, 4e6),
    "core batch_children, 2 processes": (25e6, 4e6),
    "gnubg_nn.moves": (2.3e6, 2.3e6),
}


def _estimate(label: str, variant: str, children: int) -> float:
    """The seconds one run of ``label`` on positions with ``children`` children is expected to take."""
    rate = _PLAYS_PER_SECOND[label][variant == "crazy"]
    return max(children, 1) / rate


def _labels(n: int, small: int, with_gnubg: bool) -> list[tuple[str, int]]:
    """The measurements of a variant's positions and the positions each runs on, in order."""
    from .. import IMPLEMENTATION

    labels = [("reference legal_moves", small)]
    if IMPLEMENTATION == "cython":
        if small < n:
            labels.append(("core legal_moves", small))
        labels += [
            ("core legal_moves", n),
            ("core children (per position)", n),
            ("core batch_children", n),
            ("core batch_children, 2 threads", n),
            ("core batch_children, 2 processes", n),
        ]
    if with_gnubg:
        labels.append(("gnubg_nn.moves", n))
    return labels


def position_works(rows: Rows, rolls: Rows, reference_size: int, with_gnubg: bool) -> list[Work]:
    """The measurements of one variant's positions, every API on all the rows but the reference's
    ``legal_moves``, which takes the first ``reference_size`` (and the core's again on those when they are
    fewer, for a ratio on the same positions)."""
    from .. import Position as Chosen

    n, small = len(rows), min(reference_size, len(rows))
    variant = VARIANTS[int(rows[0, VARIANT])] if n else VARIANTS[0]
    offsets = _children_before(variant, rows, rolls)
    makers: dict[str, Callable[[int], Callable[[], Count]]] = {
        "reference legal_moves": lambda k: per_call(implementations()["python"].Position, rows[:k], rolls[:k]),
        "core legal_moves": lambda k: per_call(Chosen, rows[:k], rolls[:k]),
        "core children (per position)": lambda k: per_array(rows[:k], rolls[:k]),
        "core batch_children": lambda k: batched(rows[:k], rolls[:k]),
        "core batch_children, 2 threads": lambda k: batched(rows[:k], rolls[:k], 2),
        "core batch_children, 2 processes": lambda k: in_processes(rows[:k], rolls[:k], 2),
    }
    works = []
    for label, k in _labels(n, small, False):
        warm_up = label.endswith(("2 threads", "2 processes"))
        estimate = _estimate(label, variant, int(offsets[k]))
        works.append(Work(label, makers[label](k), k, warm_up=warm_up, estimate=estimate))
    gnubg = gnubg_work(rows, rolls) if with_gnubg else None
    if gnubg is not None:
        works.append(gnubg._replace(estimate=_estimate(gnubg.label, variant, int(offsets[n]))))
    return works


#: Children per corpus position of each variant (the first 1,000), for the estimates of a run without the
#: core, where counting them would take as long as a measurement.
_CHILDREN_PER_POSITION = {"long": 9.5, "sixone": 11.1, "short": 17.3, "gulbar": 9.9, "crazy": 47.6}


def _children_before(variant: str, rows: Rows, rolls: Rows) -> npt.NDArray[np.int64]:
    """The children of the first ``k`` rows for every ``k`` (``offsets``): counted by the core, estimated
    without it."""
    from .. import IMPLEMENTATION

    if IMPLEMENTATION == "cython":
        offsets: npt.NDArray[np.int64] = batch_children(rows, rolls)[1]
        return offsets
    return (np.arange(len(rows) + 1) * _CHILDREN_PER_POSITION.get(variant, 10.0)).astype(np.int64)


def positions_plan(
    variants: Sequence[str] = VARIANTS,
    size: int = DEFAULT_SIZE,
    reference_size: Optional[int] = DEFAULT_REFERENCE_SIZE,
    repeats: int = DEFAULT_REPEATS,
) -> list[tuple[str, float]]:
    """The stages of :func:`run_positions` (one per variant) and the seconds each is expected to take on a
    quiet machine, for a :class:`~nardy_fast.bench.harness.Tracker`'s time left."""
    plan = []
    for variant in variants:
        rows, rolls = corpus.load(variant)
        rows, rolls = rows[:size], rolls[:size]
        n = len(rows)
        small = n if reference_size is None else min(reference_size, n)
        offsets = _children_before(variant, rows, rolls)
        labels = _labels(n, small, variant == "short" and gnubg_installed())
        runs = [
            (_estimate(label, variant, int(offsets[k])), label.endswith(("2 threads", "2 processes")))
            for label, k in labels
        ]
        start = PROCESS_START_SECONDS if any(label.endswith("2 processes") for label, _ in labels) else 0.0
        plan.append((f"positions {variant}", start + timed_estimate(runs, repeats)))
    return plan


def run_positions(
    variants: Sequence[str] = VARIANTS,
    size: int = DEFAULT_SIZE,
    reference_size: Optional[int] = DEFAULT_REFERENCE_SIZE,
    repeats: int = DEFAULT_REPEATS,
    progress: Progress = quiet,
    report: Optional[Callable[[PositionsResult], None]] = None,
) -> list[PositionsResult]:
    """The positions section: every measurement of every variant, on its first ``size`` corpus positions
    (the reference's ``legal_moves`` on the first ``reference_size``, all of them when ``None``); ``report``
    is given each variant's result as soon as it is measured."""
    results = []
    for number, variant in enumerate(variants, 1):
        with stage(progress, f"positions {variant}"):
            rows, rolls = corpus.load(variant)
            rows, rolls = rows[:size], rolls[:size]
            where = f"bench positions, {variant} ({number}/{len(variants)} variants), "
            progress(where + "preparing")
            counts = np.diff(batch_children(rows, rolls)[1])
            works = position_works(
                rows, rolls, size if reference_size is None else reference_size, variant == "short"
            )
            result = PositionsResult(variant, counts, timed(works, repeats, progress, where))
            del works  # the thread pool and the worker processes end with their work
        results.append(result)
        if report is not None:
            report(result)
    return results


def _same(measures: Sequence[Measure], label: str, items: int) -> Optional[Measure]:
    """The measurement ``label`` on ``items`` positions (the same ones: every list is a prefix)."""
    return next((m for m in measures if m.label == label and m.positions == items), None)


def positions_header() -> str:
    """The title and the column names of the positions table."""
    return (
        "positions: every API on the same corpus positions of each variant\n"
        f"{'variant':8} {'api':34} {'on':>7} {'positions/s':>13} {'plays/s':>13}  ratio"
    )


def report_positions(results: Sequence[PositionsResult]) -> str:
    """The positions table: per variant, a line on its positions (and whether a few dominate), then each
    measurement with the ratios the project's targets are stated in."""
    return "\n".join([positions_header(), *(positions_rows(result) for result in results)])


def positions_rows(result: PositionsResult) -> str:
    """One variant's rows of the positions table (:func:`report_positions`)."""
    lines = []
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
