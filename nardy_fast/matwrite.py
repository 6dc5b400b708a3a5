"""Writing Jellyfish ``.mat`` match files (docs/rules.md, Match records): short nardy in the plain backgammon
form GNU Backgammon reads (its columns, ``bar`` as 25 and ``off`` as 0), the other variants in the package's
nardy dialect (the variant and rule flags in header tags, moves in the package's notation, a side's turn in
one entry: a transfer segment ``[values]:`` before its roll, an extra roll after it).
"""

from __future__ import annotations

from functools import lru_cache

from .cube.state import SIDES
from .errors import NardyError, field_error
from .matread import TAGS  # the tags the dialect owns are written from the record's fields
from .position import Step
from .records import CubeAction, GameRecord, MatchRecord, Ply, Resignation, variant_starts
from .variants import VARIANTS, flag_to_text

__all__ = ["write_mat", "is_backgammon"]

#: The width of a move line's left entry (GNU Backgammon's: the right one starts at column 33).
_LEFT = 27
#: Each roll's head of a move entry.
_HEADS = {(a, b): f"{a}{b}:" for a in range(1, 7) for b in range(1, 7)}
#: Where a ``Wins`` line of each column starts.
_WINS_INDENT = (6, 34)


def is_backgammon(record: MatchRecord) -> bool:
    """Whether ``record`` is written in GNU Backgammon's plain form: short nardy with the cube and the
    Crawford rule, no rule flag (short nardy has none)."""
    return record.variant == "short" and not record.flags and record.cube and record.crawford


def _gnu_step(step: Step) -> str:
    return f"{step.src}/{step.dst}{'*' if step.hit else ''}"


@lru_cache(maxsize=1 << 16)
def _move_text(steps: tuple[Step, ...], plain: bool) -> str:
    """A move's steps as written (a session repeats its moves: the cache saves formatting them again)."""
    return " ".join(map(_gnu_step if plain else str, steps))


@lru_cache(maxsize=1 << 16)
def _entry_text(roll: tuple[int, int], steps: tuple[Step, ...], plain: bool) -> str:
    """A ply's roll and steps as written (``d1d2: steps``)."""
    moved = " ".join(map(_gnu_step if plain else str, steps))
    return f"{_HEADS[roll]} {moved}" if moved else _HEADS[roll]


def _name(name: str) -> str:
    if not name.strip() or any(c in name for c in "\r\n\x00") or " : " in name or name != name.strip():
        raise field_error(NardyError, "players", "a name is a non-empty line without ' : ' or edge spaces", name)
    return name


def _tag(name: str, value: str) -> str:
    if any(c in value for c in "\r\n") or any(c in name for c in "\r\n\"[]") or name != name.strip() or not name:
        raise field_error(NardyError, "tags", "a tag is a name and a value on one line", (name, value))
    return f'; [{name} "' + value.replace("\\", "\\\\").replace('"', '\\"') + '"]'


def _header(record: MatchRecord) -> list[str]:
    lines = [_tag(name, value) for name, value in record.tags if name.lower() not in TAGS]
    if not is_backgammon(record):
        lines.append(_tag("Variant", record.variant))
        if record.flags:
            lines.append(_tag("Rules", " ".join(flag_to_text(n, v) for n, v in record.flags)))  # type: ignore[arg-type]
        lines += [_tag(tag, "Off") for tag, on in (("Cube", record.cube), ("Crawford", record.crawford)) if not on]
    if record.length is None:
        lines += [_tag(tag, "On") for tag, on in (("Jacoby", record.jacoby), ("Beaver", record.beavers)) if on]
    return lines + ([""] if lines else []) + [f" {record.length or 0} point match", ""]


def _entries(game: GameRecord, plain: bool) -> list[tuple[str, str]]:
    """Each entry of the game's move lines, with its side: a side's turn (its transfer segment, its roll and
    any extra roll) or a cube action. A resignation only ends a game."""
    entries: list[tuple[str, str]] = []
    cube = 1
    moved = False  # whether the last entry is a move: the same side's next move joins it (an extra roll)
    resigned = 0
    for event in game.events:
        if type(event) is Ply:
            roll = event.roll
            if roll is not None:
                text = _entry_text(roll, event.steps, plain)
            else:
                steps = _move_text(event.steps, plain)
                head = "[" + "".join(map(str, event.pending)) + "]:"
                text = f"{head} {steps}" if steps else head
            side = event.side
            if moved and entries[-1][0] == side:
                entries[-1] = (side, f"{entries[-1][1]} {text}")
            else:
                entries.append((side, text))
            moved = True
        elif isinstance(event, CubeAction):
            if event.action == "double":
                text = f" Doubles => {2 * cube}"
            elif event.action == "beaver":
                cube *= 4
                text = f" Beavers => {cube}"
            else:
                cube *= 2 if event.action == "take" else 1
                text = " Takes" if event.action == "take" else " Drops"
            entries.append((event.side, text))
            moved = False
        elif isinstance(event, Resignation):
            resigned += 1
    if resigned and resigned > isinstance(game.events[-1], Resignation):  # one before the last event
        raise field_error(NardyError, f"game {game.number}", "a resignation ends a game", game.events)
    return entries


def _game_lines(record: MatchRecord, game: GameRecord, plain: bool) -> list[str]:
    lines = [f" Game {game.number}", f" {record.players[0]} : {game.score[0]}".ljust(31) + " "
             + f"{record.players[1]} : {game.score[1]}"]
    row: list[str] = []
    number = 0
    for side, text in _entries(game, plain):
        if side == "white" or not row:
            if row:
                number += 1
                lines.append(f"{number:3d}) {row[0]:<{_LEFT}} {row[1] if len(row) > 1 else ''}".rstrip())
            row = [text] if side == "white" else ["", text]
        else:
            row.append(text)
            number += 1
            lines.append(f"{number:3d}) {row[0]:<{_LEFT}} {row[1]}".rstrip())
            row = []
    wins = f"Wins {game.points} point{'s' if game.points != 1 else ''}"
    placed = False  # whether the result stands in the last move line
    if row:
        number += 1
        if game.winner == "black" and len(row) == 1:  # GNU Backgammon's place for it: the line's right entry
            row.append(" " + wins)
            placed = True
        lines.append(f"{number:3d}) {row[0]:<{_LEFT}} {row[1] if len(row) > 1 else ''}".rstrip())
    if game.winner is not None and not placed:
        indent = " " * _WINS_INDENT[SIDES.index(game.winner)]
        lines.append(f"{indent}{wins}")
    return lines + [""]


@lru_cache(maxsize=256)
def _starts(start: str) -> tuple[str, str]:
    """The variant's start of a game's ``start`` text, with either side to move."""
    import nardy_fast  # the package's Position (the writer names no implementation)

    variant = start.split(" ", 1)[0]
    position = nardy_fast.Position.from_text(start) if variant in VARIANTS else None
    return ("", "") if position is None else variant_starts(position)


def write_mat(record: MatchRecord) -> str:
    """The ``.mat`` text of ``record`` (lines ending in ``\\n``)."""
    if not isinstance(record, MatchRecord):
        raise field_error(NardyError, "record", "must be a nardy_fast.MatchRecord", record)
    for name in record.players:
        _name(name)
    plain = is_backgammon(record)
    lines = _header(record)
    for game in record.games:
        if game.start not in _starts(game.start):
            raise field_error(NardyError, f"game {game.number}", "a .mat game starts at its variant's start",
                              game.start)
        lines += _game_lines(record, game, plain)
    return "\n".join(lines) + "\n"
