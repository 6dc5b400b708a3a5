"""Hostile use of playouts: what a callable policy can do to the arrays it is handed, and interrupts of
playouts on several threads, in both implementations.

Checked here:

1. the ``children`` and ``offsets`` a callable policy is handed are truly read-only: neither they nor any
   array in their ``base`` chain can be made writable, and their final base is no writable buffer;
2. a policy that writes there anyway, by every means NumPy offers without ``ctypes`` (``setflags`` along the
   ``base`` chain, ``as_strided``, a forged ``__array_interface__``), into this call's arrays and earlier
   calls' it kept, changes nothing: its records and trajectories are those of a well-behaved policy making
   the same choices, because the package never reads back what it handed out;
3. choices the policy changes after returning them (from a thread of its own) are played as checked;
4. Ctrl-C (``SIGINT`` in the main thread) stops a playout on two threads within seconds, however long its
   run would have lasted: the core's loop for the built-in policies and the lock-step loop of callable
   policies, including when the calling thread is already done and waiting for the other; and an exception
   a policy raises in one thread stops the other thread soon instead of after its whole range.

The interrupt probes run in a child process (a playout that does not stop would otherwise hold up the run for
minutes), whose run length is measured there first, so that a stop "within seconds" is unambiguous.
"""

from __future__ import annotations

import json
import re
import sys
import threading
from typing import Any, Optional

import numpy as np
import numpy.typing as npt
import pytest
from children import interrupted_child

from nardy_fast import NardyError
from nardy_fast._dispatch import implementations

IMPLS = implementations()
#: Seconds within which an interrupted playout must have ended (generous: the machine may be loaded).
STOP_BOUND = 10.0


def largest_child(children: np.ndarray, offsets: np.ndarray) -> npt.NDArray[np.int64]:
    """The child whose row, read as bytes, is largest: a choice that depends on the children themselves."""
    return np.array(
        [
            max(range(b - a), key=lambda i: children[a + i].tobytes())
            for a, b in zip(offsets[:-1].tolist(), offsets[1:].tolist())
        ],
        dtype=np.int64,
    )


def chain(array: np.ndarray) -> tuple[list[np.ndarray], object]:
    """The arrays of ``array``'s ``base`` chain (itself first), and the object at its end (or None)."""
    arrays: list[np.ndarray] = []
    base: object = array
    while isinstance(base, np.ndarray):
        arrays.append(base)
        base = base.base
    return arrays, base


def can_be_made_writable(array: np.ndarray) -> list[str]:
    """The ways found to make ``array``'s memory writable without ``ctypes`` short of forging an interface:
    empty for a truly read-only array."""
    found = []
    arrays, end = chain(array)
    for depth, link in enumerate(arrays):
        try:
            link.setflags(write=True)
        except ValueError:
            pass
        else:
            found.append(f"setflags on base {depth}")
    try:
        np.lib.stride_tricks.as_strided(array, writeable=True)[...] = 0
    except ValueError:
        pass
    else:
        found.append("as_strided")
    if end is not None:
        try:
            view = memoryview(end)  # type: ignore[arg-type]
        except TypeError:
            pass
        else:
            if not view.readonly:
                found.append(f"the writable buffer of {type(end).__name__}")
    return found


class Forged:
    """An object whose ``__array_interface__`` says the memory of ``array`` is writable: NumPy believes it."""

    def __init__(self, array: np.ndarray) -> None:
        self.keep = array  # the memory stays alive as long as the forged array
        interface = dict(array.__array_interface__)
        interface["data"] = (interface["data"][0], False)
        self.__array_interface__ = interface


def writable_aliases(array: np.ndarray) -> list[np.ndarray]:
    """Every writable array over ``array``'s memory that the tricks of a hostile policy can get."""
    aliases = []
    for link in chain(array)[0]:
        try:
            link.setflags(write=True)
        except ValueError:
            continue
        aliases.append(link)
    aliases.append(np.asarray(Forged(array)))
    return aliases


def scribble(children: np.ndarray, offsets: np.ndarray) -> None:
    """Overwrite ``children`` and ``offsets`` through every writable alias: the rows rotated by one (a game
    read back from there would move to another's child), the offsets of all but the first game made 0 (their
    windows moved)."""
    rotated = np.roll(children.copy(), 1, axis=0)
    for alias in writable_aliases(children):
        alias.flat[: children.size] = rotated.ravel()
    for alias in writable_aliases(offsets):
        alias.flat[1 : offsets.size - 1] = 0


