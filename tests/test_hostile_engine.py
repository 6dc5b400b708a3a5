"""Hostile use of the game/engine layer (issue 40): locks, memory bounds and objects never initialised.

Checked here, in both implementations:

1. ``Games.step`` runs no user code under its lock: choices whose ``__array__`` or ``__repr__`` read the same
   ``Games`` are read (or quoted) before the lock is taken, and a gc callback that reads the ``Games`` while a
   call holds the lock on the same thread is refused with a ``NardyError`` instead of waiting for ever; the
   reference's count of search work takes a nested add. Each probe runs in a thread of its own, joined with a
   timeout, so that a deadlock fails the test instead of holding up the run;
2. ``NardyVectorEnv`` bounds the product ``num_envs * max_actions`` of its masks before it allocates them;
3. the Python search (hints and ``Greedy`` with a Python evaluator) works a level in bounded chunks: the same
   values as in one piece, in a bounded peak of memory;
4. ``Games`` and ``Greedy`` objects made with ``__new__`` alone raise the ``NardyError`` of an uninitialised
   object from every public method and property.
"""

from __future__ import annotations

import gc
import threading
import time
import tracemalloc
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from conftest import IMPLEMENTATIONS

import nardy_fast
from nardy_fast import Greedy, NardyError, _dispatch
from nardy_fast.evaluation import search as search_module
from nardy_fast.evaluation.search import Search
from nardy_fast.policies import greedy_choices, resolve_policy

MODULES: dict[str, ModuleType] = {
    name: module for name, module in _dispatch.implementations().items() if name in IMPLEMENTATIONS
}
#: Seconds a probe thread may take before the test calls it a deadlock (generous: the machine may be loaded).
DEADLOCK_BOUND = 60.0


@pytest.fixture(params=sorted(MODULES))
def implementation(request: pytest.FixtureRequest) -> ModuleType:
    """An implementation module under test (``nardy_fast.reference`` or ``nardy_fast.core``)."""
    return MODULES[request.param]


