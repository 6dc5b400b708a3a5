"""The compiled core's loop of cubeful games (src_pyx/cubegames.pxi, cubeplay.pxi) against the one Python loop
(nardy_fast.cubeloop.play_cubeful) over the same kernels: the same duels, matches and cubeful rollouts, trial by
trial, for every strategy, at money play with its options and at match scores; players the core cannot play
go to the Python loop; the core's entry refuses what it is not given right (docs/rules.md, The doubling cube;
Match play)."""

from __future__ import annotations

import dataclasses
import importlib
import random
import warnings
from typing import Any

import numpy as np
import pytest

import nardy_fast
from nardy_fast import Cube, Greedy, Match, NardyError
from nardy_fast.cube.met import default_table
from nardy_fast.cubeloop import kernel_seats
from nardy_fast.cuberollouts import cube_roll_out
from nardy_fast.kernels import PlayoutArgs
from nardy_fast.rollouts import rollout_options

duel_module = importlib.import_module("nardy_fast.duel")

pytestmark = pytest.mark.skipif(nardy_fast.Position.kernels.cube_games is None, reason="the core is not built")

CORE = nardy_fast.Position.kernels
#: The same kernels without their cubeful loop: every cubeful game goes through the Python loop.
PYTHON = dataclasses.replace(CORE, cube_games=None)

SESSIONS: list[dict[str, Any]] = [
    {"cube": True},
    {"match": Match(jacoby=True, beavers=True)},
    {"match": 5},
    {"match": Match(7, (2, 4))},
    {"match": Match(5, (3, 4), crawford=True)},
]
PAIRS = [
    (Greedy(), Greedy(cube="money")),
    (Greedy(cube="threshold"), "random"),
    (Greedy("heuristic", cube="never"), Greedy()),
    ("first", Greedy(cube="threshold")),
]


@pytest.mark.parametrize("variant", nardy_fast.VARIANTS)
def test_duels_are_the_python_loops(variant: str) -> None:
    for i, session in enumerate(SESSIONS):
        a, b = PAIRS[i % len(PAIRS)]
        games = 2 if variant == "crazy" else 40
        ours = duel_module.duel(CORE, a, b, variant, games, seed=7 + i, **session)
        theirs = duel_module.duel(PYTHON, a, b, variant, games, seed=7 + i, **session)
        assert np.array_equal(ours.results, theirs.results), (variant, session, a, b)


def test_a_searching_player_and_threads() -> None:
    a, b = Greedy(plies=1), Greedy()
    for session in ({"cube": True}, {"match": 3}):
        ours = duel_module.duel(CORE, a, b, "long", 8, seed=2, **session)
        assert np.array_equal(ours.results, duel_module.duel(PYTHON, a, b, "long", 8, seed=2, **session).results)
    many = duel_module.duel(CORE, Greedy(), Greedy(cube="threshold"), "short", 200, seed=4, cube=True, threads=2,
                            batch=30)
    one = duel_module.duel(CORE, Greedy(), Greedy(cube="threshold"), "short", 200, seed=4, cube=True)
    assert np.array_equal(many.results, one.results)


def _positions(variant: str) -> list[Any]:
    chooser = random.Random(3)
    game = nardy_fast.Game(variant, seed=11)
    found: list[Any] = []
    while not game.is_over() and len(found) < 3:
        game.play(chooser.choice(game.legal_moves()))
        if game.plies % 17 == 16 and not game.position.pending:
            found.append(game.position)
    return found


@pytest.mark.parametrize("variant", ["short", "long", "sixone", "gulbar"])
def test_cubeful_rollouts_are_the_python_loops(variant: str) -> None:
    warnings.simplefilter("ignore")  # small unbalanced stratified counts
    for k, position in enumerate(_positions(variant)):
        other = "white" if position.turn == "black" else "black"
        for cube, match in ((Cube(), Match()), (Cube(2, position.turn), Match(jacoby=True)),
                            (Cube(), Match(7, (2, 4))), (Cube(2, other), Match(5, (1, 0)))):
            options = rollout_options(policy=Greedy(cube=("janowski", "threshold")[k % 2]), batch=20)
            ours = cube_roll_out(CORE, position, 36, 5, options, cube, match)
            theirs = cube_roll_out(PYTHON, position, 36, 5, options, cube, match)
            assert np.array_equal(ours.no_double_trials, theirs.no_double_trials), (variant, cube, match)
            assert (ours.double_take_trials is None) == (theirs.double_take_trials is None)
            if ours.double_take_trials is not None and theirs.double_take_trials is not None:
                assert np.array_equal(ours.double_take_trials, theirs.double_take_trials)
            assert ours.outputs == theirs.outputs


class OwnCube(Greedy):
    """A greedy player with cube actions of its own: the core cannot play it."""

    def doubles(self, kernels, rows, states):  # type: ignore[no-untyped-def]
        return np.ones(len(rows), dtype=bool)


