"""Playouts beyond the built-in loop: game numbering for shards, stratified dice, trajectories, callable
policies in lock-step, rollouts, and their bad input, in both implementations."""

from __future__ import annotations

import gc
import threading
from collections import Counter

import numpy as np
import pytest

import nardy_fast
from nardy_fast import NardyError, Rollout, dice, layout
from nardy_fast._dispatch import implementations
from nardy_fast.game import LIMITED, Game
from nardy_fast.rollouts import OUTCOMES

IMPLS = implementations()
CORE = IMPLS.get("cython")
needs_core = pytest.mark.skipif(CORE is None, reason="the core is not built")


def first_child(children: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    return np.zeros(len(offsets) - 1, dtype=np.int64)


def largest_child(children: np.ndarray, offsets: np.ndarray) -> list[int]:
    """The child whose row, read as bytes, is largest: a choice that depends on the children themselves."""
    return [
        max(range(b - a), key=lambda i: children[a + i].tobytes())
        for a, b in zip(offsets[:-1].tolist(), offsets[1:].tolist())
    ]


# --- game numbers, stratified dice ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(IMPLS))
def test_a_range_of_game_numbers_is_a_slice_of_the_whole(name: str) -> None:
    impl = IMPLS[name]
    games = 40 if name == "cython" else 8
    whole = impl.playout("gulbar", games, seed=5)
    part = impl.playout("gulbar", games - 2, seed=5, first_game=2)
    assert np.array_equal(whole[2:], part)
    rows = np.stack([impl.Position.start(v).to_array() for v in ("long", "short", "sixone")])
    whole = impl.playout(rows, games, seed=5)
    part = impl.playout(rows, games - 4, seed=5, first_game=4)
    assert np.array_equal(whole[4:], part)
    assert list(part["start"][:3]) == [4 % 3, 5 % 3, 6 % 3]


def test_stratified_rolls_cover_every_pair_of_first_two_rolls_once() -> None:
    pairs = Counter((dice.roll(0, g, 0, True), dice.roll(0, g, 1, True)) for g in range(1296))
    assert len(pairs) == 1296 and set(pairs.values()) == {1}
    assert dice.roll(0, 37, 0, True) == (1, 2) and dice.roll(0, 37, 1, True) == (1, 2)  # pair 1 = (1, 2)
    assert dice.roll(3, 5, 2, True) == dice.roll(3, 5, 2)  # the third roll is drawn as usual


@needs_core
def test_the_cores_game_rolls_are_the_published_ones() -> None:
    games = np.array([0, 1, 35, 36, 1295, 10**12, 2**62], dtype=np.int64)
    for stratify in (False, True):
        for counter in (0, 1, 2, 7):
            counters = np.full(len(games), counter, dtype=np.int64)
            expected = dice.game_rolls(9, games, counters, stratify)
            assert np.array_equal(CORE._core.game_rolls(9, games, counters, stratify), expected)  # type: ignore[union-attr]
            assert [tuple(r) for r in expected] == [dice.roll(9, int(g), counter, stratify) for g in games]


# --- trajectories -----------------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("variant", nardy_fast.VARIANTS)
def test_trajectories_replay_the_games(variant: str) -> None:
    """Each game's positions run from its start to its end, each the result of a legal move from the one before
    for the roll recorded (the first legal move under "first"), and both implementations and both ways of
    playing (the built-in loop, a callable policy in lock-step) record the same."""
    games = 12 if variant != "crazy" else 2
    found = {}
    for name, impl in IMPLS.items():
        for policy in ("random", "first", first_child):
            if name == "python" and variant == "crazy" and policy != "random":
                continue  # the reference's crazy ladders under "first" take minutes
            records, (rows, rolls, offsets) = impl.playout(
                variant, games, seed=2, policy=policy, trajectories=True, threads=2, batch=5
            )
            found[name, str(policy)] = (records, rows, rolls, offsets)
            assert offsets[0] == 0 and list(np.diff(offsets)) == list(records["plies"] + 1)
            if name == "python" and CORE is not None:
                continue  # compared with the core's below
            for g in range(games):
                path = rows[offsets[g] : offsets[g + 1]]
                played = rolls[offsets[g] : offsets[g + 1]]
                assert layout.is_over(path[-1:])[0] and not layout.is_over(path[:-1]).any()
                assert tuple(played[-1]) == (0, 0)
                for parent, child, roll in zip(path[:-1], path[1:], played[:-1]):
                    dice_ = None if roll[0] == 0 else (int(roll[0]), int(roll[1]))
                    results = [r.tobytes() for r in impl.children(parent, dice_)]
                    assert child.tobytes() in results
                    if policy != "random":
                        assert child.tobytes() == results[0]
    for (name, policy), value in found.items():
        if CORE is not None:
            assert all(np.array_equal(a, b) for a, b in zip(value, found["cython", policy]))
        if policy != "random":  # the callable that takes the first child plays the built-in "first"
            assert all(np.array_equal(a, b) for a, b in zip(value, found[name, "first"]))


# --- callable policies -------------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("variant", nardy_fast.VARIANTS)
def test_a_callable_policy_plays_what_the_game_loop_plays(variant: str) -> None:
    games = 30 if variant != "crazy" else 2
    for name, impl in IMPLS.items():
        if name == "python":
            games = min(games, 4)
        found = impl.playout(variant, games, seed=7, policy=largest_child, batch=3)
        for g in range(games):
            game = Game(variant, seed=7, game=g, position_class=impl.Position)
            while not game.is_over():
                moves = game.legal_moves()
                game.play(max(moves, key=lambda m: m.result.to_array().tobytes()))
            won = found[g]
            assert ("white", "black")[won["winner"]] == game.winner()
            assert (won["points"], won["plies"], won["turns"]) == (game.points(), game.plies, game.turns)


@needs_core
def test_callable_policies_do_not_depend_on_batch_or_threads() -> None:
    one = nardy_fast.playout("long", 50, seed=3, policy=largest_child, batch=1000)
    assert np.array_equal(one, nardy_fast.playout("long", 50, seed=3, policy=largest_child, batch=7))
    assert np.array_equal(
        one, nardy_fast.playout("long", 50, seed=3, policy=largest_child, batch=4, threads=3)
    )


@needs_core
def test_a_policy_sees_read_only_children_of_unfinished_games() -> None:
    seen = []

    def policy(children: np.ndarray, offsets: np.ndarray) -> np.ndarray:
        assert (
            children.shape[1] == nardy_fast.WIDTH and children.dtype == np.int8 and offsets.dtype == np.int64
        )
        assert offsets[0] == 0 and offsets[-1] == len(children) and (np.diff(offsets) >= 1).all()
        with pytest.raises(ValueError):
            children[0, 0] = 1
        with pytest.raises(ValueError):
            children.flags.writeable = True
        seen.append(len(offsets) - 1)
        return np.zeros(len(offsets) - 1, dtype=np.int64)

    records = nardy_fast.playout("short", 10, seed=1, policy=policy, batch=4)
    # batches of 4, 4 and 2 games, each called once per ply while one of its games goes on
    assert (
        seen[0] == 4
        and max(seen) == 4
        and len(seen) == sum(int(records["plies"][a:b].max()) for a, b in ((0, 4), (4, 8), (8, 10)))
    )


class PolicyError(Exception):
    pass


@pytest.mark.parametrize("threads", [1, 2])
def test_an_exception_in_a_policy_propagates_unchanged(threads: int) -> None:
    for impl in IMPLS.values():
        calls = []

        def policy(children: np.ndarray, offsets: np.ndarray) -> np.ndarray:
            calls.append(1)
            if len(calls) == 5:
                raise PolicyError("model crashed")
            return np.zeros(len(offsets) - 1, dtype=np.int64)

        with pytest.raises(PolicyError, match="model crashed"):
            impl.playout("long", 6, seed=1, policy=policy, threads=threads, batch=3)


@needs_core
def test_a_policy_may_call_back_into_the_package() -> None:
    def policy(children: np.ndarray, offsets: np.ndarray) -> np.ndarray:
        nardy_fast.playout("short", 2, seed=9)  # re-entrant: another playout inside the policy
        nardy_fast.batch_children(children[:3], (3, 1))
        gc.collect()
        return np.zeros(len(offsets) - 1, dtype=np.int64)

    assert np.array_equal(
        nardy_fast.playout("short", 4, seed=2, policy=policy),
        nardy_fast.playout("short", 4, seed=2, policy="first"),
    )


@needs_core
def test_playouts_on_many_threads_at_once() -> None:
    expected = nardy_fast.playout("gulbar", 40, seed=4)
    results: list[bool] = []

    def work() -> None:
        results.append(np.array_equal(nardy_fast.playout("gulbar", 40, seed=4, threads=2), expected))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [True] * 4


@needs_core
def test_rows_changed_by_another_thread_during_playouts() -> None:
    """The playout copies its starting rows before checking them: a thread that keeps overwriting the caller's
    array with garbage gives errors or the games of the rows as they were, never a crash."""
    rows = np.stack([nardy_fast.Position.start(v).to_array() for v in ("long", "short", "gulbar")])
    expected = nardy_fast.playout(rows, 60, seed=2, threads=2)
    garbage = np.full_like(rows, 100)
    shared = rows.copy()
    stop = threading.Event()

    def scribble() -> None:
        while not stop.is_set():
            shared[:] = garbage
            shared[:] = rows

    writer = threading.Thread(target=scribble)
    writer.start()
    try:
        outcomes = set()
        for _ in range(30):
            try:
                found = nardy_fast.playout(shared, 60, seed=2, threads=2)
            except NardyError:
                outcomes.add("error")
            else:
                assert np.array_equal(found, expected)
                outcomes.add("games")
    finally:
        stop.set()
        writer.join()
    assert outcomes


@pytest.mark.parametrize(
    ("returned", "message"),
    [
        (lambda n: np.zeros(n + 1, dtype=np.int64), r"^policy: must return \d+ integer choices"),
        (lambda n: np.zeros((n, 1), dtype=np.int64), r"^policy: must return \d+ integer choices"),
        (lambda n: np.zeros(n), r"^policy: must return \d+ integer choices"),
        (lambda n: np.zeros(n, dtype=bool), r"^policy: must return \d+ integer choices"),
        (lambda n: None, r"^policy: must return \d+ integer choices"),
        (lambda n: ["a"] * n, r"^policy: must return \d+ integer choices"),
        (lambda n: np.full(n, -1), r"^policy: returned choice -1 for a game with \d+ moves"),
        (lambda n: np.full(n, 10**6), r"^policy: returned choice 1000000 for a game with \d+ moves"),
    ],
)
def test_bad_choices_are_refused_alike(returned: object, message: str) -> None:
    errors = set()
    for impl in IMPLS.values():
        with pytest.raises(NardyError, match=message) as caught:
            impl.playout("long", 3, seed=1, policy=lambda c, o: returned(len(o) - 1))  # type: ignore[operator]
        errors.add(str(caught.value))
    assert len(errors) == 1


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"first_game": -1}, "first_game"),
        ({"first_game": 2**62}, "first_game"),
        ({"first_game": 1.5}, "first_game"),
        ({"batch": 0}, "batch"),
        ({"batch": "10"}, "batch"),
        ({"stratify": 1}, "stratify"),
        ({"trajectories": "yes"}, "trajectories"),
        ({"policy": 3}, "policy"),
    ],
)
def test_bad_playout_options(kwargs: dict[str, object], field: str) -> None:
    errors = set()
    for impl in IMPLS.values():
        with pytest.raises(NardyError) as caught:
            impl.playout("long", 2, seed=0, **kwargs)
        assert str(caught.value).startswith(field + ":")
        errors.add(str(caught.value))
    assert len(errors) == 1


