"""The race evaluator's tables (docs/rules.md, Races and bear-off positions; Bear-off tables): the one-sided
and two-sided bear-off tables it reads, built once per process from an implementation's kernels
(:func:`build_tables`, :func:`race_tables`, :func:`reached_tables`). The values it gives, its constants and
its error for a position in contact are facts both implementations read, stated in
:mod:`nardy_fast.evaluation.race_formula` and named here as well."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Optional

import numpy as np
import numpy.typing as npt

from .. import layout
from ..bearoff.layouts import MAX_CHECKERS, check_checkers
from ..bearoff.store import one_sided_table, two_sided_table
from ..bearoff.tables import TWO_SIDED_CHECKERS, OneSidedKernel, TwoSidedKernel
from ..errors import NardyError, field_error
from ..inputs import integer
from .race_formula import (
    CONSTANTS,
    CONTINUITY,
    KEYS,
    NC,
    NOT_A_RACE,
    STACK,
    VARIANCE_FLOOR,
    RaceConstants,
    RaceTables,
    key_of,
    not_a_race_error,
    vector,
)

if TYPE_CHECKING:
    from ..kernels import Kernels
    from .builtin import Builtin

__all__ = [
    "RaceConstants",
    "CONSTANTS",
    "KEYS",
    "CONTINUITY",
    "VARIANCE_FLOOR",
    "NC",
    "STACK",
    "key_of",
    "vector",
    "build_tables",
    "race_tables",
    "reached_tables",
    "RaceTables",
    "not_a_race_error",
    "NOT_A_RACE",
]


def _two_sided_checkers(value: object) -> int:
    number = integer(value)
    if number is None or not 0 <= number <= TWO_SIDED_CHECKERS:
        raise field_error(NardyError, "two_sided", f"must be an integer 0..{TWO_SIDED_CHECKERS}", value)
    return number


def build_tables(
    implementation: str,
    one_sided_kernel: OneSidedKernel,
    two_sided_kernel: TwoSidedKernel,
    variant: object,
    flags: Mapping[str, object],
    checkers: object = MAX_CHECKERS,
    two_sided: object = TWO_SIDED_CHECKERS,
) -> RaceTables:
    """``(dist, dist_first, two_win)`` of ``variant`` under rule ``flags`` for the race evaluator, C-contiguous
    float64 arrays built (once per process) by an implementation's kernels: the one-sided table of
    ``checkers`` checkers (1..15) and the two-sided one of ``min(two_sided, checkers)`` (``two_sided`` 0..6;
    0: none, ``two_win`` is ``None``)."""
    count = check_checkers(checkers, 1)
    pair = min(_two_sided_checkers(two_sided), count)
    one = one_sided_table(implementation, one_sided_kernel, variant, count, False, flags)
    two = two_sided_table(implementation, two_sided_kernel, variant, pair, flags).win if pair else None
    return (
        np.ascontiguousarray(one.arrays.dist),
        np.ascontiguousarray(one.arrays.dist_first),
        None if two is None else np.ascontiguousarray(two),
    )


def race_tables(
    kernels: Kernels,
    rows: npt.NDArray[np.int8],
    checkers: object = MAX_CHECKERS,
    two_sided: object = TWO_SIDED_CHECKERS,
) -> Optional[RaceTables]:
    """The tables of :func:`build_tables` from ``kernels``'s builders for checked ``rows`` (N, 64) that share
    their variant and flag columns, no larger than the rows need: ``None`` when no row is a bear-off the
    tables value, else the one-sided table of ``min(checkers, k)`` checkers and the two-sided one of
    ``min(two_sided, checkers, k)``, ``k`` the most checkers a side of those bear-offs holds. A smaller table
    is a prefix of a larger one (:mod:`nardy_fast.bearoff.layouts`), so a row's values depend on ``checkers``
    and ``two_sided`` only, never on the other rows (the reference builds large tables very slowly: pass it
    small ones)."""
    count = check_checkers(checkers, 1)
    pair = _two_sided_checkers(two_sided)
    served = layout.is_bearoff(rows) & ~layout.is_over(rows) & (rows[:, layout.NPENDING] == 0)
    if not served.any():
        return None
    left = MAX_CHECKERS - rows[served][:, layout.OFF : layout.OFF + 2].astype(np.int64)
    needed = max(int(left.max()), 1)
    state = layout.unpack(rows[0])
    return build_tables(
        kernels.name,
        kernels.one_sided,
        kernels.two_sided,
        state.variant,
        dict(state.flags),
        min(count, needed),
        min(pair, needed),
    )


def reached_tables(kernels: Kernels, rows: npt.NDArray[np.int8]) -> RaceTables:
    """The full tables of :func:`build_tables` (the one-sided of :data:`MAX_CHECKERS` checkers, the two-sided
    of :data:`TWO_SIDED_CHECKERS`) of checked ``rows``' variant and flags from ``kernels``'s builders: those
    of every bear-off a hint or a game from any position of that variant reaches (the core builds them in
    about two seconds, once per process). Remembered by the columns that name them (variant and flags), so that
    a hint, which asks for them every time, does not look them up again."""
    key = (kernels.name, rows[0, layout.VARIANT : layout.EXCEPTION_DOUBLES + 1].tobytes())
    found = _REACHED.get(key)
    if found is None:
        state = layout.unpack(rows[0])
        found = build_tables(kernels.name, kernels.one_sided, kernels.two_sided, state.variant, dict(state.flags))
        _REACHED[key] = found  # the tables are built once per process: a race here stores the same ones
    return found


def tables_of(evaluator: Builtin, kernels: Kernels, rows: npt.NDArray[np.int8], own: bool) -> Optional[RaceTables]:
    """What the race evaluator reads for ``rows`` (its facts' ``tables``): the tables of ``rows`` themselves
    (:func:`race_tables`) when it values them (``own``) or the implementation has no search of its own; else,
    for a hint or a game in the implementation's own search, the tables of every bear-off it reaches
    (:func:`reached_tables`), as the composite's race part reads them."""
    return race_tables(kernels, rows) if own or kernels.hint is None else reached_tables(kernels, rows)


#: The tables :func:`reached_tables` found, by implementation and the rows' variant and flag columns.
_REACHED: dict[tuple[str, bytes], RaceTables] = {}
