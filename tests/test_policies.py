"""The policy registry (nardy_fast.policies): which values are policies (``"random"``, ``"first"``,
:class:`Greedy`, callables, and where allowed evaluators), the errors for the others, ``Greedy``'s checks and
its repr; and greedy playouts and rollouts: the same records in both implementations, for any number of threads
and batch size, each move played the first move of ``Position.hint`` with the same evaluator and depth.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from ids import stable_repr
from test_evaluation import RACE, Linear, Recorder, same_error

import nardy_fast
from nardy_fast import Greedy, NardyError
from nardy_fast._dispatch import implementations
from nardy_fast.evaluation.evaluators import Builtin
from nardy_fast.kernels import Seat
from nardy_fast.playouts import PlayoutOptions, check_playout
from nardy_fast.policies import Callback, First, Player, Random, resolve_policy
from nardy_fast.turns import POLICIES

IMPLS = implementations()
CORE = IMPLS.get("cython")
needs_core = pytest.mark.skipif(CORE is None, reason="the core is not built")


def first_child(children: npt.NDArray[np.int8], offsets: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    return np.zeros(len(offsets) - 1, dtype=np.int64)


# --- resolve_policy ---------------------------------------------------------------------------------------------


START = nardy_fast.Position.start("short").to_array()[None, :]


def seat_of(player: object) -> Seat:
    assert isinstance(player, Player)
    return player.seat(nardy_fast.Position.kernels, START)


def test_the_policies_it_accepts() -> None:
    assert resolve_policy("random") == Random() and repr(resolve_policy("random")) == "'random'"
    assert resolve_policy("first") == First() and resolve_policy(np.str_("first")) == First()
    assert resolve_policy(Random()) == Random() and resolve_policy(First()) != Random()
    assert seat_of(Random()) == Seat(POLICIES.index("random"))
    assert seat_of(First()) == Seat(POLICIES.index("first"))
    g = Greedy(Linear(), plies=1)
    assert resolve_policy(g) is g and seat_of(g).policy == -1 and seat_of(g).chooser is not None
    seat = seat_of(resolve_policy(Greedy("pubeval")))
    assert seat.evaluator == nardy_fast.EVALUATORS.index("pubeval") and seat.policy == 0
    found = resolve_policy(first_child)
    assert isinstance(found, Callback) and found.callback is first_child and repr(found) == repr(first_child)
    assert seat_of(found).policy == -1 and resolve_policy(found) is found


def test_evaluators_where_they_are_allowed() -> None:
    for name in nardy_fast.EVALUATORS:
        found = resolve_policy(name, "a", evaluators=True)
        assert isinstance(found, Greedy)
        assert found.resolved == Builtin(name) and found.plies == 0
        assert repr(found) == f"Greedy({name!r}, plies=0)"
        if name != "race":  # the race evaluator refuses START, a position in contact
            assert seat_of(found).evaluator == nardy_fast.EVALUATORS.index(name)
    e = Linear()
    found = resolve_policy(e, "a", evaluators=True)
    assert isinstance(found, Greedy) and found.resolved is e and found.plies == 0
    found = resolve_policy(Builtin("race"), "a", evaluators=True)
    assert isinstance(found, Greedy) and found.resolved == Builtin("race")
    # the policies stay policies
    assert resolve_policy("random", "a", evaluators=True) == Random()
    assert isinstance(resolve_policy(first_child, "a", evaluators=True), Callback)


def test_a_policy_class_and_subclasses_of_the_built_ins_are_refused() -> None:
    """A class is no policy (it would be called as a callable policy); a subclass of a built-in policy
    would choose one way in Python and play its built-in seat in the loops, so it is refused too."""
    for value in (Random, First, Greedy, Callback):
        with pytest.raises(NardyError, match=rf"^policy: must be a policy, such as {value.__name__}\(\), not"):
            resolve_policy(value)

    class Mine(Random):
        __slots__ = ()

    with pytest.raises(NardyError, match=r"^policy: must be one of"):
        resolve_policy(Mine())
    for impl in IMPLS.values():
        with pytest.raises(NardyError, match=r"^policy: must be a policy, such as First\(\)"):
            impl.playout("short", 2, policy=First)
        with pytest.raises(NardyError, match=r"^a: must be one of"):
            impl.duel(Mine(), "random", "short", 2)


def test_an_uninitialised_callback_is_refused() -> None:
    with pytest.raises(NardyError, match="Callback"):
        resolve_policy(Callback.__new__(Callback))


def test_a_seat_for_lock_step_is_refused_by_the_game_loops() -> None:
    """A seat the engine plays by its chooser alone, handed to a playout kernel directly, is an error in
    both implementations (the same words), never a game played by some other policy."""
    args = check_playout("short", 2, 1, PlayoutOptions())
    seat = seat_of(Callback(first_child))
    for impl in IMPLS.values():
        with pytest.raises(NardyError, match=r"^seat: is played by its chooser in lock-step"):
            impl.Position.kernels.playout(args._replace(seats=(seat, seat)))


NOT_POLICIES = [42, None, b"random", ["random"], np.array(["random"]), 1.5, True, object()]


@pytest.mark.parametrize("value", [*NOT_POLICIES, "rand", "", "Random", "heuristic"], ids=stable_repr)
def test_what_is_not_a_policy(value: object) -> None:
    with pytest.raises(NardyError) as info:
        resolve_policy(value, "opponent")
    assert str(info.value).startswith("opponent: must be one of ('random', 'first'), a Greedy or a callable")


@pytest.mark.parametrize("value", NOT_POLICIES, ids=stable_repr)
def test_what_is_neither_a_policy_nor_an_evaluator(value: object) -> None:
    with pytest.raises(NardyError) as info:
        resolve_policy(value, "opponent", evaluators=True)
    message = str(info.value)
    assert message.startswith("opponent: must be one of ('random', 'first'), a Greedy, an evaluator")


def test_an_evaluator_is_no_policy_where_evaluators_are_not_allowed() -> None:
    for value in ("heuristic", Linear()):
        with pytest.raises(
            NardyError, match=r"^policy: must be one of \('random', 'first'\), a Greedy or a callable"
        ):
            resolve_policy(value)
        message = same_error(lambda m: m.playout("short", 2, policy=value))
        assert message.startswith("policy: ")


@pytest.mark.parametrize("name", ["heuristik", "rand", "", "Random"])
def test_an_unknown_name_is_named_as_the_argument(name: str) -> None:
    # where evaluators stand for policies, an unknown name is the error of the argument that holds it (a
    # misspelt "random" is not only a bad evaluator)
    with pytest.raises(NardyError) as info:
        resolve_policy(name, "a", evaluators=True)
    assert str(info.value).startswith("a: ")
    message = same_error(lambda m: m.duel("random", name, "short", 2))
    assert message.startswith("b: ")


# --- Greedy -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", nardy_fast.EVALUATORS)
@pytest.mark.parametrize("plies", [0, 1, 2])
def test_greedy_repr_pastes_back(name: str, plies: int) -> None:
    g = Greedy(name, plies=plies)
    back = eval(repr(g), {"Greedy": Greedy})  # noqa: S307 - what the repr is for
    assert isinstance(back, Greedy)
    assert back.evaluator == name and back.plies == plies and back.resolved == Builtin(name)
    assert repr(back) == repr(g) == f"Greedy({name!r}, plies={plies})"
    back = eval(repr(Greedy(Builtin(name), plies=plies)), {"Greedy": Greedy})  # noqa: S307
    assert back.resolved == Builtin(name) and back.plies == plies


def test_greedy_defaults_and_numpy_plies() -> None:
    g = Greedy()
    assert g.evaluator == "net" and g.plies == 0 and g.resolved == Builtin("net")  # the shipped networks
    g = Greedy("race", plies=np.int64(2))  # type: ignore[arg-type]
    assert g.plies == 2 and type(g.plies) is int
    assert Greedy(Linear()).plies == 0


@pytest.mark.parametrize("plies", [3, -1, 1.5, "1", True, np.True_, None])
def test_greedy_bad_plies(plies: object) -> None:
    with pytest.raises(NardyError, match=r"^plies: must be an integer 0\.\.2"):
        Greedy("heuristic", plies=plies)  # type: ignore[arg-type]
    with pytest.raises(NardyError, match=r"^plies: "):
        Greedy(Linear(), plies=plies)  # type: ignore[arg-type]


@pytest.mark.parametrize("evaluator", ["nope", "", 42, None, first_child, np.array(["heuristic"])], ids=stable_repr)
def test_greedy_bad_evaluator(evaluator: object) -> None:
    with pytest.raises(NardyError, match=r"^evaluator: must be one of \('race', 'pubeval', 'heuristic', 'net', 'network'\)"):
        Greedy(evaluator)  # type: ignore[arg-type]


# --- greedy playouts ----------------------------------------------------------------------------------------------


def records_equal(a: npt.NDArray[np.void], b: npt.NDArray[np.void]) -> None:
    assert a.dtype == b.dtype and len(a) == len(b)
    assert a.tolist() == b.tolist()


@pytest.mark.parametrize(("variant", "games"), [("long", 3), ("sixone", 3), ("gulbar", 3), ("short", 2)])
def test_greedy_playout_is_the_references(variant: str, games: int) -> None:
    policy = Greedy(Linear())
    expected, paths = nardy_fast.reference.playout(variant, games, seed=5, policy=policy, trajectories=True)
    for module in IMPLS.values():
        found, found_paths = module.playout(variant, games, seed=5, policy=policy, trajectories=True)
        records_equal(found, expected)
        for a, b in zip(found_paths, paths):
            np.testing.assert_array_equal(a, b)


@pytest.mark.slow
def test_greedy_playout_of_crazy_gulbar_is_the_references() -> None:
    policy = Greedy(Linear())
    expected = nardy_fast.reference.playout("crazy", 1, seed=5, policy=policy)
    records_equal(nardy_fast.playout("crazy", 1, seed=5, policy=policy), expected)


@pytest.mark.parametrize(("variant", "games"), [("long", 8), ("gulbar", 8), ("crazy", 3)])
def test_greedy_playout_does_not_depend_on_threads_batches_or_splits(variant: str, games: int) -> None:
    e = Linear()
    whole, paths = nardy_fast.playout(variant, games, seed=6, policy=Greedy(e), trajectories=True)
    # lock-step: one call per ply of the batch (the last, whose moves may all end the game, perhaps not)
    longest = int(whole["plies"].max())
    assert longest - 1 <= e.calls <= longest
    for threads, batch in ((2, 1000), (1, 1), (2, 3)):
        found, found_paths = nardy_fast.playout(
            variant, games, seed=6, policy=Greedy(Linear()), threads=threads, batch=batch, trajectories=True
        )
        records_equal(found, whole)
        for a, b in zip(found_paths, paths):
            np.testing.assert_array_equal(a, b)
    split = nardy_fast.playout(variant, games - 1, seed=6, first_game=1, policy=Greedy(Linear()))
    records_equal(split, whole[1:])
    # another evaluator plays other games
    other = nardy_fast.playout(variant, games, seed=6, policy=Greedy(Linear(scale=-1.0)))
    assert other.tolist() != whole.tolist()


def check_moves_are_hints(module: Any, paths: Any, evaluator: Any, plies: int) -> int:
    """Every move of ``paths`` is the first move of its position's hint; returns how many there were."""
    moves = 0
    for g in range(len(paths.offsets) - 1):
        for j in range(int(paths.offsets[g]), int(paths.offsets[g + 1]) - 1):
            position = module.Position.from_array(paths.rows[j])
            roll = tuple(int(d) for d in paths.rolls[j])
            hint = position.hint(None if roll == (0, 0) else roll, evaluator=evaluator, plies=plies)
            assert hint, position
            best = hint[0][0].result.to_array()
            np.testing.assert_array_equal(best, paths.rows[j + 1], err_msg=f"{position.to_text()} {roll}")
            moves += 1
    return moves