# --- rollouts ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(IMPLS))
def test_a_race_rolled_out_by_hand(name: str) -> None:
    """White's last checker is on its 12 point, Black's on its 1 point, 14 off each. Black bears off with any
    roll; White only with a double of 3 or more (3-3: 12/9/6/3/off; 6-6: 12/6/off), 4 of the 36 first rolls.
    Stratified, 1,296 games give each first roll 36 times: White wins exactly 4 x 36 of them, singles."""
    position = IMPLS[name].Position.from_text("short w 12:1,24:-1 off=14/14")
    found = IMPLS[name].rollout(position, 1296, seed=3)
    assert found == Rollout((144, 0, 0, 1152, 0, 0), 0, "white")
    assert found.probabilities["white_single"] == pytest.approx(1 / 9)
    assert found.equity == pytest.approx(1 / 9 - 8 / 9)
    assert found.stderr["white_single"] == pytest.approx(((1 / 9) * (8 / 9) / 1295) ** 0.5)


@pytest.mark.parametrize(
    ("text", "outcome", "equity"),
    [
        # any roll bears the last White checker off; Black has borne off none and has 15 in White's home: koks
        ("short w 1:1,2:-15 off=14/0 first=-", "white_koks", 3.0),
        # the long family has no koks: a mars
        ("long w 1:1,2:-15 off=14/0 first=-", "white_mars", 2.0),
        # Black to move bears its last checker off, White has one off: single, the side to move wins
        ("long b 12:-1,24:15 off=0/14 first=-", "black_mars", 2.0),
    ],
)
def test_certain_outcomes(text: str, outcome: str, equity: float) -> None:
    for impl in IMPLS.values():
        found = impl.rollout(impl.Position.from_text(text), 40, seed=1, stratify=False)
        assert found.counts[OUTCOMES.index(outcome)] == 40 and found.equity == equity
        assert found.stderr[outcome] == 0.0 and found.equity_stderr == 0.0


