"""Games stepped from outside (``nardy_fast.Games``) and the Gymnasium vector environment over them: the same
games as a playout whose callable policy makes the same choices, record for record, in both implementations;
slots that restart with the next game numbers; checked choices; state handed out as copies."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from conftest import IMPLEMENTATIONS

import nardy_fast
from nardy_fast import NardyError, _dispatch, layout, vector
from nardy_fast.game import MAX_PLIES, RECORD

MODULES: dict[str, ModuleType] = {
    name: module for name, module in _dispatch.implementations().items() if name in IMPLEMENTATIONS
}
Ints = npt.NDArray[np.int64]


@pytest.fixture(params=sorted(MODULES))
def implementation(request: pytest.FixtureRequest) -> ModuleType:
    """An implementation module under test (``nardy_fast.reference`` or ``nardy_fast.core``)."""
    return MODULES[request.param]


def rule(numbers: Ints, plies: npt.NDArray[Any], counts: Ints) -> Ints:
    """The seeded choices both sides of the comparison make: a pure function of the game and the ply."""
    chosen: Ints = (numbers.astype(np.int64) * 7 + plies) % counts
    return chosen


def step_all(games: vector.Games) -> None:
    """Step every game to its end by :func:`rule` (``reset=False``)."""
    while not games.done.all():
        _, offsets = games.children()
        active = games.active
        games.step(rule(games.numbers[active], games.plies[active], np.diff(offsets)))


def replaying_policy(numbers: Ints) -> Any:
    """A callable policy making :func:`rule`'s choices in a playout of one batch of the games ``numbers``: it
    follows which games are still unfinished by replaying their moves (a game leaves the batch once over or
    at ``MAX_PLIES``), so it knows each game's number and ply from what it is shown alone."""
    state = {"numbers": numbers.copy(), "plies": np.zeros(len(numbers), dtype=np.int64)}

    def policy(children: npt.NDArray[np.int8], offsets: Ints) -> Ints:
        counts = np.diff(offsets)
        choices = rule(state["numbers"], state["plies"], counts)
        chosen = children[offsets[:-1] + choices]
        plies = state["plies"] + 1
        going = ~layout.is_over(chosen) & (plies < MAX_PLIES)
        state["numbers"], state["plies"] = state["numbers"][going], plies[going]
        return choices

    return policy


def by_number(finished: vector.Finished) -> vector.Finished:
    order = np.argsort(finished.games, kind="stable")
    return vector.Finished(
        finished.slots[order], finished.games[order], finished.records[order], finished.rows[order]
    )


# --- the same games as a playout -------------------------------------------------------------------------

#: Games per variant: the core plays more; crazy gulbar's ladders make its plies slow in both.
SIZES = {"cython": {"crazy": 6}, "python": {"crazy": 1}}
DEFAULT_SIZE = {"cython": 40, "python": 3}


@pytest.mark.parametrize("variant", nardy_fast.VARIANTS)
def test_games_are_the_playouts_games(implementation: ModuleType, variant: str) -> None:
    n = SIZES[implementation.IMPLEMENTATION].get(variant, DEFAULT_SIZE[implementation.IMPLEMENTATION])
    games = implementation.Games(variant, n, seed=11, reset=False)
    step_all(games)
    finished = by_number(games.records())
    assert finished.games.tolist() == list(range(n))
    policy = replaying_policy(np.arange(n, dtype=np.int64))
    records, trajectories = implementation.playout(
        variant, n, seed=11, policy=policy, batch=n, trajectories=True
    )
    assert records.dtype == RECORD and finished.records.dtype == RECORD
    assert (finished.records == records).all()
    # the last positions too, and the state left in the slots
    assert (finished.rows == trajectories.rows[trajectories.offsets[1:] - 1]).all()
    assert (games.rows == trajectories.rows[trajectories.offsets[1:] - 1]).all()
    assert games.done.all() and not games.active.size
    assert (games.winner == records["winner"]).all() and (games.points == records["points"]).all()
    assert (games.plies == records["plies"]).all() and (games.turns == records["turns"]).all()
    assert (games.rolls == 0).all()


START_CASES: dict[str, tuple[str, dict[str, Any]]] = {
    "single dice opening": ("long", {"opening": "use_single_dice"}),
    "stratified, first game 5": ("short", {"stratify": True, "first_game": 5}),
    "rule flags": ("gulbar", {"block_check": "per_step"}),
    "a position with a pending list": ("gulbar b 3:-2,4:7,5:7,8:1,12:-13 first=- pending=5", {}),
    "rows": ("rows", {}),
}


