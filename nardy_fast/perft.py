"""perft: the number of move paths of a given depth, the standard check that two generators agree."""

from __future__ import annotations

from importlib import resources
from typing import NamedTuple

from .errors import NardyError, field_error
from .inputs import integer
from .position import Position

__all__ = ["MAX_PERFT_DEPTH", "check_depth", "perft", "divide", "PerftCase", "perft_cases"]

#: The deepest perft either implementation runs. Every ply multiplies the count by up to hundreds, so no
#: real count comes near it; the bound keeps both implementations' recursion shallow and alike.
MAX_PERFT_DEPTH = 64


def check_depth(depth: object) -> int:
    """A perft depth: an integer ``0..MAX_PERFT_DEPTH``."""
    value = integer(depth)
    if value is None or value < 0:
        raise field_error(NardyError, "depth", "must be a non-negative integer", depth)
    if value > MAX_PERFT_DEPTH:
        raise field_error(NardyError, "depth", f"must be at most {MAX_PERFT_DEPTH}", depth)
    return value


def _check_position(position: object) -> None:
    if not isinstance(position, Position):
        raise field_error(NardyError, "position", "must be a Position", position)


def divide(position: Position, depth: int) -> dict[str, int]:
    """perft split by first move: ``{"<roll> <move>": count}`` (``"pending <move>"`` for a transfer)."""
    _check_position(position)
    depth = check_depth(depth)
    if depth == 0:
        raise field_error(NardyError, "depth", "must be at least 1 to divide", depth)
    rolls = position._rolls()
    counts: dict[str, int] = {}
    for roll in rolls:
        label = "pending" if roll is None else f"{roll[0]}-{roll[1]}"
        for move in position.legal_moves(roll):
            counts[f"{label} {move}"] = perft(move.result, depth - 1)
    return counts


def perft(position: Position, depth: int) -> int:
    """``perft(p, 0) = 1``; ``perft(p, d)`` sums ``perft(m.result, d−1)`` over the moves ``m`` of each of the
    21 distinct rolls (or of the pending list alone). A finished game has no moves. ``depth`` is at most
    :data:`MAX_PERFT_DEPTH`."""
    _check_position(position)
    return position._perft(check_depth(depth))


class PerftCase(NamedTuple):
    """One line of the shipped perft data file: a position text, a depth and the count its comment derives."""

    text: str
    depth: int
    count: int  # type: ignore[assignment]  # shadows tuple.count, kept: it is the file's column name


def perft_cases() -> list[PerftCase]:
    """The cases of ``nardy_fast/data/perft.txt`` (derivations are the comments in that file)."""
    cases = []
    data = resources.files("nardy_fast").joinpath("data/perft.txt").read_text(encoding="utf-8")
    for line in data.splitlines():
        if line.strip() and not line.startswith("#"):
            text, depth, count = (part.strip() for part in line.split("|"))
            cases.append(PerftCase(text, int(depth), int(count)))
    return cases
