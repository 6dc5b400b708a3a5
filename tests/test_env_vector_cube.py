"""The self-play vector environment with the doubling cube (``NardyVectorEnv(cube=True)``, issue 43): every
episode of every sub-environment replayed action for action in the AEC environment of the same seed and
episode number, an independent path (one :class:`nardy_fast.Game` and its cube actions, where the vector
environment steps :class:`nardy_fast.cubeloop.CubeLockstep`), which must give the same observations, masks,
cube features, acting sides, rewards and ends; both implementations step the same trajectories; the spaces,
the children, the numbering of the episodes and bad input."""

from __future__ import annotations

from types import ModuleType
from typing import Any, Optional

import numpy as np
import numpy.typing as npt
import pytest
from conftest import IMPLEMENTATIONS

pytest.importorskip("pettingzoo", reason="PettingZoo (the env extra) is not installed")
gymnasium = pytest.importorskip("gymnasium", reason="Gymnasium (the env extra) is not installed")

import nardy_fast  # noqa: E402
from nardy_fast import Match, NardyError, _dispatch  # noqa: E402
from nardy_fast.env import AGENTS, CUBE_FEATURES, ENV_CUBE_ACTIONS, NardyVectorEnv, raw_env  # noqa: E402
from nardy_fast.env import vector as vector_module  # noqa: E402

MAX = 64  # a small action space: the cube actions are 64 .. 68
Ints = npt.NDArray[np.int64]


def cube_index(name: str) -> int:
    return MAX + ENV_CUBE_ACTIONS.index(name)


