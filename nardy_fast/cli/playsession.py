"""The session of ``nardy-fast play`` (docs/rules.md, Playing against the engine): a game or match between a
person and the built-in player, as a state machine over two callables, ``read(prompt) -> line`` (``EOFError``
at the end of input) and ``write(text)``, so that it runs the same in a terminal and in a test.

Each game is a :class:`~nardy_fast.records.Replay`, the record's own replay of rolls given from outside: so the
dice may be the seeded ones (the same stream as ``nardy_fast.Game(variant, seed=S, game=n - 1)``'s) or typed
at a real table, a resignation is an event like any other, and :meth:`Session.record` is the match record at
any moment, the game under way included.
"""

from __future__ import annotations

import re
from typing import Optional

from .. import Position
from ..analysis import AnalysedPosition
from ..dice import roll as seeded_roll
from ..errors import NardyError
from ..position import Move
from ..records import MatchRecord, Ply, Replay, next_match, score_after
from ..turns import who_starts
from .hint import hint_report
from .playbase import HELP, Prompts, QuitError, Settings, board_text

__all__ = ["Settings", "Session", "HELP", "board_text"]

#: A roll typed at the dice prompt: ``3-1``, ``31``, ``3 1``.
_DICE = re.compile(r"\s*([1-6])\s*[-, ]?\s*([1-6])\s*")
#: Moves shown by ``hint``: the best of a long nardy roll run to hundreds.
_HINT_TOP = 10


