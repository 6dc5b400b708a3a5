"""The environments with the doubling cube (``cube=True``, issue 43): the action masks of each phase of a turn,
scripted games scored by the rules by hand (docs/rules.md, The doubling cube; Match play), the Crawford game and
a dead cube, match episodes, seeded episodes, PettingZoo's and Gymnasium's checkers, the opponent's cube
strategy, bad input, and the environments without the cube unchanged (digests recorded before the cube came)."""

from __future__ import annotations

import hashlib
import warnings
from itertools import pairwise
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="PettingZoo (the env extra) is not installed")
pytest.importorskip("gymnasium", reason="Gymnasium (the env extra) is not installed")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test, seed_test  # type: ignore[import-untyped]  # noqa: E402

from nardy_fast import Cube, Game, Greedy, Match, NardyError  # noqa: E402
from nardy_fast.env import (  # noqa: E402
    CUBE_FEATURES,
    ENV_CUBE_ACTIONS,
    NardyEnv,
    NardyVectorEnv,
    SingleAgentEnv,
    env,
    raw_env,
)

MAX = 64  # a small action space: the cube actions are 64 .. 68


def cube_index(name: str) -> int:
    return MAX + ENV_CUBE_ACTIONS.index(name)


def offered(aec: NardyEnv) -> tuple[set[str], int]:
    """The cube actions the acting agent's mask offers, and how many moves."""
    mask = aec.observe(aec.agent_selection)["action_mask"]
    names = {name for i, name in enumerate(ENV_CUBE_ACTIONS) if mask[MAX + i]}
    return names, int(mask[:MAX].sum())


def first_move(aec: NardyEnv) -> None:
    names, moves = offered(aec)
    assert not names and moves >= 1
    aec.step(0)


def to_cube_phase(aec: NardyEnv) -> None:
    """Play first moves until the acting agent decides on the cube."""
    for _ in range(400):
        if offered(aec)[0]:
            return
        first_move(aec)
    raise AssertionError("no cube decision in 400 plies")


def game_of(aec: NardyEnv) -> Game:
    assert aec.game is not None
    return aec.game


def new(variant: str = "short", **kwargs: Any) -> NardyEnv:
    aec = raw_env(variant, max_actions=MAX, cube=True, **kwargs)
    aec.reset(seed=3)
    return aec


# --- masks of each phase ---------------------------------------------------------------------------------------


def test_the_masks_of_each_phase_of_a_turn() -> None:
    aec = new()
    # the game's first move answers the opening roll, already thrown: no cube decision before it
    assert offered(aec)[0] == set()
    first_move(aec)
    white_or_black = aec.agent_selection
    assert offered(aec) == ({"no_double", "double"}, 0)
    info = aec.infos[white_or_black]
    assert info["roll"] is None and info["children"].shape == (0, 64) and info["legal_results"] == 0
    observation = aec.observe(white_or_black)
    assert observation["cube"].tolist() == [0, 0, 0, 1, 0, 0, 0, 0]
    aec.step(cube_index("no_double"))  # the same agent now plays its roll
    assert aec.agent_selection == white_or_black
    names, moves = offered(aec)
    assert names == set() and moves >= 1 and aec.infos[white_or_black]["roll"] == game_of(aec).roll
    first_move(aec)
    doubler = aec.agent_selection
    assert offered(aec) == ({"no_double", "double"}, 0)
    aec.step(cube_index("double"))
    taker = aec.agent_selection
    assert taker != doubler
    assert offered(aec) == ({"take", "pass"}, 0)  # no beaver without beavers
    assert aec.observe(taker)["cube"].tolist() == [0, 0, 0, 0, 1, 0, 0, 0]  # the doubler's view: it doubled
    assert not aec.observe(doubler)["action_mask"].any()
    aec.step(cube_index("take"))
    assert aec.agent_selection == doubler and game_of(aec).cube == Cube(2, taker)
    assert offered(aec)[0] == set()  # the doubler plays its roll at once
    assert aec.observe(doubler)["cube"].tolist() == [1, 0, 1, 0, 0, 0, 0, 0]
    first_move(aec)
    assert aec.agent_selection == taker and offered(aec)[0] == {"no_double", "double"}  # its own cube
    aec.step(cube_index("no_double"))
    first_move(aec)
    assert aec.agent_selection == doubler and offered(aec)[0] == set()  # the cube is the other side's