def in_thread(call: Callable[[], object]) -> object:
    """``call()`` run in a daemon thread joined with :data:`DEADLOCK_BOUND`: its result, or its exception
    raised again here; a thread still running by then is a deadlock, and fails the test."""
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["result"] = call()
        except BaseException as error:  # handed to the test's thread
            outcome["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(DEADLOCK_BOUND)
    assert not thread.is_alive(), "deadlock: the call never returned"
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["result"]


# --- 1. no user code under the lock of Games ----------------------------------------------------------------


class ReadingChoices:
    """Choices that read the ``Games`` they are played on when NumPy converts them and when they are quoted."""

    def __init__(self, games: Any, choices: list[int]) -> None:
        self.games = games
        self.choices = choices
        self.seen: list[object] = []

    def __array__(self, dtype: object = None, copy: object = None) -> npt.NDArray[np.int64]:
        self.seen.append(self.games.rows)
        return np.array(self.choices, dtype=np.int64)

    def __repr__(self) -> str:
        self.seen.append(self.games.numbers)
        return f"ReadingChoices({self.choices})"


def test_choices_read_the_games_before_the_lock(implementation: ModuleType) -> None:
    games = implementation.Games("long", 3, seed=4)
    rows = games.rows
    choices = ReadingChoices(games, [0, 0, 0])
    in_thread(lambda: games.step(choices))
    assert len(choices.seen) >= 1 and np.array_equal(np.asarray(choices.seen[0]), rows)  # read before the step moved
    assert (games.plies == 1).all()


def test_bad_choices_are_quoted_outside_the_lock(implementation: ModuleType) -> None:
    games = implementation.Games("long", 3, seed=4)
    rows = games.rows
    choices = ReadingChoices(games, [0, 0])  # one game short: refused, the message quotes them
    with pytest.raises(NardyError) as caught:
        in_thread(lambda: games.step(choices))
    assert str(caught.value) == (
        "choices: must be 3 integers, one per unfinished game (shape (3,)) (got ReadingChoices([0, 0]))"
    )
    assert any(isinstance(seen, np.ndarray) and seen.dtype == np.int64 for seen in choices.seen)  # repr ran
    assert np.array_equal(games.rows, rows) and (games.plies == 0).all()  # nothing played


def test_a_finished_set_of_games_quotes_its_choices_outside_the_lock(implementation: ModuleType) -> None:
    games = implementation.Games("short", 1, seed=1, reset=False)
    while not games.done.all():
        games.step(np.zeros(1, dtype=np.int64))
    choices = ReadingChoices(games, [])
    with pytest.raises(NardyError, match=r"^choices: cannot be played: every game is over \(reset=False\)"):
        in_thread(lambda: games.step(choices))


def test_a_gc_callback_reading_the_games_during_a_step_is_refused_not_deadlocked(
    implementation: ModuleType,
) -> None:
    games = implementation.Games("long", 4, seed=2)
    reads: list[str] = []
    reading = threading.local()

    def callback(phase: str, info: dict[str, int]) -> None:
        if phase != "start" or getattr(reading, "now", False):
            return
        reading.now = True  # the read below allocates too: no callback within the callback
        try:
            games.rows  # noqa: B018 - the read is the test
            reads.append("read")
        except NardyError as error:
            reads.append(str(error))
        finally:
            reading.now = False

    def play() -> None:
        for _ in range(5):
            _, offsets = games.children()
            games.step(np.zeros(len(offsets) - 1, dtype=np.int64))

    threshold = gc.get_threshold()
    gc.callbacks.append(callback)
    gc.set_threshold(1)  # a collection at almost every allocation of a container, under the lock too
    try:
        in_thread(play)
    finally:
        gc.set_threshold(*threshold)
        gc.callbacks.remove(callback)
    refused = [read for read in reads if read != "read"]
    assert refused, "no collection ran while a call held the lock: the probe proves nothing"
    assert set(refused) == {
        "games: is in use by a call on this thread, which must return first: a gc callback, signal handler or "
        "finalizer cannot read it meanwhile (got <Games n=4 seed=2>)"
    }
    assert (games.plies >= 1).all()


def test_other_threads_wait_for_the_lock(implementation: ModuleType) -> None:
    games = implementation.Games("long", 2, seed=3)
    started, release = threading.Event(), threading.Event()
    seen: list[object] = []

    class SlowChoices:
        def __array__(self, dtype: object = None, copy: object = None) -> npt.NDArray[np.int64]:
            started.set()
            release.wait(DEADLOCK_BOUND)
            return np.zeros(2, dtype=np.int64)

    stepping = threading.Thread(target=lambda: games.step(SlowChoices()), daemon=True)
    stepping.start()
    assert started.wait(DEADLOCK_BOUND)
    # the choices are being read, outside the lock: another thread reads the games meanwhile
    seen.append(in_thread(lambda: games.plies))
    release.set()
    stepping.join(DEADLOCK_BOUND)
    assert not stepping.is_alive()
    assert np.all(np.asarray(seen[0]) == 0) and (games.plies == 1).all()


def test_a_search_counted_while_the_count_is_being_added_to_adds_its_work() -> None:
    """The reference's count of the searches' work (:func:`nardy_fast.reference.levels.searched`): a search run
    on the thread that is adding to it (by a signal handler or a gc callback, between the lock's acquiring and
    its release) adds its work instead of waiting for ever."""
    from nardy_fast.reference import levels

    before = levels.searched()

    def nested() -> None:
        with levels._searched_lock:  # what the outer add holds while the handler runs
            levels.add_searched(3)

    in_thread(nested)
    assert levels.searched() - before == 3


# --- 2. the vector environment's masks --------------------------------------------------------------------


@pytest.mark.parametrize(("num_envs", "max_actions"), [(2**20, 2**20), (4096, 2**20), (65, 2**20), (2**20, 65)])
def test_vector_env_bounds_its_masks_before_allocating(num_envs: int, max_actions: int) -> None:
    pytest.importorskip("gymnasium")
    from nardy_fast.env.vector import MAX_MASK, NardyVectorEnv

    assert MAX_MASK == 2**26 and num_envs * max_actions > MAX_MASK
    tracemalloc.start()
    began = time.perf_counter()
    try:
        with pytest.raises(NardyError) as caught:
            NardyVectorEnv("long", num_envs, max_actions=max_actions)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert time.perf_counter() - began < 10.0
    assert peak < 16 << 20  # no mask, no batched space was made
    most = MAX_MASK // num_envs
    assert str(caught.value) == (
        f"max_actions: must be at most {most:,} for num_envs={num_envs:,}: num_envs * max_actions <= 2**26 "
        f"(MAX_MASK, the entries of a batch of action masks) (got {max_actions})"
    )


def test_vector_env_takes_masks_up_to_the_bound() -> None:
    pytest.importorskip("gymnasium")
    from nardy_fast.env.vector import NardyVectorEnv

    env = NardyVectorEnv("long", 4, max_actions=2**20)  # 2**22 entries: taken
    assert env.single_action_space.n == 2**20  # type: ignore[attr-defined]


# --- 3. the Python search in bounded chunks ---------------------------------------------------------------


class RowSum:
    """A Python evaluator whose value of a row depends on that row alone (so chunks cannot change it)."""

    def __init__(self) -> None:
        self.largest = 0

    def evaluate(self, rows: npt.NDArray[np.int8]) -> npt.NDArray[np.float64]:
        self.largest = max(self.largest, len(rows))
        weights = np.arange(1, rows.shape[1] + 1, dtype=np.float64)
        score = (rows.astype(np.float64) * weights).sum(axis=1) % 97 / 97.0
        out = np.zeros((len(rows), 5))
        out[:, 0] = score
        out[:, 1] = score * 0.1
        out[:, 3] = (1 - score) * 0.05
        return out


class Zeros:
    """The cheapest Python evaluator: every row an even game (what the search holds is then the search's)."""

    def __init__(self) -> None:
        self.largest = 0

    def evaluate(self, rows: npt.NDArray[np.int8]) -> npt.NDArray[np.float64]:
        self.largest = max(self.largest, len(rows))
        return np.zeros((len(rows), 5))


#: Positions of every kind of turn: a start, a transfer list, a bear-off, a crazy gulbar ladder's roll.
SEARCHED = (
    ("long b 1:4,2:1,3:-3,4:-3,5:-1,6:-1,8:1,10:3,11:-1,12:-2,13:-2,14:-1,15:-1,18:1,24:5 first=-", (6, 5)),
    ("short w 1:-2,6:5,8:3,12:-5,13:5,17:-3,19:-5,24:2", (3, 1)),
    ("gulbar w 3:-2,4:7,5:7,12:-13,14:1 first=-", (6, 5)),
    ("crazy w 1:2,2:1,3:-1,4:-1,5:-1,12:-10,14:1,15:-1,16:1,22:2,23:-1,24:8 first=-", (6, 5)),
)


@pytest.mark.parametrize(("text", "roll"), SEARCHED)
@pytest.mark.parametrize("plies", [1, 2])
def test_search_in_chunks_is_the_search_in_one_piece(
    implementation: ModuleType, text: str, roll: tuple[int, int], plies: int
) -> None:
    if (plies == 2 and text.startswith("crazy")) or (implementation.IMPLEMENTATION == "python" and plies == 2):
        pytest.skip("deeper searches take minutes (the reference's, and crazy gulbar's in small chunks)")
    position = implementation.Position.from_text(text)
    row = position.to_array()
    whole, tiny = RowSum(), RowSum()
    kernels = _dispatch.implementations()[implementation.IMPLEMENTATION].Position.kernels
    expected = Search(kernels, whole, chunk=1 << 40).hint(row, roll, plies)
    found = Search(kernels, tiny, chunk=50).hint(row, roll, plies)
    for a, b in zip(expected, found):
        assert np.array_equal(np.asarray(a), np.asarray(b))
    assert whole.largest > 50 and tiny.largest <= 50


def test_greedy_with_a_python_evaluator_in_chunks(implementation: ModuleType) -> None:
    kernels = _dispatch.implementations()[implementation.IMPLEMENTATION].Position.kernels
    rows = np.array([implementation.Position.from_text(t).to_array() for t, _ in SEARCHED[:3]])
    rolls = np.array([r for _, r in SEARCHED[:3]], dtype=np.int8)
    children, offsets, _ = kernels.batch_children(rows, rolls)
    greedy = Greedy(RowSum(), plies=1)
    expected = greedy_choices(kernels, greedy, rows, children, offsets)
    chunk = search_module.CHUNK
    try:
        search_module.CHUNK = 5
        assert np.array_equal(greedy_choices(kernels, greedy, rows, children, offsets), expected)
    finally:
        search_module.CHUNK = chunk


#: A crazy gulbar position of the corpus with many results for 1-1 (each of which has many replies).
LADDER_TEXT = "crazy w 1:2,2:1,3:-1,5:-1,11:1,12:-9,13:1,15:-1,16:3,17:-1,23:-2,24:7 first=-"


@pytest.mark.skipif("cython" not in MODULES, reason="the reference's 1-ply search of a ladder takes minutes")
def test_a_one_ply_ladder_search_in_bounded_memory() -> None:
    """A crazy gulbar position of 1,603 results for 1-1 searched 1 ply by a Python evaluator: the level below
    is 3.2 million rows (a peak of 1 GB in one piece, 200 MB as rows alone); in chunks of 2**16 rows the
    search's peak stays a few tens of MB (the core's own buffers for a chunk's children are not counted)."""
    core = MODULES["cython"]
    position = core.Position.from_text(LADDER_TEXT)
    row = position.to_array()
    kernels = core.Position.kernels
    children, _, _ = kernels.batch_children(row[None, :], (1, 1))
    assert len(children) == 1603
    evaluator = Zeros()
    tracemalloc.start()
    try:
        Search(kernels, evaluator).ranked(row, np.asarray(children), 1)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 128 << 20, peak  # about 70 MB (1 GB in one piece)
    assert search_module.CHUNK // 2 < evaluator.largest <= search_module.CHUNK == 1 << 16  # chunks that matter


# --- 4. objects never initialised -------------------------------------------------------------------------


GAMES_PROBES: dict[str, Callable[[Any], object]] = {
    "n": lambda g: g.n,
    "len": len,
    "seed": lambda g: g.seed,
    "next_game": lambda g: g.next_game,
    "rows": lambda g: g.rows,
    "rolls": lambda g: g.rolls,
    "numbers": lambda g: g.numbers,
    "plies": lambda g: g.plies,
    "turns": lambda g: g.turns,
    "done": lambda g: g.done,
    "active": lambda g: g.active,
    "winner": lambda g: g.winner,
    "points": lambda g: g.points,
    "records": lambda g: g.records(),
    "repr": repr,
    "children": lambda g: g.children(),
    "step": lambda g: g.step([0]),
}


@pytest.mark.parametrize("probe", sorted(GAMES_PROBES))
def test_uninitialised_games(implementation: ModuleType, probe: str) -> None:
    games = implementation.Games.__new__(implementation.Games)
    with pytest.raises(NardyError) as caught:
        in_thread(lambda: GAMES_PROBES[probe](games))
    assert type(caught.value) is NardyError
    assert str(caught.value) == "games: was not made by the package's constructors (got an uninitialised Games)"


def test_uninitialised_games_keep_attribute_errors_for_unknown_names(implementation: ModuleType) -> None:
    games = implementation.Games.__new__(implementation.Games)
    with pytest.raises(AttributeError):
        games.no_such_thing  # noqa: B018


GREEDY_PROBES: dict[str, Callable[[Any], object]] = {
    "evaluator": lambda g: g.evaluator,
    "plies": lambda g: g.plies,
    "resolved": lambda g: g.resolved,
    "repr": repr,
    "resolve_policy": resolve_policy,
    "playout": lambda g: nardy_fast.playout("long", 1, policy=g),
    "duel": lambda g: nardy_fast.duel(g, "random", "long", 2),
}


@pytest.mark.parametrize("probe", sorted(GREEDY_PROBES))
def test_uninitialised_greedy(probe: str) -> None:
    greedy = Greedy.__new__(Greedy)
    with pytest.raises(NardyError) as caught:
        GREEDY_PROBES[probe](greedy)
    assert type(caught.value) is NardyError
    assert str(caught.value) == "greedy: was not made by the package's constructors (got an uninitialised Greedy)"


def test_a_table_asked_for_by_its_own_build_is_refused_not_deadlocked() -> None:
    """The lock sweep (issue 40): a bear-off table's build holds its key's lock; a gc callback, signal handler
    or finalizer that asks for the same table on the building thread waited for itself for ever. It is
    refused, the build goes on, and later calls share the built table."""
    from nardy_fast.bearoff import store

    key = ("test", "hostile-engine", object(), 1)
    seen: list[BaseException] = []

    def build() -> object:
        try:
            store.built_once(key, lambda: "inner")
        except NardyError as error:
            seen.append(error)
        return "outer"

    done: list[object] = []
    worker = threading.Thread(target=lambda: done.append(store.built_once(key, build)), daemon=True)
    worker.start()
    worker.join(timeout=30)
    assert not worker.is_alive(), "the re-entrant call deadlocked"
    assert done == ["outer"]
    assert [str(error) for error in seen] == [
        "table: is being built by a call on this thread, which must return first (got "
        f"{nardy_fast.errors.quote(key)})"
    ]
    assert store.built_once(key, lambda: "again") == "outer"
