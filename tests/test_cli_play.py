"""``nardy-fast play``: the session driven by scripted input (its prompts, commands, undo, the cube, the match
record it leaves), its command-line checks, and the program itself through a pseudo-terminal."""

from __future__ import annotations

import io
import os
import re
import select
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Optional

import numpy as np
import pytest

import nardy_fast
from nardy_fast import Cube, Game, read_match, write_match
from nardy_fast.analysis import AnalysedPosition
from nardy_fast.cli import main
from nardy_fast.cli.playsession import Session, Settings, board_text
from nardy_fast.cube.players import BEAVER, TAKE
from nardy_fast.records import CubeAction, MatchRecord, Resignation

#: The longest wait for the program's next prompt: far beyond its speed, a guard against a hang, not a measure.
WAIT = 60.0


def drive(lines: Sequence[str], engine: object = None, **settings: object) -> tuple[MatchRecord, str, Session]:
    """A session fed ``lines`` (then the end of input), its record, all it wrote (prompts included)."""
    feed = iter(lines)
    out: list[str] = []

    def read(prompt: str) -> str:
        out.append(prompt)
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None

    session = Session(Settings(**settings), read, out.append)  # type: ignore[arg-type]
    if engine is not None:
        session.engine = engine  # type: ignore[assignment]
    return session.run(), "\n".join(out), session


def round_trip(record: MatchRecord) -> MatchRecord:
    """``record`` written as .mat and read back."""
    text = io.StringIO()
    write_match(record, text)
    return read_match(text.getvalue().encode())


def starter(variant: str, seed: int, opening: str = "fresh_roll") -> str:
    """Who starts game 1 of ``seed``: the package's own seeded ``Game`` says."""
    return Game(variant, seed=seed, opening=opening).start.turn


class StubEngine:
    """An engine whose cube actions are fixed: it doubles whenever it may (or never), and answers ``answer``."""

    def __init__(self, doubles: bool, answer: int = TAKE) -> None:
        self.double, self.answer = doubles, answer

    def doubles(self, kernels: object, rows: np.ndarray, states: object) -> np.ndarray:
        return np.full(len(rows), self.double)

    def responses(self, kernels: object, rows: np.ndarray, states: object) -> np.ndarray:
        return np.full(len(rows), self.answer)


def test_seeded_dice_are_the_games_stream_and_a_number_picks_from_the_list() -> None:
    record, _, _ = drive(["1", ""] * 6, variant="long", seed=11, side="black")
    (game,) = record.games
    assert game.winner is None and len(game.plies) >= 6
    replay = Game("long", seed=11)  # the same seed's game: the same starter and the same rolls
    assert game.start == replay.start.to_text()
    positions = game.positions()
    for index, ply in enumerate(game.plies):
        assert ply.roll == replay.roll
        if ply.side == "black":  # the person's: the first of the numbered list
            assert ply.text == (str(positions[index].legal_moves(ply.roll)[0]) or "pass")
        replay.play(ply.text)
    assert round_trip(record) == record


def test_typed_move_hint_pick_and_undo() -> None:
    side = starter("short", 3)
    first = Game("short", seed=3)
    position = first.position
    assert isinstance(position, AnalysedPosition)
    moves = position.legal_moves(first.roll)
    best = str(position.hint(first.roll)[0][0])
    typed = str(moves[-1])
    assert len(moves) > 1 and best != typed
    # after a hint a number is the rank: 1 plays the best move
    record, out, _ = drive(["hint", "1", ""], variant="short", seed=3, side=side)
    assert "rank" in out and record.games[0].plies[0].text == best
    # the best, taken back before the next roll; then a typed move
    record, out, _ = drive(["hint", "1", "undo", typed, ""], variant="short", seed=3, side=side)
    assert "Move taken back." in out
    plies = record.games[0].plies
    assert plies[0].side == side and plies[0].roll == first.roll and plies[0].text == typed
    first.play(typed)  # the undo drew no roll: the other side's roll is the stream's next
    assert plies[1].roll == first.roll


def test_bad_input_reprompts_with_a_message() -> None:
    side = starter("long", 5)
    lines = ["xyzzy", "24/1", "99", "double", "undo", "resign koks", "resign a lot", "", "1", "what", ""]
    record, out, _ = drive(lines, variant="long", seed=5, side=side)
    for message in ("Not a legal move for", "No move numbered 99", "No double now", "Nothing to undo",
                    "Resign as one of single, mars (got 'koks')", "Not now: 'what'"):
        assert message in out
    assert "Traceback" not in out
    game = Game("long", seed=5)
    assert record.games[0].plies[0].text == str(game.position.legal_moves(game.roll)[0])


