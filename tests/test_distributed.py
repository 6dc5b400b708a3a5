"""Sharded playouts, rollouts and perft over Dask (``nardy_fast.distributed``) against one process.

The expected values are those of the package's own single-process functions, run here in the test process:
game ``g``'s dice depend only on ``(seed, g)``, so any split into shards must give the same records, counts
and totals exactly. The cluster's workers are separate processes that import ``nardy_fast`` themselves.
"""

from __future__ import annotations

import importlib
import sys
import warnings
from collections.abc import Callable, Iterator
from typing import Any, Optional

import numpy as np
import numpy.typing as npt
import pytest

pytest.importorskip("distributed", reason="Dask's distributed scheduler (the dask extra) is absent")

from distributed import Client, LocalCluster  # type: ignore[import-not-found, unused-ignore]  # noqa: E402

import nardy_fast  # noqa: E402
from nardy_fast import distributed as nd  # noqa: E402
from nardy_fast.cuberollouts import CubefulRollout  # noqa: E402
from nardy_fast.errors import NardyError  # noqa: E402
from nardy_fast.playouts import Trajectories  # noqa: E402
from nardy_fast.position import Position  # noqa: E402

PENDING = "gulbar b 1:3,5:-2,13:12,17:-13 first=w pending=6,5"  # a transfer segment to play first
FINISHED = "long w 13:-1 off=15/14 first=-"


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    with (
        LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None) as cluster,  # type: ignore[no-untyped-call, unused-ignore]
        Client(cluster) as connected,  # type: ignore[no-untyped-call, unused-ignore]
    ):
        yield connected


# --- playouts -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("games", "shards", "options"),
    [
        (13, 5, {}),
        (10, 4, {"first_game": 1000, "opening": "use_single_dice", "block_check": "per_step"}),
        (7, 3, {"policy": "first", "stratify": True, "threads": 2}),
        (3, 10, {}),  # more shards than games: one a game
    ],
)
def test_playout_from_a_variant_start_equals_one_process(
    client: Client, games: int, shards: int, options: dict[str, Any]
) -> None:
    local = nardy_fast.playout("long", games, seed=7, **options)
    sharded = nd.playout(client, "long", games, seed=7, shards=shards, **options)
    assert sharded.dtype == nardy_fast.game.RECORD
    assert np.array_equal(sharded, local)


@pytest.mark.parametrize(
    ("options", "shards"),
    [
        ({"cube": True, "policy": nardy_fast.Greedy(), "first_game": 3}, 3),
        ({"match": nardy_fast.Match(jacoby=True, beavers=True), "policy": "first"}, 2),
        ({"match": nardy_fast.Match(3, (1, 0)), "policy": nardy_fast.Greedy(cube="threshold")}, 4),
    ],
)
def test_playout_with_the_cube_equals_one_process(client: Client, options: dict[str, Any], shards: int) -> None:
    local = nardy_fast.playout("short", 9, seed=4, **options)
    sharded = nd.playout(client, "short", 9, seed=4, shards=shards, **options)
    assert sharded.dtype == local.dtype and np.array_equal(sharded, local)


def test_playout_from_packed_rows_equals_one_process(client: Client) -> None:
    rows = np.stack([nardy_fast.Position.start(v).to_array() for v in ("long", "short", "gulbar")])
    local = nardy_fast.playout(rows, 11, seed=3, first_game=5)
    sharded = nd.playout(client, rows, 11, seed=3, first_game=5, shards=4)
    assert np.array_equal(sharded, local)
    assert list(sharded["start"]) == [g % 3 for g in range(5, 16)]  # the global game number's row


def test_playout_from_many_rows_equals_one_process(client: Client) -> None:
    rows = np.tile(nardy_fast.Position.start("short").to_array(), (1500, 1))  # sent by scatter
    rows[1::2] = nardy_fast.Position.start("sixone").to_array()
    local = nardy_fast.playout(rows, 9, seed=11, first_game=1495)
    sharded = nd.playout(client, rows, 9, seed=11, first_game=1495, shards=2)
    assert np.array_equal(sharded, local)


