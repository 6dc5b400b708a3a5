"""Differential tests: the compiled core (``nardy_fast.core``) against the pure-Python reference
(``nardy_fast.reference``, the executable docs/rules.md).

For the same input both must give the same moves in the same order (canonical steps and their text, result
states, remainders, extra rolls), the same Zobrist keys, the core's keys equal to
``nardy_fast.zobrist.position_key`` computed from scratch, and for bad input the same exception class and
message. Checked on:

1. 20,000 (position, roll) pairs per variant from seeded random self-play, every flag value included;
2. hypothesis positions (``strategies.py``): bar entries and hits, bear-off, runs across M1|M24, head stacks,
   first rolls, pending lists of every shape, finished games, every flag;
3. perft at depth 2 from every start position, with and without flags;
4. games played side by side by a hypothesis state machine;
5. the batch API (``batch_children``, ``children``) on packed rows, valid and corrupted;
6. junk given to ``from_board``, ``start``, ``from_text``, ``legal_moves`` and ``play``.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule
from strategies import Roll, Spec, bad_boards, bad_texts, junk, rolls, specs, start_specs

import nardy_fast
from nardy_fast import reference, zobrist
from nardy_fast.errors import NardyError
from nardy_fast.position import ROLLS, Move, Position
from nardy_fast.variants import FLAG_SPECS, VARIANTS

pytest.importorskip(
    "nardy_fast.core",
    reason="the compiled core is not built (python setup.py build_ext --inplace)",
    exc_type=ImportError,
)
from nardy_fast.core import Position as CorePosition

RefPosition = reference.Position
Flags = tuple[tuple[str, object], ...]
Rows = npt.NDArray[np.int8]

#: ``nardy_fast.batch_children`` and ``children`` run the core only when the package uses it.
batch_uses_core = pytest.mark.skipif(
    nardy_fast.IMPLEMENTATION != "cython", reason="the batch API is not served by the core here"
)


# --- comparing the two implementations ---------------------------------------------------------------------


def _summary(moves: Sequence[Move], key: Callable[[Move], int]) -> list[tuple[object, ...]]:
    return [(str(m), m.steps, m.result.state, m.remainder, m.extra_roll, m.roll, key(m)) for m in moves]


def assert_same_moves(
    position: Position, dice: Roll | None, core_moves: Sequence[Move], ref_moves: Sequence[Move]
) -> None:
    """Equal move lists in the same order; the core's keys equal the keys computed from scratch."""
    got = _summary(core_moves, lambda m: m.result.zobrist)
    want = _summary(ref_moves, lambda m: zobrist.position_key(*m.result.state))
    if got != want:
        at = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
        pytest.fail(
            f"Position.from_text({position.to_text()!r}).legal_moves({dice}): {len(got)} core moves, "
            f"{len(want)} reference moves; first difference at {at}:\n"
            f"  core:      {got[at] if at < len(got) else '-'}\n"
            f"  reference: {want[at] if at < len(want) else '-'}"
        )


def assert_same_position(core: Position, ref: Position) -> None:
    """Equal states, texts and rows; the core's key equal to the key computed from scratch."""
    assert core.state == ref.state, (core.to_text(), ref.to_text())
    assert core.to_text() == ref.to_text()
    assert core.zobrist == zobrist.position_key(*ref.state), core.to_text()
    assert np.array_equal(core.to_array(), ref.to_array()), core.to_text()


def outcome(call: Callable[[], object]) -> tuple[str, object]:
    """``("error", (class, message))`` if ``call`` raises one of the package's errors (anything else fails the
    test: bad input must raise a ``NardyError``), else ``("value", <comparable form of the value>)``."""
    try:
        value = call()
    except NardyError as error:
        return ("error", (type(error), str(error)))
    if isinstance(value, Position):
        return ("value", (value.to_text(), value.zobrist))
    arrays = value if isinstance(value, tuple) else (value,)
    if all(isinstance(a, np.ndarray) for a in arrays):
        return ("value", [(a.dtype.str, a.shape, a.tobytes()) for a in arrays])
    return ("value", value)


