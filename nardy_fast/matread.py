"""Reading Jellyfish ``.mat`` match files (docs/rules.md, Match records): the form GNU Backgammon and eXtreme
Gammon write for backgammon (short nardy here), and the package's nardy dialect of it for the other variants.
Every game is replayed through the rules as it is read (:class:`~nardy_fast.records.Replay`), so an error names
the line, the game and the move number, and quotes the line.
"""

from __future__ import annotations

import re
from typing import Optional

from .cube import Match
from .cube.state import SIDES
from .errors import IllegalMoveError, NardyError, field_error
from .notation import parse_move
from .position import Position
from .records import GameRecord, MatchRecord, Replay, next_match, score_after
from .variants import FLAG_BY_NAME, VARIANTS, flag_from_text, normalize_flags

__all__ = ["read_mat", "TAGS", "RIGHT_COLUMN", "parse_tags", "Reader", "GAME", "PLAYERS", "NUMBERED", "WINS"]

#: The header tags the dialect reads (eXtreme Gammon's form: ``; [Name "value"]``), in lower case; others are
#: kept as read.
TAGS = frozenset({"variant", "rules", "cube", "crawford", "jacoby", "beaver", "beavers"})
#: A move line's entry, or a ``Wins`` line, that starts at this column or further is the right column's
#: (the second player's): GNU Backgammon starts it at column 33, the left one at 5.
RIGHT_COLUMN = 20

_TAG = re.compile(r';\s*\[\s*([A-Za-z][A-Za-z0-9_ ]*?)\s+"((?:[^"\\]|\\.)*)"\s*\]\s*')
_HEADER = re.compile(r"(\d{1,9})\s+point\s+match", re.IGNORECASE)
GAME = re.compile(r"Game\s+(\d{1,9})", re.IGNORECASE)
PLAYERS = re.compile(r"(.*?)\s*:\s*(\d{1,9})\s+(.*?)\s*:\s*(\d{1,9})")
NUMBERED = re.compile(r"\s*(\d{1,9})\)")
WINS = re.compile(r"Wins\s+(\d{1,9})\s+points?(\s+and\s+the\s+match)?\.?", re.IGNORECASE)
_ROLL = re.compile(r"(\d)(\d):")
_TRANSFER = re.compile(r"\[([0-9]{1,30})\]:")
_ANSWERS = {"takes": "take", "accepts": "take", "drops": "drop", "passes": "drop", "rejects": "drop"}
#: The steps of the move tokens read so far (a file repeats them: ``13/9``, ``24/18``), and every roll token.
_STEPS: dict[str, tuple[tuple[int, int], ...]] = {}
_ROLLS = {f"{a}{b}:": (a, b) for a in range(1, 7) for b in range(1, 7)}
_ON = {"on": True, "yes": True, "true": True, "1": True, "off": False, "no": False, "false": False, "0": False}


def _step(token: str) -> tuple[tuple[int, int], ...]:
    """The (from, to) pairs of one step token (``13/9``, ``25/20*``, ``24/18/13``, ``13/7(2)``, ``6/off``)."""
    pairs = tuple(parse_move(token))
    if len(_STEPS) > 100_000:  # a bound on the cache: a hostile file may hold any number of distinct tokens
        _STEPS.clear()
    _STEPS[token] = pairs
    return pairs


def parse_tags(tags: list[tuple[str, str]]) -> dict[str, object]:
    """The match's settings from its header tags: ``variant``, ``flags``, ``cube``, ``crawford``, ``jacoby``
    and ``beavers`` (those given), each checked."""
    settings: dict[str, object] = {}
    raw: dict[str, object] = {}
    for name, value in tags:
        key = name.lower()
        if key == "variant":
            if value not in VARIANTS:
                raise field_error(NardyError, "tag Variant", f"must be one of {VARIANTS}", value)
            settings["variant"] = value
        elif key == "rules":
            raw = {}
            for token in value.split():
                flag, equals, text = token.partition("=")
                if not equals or flag not in FLAG_BY_NAME:
                    raise field_error(NardyError, "tag Rules", "must be rule flags as name=value", token)
                raw[flag] = flag_from_text(flag, text)
        elif key in TAGS:
            if value.lower() not in _ON:
                raise field_error(NardyError, f"tag {name}", "must be On or Off", value)
            settings[{"beaver": "beavers"}.get(key.rstrip("s"), key.rstrip("s"))] = _ON[value.lower()]
    variant = str(settings.setdefault("variant", "short"))
    try:
        flags = normalize_flags(variant, raw)
    except NardyError as error:
        raise field_error(NardyError, "tag Rules", str(error), raw) from None
    settings["flags"] = tuple(sorted((n, v) for n, v in flags if FLAG_BY_NAME[n].default != v))
    return settings


