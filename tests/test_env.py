"""The reinforcement-learning environments (nardy_fast.env): PettingZoo's and Gymnasium's own checkers, games
through the environments against nardy_fast.Game and the compiled playout with the same dice and choices,
the cut of a crazy ladder at max_actions, truncation, rendering, and bad input."""

from __future__ import annotations

import doctest
import subprocess
import sys
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

pytest.importorskip("pettingzoo", reason="PettingZoo (the env extra) is not installed")
pytest.importorskip("gymnasium", reason="Gymnasium (the env extra) is not installed")

from gymnasium.spaces import Box  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test, seed_test  # type: ignore[import-untyped]  # noqa: E402

import nardy_fast  # noqa: E402
import nardy_fast.env as nenv  # noqa: E402
from nardy_fast import VARIANTS, NardyError, corpus, dice  # noqa: E402
from nardy_fast.encodings import SCHEMES  # noqa: E402
from nardy_fast.env import AGENTS, NardyEnv, SingleAgentEnv, env, raw_env  # noqa: E402

#: A crazy gulbar position (from the embedded corpus) whose doubles have dozens of results.
CRAZY = "crazy w 1:3,2:-1,4:1,11:2,12:-7,13:1,14:-3,15:-3,16:1,18:1,20:-1,24:6 first=-"


def other(agent: str) -> str:
    return AGENTS[1 - AGENTS.index(agent)]


def rows_of(moves: list[nardy_fast.Move]) -> npt.NDArray[np.int8]:
    return np.array([move.result.to_array() for move in moves], dtype=np.int8).reshape(len(moves), 64)


# --- the checkers of PettingZoo and Gymnasium ------------------------------------------------------------------


#: What PettingZoo's api_test says of every classic board game (a dict observation with an action mask) and
#: of the agents' names, which are the sides' names here.
EXPECTED_WARNINGS = (
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be",
    "We recommend agents to be named in the format",
)


def checked_api_test(aec: Any, num_cycles: int) -> None:
    """PettingZoo's api_test, which must say nothing but :data:`EXPECTED_WARNINGS`."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(aec, num_cycles=num_cycles)
    unexpected = {str(w.message) for w in caught if not str(w.message).startswith(EXPECTED_WARNINGS)}
    assert not unexpected


@pytest.mark.parametrize("variant", VARIANTS)
def test_pettingzoo_api_test(variant: str) -> None:
    checked_api_test(env(variant), num_cycles=1000)  # whole games: random games last 100-250 plies


@pytest.mark.parametrize("variant", VARIANTS)
def test_pettingzoo_seed_test(variant: str) -> None:
    seed_test(lambda: env(variant), num_cycles=300)


@pytest.mark.parametrize(("variant", "seat"), [("short", "white"), ("long", "black"), ("crazy", "white")])
def test_gymnasium_check_env(variant: str, seat: str) -> None:
    check_env(SingleAgentEnv(variant, seat=seat), skip_render_check=True)


def test_pettingzoo_api_test_with_other_schemes_and_a_small_action_space() -> None:
    for scheme in ("tdgammon", "openspiel"):
        checked_api_test(env("short", scheme=scheme, max_actions=8), num_cycles=100)
    checked_api_test(env("gulbar", max_actions=2), num_cycles=1000)


def test_every_encoding_of_the_corpus_lies_in_the_observation_space() -> None:
    for name, scheme in SCHEMES.items():
        for variant in sorted(scheme.variants):
            box = raw_env(variant, scheme=name).observation_space("white")["observation"]
            assert isinstance(box, Box)
            rows, _ = corpus.load(variant)
            features = nardy_fast.encode(rows[:3000], name)
            assert features.shape[1:] == box.shape
            assert box.low.max() <= features.min() and features.max() <= box.high.min()


# --- games through the environments ----------------------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_game_through_the_aec_env_is_the_game_with_the_same_dice_and_choices(variant: str) -> None:
    seed, number = 11, 1
    aec = raw_env(variant)
    aec.reset(seed=seed)
    aec.reset()  # the next game number of the same seed
    game = nardy_fast.Game(variant, seed=seed, game=number)
    totals = dict.fromkeys(AGENTS, 0)
    assert aec.game is not None
    while not game.is_over():
        assert aec.agent_selection == game.position.turn
        assert aec.game.position == game.position and aec.game.roll == game.roll
        moves = game.legal_moves()
        offered = min(len(moves), aec.max_actions)
        observation, _, terminated, truncated, info = aec.last()
        assert not (terminated or truncated)
        mask = observation["action_mask"]
        assert mask.dtype == np.int8 and mask[:offered].all() and not mask[offered:].any()
        assert not aec.observe(other(aec.agent_selection))["action_mask"].any()
        assert info["roll"] == game.roll and info["legal_results"] == len(moves)
        assert np.array_equal(info["children"], rows_of(moves[:offered]))
        np.testing.assert_array_equal(
            observation["observation"], nardy_fast.encode(game.position.to_array(), "nardy")
        )
        pick = dice.choice(seed, number, game.plies, offered)
        aec.step(pick)
        game.play(moves[pick])
        for agent, reward in aec.rewards.items():
            totals[agent] += reward
    assert aec.game.position == game.position
    winner = str(game.winner())
    assert totals == {winner: game.points(), other(winner): -game.points()}
    assert all(aec.terminations.values()) and not any(aec.truncations.values())
    for _ in AGENTS:  # each finished agent leaves with its whole reward and a None action
        assert aec.last()[1] == totals[aec.agent_selection]
        aec.step(None)
    assert aec.agents == []


def _play_single(single: SingleAgentEnv, seed: int, number: int) -> tuple[float, list[npt.NDArray[np.int8]]]:
    """A game of ``single`` whose seat chooses as ``playout(policy="random")`` does; the reward and the
    positions at the seat's turns."""
    single.reset(seed=seed)
    for _ in range(number):
        single.reset()
    reward, seen, done = 0.0, [], False
    while not done:
        game = single.aec.game
        assert game is not None and game.position.turn == single.seat
        seen.append(game.position.to_array())
        observation, info = single.aec.observe(single.seat), single.aec.infos[single.seat]
        assert info["not_offered"] == 0
        np.testing.assert_array_equal(single.action_masks(), observation["action_mask"].astype(bool))
        _, step_reward, terminated, truncated, _ = single.step(
            dice.choice(seed, number, game.plies, info["legal_results"])
        )
        reward += step_reward
        done = terminated or truncated
    return reward, seen


