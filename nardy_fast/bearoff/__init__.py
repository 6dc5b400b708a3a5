"""Exact endgames (docs/rules.md, Bear-off tables): one-sided bear-off tables for every variant, two-sided
tables of small bear-offs, and the race values of a bear-off position.

>>> import nardy_fast.bearoff as bearoff
>>> table = bearoff.one_sided("long")
>>> round(table.expected_turns([0, 0, 0, 0, 0, 1]), 4)   # one checker on the 6-point
1.25
>>> round(bearoff.two_sided("long").win_probability([0, 0, 0, 0, 0, 1], [1, 0, 0, 0, 0, 0]), 4)
0.75

The tables come from the package's default implementation (the compiled core when it is built); those of
an implementation of one's choice from ``nardy_fast.reference.one_sided`` and ``nardy_fast.core.one_sided``.
"""

from __future__ import annotations

from .layouts import LAYOUTS, MAX_CHECKERS, all_layouts, layouts
from .semantics import MAX_TURNS, SEMANTICS, Semantics, semantics_of
from .store import CUBEFUL_DOC, ONE_SIDED_DOC, TWO_SIDED_DOC, cache_directory
from .tables import CUBE_STATES, TWO_SIDED_CHECKERS, CubefulTwoSided, OneSided, RaceProbabilities, TwoSided
from .values import race_probabilities

__all__ = [
    "one_sided",
    "two_sided",
    "two_sided_cubeful",
    "race_probabilities",
    "OneSided",
    "TwoSided",
    "CubefulTwoSided",
    "CUBE_STATES",
    "RaceProbabilities",
    "Semantics",
    "SEMANTICS",
    "semantics_of",
    "LAYOUTS",
    "MAX_CHECKERS",
    "MAX_TURNS",
    "TWO_SIDED_CHECKERS",
    "all_layouts",
    "layouts",
    "cache_directory",
]


def one_sided(variant: str, *, checkers: int = 15, cache: bool = False, **flags: object) -> OneSided:  # noqa: D103 - ONE_SIDED_DOC
    import nardy_fast  # the chosen implementation's tables: the package is whole before any function runs

    chosen = nardy_fast.implementations()[nardy_fast.IMPLEMENTATION]
    table: OneSided = chosen.one_sided(variant, checkers=checkers, cache=cache, **flags)
    return table


def two_sided(variant: str, *, checkers: int = 6, **flags: object) -> TwoSided:  # noqa: D103 - TWO_SIDED_DOC
    import nardy_fast

    chosen = nardy_fast.implementations()[nardy_fast.IMPLEMENTATION]
    table: TwoSided = chosen.two_sided(variant, checkers=checkers, **flags)
    return table


def two_sided_cubeful(variant: str, *, checkers: int = 6, **flags: object) -> CubefulTwoSided:  # noqa: D103 - CUBEFUL_DOC
    import nardy_fast

    chosen = nardy_fast.implementations()[nardy_fast.IMPLEMENTATION]
    table: CubefulTwoSided = chosen.two_sided_cubeful(variant, checkers=checkers, **flags)
    return table


one_sided.__doc__ = ONE_SIDED_DOC
two_sided.__doc__ = TWO_SIDED_DOC
two_sided_cubeful.__doc__ = CUBEFUL_DOC
