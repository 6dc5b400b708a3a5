"""The cube layer fed GNU Backgammon's own 0-ply outputs reproduces GNU Backgammon's 0-ply cubeful equities and
cube actions (the ``gnubg`` package from PyPI, the ``peers`` extra; skipped where it is absent), at money play
(centred, owned and redoubled cubes, with and without the Jacoby rule and beavers) and at 7-point match scores
(before, in and after the Crawford game), on positions of short nardy (backgammon without the cube) from
seeded random games. Each decision is made twice from GNU Backgammon's outputs: by the cube facts
(``cube_decision`` with GNU Backgammon's class and pip count) and by the positions' own ``cube_decision`` of
both implementations, whose evaluator answers GNU Backgammon's outputs (so the cube efficiency comes from the
package's own classes and pip counts, the sides and the score from the position). At 1 ply the package's
cubeful search, its leaves valued by GNU Backgammon's 0-ply outputs, reproduces GNU Backgammon's 1-ply cubeful
equities. GNU Backgammon is driven in a child process (tests/cube_gnubg_oracle.py) with a timeout.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any, Optional

import numpy as np
import pytest

import nardy_fast
from nardy_fast import Game
from nardy_fast.analysis import AnalysedPosition
from nardy_fast.cube import Cube, Match, cube_decision, cube_efficiency
from nardy_fast.layout import Rows

IMPLEMENTATIONS: list[type[AnalysedPosition]] = [nardy_fast.reference.Position, nardy_fast.Position]

pytest.importorskip("gnubg", reason="GNU Backgammon (the gnubg package, the peers extra) is absent")

ORACLE = Path(__file__).with_name("cube_gnubg_oracle.py")
#: GNU Backgammon prints 6 decimals and computes in single precision.
TOLERANCE = 5e-5
#: GNU Backgammon's classes (eval.h): the bear-off and hypergammon classes have exact cubeful values instead.
GNUBG_CLASSES = {6: "bearoff", 7: "bearoff", 8: "race", 9: "crashed", 10: "contact"}
MONEY = [("centred", 1, False, False), ("centred", 1, True, False), ("centred", 1, True, True),
         ("centred", 1, False, True), ("own", 2, False, False), ("own", 4, True, True)]
SCORES = [((0, 0), False, 1, "centred"), ((2, 4), False, 1, "centred"), ((4, 2), False, 2, "own"),
          ((5, 5), False, 1, "centred"), ((3, 6), True, 1, "centred"), ((3, 6), False, 1, "centred"),
          ((6, 3), False, 1, "centred"), ((1, 3), False, 2, "own"), ((0, 2), False, 4, "own")]


def gnubg_board(board: tuple[int, ...], bar: tuple[int, int], on_roll: str) -> list[list[int]]:
    """A short-nardy board as GNU Backgammon's ``(opponent, player)`` with ``on_roll`` as the player."""
    white = [*(max(count, 0) for count in board), bar[0]]
    black = [*(max(-count, 0) for count in reversed(board)), bar[1]]
    return [black, white] if on_roll == "white" else [white, black]


def positions(count: int, seed: int) -> list[tuple[list[list[int]], Rows]]:
    """Boards from seeded random games of short nardy, one in three turns, the side on roll's view, each with
    its packed row."""
    chooser = random.Random(seed)
    found: list[tuple[list[list[int]], Rows]] = []
    game_seed = seed
    while len(found) < count:
        game = Game("short", seed=game_seed)
        game_seed += 1
        turn = 0
        while not game.is_over() and len(found) < count:
            position = game.position
            if turn % 3 == 1:
                found.append((gnubg_board(position.board, position.bar, position.turn), position.to_array()))
            moves = game.legal_moves()
            game.play(moves[chooser.randrange(len(moves))])
            turn += 1
    return found