@pytest.mark.parametrize("variant", nardy_fast.VARIANTS)
def test_each_greedy_move_is_the_first_of_the_hint(variant: str) -> None:
    _, paths = nardy_fast.playout(variant, 2, seed=8, policy=Greedy(Linear()), trajectories=True)
    assert check_moves_are_hints(nardy_fast, paths, Linear(), 0) > 50


#: End games: a few moves each, so that 1- and 2-ply greedy games stay short.
ENDINGS = [
    "short w 1:2,2:2,3:1,5:2,6:1,13:-2,20:-1,22:-2 off=7/10 first=-",
    "long b 1:3,6:-1,13:-8,14:-2,15:-1,16:-1,19:-1,22:-1 off=12/0 first=-",
    "gulbar w 1:2,3:3,5:1,13:-3,14:-2,20:-1 off=9/9 first=-",
]


@pytest.mark.parametrize("text", ENDINGS)
@pytest.mark.parametrize("plies", [1, 2])
def test_deeper_greedy_moves_are_the_first_of_the_hint(text: str, plies: int) -> None:
    start = nardy_fast.Position.from_text(text)
    games = 2 if plies == 1 else 1
    records, paths = nardy_fast.playout(
        start, games, seed=3, policy=Greedy(Linear(), plies=plies), trajectories=True
    )
    assert check_moves_are_hints(nardy_fast, paths, Linear(), plies) >= 2
    if plies == 1:
        reference = nardy_fast.reference.playout(
            nardy_fast.reference.Position.from_text(text), games, seed=3, policy=Greedy(Linear(), plies=1)
        )
        records_equal(reference, records)


