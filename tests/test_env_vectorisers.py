"""Gymnasium's own vectorisers on the registered environments (issue 41, item 1): ``gymnasium.make_vec`` in
every mode, ``SyncVectorEnv`` and ``AsyncVectorEnv`` over ``gymnasium.make``, stepped with legal actions taken
from the masks. Gymnasium stacks every info value of the sub-environments into one array, so the ragged
children rows left the single-agent info for ``SingleAgentEnv.children()``; the vector entry point of
``nardy_fast/<variant>-v0`` has the single-agent semantics, and the self-play ``NardyVectorEnv`` is
``nardy_fast/<variant>-selfplay-v0``."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

pytest.importorskip("pettingzoo", reason="PettingZoo (the env extra) is not installed")
gymnasium = pytest.importorskip("gymnasium", reason="Gymnasium (the env extra) is not installed")

from gymnasium.vector import AsyncVectorEnv, SyncVectorEnv, VectorEnv  # noqa: E402
from test_hostile_env import error_of  # noqa: E402

import nardy_fast  # noqa: E402
import nardy_fast.env as nenv  # noqa: E402
from nardy_fast import NardyError  # noqa: E402
from nardy_fast.env import NardyVectorEnv, SingleAgentEnv  # noqa: E402

#: Seconds a subprocess of AsyncVectorEnv may take to answer: generous, the machine is shared.
TIMEOUT = 120.0


def rows_of(moves: list[nardy_fast.Move]) -> npt.NDArray[np.int8]:
    return np.array([move.result.to_array() for move in moves], dtype=np.int8).reshape(len(moves), 64)


def legal_actions(masks: npt.NDArray[np.int8], rng: random.Random) -> npt.NDArray[np.int64]:
    """A uniform choice among each sub-environment's offered actions; 0 where none is offered (the step after
    an episode's end, whose action the vectoriser's autoreset ignores)."""
    return np.array(
        [rng.choice(offered.tolist()) if len(offered := mask.nonzero()[0]) else 0 for mask in masks],
        dtype=np.int64,
    )


def reset(envs: VectorEnv, seed: int) -> tuple[dict[str, Any], dict[str, Any]]:
    if isinstance(envs, AsyncVectorEnv):
        envs.reset_async(seed=seed)
        return envs.reset_wait(timeout=TIMEOUT)
    return envs.reset(seed=seed)


def step(envs: VectorEnv, actions: npt.NDArray[np.int64]) -> tuple[Any, ...]:
    if isinstance(envs, AsyncVectorEnv):
        envs.step_async(actions)
        return envs.step_wait(timeout=TIMEOUT)
    return envs.step(actions)


def close(envs: VectorEnv) -> None:
    """``envs`` closed; AsyncVectorEnv's subprocesses terminated, since a failed call may leave one waiting."""
    if isinstance(envs.unwrapped, AsyncVectorEnv):
        envs.close(terminate=True)
    else:
        envs.close()


def first_observations(variant: str, count: int, seed: int, **kwargs: object) -> list[dict[str, Any]]:
    """The first observations of ``count`` single-agent environments seeded as Gymnasium's vectorisers seed
    them: sub-environment ``i`` with ``seed + i``."""
    return [SingleAgentEnv(variant, **kwargs).reset(seed=seed + i)[0] for i in range(count)]  # type: ignore[arg-type]


def play(envs: VectorEnv, steps: int, seed: int) -> tuple[list[float], list[npt.NDArray[np.int64]]]:
    """``steps`` steps of legal actions; the returns of the episodes that ended, and the actions played."""
    rng = random.Random(seed)
    observation, info = reset(envs, seed)
    assert "children" not in info  # ragged: not in what Gymnasium stacks
    returns: list[float] = []
    played = []
    for _ in range(steps):
        actions = legal_actions(observation["action_mask"], rng)
        played.append(actions)
        observation, rewards, terminated, truncated, info = step(envs, actions)
        assert "children" not in info and not info.get("_illegal_action", np.zeros(1, bool)).any()
        assert observation["action_mask"].shape == (envs.num_envs, nenv.DEFAULT_MAX_ACTIONS)
        returns.extend(rewards[terminated | truncated].tolist())
        assert not rewards[~(terminated | truncated)].any()  # every other step rewards 0
    return returns, played