@needs_core
def test_rollouts_combine_and_agree_across_implementations() -> None:
    position = nardy_fast.Position.from_text("gulbar w 1:3,3:2,5:-2,12:-11,20:-2,24:10 first=-")
    whole = nardy_fast.rollout(position, 300, seed=8)
    parts = [
        nardy_fast.rollout(position, n, seed=8, first_game=a) for a, n in ((0, 100), (100, 150), (250, 50))
    ]
    assert Rollout.combine(parts) == whole and whole.games == 300
    assert sum(whole.probabilities.values()) == pytest.approx(1 - whole.unfinished / 300)
    reference = IMPLS["python"]
    small = reference.rollout(reference.Position.from_text(position.to_text()), 8, seed=8)
    assert small == nardy_fast.rollout(position, 8, seed=8)
    assert str(whole).startswith("300 games, white to move; equity")


#: A race of fifteen checkers a side, whose rolls have from a handful to hundreds of results
LONG_RACE = "long w 7:3,8:3,9:3,10:3,11:3,19:-3,20:-3,21:-3,22:-3,23:-3 first=-"
LONG_HOME = "long w 1:3,2:3,3:3,4:3,5:3,13:-3,14:-3,15:-3,16:-3,17:-3 first=-"


@pytest.mark.parametrize(("text", "truncate", "bound"), [(LONG_HOME, None, 20), (LONG_RACE, "bearoff", 40)])
def test_a_rollout_gives_up_the_games_over_max_results(text: str, truncate: object, bound: int) -> None:
    """``max_results`` bounds a rollout's plies as it bounds a playout's: a game at a ply whose search is
    over it is given up (winner LIMITED in the playout's records) and counted with the unfinished games,
    truncated rollouts included; both implementations count the same games (the truncated rollout in the core
    alone: the reference would first build the fifteen-checker bear-off table, minutes of its time)."""
    if truncate is not None and "cython" not in IMPLS:
        pytest.skip("the reference alone would first build the fifteen-checker bear-off table (minutes)")
    found = {}
    for name, impl in IMPLS.items():
        if truncate is not None and name == "python":
            continue
        position = impl.Position.from_text(text)
        bounded = impl.rollout(position, 100, seed=4, stratify=False, max_results=bound, truncate=truncate)
        records = impl.playout(position, 100, seed=4, max_results=bound, truncate=truncate)
        winners = records["winner"]
        limited = int(np.count_nonzero(winners == LIMITED))
        assert 0 < limited < 100  # the bound gives some games up, and not all
        assert bounded.unfinished == limited + int(np.count_nonzero(winners == -1))
        assert sum(bounded.counts) + bounded.unfinished + bounded.truncated == bounded.games == 100
        assert bounded.truncated == int(np.count_nonzero(winners == -2))
        if truncate is None:
            assert bounded == Rollout.from_records(records, position.turn)
            # a bound no ply reaches changes nothing (the race's plies unbounded take the reference minutes)
            unbounded = impl.rollout(position, 100, seed=4, stratify=False)
            assert impl.rollout(position, 100, seed=4, stratify=False, max_results=1 << 40) == unbounded
        found[name] = bounded
    assert len(set(found.values())) == 1, found