def test_a_beaver_is_offered_at_money_play_with_beavers_only() -> None:
    aec = new(match=Match(beavers=True))
    to_cube_phase(aec)
    doubler = aec.agent_selection
    aec.step(cube_index("double"))
    assert offered(aec) == ({"take", "pass", "beaver"}, 0)
    aec.step(cube_index("beaver"))
    assert game_of(aec).cube == Cube(4, game_of(aec).cube.owner) and game_of(aec).cube.owner != doubler
    assert aec.agent_selection == doubler and offered(aec)[0] == set()


def test_masked_cube_actions_are_refused_by_name() -> None:
    aec = new()
    with pytest.raises(NardyError, match="action"):
        aec.step(cube_index("double"))  # the first move: no cube decision
    to_cube_phase(aec)
    for name in ("take", "pass", "beaver"):
        with pytest.raises(NardyError, match="action"):
            aec.step(cube_index(name))
    with pytest.raises(NardyError, match="action"):
        aec.step(0)  # no move before the cube decision
    with pytest.raises(NardyError, match="action"):
        aec.step(MAX + len(ENV_CUBE_ACTIONS))


# --- scripted games scored by hand -------------------------------------------------------------------------------


def test_double_take_redouble_pass_scores_the_cube_before_the_redouble() -> None:
    aec = new()
    to_cube_phase(aec)
    first = aec.agent_selection
    aec.step(cube_index("double"))
    second = aec.agent_selection
    aec.step(cube_index("take"))  # the cube at 2, the second agent's
    first_move(aec)
    to_cube_phase(aec)
    assert aec.agent_selection == second
    aec.step(cube_index("double"))  # the redouble, to 4
    assert aec.agent_selection == first
    aec.step(cube_index("pass"))
    # by the rules: a dropped double scores the cube's value before it was turned, 2
    assert aec.terminations == {"white": True, "black": True}
    assert aec.rewards == {second: 2, first: -2}
    assert game_of(aec).winner() == second and [a for _, _, a in game_of(aec).actions] == ["double", "take", "double", "pass"]


def test_a_game_played_out_after_a_take_scores_its_multiple_times_the_cube() -> None:
    aec = new("long")
    to_cube_phase(aec)
    aec.step(cube_index("double"))
    aec.step(cube_index("take"))
    while not aec.terminations["white"]:
        mask = aec.observe(aec.agent_selection)["action_mask"]
        aec.step(cube_index("no_double") if mask[cube_index("no_double")] else 0)
    final = game_of(aec).position
    # the multiple read off the final board by the rules: a mars when the loser has borne off nothing
    loser_off = final.state.off[1 - ("white", "black").index(str(final.winner()))]
    multiple = 2 if loser_off == 0 else 1
    assert aec.rewards[str(final.winner())] == 2 * multiple
    assert sum(aec.rewards.values()) == 0


# --- matches ---------------------------------------------------------------------------------------------------


def test_the_crawford_game_has_no_cube_decision() -> None:
    aec = raw_env("short", max_actions=MAX, cube=True, match=Match(5, (4, 2), crawford=True))
    aec.reset(seed=9)
    plies = 0
    while not (aec.terminations["white"] or game_of(aec).match != Match(5, (4, 2), crawford=True)):
        assert offered(aec)[0] == set()
        aec.step(0)
        plies += 1
    assert plies > 10


def test_after_the_crawford_game_only_the_trailer_may_double() -> None:
    aec = raw_env("short", max_actions=MAX, cube=True, match=Match(5, (4, 2)))
    aec.reset(seed=9)
    seen = set()
    for _ in range(60):
        names, _ = offered(aec)
        if names:
            seen.add(aec.agent_selection)
            aec.step(cube_index("no_double"))
        else:
            aec.step(0)
    assert seen == {"black"}  # White, 1 away, never decides on the cube
    assert aec.observe("black")["cube"][5:].tolist() in ([1, 3, 0], [3, 1, 0])


