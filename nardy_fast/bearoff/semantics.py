"""Which dice rules a bear-off table depends on (docs/rules.md, Bear-off tables), and the facts both
implementations' table builders share: the order of the rolls and their weights, and how many turns a
distribution holds.

In a bear-off every die can be played (a checker above the die moves down, one on its point or, with none
above, the highest below it bears off), so only three rules tell the variants' tables apart: how a double is
played (four steps, or a crazy-gulbar ladder of 2 or 4 values a rung) and which rolls earn an extra roll
(six-one's 6-1, gulbar's fully played double). Long and short nardy share a table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ..errors import NardyError, field_error
from ..inputs import choice, integer
from ..variants import SPECS, VARIANTS, flag, normalize_flags

__all__ = ["Semantics", "SEMANTICS", "semantics_of", "ROLL_ORDER", "ROLL_WEIGHTS", "MAX_TURNS"]

#: The rolls in the order both builders add up their terms (so that both get the same floats): higher die
#: first, as ``nardy_fast.position.ROLLS``; a double has weight 1 in 36, any other roll 2.
ROLL_ORDER: tuple[tuple[int, int], ...] = tuple((a, b) for a in range(6, 0, -1) for b in range(a, 0, -1))
ROLL_WEIGHTS: tuple[int, ...] = tuple(1 if a == b else 2 for a, b in ROLL_ORDER)
#: A distribution of turns holds the probabilities of 0..MAX_TURNS turns (15 checkers on the 6-point need at
#: most 30: every turn but the last moves at least 3 pips of 90).
MAX_TURNS = 32


@dataclass(frozen=True)
class Semantics:
    """One table's dice rules: its ``key`` (the name tables are built, cached and reported under),
    ``extra_roll`` as in :class:`~nardy_fast.variants.VariantSpec` (``""``, ``"six_one"``, ``"full_double"``)
    and ``ladder``, the values a rung of a double's ladder (0: a double is four steps); ``variant`` and
    ``flags``: a variant and rule flags that select it (not compared: long and short select the same table)."""

    key: str
    extra_roll: str
    ladder: int
    variant: str = field(default="long", compare=False)
    flags: Mapping[str, object] = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self) -> None:
        # checked: a table is built, cached and reported under its key, and must be the table of those rules
        key = choice(self.key, tuple(_TABLE_KINDS))
        if key is None:
            raise field_error(NardyError, "key", f"must be one of {tuple(_TABLE_KINDS)}", self.key)
        extra_roll, ladder = _TABLE_KINDS[key]
        if not isinstance(self.extra_roll, str) or str.__str__(self.extra_roll) != extra_roll:
            raise field_error(NardyError, "extra_roll", f"must be {extra_roll!r} in table {key!r}", self.extra_roll)
        if integer(self.ladder) != ladder:
            raise field_error(NardyError, "ladder", f"must be {ladder} in table {key!r}", self.ladder)
        variant = choice(self.variant, VARIANTS)
        if variant is None:
            raise field_error(NardyError, "variant", f"must be one of {VARIANTS}", self.variant)
        if not isinstance(self.flags, Mapping):
            raise field_error(NardyError, "flags", "must be a mapping of rule flags by name", self.flags)
        for name, value in (("key", key), ("extra_roll", extra_roll), ("ladder", ladder), ("variant", variant)):
            object.__setattr__(self, name, value)


def _rules(variant: str, ladder_per_value: int) -> tuple[str, str, int]:
    """The key, extra roll and ladder of ``variant``'s table with flag ``ladder_per_value``."""
    spec = SPECS[variant]
    ladder = ladder_per_value if spec.ladder else 0
    key = "crazy" if ladder == 2 else "crazy_ladder4" if ladder == 4 else "long" if not spec.extra_roll else variant
    return key, spec.extra_roll, ladder


#: The extra roll and ladder of every table, by key.
_TABLE_KINDS: dict[str, tuple[str, int]] = {
    key: (extra_roll, ladder)
    for key, extra_roll, ladder in (
        _rules(variant, per) for variant in VARIANTS for per in ((2, 4) if SPECS[variant].ladder else (2,))
    )
}


def _of(variant: str, ladder_per_value: int) -> Semantics:
    key, extra_roll, ladder = _rules(variant, ladder_per_value)
    return Semantics(key, extra_roll, ladder, variant, {"ladder_per_value": ladder} if ladder else {})


def semantics_of(variant: object, flags: Mapping[str, object]) -> Semantics:
    """The dice rules of ``variant`` with rule ``flags`` in a bear-off. The flags are checked as for a
    position (an unknown one, or one that does not apply to the variant, is an error); only
    ``ladder_per_value`` selects a table."""
    name = choice(variant, VARIANTS)
    if name is None:
        raise field_error(NardyError, "variant", f"must be one of {VARIANTS}", variant)
    if not isinstance(flags, Mapping):
        raise field_error(NardyError, "flags", "must be a mapping of rule flags by name", flags)
    checked = normalize_flags(name, flags)
    ladder = flag(checked, "ladder_per_value")
    assert isinstance(ladder, int)
    return _of(name, ladder)


#: Every distinct table, by key: long (and short), sixone, gulbar, crazy, crazy_ladder4.
def _every() -> dict[str, Semantics]:
    found: dict[str, Semantics] = {}
    for variant in VARIANTS:
        for per in (2, 4) if SPECS[variant].ladder else (2,):
            found.setdefault(_of(variant, per).key, _of(variant, per))  # the first variant of each names it
    return found


SEMANTICS: Mapping[str, Semantics] = _every()
