"""Exact money cubeful values of two-sided bear-offs (``bearoff.two_sided_cubeful``; docs/rules.md, The doubling
cube): small positions worked by hand, the two implementations' tables alike, the cube decisions of positions
reading them at money play (at 0 ply, in the batch and at the leaves of the search) and not in a match, and
GNU Backgammon's own values (the ``gnubg`` package, the ``peers`` extra; those tests skip where it is absent):
its two-sided database, and its cube decisions of a few hundred short-nardy bear-offs.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import nardy_fast
from nardy_fast import Cube, Match, bearoff
from nardy_fast.analysis import AnalysedPosition
from nardy_fast.bearoff import SEMANTICS
from nardy_fast.bearoff.semantics import ROLL_ORDER, ROLL_WEIGHTS
from nardy_fast.cube import cube_decision, cube_efficiency
from nardy_fast.cube.janowski import money_cubeful

IMPLEMENTATIONS: list[type[AnalysedPosition]] = [nardy_fast.reference.Position, nardy_fast.Position]
#: GNU Backgammon stores each equity in 16 bits (steps of 3e-5) and truncates each average to them.
GNUBG_TOLERANCE = 3e-4
#: In a match the efficiency found from them divides by the gap between the live and dead equities, which
#: magnifies those steps (up to 8e-4 seen in 500 lines).
GNUBG_MATCH_TOLERANCE = 1e-3


def bearoff_position(Position: type[AnalysedPosition], variant: str, white: list[int], black: list[int],
                     turn: str = "white") -> AnalysedPosition:
    """The bear-off of ``white`` and ``black`` (counts on each side's own points 1..6)."""
    board = [0] * 24
    board[:6] = white
    for point, count in enumerate(black, start=1):
        board[nardy_fast.board.mover_point(variant, point) - 1] = -count
    return Position.from_board(variant, board, turn=turn, off=(15 - sum(white), 15 - sum(black)),
                               first_roll=(False, False))


def batch_of(Position: type[AnalysedPosition]) -> Any:
    """The batch ``cube_decisions`` of ``Position``'s implementation."""
    return nardy_fast.implementations()[Position.kernels.name].IMPLEMENTATION_RECORD.cube_decisions


# --- worked by hand -------------------------------------------------------------------------------------------


def test_one_checker_on_the_ace_each_wins_outright() -> None:
    """The side on roll bears its last checker off with any roll: it wins 1 per unit of the cube wherever the
    cube is; it cashes (doubling is worth 2, the pass 1)."""
    for Position in IMPLEMENTATIONS:
        table = Position.kernels.two_sided_cubeful(SEMANTICS["long"], 1)
        assert table[:, 1, 1].tolist() == [1.0, 1.0, 1.0]
        found = bearoff_position(Position, "short", [1, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0]).cube_decision()
        assert found.equities.tolist() == [1.0, 2.0, 1.0]


def test_one_checker_on_the_six_point_each() -> None:
    """The side on roll (S) bears its checker off with 27 rolls of 36 (every roll but 2-1, 3-1, 4-1, 3-2 and
    1-1); the other 9 leave it on point 3 or lower, and the other side (T) then wins with 27 of 36, else S
    wins next roll. So T's no-double value is 27/36 - 9/36 = 0.5 and its double-take value 2 x 0.5 = 1, the
    pass also 1: with access to the cube T doubles and S's value after its miss is -1. Centred: S's
    no-double value is 27/36 - 9/36 = 0.5; S owning the cube (T cannot double): 27/36 - 9/36 x 0.5 = 0.625;
    T owning it: 0.5. S on roll with the cube centred: no double 0.5, double-take 2 x 0.5 = 1, pass 1."""
    for Position in IMPLEMENTATIONS:
        table = nardy_fast.implementations()[Position.kernels.name].two_sided_cubeful("short", checkers=1)
        assert table.equities([0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 1]) == pytest.approx([0.5, 0.625, 0.5], abs=1e-15)
        position = bearoff_position(Position, "short", [0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 1], turn="black")
        assert position.cube_decision().equities == pytest.approx([0.5, 1.0, 1.0], abs=1e-15)
        owned = position.cube_decision(cube=Cube(2, "black"))
        assert owned.equities == pytest.approx([0.625, 1.0, 1.0], abs=1e-15)
        assert owned.action == "Redouble, pass"


def test_values_keep_their_order_and_bounds() -> None:
    """Owning the cube is worth at least a centred cube, which is worth at least the opponent's; every value
    lies in [-1, 1] and a side with none left has won (1) or lost (-1)."""
    values = bearoff.two_sided_cubeful("short").values
    assert (values[1] >= values[0] - 1e-12).all() and (values[0] >= values[2] - 1e-12).all()
    assert (values[:, 0, :] == 1.0).all() and (values[:, 1:, 0] == -1.0).all()


# --- the implementations agree ----------------------------------------------------------------------------------


@pytest.mark.parametrize("key", list(SEMANTICS))
def test_implementations_build_the_same_tables(key: str) -> None:
    # 4 checkers a side in the full bear-off check (the reference takes about 15 s a table)
    checkers = 4 if os.environ.get("NARDY_FAST_FULL_BEAROFF") == "1" else 3
    semantics = SEMANTICS[key]
    reference = nardy_fast.reference.Position.kernels.two_sided_cubeful(semantics, checkers)
    core = nardy_fast.Position.kernels.two_sided_cubeful(semantics, checkers)
    n = bearoff.layouts(checkers)
    assert reference.shape == core.shape == (3, n, n)
    assert np.array_equal(reference, core)  # the same recurrence, terms added in the same order


def test_a_smaller_table_is_the_prefix_and_pickles_as_its_name() -> None:
    import pickle

    small = nardy_fast.core.two_sided_cubeful("short", checkers=2)
    large = nardy_fast.core.two_sided_cubeful("long", checkers=6)
    assert np.array_equal(small.values, large.values[:, :28, :28])
    assert pickle.loads(pickle.dumps(small)) is small
    with pytest.raises(nardy_fast.NardyError, match="x_counts"):
        small.equities([0, 0, 0, 0, 0, 3], [1, 0, 0, 0, 0, 0])


# --- the cube layer reads them at money play --------------------------------------------------------------------


def random_bearoffs(count: int, most: int, seed: int, variant: str = "short") -> list[tuple[list[int], list[int], str]]:
    chooser = random.Random(seed)

    def side() -> list[int]:
        counts = [0] * 6
        for _ in range(chooser.randint(1, most)):
            counts[chooser.randrange(6)] += 1
        return counts

    return [(side(), side(), chooser.choice(("white", "black"))) for _ in range(count)]


@pytest.mark.parametrize("variant", ["short", "long", "sixone", "gulbar", "crazy"])
def test_decisions_read_the_exact_values(variant: str) -> None:
    """At money play and 0 ply the no-double line is the table's value under the cube as it is and the
    double-take line twice the opponent-owned value; in the batch as one by one; in a match Janowski's match
    formula with the efficiency the exact money value implies (GNU Backgammon's rule). At 1 ply the search over exact leaves finds the exact no-double line again (its move for each
    roll is the one the table's recurrence picks for that cube), and a double-take line no better; in
    six-one and gulbar only because the search, as the table, offers no double before an extra roll."""
    cases = random_bearoffs(8, 3, seed=5, variant=variant)
    for Position in IMPLEMENTATIONS:
        rows = []
        for i, (white, black, turn) in enumerate(cases):
            position = bearoff_position(Position, variant, white, black, turn)
            rows.append(position.to_array())
            mover, other = (white, black) if turn == "white" else (black, white)
            table = nardy_fast.implementations()[Position.kernels.name].two_sided_cubeful(variant, checkers=3)
            centred, own, theirs = table.equities(mover, other)
            cube = Cube() if i % 2 else Cube(2, turn)
            found = position.cube_decision(cube=cube)
            assert found.no_double == (centred if i % 2 else own)
            assert found.double_take == 2.0 * theirs
            deeper = position.cube_decision(cube=cube, plies=1)
            assert deeper.no_double == pytest.approx(float(found.no_double), abs=1e-12)
            assert deeper.double_take <= found.double_take + 1e-12
            # in a match: the efficiency for which Janowski's money formula gives the exact value, within 0 and
            # the bear-off figure, in the match formula, the outputs the exact chance of winning
            match = Match(7, (2, 4))
            x = cube_efficiency("bearoff", 0, 0, variant)
            win = nardy_fast.implementations()[Position.kernels.name].two_sided(variant, checkers=3)
            outputs = np.array([win.win_probability(mover, other), 0.0, 0.0, 0.0, 0.0])
            dead = 2.0 * outputs[0] - 1.0
            lines = []
            for owner, exact in (("centred", centred), ("opponent", theirs)):
                live = float(money_cubeful(outputs, 1.0, owner))
                guess = min(max((exact - dead) / (live - dead), 0.0), x) if abs(live - dead) > 1e-4 else x
                lines.append(cube_decision(outputs, guess, match=match, side=turn, variant=variant))
            found = position.cube_decision(match=match)
            assert found.no_double == pytest.approx(float(lines[0].no_double), abs=1e-12)
            assert found.double_take == pytest.approx(float(lines[1].double_take), abs=1e-12)
            assert np.array_equal(found.outputs, outputs)
        one_by_one = np.array([Position.from_array(r).cube_decision().equities for r in rows])
        assert np.array_equal(batch_of(Position)(np.stack(rows)).equities, one_by_one)


@pytest.mark.slow
def test_no_double_before_an_extra_roll() -> None:
    """The 1-ply search of six-one and gulbar bear-offs of 7 checkers a side (no exact values: Janowski's at
    every leaf) is a brute force over the rolls in which a move earning an extra roll (six-one's 6-1,
    gulbar's full double) leaves the same side to roll with the cube as it was and no double offered (the
    turn goes on: docs/rules.md, Games with the cube); any other move leaves the opponent to roll, doubling
    where that pays (``leaf_value``)."""
    sys.path.insert(0, str(Path(__file__).parent))
    from test_cube_decision import flip, leaf_value, static

    cases = [("sixone", [1, 1, 1, 1, 1, 2], [2, 2, 1, 1, 1, 0]), ("gulbar", [2, 2, 1, 1, 1, 0], [0, 1, 1, 2, 1, 2])]
    for variant, white, black in cases:
        for Position in IMPLEMENTATIONS:
            position = bearoff_position(Position, variant, white, black)
            me = position.turn
            cube, match = Cube(), Match()
            doubled = Cube(2, "black")
            nd = dt = 0.0
            extra_rolls = 0
            for roll, weight in zip(ROLL_ORDER, ROLL_WEIGHTS):
                results: list[AnalysedPosition] = [m.result for m in position.legal_moves(roll)]  # type: ignore[misc]

                def value(child: AnalysedPosition, state: Cube) -> float:
                    if child.turn == me:  # an extra roll: no double
                        return float(static(child, state, match, 1).no_double)
                    return flip(leaf_value(child, state, match), match)

                mine = [value(child, cube) for child in results]
                best = results[int(np.argmax(mine))]
                extra_rolls += best.turn == me
                nd += weight * value(best, cube)
                dt += weight * value(best, doubled)
            assert extra_rolls >= 1
            found = position.cube_decision(plies=1)
            assert found.no_double == pytest.approx(nd / 36.0, abs=1e-9), variant
            assert found.double_take == pytest.approx(2.0 * dt / 36.0, abs=1e-9), variant


# --- GNU Backgammon's own values -------------------------------------------------------------------------------


def test_gnubg_database_holds_the_same_values() -> None:
    """GNU Backgammon's two-sided database (``gnubg_ts0.bd``: 6 points, 6 checkers, cubeful; each pair the
    side on roll's cubeless, owned, centred and opponent-owned equities in 16 bits, ids as ours) against the
    table of short nardy, every pair."""
    gnubg = pytest.importorskip("gnubg", reason="GNU Backgammon (the gnubg package, the peers extra) is absent")
    path = Path(gnubg.__file__).parent / "data" / "gnubg_ts0.bd"
    assert path.read_bytes()[:16] == b"gnubg-TS-06-06-1"
    stored = np.fromfile(path, dtype="<u2", offset=40).reshape(924, 924, 4) / 32767.5 - 1.0
    ours = bearoff.two_sided_cubeful("short").values
    win = bearoff.two_sided("short").win
    assert np.abs(stored[..., 0] - (2.0 * win - 1.0)).max() < GNUBG_TOLERANCE
    for plane, column in enumerate((2, 1, 3)):
        assert np.abs(stored[..., column] - ours[plane]).max() < GNUBG_TOLERANCE, plane


ORACLE = Path(__file__).with_name("cube_gnubg_oracle.py")
#: Money play, and 7-point matches before, in and after the Crawford game (scores: the side on roll's first).
MATCHES = [(0, (0, 0), False), (0, (0, 0), False), (7, (2, 4), False), (7, (4, 2), False), (7, (5, 6), True),
           (7, (3, 6), False), (5, (0, 0), False)]
NAMES = {"No double": 0, "No redouble": 0, "Double, take": 1, "Redouble, take": 1, "Double, pass": 2,
         "Redouble, pass": 2}


@pytest.mark.slow
def test_cube_decisions_match_gnubg() -> None:
    """GNU Backgammon's 0-ply cube analysis of 300 short-nardy bear-offs of 1 to 6 checkers a side (its
    exact classes), centred and owned cubes, at money play and at match scores, against ``cube_decision`` of
    the core (and of the reference where both sides have at most 3 checkers, its tables being slow to
    build)."""
    pytest.importorskip("gnubg", reason="GNU Backgammon (the gnubg package, the peers extra) is absent")
    sys.path.insert(0, str(Path(__file__).parent))
    from test_cube_gnubg import gnubg_board

    cases: list[dict[str, Any]] = []
    positions = []
    for i, (white, black, turn) in enumerate(random_bearoffs(300, 6, seed=43)):
        position = bearoff_position(nardy_fast.Position, "short", white, black, turn)
        owner, value = ("centred", 1) if i % 3 else ("own", 2 ** (1 + (i // 3) % 3))
        length, score, crawford = MATCHES[i % len(MATCHES)]
        if length and owner == "own":
            value = 2
        cases.append({"board": gnubg_board(position.board, position.bar, position.turn), "match": length,
                      "score": list(score), "crawford": crawford, "cube": value, "owner": owner,
                      "jacoby": bool(i % 2), "beavers": False})
        positions.append(position)
    done = subprocess.run([sys.executable, str(ORACLE)], input=json.dumps(cases), capture_output=True, text=True,
                          timeout=900, check=True, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    answers = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert len(answers) == len(cases)
    actions, compared = set(), 0
    for case, answer, position in zip(cases, answers, positions):
        assert 0 < answer["class"] < 6, answer  # an exact two-sided bear-off class of GNU Backgammon
        cube = Cube(case["cube"], None if case["owner"] == "centred" else position.turn)
        checked = [position]
        if min(position.off) >= 12:
            checked.append(nardy_fast.reference.Position.from_array(position.to_array()))
        for each in checked:
            if case["match"]:
                # the case's score is the player's (the side on roll) first
                score = tuple(case["score"]) if position.turn == "white" else tuple(case["score"][::-1])
                match = Match(case["match"], score, crawford=case["crawford"])
            else:
                match = Match(jacoby=case["jacoby"])
            ours = each.cube_decision(cube=cube, match=match)
            for name, value in answer["lines"].items():
                tolerance = GNUBG_MATCH_TOLERANCE if case["match"] else GNUBG_TOLERANCE
                assert abs(ours.equities[NAMES[name]] - value) < tolerance, (case, answer, ours)
                compared += 1
            nd, dt, dp = ours.equities
            if answer["action"] is not None and \
                    min(abs(nd - dt), abs(nd - dp), abs(dt - dp), abs(2 * dt - nd)) > 2 * GNUBG_MATCH_TOLERANCE:
                assert ours.action == answer["action"], (case, answer, ours)
        actions.add(answer["action"])
    assert {"No double, take", "Double, take", "Double, pass"} <= actions, actions
    assert compared >= 2.5 * len(cases), compared


@pytest.mark.slow
def test_one_ply_search_reads_them_as_gnubg() -> None:
    """GNU Backgammon's 1-ply cube analysis (pruning off) of short-nardy bear-offs of 7 or 8 checkers against
    at most 6, at money play: many of the positions each roll leads to are exact (GNU Backgammon's leaves
    of its two-sided class), the others valued from GNU Backgammon's own 0-ply outputs (an evaluator that
    answers them); the package's 1-ply search gives the same lines (the core's tables: the reference would
    build those of 6 checkers slowly, and its search is the same code over its kernels)."""
    pytest.importorskip("gnubg", reason="GNU Backgammon (the gnubg package, the peers extra) is absent")
    sys.path.insert(0, str(Path(__file__).parent))
    from test_cube_gnubg import gnubg_board, oracle

    from nardy_fast.cubeful import ROLLS

    chooser = random.Random(7)
    chosen = []
    for i in range(12):
        mover = [0] * 6
        for _ in range(chooser.randint(7, 8)):
            mover[chooser.randrange(6)] += 1
        other = [0] * 6
        for _ in range(chooser.randint(2, 6)):
            other[chooser.randrange(6)] += 1
        turn = ("white", "black")[i % 2]
        white, black = (mover, other) if turn == "white" else (other, mover)
        chosen.append(bearoff_position(nardy_fast.Position, "short", white, black, turn))
    kernels = nardy_fast.Position.kernels
    leaves = []
    for position in chosen:
        children, _, _ = kernels.batch_children(np.tile(position.to_array(), (len(ROLLS), 1)), ROLLS)
        leaves.append(np.asarray(children).copy())
    rows = np.unique(np.concatenate(leaves), axis=0)

    def board_of(row: np.ndarray) -> list[list[int]]:
        p = nardy_fast.Position.from_array(row)
        return gnubg_board(p.board, p.bar, p.turn)

    answered = oracle([{"boards": [board_of(r) for r in rows]}])[0]["outputs"]
    table = {r.tobytes(): np.array(o) for r, o in zip(rows, answered)}

    class Gnu:
        def evaluate(self, given: np.ndarray) -> np.ndarray:
            return np.stack([table[r.tobytes()] for r in given])

    cases: list[dict[str, Any]] = []
    for i, position in enumerate(chosen):
        owner, value = ("centred", 1) if i % 3 else ("own", 2)
        cases.append({"board": board_of(position.to_array()), "match": 0, "score": [0, 0], "crawford": False,
                      "cube": value, "owner": owner, "jacoby": False, "beavers": False, "plies": 1})
    answers = oracle(cases)
    assert len(answers) == len(cases)
    for case, answer, position in zip(cases, answers, chosen):
        assert answer["lines"], answer
        cube = Cube(case["cube"], None if case["owner"] == "centred" else position.turn)
        ours = position.cube_decision(evaluator=Gnu(), plies=1, cube=cube)
        for name, line in answer["lines"].items():
            assert abs(ours.equities[NAMES[name]] - line) < GNUBG_TOLERANCE, (case, answer, ours)
