"""Reading SGF match files, ``GM[6]`` (docs/rules.md, Match records): the backgammon form GNU Backgammon writes
(``sgf.c``: a game tree per game, moves as the roll and point letters), short nardy here, and the package's
nardy dialect of it for the other variants. Every game is replayed through the rules as it is read
(:class:`~nardy_fast.records.Replay`), so an error names the line, the game and the move number, and quotes
the move or the text that is not SGF.
"""

from __future__ import annotations

import re
from typing import NamedTuple, Optional

from .cube import Match
from .cube.state import SIDES
from .errors import IllegalMoveError, NardyError, field_error
from .notation import parse_move
from .position import Position
from .records import GameRecord, MatchRecord, Replay, next_match, score_after
from .variants import FLAG_BY_NAME, VARIANTS, flag_from_text, normalize_flags

__all__ = ["read_sgf", "parse_sgf", "Node", "TAG_PROPERTIES", "letter_point"]

#: A node: its properties in order, each its identifier, its values (unescaped) and where it starts in the text.
Node = list[tuple[str, list[str], int]]
#: The root properties of a match's first game kept as the record's header tags, by the names ``.mat`` files
#: give them (eXtreme Gammon's tags), so that a match reads to the same record from either file.
TAG_PROPERTIES = {"DT": "EventDate", "EV": "Event", "RO": "Round", "PC": "Place", "AN": "Annotator",
                  "GC": "Comment"}

# a token of the text: a tree's bounds, a node, a property's identifier, a value (escapes kept)
# (a value's pattern is "unrolled", no nested repetition: a value without its "]" fails in linear time)
_TOKEN = re.compile(r"\s*(?:([();])|([A-Za-z]{1,32})|\[([^\\\]]*(?:\\.[^\\\]]*)*)\])", re.DOTALL)
_ESCAPE = re.compile(r"\\(\r\n|\n\r|\n|\r|.)", re.DOTALL)
_PLAIN = re.compile(r"(\d)(\d)([a-z]*)")
_DIALECT = re.compile(r"(?:(\d)(\d)|\[([0-9]{1,30})\]):(.*)", re.DOTALL)
_RESULT = re.compile(r"([WB])\+(\d{1,9})?(R|Resign)?", re.IGNORECASE)
_CUBE_WORDS = {"double": "double", "take": "take", "drop": "drop", "beaver": "beaver"}


def _unescape(raw: str) -> str:
    """A value's text: ``\\x`` is ``x``, a backslash before a line break (a soft break) is nothing."""
    if "\\" not in raw:
        return raw
    return _ESCAPE.sub(lambda m: "" if m[1] in ("\n", "\r", "\r\n", "\n\r") else m[1], raw)


def line_of(text: str, pos: int) -> int:
    """The line (from 1) of the character at ``pos``."""
    return text.count("\n", 0, pos) + 1


def _near(text: str, pos: int) -> str:
    return text[pos : pos + 40].split("\n", 1)[0].strip() or text[max(0, pos - 40) : pos].strip()


def parse_sgf(text: str) -> list[list[Node]]:
    """The main line of each game tree of an SGF collection: its nodes in order, a variation's first line
    taken where the tree branches (the SGF main line), the other variations checked as SGF and left. Text that
    is not SGF is a :class:`~nardy_fast.NardyError` naming its line and quoting it."""
    trees: list[list[Node]] = []
    stack: list[list[bool]] = []  # per open tree: (on the main line, a subtree seen)
    node: Optional[Node] = None
    ident: Optional[tuple[str, list[str], int]] = None
    pos, end = 0, len(text)
    match = _TOKEN.match
    while pos < end:
        token = match(text, pos)
        if token is None:
            rest = text[pos:].lstrip()
            if not rest:
                break
            start = end - len(rest)
            if rest.startswith("["):
                raise field_error(NardyError, f"line {line_of(text, start)}",
                                  "the file ends inside a property value (truncated?)", _near(text, start))
            raise field_error(NardyError, f"line {line_of(text, start)}", "is not SGF", _near(text, start))
        start, pos = token.start(token.lastindex or 0), token.end()
        bound, name, value = token.groups()
        if not stack and bound != "(":
            raise field_error(NardyError, f"line {line_of(text, start)}", "is not an SGF file: a game tree starts "
                              "'(;'", _near(text, start))
        if bound is not None or name is not None:
            if ident is not None and not ident[1]:
                raise field_error(NardyError, f"line {line_of(text, ident[2])}", "a property has no value",
                                  _near(text, ident[2]))
            ident = None
        if bound == "(":
            if not stack:
                trees.append([])
                stack.append([True, False])
            else:
                parent = stack[-1]
                stack.append([parent[0] and not parent[1], False])
                parent[1] = True
            node = None
        elif bound == ")":
            if not stack or (node is None and not stack[-1][1]):
                raise field_error(NardyError, f"line {line_of(text, start)}",
                                  "a game tree is '(' nodes ')', none empty", _near(text, max(0, start - 20)))
            stack.pop()
            node = None
        elif bound == ";":
            if not stack or stack[-1][1]:
                raise field_error(NardyError, f"line {line_of(text, start)}", "a node stands in a game tree, "
                                  "before its variations", _near(text, start))
            node = []
            if stack[-1][0]:
                trees[-1].append(node)
        elif name is not None:
            if node is None:
                raise field_error(NardyError, f"line {line_of(text, start)}", "a property stands in a node (';')",
                                  _near(text, start))
            # FF[3]'s long identifiers (``AddBlack``) are their capitals (FF[4]: lower case letters ignored)
            ident = ("".join(c for c in name if c.isupper()) or name.upper(), [], start)
            node.append(ident)
        else:
            if ident is None:
                raise field_error(NardyError, f"line {line_of(text, start)}", "a value follows a property name",
                                  _near(text, start))
            ident[1].append(_unescape(value))
    if stack:
        last = text.rstrip()
        raise field_error(NardyError, f"line {line_of(text, len(last))}", "the file ends inside a game tree "
                          "(truncated?)", last.rsplit("\n", 1)[-1][-40:])
    if not trees:
        raise field_error(NardyError, "line 1", "is not an SGF file: no game tree '(;'", _near(text, 0))
    return trees


