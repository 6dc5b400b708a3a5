"""The evaluator seam (docs/rules.md, Evaluation): equity and flipped by hand, the checks of what an evaluator
returns, ``nardy_fast.evaluate``'s bad input (the same NardyError in both implementations), exceptions of a
Python evaluator propagating unchanged from every place that calls one (after every thread has stopped),
finished games valued by their outcome and never shown to an evaluator, and the built-in evaluators' service
limits and agreement between the implementations.

The Python evaluators here are also used by tests/test_search.py, test_policies.py and test_duel.py.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import nardy_fast
from nardy_fast import Greedy, NardyError, equity, layout
from nardy_fast._dispatch import implementations
from nardy_fast.evaluation.outcomes import OUTPUTS, check_probabilities, flipped

IMPLS = implementations()
CORE = IMPLS.get("cython")
needs_core = pytest.mark.skipif(CORE is None, reason="the core is not built")
SHORT = nardy_fast.VARIANTS.index("short")


# --- Python evaluators shared by the evaluation tests ------------------------------------------------------------


class Linear:
    """A deterministic evaluator of the packed row alone: a fixed linear score of the board, bar and borne-off
    counts, squashed into nested probabilities for the side to move (koks columns only in short nardy). Its
    values differ from move to move, so searches rarely meet exact ties; ``scale`` spreads them."""

    WEIGHTS = np.sin(np.arange(1, 25) * 1.7) * 0.013 + np.arange(1, 25) * 0.004

    def __init__(self, scale: float = 1.0) -> None:
        self.calls = 0
        self.seen = 0
        self.scale = scale

    def values(self, rows: npt.NDArray[np.int8]) -> npt.NDArray[np.float64]:
        r = np.asarray(rows).astype(np.float64)
        # summed row by row the same way whatever the batch (a matrix product's order could depend on it)
        x = (
            (r[:, :24] * self.WEIGHTS).sum(axis=1)
            + 0.05 * (r[:, 26] - r[:, 27])
            - 0.08 * (r[:, 24] - r[:, 25])
        )
        s = self.scale * np.where(r[:, 28] == 0, x, -x)
        win = 1.0 / (1.0 + np.exp(-s))
        koks = np.where(r[:, 31] == SHORT, 0.3, 0.0)
        out = np.empty((len(r), 5))
        out[:, 0] = win
        out[:, 1] = win * (0.15 + 0.1 / (1.0 + np.exp(-0.5 * s)))
        out[:, 2] = out[:, 1] * koks
        out[:, 3] = (1.0 - win) * (0.2 + 0.05 * np.cos(s))
        out[:, 4] = out[:, 3] * koks
        return out

    def evaluate(self, rows: npt.NDArray[np.int8]) -> npt.NDArray[np.float64]:
        self.calls += 1
        self.seen += len(rows)
        return self.values(rows)


class Recorder(Linear):
    """:class:`Linear` that keeps a copy of every row it is shown, and whether the rows were writable."""

    def __init__(self) -> None:
        super().__init__()
        self.shown: list[npt.NDArray[np.int8]] = []
        self.writable: list[bool] = []

    def evaluate(self, rows: npt.NDArray[np.int8]) -> npt.NDArray[np.float64]:
        self.shown.append(np.array(rows, copy=True))
        self.writable.append(bool(np.asarray(rows).flags.writeable))
        return super().evaluate(rows)

    def all_shown(self) -> npt.NDArray[np.int8]:
        return np.concatenate(self.shown) if self.shown else np.zeros((0, layout.WIDTH), dtype=np.int8)


class Constant:
    """Every position is worth the same: every move ties with every other."""

    def evaluate(self, rows: npt.NDArray[np.int8]) -> npt.NDArray[np.float64]:
        return np.tile([0.5, 0.1, 0.0, 0.1, 0.0], (len(rows), 1))


class Returns:
    """An evaluator that returns ``make(n)`` for n rows: the bad answers of the bad-input tests."""

    def __init__(self, make: Callable[[int], object]) -> None:
        self.make = make

    def evaluate(self, rows: npt.NDArray[np.int8]) -> object:
        return self.make(len(rows))


class BoomError(Exception):
    """The exception a failing evaluator raises."""


class Failing(Linear):
    """:class:`Linear` that raises ``error`` (one object) at every call after the first ``after`` (counted
    across threads) once it has been called from ``threads`` different threads."""

    def __init__(self, after: int = 0, threads: int = 1) -> None:
        super().__init__()
        self.error = BoomError("the evaluator failed")
        self.after = after
        self.threads = threads
        self.seen_threads: set[int] = set()
        self.lock = threading.Lock()

    def evaluate(self, rows: npt.NDArray[np.int8]) -> npt.NDArray[np.float64]:
        with self.lock:
            self.calls += 1
            self.seen_threads.add(threading.get_ident())
            fail = self.calls > self.after and len(self.seen_threads) >= self.threads
        if fail:
            raise self.error
        return self.values(rows)


def same_error(call: Callable[[Any], object]) -> str:
    """``call(module)`` raises the same NardyError (class, maybe a subclass, and message) in every
    implementation: its message."""
    errors = []
    for module in IMPLS.values():
        with pytest.raises(NardyError) as info:
            call(module)
        errors.append((type(info.value), str(info.value)))
    assert len(set(errors)) == 1, errors
    return errors[0][1]


def same_nardy_error(call: Callable[[Any], object]) -> str:
    """``call(module)`` raises the same NardyError itself (no subclass) in every implementation: its
    message."""
    messages = []
    for module in IMPLS.values():
        with pytest.raises(NardyError) as info:
            call(module)
        assert type(info.value) is NardyError
        messages.append(str(info.value))
    assert len(set(messages)) == 1, messages
    return messages[0]


# --- equity and flipped by hand ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("p", "expected"),
    [
        ((1, 0, 0, 0, 0), 1.0),
        ((0, 0, 0, 0, 0), -1.0),
        ((1, 1, 0, 0, 0), 2.0),
        ((1, 1, 1, 0, 0), 3.0),
        ((0, 0, 0, 1, 0), -2.0),
        ((0, 0, 0, 1, 1), -3.0),
        ((0.5, 0.0, 0.0, 0.0, 0.0), 0.0),
        # 2 * 0.5 - 1 + 0.2 + 0.1 - 0.3 - 0.05: single wins 0.3, mars 0.1, koks 0.1, single losses 0.2, ...
        ((0.5, 0.2, 0.1, 0.3, 0.05), -0.05),
        ((0.75, 0.25, 0.0, 0.125, 0.0), 0.625),
    ],
)
def test_equity_by_hand(p: tuple[float, ...], expected: float) -> None:
    e = equity(p)
    assert np.shape(e) == () and np.asarray(e).dtype == np.float64
    assert float(e) == pytest.approx(expected, abs=1e-15)


def test_equity_keeps_the_leading_shape() -> None:
    p = np.array([[[1, 0, 0, 0, 0], [0, 0, 0, 1, 1]], [[0.5, 0, 0, 0, 0], [1, 1, 1, 0, 0]]], dtype=np.float64)
    np.testing.assert_array_equal(equity(p), [[1.0, -3.0], [0.0, 3.0]])
    assert equity(np.zeros((0, 5))).shape == (0,)


def test_flipped_by_hand() -> None:
    p = np.array([[0.6, 0.2, 0.1, 0.3, 0.05], [1, 1, 1, 0, 0], [0, 0, 0, 1, 0]], dtype=np.float64)
    np.testing.assert_array_equal(flipped(p), [[0.4, 0.3, 0.05, 0.2, 0.1], [0, 0, 0, 1, 1], [1, 1, 0, 0, 0]])
    np.testing.assert_array_equal(flipped(flipped(p)), p)
    np.testing.assert_allclose(equity(flipped(p)), -equity(p), atol=1e-15)
    assert OUTPUTS == ("win", "win_mars", "win_koks", "lose_mars", "lose_koks")


@pytest.mark.parametrize(
    ("values", "problem"),
    [
        ((0.5, 0.1, 0.0, 0.1), "must be an array of shape (..., 5)"),
        (0.5, "must be an array of shape (..., 5)"),
        ([[0.5, 0.1, 0.0, 0.1, 0.0], [0.5]], "must be an array of shape (..., 5)"),
        (("a", "b", "c", "d", "e"), "must hold real numbers"),
        (np.array([0.5, 0.1, 0.0, 0.1, 0.0], dtype=object), "must hold real numbers"),
        ((0.5, 0.1, 0.0, 0.1, 0.0j), "must hold real numbers"),
        ((float("nan"), 0.1, 0.0, 0.1, 0.0), "must not hold NaN"),
        ((1.5, 0.1, 0.0, 0.0, 0.0), "nested"),
        ((0.5, -0.1, 0.0, 0.1, 0.0), "nested"),
        ((0.5, 0.6, 0.0, 0.1, 0.0), "nested"),  # win_mars > win
        ((0.5, 0.1, 0.2, 0.1, 0.0), "nested"),  # win_koks > win_mars
        ((0.5, 0.1, 0.0, 0.6, 0.0), "nested"),  # lose_mars > 1 - win
        ((0.5, 0.1, 0.0, 0.1, 0.2), "nested"),  # lose_koks > lose_mars
    ],
)
def test_bad_probabilities_name_their_argument(values: object, problem: str) -> None:
    with pytest.raises(NardyError, match=r"^probabilities: ") as info:
        equity(values)
    assert problem in str(info.value)
    with pytest.raises(NardyError, match=r"^mine: "):
        check_probabilities(values, "mine")


def test_check_probabilities_with_a_row_count() -> None:
    good = np.tile([0.5, 0.1, 0.0, 0.1, 0.0], (3, 1))
    np.testing.assert_array_equal(check_probabilities(good, "x", rows=3), good)
    with pytest.raises(NardyError, match=r"^x: must be an array of shape \(2, 5\)"):
        check_probabilities(good, "x", rows=2)
    copy = check_probabilities(good, "x")
    copy[0, 0] = 0.0
    assert good[0, 0] == 0.5  # a copy of its own
    # integers are real numbers; nesting holds to rounding
    np.testing.assert_array_equal(check_probabilities([[1, 1, 1, 0, 0]], "x"), [[1.0, 1.0, 1.0, 0.0, 0.0]])
    check_probabilities([[0.3, 0.3 + 1e-12, 0.0, 0.7 + 1e-12, 0.0]], "x")


# --- nardy_fast.evaluate: results and bad input ------------------------------------------------------------------


@functools.cache
def _sample_rows() -> npt.NDArray[np.int8]:
    rows: list[npt.NDArray[np.int8]] = []
    for variant in nardy_fast.VARIANTS:
        _, paths = nardy_fast.playout(variant, 2, seed=7, trajectories=True)
        for g in range(2):
            game = paths.rows[paths.offsets[g] : paths.offsets[g + 1]]
            rows.extend(game[[1, len(game) // 3, len(game) // 2]])
    out = np.array(rows, dtype=np.int8)
    assert not layout.is_over(out).any()
    out.flags.writeable = False
    return out


def sample_rows() -> npt.NDArray[np.int8]:
    """Unfinished positions of every variant, from the middle of seeded random games (a fresh copy)."""
    return _sample_rows().copy()


@pytest.mark.parametrize("name", sorted(IMPLS))
def test_evaluate_shapes_and_values(name: str) -> None:
    module = IMPLS[name]
    rows = sample_rows()
    e = Linear()
    out = module.evaluate(rows, e)
    assert out.shape == (len(rows), 5) and out.dtype == np.float64
    np.testing.assert_array_equal(out, Linear().values(rows))
    assert e.calls == 1  # batched: one call for all the rows
    one = module.evaluate(rows[3], Linear())
    assert one.shape == (5,)
    np.testing.assert_array_equal(one, out[3])
    position = module.Position.from_array(rows[5])
    np.testing.assert_array_equal(position.evaluate(Linear()), out[5])
    np.testing.assert_array_equal(module.evaluate(position, Linear()), out[5])
    assert module.evaluate(np.zeros((0, 64), dtype=np.int8), Linear()).shape == (0, 5)


@pytest.mark.parametrize("name", sorted(IMPLS))
def test_the_evaluator_gets_read_only_copies(name: str) -> None:
    rows = sample_rows()
    kept = rows.copy()
    seen: list[np.ndarray] = []

    class Scribbler(Linear):
        def evaluate(self, shown: npt.NDArray[np.int8]) -> npt.NDArray[np.float64]:
            seen.append(shown)
            assert not shown.flags.writeable
            with pytest.raises(ValueError):
                shown[0, 0] = 5
            return self.values(shown)

    IMPLS[name].evaluate(rows, Scribbler())
    np.testing.assert_array_equal(rows, kept)
    assert seen[0] is not rows and not np.shares_memory(seen[0], rows)
    assert seen[0].dtype == np.int8 and seen[0].shape == rows.shape


BAD_ANSWERS: list[tuple[str, Callable[[int], object], str]] = [
    ("too few columns", lambda n: np.full((n, 4), 0.1), "must be an array of shape"),
    ("too many rows", lambda n: np.full((n + 1, 5), 0.0), "must be an array of shape"),
    ("one flat row", lambda n: np.zeros(5), "must be an array of shape"),
    ("a scalar", lambda n: 0.5, "must be an array of shape"),
    ("None", lambda n: None, "must be an array of shape"),
    ("ragged", lambda n: [[0.5, 0.1, 0.0, 0.1, 0.0]] * (n - 1) + [[0.5]], "must be an array of shape"),
    ("strings", lambda n: np.full((n, 5), "0.1"), "must hold real numbers"),
    ("objects", lambda n: np.full((n, 5), 0.1, dtype=object), "must hold real numbers"),
    ("booleans", lambda n: np.zeros((n, 5), dtype=bool), "must hold real numbers"),
    ("NaN", lambda n: np.full((n, 5), np.nan), "must not hold NaN"),
    ("one NaN", lambda n: np.vstack([np.zeros((n - 1, 5)), [[0.5, np.nan, 0, 0, 0]]]), "must not hold NaN"),
    ("above 1", lambda n: np.tile([1.5, 0, 0, 0, 0], (n, 1)), "nested"),
    ("below 0", lambda n: np.tile([-0.5, 0, 0, 0, 0], (n, 1)), "nested"),
    ("infinite", lambda n: np.tile([np.inf, 0, 0, 0, 0], (n, 1)), "nested"),
    ("mars above win", lambda n: np.tile([0.2, 0.3, 0, 0, 0], (n, 1)), "nested"),
    ("koks above mars", lambda n: np.tile([0.5, 0.1, 0.2, 0, 0], (n, 1)), "nested"),
    ("loss above 1 - win", lambda n: np.tile([0.7, 0.1, 0, 0.4, 0], (n, 1)), "nested"),
    ("lose koks above lose mars", lambda n: np.tile([0.5, 0.1, 0, 0.1, 0.2], (n, 1)), "nested"),
]


@pytest.mark.parametrize(("label", "make", "problem"), BAD_ANSWERS, ids=[b[0] for b in BAD_ANSWERS])
def test_a_bad_answer_of_a_python_evaluator(label: str, make: Callable[[int], object], problem: str) -> None:
    rows = sample_rows()
    message = same_nardy_error(lambda m: m.evaluate(rows, Returns(make)))
    assert message.startswith("evaluator: ") and problem in message
    if problem == "nested":
        assert "row [" in message  # says which row


def test_the_row_a_bad_answer_names() -> None:
    rows = sample_rows()

    def make(n: int) -> object:
        out = np.tile([0.5, 0.1, 0.0, 0.1, 0.0], (n, 1))
        out[4, 3] = 0.9
        return out

    message = same_nardy_error(lambda m: m.evaluate(rows, Returns(make)))
    assert "(row [4] is not)" in message


@pytest.mark.parametrize(
    ("evaluator", "problem"),
    [
        ("heuristik", "must be one of ('race', 'pubeval', 'heuristic', 'net', 'network')"),
        ("", "must be one of"),
        ("HEURISTIC", "must be one of"),
        (42, "or an object with an evaluate(rows) method"),
        (None, "or an object with an evaluate(rows) method"),
        (object(), "or an object with an evaluate(rows) method"),
        (np.array(["heuristic"]), "or an object with an evaluate(rows) method"),
        (type("NotCallable", (), {"evaluate": 3})(), "or an object with an evaluate(rows) method"),
        (lambda rows: rows, "or an object with an evaluate(rows) method"),  # a callable is not an evaluator
    ],
)
def test_not_an_evaluator(evaluator: object, problem: str) -> None:
    rows = sample_rows()
    message = same_nardy_error(lambda m: m.evaluate(rows, evaluator))
    assert message.startswith("evaluator: ") and problem in message
    position = nardy_fast.Position.start("short")
    message_hint = same_nardy_error(lambda m: m.Position.start("short").hint((3, 1), evaluator=evaluator))
    assert message_hint == message
    with pytest.raises(NardyError, match=r"^evaluator: "):
        position.evaluate(evaluator)


def test_bad_rows() -> None:
    for rows in (np.zeros((2, 63), dtype=np.int8), "short", None):
        message = same_nardy_error(lambda m: m.evaluate(rows, Linear()))
        assert message.startswith("rows")


# --- exceptions of a Python evaluator ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(IMPLS))
def test_an_exception_propagates_from_evaluate_and_hint(name: str) -> None:
    module = IMPLS[name]
    bad = Failing()
    with pytest.raises(BoomError) as info:
        module.evaluate(sample_rows(), bad)
    assert info.value is bad.error
    position = module.Position.start("long")
    for plies in (0, 1, 2):
        bad = Failing()
        with pytest.raises(BoomError) as info:
            position.hint((5, 2), evaluator=bad, plies=plies)
        assert info.value is bad.error
    # a 1-ply search calls the evaluator once for all the replies; a 2-ply one once more, for a cut
    bad = Failing(after=1)
    assert position.hint((5, 2), evaluator=bad, plies=1)
    with pytest.raises(BoomError) as info:
        position.hint((5, 2), evaluator=bad, plies=1)
    assert info.value is bad.error


@pytest.mark.parametrize("name", sorted(IMPLS))
@pytest.mark.parametrize("threads", [1, 2])
def test_an_exception_propagates_from_a_playout_after_every_thread_stops(name: str, threads: int) -> None:
    module = IMPLS[name]
    before = threading.active_count()
    bad = Failing(after=6, threads=threads)  # every thread is under way when it fails
    with pytest.raises(BoomError) as info:
        module.playout("short", 8, seed=1, policy=Greedy(bad), threads=threads, batch=2)
    assert info.value is bad.error
    assert len(bad.seen_threads) == threads
    assert threading.active_count() == before, threading.enumerate()
    # the rollout calls the same policy
    bad = Failing(after=3, threads=threads)
    start = module.Position.start("long").play("24/18 18/13", (6, 5))
    with pytest.raises(BoomError) as info:
        module.rollout(start, 1296, policy=Greedy(bad), threads=threads, batch=500)
    assert info.value is bad.error
    assert threading.active_count() == before, threading.enumerate()


@pytest.mark.parametrize("name", sorted(IMPLS))
def test_an_exception_propagates_from_a_duel(name: str) -> None:
    module = IMPLS[name]
    for a, b in ((None, "random"), ("first", None)):
        bad = Failing(after=4)
        with pytest.raises(BoomError) as info:
            module.duel(a or bad, b or Greedy(bad, plies=0), "short", 4, seed=3)
        assert info.value is bad.error


# --- finished games ---------------------------------------------------------------------------------------------

#: Finished positions and their outcome for the side to move, by docs/rules.md, Game end and scoring: a win
#: is 1 when the loser has borne off a checker, a mars 2 when it has none, and in short nardy a koks 3 when
#: the loser also has a checker on the bar or in the winner's home (White's home is its points 1..6, Black's
#: White's 19..24); the long family has no koks.
FINISHED = [
    ("short w 19:-14 off=15/1", 1, (1, 0, 0, 0, 0)),
    ("short b 19:-14 off=15/1", 1, (0, 0, 0, 0, 0)),
    ("short w 7:-15 off=15/0", 2, (1, 1, 0, 0, 0)),  # Black's checkers outside White's home: mars
    ("short b 19:-15 off=15/0", 2, (0, 0, 0, 1, 0)),
    ("short w 3:-15 off=15/0", 3, (1, 1, 1, 0, 0)),  # in White's home: koks
    ("short b 19:-14 bar=0/1 off=15/0", 3, (0, 0, 0, 1, 1)),  # on the bar: koks
    ("short w 24:15 off=0/15", 3, (0, 0, 0, 1, 1)),  # White in Black's home, White to move, lost
    ("short b 13:14 off=1/15", 1, (1, 0, 0, 0, 0)),
    ("long w 18:-14 off=15/1", 1, (1, 0, 0, 0, 0)),
    ("long b 18:-15 off=15/0", 2, (0, 0, 0, 1, 0)),
    ("long w 1:-15 off=15/0", 2, (1, 1, 0, 0, 0)),  # no koks in the long family
    ("gulbar b 1:-15 off=15/0", 2, (0, 0, 0, 1, 0)),
    ("sixone w 12:14 off=1/15", 1, (0, 0, 0, 0, 0)),
    ("crazy b 12:15 off=0/15", 2, (1, 1, 0, 0, 0)),
]


@pytest.mark.parametrize("name", sorted(IMPLS))
def test_finished_games_are_valued_by_their_outcome(name: str) -> None:
    module = IMPLS[name]
    positions = [module.Position.from_text(text) for text, _, _ in FINISHED]
    assert [p.points() for p in positions] == [points for _, points, _ in FINISHED]
    finished = np.array([p.to_array() for p in positions], dtype=np.int8)
    live = sample_rows()[:3]
    rows = np.vstack([finished[:5], live[:1], finished[5:], live[1:]])
    recorder = Recorder()
    out = module.evaluate(rows, recorder)
    expected = np.array([outcome for _, _, outcome in FINISHED], dtype=np.float64)
    np.testing.assert_array_equal(np.vstack([out[:5], out[6 : 6 + len(finished) - 5]]), expected)
    np.testing.assert_array_equal(recorder.all_shown(), live)  # only the live rows, in order
    np.testing.assert_array_equal(out[[5, -2, -1]], Linear().values(live))
    # only finished rows: the evaluator is not called at all
    recorder = Recorder()
    np.testing.assert_array_equal(module.evaluate(finished, recorder), expected)
    assert recorder.shown == []
    # one finished position: a failing evaluator is never called; a built-in one gives the outcome too (the
    # race evaluator included: a finished game is no contact position to refuse)
    for position, (text, _, outcome) in zip(positions, FINISHED):
        np.testing.assert_array_equal(module.evaluate(position, Failing()), outcome)
        names = ("race", "heuristic", "pubeval") if text.startswith("short") else ("race", "heuristic")
        for evaluator in names:
            np.testing.assert_array_equal(module.evaluate(position, evaluator), outcome, err_msg=evaluator)


@pytest.mark.parametrize("name", sorted(IMPLS))
def test_a_search_never_shows_a_finished_game(name: str) -> None:
    module = IMPLS[name]
    # White bears off with most rolls: many children and replies are finished games
    position = module.Position.from_text("short w 1:2,2:1,3:1,13:-2 off=11/13 first=-")
    recorder = Recorder()
    hint = position.hint((2, 1), evaluator=recorder, plies=1)
    assert hint
    shown = recorder.all_shown()
    assert len(shown) and not layout.is_over(shown).any()
    assert all(not w for w in recorder.writable)
    # 6-6 bears off all four: one move, a single win (Black has borne off), exactly 1 at any depth
    for plies in (0, 1, 2):
        ((move, value),) = position.hint((6, 6), evaluator=recorder, plies=plies)
        assert move.result.winner() == "white" and value == 1.0


# --- built-in evaluators: where they serve -----------------------------------------------------------------------


def test_pubeval_serves_short_nardy_only() -> None:
    for variant in ("long", "sixone", "gulbar", "crazy"):
        row = nardy_fast.Position.start(variant).to_array()
        rows = np.vstack([nardy_fast.Position.start("short").to_array(), row])
        message = same_nardy_error(lambda m: m.evaluate(rows, "pubeval"))
        assert message.startswith("evaluator: ") and f"rows[1] is {variant}" in message
        message = same_nardy_error(lambda m: m.Position.start(variant).hint((3, 1), evaluator="pubeval"))
        assert message.startswith("evaluator: ")


RACE = "long w 1:3,2:3,3:3,4:3,5:3,13:-15 first=-"  # White home, Black well short of it: no contact ever
CONTACT = "long w 12:-14,13:1,20:-1,24:14 first=-"


def test_the_race_evaluator_names_the_row_in_contact() -> None:
    race = nardy_fast.Position.from_text(RACE)
    assert race.is_race() and not nardy_fast.Position.from_text(CONTACT).is_race()
    rows = np.array(
        [race.to_array(), race.to_array(), nardy_fast.Position.from_text(CONTACT).to_array()], dtype=np.int8
    )
    message = same_nardy_error(lambda m: m.evaluate(rows, "race"))
    assert message.startswith("rows[2]: is not a race")
    assert CONTACT.split(" first")[0] in message  # the position's text


def test_a_race_hint_of_a_contact_position() -> None:
    # the position itself is refused, the same way in both implementations (not one of its children)
    message = same_nardy_error(lambda m: m.Position.from_text(CONTACT).hint((3, 1), evaluator="race"))
    assert "is not a race" in message and CONTACT in message


def contact_rows(variants: tuple[str, ...]) -> npt.NDArray[np.int8]:
    rows = sample_rows()
    keep = np.isin(rows[:, layout.VARIANT], [nardy_fast.VARIANTS.index(v) for v in variants])
    return rows[keep & ~layout.is_race(rows)]


@pytest.mark.parametrize(
    ("evaluator", "variants"), [("heuristic", nardy_fast.VARIANTS), ("pubeval", ("short",))]
)
def test_builtin_evaluators_agree_and_are_probabilities(evaluator: str, variants: tuple[str, ...]) -> None:
    rows = contact_rows(variants)
    values = {name: module.evaluate(rows, evaluator) for name, module in IMPLS.items()}
    python = values["python"]
    for other in values.values():
        np.testing.assert_allclose(other, python, rtol=0, atol=1e-12)
    check_probabilities(python, "values", rows=len(rows))
    no_koks = rows[:, layout.VARIANT] != SHORT
    np.testing.assert_array_equal(python[no_koks][:, [2, 4]], 0.0)
    # a finished game is its outcome for them too
    ends = np.array(
        [nardy_fast.Position.from_text(t).to_array() for t, _, _ in FINISHED if t.split()[0] in variants]
    )
    np.testing.assert_array_equal(
        nardy_fast.evaluate(ends, evaluator),
        [o for t, _, o in FINISHED if t.split()[0] in variants],
    )