@pytest.mark.parametrize("case", sorted(START_CASES))
def test_every_kind_of_start_plays_the_playouts_games(implementation: ModuleType, case: str) -> None:
    text, options = START_CASES[case]
    start: object = text
    if text == "rows":
        first = implementation.Position.start("sixone").play("24/18 18/13", (6, 5))
        start = np.stack(
            [first.to_array(), implementation.Position.from_text("short w 12:1,24:-1 off=14/14").to_array()]
        )
    elif " " in text:
        start = implementation.Position.from_text(text)
    n = 12 if implementation.IMPLEMENTATION == "cython" else 3
    games = implementation.Games(start, n, seed=3, reset=False, **options)
    first_game = int(options.get("first_game", 0))
    assert games.numbers.tolist() == list(range(first_game, first_game + n))
    step_all(games)
    finished = by_number(games.records())
    policy = replaying_policy(np.arange(first_game, first_game + n, dtype=np.int64))
    records = implementation.playout(start, n, seed=3, policy=policy, batch=n, **options)
    assert (finished.records == records).all()


def test_both_implementations_play_the_same_games() -> None:
    if len(MODULES) < 2:
        pytest.skip("the core is not built")
    played = []
    for module in MODULES.values():
        games = module.Games("gulbar", 3, seed=5, reset=False)
        step_all(games)
        played.append(by_number(games.records()))
    for column_a, column_b in zip(*played):
        assert (column_a == column_b).all()


# --- restarting slots --------------------------------------------------------------------------------------


def test_ended_games_are_replaced_by_the_next_numbers(implementation: ModuleType) -> None:
    n, wanted = (6, 14) if implementation.IMPLEMENTATION == "cython" else (2, 3)
    games = implementation.Games("short", n, seed=2)
    returned: list[tuple[int, int]] = []
    while len(returned) < wanted:
        _, offsets = games.children()
        assert (np.diff(offsets) > 0).all() and len(offsets) == n + 1  # every slot holds an unfinished game
        before = games.numbers
        ended = games.step(rule(games.numbers, games.plies, np.diff(offsets)))
        assert not games.done.any()
        for slot, number in zip(ended.slots.tolist(), ended.games.tolist()):
            assert before[slot] == number
            returned.append((slot, number))
        # the k-th game to end is replaced by game n + k, in order of ending (by step, then by slot)
        replaced = games.numbers[ended.slots]
        assert replaced.tolist() == list(range(n + len(returned) - len(ended.slots), n + len(returned)))
        assert (games.plies[ended.slots] == 0).all() and (games.turns[ended.slots] == 0).all()
        assert list(ended.slots) == sorted(ended.slots)
    kept = games.records()
    assert list(zip(kept.slots.tolist(), kept.games.tolist())) == returned
    assert games.next_game == n + len(returned)
    # every game ended is the same-numbered game of a playout making the same choices
    total = games.next_game
    records = implementation.playout(
        "short", total, seed=2, policy=replaying_policy(np.arange(total, dtype=np.int64)), batch=total
    )
    assert (kept.records == records[kept.games]).all()
    assert (kept.records["start"] == 0).all()


def test_records_can_be_left_unkept(implementation: ModuleType) -> None:
    games = implementation.Games("long", 2, seed=1, keep_records=False)
    ended = 0
    while ended < 2:
        ended += len(games.step(np.zeros(2, dtype=np.int64)).games)
    assert len(games.records().games) == 0 and games.records().records.dtype == RECORD


def test_game_numbers_stay_below_2_62(implementation: ModuleType) -> None:
    last = (1 << 62) - 3  # games 2**62 - 3 and 2**62 - 2; one more number, 2**62 - 1, is left to start
    games = implementation.Games("short", 2, seed=1, first_game=last)
    started = 0
    with pytest.raises(NardyError, match=r"^first_game: leaves no game number below 2\*\*62 for the next"):
        while True:
            started += len(games.step(np.zeros(len(games.active), dtype=np.int64)).games)
    assert started == 1 and games.next_game == 1 << 62
    assert not games.done.any()