def examples(share: float) -> int:
    """``share`` of the hypothesis profile's ``max_examples`` (tests/conftest.py: 200 in CI, 50 under
    ``HYPOTHESIS_PROFILE=dev``)."""
    profile: int = settings().max_examples
    return max(10, round(profile * share))


def assert_batches_alike(rows: object, roll_rows: object) -> None:
    """``nardy_fast.batch_children`` (the core) and the reference's: equal arrays, or the same error."""
    got = outcome(lambda: nardy_fast.batch_children(rows, roll_rows))
    assert got == outcome(lambda: reference.batch_children(rows, roll_rows))


# --- 1. seeded random self-play ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    """A self-play run: ``count`` consecutive (position, roll) pairs of seeded random games.

    ``keep`` gives, for some doubles, the chance that the roll is kept when it comes up (else the dice are rolled
    again).
    """

    variant: str
    count: int
    seed: int
    flags: Flags = ()
    keep: tuple[tuple[Roll, float], ...] = ()

    @property
    def id(self) -> str:
        return "-".join([self.variant, *(f"{k}={v}" for k, v in self.flags)]).replace(" ", "")


#: Crazy ladders (docs/rules.md, Crazy gulbar ladders) of 1-1 (12 steps), 2-2 and 3-3 come up less often than 1 in 36: in these games
#: they take the reference 1.1 s, 0.56 s and 0.04 s on average (up to 7 s), any other roll about 1 ms. Every
#: double still comes up at least 10 times over the crazy runs (test_runs_cover_every_variant_flag_and_double).
CRAZY_KEEP: tuple[tuple[Roll, float], ...] = (((1, 1), 1 / 48), ((2, 2), 1 / 32), ((3, 3), 1 / 8))
#: Under ``ladder_per_value=4`` a middle-game 2-2 or 3-3 ladder takes the reference seconds: the small doubles
#: of that flag are left to the hypothesis positions and the start positions (perft), where they are cheap.
NO_SMALL_DOUBLES: tuple[tuple[Roll, float], ...] = (((1, 1), 0.0), ((2, 2), 0.0), ((3, 3), 0.0))
PER_STEP: Flags = (("block_check", "per_step"),)

RUNS: tuple[Run, ...] = (
    Run("long", 12_000, 101),
    Run("long", 4_000, 102, PER_STEP),
    Run("long", 2_000, 103, (("first_roll_exception_doubles", (6, 5, 2, 1)),)),
    Run("long", 2_000, 104, (*PER_STEP, ("first_roll_exception_doubles", ()))),
    Run("sixone", 12_000, 201),
    Run("sixone", 4_000, 202, PER_STEP),
    Run("sixone", 4_000, 203, (("sixone_extra_roll_requires_play", True),)),
    Run("short", 20_000, 301),
    Run("gulbar", 12_000, 401),
    Run("gulbar", 4_000, 402, PER_STEP),
    Run("gulbar", 2_000, 403, (("first_roll_exception_doubles", (6, 5, 4, 3, 2, 1)),)),
    Run("gulbar", 2_000, 404, (*PER_STEP, ("first_roll_exception_doubles", ()))),
    Run("crazy", 12_000, 501, keep=CRAZY_KEEP),
    Run("crazy", 4_000, 502, PER_STEP, CRAZY_KEEP),
    Run("crazy", 2_000, 505, (("normal_doubles_first_rolls", 3),), CRAZY_KEEP),
    Run("crazy", 2_000, 503, (("first_roll_exception_doubles", (5, 2, 1)),), CRAZY_KEEP),
    Run("crazy", 2_000, 504, (("ladder_per_value", 4),), NO_SMALL_DOUBLES),
)


def draw_roll(rng: random.Random, keep: dict[Roll, float]) -> Roll:
    """Two dice; a double listed in ``keep`` is kept with that chance, else the dice are rolled again."""
    while True:
        roll = (rng.randint(1, 6), rng.randint(1, 6))
        if rng.random() < keep.get(roll, 1.0):
            return roll


def core_games(run: Run) -> Iterator[tuple[Position, Roll | None, list[Move]]]:
    """``(position, roll, core moves)`` for each ply of the run's games (roll ``None`` for a pending list); a
    finished game is yielded once, with no moves, and the next game starts."""
    rng = random.Random(run.seed)
    keep = dict(run.keep)
    start: Position = CorePosition.start(run.variant, **dict(run.flags))
    position = start
    for _ in range(run.count):
        dice = None if position.pending else draw_roll(rng, keep)
        moves = position.legal_moves(dice)
        yield position, dice, moves
        position = rng.choice(moves).result if moves else start


def test_runs_cover_every_variant_flag_and_double() -> None:
    """20,000 pairs per variant, every flag value, and every crazy double expected at least 10 times."""
    pairs = Counter[str]()
    for run in RUNS:
        pairs[run.variant] += run.count
    assert all(pairs[variant] >= 20_000 for variant in VARIANTS), pairs
    values = {(name, value) for run in RUNS for name, value in run.flags}
    assert {flag.name for flag in FLAG_SPECS} == {name for name, _ in values}
    assert {
        ("block_check", "per_step"),
        ("ladder_per_value", 4),
        ("sixone_extra_roll_requires_play", True),
        ("normal_doubles_first_rolls", 3),
    } <= values
    for d in range(1, 7):
        expected = sum(
            run.count / 36 * dict(run.keep).get((d, d), 1.0)
            for run in RUNS
            if run.variant == "crazy" and ("ladder_per_value", 4) not in run.flags
        )
        assert expected >= 10, (d, expected)


@pytest.mark.slow  # the reference plays whole self-play games: 1.5 minutes for all the settings
@pytest.mark.parametrize("run", RUNS, ids=[run.id for run in RUNS])
def test_selfplay_core_equals_reference(run: Run) -> None:
    """Every ply of the run: the same moves from both, and the position's key computed from scratch."""
    for position, dice, core_moves in core_games(run):
        assert position.zobrist == zobrist.position_key(*position.state), position.to_text()
        assert_same_moves(position, dice, core_moves, RefPosition(position.state).legal_moves(dice))


