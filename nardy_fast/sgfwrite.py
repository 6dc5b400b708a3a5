"""Writing SGF match files, ``GM[6]`` (docs/rules.md, Match records): a game tree per game as GNU Backgammon
writes them (``sgf.c``), short nardy in its plain backgammon form (moves as the roll and point letters, so that
GNU Backgammon reads them), the other variants in the package's nardy dialect (the variant and rule flags in
the root's ``VA[]``, each move, transfer segment and extra roll a node of its own in the package's notation).
"""

from __future__ import annotations

from functools import lru_cache

from .errors import NardyError, field_error
from .position import Step
from .records import CubeAction, GameRecord, MatchRecord, Ply, Resignation, variant_starts
from .sgfread import TAG_PROPERTIES
from .variants import VARIANTS, flag_to_text

__all__ = ["write_sgf", "point_letter"]

_PROPERTY_OF_TAG = {tag: ident for ident, tag in TAG_PROPERTIES.items()}
_COLOUR = {"white": "W", "black": "B"}


def _escape(value: str) -> str:
    """An SGF value's text: ``\\`` and ``]`` escaped."""
    return value.replace("\\", "\\\\").replace("]", "\\]")


def point_letter(point: int, side: str) -> str:
    """The letter GNU Backgammon's SGF gives ``point`` of ``side``'s numbering (bar 25 ``y``, off 0 ``z``):
    the letters are the board's own, ``a`` White's 1-point and Black's 24-point."""
    if point == 25 or point == 0:
        return "y" if point == 25 else "z"
    return chr(96 + (point if side == "white" else 25 - point))


@lru_cache(maxsize=1 << 16)
def _move(side: str, roll: tuple[int, int], steps: tuple[Step, ...]) -> str:
    """A short-nardy move as GNU Backgammon writes it: the dice, then each step's from and to letters."""
    letters = "".join(point_letter(s.src, side) + point_letter(s.dst, side) for s in steps)
    return f"{roll[0]}{roll[1]}{letters}"


def _dialect(ply: Ply) -> str:
    """A move of the nardy dialect: ``d1d2: steps`` or a transfer segment ``[pending]: steps``."""
    head = f"{ply.roll[0]}{ply.roll[1]}:" if ply.roll is not None else "[" + "".join(map(str, ply.pending)) + "]:"
    return f"{head} {ply.text}" if ply.steps else head


@lru_cache(maxsize=256)
def _starts(start: str) -> tuple[str, str]:
    """The variant's start of a game's ``start`` text, with either side to move."""
    import nardy_fast  # the package's Position (the writer names no implementation)

    variant = start.split(" ", 1)[0]
    position = nardy_fast.Position.from_text(start) if variant in VARIANTS else None
    return ("", "") if position is None else variant_starts(position)


def _rules(record: MatchRecord, game: GameRecord) -> list[str]:
    """The ``RU[]`` tokens: GNU Backgammon's (``NoCube``, ``Crawford``, ``CrawfordGame``, ``Jacoby``) and the
    dialect's ``Beavers`` and ``NoCrawford`` (where the rule cannot go without saying), which GNU ignores."""
    tokens = [] if record.cube else ["NoCube"]
    long_match = record.length is not None and record.length > 1
    if record.crawford and long_match:
        tokens.append("Crawford")
    if not record.crawford and not long_match:
        tokens.append("NoCrawford")
    if game.crawford and record.cube:
        tokens.append("CrawfordGame")
    if record.length is None:
        tokens += [name for name, on in (("Jacoby", record.jacoby), ("Beavers", record.beavers)) if on]
    return tokens


def _root(record: MatchRecord, game: GameRecord) -> str:
    parts = ["(;FF[4]GM[6]CA[UTF-8]AP[nardy_fast]",
             f"MI[length:{record.length or 0}][game:{game.number - 1}][ws:{game.score[0]}][bs:{game.score[1]}]",
             f"PW[{_escape(record.players[0])}]PB[{_escape(record.players[1])}]"]
    if game.number == 1:
        others = []
        for name, value in record.tags:
            ident = _PROPERTY_OF_TAG.get(name)
            if ident is not None:
                parts.append(f"{ident}[{_escape(value.replace('.', '-') if ident == 'DT' else value)}]")
            else:
                others.append(f"[{_escape(name)}={_escape(value)}]")
        if others:
            parts.append("TG" + "".join(others))
    rules = _rules(record, game)
    if rules:
        parts.append(f"RU[{':'.join(rules)}]")
    if record.variant != "short":
        flags = "".join(" " + flag_to_text(n, v) for n, v in record.flags)  # type: ignore[arg-type]
        parts.append(f"VA[{record.variant}{flags}]")
    if game.winner is not None:
        resigned = "R" if game.events and isinstance(game.events[-1], Resignation) else ""
        parts.append(f"RE[{_COLOUR[game.winner]}+{game.points}{resigned}]")
    return "".join(parts)


def _game(record: MatchRecord, game: GameRecord) -> str:
    lines = [_root(record, game)]
    plain = record.variant == "short"
    for event in game.events:
        if type(event) is Ply:
            if plain:
                if event.roll is None:
                    raise field_error(NardyError, f"game {game.number}", "short nardy has no transfer", event)
                text = _move(event.side, event.roll, event.steps)
            else:
                text = _escape(_dialect(event))
            lines.append(f";{_COLOUR[event.side]}[{text}]")
        elif isinstance(event, CubeAction):
            lines.append(f";{_COLOUR[event.side]}[{event.action}]")
    return "\n".join(lines) + ")\n"


def write_sgf(record: MatchRecord) -> str:
    """The SGF text of ``record``: a game tree per game (lines ending in ``\\n``)."""
    if not isinstance(record, MatchRecord):
        raise field_error(NardyError, "record", "must be a nardy_fast.MatchRecord", record)
    for name, value in record.tags:
        if "=" in name and name not in _PROPERTY_OF_TAG:
            raise field_error(NardyError, "tags", "a tag's name has no '='", (name, value))
    out = []
    for game in record.games:
        if game.start not in _starts(game.start):
            raise field_error(NardyError, f"game {game.number}", "an SGF game starts at its variant's start",
                              game.start)
        if any(isinstance(e, Resignation) for e in game.events[:-1]):
            raise field_error(NardyError, f"game {game.number}", "a resignation ends a game", game.events)
        out.append(_game(record, game))
    return "".join(out)