def test_playout_from_a_position_with_trajectories_equals_one_process(client: Client) -> None:
    position = nardy_fast.Position.from_text(PENDING)
    local, local_paths = nardy_fast.playout(position, 13, seed=5, trajectories=True)
    sharded, paths = nd.playout(client, position, 13, seed=5, shards=3, trajectories=True)
    assert np.array_equal(sharded, local)
    assert isinstance(paths, Trajectories)
    assert np.array_equal(paths.rows, local_paths.rows)
    assert np.array_equal(paths.rolls, local_paths.rolls)
    assert np.array_equal(paths.offsets, local_paths.offsets)


def test_playout_with_a_callable_policy_equals_the_built_in_one(client: Client) -> None:
    # Always the first child is the built-in "first" policy: the callable is pickled to the workers.
    local = nardy_fast.playout("sixone", 11, seed=4, policy="first")
    sharded = nd.playout(client, "sixone", 11, seed=4, policy=_first_child_lambda(), batch=3, shards=3)
    assert np.array_equal(sharded, local)


def _first_child_lambda() -> Callable[[npt.NDArray[np.int8], npt.NDArray[np.int64]], npt.NDArray[np.int64]]:
    # A lambda: cloudpickle sends it by value, so the workers need not import this test module.
    return lambda children, offsets: np.zeros(len(offsets) - 1, dtype=np.int64)


def test_default_shards_come_from_the_workers(client: Client) -> None:
    assert nd.default_shards(client) == nd.SHARDS_PER_THREAD * 2  # two workers of one thread
    local = nardy_fast.playout("short", 12, seed=2)
    assert np.array_equal(nd.playout(client, "short", 12, seed=2), local)


# --- rollouts -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "games", "shards", "options"),
    [
        ("short w 1:-2,6:5,8:3,12:-5,13:5,17:-3,19:-5,24:2", 24, 5, {"first_game": 5}),
        ("long w 1:3,2:3,3:3,4:3,5:3,13:-3,14:-3,15:-3,16:-3,17:-3 first=-", 200, 7, {"first_game": 1290}),
        (PENDING, 50, None, {"stratify": False, "policy": "first"}),
        # games given up at a ply over max_results (55 of the 100) count the same in every shard
        ("long w 1:3,2:3,3:3,4:3,5:3,13:-3,14:-3,15:-3,16:-3,17:-3 first=-", 100, 3, {"max_results": 20}),
    ],
)
def test_rollout_equals_one_process(
    client: Client, text: str, games: int, shards: Optional[int], options: dict[str, Any]
) -> None:
    position = nardy_fast.Position.from_text(text)
    local = nardy_fast.rollout(position, games, seed=9, **options)
    sharded = nd.rollout(client, position, games, seed=9, shards=shards, **options)
    assert isinstance(sharded, nardy_fast.Rollout)
    assert (sharded.counts, sharded.unfinished, sharded.turn) == (local.counts, local.unfinished, local.turn)
    assert sharded.games == games


#: An even bear-off race of short nardy: either side may win, doubles are taken and passed in it.
EVEN = "short w 1:3,2:3,3:3,4:3,5:3,20:-3,21:-3,22:-3,23:-3,24:-3"