def test_manual_dice_prompt_reprompts_and_quits() -> None:
    record, out, _ = drive(["x", "w", "7-1", "31", "quit"], variant="long", manual=True)
    assert "Not an answer: 'x'" in out and "Not a roll: '7-1'" in out and "Not a roll: 'quit'" not in out
    # long nardy's first roll from the head is forced: played at once; quit at the other side's dice
    assert out.endswith("Stopped.") and [ply.roll for ply in record.games[0].plies] == [(3, 1)]


def test_resignation_ends_the_game_and_is_recorded() -> None:
    side = starter("short", 3)
    # after a move (a .mat file names the side that started by its first move)
    record, out, _ = drive(["1", "", "resign koks", "no"], variant="short", seed=3, side=side)
    (game,) = record.games
    other = "black" if side == "white" else "white"
    assert game.events[-1] == Resignation(side, 3) and (game.winner, game.points) == (other, 3)
    assert "wins 3 points" in out
    assert round_trip(record) == record


def test_match_pass_then_crawford_game() -> None:
    # White starts with 3-1; Black (the engine) doubles at its first turn start and White passes: 0-1 in a
    # 2-point match, so the next game is the Crawford game, where nobody is asked about the cube
    lines = ["w", "3-1", "1", "", "pass", "b", "6-5", "4-2", "quit"]
    record, out, _ = drive(lines, StubEngine(True), variant="short", length=2, manual=True)
    first, second = record.games
    assert first.events[-2:] == (CubeAction("black", "double"), CubeAction("white", "drop"))
    assert (first.winner, first.points, second.score) == ("black", 1, (0, 1))
    assert second.crawford and "Crawford game" in out and out.count("doubles to") == 1
    assert [ply.roll for ply in second.plies] == [(6, 5)]  # 4-2 thrown, not yet played when quit
    assert round_trip(record) == record


def test_double_and_beaver_at_money_play() -> None:
    lines = ["w", "3-1", "1", "", "5-2", "hint", "double", "6-6", "quit"]
    record, out, session = drive(lines, StubEngine(False, BEAVER), variant="short", cube=True, beavers=True,
                                 manual=True)
    assert "on roll: " in out and "takes and beavers" in out
    assert record.games[0].cube_actions == (CubeAction("white", "double"), CubeAction("black", "beaver"))
    assert session.replay is not None and session.replay.cube == Cube(4, "black")
    assert round_trip(record) == record


def test_quit_at_an_unanswered_double_leaves_it_out() -> None:
    lines = ["w", "3-1", "1", "", "5-2"]  # the input ends as the engine's double awaits its answer
    record, out, _ = drive(lines, StubEngine(True), variant="short", length=3, manual=True)
    assert "take or pass" in out
    (game,) = record.games
    assert game.winner is None and game.cube_actions == () and len(game.plies) == 1
    assert round_trip(record) == record


def test_board_for_black_is_numbered_as_black_counts() -> None:
    # docs/rules.md: in the long family Black's 1 is White's 13, its 24 White's 12; in short nardy 25 - n
    long_lines = board_text(nardy_fast.Position.start("long"), "black").splitlines()
    assert long_lines[2].split() == "1 2 3 4 5 6 | 7 8 9 10 11 12".split()
    assert long_lines[5].split() == "24 23 22 21 20 19 | 18 17 16 15 14 13".split()
    short_lines = board_text(nardy_fast.Position.start("short"), "black").splitlines()
    assert short_lines[2].split() == "12 11 10 9 8 7 | 6 5 4 3 2 1".split()