def test_a_dead_cube_is_not_offered() -> None:
    aec = raw_env("short", max_actions=MAX, cube=True, match=Match(3, (1, 1)))
    aec.reset(seed=4)
    to_cube_phase(aec)
    doubler = aec.agent_selection
    aec.step(cube_index("double"))
    taker = aec.agent_selection
    aec.step(cube_index("take"))  # the cube at 2, the taker's: 2 away, a win at 2 wins the match
    for _ in range(40):
        if aec.agent_selection == taker:
            assert offered(aec)[0] == set()
        elif offered(aec)[0]:
            raise AssertionError(f"{doubler} may not double the taker's cube")
        aec.step(0)


def test_a_match_episode_plays_its_games_and_rewards_the_match() -> None:
    aec = raw_env("short", max_actions=MAX, cube=True, match=Match(3))
    aec.reset(seed=2)
    rng = np.random.default_rng(0)
    games = [game_of(aec)]
    steps = 0
    while not (aec.terminations["white"] or aec.truncations["white"]):
        mask = aec.observe(aec.agent_selection)["action_mask"]
        aec.step(int(rng.choice(np.flatnonzero(mask))))
        steps += 1
        if game_of(aec) is not games[-1]:
            games.append(game_of(aec))
            assert sum(aec.rewards.values()) == 0 and set(aec.rewards.values()) == {0}  # between games
    assert len(games) >= 2
    assert [g.game for g in games] == list(range(len(games)))  # episode 0: games 0, 1, ... of the match
    assert games[0].match.score == (0, 0)
    assert all(after.match.score == before.score() for before, after in pairwise(games))  # the score moves
    final = games[-1]
    winner = final.winner()
    assert final.next_match() is None and max(final.score()) >= 3 and final.score()[("white", "black").index(winner)] >= 3
    assert aec.rewards == {winner: 1, ("black" if winner == "white" else "white"): -1}


# --- seeds, checkers ---------------------------------------------------------------------------------------------


def episode(seed: int) -> list[bytes]:
    aec = raw_env("short", max_actions=MAX, cube=True, match=Match(3))
    aec.reset(seed=seed)
    rng = np.random.default_rng(0)
    out = []
    for agent in aec.agent_iter():
        o, r, t, tr, _ = aec.last()
        out += [agent.encode(), o["observation"].tobytes(), o["cube"].tobytes(), o["action_mask"].tobytes(), bytes([r + 9])]
        aec.step(None if t or tr else int(rng.choice(np.flatnonzero(o["action_mask"]))))
    return out


def test_seeded_episodes_replay() -> None:
    assert episode(5) == episode(5)
    assert episode(5) != episode(6)


def checked(aec: Any, cycles: int) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(aec, num_cycles=cycles)
    expected = ("Observation is not a NumPy array", "Observation space for each agent probably should be",
                "We recommend agents to be named in the format")
    assert not {str(w.message) for w in caught if not str(w.message).startswith(expected)}


@pytest.mark.parametrize("match", [None, Match(3), Match(beavers=True, jacoby=True)])
def test_pettingzoo_api_test_with_the_cube(match: Match | None) -> None:
    checked(env("short", cube=True, match=match), 1000)
    seed_test(lambda: env("short", cube=True, match=match), num_cycles=300)


@pytest.mark.parametrize(("variant", "match"), [("short", None), ("long", Match(3))])
def test_gymnasium_check_env_with_the_cube(variant: str, match: Match | None) -> None:
    check_env(SingleAgentEnv(variant, cube=True, match=match, max_actions=MAX), skip_render_check=True)


def test_the_spaces_with_the_cube() -> None:
    aec = raw_env("long", max_actions=MAX, cube=True)
    assert aec.action_space("white").n == MAX + 5
    space = aec.observation_space("black")
    assert set(space.spaces) == {"observation", "action_mask", "cube"}
    assert space["cube"].shape == (CUBE_FEATURES,) and space["action_mask"].shape == (MAX + 5,)