@pytest.mark.parametrize(
    ("text", "games", "shards", "options"),
    [
        (EVEN, 30, 4, {"cube": nardy_fast.Cube(), "stratify": False}),
        (EVEN, 23, 3, {"match": 5, "first_game": 40, "policy": "first"}),  # stratified, unbalanced: warns
        (EVEN, 12, 5, {"match": nardy_fast.Match(5, (2, 3)), "cube": nardy_fast.Cube(2, "black")}),  # no double line
        # a player deciding on the cube by Janowski's formulas, pickled to the workers
        (EVEN, 10, 3, {"cube": nardy_fast.Cube(), "policy": nardy_fast.Greedy("pubeval"), "batch": 4}),
        ("long w 1:3,2:3,3:3,4:3,5:3,13:-3,14:-3,15:-3,16:-3,17:-3 first=-", 9, None, {"match": 3, "threads": 2}),
    ],
)
def test_cubeful_rollout_equals_one_process(
    client: Client, text: str, games: int, shards: Optional[int], options: dict[str, Any]
) -> None:
    position = nardy_fast.Position.from_text(text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", nardy_fast.NardyWarning)  # small stratified counts
        local = nardy_fast.rollout(position, games, seed=9, **options)
        sharded = nd.rollout(client, position, games, seed=9, shards=shards, **options)
    assert isinstance(local, CubefulRollout) and isinstance(sharded, CubefulRollout)
    assert (sharded.turn, sharded.cube, sharded.match) == (local.turn, local.cube, local.match)
    assert np.array_equal(sharded.no_double_trials, local.no_double_trials)
    if local.double_take_trials is None:
        assert sharded.double_take_trials is None
    else:
        assert sharded.double_take_trials is not None
        assert np.array_equal(sharded.double_take_trials, local.double_take_trials)
    assert sharded.outputs == local.outputs and sharded.action == local.action and str(sharded) == str(local)


# --- perft ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "depth", "shards"),
    [
        ("long w 12:-15,24:15", 2, 5),
        ("gulbar w 12:-15,24:15", 2, None),
        (PENDING, 2, None),  # two moves at the root: two shards at most
        (PENDING, 1, 1),
        ("long w 7:1,13:-1 off=14/14 first=-", 2, 4),  # hand count 147 (nardy_fast/data/perft.txt)
        (FINISHED, 2, None),
        ("short w 1:-2,6:5,8:3,12:-5,13:5,17:-3,19:-5,24:2", 0, None),
    ],
)
def test_perft_equals_one_process(client: Client, text: str, depth: int, shards: Optional[int]) -> None:
    classes: list[type[Position]] = [nardy_fast.Position, nardy_fast.reference.Position]
    for position_class in classes:  # the positions travel with their class
        position = position_class.from_text(text)
        assert nd.perft(client, position, depth, shards=shards) == nardy_fast.perft(position, depth)


def test_perft_matches_hand_counts(client: Client) -> None:
    assert nd.perft(client, nardy_fast.Position.from_text("long w 7:1,13:-1 off=14/14 first=-"), 2) == 147
    assert nd.perft(client, nardy_fast.Position.start("crazy"), 1, shards=3) == 31


# --- bad input --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("shards", [0, -1, 1.5, True, "2"])
def test_bad_shards_are_named_and_quoted(client: Client, shards: object) -> None:
    start = nardy_fast.Position.start("long")
    message = f"shards: must be a positive integer or None (got {shards!r})"
    for call in (
        lambda: nd.playout(client, "long", 5, seed=1, shards=shards),  # type: ignore[call-overload]
        lambda: nd.rollout(client, start, 5, seed=1, shards=shards),  # type: ignore[call-overload]
        lambda: nd.perft(client, start, 1, shards=shards),  # type: ignore[arg-type]
    ):
        with pytest.raises(NardyError) as caught:
            call()
        assert str(caught.value) == message


@pytest.mark.parametrize("bad", [None, "tcp://scheduler:8786", object()])
def test_a_client_must_be_a_distributed_client(bad: Any) -> None:
    start = nardy_fast.Position.start("long")
    for call in (
        lambda: nd.playout(bad, "long", 5, seed=1),
        lambda: nd.rollout(bad, start, 5, seed=1),
        lambda: nd.perft(bad, start, 1),
        lambda: nd.default_shards(bad),
    ):
        with pytest.raises(NardyError, match=r"^client: must be a distributed\.Client \(got "):
            call()


PLAYOUT_ERRORS: list[tuple[object, object, dict[str, Any]]] = [
    ("long", 0, {}),
    ("long", -3, {}),
    ("long", 2.0, {}),
    ("chess", 5, {}),
    ("long", 5, {"policy": "best"}),
    ("long", 5, {"opening": "none"}),
    ("long", 5, {"first_game": -1}),
    ("long", 5, {"threads": 0}),
    ("long", 5, {"seed": -1}),
    ("long", 5, {"no_such_flag": 1}),
    (np.zeros((2, 3), np.int8), 5, {}),
    (nardy_fast.Position.from_text(FINISHED), 5, {}),
    ("long", 5, {"cube": 1}),
    ("long", 5, {"match": "7"}),
    ("long", 5, {"cube": True, "trajectories": True}),
    ("long", 5, {"match": 3, "truncate": "bearoff"}),
    ("long", 5, {"match": 3, "first_game": 2**54 - 4}),
]