def test_bad_rollout_input() -> None:
    for impl in IMPLS.values():
        with pytest.raises(NardyError, match=r"^position: must be a Position"):
            impl.rollout("short", 10, seed=1)
        with pytest.raises(NardyError, match=r"^position: is a finished game"):
            impl.rollout(impl.Position.from_text("long w 13:-1 off=15/14 first=-"), 10, seed=1)
        with pytest.raises(NardyError, match=r"^games"):
            impl.rollout(impl.Position.start("short"), 0, seed=1)
        for bad in (0, -1, 2.5, "3", True):
            with pytest.raises(NardyError) as caught:
                impl.rollout(impl.Position.start("short"), 36, seed=1, stratify=False, max_results=bad)
            with pytest.raises(NardyError) as expected:
                impl.playout("short", 36, seed=1, max_results=bad)
            assert str(caught.value) == str(expected.value)
            assert str(caught.value).startswith("max_results: must be a positive integer or None (got ")
    with pytest.raises(NardyError, match=r"^parts"):
        Rollout.combine([])
    with pytest.raises(NardyError, match=r"^parts"):
        Rollout.combine([Rollout((1, 0, 0, 0, 0, 0), 0, "white"), Rollout((1, 0, 0, 0, 0, 0), 0, "black")])
    with pytest.raises(NardyError, match=r"^counts"):
        Rollout((1, 2), 0, "white")
    with pytest.raises(NardyError, match=r"^turn"):
        Rollout((1, 0, 0, 0, 0, 0), 0, "red")