@pytest.mark.parametrize(("variant", "seat"), [(v, s) for v in VARIANTS if v != "crazy" for s in AGENTS])
def test_the_random_opponent_plays_as_the_compiled_random_playout(variant: str, seat: str) -> None:
    seed, number = 5, 2
    single = SingleAgentEnv(variant, seat=seat)
    reward, seen = _play_single(single, seed, number)
    records, trajectories = nardy_fast.playout(variant, 1, seed=seed, first_game=number, trajectories=True)
    record = records[0]
    assert single.aec.game is not None and single.aec.game.plies == record["plies"]
    assert single.aec.game.turns == record["turns"]
    assert (record["winner"] == AGENTS.index(seat)) == (reward > 0) and abs(reward) == record["points"]
    rows = trajectories.rows
    theirs = [row for row in rows[:-1] if row[nardy_fast.layout.TURN] == AGENTS.index(seat)]
    assert np.array_equal(np.array(seen), np.array(theirs))
    assert np.array_equal(single.aec.game.position.to_array(), rows[-1])


def test_a_callable_opponent_gets_every_legal_result_and_its_choice_is_played() -> None:
    calls: list[int] = []

    def last_child(children: npt.NDArray[np.int8], offsets: npt.NDArray[np.int64]) -> list[int]:
        game = single.aec.game
        assert game is not None
        assert np.array_equal(children, rows_of(game.legal_moves()))
        assert offsets.tolist() == [0, len(children)] and not children.flags.writeable
        calls.append(len(children))
        return [len(children) - 1]

    single = SingleAgentEnv("long", opponent=last_child, seat="black")
    single.reset(seed=3)
    assert single.aec.game is not None
    replay = nardy_fast.Game("long", seed=3)
    done = False
    while not done:
        while replay.position.turn != "black" and not replay.is_over():
            replay.play(replay.legal_moves()[-1])
        assert single.aec.game.position == replay.position
        replay.play(replay.legal_moves()[0])
        *_, terminated, truncated, _ = single.step(0)
        done = terminated or truncated
    while not replay.is_over():
        replay.play(replay.legal_moves()[-1])
    assert single.aec.game.position == replay.position and calls


def test_first_and_a_callable_that_picks_the_first_play_the_same_game() -> None:
    games = []
    for opponent in ("first", lambda children, offsets: np.zeros(1, dtype=np.int64)):
        single = SingleAgentEnv("sixone", opponent=opponent)
        _play_single(single, 9, 0)
        assert single.aec.game is not None
        games.append(single.aec.game.record())
    assert games[0] == games[1]