@pytest.mark.parametrize(("start", "games", "options"), PLAYOUT_ERRORS)
def test_playout_errors_are_the_local_ones(
    client: Client, start: object, games: object, options: dict[str, Any]
) -> None:
    options = {"seed": 1, **options}
    with pytest.raises(NardyError) as local:
        nardy_fast.playout(start, games, **options)  # type: ignore[call-overload]
    with pytest.raises(type(local.value)) as sharded:
        nd.playout(client, start, games, **options)  # type: ignore[call-overload]
    assert str(sharded.value) == str(local.value)


@pytest.mark.parametrize(
    ("position", "games", "options"),
    [
        ("long", 5, {}),
        (nardy_fast.Position.from_text(FINISHED), 5, {}),
        (nardy_fast.Position.start("long"), 0, {}),
        (nardy_fast.Position.start("long"), 5, {"batch": 0}),
        (nardy_fast.Position.start("long"), 5, {"stratify": "yes"}),
        (nardy_fast.Position.start("long"), 5, {"cube": 2}),
        (nardy_fast.Position.start("long"), 5, {"match": "7"}),
        (nardy_fast.Position.start("long"), 5, {"match": 65}),
        (nardy_fast.Position.start("long"), 5, {"cube": nardy_fast.Cube(), "truncate": "bearoff"}),
        (nardy_fast.Position.start("long"), 0, {"match": 3}),
        (nardy_fast.Position.from_text(FINISHED), 5, {"match": 3}),
    ],
)
def test_rollout_errors_are_the_local_ones(
    client: Client, position: object, games: object, options: dict[str, Any]
) -> None:
    with pytest.raises(NardyError) as local:
        nardy_fast.rollout(position, games, seed=1, **options)  # type: ignore[call-overload]
    with pytest.raises(type(local.value)) as sharded:
        nd.rollout(client, position, games, seed=1, **options)  # type: ignore[call-overload]
    assert str(sharded.value) == str(local.value)


START = nardy_fast.Position.start("long")


@pytest.mark.parametrize(
    ("position", "depth"),
    [
        ("long", 1),
        (None, 1),
        (START, -1),
        (START, nardy_fast.MAX_PERFT_DEPTH + 1),
        (START, "2"),
        (START, True),
    ],
)
def test_perft_errors_are_the_local_ones(client: Client, position: object, depth: object) -> None:
    with pytest.raises(NardyError) as local:
        nardy_fast.perft(position, depth)  # type: ignore[arg-type]
    with pytest.raises(type(local.value)) as sharded:
        nd.perft(client, position, depth)  # type: ignore[arg-type]
    assert str(sharded.value) == str(local.value)


def test_an_unknown_option_is_a_type_error_as_locally(client: Client) -> None:
    with pytest.raises(TypeError):
        nardy_fast.rollout(nardy_fast.Position.start("long"), 5, seed=1, opening="fresh_roll")  # type: ignore[call-overload]
    with pytest.raises(TypeError):
        nd.rollout(client, nardy_fast.Position.start("long"), 5, seed=1, opening="fresh_roll")


def test_without_dask_the_import_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # what `import distributed` finds: ImportError
    monkeypatch.delitem(sys.modules, "nardy_fast.distributed")
    with pytest.raises(ImportError, match=r'from a clone, pip install -e "\.\[dask\]"'):
        importlib.import_module("nardy_fast.distributed")


@pytest.mark.parametrize("error", [KeyboardInterrupt, RuntimeError])
def test_an_interrupted_wait_cancels_the_shards(error: type[BaseException]) -> None:
    """Ctrl-C (or a failed shard) while the results are gathered cancels the shards, then goes on."""

    class Cluster:
        def __init__(self) -> None:
            self.cancelled: list[object] = []

        def gather(self, tasks: list[object]) -> list[object]:
            raise error("while gathering")

        def cancel(self, tasks: list[object]) -> None:
            self.cancelled.extend(tasks)

    cluster, tasks = Cluster(), ["shard 0", "shard 1"]
    with pytest.raises(error, match="while gathering"):
        nd._gathered(cluster, tasks)
    assert cluster.cancelled == tasks