def test_the_openspiel_dice_features_are_empty_before_the_cube_decision() -> None:
    aec = raw_env("short", scheme="openspiel", max_actions=MAX, cube=True)
    aec.reset(seed=3)
    to_cube_phase(aec)
    roll = game_of(aec).roll
    assert roll is not None  # drawn, not shown
    assert aec.observe(aec.agent_selection)["observation"][198:].tolist() == [0, 0]
    aec.step(cube_index("no_double"))
    assert aec.observe(aec.agent_selection)["observation"][198:].tolist() == sorted(roll)


def test_a_vectoriser_of_the_single_agent_env_plays_with_the_cube() -> None:
    import gymnasium

    envs = gymnasium.make_vec("nardy_fast/short-v0", num_envs=2, cube=True, max_actions=MAX)
    observation, _ = envs.reset(seed=0)
    assert observation["cube"].shape == (2, CUBE_FEATURES) and observation["action_mask"].shape == (2, MAX + 5)
    rng = np.random.default_rng(0)
    cube_decisions = 0
    for _ in range(40):
        masks = observation["action_mask"]
        cube_decisions += int(masks[:, cube_index("double")].sum())
        actions = [int(rng.choice(np.flatnonzero(mask))) if mask.any() else 0 for mask in masks]
        observation, *_ = envs.step(actions)
    envs.close()
    assert cube_decisions > 0


# --- the single-agent opponent -----------------------------------------------------------------------------------


def test_the_default_opponent_with_the_cube_is_greedy_with_janowski() -> None:
    single = SingleAgentEnv("short", cube=True, max_actions=MAX)
    opponent = single.opponent
    assert isinstance(opponent, Greedy) and (opponent.evaluator, opponent.plies, opponent.cube) == ("net", 0, "janowski")
    assert SingleAgentEnv("short", max_actions=MAX).opponent == "random"


def test_the_opponent_answers_a_double_by_its_cube_strategy() -> None:
    answers = set()
    for seed in range(4):
        single = SingleAgentEnv("long", cube=True, max_actions=MAX, seat="white")
        single.reset(seed=seed)
        game = game_of(single.aec)
        while not single.action_masks()[cube_index("double")]:
            single.step(int(np.flatnonzero(single.action_masks())[0]))
            game = game_of(single.aec)
        position, cube, match = game.position, game.cube, game.match
        expected = Greedy().cube_response(position, cube, match)
        single.step(cube_index("double"))
        answers.add(expected)
        if expected == "pass":
            assert game.dropped == "black"
        else:
            assert game.cube == Cube(2, "black") and game.actions[-1][2] == "take"
    assert answers  # at least one double answered


def test_a_masked_action_of_the_single_agent_loses_the_cube_value() -> None:
    single = SingleAgentEnv("short", cube=True, max_actions=MAX, opponent="first")
    single.reset(seed=3)
    _, reward, terminated, _, info = single.step(cube_index("take"))
    assert terminated and reward == -3.0 and info["illegal_action"] == cube_index("take")


# --- bad input ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"cube": "yes"}, "cube"),
        ({"cube": 1}, "cube"),
        ({"match": Match(3)}, "match"),
        ({"cube": True, "match": 7}, "match"),
    ],
)
def test_bad_cube_settings_are_named(kwargs: dict[str, Any], field: str) -> None:
    for make in (lambda: raw_env("short", **kwargs), lambda: SingleAgentEnv("short", **kwargs)):
        with pytest.raises(NardyError, match=field):
            make()


def test_the_selfplay_vector_env_checks_the_cube_settings_by_name() -> None:
    # its games with the cube: tests/test_env_vector_cube.py
    with pytest.raises(NardyError, match=r"^cube:"):
        NardyVectorEnv("short", 2, cube="yes")  # type: ignore[arg-type]
    with pytest.raises(NardyError, match=r"^match:"):
        NardyVectorEnv("short", 2, match=Match(3))
    assert NardyVectorEnv("short", 2, cube=True).match == Match()
    assert NardyVectorEnv("short", 2, cube=False).match is None