def oracle(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    done = subprocess.run([sys.executable, str(ORACLE)], input=json.dumps(cases), capture_output=True, text=True,
                          timeout=600, check=True)
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def pips(board: list[list[int]]) -> int:
    return sum((i + 1) * n for i, n in enumerate(board[1][:24])) + 25 * board[1][24]


class Answers:
    """An evaluator that answers GNU Backgammon's outputs for the one row it is made for."""

    def __init__(self, row: Rows, outputs: list[float]) -> None:
        self.row, self.outputs = row, np.array(outputs)

    def evaluate(self, rows: Rows) -> np.ndarray:
        assert (rows == self.row).all(), "the 0-ply decision evaluates the position itself, nothing else"
        return np.tile(self.outputs, (len(rows), 1))


def seen_by(row: Rows, cube: Cube, match: Match) -> tuple[Cube, Match]:
    """The case's cube and match (written with White as the side on roll) for the row's real side on roll."""
    if row[nardy_fast.layout.TURN] == 0:
        return cube, match
    owner = None if cube.owner is None else "black"
    score = match.score if match.length is None else match.score[::-1]
    return Cube(cube.value, owner), Match(match.length, score, match.crawford, match.jacoby, match.beavers)


def check(case: dict[str, Any], answer: dict[str, Any], cube: Cube, match: Match, row: Rows) -> bool:
    """Our decision against GNU Backgammon's; False when the position was not compared (an exact class)."""
    kind = GNUBG_CLASSES.get(answer["class"])
    if kind is None:
        return False
    x = cube_efficiency(kind, pips(case["board"]), 0)
    ours = cube_decision(answer["outputs"], x, cube=cube, match=match, side="white")
    real_cube, real_match = seen_by(row, cube, match)
    for Position in IMPLEMENTATIONS:
        found = Position.from_array(row).cube_decision(evaluator=Answers(row, answer["outputs"]), cube=real_cube,
                                                       match=real_match)
        assert np.abs(found.equities - ours.equities).max() < 1e-9, (case, answer, found, ours)
        assert found.action == ours.action, (case, answer, found, ours)
    names = {"No double": 0, "No redouble": 0, "Double, take": 1, "Redouble, take": 1, "Double, pass": 2,
             "Redouble, pass": 2}
    for name, value in answer["lines"].items():
        assert abs(ours.equities[names[name]] - value) < TOLERANCE, (case, answer, ours)
    if answer["action"] is None:
        # GNU Backgammon offers no cube analysis where the cube cannot be turned (the Crawford game)
        assert not match.may_double(cube, "white"), (case, answer)
        return True
    nd, dt, dp = ours.equities
    if min(abs(nd - dt), abs(nd - dp), abs(dt - dp), abs(2 * dt - nd)) > 1e-4:
        assert ours.action == answer["action"], (case, answer, ours)
    return True


@pytest.mark.slow
def test_money_decisions_match_gnubg() -> None:
    boards = positions(240, seed=43)
    cases: list[dict[str, Any]] = []
    for i, (board, _) in enumerate(boards):
        owner, value, jacoby, beavers = MONEY[i % len(MONEY)]
        cases.append({"board": board, "match": 0, "score": [0, 0], "crawford": False, "cube": value,
                      "owner": owner, "jacoby": jacoby, "beavers": beavers})
    answers = oracle(cases)
    assert len(answers) == len(cases)
    compared = 0
    for case, answer, (_, row) in zip(cases, answers, boards):
        side: Optional[str] = None if case["owner"] == "centred" else "white"
        match = Match(jacoby=case["jacoby"], beavers=case["beavers"])
        compared += check(case, answer, Cube(case["cube"], side), match, row)
    assert compared > 200
    actions = {answer["action"] for answer in answers}
    assert {"No double, take", "Double, take"} <= actions, actions


@pytest.mark.slow
def test_match_decisions_match_gnubg() -> None:
    boards = positions(225, seed=7)
    cases: list[dict[str, Any]] = []
    for i, (board, _) in enumerate(boards):
        score, crawford, value, owner = SCORES[i % len(SCORES)]
        cases.append({"board": board, "match": 7, "score": list(score), "crawford": crawford, "cube": value,
                      "owner": owner, "jacoby": False, "beavers": False})
    answers = oracle(cases)
    assert len(answers) == len(cases)
    compared = 0
    for case, answer, (_, row) in zip(cases, answers, boards):
        match = Match(7, tuple(case["score"]), crawford=case["crawford"])
        side: Optional[str] = None if case["owner"] == "centred" else "white"
        compared += check(case, answer, Cube(case["cube"], side), match, row)
    assert compared > 180
    assert len({answer["action"] for answer in answers}) >= 3


def test_gnubg_table_is_kazaross() -> None:
    """The oracle's match equities are the shipped table's: GNU Backgammon's default table is Kazaross-XG2."""
    gnubg = pytest.importorskip("gnubg")
    from nardy_fast.cube import match_equity_table

    table = match_equity_table("kazaross-xg2")
    gnubg.command(f"set matchequitytable {Path(gnubg.__file__).parent / 'data' / 'met' / 'Kazaross-XG2.xml'}")
    pre, post0, _ = gnubg.met(25)
    assert np.abs(np.array(pre) - table.pre).max() < 1e-6
    # GNU Backgammon recomputes the last post-Crawford entry (25-away) from its own recursion
    assert np.abs(np.array(post0)[:24] - table.post[:24]).max() < 1e-6


@pytest.mark.slow
def test_one_ply_search_matches_gnubg() -> None:
    """The 1-ply cubeful search, its leaves valued by GNU Backgammon's own 0-ply outputs (an evaluator that
    answers them), reproduces GNU Backgammon's 1-ply cubeful equities (its search with pruning off): the same
    rolls, the same move for each by cubeful value, the same decisions at the leaves and the same averages.
    Contact positions, whose children are no bear-offs (GNU Backgammon values those exactly)."""
    from nardy_fast.cubeful import ROLLS

    chosen = [(board, row) for board, row in positions(90, seed=99)
              if not nardy_fast.Position.from_array(row).is_race()][:12]
    kernels = nardy_fast.Position.kernels
    leaves = [row[None, :] for _, row in chosen]
    for _, row in chosen:
        children, _, _ = kernels.batch_children(np.tile(row, (len(ROLLS), 1)), ROLLS)
        leaves.append(np.asarray(children).copy())
    rows = np.unique(np.concatenate(leaves), axis=0)

    def board_of(r: Rows) -> list[list[int]]:
        p = nardy_fast.Position.from_array(r)
        return gnubg_board(p.board, p.bar, p.turn)

    answered = oracle([{"boards": [board_of(r) for r in rows]}])[0]["outputs"]
    table = {r.tobytes(): np.array(o) for r, o in zip(rows, answered)}

    class Gnu:
        def evaluate(self, given: Rows) -> np.ndarray:
            return np.stack([table[r.tobytes()] for r in given])

    scores = [(0, "money", (0, 0), False), (7, "match", (2, 4), False), (7, "match", (4, 2), False),
              (5, "match", (3, 4), False)]
    cases, expected = [], []
    for i, (board, row) in enumerate(chosen):
        length, _, score, crawford = scores[i % len(scores)]
        cases.append({"board": board, "match": length, "score": list(score), "crawford": crawford, "cube": 1,
                      "owner": "centred", "jacoby": False, "beavers": False, "plies": 1})
        match = Match(length, score, crawford) if length else Match()
        _, real_match = seen_by(row, Cube(), match)
        expected.append(real_match)
    answers = oracle(cases)
    names = {"No double": 0, "Double, take": 1, "Double, pass": 2}
    for (_, row), case, answer, match in zip(chosen, cases, answers, expected):
        for Position in IMPLEMENTATIONS:
            ours = Position.from_array(row).cube_decision(evaluator=Gnu(), plies=1, match=match)
            if any(abs(ours.equities[names[name]] - value) >= TOLERANCE for name, value in answer["lines"].items()):
                # GNU Backgammon asked again, alone: one CI run saw one answer 0.005 off that 20 runs here
                # did not repeat; a difference that stays is ours
                (answer,) = oracle([case])
            for name, value in answer["lines"].items():
                assert abs(ours.equities[names[name]] - value) < TOLERANCE, (case, answer, ours)
            if answer["action"] is not None:
                assert ours.action == answer["action"], (case, answer, ours)
