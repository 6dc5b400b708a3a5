"""Hostile use of the public API: what a careless or malicious caller can do to either implementation.

Checked here:

1. re-entrancy: move searches run from ``gc.callbacks`` and from finalisers while another search (or batch)
   is running leave the outer call's answer unchanged;
2. threads: four threads searching (and batching) at once, with a fifth making garbage whose finaliser
   searches too, get the single-thread answers;
3. an input array overwritten by another thread while the core reads it gives an error or consistent
   children, never a crash;
4. forged core moves (``Move()``, ``Move.__new__``) and uninitialised positions and moves raise
   ``NardyError``, never crash; the core's moves have no Cython pickling hooks;
5. pickling (every protocol), copying and passing moves to another process; a hand-edited pickle is checked;
6. ``Position(state)`` checks the state as ``from_board`` does;
7. perft's depth bound (``MAX_PERFT_DEPTH``) and its argument checks;
8. one input policy: no ``bool`` is a number, NumPy integers are, only ASCII digits are digits in texts,
   out-of-range and ragged input names its field, error messages stay short whatever the input's size;
9. ``max_results`` bounds a search alike in both implementations, and Ctrl-C (``KeyboardInterrupt``) stops a
   long search of the core.

Checks that concern both implementations run on both (the ``Position`` fixture, or the reference against
the core with the same exception class and message); checks of the compiled core alone are skipped without
it. Probes that can kill or hang the interpreter (forged core moves, rows overwritten during a batch, perft
far too deep) run in a child process, so that a crash or a hang fails one test instead of ending the run.
"""

from __future__ import annotations

import copy
import gc
import json
import multiprocessing
import pickle
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from functools import cache, partial
from pathlib import Path
from types import FrameType
from typing import Any, Optional

import numpy as np
import numpy.typing as npt
import pytest
from ids import stable_repr

import nardy_fast
from nardy_fast import reference
from nardy_fast.corpus import load
from nardy_fast.errors import (
    IllegalMoveError,
    InvalidDiceError,
    InvalidNotationError,
    InvalidPositionError,
    NardyError,
)
from nardy_fast.position import Move
from nardy_fast.position import Position as BasePosition

Pos = type[reference.Position]
AnyPos = type[BasePosition]
Roll = tuple[int, int]
Rows = npt.NDArray[np.int8]
#: A move list in comparable form: steps as text, result text, remainder, extra roll, for every move in order.
Summary = list[tuple[tuple[str, ...], str, tuple[int, ...], bool]]

HAS_CORE = nardy_fast.IMPLEMENTATION == "cython"
core_only = pytest.mark.skipif(not HAS_CORE, reason="the compiled core is not built or not in use")
#: The implementations to compare: the reference, and the core when it serves the package.
IMPLEMENTATIONS: list[AnyPos] = (
    [reference.Position, nardy_fast.Position] if HAS_CORE else [reference.Position]
)
TESTS = str(Path(__file__).resolve().parent)

LONG_START = "long w 12:-15,24:15"
SHORT_START = "short w 1:-2,6:5,8:3,12:-5,13:5,17:-3,19:-5,24:2"
LONG_BOARD = (0,) * 11 + (-15,) + (0,) * 11 + (15,)

# Busy (position, roll) pairs: corpus rows (nardy_fast/data/corpus.npz) with the most moves of their variant
# and roll kind, small enough for the reference (a few hundred moves, at most about 50 ms each).
SHORT_DOUBLE = (
    "short b 1:7,2:-2,4:-1,5:-1,8:-1,9:-1,10:-1,12:-1,15:-1,16:-1,21:-1,22:-2,23:-2 off=8/0 first=-",
    (2, 2),
)
SHORT_NON_DOUBLE = (
    "short w 1:2,2:1,3:1,5:-4,6:3,7:1,8:1,9:-1,10:-1,11:1,13:1,14:1,17:-1,18:1,19:1,20:1,22:-2,23:-1,24:-5 "
    "first=-",
    (4, 1),
)
LONG_NON_DOUBLE = (
    "long w 1:3,2:2,3:1,4:2,5:-3,6:-1,7:-2,8:-1,12:-2,13:-6,16:1,18:2,19:1,20:1,23:1,24:1 first=-",
    (1, 2),
)
LONG_DOUBLE = (
    "long b 1:3,2:4,4:-2,5:-1,6:1,10:-1,11:-1,12:-1,13:3,14:-2,15:-3,16:-1,17:-1,18:1,19:-1,23:-1,24:3 "
    "first=-",
    (1, 1),
)
SIXONE_DOUBLE = (
    "sixone w 1:2,2:2,3:1,4:-3,5:-3,6:-1,9:1,10:1,11:1,12:1,13:-5,14:-3,18:2,19:2,21:1,24:1 first=-",
    (1, 1),
)
GULBAR_LADDER = ("gulbar w 1:3,2:1,3:1,5:1,8:2,9:1,11:1,12:1,13:-9,14:1,15:1,18:2 off=0/6 first=-", (1, 1))
CRAZY_LADDER = ("crazy w 1:7,2:2,4:2,8:-1,12:1,13:-8,14:-1,15:-1,16:2,18:1,21:-2,22:-2 first=-", (1, 1))
CRAZY_LADDER_2 = (
    "crazy b 1:7,2:1,6:-2,7:-1,13:-3,14:-2,15:-4,16:-1,19:3,20:1,22:-1,23:-1,24:3 first=-",
    (2, 2),
)
CRAZY_LADDER_4 = (CRAZY_LADDER_2[0] + " ladder_per_value=4", (2, 2))
CRAZY_PENDING: tuple[str, Optional[Roll]] = (
    "crazy w 3:-1,12:-14,20:1,24:14 first=- pending=3,4,4,5,5,6,6",
    None,
)
GULBAR_PENDING: tuple[str, Optional[Roll]] = ("gulbar w 12:-15,24:15 pending=5", None)
PER_STEP = [
    (LONG_DOUBLE[0] + " block_check=per_step", LONG_DOUBLE[1]),
    (GULBAR_LADDER[0] + " block_check=per_step", GULBAR_LADDER[1]),
    (CRAZY_LADDER[0] + " block_check=per_step", CRAZY_LADDER[1]),
]
#: 67,703 moves: for the core only (the reference takes minutes).
CRAZY_BIG = ("crazy w 1:1,2:1,4:-2,5:3,7:2,8:1,12:-4,13:-2,15:-6,16:1,17:-1,19:1,20:2,24:3 first=-", (1, 1))

#: A crazy 1-1 ladder of four steps per value (24 steps) with 324,306 moves: about 9-11 s for the core's
#: ``legal_moves`` and ``batch_children`` alike on the development machine (1.7 GB at its peak). Found by
#: seeded random self-play of crazy from the start, timing 1-1 with ``ladder_per_value=4`` at every position
#: whose 1-1 ladder of two steps per value had over 150,000 moves, and keeping the slowest with fewest moves.
HOSTILE = (
    "crazy b 1:7,2:2,3:-1,6:-1,7:-1,8:-1,10:-1,11:1,12:-1,13:-1,14:-1,15:-2,16:-1,17:-1,18:5,23:-2,24:-1 "
    "first=- ladder_per_value=4"
)
#: Short nardy with both sides on the bar before a closed home board: every roll is a pass, for either side,
#: for ever. (Long nardy has no such position: a side with a checker outside its home needs a six-point block
#: of the other's, which can always move with a 1, and a side all home can bear off.)
BOTH_STUCK = "short w 1:2,2:2,3:2,4:2,5:2,6:3,19:-3,20:-2,21:-2,22:-2,23:-2,24:-2 bar=2/2"

#: A bound on Ctrl-C's delay far below the hostile search's length, far above a signal check's period.
INTERRUPT_BOUND = 5.0


# --- helpers ------------------------------------------------------------------------------------------------


def summary(moves: list[Move]) -> Summary:
    """Everything a move list says, in order."""
    return [(tuple(str(s) for s in m.steps), m.result.to_text(), m.remainder, m.extra_roll) for m in moves]


def error_of(call: Callable[[], object]) -> tuple[type[Exception], str]:
    """The class and message of the exception ``call`` raises; fails the test when it returns."""
    try:
        value = call()
    except Exception as error:
        return type(error), str(error)
    pytest.fail(f"no error was raised; got {value!r:.300}")


