"""Duels (nardy_fast.duel) on duplicate dice: a policy against itself scores exactly 0 in every variant; each
pair of games is played on the dice of one playout game with ``a``'s seat swapped (checked against
``playout`` and against what a recording policy is shown); the result's counts, ``ppg``, ``stderr`` and
``win_rate`` by hand from its points; the reference and the core agreeing point for point; progress; and bad
input, the same NardyError in both implementations.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from ids import stable_repr
from test_evaluation import Linear, same_error

import nardy_fast
from nardy_fast import DuelResult, Greedy
from nardy_fast._dispatch import implementations

IMPLS = implementations()


def white_points(records: npt.NDArray[np.void]) -> npt.NDArray[np.int64]:
    """What White scored in each playout game: + the points of its wins, - those of its losses, 0 unfinished."""
    winner = records["winner"].astype(np.int64)
    points = records["points"].astype(np.int64)
    return np.where(winner == 0, points, np.where(winner == 1, -points, 0))


class Seen:
    """A callable policy that plays the first move and keeps what it was shown at each call."""

    def __init__(self) -> None:
        self.calls: list[tuple[npt.NDArray[np.int8], npt.NDArray[np.int64]]] = []

    def __call__(
        self, children: npt.NDArray[np.int8], offsets: npt.NDArray[np.int64]
    ) -> npt.NDArray[np.int64]:
        self.calls.append((np.array(children), np.array(offsets)))
        return np.zeros(len(offsets) - 1, dtype=np.int64)


# --- a policy against itself -------------------------------------------------------------------------------------


def assert_even(result: DuelResult, games: int) -> None:
    p = result.points.astype(np.int64)
    assert result.games == games and p.shape == (games,)
    np.testing.assert_array_equal(p[0::2], -p[1::2])  # each pair: the same game, a in the other seat
    assert result.ppg == 0.0 and result.stderr == 0.0
    finished = int((p != 0).sum())
    assert result.win_rate == (finished / 2) / games
    c = result.counts
    assert (c["win_single"], c["win_mars"], c["win_koks"]) == (
        c["lose_single"],
        c["lose_mars"],
        c["lose_koks"],
    )


@pytest.mark.parametrize("variant", nardy_fast.VARIANTS)
@pytest.mark.parametrize("policy", ["random", "first"])
def test_a_policy_against_itself_scores_zero(variant: str, policy: str) -> None:
    # crazy ladders can have very many moves to list: fewer games, on dice that keep them few
    games, seed = (6, 3) if variant == "crazy" else (20, 11)
    result = nardy_fast.duel(policy, policy, variant, games, seed=seed)
    assert_even(result, games)
    assert (result.points != 0).any()


@pytest.mark.parametrize(
    ("variant", "games"), [("long", 6), ("short", 4), ("sixone", 4), ("gulbar", 6), ("crazy", 2)]
)
def test_a_greedy_python_evaluator_against_itself_scores_zero(variant: str, games: int) -> None:
    result = nardy_fast.duel(Greedy(Linear()), Linear(), variant, games, seed=2)
    assert_even(result, games)


# --- duplicate dice, seats -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(IMPLS))
@pytest.mark.parametrize("policy", ["random", "first"])
@pytest.mark.parametrize("variant", ["short", "gulbar"])
def test_pair_k_plays_the_dice_of_playout_game_k(name: str, policy: str, variant: str) -> None:
    module = IMPLS[name]
    games = 2 if name == "python" else 12
    records = nardy_fast.playout(variant, games, seed=9, first_game=40, policy=policy)
    result = module.duel(policy, policy, variant, 2 * games, seed=9, first_game=40)
    expected = white_points(records)
    np.testing.assert_array_equal(result.points[0::2], expected)  # a is White in game 2k
    np.testing.assert_array_equal(result.points[1::2], -expected)  # and Black in game 2k + 1


@pytest.mark.parametrize("name", sorted(IMPLS))
def test_a_pair_shares_its_dice_with_the_seats_swapped(name: str) -> None:
    module = IMPLS[name]
    seen = Seen()
    result = module.duel(seen, "first", "short", 2, seed=5, first_game=3, batch=1)
    _, paths = nardy_fast.playout("short", 1, seed=5, first_game=3, policy="first", trajectories=True)
    # both games are the same game (both sides play the first move on the same dice): at every ply exactly one
    # of the two has ``a`` to move, so ``a`` is called once per ply with one game, and sees its moves
    plies = len(paths.rows) - 1
    assert len(seen.calls) == plies
    for t, (children, offsets) in enumerate(seen.calls):
        assert offsets.tolist() == [0, len(children)]
        expected, _, _ = nardy_fast.batch_children(paths.rows[t : t + 1], paths.rolls[t : t + 1])
        np.testing.assert_array_equal(children, expected)
    white = int(white_points(nardy_fast.playout("short", 1, seed=5, first_game=3, policy="first"))[0])
    assert result.points.tolist() == [white, -white] and white != 0


def test_a_seat_aware_policy_sees_both_seats() -> None:
    # a chooses by whose turn follows: in game 2k it plays White, in 2k + 1 Black (its children then have
    # the other side, mostly, to move)
    turns: list[int] = []

    def policy(children: npt.NDArray[np.int8], offsets: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        turns.extend(int(children[a, nardy_fast.layout.TURN]) for a in offsets[:-1])
        return np.zeros(len(offsets) - 1, dtype=np.int64)

    nardy_fast.duel(policy, "random", "long", 2, seed=1, batch=1)
    assert set(turns) == {0, 1}


# --- the result by hand ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(IMPLS))
def test_the_result_by_hand(name: str) -> None:
    module = IMPLS[name]
    games = 8 if name == "python" else 40
    result = module.duel("random", "first", "short", games, seed=3)
    points = result.points.astype(np.int64).tolist()
    assert len(points) == games and all(p in (-3, -2, -1, 0, 1, 2, 3) for p in points)
    assert result.ppg == pytest.approx(sum(points) / games, abs=1e-15)
    pair_means = [(points[2 * k] + points[2 * k + 1]) / 2 for k in range(games // 2)]
    assert result.stderr == pytest.approx(statistics.stdev(pair_means) / math.sqrt(games // 2), rel=1e-12)
    assert result.win_rate == sum(p > 0 for p in points) / games
    tally = Counter(points)
    expected = {
        "win_single": tally[1], "win_mars": tally[2], "win_koks": tally[3],
        "lose_single": tally[-1], "lose_mars": tally[-2], "lose_koks": tally[-3], "unfinished": tally[0],
    }  # fmt: skip
    assert result.counts == expected and sum(result.counts.values()) == games
    assert result.a == "'random'" and result.b == "'first'" and result.variant == "short" and result.seed == 3
    assert f"{result.ppg:+.3f} ppg" in str(result)
    one_pair = module.duel("random", "first", "short", 2, seed=3)
    assert one_pair.stderr == 0.0 and one_pair.points.tolist() == points[:2]


def test_names_of_the_players() -> None:
    result = nardy_fast.duel(Greedy(Linear()), "random", "long", 2, seed=1)
    assert result.a.startswith("Greedy(") and result.b == "'random'"


@pytest.mark.parametrize("name", sorted(IMPLS))
def test_progress(name: str) -> None:
    calls: list[int] = []
    games, batch, expected = (6, 1, [2, 4, 6]) if name == "python" else (10, 2, [4, 8, 10])
    result = IMPLS[name].duel("random", "first", "short", games, seed=1, batch=batch, progress=calls.append)
    assert calls == expected
    calls.clear()
    IMPLS[name].duel("random", "first", "short", 4, seed=1, progress=calls.append)
    assert calls == [4]
    # the batches split the work only
    again = IMPLS[name].duel("random", "first", "short", games, seed=1, batch=1000)
    np.testing.assert_array_equal(again.points, result.points)


# --- the reference and the core ---------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", ["long", "short", "gulbar"])
@pytest.mark.parametrize(
    ("a", "b"),
    [("random", "first"), ("first", "random"), ("greedy", "random"), ("first", "greedy")],
)
def test_the_reference_duel_is_the_cores(variant: str, a: str, b: str) -> None:
    greedy = Greedy(Linear())

    def player(p: str) -> object:
        return greedy if p == "greedy" else p

    core = nardy_fast.duel(player(a), player(b), variant, 4, seed=13, first_game=2)
    reference = nardy_fast.reference.duel(player(a), player(b), variant, 4, seed=13, first_game=2)
    assert reference.points.dtype == core.points.dtype
    assert reference.points.tolist() == core.points.tolist()
    assert (reference.a, reference.b) == (core.a, core.b)


def test_flags_are_rule_flags() -> None:
    flagged = nardy_fast.duel("first", "first", "long", 8, seed=4, block_check="per_step")
    reference = nardy_fast.reference.duel("first", "first", "long", 4, seed=4, block_check="per_step")
    assert flagged.points.tolist()[:4] == reference.points.tolist()
    records = nardy_fast.playout("long", 4, seed=4, policy="first", block_check="per_step")
    np.testing.assert_array_equal(flagged.points[0::2], white_points(records))


# --- bad input --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("games", [0, 1, 3, -2, 2.0, True, "4", None, 2**31, np.array([2])], ids=stable_repr)
def test_bad_games(games: object) -> None:
    message = same_error(lambda m: m.duel("random", "first", "short", games))
    assert message.startswith("games: must be an even integer")


def test_numpy_games() -> None:
    assert nardy_fast.duel("random", "first", "short", np.int64(4), seed=1).games == 4  # type: ignore[call-overload]


@pytest.mark.parametrize("variant", ["shortt", "", 3, None, "SHORT", np.array(["short"])], ids=stable_repr)
def test_bad_variant(variant: object) -> None:
    message = same_error(lambda m: m.duel("random", "first", variant, 2))
    assert message.startswith("variant: ")


@pytest.mark.parametrize("what", ["position", "row", "rows"])
def test_a_position_is_no_variant(what: str) -> None:
    def start(m: Any) -> object:
        p = m.Position.start("short")
        return {"position": p, "row": p.to_array(), "rows": p.to_array()[None, :]}[what]

    message = same_error(lambda m: m.duel("random", "first", start(m), 2))
    assert message.startswith("variant: must be one of")


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"seed": -1}, "seed"),
        ({"seed": "1"}, "seed"),
        ({"batch": 0}, "batch"),
        ({"first_game": -1}, "first_game"),
        ({"block_check": "sometimes"}, "block_check"),
        ({"no_such_flag": 1}, "no_such_flag"),
    ],
)
def test_bad_options(kwargs: dict[str, object], field: str) -> None:
    message = same_error(lambda m: m.duel("random", "first", "long", 2, **kwargs))
    assert message.startswith(f"{field}: ")


@pytest.mark.parametrize("side", ["a", "b"])
@pytest.mark.parametrize("value", [42, None, object(), b"random", np.array(["random"])], ids=stable_repr)
def test_bad_players(side: str, value: object) -> None:
    players = {"a": "random", "b": "first", side: value}
    message = same_error(lambda m: m.duel(players["a"], players["b"], "short", 2))
    assert message.startswith(f"{side}: must be one of ('random', 'first'), a Greedy, an evaluator")


def test_a_builtin_evaluator_is_checked_against_the_variant() -> None:
    message = same_error(lambda m: m.duel("pubeval", "random", "long", 2))
    assert message.startswith("evaluator: ")
    message = same_error(lambda m: m.duel("random", Greedy("race"), "short", 2))
    assert "is not a race" in message


# --- built-in evaluators ----------------------------------------------------------------------------------------


BUILTIN_DUELS = [("heuristic", "long"), ("heuristic", "gulbar"), ("heuristic", "short"), ("pubeval", "short")]


@pytest.mark.parametrize(("name", "variant"), BUILTIN_DUELS)
def test_builtin_evaluators_against_themselves(name: str, variant: str) -> None:
    result = nardy_fast.duel(name, Greedy(name), variant, 10, seed=6)
    assert_even(result, 10)
    assert result.a == result.b == repr(Greedy(name)) == f"Greedy({name!r}, plies=0)"


@pytest.mark.parametrize(
    ("name", "variant"),
    [pytest.param(*d, marks=pytest.mark.slow) if d[0] == "heuristic" else d for d in BUILTIN_DUELS],
)
def test_builtin_duel_of_the_reference_is_the_cores(name: str, variant: str) -> None:
    core = nardy_fast.duel(name, "random", variant, 2, seed=6)
    reference = nardy_fast.reference.duel(name, "random", variant, 2, seed=6)
    assert core.points.tolist() == reference.points.tolist()
