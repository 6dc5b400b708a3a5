"""The single-agent environment's opponents come from the policy registry (nardy_fast.policies): a Greedy of a
built-in evaluator, an evaluator's name and a Python evaluator object play whole episodes, every move the
opponent plays is the first move of ``Position.hint`` with its evaluator and plies, a Python evaluator sees the
children of the opponent's legal moves and its errors reach the caller unchanged, and a bad opponent is a
NardyError naming ``opponent``."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

from ids import stable_repr

import nardy_fast  # noqa: E402
from nardy_fast import Greedy, NardyError, layout  # noqa: E402
from nardy_fast.analysis import AnalysedPosition  # noqa: E402
from nardy_fast.env import OPPONENTS, SingleAgentEnv  # noqa: E402
from nardy_fast.game import POLICIES  # noqa: E402


class Sigmoid:
    """A Python evaluator: the win probability a fixed random linear function of the packed row gives (other
    outputs 0), so that moves rarely tie; it records the rows it is shown."""

    def __init__(self) -> None:
        self.weights = np.random.default_rng(0).normal(size=layout.WIDTH) / 8
        self.calls: list[npt.NDArray[np.int8]] = []

    def evaluate(self, rows: npt.NDArray[np.int8]) -> npt.NDArray[np.float64]:
        self.calls.append(np.array(rows))
        out = np.zeros((len(rows), 5))
        out[:, 0] = 1 / (1 + np.exp(-(rows.astype(np.float64) @ self.weights)))
        return out


def play_episode(single: SingleAgentEnv, seed: int) -> tuple[float, bool]:
    """One episode, ``seat`` playing its first legal move: its total reward and whether it ended."""
    single.reset(seed=seed)
    total, done = 0.0, False
    while not done:
        _, reward, terminated, truncated, _ = single.step(0)
        total += reward
        done = terminated or truncated
    return total, done


def opponent_moves(single: SingleAgentEnv) -> list[tuple[nardy_fast.Move, Any]]:
    """The moves the opponent played in the episode just played, with the roll of each."""
    game = single.aec.game
    assert game is not None
    return [(move, roll) for roll, move in game.history if move.parent.turn != single.seat]


@pytest.mark.parametrize(
    ("variant", "opponent", "evaluator", "plies"),
    [
        ("long", Greedy("heuristic"), "heuristic", 0),
        ("sixone", Greedy("heuristic", plies=1), "heuristic", 1),
        ("short", "pubeval", "pubeval", 0),
        ("short", Greedy("heuristic"), "heuristic", 0),
        ("gulbar", "heuristic", "heuristic", 0),
    ],
    ids=lambda v: repr(v),
)
def test_a_greedy_opponent_plays_the_first_move_of_its_hint(
    variant: str, opponent: object, evaluator: str, plies: int
) -> None:
    for seat, seed in (("white", 3), ("black", 8)):
        single = SingleAgentEnv(variant, opponent=opponent, seat=seat)  # type: ignore[arg-type]
        reward, done = play_episode(single, seed)
        assert done and single.aec.game is not None and single.aec.game.is_over()
        assert abs(reward) == single.aec.game.points() > 0
        played = opponent_moves(single)
        assert played
        for move, roll in played:
            parent = move.parent
            assert isinstance(parent, AnalysedPosition)  # an implementation's, with the engine's methods
            best = parent.hint(roll, evaluator=evaluator, plies=plies)[0][0]
            assert move.result == best.result, (move.parent, roll, move, best)


def test_a_python_evaluator_object_is_an_opponent() -> None:
    evaluator = Sigmoid()
    for opponent, plies in ((evaluator, 0), (Greedy(evaluator, plies=1), 1)):
        single = SingleAgentEnv("short", opponent=opponent, seat="black")
        evaluator.calls.clear()
        _, done = play_episode(single, 5)
        assert done and evaluator.calls
        played = opponent_moves(single)
        assert played
        if plies == 0:
            # one call per opponent move, with the results of its legal moves in legal_moves order (a
            # finished game is valued by its outcome, never shown)
            expected = []
            for move, roll in played:
                live = [m.result.to_array() for m in move.parent.legal_moves(roll) if not m.result.is_over()]
                if live:
                    expected.append(np.stack(live))
            assert len(evaluator.calls) == len(expected)
            for shown, rows in zip(evaluator.calls, expected):
                assert np.array_equal(shown, rows)
        for move, roll in played:
            parent = move.parent
            assert isinstance(parent, AnalysedPosition)  # an implementation's, with the engine's methods
            best = parent.hint(roll, evaluator=evaluator, plies=plies)[0][0]
            assert move.result == best.result


def test_a_greedy_opponent_plays_as_in_a_duel() -> None:
    # the same registry chooses the moves of both: a duel of the heuristic against the first legal move,
    # game 0 of seed 2 (the heuristic as White), is the episode with the heuristic as the White opponent
    result = nardy_fast.duel("heuristic", "first", "long", 2, seed=2)
    single = SingleAgentEnv("long", opponent="heuristic", seat="black")
    reward, _ = play_episode(single, 2)
    assert -reward == result.points[0]


def test_the_random_opponent_is_the_random_policy() -> None:
    # unchanged: the choice of nardy_fast.dice for (seed, game number, ply)
    single = SingleAgentEnv("gulbar", opponent="random", seat="white")
    play_episode(single, 6)
    game = single.aec.game
    assert game is not None
    for ply, (roll, move) in enumerate(game.history):
        if move.parent.turn != "white":
            moves = move.parent.legal_moves(roll)
            assert moves[nardy_fast.dice.choice(6, 0, ply, len(moves))].result == move.result


def test_the_opponent_names_are_the_policies_and_the_evaluators() -> None:
    assert OPPONENTS == (*POLICIES, *nardy_fast.EVALUATORS)
    single = SingleAgentEnv("short", opponent="pubeval")
    assert single.opponent == "pubeval" and type(single.opponent) is str


class Broken:
    """An evaluator that fails."""

    def evaluate(self, rows: npt.NDArray[np.int8]) -> object:
        raise KeyError("the model is not loaded")


class Misshapen:
    """An evaluator that returns one value per row."""

    def evaluate(self, rows: npt.NDArray[np.int8]) -> object:
        return np.full(len(rows), 0.5)


@pytest.mark.parametrize(
    ("opponent", "variant", "problem"),
    [
        ("gnubg", "long", "must be one of"),
        ("Heuristic", "long", "must be one of"),
        (3, "long", "must be one of"),
        (np.array(["heuristic"]), "long", "must be one of"),
        (b"first", "long", "must be one of"),
        ("pubeval", "long", "evaluator 'pubeval' evaluates short nardy only, not long"),
        (Greedy("pubeval"), "gulbar", "evaluator 'pubeval' evaluates short nardy only, not gulbar"),
    ],
    ids=stable_repr,
)
def test_a_bad_opponent_is_named(opponent: object, variant: str, problem: str) -> None:
    with pytest.raises(NardyError, match=rf"^opponent: {problem}"):
        SingleAgentEnv(variant, opponent=opponent)  # type: ignore[arg-type]


def test_a_python_evaluators_errors_reach_the_caller() -> None:
    broken = SingleAgentEnv("long", opponent=Broken(), seat="black")
    with pytest.raises(KeyError, match="the model is not loaded"):
        for seed in range(10):  # a seed where White (the opponent) starts
            broken.reset(seed=seed)
    misshapen = SingleAgentEnv("long", opponent=Misshapen(), seat="black")
    with pytest.raises(NardyError, match=r"^evaluator: must be an array of shape \(\d+, 5\)"):
        for seed in range(10):
            misshapen.reset(seed=seed)
    with pytest.raises(NardyError, match=r"^plies: "):
        SingleAgentEnv("long", opponent=Greedy("heuristic", plies=3))