def assert_games_were_played(returns: list[float]) -> None:
    assert returns, "no game ended"
    assert set(returns) <= {-3.0, -2.0, -1.0, 1.0, 2.0, 3.0, 0.0}
    assert any(r != 0 for r in returns)


# --- gymnasium.make_vec ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", [None, "sync", "async", "vector_entry_point"])
def test_make_vec_in_every_mode_resets_and_steps(mode: str | None) -> None:
    envs = gymnasium.make_vec("nardy_fast/short-v0", num_envs=4, vectorization_mode=mode)
    try:
        kind = AsyncVectorEnv if mode == "async" else SyncVectorEnv
        assert isinstance(envs.unwrapped, kind) and envs.num_envs == 4
        observation, _ = reset(envs, 0)
        for i, expected in enumerate(first_observations("short", 4, 0)):
            for key, value in expected.items():
                assert np.array_equal(observation[key][i], value)
        returns, _ = play(envs, 60 if mode == "async" else 200, seed=1)
        assert_games_were_played(returns)
    finally:
        close(envs)


def test_make_vec_defaults_to_the_vector_entry_point_with_the_single_agent_semantics() -> None:
    spec = gymnasium.spec("nardy_fast/short-v0")
    assert spec.vector_entry_point is not None
    assert isinstance(gymnasium.make_vec("nardy_fast/short-v0", num_envs=2).unwrapped, SyncVectorEnv)
    kwargs: dict[str, Any] = {"opponent": "first", "seat": "black", "scheme": "openspiel"}  # openspiel: short only
    made = {
        mode: gymnasium.make_vec("nardy_fast/short-v0", num_envs=3, vectorization_mode=mode, **kwargs)
        for mode in ("sync", "vector_entry_point")
    }
    assert made["vector_entry_point"].call("seat") == ("black",) * 3
    assert made["vector_entry_point"].call("opponent") == ("first",) * 3
    first = {mode: envs.reset(seed=9) for mode, envs in made.items()}
    for key in ("observation", "action_mask"):
        assert np.array_equal(first["sync"][0][key], first["vector_entry_point"][0][key])
    rng = random.Random(3)
    observation = first["sync"][0]
    for _ in range(150):
        actions = legal_actions(observation["action_mask"], rng)
        results = {mode: envs.step(actions) for mode, envs in made.items()}
        for a, b in zip(results["sync"][:4], results["vector_entry_point"][:4]):
            if isinstance(a, dict):
                assert all(np.array_equal(a[key], b[key]) for key in a)
            else:
                assert np.array_equal(a, b)
        observation = results["sync"][0]


# --- SyncVectorEnv and AsyncVectorEnv over gymnasium.make ------------------------------------------------------


def test_sync_vector_env_over_gymnasium_make_plays_the_single_agent_games() -> None:
    envs = SyncVectorEnv([lambda: gymnasium.make("nardy_fast/long-v0")] * 4)
    returns, played = play(envs, 300, seed=0)
    assert_games_were_played(returns)
    # sub-environment 0 replayed alone: seed 0 (Gymnasium seeds sub-environment i with seed + i), and after an
    # episode's end the next step resets it (the next game number of the seed), ignoring that step's action
    alone = gymnasium.make("nardy_fast/long-v0")
    replay: list[float] = []
    alone.reset(seed=0)
    done = False
    for actions in played:
        if done:
            alone.reset()
            done = False
            continue
        _, reward, terminated, truncated, _ = alone.step(int(actions[0]))
        done = terminated or truncated
        if done:
            replay.append(float(reward))
    assert replay and replay == played_returns(envs, played)


def played_returns(envs: SyncVectorEnv, played: list[npt.NDArray[np.int64]]) -> list[float]:
    """Sub-environment 0's episode returns when ``played`` is played again from ``reset(seed=0)``."""
    found: list[float] = []
    envs.reset(seed=0)
    for actions in played:
        _, rewards, terminated, truncated, _ = envs.step(actions)
        if terminated[0] or truncated[0]:
            found.append(float(rewards[0]))
    return found