# --- bad input ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("choices", "message"),
    [
        ([0, 0], r"^choices: must be 3 integers, one per unfinished game \(shape \(3,\)\) \(got \[0, 0\]\)$"),
        ([[0, 0, 0]], r"^choices: must be 3 integers, one per unfinished game"),
        ([0.0, 0.0, 0.0], r"^choices: must be 3 integers"),
        ([np.nan, 0, 0], r"^choices: must be 3 integers"),
        ([True, False, True], r"^choices: must be 3 integers"),
        ([0, [1], 0], r"^choices: must be 3 integers"),
        (["0", "0", "0"], r"^choices: must be 3 integers"),
        ([0, 2**70, 0], r"^choices: must be 3 integers"),
        (None, r"^choices: must be 3 integers"),
        ([0, -1, 0], r"^choices: has choice -1 for a game with \d+ moves \(choices\[1\], slot 1\)"),
        ([0, 0, 10**6], r"^choices: has choice 1000000 for a game with \d+ moves \(choices\[2\], slot 2\)"),
    ],
)
def test_bad_choices_change_nothing(implementation: ModuleType, choices: object, message: str) -> None:
    games = implementation.Games("long", 3, seed=4)
    rows, rolls = games.rows, games.rolls
    with pytest.raises(NardyError, match=message):
        games.step(choices)
    assert (games.rows == rows).all() and (games.rolls == rolls).all() and (games.plies == 0).all()
    games.step(np.zeros(3, dtype=np.uint8))  # unsigned integers are integers


def test_choices_cover_only_the_unfinished_games(implementation: ModuleType) -> None:
    games = implementation.Games("short", 3, seed=1, reset=False)
    while games.done.sum() == 0:
        games.step(np.zeros(3, dtype=np.int64))
    going = len(games.active)
    assert going < 3
    children, offsets = games.children()
    assert len(offsets) == going + 1
    with pytest.raises(NardyError, match=rf"^choices: must be {going} integers, one per unfinished game"):
        games.step(np.zeros(3, dtype=np.int64))
    step_all(games)
    with pytest.raises(
        NardyError, match=r"^choices: cannot be played: every game is over \(reset=False\) \(got \[\]\)$"
    ):
        games.step([])
    children, offsets = games.children()
    assert children.shape == (0, layout.WIDTH) and offsets.tolist() == [0]


@pytest.mark.parametrize(
    ("n", "shown"),
    [(0, "0"), (-1, "-1"), ((1 << 20) + 1, "1048577"), (1.0, "1.0"), (True, "True"), ("3", "'3'")],
)
def test_n_is_bounded(implementation: ModuleType, n: object, shown: str) -> None:
    with pytest.raises(NardyError) as caught:
        implementation.Games("long", n)
    assert str(caught.value) == f"n: must be an integer 1 <= n <= 2**20 (MAX_GAMES) (got {shown})"
    assert vector.MAX_GAMES == 1 << 20
    assert len(implementation.Games("long", np.int16(2))) == 2


@pytest.mark.parametrize(
    ("start", "keywords"),
    [
        ("backgammon", {}),
        ("long", {"seed": -1}),
        ("long", {"seed": 1.5}),
        ("long", {"opening": "none"}),
        ("long", {"stratify": 1}),
        ("long", {"first_game": -1}),
        ("long", {"first_game": 1 << 62}),
        ("long", {"block_check": "sometimes"}),
        ("long", {"no_such_flag": 1}),
        ("finished", {}),
        ("rows", {}),
        (np.zeros((2, 63), dtype=np.int8), {}),
    ],
)
def test_arguments_are_checked_as_playout_checks_them(
    implementation: ModuleType, start: object, keywords: dict[str, Any]
) -> None:
    if isinstance(start, str) and start == "finished":
        start = implementation.Position.from_text("long b 12:-15 off=15/0 first=-")
    elif isinstance(start, str) and start == "rows":
        start = np.ones((1, layout.WIDTH), dtype=np.int64)
    with pytest.raises(NardyError) as expected:
        implementation.playout(start, 2, **{"seed": 0, **keywords})
    with pytest.raises(type(expected.value)) as caught:
        implementation.Games(start, 2, **keywords)
    assert str(caught.value) == str(expected.value)


def test_own_options_are_checked(implementation: ModuleType) -> None:
    with pytest.raises(NardyError, match=r"^reset: must be True or False \(got 1\)$"):
        implementation.Games("long", 2, reset=1)
    with pytest.raises(NardyError, match=r"^keep_records: must be True or False \(got 'no'\)$"):
        implementation.Games("long", 2, keep_records="no")
    implementation.Games("long", 2, reset=np.bool_(False))