def test_reset_counts_game_numbers_up_from_the_seed() -> None:
    aec = env("gulbar")
    starts = []
    for seed in (21, None, None, 21):
        aec.reset(seed=seed)
        starts.append((aec.game.game, aec.game.start, aec.game.roll))
    expected = [nardy_fast.Game("gulbar", seed=21, game=g) for g in (0, 1, 2, 0)]
    assert starts == [(g.game, g.start, g.roll) for g in expected]
    unseeded = raw_env("short")
    unseeded.reset()
    assert unseeded.game is not None and unseeded.game.game == 0


def test_a_reset_from_a_position_plays_it_with_the_seed_dice() -> None:
    start = nardy_fast.Position.from_text(CRAZY)
    aec = raw_env("crazy")
    aec.reset(seed=4, options={"start": start})
    expected = nardy_fast.Game(start, seed=4)
    assert aec.game is not None and (aec.game.start, aec.game.roll) == (expected.start, expected.roll)
    assert aec.agent_selection == "white"


def test_a_game_given_up_after_max_plies_is_truncated(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("nardy_fast.env.aec.MAX_PLIES", 3)  # where NardyEnv reads it
    aec = raw_env("long")
    aec.reset(seed=1)
    for _ in range(3):
        assert not any(aec.truncations.values())
        aec.step(0)
    assert all(aec.truncations.values()) and not any(aec.terminations.values())
    assert aec.rewards == dict.fromkeys(AGENTS, 0)
    assert not aec.observe(aec.agent_selection)["action_mask"].any()
    aec.step(None)
    aec.step(None)
    assert aec.agents == []
    with pytest.raises(NardyError, match=r"^action: cannot be played: both agents have left"):
        aec.step(None)
    single = SingleAgentEnv("long", opponent="first")
    single.reset(seed=1)
    outcome = single.step(0)[1:4]
    while outcome == (0.0, False, False):
        outcome = single.step(0)[1:4]
    assert outcome == (0.0, False, True)
    assert single.aec.game is not None and single.aec.game.plies == 3


# --- more results than max_actions ---------------------------------------------------------------------------


def test_a_crazy_ladder_beyond_max_actions_offers_its_first_results() -> None:
    start = nardy_fast.Position.from_text(CRAZY)
    limit = 16
    # a seed whose first roll is a double with more than `limit` results (the dice are seeded: found by search)
    seed = next(
        s
        for s in range(500)
        if (g := nardy_fast.Game(start, seed=s)).roll is not None
        and g.roll[0] == g.roll[1]
        and len(g.legal_moves()) > limit
    )
    legal = nardy_fast.Game(start, seed=seed).legal_moves()
    aec = raw_env("crazy", max_actions=limit)
    aec.reset(seed=seed, options={"start": start})
    observation, _, _, _, info = aec.last()
    assert observation["action_mask"].tolist() == [1] * limit
    assert info["legal_results"] == len(legal) and info["not_offered"] == len(legal) - limit
    assert np.array_equal(info["children"], rows_of(legal[:limit]))
    with pytest.raises(NardyError, match=r"^action: "):
        aec.step(limit)  # outside the action space
    aec.step(limit - 1)
    assert aec.game is not None and aec.game.position == legal[limit - 1].result


def test_a_crazy_ladder_can_exceed_the_default_max_actions() -> None:
    start = nardy_fast.Position.from_text(CRAZY)
    legal = nardy_fast.Game(start, seed=11).legal_moves()  # seed 11 rolls 3-3 first (found by search)
    aec = raw_env("crazy")
    aec.reset(seed=11, options={"start": start})
    info = aec.infos["white"]
    assert len(legal) > nenv.DEFAULT_MAX_ACTIONS
    assert (info["legal_results"], info["not_offered"]) == (len(legal), len(legal) - nenv.DEFAULT_MAX_ACTIONS)
    assert aec.observe("white")["action_mask"].all()


# --- rendering ---------------------------------------------------------------------------------------------------


def test_render_ansi_and_human(capsys: pytest.CaptureFixture[str]) -> None:
    aec = raw_env("short", render_mode="ansi")
    aec.reset(seed=2)
    assert aec.game is not None and aec.render() == str(aec.game.position)
    human = raw_env("short", render_mode="human")
    human.reset(seed=2)
    assert capsys.readouterr().out == str(aec.game.position) + "\n"
    with pytest.warns(UserWarning, match="without a render_mode"):
        assert raw_env("short").render() is None
    single = SingleAgentEnv("short", render_mode="ansi")
    single.reset(seed=2)
    assert single.aec.game is not None and single.render() == str(single.aec.game.position)


def test_both_environments_declare_every_render_mode() -> None:
    for cls in (NardyEnv, SingleAgentEnv):
        assert cls.metadata["render_modes"] == ["ansi", "human", "rgb_array"], cls
        assert cls.metadata["render_fps"] > 0


def test_render_rgb_array_draws_the_position_svg() -> None:
    if not _has_cairosvg():
        pytest.skip("cairosvg (the png extra) or its Cairo library is not installed")
    from nardy_fast.env.render import rgb_array

    aec = raw_env("short", render_mode="rgb_array")
    aec.reset(seed=2)
    assert aec.game is not None
    frame = aec.render()
    assert isinstance(frame, np.ndarray) and frame.dtype == np.uint8
    assert frame.ndim == 3 and frame.shape[1:] == (600, 3) and 300 < frame.shape[0] < 600
    assert np.array_equal(frame, rgb_array(aec.game.position))
    assert len(np.unique(frame.reshape(-1, 3), axis=0)) > 10  # a picture, not one colour
    aec.step(0)
    after = aec.render()
    assert isinstance(after, np.ndarray) and not np.array_equal(after, frame)  # a checker moved
    single = SingleAgentEnv("long", render_mode="rgb_array")
    single.reset(seed=2)
    assert single.aec.game is not None
    assert np.array_equal(single.render(), rgb_array(single.aec.game.position))  # type: ignore[arg-type]


def test_rgb_array_without_cairosvg_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "cairosvg", None)  # import cairosvg now raises ImportError
    for build in (lambda: raw_env("long", render_mode="rgb_array"), lambda: SingleAgentEnv("long", render_mode="rgb_array")):
        with pytest.raises(ImportError, match=r'png extra\): from a clone, pip install -e "\.\[png\]"'):
            build()
    assert raw_env("long", render_mode="ansi").render_mode == "ansi"  # the other modes need nothing


