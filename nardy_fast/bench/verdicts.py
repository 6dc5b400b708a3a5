"""The bench's verdicts: one line per comparison, with its target where the project states one, and what a
ratio taken on a loaded machine can and cannot say.

Two workers can only be as fast as the cores the machine lends them. Each two-thread figure therefore has a
control, the same parts in two processes, which share nothing: when the control is under
:data:`LOADED_CONTROL`, no second core was free during the run, and the two-thread ratio is reported as taken
on a loaded machine instead of being judged against its target (it measures the machine, not the package).
The ratios of one-thread figures are medians of ratios within repeats, both sides timed back to back, so load
weighs on them much less; a missed target is still marked as taken on a loaded machine when the control
says the machine was busy."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Optional

from .harness import Measure
from .peers import GNUBG_INSTALL, gnubg_installed
from .positions import PositionsResult

__all__ = [
    "LOADED_CONTROL",
    "THREADS_TARGET",
    "GNUBG_TARGET",
    "LONG_TARGET",
    "POLICY_TARGET",
    "parallel_verdict",
    "positions_verdicts",
    "games_verdicts",
]

#: Two processes under this many times one thread: the machine lent no second core while they ran.
LOADED_CONTROL = 1.5
#: Two threads against one (``batch_children`` and ``playout``): the project's target.
THREADS_TARGET = 1.7
#: Threads within this share of the two-process control went as fast as the machine let two workers go.
_NEAR_CONTROL = 0.9
#: The games targets: the core's short games/s over GNU Backgammon's Python loop, long over short games/s,
#: and the time per game of a NumPy policy over the built-in one's (at most).
GNUBG_TARGET = 5.0
LONG_TARGET = 1.0
POLICY_TARGET = 3.0


def _judged(ratio: float, target: float, at_most: bool = False, loaded: Optional[float] = None) -> str:
    """``met`` or ``MISSED`` against ``target``; a miss with ``loaded`` (the control's ratio, under
    :data:`LOADED_CONTROL`) says so."""
    met = ratio <= target if at_most else ratio >= target
    if met:
        return "met"
    if loaded is not None:
        return (
            f"missed, on a loaded machine (two processes made {loaded:.2f}x one, under {LOADED_CONTROL}x):"
            " rerun when it is quiet before reading this as the package's"
        )
    return "MISSED"


def _loaded(control: Optional[float]) -> Optional[float]:
    return control if control is not None and control < LOADED_CONTROL else None


def parallel_verdict(what: str, threads: float, control: Optional[float]) -> str:
    """The verdict line of a two-thread ratio ``threads`` against its two-process ``control`` (``None``:
    not measured)."""
    head = f"{what}: {threads:.2f}x one thread (target >= {THREADS_TARGET}x)"
    if control is None:
        return f"{head}: {'met' if threads >= THREADS_TARGET else 'missed'}, without the two-process control"
    if control < LOADED_CONTROL:
        return (
            f"{head}: not judged, taken on a loaded machine: two processes made only {control:.2f}x (under"
            f" {LOADED_CONTROL}x), so no second core was free and this measures the machine, not the package"
        )
    if threads >= THREADS_TARGET:
        return f"{head}: met (two processes: {control:.2f}x)"
    if threads >= _NEAR_CONTROL * control:
        return (
            f"{head}: below the target, but as fast as two processes went ({control:.2f}x): the machine's"
            " limit at the time, not the package's"
        )
    return f"{head}: MISSED: below two processes on the same work ({control:.2f}x), so not the machine's limit"


def _by_label(measures: Sequence[Measure], label: str, items: Optional[int] = None) -> Optional[Measure]:
    return next(
        (m for m in measures if m.label == label and (items is None or m.positions == items)), None
    )


def positions_verdicts(results: Sequence[PositionsResult], gnubg_wanted: bool = True) -> list[str]:
    """The positions section's verdicts: the core's ``legal_moves`` against the reference's over the
    variants, ``batch_children`` and ``children`` against GNU Backgammon (short nardy), and each variant's
    two threads against one. ``gnubg_wanted``: short nardy was among the variants."""
    if not results:
        return []
    lines = []
    ratios = []
    for result in results:
        for m in result.measures:
            if m.label == "core legal_moves":
                reference = _by_label(result.measures, "reference legal_moves", m.positions)
                if reference is not None:
                    ratios.append((m.speedup(reference), result.variant))
    if ratios:
        low, high = min(ratios), max(ratios)
        span = f"{low[0]:,.0f}x ({low[1]})" + (f" to {high[0]:,.0f}x ({high[1]})" if len(ratios) > 1 else "")
        lines.append(f"legal_moves, core / reference on the same positions: {span}")
    if not any(m.label.startswith("core") for r in results for m in r.measures):
        lines.append("the compiled core is not in use: only the reference was measured")
        return lines
    short = next((r for r in results if r.variant == "short"), None)
    if short is not None:
        gnubg = _by_label(short.measures, "gnubg_nn.moves")
        batch = _by_label(short.measures, "core batch_children")
        calls = _by_label(short.measures, "core children (per position)")
        if gnubg is not None and batch is not None and calls is not None:
            lines.append(
                f"short, core batch_children / GNU Backgammon's gnubg_nn.moves: {batch.speedup(gnubg):.2f}x"
                f" (children, one call a position: {calls.speedup(gnubg):.2f}x)"
            )
        elif not gnubg_installed():
            lines.append(
                "short, core / GNU Backgammon's gnubg_nn.moves: not measured: gnubg-nn is not installed;"
                f" {GNUBG_INSTALL} adds it"
            )
    elif gnubg_wanted:
        lines.append("short, core / GNU Backgammon: not measured: short nardy was not among --variant")
    for result in results:
        one = _by_label(result.measures, "core batch_children")
        two = _by_label(result.measures, "core batch_children, 2 threads")
        control = _by_label(result.measures, "core batch_children, 2 processes")
        if one is not None and two is not None:
            lines.append(
                parallel_verdict(
                    f"{result.variant}, batch_children on 2 threads",
                    two.speedup(one),
                    None if control is None else control.speedup(one),
                )
            )
    return lines


def games_verdicts(measures: Sequence[Measure], gnubg_games_count: int = 1) -> list[str]:
    """The games section's verdicts, each against its target: the core's short games against GNU
    Backgammon's Python loop (or the line that says how to add it), long against short, the NumPy policy's
    time per game against the built-in one's, and two threads against one."""
    short = _by_label(measures, "core playout short")
    if short is None:
        return ["the compiled core is not in use: only the reference's games were measured"]
    two = _by_label(measures, "core playout short, 2 threads")
    control_measure = _by_label(measures, "core playout short, 2 processes")
    control = None if control_measure is None else control_measure.speedup(short)
    loaded = _loaded(control)
    lines = []
    gnubg = _by_label(measures, "gnubg_nn Python loop short")
    what = "short games/s, core playout / GNU Backgammon's Python loop"
    if gnubg is not None:
        ratio = short.speedup(gnubg)
        lines.append(f"{what}: {ratio:,.1f}x (target >= {GNUBG_TARGET:g}x): {_judged(ratio, GNUBG_TARGET, loaded=loaded)}")
    elif not gnubg_installed():
        lines.append(f"{what}: not measured: gnubg-nn is not installed; {GNUBG_INSTALL} adds it")
    elif gnubg_games_count == 0:
        lines.append(f"{what}: not measured (--gnubg-games 0)")
    reference = _by_label(measures, "reference playout short")
    if reference is not None:
        lines.append(f"short games/s, core playout / reference playout: {short.speedup(reference):,.0f}x")
    long = _by_label(measures, "core playout long")
    if long is not None:
        ratio = long.speedup(short)
        lines.append(
            f"games/s, long / short (core playout): {ratio:.2f}x (target >= {LONG_TARGET:g}x):"
            f" {_judged(ratio, LONG_TARGET, loaded=loaded)}"
        )
    policy = next((m for m in measures if "policy" in m.label), None)
    if policy is not None:
        cost = 1 / policy.speedup(short)
        lines.append(
            f"time per game, NumPy policy / built-in random: {cost:.2f}x (target <= {POLICY_TARGET:g}x):"
            f" {_judged(cost, POLICY_TARGET, at_most=True, loaded=loaded)}"
        )
    if two is not None:
        lines.append(parallel_verdict("short games, playout on 2 threads", two.speedup(short), control))
    return lines