def test_the_shared_class_is_no_implementation() -> None:
    with pytest.raises(TypeError, match="shared base"):
        vector.Games("long", 2)
    assert nardy_fast.Games is _dispatch.RECORD.Games
    assert {module.Games.__doc__ for module in _dispatch.implementations().values()} == {vector.Games.__doc__}


# --- what is handed out ------------------------------------------------------------------------------------


def test_state_is_handed_out_as_copies(implementation: ModuleType) -> None:
    games = implementation.Games("gulbar", 2, seed=9)
    names = ("rows", "rolls", "numbers", "plies", "turns", "done", "winner", "points", "active")
    handed = {name: getattr(games, name) for name in names}
    saved = {name: value.copy() for name, value in handed.items()}
    for value in handed.values():
        value[...] = 1
    for name in names:
        assert np.array_equal(getattr(games, name), saved[name]), name
    children, offsets = games.children()
    for array in (children, offsets):
        assert not array.flags.writeable
        with pytest.raises(ValueError):
            array.setflags(write=True)
    # the step plays the children the search found, never the arrays handed out
    assert (games.children()[0] == children).all()
    ended = 0
    while not ended:
        step = games.step(np.zeros(2, dtype=np.int64))
        ended = len(step.games)
    step.records["winner"] = 7
    step.games[...] = -5
    step.rows[...] = 0
    kept_records = games.records()
    assert (kept_records.records["winner"] != 7).all() and (kept_records.games >= 0).all()
    assert layout.is_over(kept_records.rows).all()


def test_repr(implementation: ModuleType) -> None:
    games = implementation.Games("long", 3, seed=2, first_game=10)
    assert repr(games) == "<Games n=3 seed=2 reset=True: 3 going, next game 13>"
    assert games.n == 3 and games.seed == 2


# --- the Gymnasium vector environment ----------------------------------------------------------------------

gymnasium = pytest.importorskip("gymnasium")


def make_env(*args: Any, **keywords: Any) -> Any:
    from nardy_fast.env.vector import NardyVectorEnv

    return NardyVectorEnv(*args, **keywords)


def first_actions(observation: dict[str, Any], step: int) -> Ints:
    """A seeded rule over the mask: the legal actions only."""
    counts = observation["action_mask"].sum(axis=1)
    actions: Ints = (np.arange(len(counts)) * 5 + step) % counts
    return actions


def test_vector_env_shapes_and_spaces() -> None:
    env = make_env("short", 3, scheme="openspiel", max_actions=64)
    assert env.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    assert env.num_envs == 3 and env.single_action_space == gymnasium.spaces.Discrete(64)
    assert env.action_space == gymnasium.spaces.MultiDiscrete([64, 64, 64])
    observation, info = env.reset(seed=3)
    assert observation["observation"].shape == (3, 200) and observation["observation"].dtype == np.float32
    assert observation["action_mask"].shape == (3, 64) and observation["action_mask"].dtype == np.int8
    assert env.observation_space.contains(observation)
    assert info["game"].tolist() == [0, 1, 2] and info["_game"].all()
    rolls = info["roll"]
    assert (observation["observation"][:, 198:] == np.sort(rolls, axis=1)).all()  # OpenSpiel's dice features
    _, offsets = env.children()
    assert (np.minimum(np.diff(offsets), 64) == observation["action_mask"].sum(axis=1)).all()
    assert (info["legal_results"] == np.diff(offsets)).all()
    for step in range(5):
        observation, rewards, terminated, truncated, info = env.step(first_actions(observation, step))
        assert env.observation_space.contains(observation)
        assert rewards.shape == terminated.shape == truncated.shape == (3,)
        assert rewards.dtype == np.float64 and terminated.dtype == truncated.dtype == np.bool_
        assert info["mover"].shape == (3,)
    assert env.render() is None  # no render mode


def run(env: Any, seed: int, steps: int) -> list[Any]:
    observation, info = env.reset(seed=seed)
    seen: list[Any] = [observation, info["game"]]
    for step in range(steps):
        observation, rewards, terminated, truncated, info = env.step(first_actions(observation, step))
        seen += [observation, rewards, terminated, truncated, info["game"]]
    return seen