def outcome(call: Callable[[], object]) -> tuple[str, object]:
    """``("error", (class, message))`` for a ``NardyError`` (any other exception fails the test), else
    ``("value", comparable form)``: a summary for a move list, text and key for a position, bytes for
    arrays."""
    try:
        value = call()
    except NardyError as error:
        return ("error", (type(error), str(error)))
    if isinstance(value, list) and all(isinstance(m, Move) for m in value):
        return ("value", summary(value))
    if isinstance(value, BasePosition):
        return ("value", (value.to_text(), value.zobrist))
    arrays = value if isinstance(value, tuple) else (value,)
    if all(isinstance(a, np.ndarray) for a in arrays):
        return ("value", [(a.dtype.str, a.shape, a.tobytes()) for a in arrays])
    return ("value", value)


def assert_rejected(
    call: Callable[[AnyPos], object],
    error: type[Exception],
    field: str,
    implementations: list[AnyPos] = IMPLEMENTATIONS,
) -> str:
    """``call`` raises ``error`` naming ``field`` in a short message, the same class and message for every
    implementation; returns the message."""
    found = [error_of(lambda: call(cls)) for cls in implementations]
    cls, message = found[0]
    assert issubclass(cls, error), found[0]
    assert message.startswith(field), message[:600]
    assert len(message) < 600, message[:600]
    assert all(f == found[0] for f in found), found
    return message


def loose(value: object) -> Any:
    """``value``, passed where the API's annotations do not allow it."""
    return value


def rows_of(cases: list[tuple[str, Optional[Roll]]]) -> tuple[Rows, Rows]:
    """Packed rows and rolls ((0, 0) for a pending list) of (text, roll) pairs."""
    rows = np.stack([reference.Position.from_text(text).to_array() for text, _ in cases])
    rolls = np.array([roll or (0, 0) for _, roll in cases], dtype=np.int8)
    return rows, rolls


def run_in_child(function: str, timeout: float = 120, module: str = "test_hostile") -> str:
    """Run ``function()`` of the test module ``module`` (this one by default) in a fresh interpreter; its
    standard output, or a failure that says how it died or that it hung."""
    code = f"import sys; sys.path.insert(0, {TESTS!r}); import {module}; {module}.{function}()"
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{function}: still running after {timeout} s")
    if done.returncode < 0:
        name = signal.Signals(-done.returncode).name
        pytest.fail(f"{function}: the interpreter was killed by {name}\n{done.stderr[-4000:]}")
    assert done.returncode == 0, f"{function}: exit status {done.returncode}\n{done.stderr[-4000:]}"
    return done.stdout


@contextmanager
def frequent_gc(callback: Optional[Callable[[str, dict[str, int]], None]] = None) -> Iterator[None]:
    """The collector runs at almost every allocation of a container, with ``callback`` among ``gc.callbacks``.

    Only the young generation runs that often (older ones are left alone), so that each run stays cheap. The
    previous settings come back on exit.
    """
    threshold = gc.get_threshold()
    enabled = gc.isenabled()
    if callback is not None:
        gc.callbacks.append(callback)
    gc.set_threshold(1, 1_000_000, 1_000_000)
    gc.enable()
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
        if callback is not None:
            gc.callbacks.remove(callback)
        if not enabled:
            gc.disable()


class Inner:
    """Move searches run from inside another call (by a gc callback or a finaliser), each checked against its
    answer computed beforehand; at most ``budget`` of them, so that the outer call stays short."""

    CASES: tuple[tuple[str, Optional[Roll]], ...] = (LONG_DOUBLE, (SHORT_START, (3, 3)), GULBAR_PENDING)

    def __init__(self, position_class: AnyPos, budget: int) -> None:
        self.calls = [(position_class.from_text(text), roll) for text, roll in self.CASES]
        self.expected = [summary(p.legal_moves(roll)) for p, roll in self.calls]
        self.budget = budget
        self.done = 0
        self.wrong: list[str] = []

    def __call__(self) -> None:
        if self.done >= self.budget:
            return
        index = self.done % len(self.calls)
        self.done += 1
        position, roll = self.calls[index]
        try:
            if summary(position.legal_moves(roll)) != self.expected[index]:
                self.wrong.append(f"inner search {index} gave another answer")
        except BaseException as error:  # a finaliser's exception would only be printed
            self.wrong.append(f"inner search {index} raised {error!r}")


class Finalised:
    """Cyclic garbage whose finaliser runs ``action``."""

    def __init__(self, action: Callable[[], None]) -> None:
        self.cycle = self
        self.action = action

    def __del__(self) -> None:
        self.action()


# --- 1. re-entrancy -----------------------------------------------------------------------------------------

REENTRY_CASES = [
    pytest.param(*SHORT_DOUBLE, False, id="short-double"),
    pytest.param(*SIXONE_DOUBLE, False, id="sixone-double"),
    pytest.param(*GULBAR_LADDER, False, id="gulbar-ladder"),
    pytest.param(*CRAZY_LADDER, False, id="crazy-ladder"),
    pytest.param(*CRAZY_LADDER_4, False, id="crazy-ladder-4"),
    pytest.param(*CRAZY_PENDING, False, id="crazy-pending"),
    pytest.param(*CRAZY_BIG, True, id="crazy-ladder-big"),
]