# --- 2. hypothesis positions ------------------------------------------------------------------------------


@settings(
    max_examples=examples(3),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(st.one_of(specs(), start_specs()))
def test_hypothesis_positions_core_equals_reference(spec_roll: tuple[Spec, Roll | None]) -> None:
    """A drawn position (or a start position with any flags) and roll: the same position (text, row, key) and
    the same moves from both."""
    spec, roll = spec_roll
    core, ref = spec.build(CorePosition), spec.build(RefPosition)
    assert_same_position(core, ref)
    assert_same_moves(core, roll, core.legal_moves(roll), ref.legal_moves(roll))


# --- 2b. positions aimed at the core's search shortcuts --------------------------------------------------------

#: Hand-made positions where the core's depth-first search skips work (src_pyx/_core.pyx ``visit_steps``,
#: ``may_meet``, ``depth_first_search``): one of the two orders of two different dice is not tried, only
#: results that may meet are looked up, and equal dice are never looked up. Each is checked on every roll
#: (or its pending list) against the reference, which has none of these shortcuts.
SHORTCUT_TEXTS = (
    "short w 13:2,24:-2 off=13/13",  # one checker with both dice, or two; both orders legal
    "short w 13:1,7:-2 off=14/13",  # 13/7 closed: 13/8/2 only with the 5 first
    "short w 13:1,8:-1,7:-1,24:-1 off=14/12",  # 13/8*/2 and 13/7*/2 differ by the blot hit
    "short w 2:1,1:1,24:-1 off=13/14",  # two bear-offs, either die on either checker
    "short w 5:1,24:-1 off=14/14",  # one checker: off with either die, the same board
    "short w 6:1,1:1,24:-1 off=13/14",  # the game ends before the second die
    "short w 13:1,24:-2 bar=2/0 off=12/13",  # two entries
    "short w 13:2,24:-2 bar=1/0 off=12/13",  # an entry, then the board
    "short w 13:1,19:-2,20:-2 bar=1/0 off=13/11",  # one entry point closed
    "short b 1:2,12:-2 off=13/13",  # Black: the same, mirrored
    "short b 1:1,12:-1,17:1,18:1 off=12/14",
    "long w 12:-15,24:15",
    "long w 24:10,18:1,17:1,16:1,15:1,14:1,12:-15 first=-",  # a 6-run one step away (B)
    "long b 24:10,18:1,17:1,16:1,15:1,14:1,12:-15 first=-",
    "long w 6:5,5:5,4:3,3:1,2:1,12:-15 first=-",  # bearing off in the long family
    "sixone w 12:-15,24:15",  # the special 24/6s and 24/1s beside ordinary steps
    "sixone w 24:14,7:1,12:-15 first=-",
    "gulbar w 12:-15,24:15",
    "gulbar w 24:13,20:1,19:1,12:-14,4:-1 first=- pending=5,5",
    "crazy w 12:-15,24:15",
    "crazy w 24:13,20:1,19:1,12:-14,4:-1 first=- pending=5,5,6,6",  # equal-value runs of two values
    "crazy w 24:13,20:1,19:1,12:-14,4:-1 first=- pending=6,5",  # two different values, either order
)


@pytest.mark.parametrize("text", SHORTCUT_TEXTS)
def test_search_shortcut_positions_core_equals_reference(text: str) -> None:
    """Every roll (or the pending list): the same moves from both, in the same order with the same steps."""
    core, ref = CorePosition.from_text(text), RefPosition.from_text(text)
    assert_same_position(core, ref)
    dice_list: Sequence[Roll | None] = [None] if core.pending else ROLLS
    for dice in dice_list:
        assert_same_moves(core, dice, core.legal_moves(dice), ref.legal_moves(dice))


# --- 3. perft ------------------------------------------------------------------------------------------------

PERFT_STARTS: tuple[tuple[str, Flags], ...] = (
    *((variant, ()) for variant in VARIANTS),
    ("long", (*PER_STEP, ("first_roll_exception_doubles", (6, 5, 2, 1)))),
    ("long", (("first_roll_exception_doubles", ()),)),
    ("sixone", (*PER_STEP, ("sixone_extra_roll_requires_play", True))),
    ("gulbar", (*PER_STEP, ("first_roll_exception_doubles", (6, 5, 4, 3, 2, 1)))),
    ("crazy", (("ladder_per_value", 4),)),
    ("crazy", (("normal_doubles_first_rolls", 3), ("ladder_per_value", 4))),
    ("crazy", (*PER_STEP, ("ladder_per_value", 4), ("first_roll_exception_doubles", (5, 2, 1)))),
)


@pytest.mark.slow  # the reference's perft of every start, short nardy's alone about 10 s
@pytest.mark.parametrize(
    ("variant", "flags"), PERFT_STARTS, ids=[f"{v}-{len(f)}flags" for v, f in PERFT_STARTS]
)
def test_perft_depth_2_core_equals_reference(variant: str, flags: Flags) -> None:
    """perft(2) from the start split by first move (``divide``) equal in both, and the core's own C perft equal
    to the reference's total."""
    core, ref = CorePosition.start(variant, **dict(flags)), RefPosition.start(variant, **dict(flags))
    want = nardy_fast.divide(ref, 2)
    assert nardy_fast.divide(core, 2) == want
    assert nardy_fast.perft(core, 2) == sum(want.values())


# --- 4. games side by side ------------------------------------------------------------------------------------

#: Rolls of the state machine's crazy games: not the 1-1, 2-2 and 3-3 ladders, which take the reference
#: seconds in a middle game (under ``ladder_per_value=4``); sections 1 and 2 cover them.
CRAZY_MACHINE_ROLLS = tuple(roll for roll in ROLLS if roll not in ((1, 1), (2, 2), (3, 3)))


class SideBySide(RuleBasedStateMachine):
    """Random games on both implementations at once: the same rolls and the same move index at every ply; a
    finished game starts again."""

    core: Position
    ref: Position

    @initialize(start=st.one_of(start_specs(), specs()))
    def begin(self, start: tuple[Spec, Roll | None]) -> None:
        """A start position with any flags, or a drawn position."""
        self.core, self.ref = start[0].build(CorePosition), start[0].build(RefPosition)

    def _play(self, roll: Roll, choice: int) -> None:
        dice = None if self.core.pending else roll
        core_moves = self.core.legal_moves(dice)
        ref_moves = self.ref.legal_moves(dice)
        assert_same_moves(self.core, dice, core_moves, ref_moves)
        if core_moves:
            index = choice % len(core_moves)
            self.core, self.ref = core_moves[index].result, ref_moves[index].result
        else:
            flags = self.core.flags
            self.core = CorePosition.start(self.core.variant, **flags)
            self.ref = RefPosition.start(self.ref.variant, **flags)

    @precondition(lambda self: self.core.variant != "crazy")
    @rule(roll=rolls(), choice=st.integers(0, 1 << 16))
    def play(self, roll: Roll, choice: int) -> None:
        self._play(roll, choice)

    @precondition(lambda self: self.core.variant == "crazy")
    @rule(roll=st.sampled_from(CRAZY_MACHINE_ROLLS), choice=st.integers(0, 1 << 16))
    def play_crazy(self, roll: Roll, choice: int) -> None:
        self._play(roll, choice)

    @invariant()
    def same_position(self) -> None:
        assert_same_position(self.core, self.ref)


SideBySide.TestCase.settings = settings(
    max_examples=examples(0.2),
    stateful_step_count=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
test_games_side_by_side = SideBySide.TestCase


# --- 5. the batch API ---------------------------------------------------------------------------------------

#: The rows of the batch tests: plies of self-play games of every variant and flag set of ``RUNS`` (crazy without
#: its small doubles), with rows that have a pending list (roll 0-0) and finished games.
BATCH_RUNS: tuple[Run, ...] = tuple(
    Run(run.variant, 100, run.seed + 1000, run.flags, NO_SMALL_DOUBLES if run.variant == "crazy" else ())
    for run in RUNS
)


@pytest.fixture(scope="module")
def batch_rows() -> tuple[Rows, Rows]:
    """``(rows, rolls)``: the packed row and roll of every ply of ``BATCH_RUNS``."""
    rows, roll_rows = [], []
    for run in BATCH_RUNS:
        for position, dice, _ in core_games(run):
            rows.append(position.to_array())
            roll_rows.append(dice or (0, 0))
    return np.array(rows, dtype=np.int8), np.array(roll_rows, dtype=np.int8)


@batch_uses_core
def test_batch_children_core_equals_reference(batch_rows: tuple[Rows, Rows]) -> None:
    """``batch_children``: equal arrays from both; row ``i``'s children are the results of ``legal_moves``, with
    their keys, and ``children(row, dice)`` is the same slice."""
    rows, roll_rows = batch_rows
    assert (
        {VARIANTS[v] for v in rows[:, 31]} == set(VARIANTS)
        and rows[:, 34].any()
        and (rows[:, 26:28] == 15).any()
    )
    assert_batches_alike(rows, roll_rows)
    children, offsets, keys = nardy_fast.batch_children(rows, roll_rows)
    assert len(offsets) == len(rows) + 1 and offsets[-1] == len(children) == len(keys)
    for i, (row, roll) in enumerate(zip(rows, roll_rows)):
        position = CorePosition.from_array(row)
        dice = None if position.pending else (int(roll[0]), int(roll[1]))
        moves = position.legal_moves(dice)
        mine = slice(offsets[i], offsets[i + 1])
        assert np.array_equal(children[mine], np.array([m.result.to_array() for m in moves]).reshape(-1, 64))
        assert keys[mine].tolist() == [m.result.zobrist for m in moves]
        assert np.array_equal(nardy_fast.children(row, dice), children[mine])


@batch_uses_core
@pytest.mark.parametrize("roll", [(6, 5), (5, 5)])
def test_batch_children_one_roll_for_all_rows(batch_rows: tuple[Rows, Rows], roll: Roll) -> None:
    """One roll for every row without a pending list (as a pair and as a 1-D array; every third row), and (0, 0)
    for every row with one."""
    rows = batch_rows[0]
    plain = rows[rows[:, 34] == 0][::3]
    assert_batches_alike(plain, roll)
    assert_batches_alike(plain, np.array(roll))
    assert_batches_alike(rows[rows[:, 34] > 0], (0, 0))


#: (column, value) corruptions of a packed row (layout in nardy_fast.batch): counts out of range or not adding up
#: to 15, bad bar/off/turn/first/variant values, flag bits for other variants, pending lengths and values that
#: break the shapes, non-zero padding, and anything anywhere.
CORRUPTIONS = st.one_of(
    st.tuples(st.integers(0, 23), st.integers(-16, 16)),
    st.tuples(st.integers(24, 27), st.integers(-1, 16)),
    st.tuples(st.integers(28, 31), st.integers(-1, 5)),
    st.tuples(st.just(32), st.integers(0, 8)),
    st.tuples(st.just(33), st.integers(0, 64)),
    st.tuples(st.just(34), st.integers(-1, 25)),
    st.tuples(st.integers(35, 58), st.integers(-1, 7)),
    st.tuples(st.integers(59, 63), st.integers(1, 127)),
    st.tuples(st.integers(0, 63), st.integers(-128, 127)),
)
#: Rolls of corrupted rows: cheap for the reference whatever variant and flags a corruption makes.
CHEAP_ROLLS = st.sampled_from([roll for roll in ROLLS if roll[0] != roll[1] or roll[0] >= 5])


@batch_uses_core
@settings(max_examples=examples(3), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_bad_rows_and_rolls_raise_alike(batch_rows: tuple[Rows, Rows], data: st.DataObject) -> None:
    """Batches of 1..3 rows with 1..3 corruptions of rows or rolls: the same error (or the same arrays) from
    both, and from ``children`` for the first row alone."""
    rows = batch_rows[0]
    batch = rows[data.draw(st.lists(st.integers(0, len(rows) - 1), min_size=1, max_size=3))].copy()
    roll_rows = np.array([(0, 0) if row[34] else data.draw(CHEAP_ROLLS) for row in batch], dtype=np.int8)
    for _ in range(data.draw(st.integers(1, 3))):
        target = data.draw(st.integers(0, len(batch) - 1))
        if data.draw(st.integers(0, 4)) == 0:
            roll_rows[target] = data.draw(st.tuples(st.integers(-1, 7), st.integers(-1, 7)))
        else:
            column, value = data.draw(CORRUPTIONS)
            batch[target, column] = value
    assert_batches_alike(batch, roll_rows)
    roll = (int(roll_rows[0][0]), int(roll_rows[0][1]))
    got = outcome(lambda: nardy_fast.children(batch[0], None if roll == (0, 0) else roll))
    assert got == outcome(lambda: reference.batch_children(batch[:1], roll)[0])


def _verdicts(row: Rows) -> tuple[bool, bool]:
    """Whether the core's batch call and the reference's ``from_array`` accept ``row`` (with a roll that suits
    it: the pending list, or 6-5)."""
    roll = (0, 0) if row[34] else (6, 5)
    core = outcome(lambda: nardy_fast.batch_children(row[None, :], roll))[0] == "value"
    ref = outcome(lambda: reference.Position.from_array(row))[0] == "value"
    return core, ref


@batch_uses_core
def test_row_checks_alike_on_every_byte(batch_rows: tuple[Rows, Rows]) -> None:
    """The core's check of packed rows (eight bytes at a time) gives the reference's verdict on every byte of
    sample rows of every variant changed by small and large amounts, and on every move of one checker from a
    point to another (sums kept: ranges, mixed points, blocks across M1|M24)."""
    rows = batch_rows[0]
    samples = [rows[rows[:, 31] == v][:: max(1, int((rows[:, 31] == v).sum()) // 6)] for v in range(len(VARIANTS))]
    tried = Counter[tuple[bool, bool]]()
    for row in np.concatenate(samples):
        for column in range(64):
            for delta in (-128, -17, -16, -2, -1, 1, 2, 16, 17, 127):
                changed = row.copy()
                changed[column] = np.int8((int(row[column]) + delta + 128) % 256 - 128)
                tried[_verdicts(changed)] += 1
        for source in np.flatnonzero(row[:24]):
            for target in range(24):
                if target != source:
                    changed = row.copy()
                    sign = 1 if row[source] > 0 else -1
                    changed[source] -= sign
                    changed[target] += sign
                    tried[_verdicts(changed)] += 1
    assert tried[(True, False)] == tried[(False, True)] == 0, tried
    assert tried[(True, True)] > 1000 and tried[(False, False)] > 1000, tried


# --- 6. bad input -------------------------------------------------------------------------------------------

JUNK_SETTINGS = settings(
    max_examples=examples(1), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@JUNK_SETTINGS
@given(bad_boards())
def test_from_board_errors_alike(args: dict[str, object]) -> None:
    """A valid position's arguments with some replaced by junk or near-valid values."""
    got = outcome(lambda: CorePosition.from_board(**args))  # type: ignore[arg-type]
    assert got == outcome(lambda: RefPosition.from_board(**args))  # type: ignore[arg-type]


@JUNK_SETTINGS
@given(
    st.one_of(st.sampled_from(VARIANTS), junk()),
    st.dictionaries(st.sampled_from([*(flag.name for flag in FLAG_SPECS), "colour"]), junk(), max_size=2),
)
def test_start_errors_alike(variant: object, flags: dict[str, object]) -> None:
    """Any variant, and flags of any name and value."""
    got = outcome(lambda: CorePosition.start(variant, **flags))  # type: ignore[arg-type]
    assert got == outcome(lambda: RefPosition.start(variant, **flags))  # type: ignore[arg-type]


@JUNK_SETTINGS
@given(bad_texts())
def test_from_text_errors_alike(text: object) -> None:
    """A valid text with tokens replaced, dropped or added, or not a text."""
    got = outcome(lambda: CorePosition.from_text(text))  # type: ignore[arg-type]
    assert got == outcome(lambda: RefPosition.from_text(text))  # type: ignore[arg-type]


def _is_roll(dice: object) -> bool:
    return (
        isinstance(dice, (tuple, list))
        and len(dice) == 2
        and all(type(v) is int and 1 <= v <= 6 for v in dice)
    )


#: Dice that are not a roll of two die values, so that no drawn position makes them slow for the reference.
BAD_DICE = st.one_of(
    junk(),
    st.tuples(st.integers(-1, 8), st.integers(-1, 8)),
    st.lists(st.integers(0, 7), max_size=3),
    st.tuples(st.booleans(), st.integers(1, 6)),
    st.tuples(st.integers(1, 6), st.floats(1, 6)),
    st.tuples(st.integers(1, 6), st.integers(1, 6)).map(np.array),
).filter(lambda dice: not _is_roll(dice))


@JUNK_SETTINGS
@given(specs(), st.data())
def test_legal_moves_dice_errors_alike(spec_roll: tuple[Spec, Roll | None], data: st.DataObject) -> None:
    """Bad dice, dice with a pending list, no dice without one, and good dice as a list."""
    spec, roll = spec_roll
    dice = data.draw(
        st.one_of(BAD_DICE, st.just(roll), st.just(None if roll is None else list(roll)), st.just((1, 2)))
    )
    core, ref = spec.build(CorePosition), spec.build(RefPosition)
    got = outcome(lambda: [str(m) for m in core.legal_moves(dice)])
    assert got == outcome(lambda: [str(m) for m in ref.legal_moves(dice)])


@JUNK_SETTINGS
@given(specs(), st.data())
def test_play_errors_alike(spec_roll: tuple[Spec, Roll | None], data: st.DataObject) -> None:
    """``play`` with a legal move (as a text, or as the core's ``Move``), a mangled move text, or junk."""
    spec, roll = spec_roll
    core, ref = spec.build(CorePosition), spec.build(RefPosition)
    moves = core.legal_moves(roll)
    texts = [str(m) for m in moves] or ["pass"]
    move = data.draw(
        st.one_of(
            st.sampled_from(texts),
            st.sampled_from(texts).flatmap(
                lambda t: st.text(alphabet=t + "0123456789/*s()", max_size=len(t) + 3)
            ),
            st.sampled_from(["pass", "", "bar/21*", "24/6s", "6/off", "13/7(2)", "24/18/14", "1/2", "x"]),
            junk(),
        )
    )
    if moves and move in texts and data.draw(st.booleans()):
        core_move = moves[texts.index(move)]
        assert outcome(lambda: core.play(core_move)) == outcome(lambda: ref.play(core_move))
    got = outcome(lambda: core.play(move, roll))  # type: ignore[arg-type]
    assert got == outcome(lambda: ref.play(move, roll))  # type: ignore[arg-type]