def letter_point(letter: str, side: str) -> int:
    """A point letter of GNU Backgammon's SGF (``a``-``x`` White's 1 to 24 and Black's 24 to 1, ``y`` the
    bar, ``z`` off) as a point of ``side``'s own numbering (bar 25, off 0); -1 for no such letter."""
    code = ord(letter) - 96
    if code == 25 or code == 26:
        return 25 if code == 25 else 0
    if not 1 <= code <= 24:
        return -1
    return code if side == "white" else 25 - code


def _root(tree: list[Node]) -> dict[str, tuple[list[str], int]]:
    props: dict[str, tuple[list[str], int]] = {}
    for ident, values, pos in tree[0]:
        props.setdefault(ident, (values, pos))
    return props


class _Settings(NamedTuple):
    """A match's settings, from a game's root."""

    players: tuple[str, str]
    length: Optional[int]
    variant: str
    flags: tuple[tuple[str, object], ...]
    cube: bool
    crawford: bool
    jacoby: bool
    beavers: bool
    tags: tuple[tuple[str, str], ...]


class _Reader:
    """The state of one file's reading: the match so far and the game being replayed."""

    def __init__(self, text: str, position_class: Optional[type[Position]]) -> None:
        self.text = text
        if position_class is None:
            import nardy_fast  # the package's Position (the readers name no implementation)

            position_class = nardy_fast.Position
        self.position_class = position_class
        self.games: list[GameRecord] = []
        self.score = (0, 0)
        self.settings: Optional[_Settings] = None
        self.length: Optional[int] = None
        self.match: Optional[Match] = None
        self.first: Optional[Position] = None

    def error(self, pos: int, problem: str, quoted: object, move: int = 0,
              cls: type[NardyError] = NardyError) -> NardyError:
        where = f"line {line_of(self.text, pos)}, game {len(self.games) + 1}" + (f", move {move}" if move else "")
        return field_error(cls, where, problem, quoted)

    def read(self) -> MatchRecord:
        trees = parse_sgf(self.text)
        games = [tree for tree in trees if _root(tree).get("GM", (["6"], 0))[0][:1] == ["6"]]
        if not games:
            raise field_error(NardyError, "line 1", "holds no backgammon game (GM[6])", _near(self.text, 0))
        for index, tree in enumerate(games):
            self.read_game(tree, last=index == len(games) - 1)
        got = self.settings
        assert got is not None
        return MatchRecord(got.players, got.length, tuple(self.games), got.variant, got.flags, got.cube,
                           got.crawford, got.jacoby, got.beavers, got.tags)

    def read_settings(self, props: dict[str, tuple[list[str], int]]) -> _Settings:
        """The match's settings from a game's root: players, length, variant, flags, rules, tags."""
        info = {}
        for item in props.get("MI", ([], 0))[0]:
            key, _, value = item.partition(":")
            info[key.strip()] = value.strip()
        pos = props.get("MI", ([], 0))[1]
        try:
            length = int(info.get("length", "0") or "0")
            score = (int(info.get("ws", self.score[0])), int(info.get("bs", self.score[1])))
        except ValueError:
            raise self.error(pos, "MI[] holds length:, game:, ws:, bs: with whole numbers", info) from None
        if not 0 <= length <= 64:
            raise self.error(pos, "a match length is at most 64 points", length)
        if score != self.score:
            raise self.error(pos, f"the score does not add up: it is {self.score[0]}-{self.score[1]} after the "
                                  "games before", score)
        if "game" in info and info["game"] != str(len(self.games)):
            raise self.error(pos, f"games are numbered in order: expected game:{len(self.games)}", info["game"])
        rules: set[str] = set()
        for value in props.get("RU", ([], 0))[0]:
            rules.update(token.strip().lower() for token in value.split(":"))
        variant, flags = "short", tuple[tuple[str, object], ...]()
        if "VA" in props:
            values, pos = props["VA"]
            words = values[0].split()
            variant = words[0] if words else ""
            if variant not in VARIANTS:
                raise self.error(pos, f"VA[] names a variant, one of {VARIANTS}", values[0])
            raw = {}
            for token in words[1:]:
                flag, equals, text = token.partition("=")
                if not equals or flag not in FLAG_BY_NAME:
                    raise self.error(pos, "VA[]'s rule flags are name=value", token)
                raw[flag] = flag_from_text(flag, text)
            try:
                normal = normalize_flags(variant, raw)
            except NardyError as error:
                raise self.error(pos, f"VA[]: {error}", values[0]) from None
            flags = tuple(sorted((n, v) for n, v in normal if FLAG_BY_NAME[n].default != v))
        for ident in ("CV", "CP", "CO"):  # a game of the record starts with the cube centred at 1
            if ident in props and props[ident][0][0].strip().lower() not in ("1", "c", ""):
                raise self.error(props[ident][1], "a game starts with the cube centred at 1", props[ident][0][0])
        crawford = "crawford" in rules or (length <= 1 and "nocrawford" not in rules)
        names = (props.get("PW", (["White"], 0))[0][0], props.get("PB", (["Black"], 0))[0][0])
        tags = [(TAG_PROPERTIES[key], props[key][0][0].replace("-", ".") if key == "DT" else props[key][0][0])
                for key in TAG_PROPERTIES if key in props]
        for value in props.get("TG", ([], 0))[0]:  # the record's other tags: name=value
            name, equals, text = value.partition("=")
            if equals:
                tags.append((name, text))
        money = length == 0
        return _Settings(names, length or None, variant, flags, "nocube" not in rules, crawford,
                         "jacoby" in rules and money, "beavers" in rules and money, tuple(tags))

    def read_game(self, tree: list[Node], last: bool) -> None:
        props = _root(tree)
        settings = self.read_settings(props)
        if self.settings is not None and self.length is not None and self.match is None:
            raise self.error(tree[0][0][2] if tree[0] else 0, "the match is already won: no game follows", "(;")
        if self.settings is None:
            self.settings = settings
            self.length = settings.length
            self.beavers_told = settings.beavers
            self.match = Match(self.length) if self.length is not None else None
        else:
            for index, what in ((0, "players"), (1, "match length"), (2, "variant"), (3, "rule flags"),
                                (4, "rules"), (5, "rules"), (6, "rules")):
                if settings[index] != self.settings[index]:
                    raise self.error(tree[0][0][2] if tree[0] else 0, f"names another {what} than the "
                                     f"match's {self.settings[index]!r}", settings[index])
        ours = self.settings
        if self.length is None and ours.cube:
            self.match = Match(jacoby=ours.jacoby, beavers=ours.beavers)
        if self.first is None:  # one start for every game: positions are immutable
            self.first = self.position_class.start(ours.variant, **dict(ours.flags))
        replay = Replay(self.first, self.match if ours.cube else None)
        plain = ours.variant == "short"
        move = 0
        for node in tree[1:]:
            for ident, values, pos in node:
                if ident in ("AE", "AB", "AW"):
                    raise self.error(pos, "a set-up node is not read: a game starts at its variant's start",
                                     ident, move)
                if ident in ("CV", "CP", "CO") and values[0].strip().lower() not in ("1", "c"):
                    raise self.error(pos, "a cube set-up node is not read", values[0], move)
            mover = next(((i, v, p) for i, v, p in node if i in ("W", "B")), None)
            if mover is None:
                continue
            move += 1
            self.read_move(replay, "white" if mover[0] == "W" else "black", mover[1][0], mover[2], move, plain)
        self.finish(replay, props, last)

    def read_move(self, replay: Replay, side: str, value: str, pos: int, move: int, plain: bool) -> None:
        where = f"line {line_of(self.text, pos)}, game {len(self.games) + 1}, move {move}"
        word = value.strip().lower()
        if word in _CUBE_WORDS:
            action = _CUBE_WORDS[word]
            if action == "beaver" and replay.match is not None and replay.match.money and not self.beavers_told:
                # a session without RU[Beavers] (GNU Backgammon writes none): beavers are in use where one is
                replay.match = self.match = Match(jacoby=replay.match.jacoby, beavers=True)
                assert self.settings is not None
                self.settings = self.settings._replace(beavers=True)
            replay.cube_action(side, action, where)
            return
        if not replay.history and not replay.actions and side != replay.position.turn:
            replay.turn_first(side)  # the first move's colour says who starts
        if side != replay.position.turn:
            raise self.error(pos, f"is {replay.position.turn}'s turn (a move out of turn)", value, move)
        roll: Optional[tuple[int, int]]
        if plain:
            found = _PLAIN.fullmatch(value.strip())
            if found is None:
                raise self.error(pos, "a move is the roll's two digits and point letters a-z", value, move,
                                 IllegalMoveError)
            letters = found[3]
            pairs = [(letter_point(letters[i], side), letter_point(letters[i + 1], side))
                     for i in range(0, len(letters) - 1, 2)]
            if len(letters) % 2 or any(a < 0 or b < 0 for a, b in pairs):
                raise self.error(pos, "a move's points are pairs of letters a-z", value, move, IllegalMoveError)
            digits = found[1], found[2]
        else:
            found = _DIALECT.fullmatch(value.strip())
            if found is None:
                raise self.error(pos, "a move is 'd1d2: steps' or '[pending]: steps'", value, move,
                                 IllegalMoveError)
            try:
                pairs = parse_move(found[4])
            except NardyError as error:
                raise self.error(pos, f"cannot read the move: {error}", value, move, IllegalMoveError) from None
            digits = (found[1], found[2]) if found[3] is None else ("", "")
            if found[3] is not None:
                pending = tuple(int(d) for d in found[3])
                if pending != replay.position.pending:
                    raise self.error(pos, f"the transfer is not the pending list {replay.position.pending}", value,
                                     move, IllegalMoveError)
        if digits[0]:
            if not all("1" <= d <= "6" for d in digits):
                raise self.error(pos, "is not a roll: two dice 1 to 6", value, move, IllegalMoveError)
            roll = (int(digits[0]), int(digits[1]))
        else:
            roll = None
        replay.play(roll, pairs, value.strip(), where)

    def finish(self, replay: Replay, props: dict[str, tuple[list[str], int]], last: bool) -> None:
        values, pos = props.get("RE", ([""], 0))
        if pos == 0 and props:
            pos = next(iter(props.values()))[1]
        result = _RESULT.fullmatch(values[0].strip())
        if replay.offered is not None:
            raise self.error(pos, "a double awaits its answer at the game's end (truncated?)", values[0])
        winner = None if result is None else SIDES[result[1].upper() == "B"]
        points = None if result is None or result[2] is None else int(result[2])
        if replay.is_over():
            if winner is not None and (winner, points or replay.raw_points()) != (replay.winner(),
                                                                                   replay.raw_points()):
                raise self.error(pos, f"the score does not add up: the game gives {replay.raw_points()} to "
                                      f"{replay.winner()}", values[0])
        elif winner is not None:
            if points is None:
                raise self.error(pos, "a resignation's result names its points (RE[W+2R])", values[0])
            replay.resign(winner, points, f"line {line_of(self.text, pos)}, game {len(self.games) + 1}")
        elif not last:
            raise self.error(pos, f"game {len(self.games) + 1} ends without a result (RE[])", values[0])
        assert self.settings is not None
        record = replay.record(len(self.games) + 1, self.score, self.match if self.settings.cube else None)
        self.games.append(record)
        if record.winner is None:
            return
        self.score = score_after(self.score, record.winner, record.points, self.length)
        if self.match is not None and self.length is not None:
            self.match = next_match(self.match, record.winner, record.points, self.settings.crawford)


def read_sgf(text: str, position_class: Optional[type[Position]] = None) -> MatchRecord:
    """The match record of an SGF file's text (``GM[6]`` game trees, one a game), every game replayed through
    the rules of ``position_class`` (the package's ``Position`` by default); a :class:`~nardy_fast.NardyError`
    naming the line (and the game and move) where it is not SGF, is garbled, or does not follow the rules."""
    if not isinstance(text, str):
        raise field_error(NardyError, "text", "must be a str", text)
    return _Reader(str.__str__(text).lstrip("\ufeff"), position_class).read()