def same(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return bool(np.array_equal(a, b))


def test_vector_env_is_determined_by_its_seed() -> None:
    first = run(make_env("long", 2), 8, 40)
    second = run(make_env("long", 2), 8, 40)
    assert all(same(a, b) for a, b in zip(first, second))
    other = run(make_env("long", 2), 9, 40)
    assert not all(same(a, b) for a, b in zip(first, other))


def test_vector_env_autoresets_in_the_same_step() -> None:
    env = make_env("short", 3)
    observation, info = env.reset(seed=1)
    games = nardy_fast.Games("short", 3, seed=1)  # the same games stepped by hand
    ended = 0
    step = 0
    while ended < 4:
        actions = first_actions(observation, step)
        mover = games.rows[:, layout.TURN]
        finished = games.step(actions)
        observation, rewards, terminated, truncated, info = env.step(actions)
        step += 1
        assert (info["mover"] == mover).all() and (info["game"] == games.numbers).all()
        assert (observation["observation"] == nardy_fast.encode(games.rows, "nardy")).all()
        done = terminated | truncated
        assert sorted(np.flatnonzero(done).tolist()) == finished.slots.tolist()
        if not done.any():
            assert (rewards == 0).all() and "final_obs" not in info
            continue
        ended += int(done.sum())
        assert (info["_final_obs"] == done).all()
        for i, slot in enumerate(finished.slots.tolist()):
            final = info["final_obs"][slot]
            assert (final["observation"] == nardy_fast.encode(finished.rows[i], "nardy")).all()
            assert not final["action_mask"].any()
            record = finished.records[i]
            assert info["final_info"]["game"][slot] == finished.games[i]
            assert info["final_info"]["winner"][slot] == record["winner"]
            assert info["final_info"]["plies"][slot] == record["plies"]
            # the reward is the mover's: the winner bore off last, so it scores the points
            assert record["winner"] == mover[slot] and rewards[slot] == record["points"]
            assert terminated[slot] and not truncated[slot]
            assert info["game"][slot] == games.numbers[slot]
    # a reset without a seed continues with the next game numbers of the same seed
    _, info = env.reset()
    assert info["game"].tolist() == list(range(games.next_game, games.next_game + 3))


def test_vector_env_refuses_bad_input() -> None:
    env = make_env("long", 2, max_actions=4)
    with pytest.raises(NardyError, match=r"^actions: cannot be played before reset\(\)"):
        env.step([0, 0])
    with pytest.raises(NardyError, match=r"^reset: must be called first"):
        env.children()
    observation, _ = env.reset(seed=0)
    counts = observation["action_mask"].sum(axis=1)
    for bad in ([0], [0, 4], [0.0, 0.0], [-1, 0], [True, False], "00"):
        with pytest.raises(
            NardyError, match=r"^actions: must be 2 integers 0 <= action < 4, one per sub-environment"
        ):
            env.step(bad)
    if counts[1] < 4:
        with pytest.raises(
            NardyError, match=rf"^actions: has action 3 masked out: sub-environment 1 has {counts[1]} legal"
        ):
            env.step([0, 3])
    with pytest.raises(NardyError, match=r"^seed: must be an integer 0 <= seed < 2\*\*64"):
        env.reset(seed=[1, 2])
    with pytest.raises(NardyError, match=r"^num_envs: must be an integer 1 <= num_envs <= 2\*\*20"):
        make_env("long", 0)
    with pytest.raises(NardyError, match=r"^variant: must be one of"):
        make_env("backgammon", 2)
    with pytest.raises(NardyError, match=r"^scheme: encodes only variant\(s\) \('short',\), not 'long'"):
        make_env("long", 2, scheme="tdgammon")
    with pytest.raises(NardyError, match=r"^render_mode: must be None or one of \['ansi'\]"):
        make_env("long", 2, render_mode="human")
    with pytest.raises(NardyError, match=r"^block_check:"):
        make_env("long", 2, block_check="sometimes")


def test_vector_env_starts_from_a_position_and_renders() -> None:
    start = nardy_fast.Position.from_text("short w 12:1,24:-1 off=14/14")
    env = make_env("short", 2, render_mode="ansi")
    observation, _ = env.reset(seed=4, options={"start": start})
    assert (observation["observation"] == nardy_fast.encode(np.stack([start.to_array()] * 2), "nardy")).all()
    frames = env.render()
    assert frames is not None and len(frames) == 2 and frames[0] == str(start)
    with pytest.raises(NardyError, match=r'^options\["start"\]: must be an unfinished \'short\' Position'):
        env.reset(options={"start": nardy_fast.Position.start("long")})