class _Reader:
    """The state of one file's reading: the match so far and the game being replayed."""

    def __init__(self, position_class: Optional[type[Position]]) -> None:
        self.position_class = position_class
        self.games: list[GameRecord] = []
        self.players: Optional[tuple[str, str]] = None
        self.replay: Optional[Replay] = None
        self.line = 0
        self.text = ""
        self.move = 0
        self.started = False  # whether the game's first entry was read (its column says who starts)
        self.first: Optional[Position] = None

    def error(self, problem: str, cls: type[NardyError] = NardyError) -> NardyError:
        game = f", game {len(self.games) + (self.replay is not None)}" if self.replay is not None else ""
        move = f", move {self.move}" if self.move else ""
        return field_error(cls, f"line {self.line}{game}{move}", problem, self.text)

    def read(self, text: str) -> MatchRecord:
        lines = text.splitlines()
        index, tags = self.read_header(lines)
        for number in range(index + 1, len(lines)):
            self.line, self.text = number + 1, lines[number]
            self.read_line(lines[number])
        self.finish(last=True)
        assert self.players is not None or not self.games
        return self.record(tags)

    def record(self, tags: list[tuple[str, str]]) -> MatchRecord:
        """The match record of the games read, with the header's ``tags`` the dialect does not own."""
        kept = tuple(tag for tag in tags if tag[0].lower() not in TAGS)
        return MatchRecord(self.players or ("White", "Black"), self.length, tuple(self.games), self.variant,
                           self.flags, self.cube, self.crawford, self.jacoby, self.beavers, kept)

    def read_header(self, lines: list[str]) -> tuple[int, list[tuple[str, str]]]:
        """The header's tags and comments up to the ``N point match`` line, the match's settings taken from
        them: that line's index and the tags."""
        tags: list[tuple[str, str]] = []
        length: Optional[int] = None
        index = 0
        for index, line in enumerate(lines):  # the header: tags and comments, then "N point match"
            self.line, self.text = index + 1, line
            stripped = line.strip()
            tag = _TAG.fullmatch(stripped)
            if tag:
                tags.append((tag[1], tag[2].replace('\\"', '"').replace("\\\\", "\\")))
            elif stripped and not stripped.startswith((";", "#")):
                header = _HEADER.fullmatch(stripped)
                if header is None:
                    raise self.error("is not a match file: expected a header line 'N point match'")
                length = int(header[1])
                break
        else:
            self.line, self.text = len(lines), ""
            raise self.error("is not a match file: no 'N point match' header line")
        settings = parse_tags(tags)
        if length is not None and length > 64:
            raise self.error("a match length is at most 64 points")
        self.length = length or None
        self.variant = str(settings["variant"])
        self.flags: tuple[tuple[str, object], ...] = settings["flags"]  # type: ignore[assignment]
        self.cube = bool(settings.get("cube", True))
        self.crawford = bool(settings.get("crawford", True))
        money = self.length is None
        self.jacoby = bool(settings.get("jacoby", False)) and money
        self.jacoby_told = "jacoby" in settings
        self.beavers = bool(settings.get("beavers", False)) and money
        self.beavers_told = "beavers" in settings
        self.match: Optional[Match] = Match(self.length) if self.length else None
        self.score = (0, 0)
        return index, tags

    def read_line(self, line: str) -> None:
        stripped = line.strip()
        if not stripped or stripped.startswith(";"):
            return
        game = GAME.fullmatch(stripped)
        if game:
            self.finish(last=False)
            self.new_game(int(game[1]))
            return
        if self.replay is None:
            raise self.error("is not a 'Game n' line where a game must start")
        if self.players_pending:
            self.read_players(stripped)
            return
        numbered = NUMBERED.match(line)
        if numbered:
            self.read_moves(line, numbered)
            return
        wins = WINS.fullmatch(stripped)
        if wins:
            indent = len(line) - len(line.lstrip())
            self.read_wins(int(wins[1]), SIDES[indent >= RIGHT_COLUMN])
            return
        raise self.error("cannot be read: not a move line, a result or a comment")

    def new_game(self, number: int) -> None:
        if number != len(self.games) + 1:
            raise self.error(f"games are numbered in order: expected Game {len(self.games) + 1}")
        if self.length is not None and self.match is None:
            raise self.error("the match is already won: no game follows")
        if self.length is None and self.cube:
            self.match = Match(jacoby=self.jacoby, beavers=self.beavers)
        if self.first is None:  # one start for every game: positions are immutable
            cls = self.position_class
            if cls is None:
                import nardy_fast  # the package's Position (the readers name no implementation)

                cls = nardy_fast.Position
            self.first = cls.start(self.variant, **dict(self.flags))
        self.replay = Replay(self.first, self.match if self.cube else None)
        self.players_pending = True
        self.started = False
        self.move = 0

    def read_players(self, stripped: str) -> None:
        players = PLAYERS.fullmatch(stripped)
        if players is None or not players[1] or not players[3]:
            raise self.error("is not a players line 'name : score   name : score'")
        names = (players[1], players[3])
        if self.players is None:
            self.players = names
        elif names != self.players:
            raise self.error(f"names other players than the match's {self.players}")
        if (int(players[2]), int(players[4])) != self.score:
            raise self.error(f"the score does not add up: it is {self.score[0]}-{self.score[1]} after the games before")
        self.players_pending = False

    def read_moves(self, line: str, numbered: re.Match[str]) -> None:
        if self.players_pending:
            raise self.error("a game's moves follow its players line")
        number = int(numbered[1])
        if number != self.move + 1:
            raise self.error(f"move lines are numbered in order: expected {self.move + 1})")
        self.move = number
        replay = self.replay
        assert replay is not None
        rest = line[numbered.end() :]
        column = len(rest) - len(rest.lstrip())  # where the line's first entry starts, after "n)"
        segment: Optional[tuple[Optional[tuple[int, int]], list[str], list[tuple[int, int]]]] = None
        tokens = rest.split()
        sides: list[str] = []  # the side of each entry of the line, in order
        position = 0
        while position < len(tokens):
            token = tokens[position]
            position += 1
            pairs = _STEPS.get(token)
            if pairs is not None:  # the common case first: a step of a move seen before
                if segment is None:
                    raise self.error(f"{token!r} is no roll, move or cube action")
                segment[1].append(token)
                segment[2].extend(pairs)
                continue
            roll = _ROLLS.get(token) or _ROLL.fullmatch(token)
            transfer = _TRANSFER.fullmatch(token) if roll is None else None
            word = token.lower()
            if roll or transfer or word in ("doubles", "beavers") or word in _ANSWERS:
                self.play(segment)
                segment = None
                self.enter(column, sides)
            if isinstance(roll, tuple):
                segment = (roll, [], [])
            elif roll:
                raise self.error(f"{token!r} is not a roll: two dice 1 to 6", IllegalMoveError)
            elif transfer:
                values = tuple(int(d) for d in transfer[1])
                if values != replay.position.pending:
                    raise self.error(f"the transfer {token!r} is not the pending list {replay.position.pending}",
                                     IllegalMoveError)
                segment = (None, [], [])
            elif word in ("doubles", "beavers"):
                offered = tokens[position : position + 2]
                value = offered[1] if len(offered) == 2 and offered[0] == "=>" else None
                if value is None and word == "doubles":
                    raise self.error("a double is written 'Doubles => n'")
                position += 2 if value is not None else 0
                expected = replay.cube.value * (2 if word == "doubles" else 4)
                if value is not None and value != str(expected):
                    raise self.error(f"the cube would be {expected}, not {value}")
                self.cube_action(replay.position.turn if word == "doubles" else None,
                                 "double" if word == "doubles" else "beaver")
            elif word in _ANSWERS:
                self.cube_action(None, _ANSWERS[word])
            elif word == "wins":  # GNU Backgammon's money files: the result beside the last entry
                self.play(segment)
                segment = None
                wins = WINS.fullmatch(" ".join(tokens[position - 1 :]))
                if wins is None or sides[-1:] == ["black"]:
                    raise self.error("a result in a move line is 'Wins n points', in the right column")
                self.read_wins(int(wins[1]), "black" if sides or column >= RIGHT_COLUMN - 5 else "white")
                break
            elif segment is None:
                raise self.error(f"{token!r} is no roll, move or cube action")
            else:
                try:
                    pairs = _step(token)
                except NardyError as error:
                    text = " ".join([*segment[1], token])
                    raise self.error(f"cannot read the move {text!r}: {error}", IllegalMoveError) from None
                segment[1].append(token)
                segment[2].extend(pairs)
        self.play(segment)
        if len(sides) > 2 or (sides[:1] == ["black"] and len(sides) > 1):
            raise self.error("a move line holds the first player's entry, then the second's, no more")

    def enter(self, column: int, sides: list[str]) -> None:
        """A new entry of a move line: the line's first entry is in the left column (White's) or the right."""
        replay = self.replay
        assert replay is not None
        side = replay.position.turn if replay.offered is None else SIDES[replay.offered == "white"]
        if not sides:
            right = column >= RIGHT_COLUMN - 5
            if not self.started and replay.position.turn != SIDES[right]:  # the first entry: who starts
                replay.turn_first(SIDES[right])
                side = SIDES[right]
            elif SIDES[right] != side:
                raise self.error(f"{'right' if right else 'left'} column's entry is out of turn: {side} is to act")
        if not sides or sides[-1] != side:
            sides.append(side)
        self.started = True

    def play(self, segment: Optional[tuple[Optional[tuple[int, int]], list[str], list[tuple[int, int]]]]) -> None:
        if segment is None:
            return
        roll, tokens, pairs = segment
        text = " ".join(tokens)
        assert self.replay is not None
        where = f"line {self.line}, game {len(self.games) + 1}, move {self.move}"
        try:
            self.replay.play(roll, pairs, text or "pass", where)
        except NardyError as error:
            raise type(error)(f"{error} in line {self.text!r}") from None

    def cube_action(self, side: Optional[str], action: str) -> None:
        replay = self.replay
        assert replay is not None
        if action == "beaver" and replay.match.money and not self.beavers_told:
            self.beavers = True  # a money file without tags: beavers are in use where one is written
            replay.match = Match(jacoby=replay.match.jacoby, beavers=True)
            self.match = replay.match
        if side is None:
            side = "white" if replay.offered == "black" else "black" if replay.offered == "white" else "-"
        if side == "-":
            raise self.error(f"{action}: no double awaits an answer (a cube action out of turn)")
        where = f"line {self.line}, game {len(self.games) + 1}, move {self.move}"
        try:
            replay.cube_action(side, action, where)
        except NardyError as error:
            raise type(error)(f"{error} in line {self.text!r}") from None

    def read_wins(self, points: int, winner: str) -> None:
        replay = self.replay
        assert replay is not None
        if replay.is_over():
            if replay.winner() != winner or replay.raw_points() != points:
                if self.fix_jacoby(points):
                    return self.read_wins(points, winner)
                raise self.error(f"the score does not add up: the game gives {replay.raw_points()} to "
                                 f"{replay.winner()}")
        else:
            where = f"line {self.line}, game {len(self.games) + 1}"
            try:
                replay.resign(winner, points, where)
            except NardyError as error:
                raise type(error)(f"{error} in line {self.text!r}") from None

    def fix_jacoby(self, points: int) -> bool:
        """Money files without tags: the Jacoby rule is in use where a result says so (a mars counted
        single, the cube centred)."""
        replay = self.replay
        assert replay is not None
        if self.jacoby_told or not replay.cubeful or not replay.match.money or replay.match.jacoby:
            return False
        if not (replay.cube.centred and replay.dropped is None and points == replay.cube.value):
            return False
        self.jacoby = True
        replay.match = self.match = Match(jacoby=True, beavers=replay.match.beavers)
        return True

    def finish(self, last: bool) -> None:
        replay = self.replay
        if replay is None:
            return
        if self.players_pending:
            raise self.error("a game has a players line")
        if replay.offered is not None:
            raise self.error("a double awaits its answer at the game's end (truncated?)")
        if not replay.is_over() and not last:
            raise self.error(f"game {len(self.games) + 1} ends without a result")
        record = replay.record(len(self.games) + 1, self.score, self.match if self.cube else None)
        self.games.append(record)
        self.replay = None
        self.move = 0
        if record.winner is None:
            return
        self.score = score_after(self.score, record.winner, record.points, self.length)
        if self.match is not None and self.length is not None:
            self.match = next_match(self.match, record.winner, record.points, self.crawford)


#: The reader, for the fast path (:mod:`nardy_fast.matfast`), which reads the header and checks the games with it.
Reader = _Reader


def read_mat(text: str, position_class: Optional[type[Position]] = None) -> MatchRecord:
    """The match record of a ``.mat`` file's text (a UTF-8 byte order mark, tabs and any line endings
    allowed), every game replayed through the rules of ``position_class`` (the package's ``Position`` by
    default); a :class:`~nardy_fast.NardyError` naming the line (and the game and move) where it is not a match,
    is garbled, or does not follow the rules."""
    if not isinstance(text, str):
        raise field_error(NardyError, "text", "must be a str", text)
    text = str.__str__(text).lstrip("\ufeff").expandtabs(8)
    return _Reader(position_class).read(text)