def test_async_vector_env_over_gymnasium_make_resets_and_steps() -> None:
    envs = AsyncVectorEnv([lambda: gymnasium.make("nardy_fast/short-v0", opponent="first")] * 2)
    try:
        observation, _ = reset(envs, 4)
        for i, expected in enumerate(first_observations("short", 2, 4, opponent="first")):
            assert np.array_equal(observation["observation"][i], expected["observation"])
        returns, _ = play(envs, 100, seed=2)
        assert_games_were_played(returns)
        masks = reset(envs, 4)[0]["action_mask"]
        children = envs.call("children")
        assert [len(rows) for rows in children] == masks.sum(axis=1).tolist()
    finally:
        close(envs)


# --- the children, out of the info ------------------------------------------------------------------------------


def test_children_are_the_offered_results_through_a_vectoriser() -> None:
    envs = gymnasium.make_vec("nardy_fast/short-v0", num_envs=3, vectorization_mode="sync", max_actions=8)
    observation, info = envs.reset(seed=5)
    rng = random.Random(5)
    for _ in range(40):
        children = envs.call("children")
        for i, single in enumerate(envs.envs):
            game = single.unwrapped.aec.game
            legal = [] if game.is_over() else game.legal_moves()
            assert np.array_equal(children[i], rows_of(legal[:8]))
            assert len(children[i]) == observation["action_mask"][i].sum()
            if not game.is_over():
                assert info["legal_results"][i] == len(legal) and info["not_offered"][i] == max(len(legal) - 8, 0)
        observation, _, _, _, info = envs.step(legal_actions(observation["action_mask"], rng))


def test_single_agent_children_are_read_only_and_empty_after_the_end() -> None:
    single = SingleAgentEnv("short", opponent="first")
    with pytest.raises(NardyError) as error:
        single.children()
    assert str(error.value) == "reset: must be called first (got None)"
    single.reset(seed=2)
    children = single.children()
    assert children.dtype == np.int8 and children.shape == (int(single.action_masks().sum()), 64)
    with pytest.raises(ValueError):
        children[0, 0] = 99
    _, _, terminated, _, _ = single.step(nenv.DEFAULT_MAX_ACTIONS - 1)  # masked out: a loss
    assert terminated and single.children().shape == (0, 64)


# --- the self-play vector environment -------------------------------------------------------------------------


def test_the_selfplay_ids_make_the_nardy_vector_env() -> None:
    assert nenv.SELFPLAY_IDS["short"] == "nardy_fast/short-selfplay-v0"
    envs = gymnasium.make_vec("nardy_fast/short-selfplay-v0", num_envs=4, max_actions=64)
    assert isinstance(envs, NardyVectorEnv) and envs.variant == "short" and envs.num_envs == 4
    assert envs.max_actions == 64 and envs.spec is not None and envs.spec.id == "nardy_fast/short-selfplay-v0"
    observation, _ = envs.reset(seed=0)
    expected, _ = NardyVectorEnv("short", 4, max_actions=64).reset(seed=0)
    assert np.array_equal(observation["observation"], expected["observation"])
    rng = random.Random(0)
    for _ in range(50):
        observation, *_ = envs.step(legal_actions(observation["action_mask"], rng))


# --- bad input ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("num_envs", [0, -1, 1 << 21, 2.0, True, "4", None])
def test_the_vector_entry_point_refuses_a_bad_num_envs_by_name(num_envs: object) -> None:
    kind, message = error_of(
        lambda: gymnasium.make_vec("nardy_fast/short-v0", num_envs=num_envs, vectorization_mode="vector_entry_point")
    )
    assert kind is NardyError
    assert message == f"num_envs: must be an integer 1 <= num_envs <= 2**20 (MAX_GAMES) (got {num_envs!r})"


def test_the_vector_entry_point_refuses_bad_keywords_as_the_single_env_does() -> None:
    expected = error_of(lambda: SingleAgentEnv("short", seat="red"))
    assert expected[0] is NardyError and expected[1].startswith("seat: ")
    assert error_of(lambda: gymnasium.make_vec("nardy_fast/short-v0", num_envs=2, seat="red")) == expected
