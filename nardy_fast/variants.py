"""Variants and rule flags (docs/rules.md, The five games; Rule flags) as tables: plain data shared by both
implementations.

Each variant is one :class:`VariantSpec` and each flag one :class:`FlagSpec`; validation, notation, the
packed row, the Zobrist slots and the compiled core's constant tables are derived from them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Union

from .errors import InvalidPositionError, field_error
from .inputs import boolean, integer, items

__all__ = [
    "VariantSpec",
    "VARIANT_SPECS",
    "SPECS",
    "VARIANTS",
    "LONG_FAMILY",
    "START_BOARDS",
    "variants_where",
    "FlagSpec",
    "FLAG_BITS",
    "FLAG_BY_NAME",
    "FlagValue",
    "Flags",
    "FLAG_SPECS",
    "normalize_flags",
    "flag",
    "flag_to_text",
    "flag_from_text",
    "is_default",
]

_LONG_START = tuple(-15 if p == 12 else 15 if p == 24 else 0 for p in range(1, 25))
_SHORT_START_WHITE = {24: 2, 13: 5, 8: 3, 6: 5}
_SHORT_START = tuple(_SHORT_START_WHITE.get(p, 0) - _SHORT_START_WHITE.get(25 - p, 0) for p in range(1, 25))


@dataclass(frozen=True)
class VariantSpec:
    """What sets one variant apart (docs/rules.md, The five games). Every per-variant rule in both
    implementations is read from these fields; a variant's place in :data:`VARIANT_SPECS` is its id in packed
    rows and Zobrist keys (new variants are appended).

    ``family`` is the geometry: ``"long"`` (both sides move the same way round, heads, no hitting, the block
    rule) or ``"short"`` (backgammon: opposite directions, hits and the bar).
    """

    name: str
    family: str
    #: The starting board in White's numbering (docs/rules.md, Long family board; Short nardy board).
    start: tuple[int, ...]
    #: A first-roll double may take two checkers from the head (docs/rules.md, First-roll exception; flag
    #: ``first_roll_exception_doubles``).
    first_roll_exception: bool = False
    #: Six-one's special step ``24/ds`` (docs/rules.md, Six-one special step).
    special_step: bool = False
    #: A double is played as a ladder (docs/rules.md, Crazy gulbar ladders; flag ``ladder_per_value``).
    ladder: bool = False
    #: Unplayed values pass to the opponent as a pending list (docs/rules.md, Gulbar transfers).
    transfers: bool = False
    #: When the mover rolls again: ``""`` never, ``"six_one"`` after 6-1, ``"full_double"`` after a fully played
    #: double (docs/rules.md, Six-one extra roll; Gulbar extra roll).
    extra_roll: str = ""
    #: A mars with a checker on the bar or in the winner's home scores 3 (docs/rules.md, Game end and
    #: scoring).
    koks: bool = False


VARIANT_SPECS: tuple[VariantSpec, ...] = (
    VariantSpec("long", "long", _LONG_START, first_roll_exception=True),
    VariantSpec("sixone", "long", _LONG_START, special_step=True, extra_roll="six_one"),
    VariantSpec("short", "short", _SHORT_START, koks=True),
    VariantSpec("gulbar", "long", _LONG_START, first_roll_exception=True, transfers=True, extra_roll="full_double"),
    VariantSpec("crazy", "long", _LONG_START, first_roll_exception=True, ladder=True, transfers=True),
)
#: The spec of each variant by name.
SPECS: Mapping[str, VariantSpec] = {spec.name: spec for spec in VARIANT_SPECS}

VARIANTS: tuple[str, ...] = tuple(spec.name for spec in VARIANT_SPECS)

#: The variants played on the long-nardy geometry: same direction, heads, no hitting (docs/rules.md, The five
#: games).
LONG_FAMILY: frozenset[str] = frozenset(spec.name for spec in VARIANT_SPECS if spec.family == "long")

#: Starting boards in White's numbering, ``board[i]`` = checkers on White's point ``i+1`` (docs/rules.md, Long
#: family board; Short nardy board).
START_BOARDS: Mapping[str, tuple[int, ...]] = {spec.name: spec.start for spec in VARIANT_SPECS}


def variants_where(test: Callable[[VariantSpec], bool]) -> frozenset[str]:
    """The variants whose spec passes ``test``."""
    return frozenset(spec.name for spec in VARIANT_SPECS if test(spec))


FlagValue = Union[str, int, bool, tuple[int, ...]]
#: A position's flags: ``(name, value)`` for every flag that applies to its variant, in ``FLAG_SPECS`` order.
Flags = tuple[tuple[str, FlagValue], ...]


@dataclass(frozen=True)
class FlagSpec:
    """One rule flag (docs/rules.md, Rule flags): where it applies, its default, how it is checked, written
    and stored.

    A two-valued flag is stored as ``bit`` of the packed row's flag column (set when the value is ``other``,
    the non-default value) and keyed by the Zobrist slot ``key`` (:mod:`nardy_fast.zobrist`); a flag with
    ``bit == 0`` has a storage of its own (the exception doubles' die mask). The core reads these tables at
    import.
    """

    name: str
    variants: frozenset[str]
    default: FlagValue
    normalize: Callable[[object], FlagValue]
    to_text: Callable[[FlagValue], str]
    from_text: Callable[[str], object]
    bit: int = 0
    other: FlagValue = False
    key: str = ""


def _choice(name: str, choices: tuple[FlagValue, ...]) -> Callable[[object], FlagValue]:
    def normalize(value: object) -> FlagValue:
        number = integer(value)
        for choice in choices:
            if number == choice if type(choice) is int else (type(value) is type(choice) and value == choice):
                return choice
        raise field_error(InvalidPositionError, name, f"must be one of {choices!r}", value)

    return normalize


def _normalize_doubles(value: object) -> tuple[int, ...]:
    name = "first_roll_exception_doubles"
    given = items(value) if not isinstance(value, (set, frozenset)) else tuple(value)
    if given is None:
        raise field_error(InvalidPositionError, name, "must be a collection of die values 1..6", value)
    values = [integer(v) for v in given]
    dice = [v for v in values if v is not None and 1 <= v <= 6]
    if len(dice) != len(values) or len(set(dice)) != len(dice):
        raise field_error(InvalidPositionError, name, "must be distinct die values 1..6", value)
    return tuple(sorted(dice, reverse=True))


def _normalize_bool(name: str) -> Callable[[object], FlagValue]:
    def normalize(value: object) -> FlagValue:
        truth = boolean(value)
        if truth is None:
            raise field_error(InvalidPositionError, name, "must be True or False", value)
        return truth

    return normalize


def _int_from_text(text: str) -> object:
    return int(text) if re.fullmatch("[0-9]{1,9}", text) else text


def _bool_from_text(text: str) -> object:
    return {"true": True, "false": False}.get(text, text)


def _doubles_from_text(text: str) -> object:
    if text == "-":
        return ()
    if re.fullmatch("[0-9]{1,9}", text) is None:
        return text
    return [int(c) for c in text]


FLAG_SPECS: tuple[FlagSpec, ...] = (
    FlagSpec(
        "block_check",
        LONG_FAMILY,
        "end_of_turn",
        _choice("block_check", ("end_of_turn", "per_step")),
        str,
        str,
        bit=1,
        other="per_step",
        key="per_step",
    ),
    FlagSpec(
        "ladder_per_value",
        variants_where(lambda v: v.ladder),
        2,
        _choice("ladder_per_value", (2, 4)),
        str,
        _int_from_text,
        bit=2,
        other=4,
        key="ladder4",
    ),
    FlagSpec(
        "first_roll_exception_doubles",
        variants_where(lambda v: v.first_roll_exception),
        (6, 4, 3),
        _normalize_doubles,
        lambda v: "".join(map(str, v)) if v else "-",  # type: ignore[arg-type]
        _doubles_from_text,
        key="exception_double",
    ),
    FlagSpec(
        "sixone_extra_roll_requires_play",
        variants_where(lambda v: v.extra_roll == "six_one"),
        False,
        _normalize_bool("sixone_extra_roll_requires_play"),
        lambda v: "true" if v else "false",
        _bool_from_text,
        bit=4,
        other=True,
        key="sixone_requires_play",
    ),
    FlagSpec(
        "normal_doubles_first_rolls",
        variants_where(lambda v: v.ladder),
        0,
        _choice("normal_doubles_first_rolls", (0, 3)),
        str,
        _int_from_text,
        bit=8,
        other=3,
        key="normal_doubles3",
    ),
)
#: The bits of the two-valued flags, all together.
FLAG_BITS: int = sum(spec.bit for spec in FLAG_SPECS)
#: Each flag's spec by name.
FLAG_BY_NAME: Mapping[str, FlagSpec] = {spec.name: spec for spec in FLAG_SPECS}


def normalize_flags(variant: str, given: Mapping[str, object]) -> Flags:
    """Check the keyword flags given for ``variant`` and fill in the defaults (docs/rules.md, Rule flags).

    A flag that does not apply to the variant, an unknown flag (a name that is no string among them), an
    unknown value or ``given`` no mapping is an ``InvalidPositionError``.
    """
    if not isinstance(given, Mapping):
        raise field_error(InvalidPositionError, "flags", "must be a mapping of rule flags by name", given)
    named: dict[str, object] = {}
    for key, value in given.items():
        # a name is read as a plain string: a key's own __eq__, __hash__ or __str__ is never called
        name = str.__str__(key) if isinstance(key, str) else None
        spec = None if name is None else FLAG_BY_NAME.get(name)
        if spec is None:
            raise field_error(InvalidPositionError, key if name is None else name, "is not a rule flag", value)
        if variant not in spec.variants:
            raise field_error(InvalidPositionError, spec.name, f"does not apply to variant {variant!r}", value)
        named[spec.name] = value
    return tuple(
        (spec.name, spec.normalize(named[spec.name]) if spec.name in named else spec.default)
        for spec in FLAG_SPECS
        if variant in spec.variants
    )


def flag(flags: Flags, name: str) -> FlagValue:
    """The value of flag ``name`` in ``flags``, or its default when the flag does not apply."""
    for key, value in flags:
        if key == name:
            return value
    return FLAG_BY_NAME[name].default


def flag_to_text(name: str, value: FlagValue) -> str:
    """``name=value`` as written in the position text."""
    return f"{name}={FLAG_BY_NAME[name].to_text(value)}"


def flag_from_text(name: str, text: str) -> object:
    """The raw value of a ``name=text`` token, to be checked by :func:`normalize_flags`."""
    spec = FLAG_BY_NAME.get(name)
    return text if spec is None else spec.from_text(text)


def is_default(name: str, value: FlagValue) -> bool:
    """Whether ``value`` is the default of flag ``name`` (defaults are omitted from the text)."""
    return FLAG_BY_NAME[name].default == value
