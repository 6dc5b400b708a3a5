"""perft: the number of move paths of a given depth, the standard check that two generators agree."""

from __future__ import annotations

from importlib import resources
from typing import NamedTuple, Optional

from .errors import NardyError, field_error
from .inputs import IntLike, choice, integer
from .position import Position

__all__ = ["MAX_PERFT_DEPTH", "check_depth", "perft", "divide", "PerftCase", "SOURCES", "perft_cases"]

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
    """One count of the shipped perft data file: a position text, a depth, the count and who counted it
    (``"hand"``, ``"gnubg"`` or ``"core"``; see the file's header)."""

    text: str
    depth: int
    count: int  # type: ignore[assignment]  # shadows tuple.count, kept: it is the file's column name
    source: str = "hand"

    @property
    def verified(self) -> bool:
        """Whether someone other than this package counted it (by hand or with GNU Backgammon)."""
        return choice(self.source, ("hand", "gnubg")) is not None


#: Who may have counted a shipped perft number.
SOURCES = ("hand", "gnubg", "core")


def perft_cases(budget: Optional[IntLike] = None) -> list[PerftCase]:
    """The counts of ``nardy_fast/data/perft.txt`` (derivations are the comments in that file), those of at most
    ``budget`` nodes when given (an integer >= 0; else a ``NardyError`` naming ``budget``)."""
    limit = None if budget is None else integer(budget)
    if budget is not None and (limit is None or limit < 0):
        raise field_error(NardyError, "budget", "must be an integer >= 0 or None", budget)
    cases = []
    data = resources.files("nardy_fast").joinpath("data/perft.txt").read_text(encoding="utf-8")
    for line in data.splitlines():
        if line.strip() and not line.startswith("#"):
            text, counts = (part.strip() for part in line.split("|"))
            for entry in counts.split(";"):
                depth, count, source = entry.split()
                if source not in SOURCES:
                    raise ValueError(f"perft.txt: unknown source {source!r} in {line!r}")
                if limit is None or int(count) <= limit:
                    cases.append(PerftCase(text, int(depth), int(count), source))
    return cases