@pytest.mark.parametrize(
    ("argv", "field"),
    [
        (["--match", "0"], "--match"),
        (["--beavers"], "--beavers"),
        (["--match", "3", "--cube"], "--cube"),
        (["--evaluator", "pubeval"], "--evaluator"),
        (["--variant", "backgammon"], "--variant"),
        (["--out", "/nonexistent-dir/x.mat"], "--out"),
        (["--dice", "loaded"], "--dice"),
    ],
)
def test_bad_arguments_name_the_option(argv: list[str], field: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", *argv]) == 2
    err = capsys.readouterr().err
    assert field in err and "Traceback" not in err


def _command(out: Path, *options: str) -> list[str]:
    return [sys.executable, "-m", "nardy_fast", "play", "--out", str(out), *options]


def test_end_of_input_writes_the_record(tmp_path: Path) -> None:
    out = tmp_path / "piped.mat"
    side = starter("long", 5)
    done = subprocess.run(_command(out, "--seed", "5", "--side", side), input="1\n\n", capture_output=True,
                          text=True, timeout=WAIT)
    assert done.returncode == 0, done.stderr
    assert f"Match record written to {out}" in done.stdout
    game = read_match(out).games[0]
    assert game.winner is None and game.plies[0].side == side


class Terminal:
    """The program run on a pseudo-terminal: what it printed, and keys typed to it."""

    def __init__(self, argv: list[str]) -> None:
        pid, fd = os.forkpty()
        if pid == 0:  # the child: the program, the terminal its own
            try:
                os.execv(argv[0], argv)
            finally:
                os._exit(127)
        self.pid, self.fd, self.seen = pid, fd, ""

    def expect(self, pattern: str, wait: float = WAIT) -> re.Match[str]:
        """Read until ``pattern`` appears after what was matched before (within ``wait`` seconds); its match."""
        deadline = time.monotonic() + wait
        while True:
            found = re.search(pattern, self.seen)
            if found:
                self.seen = self.seen[found.end():]
                return found
            ready, _, _ = select.select([self.fd], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                raise AssertionError(f"no {pattern!r} in the program's output: {self.seen[-2000:]!r}")
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:  # the program ended (EIO)
                chunk = b""
            if not chunk:
                raise AssertionError(f"the program ended before {pattern!r}: {self.seen[-2000:]!r}")
            self.seen += chunk.decode("utf-8", "replace").replace("\r\n", "\n")

    def type(self, text: str) -> None:
        os.write(self.fd, text.encode())

    def status(self) -> Optional[int]:
        """The program's exit status once it ends (the rest of its output read meanwhile)."""
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            with_pid, status = os.waitpid(self.pid, os.WNOHANG)
            if with_pid:
                os.close(self.fd)
                return os.waitstatus_to_exitcode(status)
            ready, _, _ = select.select([self.fd], [], [], 0.2)
            if ready:
                try:
                    self.seen += os.read(self.fd, 65536).decode("utf-8", "replace").replace("\r\n", "\n")
                except OSError:
                    pass
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        os.close(self.fd)
        return None


def _listed(terminal: Terminal) -> list[str]:
    """The numbered list of moves up to the next prompt."""
    block = terminal.expect(r"((?:\s*\d+\. [^\n]+\n)+)")[1]
    return [line.split(". ", 1)[1].strip() for line in block.strip().splitlines()]


@pytest.mark.skipif(not hasattr(os, "forkpty"), reason="needs a pseudo-terminal")
def test_a_game_through_a_terminal(tmp_path: Path) -> None:
    out = tmp_path / "game.mat"
    side = starter("short", 3)
    terminal = Terminal(_command(out, "--variant", "short", "--seed", "3", "--side", side, "--opening", "fresh_roll"))
    roll = terminal.expect(r"Your move \((\d)-(\d)\)> ")
    terminal.type("?\n")
    listed = _listed(terminal)
    terminal.expect(r"Your move \(")
    terminal.type("hint\n")
    terminal.expect(r"rank +move")
    terminal.expect(r"Your move \(\d-\d\)> ")
    terminal.type("1\n")  # the hint's best
    terminal.expect(r"undo takes the move back> ")
    terminal.type("undo\n")
    terminal.expect(r"Move taken back\.")
    terminal.expect(r"Your move \(\d-\d\)> ")
    terminal.type("garbage\n")
    terminal.expect(r"Not a legal move for")
    terminal.expect(r"Your move \(\d-\d\)> ")
    terminal.type(f"{listed[-1]}\n")
    terminal.expect(r"undo takes the move back> ")
    terminal.type("\n")
    terminal.expect(r"> ")  # the next prompt, after the engine's reply
    terminal.type("quit\n")
    terminal.expect(r"Match record written to")
    assert terminal.status() == 0
    (game,) = read_match(out).games
    mine = [ply for ply in game.plies if ply.side == side]
    assert mine[0].text == listed[-1] and mine[0].roll == (int(roll[1]), int(roll[2]))
    assert "Traceback" not in terminal.seen


@pytest.mark.skipif(not hasattr(os, "forkpty"), reason="needs a pseudo-terminal")
def test_ctrl_c_writes_the_game_so_far(tmp_path: Path) -> None:
    out = tmp_path / "stopped.mat"
    side = "black" if starter("long", 5) == "white" else "white"  # the engine moves first
    terminal = Terminal(_command(out, "--seed", "5", "--side", side))
    terminal.expect(r"Your move \(\d-\d\)> ")
    # Ctrl-C: the terminal interrupts the program. A signal that comes after input() printed its prompt but
    # before it blocks in read() is only seen once read() returns (CPython's input() cannot close that gap),
    # so, as a person would, press it again until the program answers.
    for _ in range(int(WAIT // 5)):
        terminal.type("\x03")
        try:
            terminal.expect(r"Match record written to", wait=5.0)
            break
        except AssertionError:
            continue
    else:
        raise AssertionError(f"Ctrl-C did not stop the program: {terminal.seen[-2000:]!r}")
    assert terminal.status() == 130
    (game,) = read_match(out).games
    assert game.winner is None and game.plies and game.plies[0].side != side