@pytest.mark.slow  # crazy ladders searched inside garbage-collector callbacks
@pytest.mark.parametrize(("text", "roll", "big"), REENTRY_CASES)
def test_gc_callback_searches_leave_the_outer_search_alone(
    Position: Pos, text: str, roll: Optional[Roll], big: bool
) -> None:
    if big and Position is reference.Position:
        pytest.skip("too slow for the reference")
    position = Position.from_text(text)
    expected = summary(position.legal_moves(roll))
    inner = Inner(Position, budget=20)

    def callback(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            inner()

    with frequent_gc(callback):
        moves = position.legal_moves(roll)
    assert inner.done > 0, "the collector never ran during the search"
    assert inner.wrong == []
    assert summary(moves) == expected


@pytest.mark.slow  # crazy ladders searched inside finalisers
@pytest.mark.parametrize(("text", "roll", "big"), REENTRY_CASES)
def test_finaliser_searches_leave_the_outer_search_alone(
    Position: Pos, text: str, roll: Optional[Roll], big: bool
) -> None:
    if big and Position is reference.Position:
        pytest.skip("too slow for the reference")
    position = Position.from_text(text)
    expected = summary(position.legal_moves(roll))
    inner = Inner(Position, budget=20)

    def callback(phase: str, info: dict[str, int]) -> None:
        # garbage for the next run of the collector, which comes during the outer search
        if phase == "stop" and inner.done < inner.budget:
            Finalised(inner)
            Finalised(inner)

    gc.disable()
    try:
        garbage = [Finalised(inner) for _ in range(3)]
        del garbage
    finally:
        gc.enable()
    with frequent_gc(callback):
        moves = position.legal_moves(roll)
    gc.collect()
    assert inner.done > 0, "no finaliser ran"
    assert inner.wrong == []
    assert summary(moves) == expected


BATCHES: dict[str, Callable[..., tuple[Rows, npt.NDArray[np.int64], npt.NDArray[np.uint64]]]] = {
    "package": nardy_fast.batch_children,
    "reference": reference.batch_children,
}


@pytest.mark.parametrize("outer", ["children", "package", "reference"])
def test_gc_callback_batches_leave_the_outer_batch_alone(outer: str) -> None:
    rows, rolls = rows_of([SHORT_DOUBLE, SIXONE_DOUBLE, CRAZY_LADDER, CRAZY_PENDING, GULBAR_LADDER])
    inner_rows, inner_rolls = rows_of([LONG_DOUBLE, (SHORT_START, (3, 3)), GULBAR_PENDING])
    if outer == "children":

        def call() -> object:
            return nardy_fast.children(rows[0], SHORT_DOUBLE[1])
    else:

        def call() -> object:
            return BATCHES[outer](rows, rolls)

    expected = outcome(call)
    inner_expected = (
        outcome(lambda: nardy_fast.children(inner_rows[0], LONG_DOUBLE[1])),
        outcome(lambda: nardy_fast.batch_children(inner_rows, inner_rolls)),
    )
    runs: list[bool] = []

    def callback(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and len(runs) < 10:
            runs.append(
                (
                    outcome(lambda: nardy_fast.children(inner_rows[0], LONG_DOUBLE[1])),
                    outcome(lambda: nardy_fast.batch_children(inner_rows, inner_rolls)),
                )
                == inner_expected
            )

    with frequent_gc(callback):
        got = outcome(call)
    assert runs and all(runs)
    assert got == expected


# --- 2. threads ---------------------------------------------------------------------------------------------


@cache
def corpus_sample() -> tuple[tuple[bytes, Optional[Roll]], ...]:
    """About 200 corpus rows of every variant (as bytes) with their rolls, ``None`` for a pending list; crazy
    ladders of 1-1, 2-2 and 3-3 left out (too slow for the reference)."""
    sample: list[tuple[bytes, Optional[Roll]]] = []
    for variant in nardy_fast.VARIANTS:
        rows, rolls = load(variant)
        rolled = pending = 0
        for row, roll in zip(rows, rolls):
            d1, d2 = int(roll[0]), int(roll[1])
            if (d1, d2) == (0, 0):
                if pending < 4:
                    sample.append((row.tobytes(), None))
                    pending += 1
            elif rolled < 36 and not (variant == "crazy" and d1 == d2 <= 3):
                sample.append((row.tobytes(), (d1, d2)))
                rolled += 1
            if rolled == 36 and (pending == 4 or variant not in ("gulbar", "crazy")):
                break
    return tuple(sample)


def sample_rows() -> tuple[Rows, Rows]:
    sample = corpus_sample()
    rows = np.stack([np.frombuffer(row, dtype=np.int8) for row, _ in sample])
    rolls = np.array([roll or (0, 0) for _, roll in sample], dtype=np.int8)
    return np.ascontiguousarray(rows), rolls


def brief(moves: list[Move]) -> list[tuple[str, object]]:
    return [(str(m), m.result.state) for m in moves]


#: The threads' collector runs every this many allocations (young generation only): often enough that
#: finalisers run inside other threads' searches.
GC_EVERY = 20


def run_threads(work: Callable[[], None], churn_action: Callable[[], None], seconds: float) -> None:
    """``work`` on four threads until ``seconds`` have passed (at least once each), with a fifth thread making
    cyclic garbage whose finaliser runs ``churn_action``; threads switch as often as the interpreter allows.
    Re-raises the first error of any thread."""
    errors: list[BaseException] = []
    passes = [0] * 4
    deadline = time.perf_counter() + seconds
    stop = threading.Event()

    def worker(index: int) -> None:
        try:
            while passes[index] == 0 or time.perf_counter() < deadline:
                work()
                passes[index] += 1
        except BaseException as error:
            errors.append(error)

    def churn() -> None:
        try:
            while not stop.is_set():
                Finalised(churn_action)
                time.sleep(0.001)
        except BaseException as error:
            errors.append(error)

    interval = sys.getswitchinterval()
    threshold = gc.get_threshold()
    sys.setswitchinterval(1e-6)
    # young collections (which run finalisers in whichever thread allocates) every few allocations
    gc.set_threshold(GC_EVERY, 1_000_000, 1_000_000)
    try:
        churner = threading.Thread(target=churn)
        workers = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
        churner.start()
        for thread in workers:
            thread.start()
        for thread in workers:
            thread.join()
        stop.set()
        churner.join()
    finally:
        sys.setswitchinterval(interval)
        gc.set_threshold(*threshold)
        stop.set()
    gc.collect()
    if errors:
        raise errors[0]
    assert min(passes) > 0


def test_threads_get_the_single_thread_answers(Position: Pos) -> None:
    items = [(Position.from_array(np.frombuffer(row, dtype=np.int8)), roll) for row, roll in corpus_sample()]
    expected = [brief(p.legal_moves(roll)) for p, roll in items]
    small = Position.from_text(LONG_START)
    small_expected = brief(small.legal_moves((6, 5)))
    wrong: list[str] = []

    def work() -> None:
        for index, (position, roll) in enumerate(items):
            if brief(position.legal_moves(roll)) != expected[index]:
                wrong.append(f"{position.to_text()} {roll}")

    def finaliser_search() -> None:
        if brief(small.legal_moves((6, 5))) != small_expected:
            wrong.append("a finaliser's search")

    run_threads(work, finaliser_search, seconds=1.5)
    assert wrong == []


@pytest.mark.parametrize("batch", sorted(BATCHES))
def test_threads_get_the_single_thread_batches(batch: str) -> None:
    function = BATCHES[batch]
    rows, rolls = sample_rows()
    expected = function(rows, rolls)
    small = nardy_fast.Position.from_text(LONG_START)
    small_expected = brief(small.legal_moves((6, 5)))
    wrong: list[str] = []

    def work() -> None:
        got = function(rows, rolls)
        if not all(np.array_equal(got[i], expected[i]) for i in range(3)):
            wrong.append("a batch")

    def finaliser_search() -> None:
        if brief(small.legal_moves((6, 5))) != small_expected:
            wrong.append("a finaliser's search")

    run_threads(work, finaliser_search, seconds=1.5)
    assert wrong == []


# --- 3. rows overwritten during a batch (core) --------------------------------------------------------------


def possible_children(rows: list[Rows], roll: Roll) -> set[tuple[bytes, bytes]]:
    """The children and keys (of one row, in order, as bytes) of every valid row that a reader racing a writer
    can see when the writer replaces one of ``rows`` by another: a mix of theirs, eight-byte word by word, or
    with a run of bytes of one inside the other. The children of the two rows themselves unpack to their
    keys."""
    mixes: list[Rows] = []
    for first, second in ((a, b) for a in rows for b in rows if a is not b):
        for mask in range(256):
            words = [(first if mask >> w & 1 else second)[8 * w : 8 * w + 8] for w in range(8)]
            mixes.append(np.concatenate(words))
        for start in range(65):
            mixes.extend(
                np.concatenate([first[:start], second[start:end], first[end:]]) for end in range(start, 65)
            )
    found: set[tuple[bytes, bytes]] = set()
    for row in mixes:
        try:
            nardy_fast.Position.from_array(row)
        except NardyError:
            continue
        children, _, keys = nardy_fast.batch_children(row, roll)
        found.add((children.tobytes(), keys.tobytes()))
    for row in rows:
        children, _, keys = nardy_fast.batch_children(row, roll)
        for child, key in zip(children, keys):
            assert nardy_fast.Position.from_array(child).zobrist == int(key)
    return found


def _overwritten_rows_check(seconds: float = 2.0) -> None:
    """(Run in a child process.) A thread keeps overwriting the rows of the input array (with the rows of two
    valid positions, now and then with garbage) while ``batch_children`` reads it: each call raises a
    ``NardyError`` or returns well-formed children, those of a row as the reader could have seen it (so every
    child unpacks to its key)."""
    # every mix of these rows that is valid has at most about a thousand children for this roll (a crazy
    # ladder would make some mix a search of seconds)
    roll = (2, 2)
    sources = [nardy_fast.Position.from_text(text).to_array() for text, _ in (SHORT_DOUBLE, LONG_DOUBLE)]
    possible = possible_children(sources, roll)
    garbage = np.random.default_rng(20261130).integers(-128, 128, size=(4, 64), dtype=np.int8)
    # mostly valid rows, so that most calls get past the checks and search rows that change under them; two
    # rows only, so that each is overwritten every microsecond or so
    writes = [sources[k % 2] for k in range(24)] + list(garbage)
    array = np.ascontiguousarray(np.stack(sources))
    rolls = np.array([roll] * len(array), dtype=np.int8)
    stop = threading.Event()

    def overwrite() -> None:
        k = 0
        while not stop.is_set():
            for i in range(len(array)):
                array[i] = writes[k % len(writes)]
                k += 1

    writer = threading.Thread(target=overwrite)
    writer.start()
    calls = returned = 0
    try:
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            calls += 1
            try:
                children, offsets, keys = nardy_fast.batch_children(array, rolls)
            except NardyError:
                continue
            returned += 1
            assert offsets.shape == (len(array) + 1,) and offsets[0] == 0
            assert np.all(np.diff(offsets) >= 0) and offsets[-1] == len(children) == len(keys)
            for i in range(len(array)):
                start, end = offsets[i], offsets[i + 1]
                if (children[start:end].tobytes(), keys[start:end].tobytes()) not in possible:
                    for child in children[start:end]:
                        nardy_fast.Position.from_array(child)
                    raise AssertionError(f"row {i}: its children are no row's children")
    finally:
        stop.set()
        writer.join()
    print(json.dumps({"calls": calls, "returned": returned, "possible rows": len(possible)}))


@core_only
def test_rows_overwritten_during_a_batch() -> None:
    report = json.loads(run_in_child("_overwritten_rows_check").splitlines()[-1])
    assert report["calls"] > 0


# --- 4. forged and uninitialised objects --------------------------------------------------------------------

MOVE_ATTRIBUTES = ("parent", "roll", "steps", "result", "remainder", "extra_roll")


def move_probes(forged: Any, real: Move) -> dict[str, Callable[[], object]]:
    """What a user may do with a move."""
    probes: dict[str, Callable[[], object]] = {
        name: partial(getattr, forged, name) for name in MOVE_ATTRIBUTES
    }
    probes.update(
        {
            "str": lambda: str(forged),
            "repr": lambda: repr(forged),
            "eq": lambda: forged == real,
            "hash": lambda: hash(forged),
            "pickle": lambda: pickle.dumps(forged),
        }
    )
    return probes


def probe_results(probes: dict[str, Callable[[], object]], log: bool = False) -> dict[str, list[object]]:
    """For each probe: ``[is a NardyError, class name, message]``, or ``["returned", repr]``."""
    results: dict[str, list[object]] = {}
    for name, probe in probes.items():
        if log:
            print(f"probe {name}", file=sys.stderr, flush=True)  # the last one named is the one that crashed
        try:
            value = probe()
        except Exception as error:
            results[name] = [isinstance(error, NardyError), type(error).__name__, str(error)]
        else:
            results[name] = ["returned", repr(value)[:200]]
    return results


def _forged_core_moves() -> None:
    """(Run in a child process.) The probes of core moves made by ``Move()`` and ``Move.__new__(Move)``."""
    real = nardy_fast.Position.start("long").legal_moves((3, 1))[0]
    klass: Any = type(real)
    report: dict[str, list[object]] = {}
    makers: dict[str, Callable[[], object]] = {"call": lambda: klass(), "new": lambda: klass.__new__(klass)}
    for how, make in makers.items():
        for name, result in probe_results(move_probes(make(), real), log=True).items():
            report[f"{how}.{name}"] = result
    print(json.dumps(report))


@core_only
def test_forged_core_moves_raise() -> None:
    report = json.loads(run_in_child("_forged_core_moves").splitlines()[-1])
    real = reference.Position.start("long").legal_moves((3, 1))[0]
    klass: Any = type(real)
    reference_report = probe_results(move_probes(klass.__new__(klass), real))
    assert len(report) == 2 * len(reference_report)
    for name, result in report.items():
        assert result[0] is True, (name, result)
        assert "uninitialised" in str(result[2]), (name, result)
    for name in MOVE_ATTRIBUTES:
        # the reference's uninitialised move says the same as the core's, attribute by attribute
        assert reference_report[name] == report[f"new.{name}"], name


def test_uninitialised_reference_moves_raise() -> None:
    real = reference.Position.start("long").legal_moves((3, 1))[0]
    assert type(real) is reference.Move
    klass: Any = type(real)
    for name, result in probe_results(move_probes(klass.__new__(klass), real)).items():
        assert result[0] is True, (name, result)
        assert "uninitialised" in str(result[2]), (name, result)


@core_only
def test_core_moves_have_no_cython_pickling_hooks() -> None:
    move = nardy_fast.Position.start("long").legal_moves((3, 1))[0]
    assert not hasattr(type(move), "__setstate_cython__")
    assert not hasattr(type(move), "__reduce_cython__")


POSITION_PROBES: dict[str, Callable[[BasePosition], object]] = {
    "legal_moves": lambda p: p.legal_moves((3, 1)),
    "board": lambda p: p.board,
    "to_text": lambda p: p.to_text(),
    "repr": repr,
    "hash": hash,
}


@pytest.mark.parametrize("probe", sorted(POSITION_PROBES))
def test_uninitialised_positions_raise_alike(probe: str) -> None:
    assert_rejected(lambda cls: POSITION_PROBES[probe](cls.__new__(cls)), NardyError, "")


def test_uninitialised_positions_raise_on_every_use(Position: Pos) -> None:
    forged = Position.__new__(Position)
    probes: dict[str, Callable[[], object]] = {
        "str": lambda: str(forged),
        "eq": lambda: forged == Position.start("long"),
        "zobrist": lambda: forged.zobrist,
        "to_array": lambda: forged.to_array(),
        "pickle": lambda: pickle.dumps(forged),
        "play": lambda: forged.play("24/21 24/23", (3, 1)),
        "perft": lambda: nardy_fast.perft(forged, 1),
    }
    for name, result in probe_results(probes).items():
        assert result[0] is True, (name, result)


# --- 5. pickling and copying --------------------------------------------------------------------------------

PICKLED_TEXTS = [
    LONG_START,
    SHORT_START,
    "short w 6:14,19:-13 bar=1/1 off=0/1 first=-",
    GULBAR_PENDING[0],
    CRAZY_PENDING[0],
    "crazy b 12:-15,24:15 first=w block_check=per_step ladder_per_value=4",
    "sixone w 12:-15,24:15 sixone_extra_roll_requires_play=true",
    "long w 12:-15,24:15 first_roll_exception_doubles=-",
    BOTH_STUCK,
]


def sample_moves(Position: AnyPos) -> list[Move]:
    """Moves of every kind: plain, with a remainder (gulbar, crazy), for a pending list, with an extra roll, a
    pass."""
    moves = [Position.start("long").legal_moves((6, 5))[0]]
    gulbar = Position.from_text(
        "gulbar w 1:6,2:-2,3:3,9:-1,12:-2,13:-4,14:-2,16:-2,18:4,20:2,21:-1,24:-1 first=-"
    )
    moves.append(next(m for m in gulbar.legal_moves((6, 2)) if m.remainder))
    crazy = Position.from_text("crazy b 12:-15,20:1,24:14 first=b")
    moves.append(next(m for m in crazy.legal_moves((1, 1)) if m.remainder))
    moves.append(Position.from_text(GULBAR_PENDING[0]).legal_moves()[0])
    moves.append(Position.from_text(CRAZY_PENDING[0]).legal_moves()[-1])
    moves.append(next(m for m in Position.start("sixone").legal_moves((6, 1)) if m.extra_roll))
    moves.append(Position.from_text(BOTH_STUCK).legal_moves((6, 6))[0])
    return moves


def assert_same_move(back: Move, move: Move) -> None:
    assert type(back) is type(move)
    assert back == move and hash(back) == hash(move)
    assert (str(back), repr(back), back.roll, back.extra_roll, back.remainder) == (
        str(move),
        repr(move),
        move.roll,
        move.extra_roll,
        move.remainder,
    )
    assert back.result == move.result and back.result.to_text() == move.result.to_text()
    assert back.parent == move.parent and type(back.result) is type(move.result)


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_pickle_round_trip(Position: Pos, protocol: int) -> None:
    for text in PICKLED_TEXTS:
        position = Position.from_text(text)
        back = pickle.loads(pickle.dumps(position, protocol))
        assert type(back) is type(position)
        assert back == position and back.to_text() == text and back.zobrist == position.zobrist
        assert hash(back) == hash(position)
    moves = sample_moves(Position)
    assert moves[1].remainder and moves[2].remainder and moves[3].roll is None and moves[5].extra_roll
    for move in moves:
        assert_same_move(pickle.loads(pickle.dumps(move, protocol)), move)
    # a list shares its parent position between moves: memoised pickles must still give equal moves
    together = Position.start("short").legal_moves((3, 3))
    assert summary(pickle.loads(pickle.dumps(together, protocol))) == summary(together)


def test_copies(Position: Pos) -> None:
    for text in PICKLED_TEXTS:
        position = Position.from_text(text)
        for duplicate in (copy.copy(position), copy.deepcopy(position)):
            assert type(duplicate) is type(position)
            assert (
                duplicate == position
                and duplicate.to_text() == text
                and duplicate.zobrist == position.zobrist
            )
            assert outcome(
                lambda: duplicate.legal_moves((6, 5) if not position.pending else None)
            ) == outcome(lambda: position.legal_moves((6, 5) if not position.pending else None))
    for move in sample_moves(Position):
        assert_same_move(copy.copy(move), move)
        assert_same_move(copy.deepcopy(move), move)


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_edited_pickles_are_checked(Position: Pos, protocol: int) -> None:
    data = pickle.dumps(Position.from_text(LONG_START), protocol)
    # the test edits the position text inside the pickle: it must be there, once
    assert data.count(b"24:15") == 1
    with pytest.raises(NardyError):
        pickle.loads(data.replace(b"24:15", b"24:16"))  # 16 White checkers
    with pytest.raises(NardyError):
        pickle.loads(data.replace(b"24:15", b"24:-5"))  # 20 Black checkers
    move = Position.start("long").legal_moves((6, 5))[0]
    assert move.result.to_text() == "long b 12:-15,13:1,24:14 first=b"
    data = pickle.dumps(move, protocol)
    assert data.count(b"13:1,24:14") == 1
    with pytest.raises(NardyError):
        pickle.loads(data.replace(b"13:1,24:14", b"14:1,24:14"))  # a position no 6-5 reaches


def _describe(move: Move) -> tuple[str, str]:
    """(Run in a worker process.) What a move says: its text and its result's."""
    return str(move), move.result.to_text()


def test_moves_cross_process_boundaries() -> None:
    moves = [move for cls in IMPLEMENTATIONS for move in sample_moves(cls)]
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        got = list(pool.map(_describe, moves, timeout=120))
    assert got == [_describe(move) for move in moves]


# --- 6. Position(state) -------------------------------------------------------------------------------------

GULBAR_STATE = reference.Position.start("gulbar").state

#: (field, value): ``Position(state._replace(field=value))`` fails like ``from_board`` given the same field.
BAD_STATE_FIELDS: list[tuple[str, object]] = [
    ("pending", (1,) * 60),
    ("pending", (9, 9)),
    ("board", (127,) + LONG_BOARD[1:]),
    ("board", LONG_BOARD[:23]),
    ("turn", "green"),
    ("bar", (1, 0)),
    ("off", (2**70, 0)),
    ("first_roll", (1, 0)),
    ("variant", "backgammon"),
]


@pytest.mark.parametrize(("field", "value"), BAD_STATE_FIELDS, ids=lambda v: repr(v)[:30])
def test_position_of_a_bad_state_fails_like_from_board(field: str, value: object) -> None:
    fields: dict[str, Any] = {
        "variant": "gulbar",
        "board": GULBAR_STATE.board,
        "turn": "white",
        "bar": (0, 0),
        "off": (0, 0),
        "first_roll": (True, True),
        "pending": (),
    }
    fields[field] = value
    variant = fields.pop("variant")
    board = fields.pop("board")
    want = error_of(lambda: reference.Position.from_board(variant, board, **fields))
    assert issubclass(want[0], InvalidPositionError) and want[1].startswith(field), want
    replacement: dict[str, Any] = {field: value}
    state = GULBAR_STATE._replace(**replacement)
    for cls in IMPLEMENTATIONS:
        assert error_of(lambda: cls(state)) == want, cls


BAD_FLAGS: list[object] = [
    "block_check",
    None,
    5,
    (("block_check",),),
    (("block_check", "per_step", "again"),),
    ((1, "per_step"),),
    {"block_check": "per_step"},
    ("block_check", "per_step"),
]


@pytest.mark.parametrize("flags", BAD_FLAGS, ids=stable_repr)
def test_position_of_a_state_with_bad_flags_fails(flags: Any) -> None:
    state = GULBAR_STATE._replace(flags=flags)
    assert_rejected(lambda cls: cls(state), InvalidPositionError, "flags")


def test_position_of_a_state_with_a_bad_flag_value_fails_like_from_board() -> None:
    state = GULBAR_STATE._replace(flags=(("block_check", "never"),))
    message = assert_rejected(lambda cls: cls(state), InvalidPositionError, "block_check")
    assert message == error_of(lambda: reference.Position.start("gulbar", block_check="never"))[1]


@pytest.mark.parametrize(
    "state", ["long w 12:-15,24:15", None, tuple(GULBAR_STATE), {"variant": "long"}], ids=stable_repr
)
def test_position_of_something_else_fails(state: Any) -> None:
    assert_rejected(lambda cls: cls(state), InvalidPositionError, "")


def test_position_of_a_good_state(Position: Pos) -> None:
    start = Position.start("gulbar")
    black = Position(start.state._replace(turn="black"))
    assert type(black) is Position
    assert black == Position.from_board("gulbar", start.board, turn="black")
    assert black.to_text() == "gulbar b 12:-15,24:15"
    assert black.zobrist == Position.from_text("gulbar b 12:-15,24:15").zobrist
    board: Any = list(start.board)
    assert Position(start.state._replace(board=board)) == start
    for text in PICKLED_TEXTS:
        position = Position.from_text(text)
        again = Position(position.state)
        assert again == position and again.zobrist == position.zobrist and again.to_text() == text


# --- 7. perft -----------------------------------------------------------------------------------------------


def test_perft_depth_bound_is_public() -> None:
    assert type(nardy_fast.MAX_PERFT_DEPTH) is int and nardy_fast.MAX_PERFT_DEPTH >= 8


def test_perft_takes_numpy_depths(Position: Pos) -> None:
    start = Position.start("short")
    one_ply = sum(len(start.legal_moves(roll)) for roll in nardy_fast.ROLLS)
    one: Any = np.int64(1)
    zero: Any = np.uint8(0)
    assert nardy_fast.perft(start, one) == nardy_fast.perft(start, 1) == one_ply
    assert nardy_fast.perft(start, zero) == 1


@pytest.mark.parametrize("position", ["long", None, reference.Position.start("long").state], ids=stable_repr)
def test_perft_rejects_what_is_not_a_position(position: Any) -> None:
    message = error_of(lambda: nardy_fast.perft(position, 1))
    assert issubclass(message[0], NardyError) and message[1].startswith("position"), message
    assert len(message[1]) < 600


#: Depths perft must refuse before any work (a missing bound would recurse or run for ever), and the position.
BAD_DEPTHS: dict[str, tuple[str, Any]] = {
    "max+1": (LONG_START, "max+1"),
    "-1": (LONG_START, -1),
    "2**70": (LONG_START, 2**70),
    "True": (LONG_START, True),
    "1.5": (LONG_START, 1.5),
    "'1'": (LONG_START, "1"),
    "None": (LONG_START, None),
    "float64": (LONG_START, np.float64(1)),
    "100000, every roll a pass": (BOTH_STUCK, 100_000),
}


def _bad_perft_depths() -> None:
    """(Run in a child process, which a hang or a crash cannot take the test run with it.) For each bad depth
    and implementation: ``[is a NardyError, message, seconds]``."""
    report: dict[str, list[list[object]]] = {}
    for name, (text, depth) in BAD_DEPTHS.items():
        if isinstance(depth, str) and depth == "max+1":
            depth = nardy_fast.MAX_PERFT_DEPTH + 1
        report[name] = []
        for cls in IMPLEMENTATIONS:
            started = time.perf_counter()
            error, message = error_of(lambda: nardy_fast.perft(cls.from_text(text), depth))
            report[name].append([issubclass(error, NardyError), message[:600], time.perf_counter() - started])
    print(json.dumps(report))


def test_perft_rejects_bad_depths_alike_and_at_once() -> None:
    # Every roll passes for ever in BOTH_STUCK: 100,000 plies of it would recurse 100,000 deep.
    for cls in IMPLEMENTATIONS:
        stuck = cls.from_text(BOTH_STUCK)
        assert all(
            summary(stuck.legal_moves(roll)) == summary(stuck.legal_moves((6, 6)))
            for roll in nardy_fast.ROLLS
        )
        assert [str(m) for m in stuck.legal_moves((6, 6))[0].result.legal_moves((5, 2))] == ["pass"]
        assert nardy_fast.perft(stuck, 2) == 21 * 21
    report = json.loads(run_in_child("_bad_perft_depths", timeout=60).splitlines()[-1])
    assert sorted(report) == sorted(BAD_DEPTHS)
    for name, results in report.items():
        assert len(results) == len(IMPLEMENTATIONS)
        for is_nardy, message, seconds in results:
            assert is_nardy and message.startswith("depth"), (name, message)
            assert len(message) < 600 and seconds < 5, (name, message, seconds)
        assert all(result[1] == results[0][1] for result in results), (name, results)


# --- 8. one input policy ------------------------------------------------------------------------------------

SHORT_BOARD = reference.Position.start("short").board
BAR_BOARD = reference.Position.from_text("short w 6:14,19:-13 bar=1/1 off=0/1 first=-").board

#: (id, call, error class, field the message starts with): each must fail alike in both implementations.
#: ``P`` is typed ``Any``: the calls pass what the annotations forbid.
REJECTED: list[tuple[str, Callable[[Any], object], type[Exception], str]] = [
    ("bool die", lambda P: P.start("long").legal_moves((True, 2)), InvalidDiceError, "dice"),
    ("numpy bool die", lambda P: P.start("long").legal_moves((np.True_, 2)), InvalidDiceError, "dice"),
    (
        "bool dice array",
        lambda P: P.start("long").legal_moves(np.array([True, True])),
        InvalidDiceError,
        "dice",
    ),
    ("float die", lambda P: P.start("long").legal_moves((np.float64(3), 1)), InvalidDiceError, "dice"),
    (
        "float dice array",
        lambda P: P.start("long").legal_moves(np.array([3.0, 1.0])),
        InvalidDiceError,
        "dice",
    ),
    ("2-d dice array", lambda P: P.start("long").legal_moves(np.array([[3, 1]])), InvalidDiceError, "dice"),
    ("huge die", lambda P: P.start("long").legal_moves((2**70, 1)), InvalidDiceError, "dice"),
    (
        "huge numpy die",
        lambda P: P.start("long").legal_moves((np.uint64(2**64 - 1), 1)),
        InvalidDiceError,
        "dice",
    ),
    ("bool play dice", lambda P: P.start("long").play("24/18 18/13", (True, 5)), InvalidDiceError, "dice"),
    (
        "bool board count",
        lambda P: P.from_board("long", (True,) + LONG_BOARD[1:]),
        InvalidPositionError,
        "board",
    ),
    (
        "huge board count",
        lambda P: P.from_board("long", (2**70,) + LONG_BOARD[1:]),
        InvalidPositionError,
        "board",
    ),
    ("huge bar", lambda P: P.from_board("short", SHORT_BOARD, bar=(2**64, 0)), InvalidPositionError, "bar"),
    (
        "bool bar",
        lambda P: P.from_board("short", BAR_BOARD, bar=(True, 1), off=(0, 1)),
        InvalidPositionError,
        "bar",
    ),
    (
        "huge off",
        lambda P: P.from_board("short", SHORT_BOARD, off=(0, -(2**64))),
        InvalidPositionError,
        "off",
    ),
    (
        "huge pending",
        lambda P: P.from_board("gulbar", LONG_BOARD, pending=(2**70,)),
        InvalidPositionError,
        "pending",
    ),
    (
        "bool pending",
        lambda P: P.from_board("gulbar", LONG_BOARD, pending=(True,)),
        InvalidPositionError,
        "pending",
    ),
    (
        "huge ladder flag",
        lambda P: P.start("crazy", ladder_per_value=2**70),
        InvalidPositionError,
        "ladder_per_value",
    ),
    (
        "huge doubles flag",
        lambda P: P.start("long", first_roll_exception_doubles=(2**70,)),
        InvalidPositionError,
        "first_roll_exception_doubles",
    ),
    (
        "bool doubles flag",
        lambda P: P.start("long", first_roll_exception_doubles=(True,)),
        InvalidPositionError,
        "first_roll_exception_doubles",
    ),
    (
        "int first_roll",
        lambda P: P.start("long").from_board("long", LONG_BOARD, first_roll=(1, 1)),
        InvalidPositionError,
        "first_roll",
    ),
    (
        "array turn",
        lambda P: P.from_board("long", LONG_BOARD, turn=np.array(["white"])),
        InvalidPositionError,
        "turn",
    ),
    ("2-d board", lambda P: P.from_board("long", np.array([LONG_BOARD])), InvalidPositionError, "board"),
    (
        "float board",
        lambda P: P.from_board("long", np.array(LONG_BOARD, dtype=float)),
        InvalidPositionError,
        "board",
    ),
    (
        "repeated first",
        lambda P: P.from_text(LONG_START + " first=w first=b"),
        InvalidNotationError,
        "text: bad or repeated field 'first=b'",
    ),
    (
        "repeated off",
        lambda P: P.from_text(LONG_START + " off=0/0 off=0/0"),
        InvalidNotationError,
        "text: bad or repeated field 'off=0/0'",
    ),
    (
        "5000-digit count",
        lambda P: P.from_text("long w 12:-15,24:" + "1" * 5000),
        InvalidNotationError,
        "text",
    ),
    (
        "5000-digit point",
        lambda P: P.from_text("long w 12:-15," + "0" * 4998 + "24:15"),
        InvalidNotationError,
        "text",
    ),
    ("10 MB text", lambda P: P.from_text("long w " + "x" * 10_000_000), InvalidNotationError, "text"),
    (
        "10 MB variant",
        lambda P: P.from_text("x" * 10_000_000 + " w 12:-15,24:15"),
        InvalidPositionError,
        "variant",
    ),
    ("10^6 board", lambda P: P.from_board("long", [0] * 1_000_000), InvalidPositionError, "board"),
    (
        "10^6 pending",
        lambda P: P.from_board("gulbar", LONG_BOARD, pending=(1,) * 1_000_000),
        InvalidPositionError,
        "pending",
    ),
    (
        "10 MB turn",
        lambda P: P.from_board("long", LONG_BOARD, turn="x" * 10_000_000),
        InvalidPositionError,
        "turn",
    ),
    ("10^6 dice", lambda P: P.start("long").legal_moves((1,) * 1_000_000), InvalidDiceError, "dice"),
    (
        "10 MB move",
        lambda P: P.start("long").play("24/18 " + "x" * 10_000_000, (6, 5)),
        IllegalMoveError,
        "move",
    ),
    (
        "fullwidth move",
        lambda P: P.start("long").play("\uff12\uff14/18 24/19", (6, 5)),
        IllegalMoveError,
        "move",
    ),
    (
        "arabic-indic move",
        lambda P: P.start("long").play("24/1\u0668 24/19", (6, 5)),
        IllegalMoveError,
        "move",
    ),
    ("fullwidth repeat", lambda P: P.start("long").play("24/18(\uff12)", (6, 6)), IllegalMoveError, "move"),
    (
        "superscript move",
        lambda P: P.start("long").play("24/1\u2078 24/19", (6, 5)),
        IllegalMoveError,
        "move",
    ),
]

#: (text with a non-ASCII digit in a numeric field, the same text with ASCII digits, which is valid).
NON_ASCII_TEXTS = [
    ("long w \uff112:-15,24:15", LONG_START),  # fullwidth, point
    ("long w 1\u00b2:-15,24:15", LONG_START),  # superscript, point
    ("long w 12:-15,2\u0664:15", LONG_START),  # Arabic-Indic, point
    ("long w 12:-1\uff15,24:15", LONG_START),  # fullwidth, count
    ("long w 12:-15,24:\u0661\u0665", LONG_START),  # Arabic-Indic, count
    ("long w 12:-15,24:1\u2075", LONG_START),  # superscript, count
    ("short w 6:14,19:-1\u00b3 bar=1/1 off=0/1 first=-", "short w 6:14,19:-13 bar=1/1 off=0/1 first=-"),
    ("short w 6:14,19:-13 bar=\u0661/1 off=0/1 first=-", "short w 6:14,19:-13 bar=1/1 off=0/1 first=-"),
    ("short w 6:14,19:-13 bar=1/1 off=0/\uff11 first=-", "short w 6:14,19:-13 bar=1/1 off=0/1 first=-"),
    ("short w 6:14,19:-13 bar=1/1 off=0/\u00b9 first=-", "short w 6:14,19:-13 bar=1/1 off=0/1 first=-"),
    ("gulbar w 12:-15,24:15 pending=\u0665", "gulbar w 12:-15,24:15 pending=5"),
    ("gulbar w 12:-15,24:15 pending=6,\uff15", "gulbar w 12:-15,24:15 pending=6,5"),
    ("gulbar w 12:-15,24:15 pending=\u00b2", "gulbar w 12:-15,24:15 pending=2"),
    ("crazy w 12:-15,24:15 ladder_per_value=\u0664", "crazy w 12:-15,24:15 ladder_per_value=4"),
    ("crazy w 12:-15,24:15 ladder_per_value=\uff14", "crazy w 12:-15,24:15 ladder_per_value=4"),
    (
        "long w 12:-15,24:15 first_roll_exception_doubles=\uff164",
        "long w 12:-15,24:15 first_roll_exception_doubles=64",
    ),
    (
        "long w 12:-15,24:15 first_roll_exception_doubles=6\u00b2",
        "long w 12:-15,24:15 first_roll_exception_doubles=62",
    ),
]


@pytest.mark.parametrize(("call", "error", "field"), [r[1:] for r in REJECTED], ids=[r[0] for r in REJECTED])
def test_bad_input_is_rejected_alike(
    call: Callable[[AnyPos], object], error: type[Exception], field: str
) -> None:
    assert_rejected(call, error, field)


@pytest.mark.parametrize(("text", "ascii_text"), NON_ASCII_TEXTS)
def test_only_ascii_digits_are_digits_in_position_texts(text: str, ascii_text: str) -> None:
    for cls in IMPLEMENTATIONS:
        assert cls.from_text(ascii_text).to_text() == ascii_text
    # a flag's value is read by the flag's own codec: a value it does not know is a bad value of that flag
    flag = next((name for name in ("ladder_per_value", "first_roll_exception_doubles") if f"{name}=" in text), None)
    if flag is None:
        assert_rejected(lambda cls: cls.from_text(text), InvalidNotationError, "")
    else:
        assert_rejected(lambda cls: cls.from_text(text), InvalidPositionError, flag)


#: (id, call, the same call with Python ints): NumPy integers are accepted wherever Python ints are.
ACCEPTED: list[tuple[str, Callable[[Any], object], Callable[[Any], object]]] = [
    (
        "numpy dice",
        lambda P: P.start("long").legal_moves((np.int64(3), np.int8(1))),
        lambda P: P.start("long").legal_moves((3, 1)),
    ),
    (
        "dice array",
        lambda P: P.start("long").legal_moves(np.array([3, 1])),
        lambda P: P.start("long").legal_moves((3, 1)),
    ),
    (
        "uint8 dice array",
        lambda P: P.from_text(SHORT_DOUBLE[0]).legal_moves(np.array([2, 2], dtype=np.uint8)),
        lambda P: P.from_text(SHORT_DOUBLE[0]).legal_moves((2, 2)),
    ),
    (
        "dice list",
        lambda P: P.start("long").legal_moves([3, 1]),
        lambda P: P.start("long").legal_moves((3, 1)),
    ),
    (
        "numpy play dice",
        lambda P: P.start("long").play("24/18 18/13", np.array([6, 5])),
        lambda P: P.start("long").play("24/18 18/13", (6, 5)),
    ),
    (
        "numpy board, bar, off, first roll",
        lambda P: P.from_board(
            "short",
            np.array(BAR_BOARD),
            bar=np.array([1, 1]),
            off=(np.int64(0), np.int8(1)),
            first_roll=(np.False_, np.False_),
        ),
        lambda P: P.from_board("short", BAR_BOARD, bar=(1, 1), off=(0, 1), first_roll=(False, False)),
    ),
    (
        "int8 board, numpy pending",
        lambda P: P.from_board(
            "gulbar",
            np.array(LONG_BOARD, dtype=np.int8),
            pending=np.array([5, 6]),
            off=np.zeros(2, dtype=int),
        ),
        lambda P: P.from_board("gulbar", LONG_BOARD, pending=(6, 5)),
    ),
    (
        "numpy ladder flag",
        lambda P: P.start("crazy", ladder_per_value=np.int64(4)),
        lambda P: P.start("crazy", ladder_per_value=4),
    ),
    (
        "numpy doubles flag",
        lambda P: P.start("long", first_roll_exception_doubles=np.array([6, 4])),
        lambda P: P.start("long", first_roll_exception_doubles=(6, 4)),
    ),
    (
        "numpy first roll",
        lambda P: P.from_board("long", LONG_BOARD, first_roll=np.array([True, False])),
        lambda P: P.from_board("long", LONG_BOARD, first_roll=(True, False)),
    ),
    (
        "numpy bool flag",
        lambda P: P.start("sixone", sixone_extra_roll_requires_play=np.True_),
        lambda P: P.start("sixone", sixone_extra_roll_requires_play=True),
    ),
]


@pytest.mark.parametrize(("call", "plain"), [a[1:] for a in ACCEPTED], ids=[a[0] for a in ACCEPTED])
def test_numpy_values_are_accepted(
    Position: Pos, call: Callable[[AnyPos], object], plain: Callable[[AnyPos], object]
) -> None:
    got = call(Position)
    want = plain(Position)
    assert outcome(lambda: got) == outcome(lambda: want)
    if isinstance(got, list):
        assert isinstance(want, list)
        assert [m.roll for m in got] == [m.roll for m in want]
        assert all(type(m.roll) is tuple for m in got)
    else:
        assert got == want and type(got) is type(want)


ROWS, ROLLS = rows_of([SHORT_DOUBLE, CRAZY_PENDING])

#: (id, call of a batch function, error class, field): ``nardy_fast.batch_children`` and the reference's fail
#: alike.
BATCH_REJECTED: list[tuple[str, Callable[[Callable[..., object]], object], type[Exception], str]] = [
    ("bool roll", lambda f: f(ROWS[:1], [(True, 2)]), InvalidDiceError, "rolls"),
    ("bool rolls array", lambda f: f(ROWS[:1], np.array([[True, True]])), InvalidDiceError, "rolls"),
    ("huge roll", lambda f: f(ROWS[:1], [(2**70, 1)]), InvalidDiceError, "rolls"),
    ("ragged rolls", lambda f: f(ROWS, [(2, 2), (0,)]), InvalidDiceError, "rolls"),
    ("float rolls", lambda f: f(ROWS[:1], np.array([[2.0, 2.0]])), InvalidDiceError, "rolls"),
    ("object rolls", lambda f: f(ROWS[:1], np.array([[2, 2]], dtype=object)), InvalidDiceError, "rolls"),
    ("ragged rows", lambda f: f([[0] * 64, [0] * 3], (3, 1)), NardyError, "positions"),
    ("ragged row", lambda f: f([0] * 63 + [[0]], (3, 1)), NardyError, "positions"),
    ("object rows", lambda f: f(ROWS.astype(object), ROLLS), NardyError, "positions"),
    ("float rows", lambda f: f(ROWS.astype(np.float64), ROLLS), NardyError, "positions"),
    ("bool rows", lambda f: f(ROWS.astype(bool), ROLLS), NardyError, "positions"),
    ("huge row value", lambda f: f([[2**70] + [0] * 63], (3, 1)), NardyError, "positions"),
    ("string rows", lambda f: f("x" * 64, (3, 1)), NardyError, "positions"),
    ("10^6 rolls", lambda f: f(ROWS[:1], [[9, 9]] * 1_000_000), InvalidDiceError, "rolls"),
]


@pytest.mark.parametrize(
    ("call", "error", "field"), [r[1:] for r in BATCH_REJECTED], ids=[r[0] for r in BATCH_REJECTED]
)
def test_bad_batch_input_is_rejected_alike(
    call: Callable[[Callable[..., object]], object], error: type[Exception], field: str
) -> None:
    found = [error_of(lambda: call(function)) for function in BATCHES.values()]
    assert issubclass(found[0][0], error), found[0]
    assert found[0][1].startswith(field) and len(found[0][1]) < 600, found[0][1][:600]
    assert found[0] == found[1]


CHILDREN_REJECTED: list[tuple[str, Callable[[], object], type[Exception]]] = [
    ("bool die", lambda: nardy_fast.children(ROWS[0], (True, 2)), InvalidDiceError),
    ("numpy bool die", lambda: nardy_fast.children(ROWS[0], loose((np.True_, 2))), InvalidDiceError),
    ("huge die", lambda: nardy_fast.children(ROWS[0], (2**70, 1)), InvalidDiceError),
    ("ragged rows", lambda: nardy_fast.children([[0] * 64, [0] * 3], (3, 1)), NardyError),
    ("ragged row", lambda: nardy_fast.children([0] * 63 + [[0]], (3, 1)), NardyError),
    ("object row", lambda: nardy_fast.children(ROWS[0].astype(object), (2, 2)), NardyError),
    ("float row", lambda: nardy_fast.children(ROWS[0].astype(np.float64), (2, 2)), NardyError),
    ("huge row value", lambda: nardy_fast.children([2**70] + [0] * 63, (3, 1)), NardyError),
    ("10^6 dice", lambda: nardy_fast.children(ROWS[0], (1,) * 1_000_000), InvalidDiceError),
]


@pytest.mark.parametrize(
    ("call", "error"), [r[1:] for r in CHILDREN_REJECTED], ids=[r[0] for r in CHILDREN_REJECTED]
)
def test_bad_children_input_is_rejected(call: Callable[[], object], error: type[Exception]) -> None:
    cls, message = error_of(call)
    assert issubclass(cls, error), (cls, message[:600])
    assert len(message) < 600, message[:600]


def test_children_take_numpy_dice() -> None:
    want = nardy_fast.children(ROWS[0], (2, 2))
    dice_kinds: tuple[Any, ...] = ((np.int64(2), np.int8(2)), np.array([2, 2]), [2, 2])
    for dice in dice_kinds:
        assert np.array_equal(nardy_fast.children(ROWS[0], dice), want)
    assert np.array_equal(nardy_fast.children(ROWS[0].astype(np.int64), (2, 2)), want)


# --- 9. bounded and interruptible searches ------------------------------------------------------------------

LIMIT_CASES: list[tuple[str, Optional[Roll]]] = [
    SHORT_DOUBLE,
    (SHORT_START, (4, 4)),
    SHORT_NON_DOUBLE,
    LONG_NON_DOUBLE,
    (LONG_START, (6, 5)),
    LONG_DOUBLE,
    SIXONE_DOUBLE,
    ("sixone w 12:-15,24:15", (6, 1)),
    GULBAR_LADDER,
    GULBAR_PENDING,
    CRAZY_LADDER,
    CRAZY_LADDER_2,
    CRAZY_LADDER_4,
    CRAZY_PENDING,
    *PER_STEP,
    (BOTH_STUCK, (6, 6)),
]
LIMITS = (1, 2, 5, 10, 30)


@pytest.mark.parametrize(
    "max_results", [0, -1, True, np.True_, 1.5, "3", 2**70 * -1, np.float64(3)], ids=stable_repr
)
def test_bad_max_results_are_rejected_alike(max_results: Any) -> None:
    assert_rejected(
        lambda cls: cls.start("long").legal_moves((6, 5), max_results=max_results), NardyError, "max_results"
    )
    for function in BATCHES.values():
        cls, message = error_of(lambda: function(ROWS, ROLLS, max_results=max_results))
        assert issubclass(cls, NardyError) and message.startswith("max_results"), message
    cls, message = error_of(lambda: nardy_fast.children(ROWS[0], SHORT_DOUBLE[1], max_results=max_results))
    assert issubclass(cls, NardyError) and message.startswith("max_results"), message


def roll_of(roll: npt.NDArray[np.int8]) -> Optional[Roll]:
    """A roll row as ``legal_moves`` takes it: ``None`` for (0, 0)."""
    d1, d2 = int(roll[0]), int(roll[1])
    return None if (d1, d2) == (0, 0) else (d1, d2)


def is_limit_error(found: tuple[str, object]) -> bool:
    """Whether an ``outcome`` is a ``SearchLimitError`` whose message names ``max_results``."""
    kind, value = found
    return (
        kind == "error"
        and isinstance(value, tuple)
        and value[0] is nardy_fast.SearchLimitError
        and str(value[1]).startswith("max_results")
    )


@pytest.mark.parametrize(("text", "roll"), LIMIT_CASES, ids=[f"{t.split()[0]}-{r}" for t, r in LIMIT_CASES])
def test_max_results_bounds_the_search_alike(text: str, roll: Optional[Roll]) -> None:
    full = [outcome(lambda: cls.from_text(text).legal_moves(roll)) for cls in IMPLEMENTATIONS]
    assert all(f == full[0] for f in full) and full[0][0] == "value"
    moves = full[0][1]
    assert isinstance(moves, list)
    for limit in LIMITS:
        found = [
            outcome(lambda: cls.from_text(text).legal_moves(roll, max_results=limit))
            for cls in IMPLEMENTATIONS
        ]
        assert all(f == found[0] for f in found), (limit, found)
        if found[0][0] == "error":
            assert is_limit_error(found[0]), found[0]
        else:
            assert found[0] == full[0], limit
        # the moves are positions reached by one number of steps: more of them than the limit is an error
        assert len(moves) <= limit or found[0][0] == "error", limit
    for cls in IMPLEMENTATIONS:
        bigs: tuple[Any, ...] = (np.int64(100_000), 2**70)
        for big in bigs:
            assert outcome(lambda: cls.from_text(text).legal_moves(roll, max_results=big)) == full[0]


def test_max_results_bounds_batches_and_children_alike() -> None:
    rows, rolls = rows_of(LIMIT_CASES)
    limits: tuple[Any, ...] = (*LIMITS, 800, np.int64(800))
    for limit in limits:
        got = outcome(lambda: nardy_fast.batch_children(rows, rolls, max_results=limit))
        assert got == outcome(lambda: reference.batch_children(rows, rolls, max_results=limit)), limit
        per_row = [
            outcome(lambda: reference.Position.from_array(row).legal_moves(roll_of(roll), max_results=limit))
            for row, roll in zip(rows, rolls)
        ]
        failing = [index for index, found in enumerate(per_row) if found[0] == "error"]
        if not failing:
            assert got == outcome(lambda: nardy_fast.batch_children(rows, rolls)), limit
        else:
            # the first row over the limit fails the batch, with the row's message prefixed as row errors are
            error = per_row[failing[0]][1]
            assert isinstance(error, tuple)
            assert got == ("error", (error[0], f"positions[{failing[0]}]: {error[1]}")), limit
        for index, (row, roll) in enumerate(zip(rows, rolls)):
            found = outcome(lambda: nardy_fast.children(row, roll_of(roll), max_results=limit))
            if index in failing:
                assert found[0] == "error" and isinstance(found[1], tuple), (index, limit, found)
                assert found[1][0] is nardy_fast.SearchLimitError, (index, limit, found)
            else:
                assert found == outcome(lambda: nardy_fast.children(row, roll_of(roll))), (index, limit)


def test_max_results_stops_a_hostile_search_early(Position: Pos) -> None:
    started = time.perf_counter()
    with pytest.raises(nardy_fast.SearchLimitError):
        Position.from_text(HOSTILE).legal_moves((1, 1), max_results=1000)
    assert time.perf_counter() - started < INTERRUPT_BOUND


posix_only = pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs POSIX interval timers")


def interrupted_after(call: Callable[[], object], delay: float) -> float:
    """Seconds until ``call`` raised ``KeyboardInterrupt`` from a ``SIGALRM`` handler fired after ``delay``;
    fails the test when ``call`` returned first."""
    armed = [True]

    def handler(signum: int, frame: Optional[FrameType]) -> None:
        if armed[0]:
            raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, handler)
    started = time.perf_counter()
    try:
        signal.setitimer(signal.ITIMER_REAL, delay)
        try:
            call()
        except KeyboardInterrupt:
            return time.perf_counter() - started
        finally:
            armed[0] = False
            signal.setitimer(signal.ITIMER_REAL, 0)
        pytest.fail(
            f"the call returned after {time.perf_counter() - started:.1f} s without being interrupted"
        )
    finally:
        signal.signal(signal.SIGALRM, previous)


@core_only
@posix_only
def test_ctrl_c_stops_a_long_search_of_the_core() -> None:
    position = nardy_fast.Position.from_text(HOSTILE)
    row = position.to_array()
    elapsed = interrupted_after(lambda: position.legal_moves((1, 1)), 0.3)
    assert elapsed < INTERRUPT_BOUND
    elapsed = interrupted_after(lambda: nardy_fast.batch_children(np.stack([row, row]), (1, 1)), 0.3)
    assert elapsed < INTERRUPT_BOUND
    # the core works as before after the interrupts
    for text, roll in (SHORT_DOUBLE, CRAZY_LADDER, CRAZY_PENDING):
        core = nardy_fast.Position.from_text(text)
        want = summary(reference.Position.from_text(text).legal_moves(roll))
        assert summary(core.legal_moves(roll)) == want
        rows, rolls = rows_of([(text, roll)])
        assert outcome(lambda: nardy_fast.batch_children(rows, rolls)) == outcome(
            lambda: reference.batch_children(rows, rolls)
        )
    with pytest.raises(nardy_fast.SearchLimitError):
        position.legal_moves((1, 1), max_results=1000)