def pick(mask: npt.NDArray[np.int8], step: int) -> Ints:
    """A seeded rule over the masks, one legal action per sub-environment: every cube action comes up."""
    actions = np.zeros(len(mask), dtype=np.int64)
    for i, row in enumerate(mask):
        legal = np.flatnonzero(row)
        actions[i] = legal[(step * 7 + i * 3 + step // 5) % len(legal)]
    return actions


Episode = list[dict[str, Any]]


def play(env: NardyVectorEnv, seed: int, steps: int, options: Optional[dict[str, Any]] = None) -> dict[int, Episode]:
    """``steps`` steps of ``env`` from ``reset(seed=seed)``: each finished episode's steps by its number (the
    ``k``-th episode to end, by step then sub-environment, replaced by episode ``num_envs + k``)."""
    observation, info = env.reset(seed=seed, options=options)
    n = env.num_envs
    current = list(range(n))
    going: list[Episode] = [[] for _ in range(n)]
    done: dict[int, Episode] = {}
    following = n
    for step in range(steps):
        actions = pick(observation["action_mask"], step)
        before = {key: observation[key].copy() for key in observation}
        acting, game = info["acting"].copy(), info["game"].copy()
        observation, rewards, terminated, truncated, info = env.step(actions)
        assert (info["mover"] == acting).all()
        for i in range(n):
            going[i].append({"observation": before["observation"][i], "action_mask": before["action_mask"][i],
                             "cube": before["cube"][i], "acting": int(acting[i]), "game": int(game[i]),
                             "action": int(actions[i]), "reward": float(rewards[i]),
                             "terminated": bool(terminated[i]), "truncated": bool(truncated[i])})
            if terminated[i] or truncated[i]:
                going[i][-1]["final_obs"] = info["final_obs"][i]
                going[i][-1]["final_info"] = {k: int(v[i]) for k, v in info["final_info"].items() if not k.startswith("_")}
                done[current[i]] = going[i]
                going[i], current[i] = [], following
                following += 1
    return done


def replay(number: int, steps: Episode, seed: int, variant: str, options: Optional[dict[str, Any]],
           **keywords: Any) -> None:
    """Episode ``number`` of ``seed`` in the AEC environment (``reset(seed=seed)`` and ``number`` plain resets),
    played with the vector environment's actions: the same observations, acting sides, rewards and end."""
    aec = raw_env(variant, max_actions=MAX, cube=True, **keywords)
    aec.reset(seed=seed, options=options)
    for _ in range(number):
        aec.reset(options=options)
    for k, seen in enumerate(steps):
        agent = aec.agent_selection
        assert AGENTS.index(agent) == seen["acting"], (number, k)
        assert aec.game is not None and aec.game.game == seen["game"], (number, k)
        mine = aec.observe(agent)
        for key in ("observation", "action_mask", "cube"):
            assert np.array_equal(mine[key], seen[key]), (number, k, key)
        aec.step(seen["action"])
        assert aec.rewards[agent] == seen["reward"], (number, k)
        assert aec.terminations[agent] == seen["terminated"] and aec.truncations[agent] == seen["truncated"], (number, k)
    assert seen["terminated"] or seen["truncated"]
    final = aec.observe(agent)
    for key in ("observation", "action_mask", "cube"):
        assert np.array_equal(final[key], seen["final_obs"][key]), (number, key)
    game = aec.game
    assert game is not None and game.game == seen["final_info"]["game"]
    winner = game.winner()
    assert seen["final_info"]["winner"] == (-1 if winner is None else AGENTS.index(winner))
    assert seen["final_info"]["points"] == game.points() and seen["final_info"]["cube"] == game.cube.value
    assert seen["final_info"]["plies"] == game.plies


CASES = [
    ("short", None, {}, None, 5),
    ("sixone", None, {}, None, 2),  # games ended by a pass and by a move in one step: numbered in slot order
    ("gulbar", Match(7), {}, None, 5),  # transfer segments: a side plays a pending list, with no roll and no cube
    ("short", Match(beavers=True, jacoby=True), {"scheme": "openspiel"}, None, 5),
    ("long", Match(3), {}, None, 5),
    ("short", Match(5, (2, 3)), {}, None, 5),  # near the end: the Crawford game, then after it
    # a match's later games from the variant's start
    ("short", Match(4), {}, "short w 1:3,2:3,3:3,4:3,5:3,20:-3,21:-3,22:-3,23:-3,24:-3", 5),
]


@pytest.mark.parametrize(("variant", "match", "keywords", "start", "seed"), CASES)
def test_every_episode_is_the_aec_environments_episode(
    variant: str, match: Optional[Match], keywords: dict[str, Any], start: Optional[str], seed: int
) -> None:
    options = None if start is None else {"start": nardy_fast.Position.from_text(start)}
    env = NardyVectorEnv(variant, 4, max_actions=MAX, cube=True, match=match, **keywords)
    episodes = play(env, seed, 400, options)
    assert len(episodes) >= 4
    for number, steps in sorted(episodes.items()):
        replay(number, steps, seed, variant, options, match=match, **keywords)
    kinds = {ENV_CUBE_ACTIONS[s["action"] - MAX] for e in episodes.values() for s in e if s["action"] >= MAX}
    assert {"double", "no_double", "pass"} <= kinds and kinds & {"take", "beaver"}  # the rule's cube actions
    if match is not None and match.score == (2, 3):
        assert any(s["cube"][7] for e in episodes.values() for s in e)  # a Crawford game was played


MODULES: dict[str, ModuleType] = {
    name: module for name, module in _dispatch.implementations().items() if name in IMPLEMENTATIONS
}


def test_both_implementations_step_the_same_trajectories(monkeypatch: pytest.MonkeyPatch) -> None:
    if len(MODULES) < 2:
        pytest.skip("one implementation only")
    runs = []
    for module in MODULES.values():
        monkeypatch.setattr(vector_module, "_package", lambda module=module: module)
        env = NardyVectorEnv("long", 4, max_actions=MAX, cube=True, match=Match(3))
        observation, _ = env.reset(seed=11)
        assert env.cube_games is not None and type(env.cube_games.slots.rows) is np.ndarray
        seen = []
        for step in range(300):
            observation, rewards, terminated, truncated, info = env.step(pick(observation["action_mask"], step))
            seen += [observation["observation"], observation["cube"], observation["action_mask"], rewards, terminated,
                     truncated, info["game"]]
        runs.append(seen)
    assert all(np.array_equal(a, b) for a, b in zip(*runs))


def test_the_spaces_children_and_numbers() -> None:
    env = NardyVectorEnv("short", 3, max_actions=MAX, cube=True, match=Match(3), render_mode="ansi")
    assert env.single_action_space == gymnasium.spaces.Discrete(MAX + 5)
    space = env.single_observation_space
    assert isinstance(space, gymnasium.spaces.Dict)
    assert set(space.spaces) == {"observation", "action_mask", "cube"} and space["cube"].shape == (CUBE_FEATURES,)
    observation, info = env.reset(seed=2)
    assert env.observation_space.contains(observation)
    assert info["game"].tolist() == [0, 256, 512]  # match k's game j is number k * 256 + j
    assert env.render() == tuple(str(nardy_fast.Game("short", seed=2, game=g).position) for g in (0, 256, 512))
    for step in range(40):
        children, offsets = env.children()
        mask = observation["action_mask"]
        moving = mask[:, :MAX].any(axis=1)
        assert (np.diff(offsets)[~moving] == 0).all() and (np.diff(offsets) == info["legal_results"]).all()
        assert (info["roll"][~moving] == 0).all() and not mask[moving, MAX:].any()
        assert len(children) == offsets[-1] and not children.flags.writeable
        observation, *_, info = env.step(pick(mask, step))
        assert env.observation_space.contains(observation)
    # a reset without a seed continues with the next episodes of the same seed
    assert env.cube_games is not None
    following = env.cube_games.next_game
    _, info = env.reset()
    assert info["game"].tolist() == [256 * k for k in range(following, following + 3)]


def test_cube_actions_out_of_their_phase_are_refused_by_name() -> None:
    env = NardyVectorEnv("short", 2, max_actions=MAX, cube=True)
    observation, _ = env.reset(seed=3)
    for step in range(200):
        mask = observation["action_mask"]
        if mask[0, MAX:].any() or mask[1, MAX:].any():
            break
        observation, *_ = env.step(pick(mask, step))
    mask = observation["action_mask"]
    i = 0 if mask[0, MAX:].any() else 1
    cubing = mask[i, MAX:].astype(bool)
    other = [name for k, name in enumerate(ENV_CUBE_ACTIONS) if not cubing[k]]
    actions = pick(mask, 0)
    before = env.cube_games.slots.rows.copy() if env.cube_games is not None else None
    for name in ("take", "pass", "beaver", *other):
        bad = actions.copy()
        bad[i] = cube_index(name)
        if mask[i, bad[i]]:
            continue
        with pytest.raises(NardyError, match=rf"^actions: has action {bad[i]} masked out: sub-environment {i}"):
            env.step(bad)
    moving = 1 - i
    if mask[moving, :MAX].any():  # a cube action where a move is to be played
        bad = actions.copy()
        bad[moving] = cube_index("double")
        with pytest.raises(NardyError, match=rf"^actions: has action {MAX + 1} masked out"):
            env.step(bad)
    bad = actions.copy()
    bad[i] = 0  # a move where the cube is to be decided
    with pytest.raises(NardyError, match=r"^actions: has action 0 masked out"):
        env.step(bad)
    with pytest.raises(NardyError, match=rf"^actions: must be 2 integers 0 <= action < {MAX + 5}"):
        env.step([MAX + 5, 0])
    assert env.cube_games is not None and before is not None and np.array_equal(env.cube_games.slots.rows, before)


@pytest.mark.parametrize(
    ("keywords", "field"),
    [
        ({"cube": "yes"}, "cube"),
        ({"match": Match(3)}, "match"),  # without cube=True
        ({"cube": True, "match": 3}, "match"),
        ({"cube": True, "max_actions": 1 << 20, "num_envs": 64}, "max_actions"),
    ],
)
def test_bad_cube_settings_are_named(keywords: dict[str, Any], field: str) -> None:
    with pytest.raises(NardyError, match=rf"^{field}:"):
        NardyVectorEnv("short", **{"num_envs": 2, **keywords})


def test_the_selfplay_id_plays_with_the_cube() -> None:
    envs = gymnasium.make_vec("nardy_fast/short-selfplay-v0", num_envs=2, cube=True, match=Match(3), max_actions=MAX)
    observation, _ = envs.reset(seed=1)
    assert observation["cube"].shape == (2, CUBE_FEATURES)
    envs.step(pick(observation["action_mask"], 0))
