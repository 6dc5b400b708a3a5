"""Duels in the game loop, a policy per seat (issue 42, item 5): two built-in players (random, first, Greedy
with a built-in evaluator at any plies, each side its own) play in the implementation's loop (the core's in C,
without the GIL, on threads).

Checked here:

* the points equal those the lock-step Python duel gave before the loop took duels over, recorded for many
  pairs of players, variants, seeds and a rule flag (commit db870e7), on 1 and 2 threads;
* the lock-step path, still in the package for callable policies and Python evaluators, gives the loop's
  points when it plays built-in players (an independent implementation, in the same run);
* the reference's loop (its twin) gives the core's points, and its playouts still give the core's records;
* ``threads``: identical points on 1, 2 and 3 threads, for built-in and callable players; bad values refused
  with the same error in both implementations; ``progress`` is called after each batch on threads too;
* playouts (one policy for both seats) keep their records: trajectories and records recorded before the
  change (commit db870e7) as SHA-256 digests;
* which players play in the loop (:func:`nardy_fast.duel.seat_of`);
* Ctrl-C stops a long duel on 1 and on 2 threads within seconds (in a child process).
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from children import interrupted_child
from ids import stable_repr
from test_duel import white_points
from test_evaluation import Linear, same_error

import nardy_fast
from nardy_fast import Greedy, implementations
from nardy_fast.bench.duels import WAYS, duel_works
from nardy_fast.bench.harness import SEED
from nardy_fast.duel import lockstep_duel, seat_of
from nardy_fast.evaluation.network import Network
from nardy_fast.playouts import PlayoutOptions, Seat, check_playout
from nardy_fast.policies import resolve_policy

IMPLS = implementations()
core = pytest.importorskip("nardy_fast.core", reason="the compiled core is not built")

Player = tuple[Any, ...]


#: The networks shipped when the duels below were recorded (bench/baseline: all but short nardy's have been
#: replaced since; a checkout's, an installed package has none).
BASELINE = Path(__file__).resolve().parent.parent / "bench" / "baseline"


def player(spec: Player, variant: str) -> object:
    """A player of the recorded duels: a policy's name, ``(evaluator, plies)`` for a Greedy of a built-in
    evaluator, ``("bare", plies)`` for the network shipped for the variant when they were recorded, as an
    object (the bare network, whatever ``"net"`` names)."""
    if spec[0] == "bare":
        kept = BASELINE / f"{variant}.npz"
        if not kept.is_file():
            pytest.skip("the networks of bench/baseline are a checkout's")
        return Greedy(Network.load(kept), spec[1])
    return spec[0] if len(spec) == 1 else Greedy(spec[0], spec[1])


#: (variant, a, b, games, seed, first_game, flags, points): ``nardy_fast.duel`` of the lock-step Python duel
#: at commit db870e7 (the compiled core), before duels between built-in players moved into the game loop.
RECORDED: list[tuple[str, Player, Player, int, int, int, dict[str, object], str]] = [
    ("long", ("random",), ("first",), 40, 1, 0, {},
     "1 -2 -1 -1 -1 -1 1 -1 -1 -1 -1 -2 -1 -1 -2 -2 -1 -2 -1 -1 -2 -1 1 -1 1 1 -2 -1 -1 -1 1 -2 -1 1 -1 -2 -1 -1 1 -2"),
    ("short", ("first",), ("random",), 40, 2, 5, {},
     "-1 2 1 1 3 -1 -1 2 -1 1 -2 1 1 2 -1 2 1 1 1 2 1 2 -1 2 1 -1 2 3 -1 1 3 1 1 1 2 1 1 -1 3 -1"),
    ("sixone", ("heuristic", 0), ("random",), 20, 3, 0, {}, "2 2 2 2 1 2 1 2 2 -1 1 2 -1 2 2 -1 2 2 2 -1"),
    ("gulbar", ("random",), ("heuristic", 0), 20, 4, 1, {}, "-2 1 -2 -2 -2 -2 -2 -2 -1 -2 -2 -1 1 -2 -2 -2 -1 -2 -1 1"),
    ("crazy", ("first",), ("random",), 6, 3, 0, {}, "-1 2 2 2 2 1"),
    ("crazy", ("heuristic", 0), ("first",), 4, 3, 2, {}, "2 2 2 1"),
    ("short", ("pubeval",), ("heuristic", 0), 40, 5, 0, {},
     "1 2 1 -2 1 1 -1 1 1 1 1 2 -1 1 1 1 -1 -1 2 -1 1 -1 -1 1 -2 1 2 1 2 1 -2 2 -1 -2 -1 1 1 1 1 1"),
    ("short", ("heuristic", 1), ("pubeval", 0), 4, 6, 0, {}, "-1 -2 -1 1"),
    ("long", ("heuristic", 1), ("heuristic", 0), 2, 7, 3, {}, "1 -1"),
    ("short", ("heuristic", 2), ("random",), 2, 8, 0, {}, "2 3"),
    ("short", ("bare", 0), ("pubeval", 0), 40, 7, 0, {},
     "1 1 -2 -1 2 1 -1 1 -1 -1 -1 2 1 1 -1 2 -1 1 2 1 -1 2 -1 -1 -1 -2 1 1 1 2 1 1 2 2 1 2 -1 -1 2 1"),
    ("long", ("bare", 0), ("heuristic", 0), 20, 9, 0, {}, "2 -1 -1 1 1 1 2 2 2 2 2 2 2 -1 1 2 -1 2 2 2"),
    ("sixone", ("random",), ("bare", 0), 20, 10, 0, {}, "-2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -1"),
    ("gulbar", ("bare", 1), ("bare", 0), 2, 11, 0, {}, "2 -2"),
    ("long", ("first",), ("random",), 8, 4, 0, {"block_check": "per_step"}, "2 -1 -1 2 1 1 -1 2"),
    ("gulbar", ("heuristic", 0), ("first",), 20, 12, 7, {}, "1 1 1 1 2 1 2 1 2 2 2 1 1 1 2 2 -1 2 1 1"),
]  # fmt: skip


def recorded_id(case: tuple[Any, ...]) -> str:
    variant, a, b, games, seed = case[:5]
    return f"{variant}-{'.'.join(map(str, a))}-vs-{'.'.join(map(str, b))}-{games}-seed{seed}"


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("case", RECORDED, ids=[recorded_id(c) for c in RECORDED])
def test_the_points_are_those_recorded_before_the_loop(case: tuple[Any, ...], threads: int) -> None:
    variant, a, b, games, seed, first, flags, points = case
    result = core.duel(
        player(a, variant), player(b, variant), variant, games, seed=seed, first_game=first, threads=threads, **flags
    )
    assert result.points.tolist() == [int(p) for p in points.split()]


def lockstep_points(module: Any, a: object, b: object, variant: str, games: int, seed: int) -> list[int]:
    """The points of the lock-step Python duel (one batch), whatever the players."""
    kernels = module.Position.kernels
    players = (resolve_policy(a, "a", evaluators=True), resolve_policy(b, "b", evaluators=True))
    args = check_playout(variant, games // 2, seed, PlayoutOptions())
    points = np.zeros(games, dtype=np.int8)
    lockstep_duel(kernels, players, args, 0, games, points)
    return [int(p) for p in points]


LOOPED = [
    ("long", "random", "first", 30, 21),
    ("short", Greedy("pubeval"), "random", 30, 22),
    ("gulbar", Greedy("heuristic"), Greedy("heuristic", 1), 2, 23),
    ("sixone", "first", Greedy("heuristic"), 30, 24),
    ("crazy", "random", Greedy("heuristic"), 4, 25),
    ("short", Greedy("net"), Greedy("heuristic"), 30, 26),
]


@pytest.mark.parametrize(("variant", "a", "b", "games", "seed"), LOOPED, ids=stable_repr)
def test_the_loop_plays_the_games_of_the_lockstep_path(variant: str, a: object, b: object, games: int, seed: int) -> None:
    looped = core.duel(a, b, variant, games, seed=seed)
    assert looped.points.tolist() == lockstep_points(core, a, b, variant, games, seed)
    assert looped.points.any()


REFERENCE = [
    ("long", "random", "first", 6, 31),
    ("short", "first", Greedy("pubeval"), 4, 32),
    ("gulbar", Greedy("heuristic"), "random", 2, 33),
    ("sixone", Greedy(Linear()), "first", 2, 34),
]


@pytest.mark.parametrize(("variant", "a", "b", "games", "seed"), REFERENCE, ids=stable_repr)
def test_the_reference_loop_is_the_cores(variant: str, a: object, b: object, games: int, seed: int) -> None:
    ours = core.duel(a, b, variant, games, seed=seed, first_game=3)
    theirs = nardy_fast.reference.duel(a, b, variant, games, seed=seed, first_game=3, threads=2)
    assert theirs.points.tolist() == ours.points.tolist()


@pytest.mark.slow  # the reference's Python search at one ply
def test_the_reference_loop_is_the_cores_at_one_ply() -> None:
    a, b = Greedy("heuristic", 1), Greedy("pubeval")
    assert nardy_fast.reference.duel(a, b, "short", 2, seed=6).points.tolist() == [-1, -2]  # RECORDED's


# --- threads ----------------------------------------------------------------------------------------------------


def first_policy(children: npt.NDArray[np.int8], offsets: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    return np.zeros(len(offsets) - 1, dtype=np.int64)


@pytest.mark.parametrize(
    ("a", "b", "variant"),
    [("random", Greedy("heuristic"), "long"), (Greedy("pubeval"), Greedy("heuristic", 1), "short"),
     (first_policy, "random", "gulbar"), (Linear(), "first", "short")],
    ids=stable_repr,
)  # fmt: skip
def test_threads_give_the_same_points(a: object, b: object, variant: str) -> None:
    games = 4 if isinstance(b, Greedy) and b.plies else 24
    one = core.duel(a, b, variant, games, seed=41, batch=5)
    for threads in (2, 3):
        again = core.duel(a, b, variant, games, seed=41, batch=5, threads=threads)
        assert again.points.tolist() == one.points.tolist()
        assert again == one


@pytest.mark.parametrize("name", sorted(IMPLS))
@pytest.mark.parametrize("b", ["first", first_policy], ids=stable_repr)
def test_progress_on_threads(name: str, b: object) -> None:
    calls: list[int] = []
    games, batch, expected = (6, 1, [2, 4, 6]) if name == "python" else (10, 2, [4, 8, 10])
    result = IMPLS[name].duel("random", b, "short", games, seed=1, batch=batch, threads=2, progress=calls.append)
    assert calls == expected
    assert result.points.tolist() == IMPLS[name].duel("random", b, "short", games, seed=1).points.tolist()


@pytest.mark.parametrize("threads", [0, -1, 1025, 2.0, "2", None, True, np.array([2])], ids=stable_repr)
def test_bad_threads(threads: object) -> None:
    message = same_error(lambda m: m.duel("random", "first", "short", 2, threads=threads))
    assert message.startswith("threads: must be an integer 1..1024")


def test_numpy_threads() -> None:
    assert core.duel("random", "first", "short", 4, seed=1, threads=np.int64(2)).games == 4


# --- playouts keep their records --------------------------------------------------------------------------------

#: (variant, games, seed, policy, options, digest): SHA-256 (first 16 hex digits) of a playout's records and
#: trajectories (rows, rolls, offsets) at commit db870e7, before the loop took a policy per seat.
PLAYOUTS: list[tuple[str, int, int, Any, dict[str, object], str]] = [
    ("long", 300, 1, "random", {}, "8a0e3c24a9de4db2"),
    ("gulbar", 300, 2, "first", {}, "c4e0575c0c21c38c"),
    ("short", 100, 3, ("heuristic", 0), {}, "015f1397ec8fe9d8"),
    ("sixone", 6, 4, ("heuristic", 1), {}, "770f9a9c7cce3b9a"),
    ("crazy", 20, 5, "random", {}, "500e250ee7c1e0f6"),
    ("short", 200, 6, "random", {"stratify": True, "opening": "use_single_dice"}, "900ba79582b9d2c5"),
]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("case", PLAYOUTS, ids=[f"{c[0]}-{c[3]}" for c in PLAYOUTS])
def test_playouts_keep_their_records(case: tuple[Any, ...], threads: int) -> None:
    variant, games, seed, policy, options, digest = case
    chosen = policy if isinstance(policy, str) else Greedy(*policy)
    records, paths = core.playout(
        variant, games, seed=seed, policy=chosen, trajectories=True, threads=threads, **options
    )
    data = records.tobytes() + paths.rows.tobytes() + paths.rolls.tobytes() + paths.offsets.tobytes()
    assert hashlib.sha256(data).hexdigest()[:16] == digest


# --- which players play in the loop -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(IMPLS))
def test_the_seats_of_players(name: str) -> None:
    kernels = IMPLS[name].Position.kernels
    args = check_playout("short", 2, 1, PlayoutOptions())

    def seat(value: object) -> object:
        return seat_of(kernels, args, resolve_policy(value, "a", evaluators=True))

    assert seat("random") == Seat(0) and seat("first") == Seat(1)
    greedy = Greedy("pubeval", 2)
    found = seat(greedy)
    assert isinstance(found, Seat)
    assert (found.policy, found.evaluator, found.plies) == (0, nardy_fast.EVALUATORS.index("pubeval"), 2)
    assert found.chooser is not None
    assert seat(Linear()) is None and seat(Greedy(Linear())) is None and seat(first_policy) is None


# --- the benchmark's ways play the same games --------------------------------------------------------------------


def test_the_benchmark_ways_play_the_same_games() -> None:
    """nardy_fast.bench.duels (and bench/test_bench_duel.py) compare ways that play the same games: a duel of a
    Greedy against itself plays each playout game twice, once from each seat."""
    works = duel_works("short", "heuristic", 6)
    assert set(works) == set(WAYS)
    white = white_points(core.playout("short", 6, seed=SEED, policy=Greedy("heuristic")))
    for way in WAYS:
        played: Any = works[way]()
        if way.startswith("greedy playout"):
            assert [white_points(records).tolist() for records in played] == [white.tolist()] * 2
            continue
        points = np.asarray(getattr(played, "points", played))  # a DuelResult's, or the lock-step path's own
        assert points[0::2].tolist() == white.tolist() and points[1::2].tolist() == (-white).tolist(), way


# --- Ctrl-C -----------------------------------------------------------------------------------------------------

#: Seconds within which an interrupted duel must have ended (generous: the machine may be loaded).
STOP_BOUND = 10.0

#: The child: a long duel of two built-in players on ``threads`` threads; prints ``{"playing": true}`` as
#: it starts and, when the duel ends, the exception's name and the threads alive.
CHILD = r"""
import json, signal, sys, threading, time
signal.signal(signal.SIGINT, signal.default_int_handler)
from nardy_fast import core, Greedy
threads = int(sys.argv[1])
say = lambda **kw: print(json.dumps(kw), flush=True)
core.duel("heuristic", "random", "long", 2, seed=1)  # the imports and tables before the clock
say(playing=True)
began = time.perf_counter()
try:
    core.duel(Greedy("heuristic"), "random", "long", 20_000_000, seed=1, threads=threads, batch=1 << 20)
except BaseException as error:
    say(error=type(error).__name__, after=time.perf_counter() - began, threads=threading.active_count())
else:
    say(error=None, after=time.perf_counter() - began)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT is POSIX")
@pytest.mark.parametrize("threads", [1, 2])
def test_ctrl_c_stops_a_duel(threads: int) -> None:
    _, out, err, status, elapsed = interrupted_child(CHILD, [str(threads)], 1, 1.0, STOP_BOUND)
    assert out, f"still playing {elapsed:.0f} s on"
    assert status == 0, err[-4000:]
    report = json.loads(out.strip().splitlines()[-1])
    assert report["error"] == "KeyboardInterrupt", report
    assert elapsed < STOP_BOUND, elapsed
    assert report["threads"] == 1  # no thread of the duel outlives it