# --- gymnasium.make --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_gymnasium_make_builds_every_variant(variant: str) -> None:
    import gymnasium

    made = gymnasium.make(f"nardy_fast/{variant}-v0", seat="black", opponent="first")
    single = made.unwrapped
    assert isinstance(single, SingleAgentEnv) and single.aec.variant == variant and single.seat == "black"
    assert nenv.ENV_IDS[variant] == f"nardy_fast/{variant}-v0" and made.spec is not None
    observation, _ = made.reset(seed=5)
    assert observation["action_mask"].any()
    # Gymnasium's checker on the registered environment, every render mode included (it makes one per mode
    # through the spec)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(single, skip_render_check=not _has_cairosvg())
    assert not [str(w.message) for w in caught if "render" in str(w.message)]


def _has_cairosvg() -> bool:
    try:
        import cairosvg  # type: ignore[import-untyped, import-not-found, unused-ignore]  # noqa: F401
    except (ImportError, OSError):
        return False
    return True


def test_registration_is_idempotent() -> None:
    import gymnasium

    before = {k: v for k, v in gymnasium.registry.items() if k.startswith("nardy_fast/")}
    nenv.register()
    assert {k: v for k, v in gymnasium.registry.items() if k.startswith("nardy_fast/")} == before
    assert sorted(before) == sorted([*nenv.ENV_IDS.values(), *nenv.SELFPLAY_IDS.values()])


def test_openspiel_observations_carry_the_roll() -> None:
    aec = raw_env("short", scheme="openspiel")
    aec.reset(seed=8)
    assert aec.game is not None and aec.game.roll is not None
    features = aec.observe(aec.agent_selection)["observation"]
    expected = nardy_fast.encode(aec.game.position.to_array(), "openspiel")
    expected[198:] = sorted(aec.game.roll)
    np.testing.assert_array_equal(features, expected)