def hostile_largest_child() -> Any:
    """``largest_child``, choosing first, then writing over this call's arrays and the three earlier calls'
    (of any thread), which it keeps."""
    handed: list[tuple[np.ndarray, np.ndarray]] = []
    lock = threading.Lock()

    def policy(children: np.ndarray, offsets: np.ndarray) -> npt.NDArray[np.int64]:
        choices = largest_child(children, offsets)
        with lock:
            handed.append((children, offsets))
            del handed[:-4]
            for old_children, old_offsets in handed:
                scribble(old_children, old_offsets)
        return choices

    return policy


# --- what a policy is handed ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(IMPLS))
def test_a_policy_cannot_make_what_it_is_handed_writable(name: str) -> None:
    impl = IMPLS[name]
    found: list[str] = []

    def policy(children: np.ndarray, offsets: np.ndarray) -> npt.NDArray[np.int64]:
        for label, array in (("children", children), ("offsets", offsets)):
            found.extend(f"{label}: {way}" for way in can_be_made_writable(array))
            with pytest.raises(ValueError):
                array.flat[0] = 1
        return np.zeros(len(offsets) - 1, dtype=np.int64)

    impl.playout("short", 3 if name == "python" else 20, seed=1, policy=policy)
    assert found == []


@pytest.mark.slow  # whole playouts compared with and without the writes
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("name", sorted(IMPLS))
def test_a_policy_writing_where_it_should_not_changes_nothing(name: str, threads: int) -> None:
    impl = IMPLS[name]
    games = 4 if name == "python" else 40
    for start in ("long", "gulbar"):
        records, trajectories = impl.playout(
            start, games, seed=3, policy=hostile_largest_child(), threads=threads, batch=3, trajectories=True
        )
        want, want_trajectories = impl.playout(
            start, games, seed=3, policy=largest_child, threads=threads, batch=3, trajectories=True
        )
        assert np.array_equal(records, want)
        for found, expected in zip(trajectories, want_trajectories):
            assert np.array_equal(found, expected)


@pytest.mark.skipif("cython" not in IMPLS, reason="the core is not built")
def test_choices_changed_after_the_policy_returned_are_played_as_checked() -> None:
    """A policy returns an array of valid choices, and a thread of its keeps writing there each game's count
    of children (one past its last: the next game's first child, or past the end) and putting the valid
    choices back: the playout plays the choices as checked, or refuses them if the check saw the bad ones,
    never another game's child, never an IndexError. (Batches of 2,000 games: NumPy lets the writer run
    during the check's operations on arrays that large. The check is shared: the core's batches are fast.)"""
    impl = IMPLS["cython"]
    games = 2000
    want = impl.playout("short", games, seed=2, policy="first")
    latest: list[tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]] = []
    done = threading.Event()

    def policy(children: np.ndarray, offsets: np.ndarray) -> npt.NDArray[np.int64]:
        good = np.zeros(len(offsets) - 1, dtype=np.int64)
        mine = good.copy()  # one array per call, only ever holding ``good`` or the bad choices
        latest[:] = [(mine, good, np.diff(offsets))]
        return mine

    def writer() -> None:
        while not done.is_set():
            if latest:
                mine, good, counts = latest[0]
                mine[:] = counts
                mine[:] = good

    thread = threading.Thread(target=writer)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # the writer waits for the GIL as little as it can
    thread.start()
    outcomes = set()
    try:
        for _ in range(6):
            try:
                found = impl.playout("short", games, seed=2, policy=policy, batch=games)
            except NardyError as error:
                assert re.match(r"policy: returned choice (\d+) for a game with \1 moves", str(error)), error
                outcomes.add("refused")
            else:
                assert np.array_equal(found, want)
                outcomes.add("played")
    finally:
        done.set()
        thread.join()
        sys.setswitchinterval(interval)
    assert outcomes


# --- interrupts -------------------------------------------------------------------------------------------------