class Session(Prompts):
    """A match (or session of games) between a person, playing ``settings.side``, and the built-in player
    (:class:`~nardy_fast.policies.Greedy`: the best move of its hint at ``settings.plies``, its Janowski cube
    decisions). :meth:`run` plays until the match ends or the person stops; :meth:`record` is the match
    record so far."""


    def record(self) -> MatchRecord:
        """The match record so far: the games finished, and the one under way as far as it went."""
        games = list(self.finished)
        game = self.replay
        if game is not None and game.offered is not None:
            game = self._replayed(game.events[:-1])  # a file cannot end on a double unanswered: left out
        if game is not None and game.events and len(games) < self.number:
            games.append(game.record(self.number, self.score, self.match))
        s = self.settings
        return MatchRecord(self.players, s.length, tuple(games), s.variant, cube=s.cubeful,
                           jacoby=s.jacoby, beavers=s.beavers)

    def run(self) -> MatchRecord:
        """Play until the match is won, the person declines another game, types ``quit`` or input ends."""
        try:
            self._match()
        except (QuitError, EOFError):
            self.write("Stopped.")
        return self.record()

    def _match(self) -> None:
        s = self.settings
        while True:
            self._game()
            game = self.replay
            assert game is not None
            winner, points = game.winner(), game.raw_points()
            assert winner is not None
            self.finished.append(game.record(self.number, self.score, self.match))
            self.score = score_after(self.score, winner, points, s.length)
            self.write(f"{self._who(winner)} wins {points} point{'s' if points != 1 else ''}. {self._score()}")
            if self.match is not None and not self.match.money:
                self.match = next_match(self.match, winner, points, True)
                if self.match is None:
                    self.write(f"{self._who(winner)} wins the match.")
                    return
                continue
            if self._ask("Another game? (yes/no, Enter: yes)", ("", "yes", "y", "no", "n")) in ("no", "n"):
                return

    def _game(self) -> None:
        s = self.settings
        self.number += 1
        self.rolls = 0
        start = Position.start(s.variant)
        crawford = " (the Crawford game: no doubling)" if self.match is not None and self.match.crawford else ""
        self.write(f"\nGame {self.number}{crawford}. {self._score()}")
        if s.manual:
            starter = {"w": "white", "b": "black"}[self._ask("Who starts, white or black?", ("w", "b"), 1)]
            self.roll = None
        else:
            white, black = who_starts(s.seed, self.number - 1)
            starter = "white" if white > black else "black"
            self.roll = (max(white, black), min(white, black)) if s.opening == "use_single_dice" else None
        self.replay = Replay(type(start)(start.state._replace(turn=starter)), self.match)
        self.write(f"{self._who(starter)} starts.")
        while not self.replay.is_over():
            self._turn()

    def _turn(self) -> None:
        game = self.replay
        assert game is not None
        position = self.position
        side = position.turn
        human = side == self.settings.side
        if position.pending:
            roll: Optional[tuple[int, int]] = None
        else:
            if self.roll is None:
                if game.may_double() and (self._human_cube() if human else self._engine_cube()):
                    return  # a double: answered (the turn goes on) or passed (the game is over)
                if game.is_over():
                    return  # resigned at the cube prompt
                self.roll = self._throw(side)
            roll = self.roll
        moves = position.legal_moves(roll)
        dice = "pending " + ",".join(map(str, position.pending)) if roll is None else f"{roll[0]}-{roll[1]}"
        if not human:
            move = position.hint(roll, evaluator=self.settings.evaluator, plies=self.settings.plies)[0][0]
            self._play(roll, move)
            self.write(f"{self._who(side)} {'rolls ' if roll else 'plays '}{dice}: {str(move) or 'pass'}")
            return
        if self.drawn != position.to_text():  # not drawn again right after the cube prompt drew it
            self.write(f"\n{self._status()}\n{board_text(position, side)}")
        self.drawn = ""
        if len(moves) == 1:
            self._play(roll, moves[0])
            self.write(f"You {'roll ' if roll else 'play '}{dice}: {str(moves[0]) or 'pass'} (the only move)")
            return
        chosen = self._human_move(position, roll, moves, dice)
        if chosen is None:
            return  # resigned
        self._play(roll, chosen)
        if not game.is_over() and self._confirm():
            self._undo()

    def _play(self, roll: Optional[tuple[int, int]], move: Move) -> None:
        game = self.replay
        assert game is not None
        game.play(roll, [(step.src, step.dst) for step in move.steps], str(move) or "pass", f"game {self.number}")
        self.roll = None

    def _throw(self, side: str) -> tuple[int, int]:
        """The roll of ``side``: the seeded stream's next, or typed at the dice prompt."""
        if not self.settings.manual:
            thrown = seeded_roll(self.settings.seed, self.number - 1, self.rolls)
            self.rolls += 1
            return thrown
        while True:
            line = self._line(f"Dice of {self._who(side)} (as 3-1)")
            found = _DICE.fullmatch(line)
            if found:
                return int(found[1]), int(found[2])
            if line.lower() in ("quit", "help", "board"):  # not resign: a turn under way needs its roll
                self._command(line.lower())
                continue
            self.write(f"Not a roll: {line!r}. Type two dice 1-6, as 3-1.")

    def _human_move(self, position: AnalysedPosition, roll: Optional[tuple[int, int]], moves: list[Move],
                    dice: str) -> Optional[Move]:
        shown = moves  # the list a number picks from: the legal moves, or the hint's ranking once shown
        while True:
            line = self._line(f"Your move ({dice})")
            word = line.lower()
            if word in ("?", "list"):
                shown = moves
                self.write("\n".join(f"{i:>4}. {str(m) or 'pass'}" for i, m in enumerate(moves, 1)))
            elif word.isascii() and word.isdigit() and len(word) < 7:
                if 1 <= int(word) <= len(shown):
                    return shown[int(word) - 1]
                self.write(f"No move numbered {word}: the list runs 1 to {len(shown)}.")
            elif word == "hint":
                ranked = position.hint(roll, evaluator=self.settings.evaluator, plies=self.settings.plies)
                shown = [move for move, _ in ranked]
                self.write("\n".join(hint_report([(str(m) or "pass", e) for m, e in ranked], _HINT_TOP)))
                self.write("(a number now picks the move of that rank)")
            elif word == "undo":
                self.write("Nothing to undo: a move is taken back at the prompt after it, before the next roll.")
            elif word in ("double", "take", "beaver"):
                self.write(f"No {word} now: you have rolled and play a move.")
            elif not self._command(word) and word:
                try:
                    reached = position.play(line, roll)
                except (NardyError, ValueError) as error:
                    self.write(f"Not a legal move for {dice}: {error}. Type ? for the list, help for commands.")
                    continue
                found = [m for m in moves if m.result == reached]
                if found:
                    return found[0]
            if self.replay is not None and self.replay.is_over():
                return None

    def _confirm(self) -> bool:
        """After the person's move: Enter ends the turn, ``undo`` takes the move back (True)."""
        while True:
            word = self._line("Enter ends your turn; undo takes the move back").lower()
            if word in ("", "ok", "done"):
                return False
            if word == "undo":
                return True
            if word not in ("quit", "help", "board"):
                self.write(f"Not now: {word!r}. Enter ends your turn, undo takes the move back.")
                continue
            self._command(word)

    def _undo(self) -> None:
        """Take back the last ply: the game replayed without it, its roll to play again."""
        game = self.replay
        assert game is not None
        last = game.events[-1]
        assert isinstance(last, Ply)
        self.replay = self._replayed(game.events[:-1])
        self.roll = last.roll
        self.write("Move taken back.")