def test_greedy_rollout_is_the_references() -> None:
    text = "long b 1:3,6:-1,13:-8,14:-2,15:-1,16:-1,19:-1,22:-1 off=12/0 first=-"
    found = [
        module.rollout(
            module.Position.from_text(text), 40, seed=2, policy=Greedy(Linear()), stratify=False, threads=t
        )
        for module in IMPLS.values()
        for t in (1, 2)
    ]
    assert all(r == found[0] for r in found)
    # the same games as the playout of the position with that policy
    records = nardy_fast.playout(nardy_fast.Position.from_text(text), 40, seed=2, policy=Greedy(Linear()))
    white = int((records["winner"] == 0).sum())
    assert sum(found[0].counts[:3]) == white and sum(found[0].counts) == 40


# --- greedy playouts of the built-in evaluators ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "variant"), [("heuristic", "long"), ("heuristic", "short"), ("pubeval", "short")]
)
def test_builtin_greedy_playout_is_the_references_and_the_hints(name: str, variant: str) -> None:
    policy = Greedy(name)
    records, paths = nardy_fast.playout(variant, 1, seed=4, policy=policy, trajectories=True)
    records_equal(nardy_fast.reference.playout(variant, 1, seed=4, policy=policy), records)
    for threads in (1, 2):
        records_equal(nardy_fast.playout(variant, 6, seed=4, policy=policy, threads=threads)[:1], records)
    assert check_moves_are_hints(nardy_fast, paths, name, 0) > 20


def test_builtin_greedy_serves_what_its_evaluator_serves() -> None:
    message = same_error(lambda m: m.playout("long", 2, policy=Greedy("pubeval")))
    assert message.startswith("evaluator: ") and "short" in message
    message = same_error(lambda m: m.playout("short", 2, policy=Greedy("race")))
    assert message.startswith("rows[0]: is not a race")
    # a Python evaluator sees only the live children
    recorder = Recorder()
    nardy_fast.playout(nardy_fast.Position.from_text(RACE), 2, seed=1, policy=Greedy(recorder))
    assert recorder.calls and not nardy_fast.layout.is_over(recorder.all_shown()).any()
