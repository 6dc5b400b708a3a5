"""The parts of ``nardy-fast play``'s session (:mod:`nardy_fast.cli.playsession`) besides its turns: the
settings, the board as the person sees it, the commands of every prompt, the cube's prompts and the engine's
cube actions, resignations."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Optional

import numpy as np

from .. import equity, evaluate
from ..analysis import AnalysedPosition
from ..board import mover_point
from ..cube import Cube, Match
from ..cube.players import BEAVER, PASS
from ..cube.state import SIDES, other
from ..kernels import kernels_of
from ..policies import Greedy
from ..position import Position
from ..records import CubeAction, Event, GameRecord, Ply, Replay, Resignation

__all__ = ["Settings", "Prompts", "QuitError", "HELP", "board_text"]

#: The multiples a side may resign, by name (koks in short nardy only: docs/rules.md, Game end and scoring).
_RESIGNS = {"single": 1, "mars": 2, "koks": 3}

HELP = """Commands:
  a move in the package's notation, in your own numbering: 24/18 18/13, 13/7(2), bar/21*, 6/off, pass
  ? or list      the numbered list of your legal moves; a number picks one
  hint           the engine's ranking of your moves (at the cube prompt: its cube decision)
  board          draw the board again
  undo           take back your move (at the prompt after it, before the next roll)
  double         double at the start of your turn, before you roll (Enter rolls)
  take / pass    answer a double (beaver: take and redouble, money play with beavers)
  resign [single|mars|koks]   give up the game for that many times the cube (single by default)
  quit           stop; the match record is written as far as it went"""


class QuitError(Exception):
    """The player typed ``quit``."""


@dataclass(frozen=True)
class Settings:
    """What ``nardy-fast play`` was asked for: the variant, the person's colour, a match to ``length`` points
    (the cube always) or money play with the ``cube`` (or neither: games without the cube), the engine's
    evaluator and search depth, and the dice: seeded by ``seed`` or typed (``manual``)."""

    variant: str = "long"
    side: str = "white"
    length: Optional[int] = None
    cube: bool = False
    jacoby: bool = False
    beavers: bool = False
    evaluator: object = "net"
    plies: int = 0
    seed: int = 0
    manual: bool = False
    opening: str = "fresh_roll"
    name: str = "You"

    @property
    def cubeful(self) -> bool:
        """Whether the games are played with the cube."""
        return self.cube or self.length is not None

    def first_match(self) -> Optional[Match]:
        """The match of the first game (``None`` for games without the cube)."""
        if self.length is not None:
            return Match(self.length)
        return Match(jacoby=self.jacoby, beavers=self.beavers) if self.cube else None


def board_text(position: Position, side: str) -> str:
    """``str(position)`` (White's numbering) with its rows of point numbers in ``side``'s own numbering, the
    one its moves are typed in (docs/rules.md, The mover's numbering pitfall)."""
    lines = str(position).splitlines()
    if side == "black":

        def numbers(points: list[int]) -> str:
            cells = [f"{mover_point(position.variant, p):>3}" for p in points]
            return f"  {' '.join(cells[:6])} | {' '.join(cells[6:])}"

        lines[1], lines[4] = numbers(list(range(13, 25))), numbers(list(range(12, 0, -1)))
        lines.insert(1, "(points numbered as Black counts them)")
    return "\n".join(lines)


class Prompts:
    """The state of a session and what every prompt of it shares (:class:`~nardy_fast.cli.playsession.Session`
    plays the turns)."""

    def __init__(self, settings: Settings, read: Callable[[str], str], write: Callable[[str], None]) -> None:
        self.settings = settings
        self.read = read
        self.write = write
        self.engine = Greedy(settings.evaluator, plies=settings.plies)  # type: ignore[arg-type]
        self.finished: list[GameRecord] = []
        self.match = settings.first_match()
        self.score = (0, 0)  # before the game under way (money play: the points won so far)
        self.number = 0
        self.replay: Optional[Replay] = None
        self.roll: Optional[tuple[int, int]] = None  # thrown and not yet played
        self.drawn = ""  # the position the cube prompt last drew
        self.rolls = 0  # seeded rolls drawn in this game
        engine = f"nardy_fast ({settings.evaluator}, {settings.plies}-ply)"
        self.players = (settings.name, engine) if settings.side == "white" else (engine, settings.name)

    def _who(self, side: str) -> str:
        return f"{self.players[SIDES.index(side)]} ({side.capitalize()})"

    def _score(self) -> str:
        length = "" if self.settings.length is None else f" (match to {self.settings.length})"
        return f"Score: {self.players[0]} {self.score[0]}, {self.players[1]} {self.score[1]}{length}"

    def _status(self) -> str:
        game = self.replay
        assert game is not None
        pips = game.position.pips()
        parts = [f"Game {self.number}", f"pips: White {pips[0]}, Black {pips[1]}"]
        if self.settings.cubeful:
            owner = "centred" if game.cube.owner is None else f"{game.cube.owner}'s"
            parts.append(f"cube {game.cube.value} {owner}")
            if self.settings.length is not None:
                parts.append(f"score {self.score[0]}-{self.score[1]} of {self.settings.length}")
        return ", ".join(parts)

    def _command(self, word: str) -> bool:
        """The commands of every prompt: ``help``, ``board``, ``resign``, ``quit``; whether ``word`` was one."""
        game = self.replay
        assert game is not None
        if word == "quit":
            raise QuitError
        if word == "help":
            self.write(HELP)
        elif word == "board":
            self.write(f"{self._status()}\n{board_text(game.position, self.settings.side)}")
        elif word.split()[:1] == ["resign"]:
            self._resign(word.split()[1:])
        else:
            return False
        return True

    def _line(self, prompt: str) -> str:
        return self.read(f"{prompt}> ").strip()

    def _ask(self, prompt: str, answers: tuple[str, ...], prefix: int = 0) -> str:
        """The answer to ``prompt``, one of ``answers`` (its first ``prefix`` letters, if given)."""
        while True:
            word = self._line(prompt).lower()
            key = word[:prefix] if prefix else word
            if word == "quit":
                raise QuitError
            if key in answers and (not prefix or word):
                return key
            self.write(f"Not an answer: {word!r}. {prompt}")

    def _replayed(self, events: list[Event]) -> Replay:
        """The game under way replayed from its start through ``events``."""
        assert self.replay is not None
        again = Replay(self.replay.start, self.match)
        where = f"game {self.number}"
        for event in events:
            _replay_event(again, event, where)
        return again

    def _cube_state(self) -> tuple[np.ndarray, list[tuple[Cube, Match]]]:
        game = self.replay
        assert game is not None
        return game.position.to_array()[None, :], [(game.cube, game.match)]

    @property
    def position(self) -> AnalysedPosition:
        """The position now of the game under way, with the engine's methods (an implementation's)."""
        assert self.replay is not None
        position = self.replay.position
        assert isinstance(position, AnalysedPosition)
        return position

    def _cube_hint(self) -> None:
        game = self.replay
        assert game is not None
        found = self.position.cube_decision(evaluator=self.settings.evaluator, cube=game.cube, match=game.match)
        unit = "match winning chances" if self.settings.length is not None else "points per unit of the cube"
        self.write(f"{self._who(game.position.turn)} on roll: {found.action} (no double {found.no_double:+.3f}, "
                   f"double-take {found.double_take:+.3f}, double-pass {found.double_pass:+.3f}; {unit})")

    def _human_cube(self) -> bool:
        """The person's turn starts where it may double: Enter rolls, ``double`` doubles (True)."""
        game = self.replay
        assert game is not None
        self.write(f"\n{self._status()}\n{board_text(game.position, self.settings.side)}")
        self.drawn = game.position.to_text()
        while True:
            word = self._line("Your turn: Enter rolls, or double").lower()
            if word in ("", "roll", "r"):
                return False
            if word == "hint":
                self._cube_hint()
            elif word == "double":
                game.cube_action(self.settings.side, "double", f"game {self.number}")
                rows, states = self._cube_state()
                answer = int(self.engine.responses(kernels_of(game.position), rows, states)[0])
                action = {PASS: "drop", BEAVER: "beaver"}.get(answer, "take")
                game.cube_action(other(self.settings.side), action, f"game {self.number}")
                words = {"drop": "passes", "take": "takes", "beaver": "takes and beavers"}[action]
                self.write(f"You double. {self._who(other(self.settings.side))} {words}.")
                return True
            elif not self._command(word):
                self.write(f"Not now: {word!r}. Enter rolls the dice, double doubles (help lists the commands).")
            if game.is_over():
                return False

    def _engine_cube(self) -> bool:
        """The engine's turn starts where it may double: whether it did (the person answering)."""
        game = self.replay
        assert game is not None
        rows, states = self._cube_state()
        if not bool(self.engine.doubles(kernels_of(game.position), rows, states)[0]):
            return False
        engine, where = game.position.turn, f"game {self.number}"
        game.cube_action(engine, "double", where)
        self.write(f"\n{self._status()}\n{board_text(game.position, self.settings.side)}")
        self.write(f"{self._who(engine)} doubles to {2 * game.cube.value}.")
        beavers = game.match.money and game.match.beavers
        answers = ("take", "pass", "drop", "beaver") if beavers else ("take", "pass", "drop")
        while True:
            word = self._line(f"take or pass{' (or beaver)' if beavers else ''}").lower()
            if word in answers:
                game.cube_action(self.settings.side, "drop" if word == "pass" else word, where)
                return True
            if word == "hint":
                self._cube_hint()
            elif word in ("help", "board", "quit"):
                self._command(word)
            else:
                self.write(f"Not now: {word!r}. Answer take or pass{' or beaver' if beavers else ''}.")

    def _resign(self, words: list[str]) -> None:
        """The person resigns ``words[0]`` (single by default); the engine accepts what it expects no more of."""
        game = self.replay
        assert game is not None
        variant = game.position.variant
        allowed = [name for name, k in _RESIGNS.items() if k < 3 or variant == "short"]
        if len(words) > 1 or (words and words[0] not in allowed):
            self.write(f"Resign as one of {', '.join(allowed)} (got {' '.join(words)!r}).")
            return
        multiple = _RESIGNS[words[0] if words else "single"]
        position = game.position
        mine = float(equity(evaluate(position, self.settings.evaluator)))
        expected = -mine if position.turn == self.settings.side else mine  # the engine's, cubeless
        if multiple < expected:
            self.write(f"{self._who(other(self.settings.side))} declines: it expects more ({expected:.2f} "
                       "times the cube). Play on.")
            return
        game.resign(other(self.settings.side), multiple * game.cube.value, f"game {self.number}")
        self.write(f"You resign ({'single mars koks'.split()[multiple - 1]}).")


def _replay_event(game: Replay, event: Event, where: str) -> None:
    """Play a record's event on ``game`` again (an undo replays the others)."""
    if isinstance(event, Ply):
        game.play(event.roll, [(step.src, step.dst) for step in event.steps], event.text, where)
    elif isinstance(event, CubeAction):
        game.cube_action(event.side, event.action, where)
    elif isinstance(event, Resignation):
        game.resign(other(event.side), event.points, where)