def _args(variant: str = "short") -> PlayoutArgs:
    from nardy_fast.playouts import PlayoutOptions, check_playout

    return check_playout(variant, 4, 1, PlayoutOptions())


def test_which_players_the_core_plays() -> None:
    args = _args()
    assert kernel_seats(CORE, args, (Greedy(), nardy_fast.policies.resolve_policy("random", "b"))) is not None
    assert kernel_seats(CORE, args, (Greedy(), OwnCube())) is None
    assert kernel_seats(PYTHON, args, (Greedy(), Greedy())) is None
    # the player of its own still plays, in the Python loop: it doubles at once and the greedy player answers
    found = nardy_fast.duel(OwnCube(), Greedy(), "short", 4, seed=1, cube=True)
    assert found.games == 4


def _cube_args(**changes: Any) -> Any:
    from nardy_fast.cubeargs import CubeArgs

    table = default_table("short")
    n = 4
    base = CubeArgs(np.arange(n, dtype=np.int64), np.zeros(n, dtype=bool), np.ones(n, dtype=np.int64),
                    np.full(n, -1, dtype=np.int8), np.zeros(n, dtype=bool), 0, (0, 0), False, False, False, False, 1,
                    (3, 3), table.pre, table.post, np.full((len(nardy_fast.VARIANTS), 6), 0.5))
    return base._replace(**changes)


@pytest.mark.parametrize(("changes", "field"), [
    ({"strategies": (0, 3)}, "strategies"),  # janowski needs a seat with an evaluator; "first" has none
    ({"strategies": (9, 3)}, "strategies"),
    ({"pre": np.zeros((40, 40)), "post": np.zeros(40)}, "table"),
    ({"pre": np.zeros((25, 24))}, "table"),
    ({"length": 30}, "match"),
    ({"length": 5, "score": (5, 0)}, "match"),
    ({"score": (1, 0)}, "match"),
    ({"values": np.array([1, 3, 1, 1])}, "cube"),
    ({"owners": np.array([-1, 2, 0, 1], dtype=np.int8)}, "cube"),
    ({"numbers": np.array([0, -1, 2, 3])}, "numbers"),
    ({"swap": np.zeros(3, dtype=bool)}, "cube"),
    ({"efficiencies": np.full((len(nardy_fast.VARIANTS), 6), 2.0)}, "efficiencies"),
    ({"efficiencies": np.full((1, 6), 0.5)}, "cube"),
])
def test_the_core_entry_refuses_what_it_is_not_given_right(changes: dict[str, Any], field: str) -> None:
    from nardy_fast import _core

    args = _args()._replace(seats=(nardy_fast.policies.resolve_policy("first", "a").seat(CORE, _args().rows),) * 2)
    out = (np.zeros(4), np.zeros(4, dtype=np.int8), np.zeros(4, dtype=np.int64), np.zeros(4, dtype=np.int64),
           np.zeros((4, 4), dtype=np.int64))
    with pytest.raises(NardyError, match=field):
        _core.cube_games(args, _cube_args(**changes), 0, 4, *out, np.zeros(1, dtype=np.int32))
    # the same call, put right, plays: "first" never doubles and always takes
    _core.cube_games(args, _cube_args(), 0, 4, *out, np.zeros(1, dtype=np.int32))
    assert set(np.abs(out[0]).tolist()) <= {1.0, 2.0, 3.0} and (out[3] == 1).all()
    # the tally: each money game played out (some plies), one game, the score untouched
    assert (out[4][:, 0] > 0).all() and (out[4][:, 1] == 1).all() and (out[4][:, 2:] == 0).all()


def test_a_stop_flag_set_returns_at_once() -> None:
    from nardy_fast import _core

    args = _args()._replace(seats=(nardy_fast.policies.resolve_policy("first", "a").seat(CORE, _args().rows),) * 2)
    out = (np.full(4, 9.0), np.zeros(4, dtype=np.int8), np.zeros(4, dtype=np.int64), np.zeros(4, dtype=np.int64),
           np.zeros((4, 4), dtype=np.int64))
    _core.cube_games(args, _cube_args(), 0, 4, *out, np.ones(1, dtype=np.int32))
    assert (out[0] == 9.0).all()  # nothing played


def test_the_last_match_numbers_a_duel_may_play() -> None:
    from nardy_fast.cubeloop import MATCH_NUMBERS

    # game j of match pair k is number k * 256 + j, below 2**62: the last pair plays, in both loops
    for kernels in (CORE, PYTHON):
        last = duel_module.duel(kernels, "first", "first", "short", 2, match=1, first_game=MATCH_NUMBERS - 1)
        assert last.results.tolist() in ([1.0, 0.0], [0.0, 1.0])
        with pytest.raises(NardyError, match="first_game"):
            duel_module.duel(kernels, "first", "first", "short", 2, match=1, first_game=MATCH_NUMBERS)