#: The child: the playout of its arguments, after measuring how long the whole run would take at best on
#: two threads. Prints ``{"estimate": seconds}`` and then ``{"playing": true}`` as it starts; when the
#: playout ends by an exception, its name, the seconds since it started and since the policy raised, and
#: the threads alive.
CHILD = r"""
import json, signal, sys, threading, time
signal.signal(signal.SIGINT, signal.default_int_handler)
import numpy as np
from nardy_fast._dispatch import implementations

name, case = sys.argv[1], sys.argv[2]
impl = implementations()[name]
say = lambda **kw: print(json.dumps(kw), flush=True)

class PolicyError(Exception):
    pass

def first(children, offsets):
    return np.zeros(len(offsets) - 1, dtype=np.int64)

raised = []
calls = [0]

def raising_in(thread):
    def policy(children, offsets):
        main = threading.current_thread() is threading.main_thread()
        if main == (thread == "main"):
            calls[0] += 1
            if calls[0] == 30:
                raised.append(time.perf_counter())
                raise PolicyError("model crashed")
        return first(children, offsets)
    return policy

def slow_off_the_main_thread(children, offsets):
    if threading.current_thread() is not threading.main_thread():
        time.sleep(1.0)
    return first(children, offsets)

def timed(run):
    began = time.perf_counter()
    run()
    return time.perf_counter() - began

if case == "builtin":
    sample, games, kwargs = 20000, 20_000_000, {}
elif case == "waiting":  # the calling thread's one game is over at once, the other's takes a second a ply
    sample, games, kwargs = 0, 2, {"policy": slow_off_the_main_thread, "batch": 1}
else:
    sample = 2000 if name == "cython" else 10
    games = 5_000_000 if name == "cython" else 20_000
    kwargs = {"policy": first if case == "callable" else raising_in(case.split("-")[-1])}
    if name == "python":
        kwargs["batch"] = 20  # plies of a few seconds at most: the reference makes about 10 games a second
if sample:  # two threads make the run at best twice as short as on one
    one = timed(lambda: impl.playout("long", sample, seed=1, **({"policy": first} if kwargs else {})))
    estimate = one * games / sample / 2
else:  # a second a ply of the other thread's game
    estimate = 1.0 * float(impl.playout("long", games, seed=1, policy="first")["plies"][1])
say(estimate=estimate)
say(playing=True)
began = time.perf_counter()
try:
    impl.playout("long", games, seed=1, threads=2, **kwargs)
except BaseException as error:
    ended = time.perf_counter()
    say(error=type(error).__name__, after=ended - began, since_raised=ended - raised[0] if raised else None,
        threads=threading.active_count())
else:
    say(error=None, after=time.perf_counter() - began)
"""


def run_child(name: str, case: str, interrupt_after: Optional[float]) -> tuple[float, dict[str, Any], float]:
    """Run ``CHILD`` for ``case``; with ``interrupt_after``, send it SIGINT that many seconds after it starts
    playing. Returns its one-thread estimate of the run, its last report, and the seconds from the signal
    (or the start of play) to its exit; fails the test when it is still running ``STOP_BOUND + 60`` s on."""
    ready, out, err, status, elapsed = interrupted_child(CHILD, [name, case], 2, interrupt_after, STOP_BOUND)
    estimate = json.loads(ready[0] or "{}").get("estimate")
    assert estimate is not None, err[-4000:]
    if not out:
        pytest.fail(f"{name} {case}: still playing {elapsed:.0f} s on (the run: {estimate:.0f} s)")
    assert status == 0, err[-4000:]
    return float(estimate), json.loads(out.strip().splitlines()[-1]), elapsed


INTERRUPT_CASES = [
    ("cython", "builtin"),
    ("cython", "callable"),
    ("python", "callable"),
    ("cython", "waiting"),
]


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT is POSIX")
@pytest.mark.parametrize(("name", "case"), [c for c in INTERRUPT_CASES if c[0] in IMPLS])
def test_ctrl_c_stops_a_playout_on_two_threads(name: str, case: str) -> None:
    estimate, report, elapsed = run_child(name, case, interrupt_after=1.0)
    assert estimate > 6 * STOP_BOUND, estimate  # the run would last far longer than the bound
    assert report["error"] == "KeyboardInterrupt", report
    assert elapsed < STOP_BOUND, (elapsed, estimate)
    assert report["threads"] == 1  # no thread of the playout outlives it


@pytest.mark.slow  # playouts on two threads until one policy raises
@pytest.mark.parametrize("thread", ["main", "worker"])
@pytest.mark.parametrize("name", sorted(IMPLS))
def test_a_policy_raising_in_one_thread_stops_the_other(name: str, thread: str) -> None:
    estimate, report, _ = run_child(name, f"raising-in-{thread}", interrupt_after=None)
    assert estimate > 6 * STOP_BOUND, estimate
    assert report["error"] == "PolicyError", report
    assert report["since_raised"] < STOP_BOUND, (report, estimate)
    assert report["threads"] == 1
