"""Variant presets and rule flags (RULES.md §1.11, §8, §9) — plain data shared by both implementations."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Union

from .errors import InvalidPositionError, field_error
from .inputs import boolean, integer, items

__all__ = [
    "VARIANTS",
    "LONG_FAMILY",
    "START_BOARDS",
    "FlagValue",
    "Flags",
    "FLAG_SPECS",
    "normalize_flags",
    "flag",
    "flag_to_text",
    "flag_from_text",
    "is_default",
]

VARIANTS: tuple[str, ...] = ("long", "sixone", "short", "gulbar", "crazy")

#: The variants played on the long-nardy geometry: same direction, heads, no hitting (RULES §1.1, §2).
LONG_FAMILY: frozenset[str] = frozenset({"long", "sixone", "gulbar", "crazy"})

_LONG_START = tuple(-15 if p == 12 else 15 if p == 24 else 0 for p in range(1, 25))
_SHORT_START_WHITE = {24: 2, 13: 5, 8: 3, 6: 5}
_SHORT_START = tuple(
    _SHORT_START_WHITE.get(p, 0) - _SHORT_START_WHITE.get(25 - p, 0) for p in range(1, 25)
)

#: Starting boards in White's numbering, ``board[i]`` = checkers on White's point ``i+1`` (RULES §2.1, §4.1).
START_BOARDS: Mapping[str, tuple[int, ...]] = {
    "long": _LONG_START,
    "sixone": _LONG_START,
    "short": _SHORT_START,
    "gulbar": _LONG_START,
    "crazy": _LONG_START,
}

FlagValue = Union[str, int, bool, tuple[int, ...]]
#: A position's flags: ``(name, value)`` for every flag that applies to its variant, in ``FLAG_SPECS`` order.
Flags = tuple[tuple[str, FlagValue], ...]


@dataclass(frozen=True)
class FlagSpec:
    """One rule flag of RULES §8: where it applies, its default, how it is checked and written."""

    name: str
    variants: frozenset[str]
    default: FlagValue
    normalize: Callable[[object], FlagValue]
    to_text: Callable[[FlagValue], str]
    from_text: Callable[[str], object]


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
    ),
    FlagSpec(
        "ladder_per_value",
        frozenset({"crazy"}),
        2,
        _choice("ladder_per_value", (2, 4)),
        str,
        _int_from_text,
    ),
    FlagSpec(
        "first_roll_exception_doubles",
        frozenset({"long", "gulbar", "crazy"}),
        (6, 4, 3),
        _normalize_doubles,
        lambda v: "".join(map(str, v)) if v else "-",  # type: ignore[arg-type]
        _doubles_from_text,
    ),
    FlagSpec(
        "sixone_extra_roll_requires_play",
        frozenset({"sixone"}),
        False,
        _normalize_bool("sixone_extra_roll_requires_play"),
        lambda v: "true" if v else "false",
        _bool_from_text,
    ),
)
_SPEC_BY_NAME = {spec.name: spec for spec in FLAG_SPECS}


def normalize_flags(variant: str, given: Mapping[str, object]) -> Flags:
    """Check the keyword flags given for ``variant`` and fill in the defaults (RULES §8).

    A flag that does not apply to the variant, an unknown flag or an unknown value is an
    ``InvalidPositionError``.
    """
    for name, value in given.items():
        spec = _SPEC_BY_NAME.get(name)
        if spec is None:
            raise field_error(InvalidPositionError, name, "is not a rule flag", value)
        if variant not in spec.variants:
            raise field_error(InvalidPositionError, name, f"does not apply to variant {variant!r}", value)
    return tuple(
        (spec.name, spec.normalize(given[spec.name]) if spec.name in given else spec.default)
        for spec in FLAG_SPECS
        if variant in spec.variants
    )


def flag(flags: Flags, name: str) -> FlagValue:
    """The value of flag ``name`` in ``flags``, or its default when the flag does not apply."""
    for key, value in flags:
        if key == name:
            return value
    return _SPEC_BY_NAME[name].default


def flag_to_text(name: str, value: FlagValue) -> str:
    """``name=value`` as written in the position text."""
    return f"{name}={_SPEC_BY_NAME[name].to_text(value)}"


def flag_from_text(name: str, text: str) -> object:
    """The raw value of a ``name=text`` token, to be checked by :func:`normalize_flags`."""
    spec = _SPEC_BY_NAME.get(name)
    return text if spec is None else spec.from_text(text)


def is_default(name: str, value: FlagValue) -> bool:
    """Whether ``value`` is the default of flag ``name`` (defaults are omitted from the text)."""
    return _SPEC_BY_NAME[name].default == value