# --- bad input ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("build", "field"),
    [
        (lambda: raw_env("backgammon"), "variant"),
        (lambda: raw_env(3), "variant"),  # type: ignore[arg-type]
        (lambda: raw_env("long", scheme="alphazero"), "scheme"),
        (lambda: raw_env("long", scheme="tdgammon"), "scheme"),
        (lambda: raw_env("gulbar", scheme="openspiel"), "scheme"),
        (lambda: raw_env("long", max_actions=0), "max_actions"),
        (lambda: raw_env("long", max_actions=True), "max_actions"),
        (lambda: raw_env("long", max_actions=2.0), "max_actions"),  # type: ignore[arg-type]
        (lambda: raw_env("long", render_mode="rgb"), "render_mode"),
        (lambda: raw_env("long", ladder_per_value=4), "ladder_per_value"),
        (lambda: SingleAgentEnv("long", seat="red"), "seat"),
        (lambda: SingleAgentEnv("long", opponent="gnubg"), "opponent"),
        (lambda: SingleAgentEnv("long", illegal_reward=float("nan")), "illegal_reward"),
        (lambda: SingleAgentEnv("long", max_actions=-1), "max_actions"),
    ],
)
def test_bad_construction(build: Callable[[], object], field: str) -> None:
    with pytest.raises(NardyError, match=rf"^{field}"):
        build()


def test_bad_actions_name_the_action() -> None:
    aec = raw_env("long", max_actions=64)
    with pytest.raises(NardyError, match=r"^action: cannot be played before reset"):
        aec.step(0)
    aec.reset(seed=1)
    offered = int(aec.observe(aec.agent_selection)["action_mask"].sum())
    for action, problem in [
        (-1, "must be an integer"),
        (64, "must be an integer"),
        ("0", "must be an integer"),
        (1.0, "must be an integer"),
        (None, "must be an integer"),
        (offered, "is masked out"),
    ]:
        with pytest.raises(NardyError, match=f"^action: {problem}"):
            aec.step(action)
    aec.step(np.int32(offered - 1))  # a NumPy integer is an action
    wrapped = env("long")
    wrapped.reset(seed=1)
    with pytest.raises(AssertionError):  # PettingZoo's AssertOutOfBoundsWrapper checks first
        wrapped.step(5000)


def test_bad_resets() -> None:
    aec = raw_env("long")
    for seed in (-1, 1 << 64, "7"):
        with pytest.raises(NardyError, match=r"^seed"):
            aec.reset(seed=seed)  # type: ignore[arg-type]
    for start in ("long w", nardy_fast.Position.start("short"), nardy_fast.Position.from_text(CRAZY)):
        with pytest.raises(NardyError, match=r'^options\["start"\]'):
            aec.reset(seed=1, options={"start": start})


def test_the_single_agent_env_on_masked_and_bad_actions() -> None:
    single = SingleAgentEnv("long", max_actions=64)
    with pytest.raises(NardyError, match=r"^action: cannot be played"):
        single.step(0)
    _, info = single.reset(seed=1)
    offered = info["legal_results"]
    observation, reward, terminated, truncated, info = single.step(offered)  # masked out: a loss
    assert (reward, terminated, truncated, info["illegal_action"]) == (-3.0, True, False, offered)
    assert not observation["action_mask"].any() and not single.action_masks().any()
    with pytest.raises(NardyError, match=r"^action: cannot be played"):
        single.step(0)
    single.reset(seed=1)
    with pytest.raises(NardyError, match=r"^action: must be an integer"):
        single.step(64)
    strict = SingleAgentEnv("long", max_actions=64, illegal_reward=None)
    strict.reset(seed=1)
    with pytest.raises(NardyError, match=r"^action: is masked out"):
        strict.step(offered)


def test_a_callable_opponent_that_returns_nonsense_is_named() -> None:
    answers: list[Any] = [[99], [0, 0], ["a"], 0]
    for answer in answers:
        single = SingleAgentEnv("long", opponent=lambda children, offsets: answer, seat="black")
        with pytest.raises(NardyError, match=r"^opponent: must return one choice"):
            for seed in range(10):  # a seed where White (the opponent) starts
                single.reset(seed=seed)


def test_without_the_extra_the_import_names_it() -> None:
    code = "import sys\nsys.modules['pettingzoo'] = None\nimport nardy_fast.env\n"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode != 0
    assert "ImportError" in result.stderr
    assert 'from a clone, pip install -e ".[env]"; from a wheel, pip install "<the wheel file>[env]"' in result.stderr


def test_the_module_docstring_example_runs() -> None:
    result = doctest.testmod(nenv)
    assert result.attempted > 0 and result.failed == 0


def test_the_wrapped_env_reaches_the_raw_env() -> None:
    aec = env("short")
    assert isinstance(aec.unwrapped, NardyEnv)
    aec.reset(seed=3)
    assert aec.game is aec.unwrapped.game and aec.state().shape == (64,)