def test_an_opponent_deciding_at_the_score_needs_a_table_long_enough() -> None:
    with pytest.raises(NardyError, match="match"):
        SingleAgentEnv("short", cube=True, match=Match(40))
    SingleAgentEnv("short", cube=True, match=Match(40), opponent="random")  # it never doubles: any length


# --- without the cube: unchanged ---------------------------------------------------------------------------------

#: Digests of the cubeless environments' spaces and seeded episodes (the fingerprint below), recorded from the
#: commit before the cube came to the environments (0e4c509).
RECORDED = {
    "aec-gulbar-nardy": "b4399e4debd08fcb",
    "aec-long-nardy": "68d2b23ab61d4d6a",
    "aec-short-openspiel": "c58fef1cbd033cda",
    "single-gulbar-nardy": "5b411826a13eda9e",
    "single-long-nardy": "11012a73978a2deb",
    "single-short-openspiel": "b9b95e586075f38e",
}


def digest(parts: list[Any]) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p if isinstance(p, bytes) else repr(p).encode())
    return h.hexdigest()[:16]


def fingerprint() -> dict[str, str]:
    out = {}
    for variant, scheme in (("long", "nardy"), ("short", "openspiel"), ("gulbar", "nardy")):
        e = raw_env(variant, scheme=scheme, max_actions=64)
        e.reset(seed=11)
        parts: list[Any] = [repr(e.observation_space("white")), repr(e.action_space("black"))]
        rng = np.random.default_rng(1)
        for agent in e.agent_iter():
            o, r, t, tr, info = e.last()
            parts += [agent, o["observation"].tobytes(), o["action_mask"].tobytes(), r, t, tr, info.get("roll"),
                      info.get("legal_results")]
            e.step(None if t or tr else int(rng.choice(np.flatnonzero(o["action_mask"]))))
        out[f"aec-{variant}-{scheme}"] = digest(parts)
        s = SingleAgentEnv(variant, scheme=scheme, max_actions=64, seat="black")
        o, info = s.reset(seed=5)
        parts = [repr(s.observation_space), repr(s.action_space), o["observation"].tobytes(), o["action_mask"].tobytes()]
        while True:
            o, r, t, tr, info = s.step(int(rng.choice(np.flatnonzero(s.action_masks()))))
            parts += [o["observation"].tobytes(), o["action_mask"].tobytes(), r, t, tr, sorted(info.items())]
            if t or tr:
                break
        out[f"single-{variant}-{scheme}"] = digest(parts)
    return out


def test_without_the_cube_the_environments_are_unchanged() -> None:
    assert fingerprint() == RECORDED


def test_a_match_won_on_a_doubled_game_is_rewarded_one_for_the_match() -> None:
    aec = raw_env("short", max_actions=MAX, cube=True, match=Match(5, (3, 3)))  # both 2 away
    aec.reset(seed=8)
    to_cube_phase(aec)
    aec.step(cube_index("double"))
    aec.step(cube_index("take"))  # the cube at 2: whoever wins this game wins the match
    game = game_of(aec)
    while not aec.terminations["white"]:
        assert game_of(aec) is game and offered(aec)[0] == set()  # a dead cube for both
        aec.step(0)
    winner = game.winner()
    assert game.points() == 2 and game.next_match() is None
    assert aec.rewards == {winner: 1, ("black" if winner == "white" else "white"): -1}


def test_a_double_passed_in_a_match_moves_the_score_and_the_next_game_starts() -> None:
    aec = raw_env("short", max_actions=MAX, cube=True, match=Match(5, (2, 2)))  # both 3 away
    aec.reset(seed=8)
    to_cube_phase(aec)
    doubler = aec.agent_selection
    aec.step(cube_index("double"))
    aec.step(cube_index("pass"))
    # by the rules: the doubler scores the cube's value before the double, 1, and the match goes on
    assert not any(aec.terminations.values()) and set(aec.rewards.values()) == {0}
    assert game_of(aec).match == Match(5, (3, 2) if doubler == "white" else (2, 3))
    assert game_of(aec).game == 1 and game_of(aec).plies == 0 and game_of(aec).cube == Cube()
