"""The public bear-off API (``nardy_fast.bearoff``; docs/rules.md, Bear-off tables) and the compiled core's
table builders behind it.

* GNU Backgammon: short nardy's bear-off is backgammon's, so the short/long one-sided table must match GNU
  Backgammon's one-sided database (``gnubg_nn.bearoff_probabilities``, 16-bit fixed point) on every layout,
  ids included, and the two-sided table must match its exact two-sided database, which
  ``gnubg_nn.probabilities`` uses for bear-offs of up to 6 checkers a side.
* Values derived by hand from the rules for every table (one checker, two on the 2-point, three and fifteen on
  the ace, one checker each side), and race values of real positions.
* Whole tables: rows are distributions whose means are the expected turns, the first checker is off no later
  than the last, a table of ``k`` checkers is a prefix of the 15 one, the flags that cannot matter select the
  same table, and the core agrees with the reference on small tables.
* Built once per process even when 8 threads ask at once; the disk cache is written, read back, and rebuilt
  when its file is damaged; bad input is a ``NardyError`` naming the argument, the same in both
  implementations; batch lookups agree with one lookup per row.

"f fail" below counts the 36 ordered rolls that do not finish in the turn: a non-double a-b is 2 of them, a
double 1.
"""

from __future__ import annotations

import io
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import nardy_fast
import nardy_fast.reference
from nardy_fast import bearoff
from nardy_fast.bearoff import OneSided, TwoSided, all_layouts, layouts, store
from nardy_fast.bearoff.layouts import layout_ids
from nardy_fast.bearoff.semantics import MAX_TURNS
from nardy_fast.errors import NardyError

core = pytest.importorskip("nardy_fast.core", reason="the compiled core is not built")
_core = pytest.importorskip("nardy_fast._core", reason="the compiled core is not built")

Floats = npt.NDArray[np.float64]

#: The variant and flags of each distinct table (docs/rules.md, Bear-off tables, Which table).
TABLES: dict[str, tuple[str, dict[str, Any]]] = {
    "long": ("long", {}),
    "sixone": ("sixone", {}),
    "gulbar": ("gulbar", {}),
    "crazy": ("crazy", {}),
    "crazy_ladder4": ("crazy", {"ladder_per_value": 4}),
}
#: The tables checked whole (each builds in C in about 1.5 s).
FULL = list(TABLES)
#: Hand-derived checks use tables of this many checkers (quick for every table; a prefix of the full one).
SMALL = 8


def one_sided(key: str, checkers: int = 15) -> OneSided:
    """The core's one-sided table ``key`` (built once per process)."""
    variant, flags = TABLES[key]
    table = core.one_sided(variant, checkers=checkers, **flags)
    assert isinstance(table, OneSided)
    return table


def two_sided(key: str, checkers: int = 6) -> TwoSided:
    variant, flags = TABLES[key]
    table = core.two_sided(variant, checkers=checkers, **flags)
    assert isinstance(table, TwoSided)
    return table


def turns(*probabilities: float) -> Floats:
    """A ``turns_distribution`` row: ``probabilities[n - 1]`` of exactly ``n`` turns."""
    row = np.zeros(MAX_TURNS)
    row[: len(probabilities)] = probabilities
    return row


def ids(counts: npt.ArrayLike) -> npt.NDArray[np.int64]:
    return layout_ids(np.asarray(counts, dtype=np.int64).reshape(-1, 6))


# --- hand-derived values ---------------------------------------------------------------------------------
#
# One checker on point p is off in one roll exactly when the dice list's pips add up to p or more (every die
# but the last moves it down; a die at least its point bears it off). Non-doubles short of p: p <= 3 none;
# p = 4: 1-2 (2 fail); p = 5: 1-2, 1-3 (4); p = 6: 1-2, 1-3, 1-4, 2-3 (8). Doubles: four steps, so only 1-1
# (4 pips) is short, of p = 5 and 6 (1 more fail) in long and six-one (6-1 bears a lone checker off, so its
# extra roll never matters). In gulbar that 1-1 is played in full with the checker left on the board, so it
# earns an extra roll, which takes the checker off point 1 or 2 for sure: no fail. A crazy ladder's first four
# steps of 1-1 are 1, 1, 2, 2 (6 pips) and any other ladder starts with two dice of 2 or more: doubles never
# fail. After a failed roll the checker has moved at least 3 pips and is on point 3 or lower, which any roll
# bears off: at most 2 turns.
NON_DOUBLE_FAILS = {1: 0, 2: 0, 3: 0, 4: 2, 5: 4, 6: 8}


def one_checker_fails(key: str, point: int) -> int:
    return NON_DOUBLE_FAILS[point] + (1 if key in ("long", "sixone") and point >= 5 else 0)


# Two checkers on the 2-point: a non-double with a 1 (1-2 .. 1-6, 10 fail) plays 2/1 and bears the other off
# (the lower die may not bear off from 1 while 2 is occupied), leaving one on the ace; any other non-double
# bears both off; 1-1 plays 2/1 2/1 1/off 1/off; every double ladder bears both off. Six-one's 6-1 earns an
# extra roll that takes the last one off: 8 fail.
TWO_ON_TWO_FAILS = {"long": 10, "sixone": 8, "gulbar": 10, "crazy": 10, "crazy_ladder4": 10}
# Three on the ace: each step bears one off; a non-double takes 2 (30 fail), a four-step double all three.
# Six-one's 6-1 rolls again (28 fail); gulbar's doubles finish (no extra roll needed); crazy's 6-6 ladder is
# just 6, 6 (31 fail); with 4 values a rung it is four 6s (30 fail).
THREE_ON_ACE_FAILS = {"long": 30, "sixone": 28, "gulbar": 30, "crazy": 31, "crazy_ladder4": 30}


@pytest.mark.parametrize("key", TABLES)
@pytest.mark.parametrize("point", range(1, 7))
def test_one_checker(key: str, point: int) -> None:
    fails = one_checker_fails(key, point)
    counts = [0] * 6
    counts[point - 1] = 1
    table = one_sided(key, SMALL)
    assert table.expected_turns(counts) == pytest.approx(1 + fails / 36, abs=1e-12)
    np.testing.assert_allclose(table.turns_distribution(counts), turns(1 - fails / 36, fails / 36), atol=1e-12)
    # the first checker is the last
    assert table.expected_turns_first(counts) == pytest.approx(1 + fails / 36, abs=1e-12)
    np.testing.assert_allclose(table.turns_distribution_first(counts), turns(1 - fails / 36, fails / 36), atol=1e-12)


def test_the_docstring_values() -> None:
    # one checker on the 6-point: 9 fail (the 8 non-doubles short of 6, and 1-1)
    assert bearoff.one_sided("long").expected_turns([0, 0, 0, 0, 0, 1]) == 1.25
    # against one on the ace, the side to move wins at once with 27 of 36, else loses
    assert bearoff.two_sided("long").win_probability([0, 0, 0, 0, 0, 1], [1, 0, 0, 0, 0, 0]) == 0.75


@pytest.mark.parametrize("key", TABLES)
@pytest.mark.parametrize(("counts", "fails"), [((0, 2, 0, 0, 0, 0), TWO_ON_TWO_FAILS), ((3, 0, 0, 0, 0, 0), THREE_ON_ACE_FAILS)])
def test_small_layouts(key: str, counts: tuple[int, ...], fails: dict[str, int]) -> None:
    f = fails[key]
    table = one_sided(key, SMALL)
    assert table.expected_turns(counts) == pytest.approx(1 + f / 36, abs=1e-12)
    np.testing.assert_allclose(table.turns_distribution(counts), turns(1 - f / 36, f / 36), atol=1e-12)
    # every roll bears a checker off at once
    assert table.expected_turns_first(counts) == 1.0
    np.testing.assert_array_equal(table.turns_distribution_first(counts), turns(1.0))


def ace_steps(key: str, roll: tuple[int, int]) -> int:
    """The length of the dice list of ``roll`` (docs/rules.md, Rolls and the dice list): on the ace every step
    bears off one checker."""
    a, b = roll
    if a != b:
        return 2
    return {"crazy": 2 * (7 - a), "crazy_ladder4": 4 * (7 - a)}.get(key, 4)


def ace_extra(key: str, roll: tuple[int, int]) -> bool:
    """Whether a roll that leaves checkers on the board rolls again: six-one's 6-1, gulbar's double (all four
    steps are played when checkers are left)."""
    return (key == "sixone" and roll == (6, 1)) or (key == "gulbar" and roll[0] == roll[1])


def ace_distribution(key: str, checkers: int) -> Floats:
    """P(exactly n turns), n = 0..MAX_TURNS, to bear off ``checkers`` from the ace: no play to choose."""
    dist: dict[int, Floats] = {0: np.eye(MAX_TURNS + 1)[0]}
    for left in range(1, checkers + 1):
        row = np.zeros(MAX_TURNS + 1)
        for a in range(1, 7):
            for b in range(1, 7):  # the 36 ordered rolls, 1/36 each
                roll = (max(a, b), min(a, b))
                after = max(0, left - ace_steps(key, roll))
                if after == 0:
                    row[1] += 1 / 36
                elif ace_extra(key, roll):
                    row += dist[after] / 36
                else:
                    row[1:] += dist[after][:-1] / 36
        dist[left] = row
    return dist[checkers]


@pytest.mark.parametrize("key", TABLES)
@pytest.mark.parametrize("checkers", (4, 5, 8))
def test_checkers_on_the_ace(key: str, checkers: int) -> None:
    want = ace_distribution(key, checkers)
    table = one_sided(key, SMALL)
    counts = [checkers, 0, 0, 0, 0, 0]
    np.testing.assert_allclose(table.turns_distribution(counts), want[1:], atol=1e-12)
    assert table.expected_turns(counts) == pytest.approx(float(want @ np.arange(MAX_TURNS + 1)), abs=1e-12)


@pytest.mark.parametrize("key", FULL)
def test_fifteen_on_the_ace(key: str) -> None:
    want = ace_distribution(key, 15)
    table = one_sided(key)
    np.testing.assert_allclose(table.turns_distribution([15, 0, 0, 0, 0, 0]), want[1:], atol=1e-12)
    if key == "long":  # at least 4 turns, 4 only with four doubles: (1/6)^4
        assert table.turns_distribution([15, 0, 0, 0, 0, 0])[3] == pytest.approx((1 / 6) ** 4, rel=1e-12)
    assert table.expected_turns_first([15, 0, 0, 0, 0, 0]) == 1.0


def test_ladders_differ() -> None:
    two, four = one_sided("crazy", SMALL), one_sided("crazy_ladder4", SMALL)
    assert two.semantics.key == "crazy" and four.semantics.key == "crazy_ladder4"
    assert two.expected_turns([3, 0, 0, 0, 0, 0]) > four.expected_turns([3, 0, 0, 0, 0, 0])
    assert not np.array_equal(two.arrays.mean, four.arrays.mean)


# One checker each, x to move on point p, y on q: x wins at once with s_p = 1 - fails / 36; else y wins with
# s_q; else x, now on point 3 or lower, bears off: win = s_p + (1 - s_p)(1 - s_q).
@pytest.mark.parametrize("key", TABLES)
def test_two_sided_one_checker_each(key: str) -> None:
    table = two_sided(key)
    success = {p: 1 - one_checker_fails(key, p) / 36 for p in range(1, 7)}
    for p in range(1, 7):
        for q in range(1, 7):
            x, y = [0] * 6, [0] * 6
            x[p - 1] = y[q - 1] = 1
            want = success[p] + (1 - success[p]) * (1 - success[q])
            assert table.win_probability(x, y) == pytest.approx(want, abs=1e-12), (p, q)


@pytest.mark.parametrize("key", TABLES)
def test_two_sided_three_on_the_ace(key: str) -> None:
    # x: three on the ace; finishes at once unless the roll fails (THREE_ON_ACE_FAILS), and then has one left
    # on the ace, which it bears off next turn unless y (one checker on the 6-point) bears off first
    f = THREE_ON_ACE_FAILS[key] / 36
    s6 = 1 - one_checker_fails(key, 6) / 36
    win = two_sided(key).win_probability([3, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 1])
    assert win == pytest.approx((1 - f) + f * (1 - s6), abs=1e-12)


@pytest.mark.parametrize("key", TABLES)
def test_two_sided_table(key: str) -> None:
    table = two_sided(key)
    n = layouts(6)
    assert table.win.shape == (n, n) and not table.win.flags.writeable
    assert (table.win[0, :] == 1).all() and (table.win[1:, 0] == 0).all()
    assert ((table.win >= 0) & (table.win <= 1)).all()
    # a smaller table, built by itself, holds the same values: a pair's results only have fewer checkers
    small = core.IMPLEMENTATION_RECORD.kernels.two_sided(table.semantics, 3)
    np.testing.assert_array_equal(small, table.win[: layouts(3), : layouts(3)])
    assert table.nbytes == n * n * 8


# --- race values of positions ----------------------------------------------------------------------------


def bearoff_position(variant: str, turn: str, white: tuple[int, ...], black: tuple[int, ...], **flags: object) -> Any:
    """A core position with White's counts on its points 1..6 and Black's on its own points 1..6 (docs/rules.md,
    The mover's numbering: Black's point b is White's b + 12 in the long family and 25 - b in short nardy),
    the rest of each side's 15 borne off."""
    board = [0] * 24
    for point, count in enumerate(white, 1):
        board[point - 1] += count
    for point, count in enumerate(black, 1):
        board[(25 - point if variant == "short" else point + 12) - 1] -= count
    off = (15 - sum(white), 15 - sum(black))
    return core.Position.from_board(variant, board, turn=turn, off=off, first_roll=(False, False), **flags)


@pytest.mark.parametrize("key", TABLES)
@pytest.mark.parametrize("turn", ("white", "black"))
def test_race_one_checker_each(key: str, turn: str) -> None:
    variant, flags = TABLES[key]
    mover, other = (0, 0, 0, 0, 0, 1), (1, 0, 0, 0, 0, 0)
    white, black = (mover, other) if turn == "white" else (other, mover)
    position = bearoff_position(variant, turn, white, black, **flags)
    assert position.is_bearoff()
    race = bearoff.race_probabilities(position)
    s6 = 1 - one_checker_fails(key, 6) / 36  # else the opponent bears off its ace checker
    assert race.exact
    assert race.win_single == pytest.approx(s6, abs=1e-12) and race.win == pytest.approx(s6, abs=1e-12)
    assert race.lose_single == pytest.approx(1 - s6, abs=1e-12)
    assert race.win_mars == 0 and race.lose_mars == 0
    assert race.equity == pytest.approx(2 * s6 - 1, abs=1e-12)


@pytest.mark.parametrize("variant", ("long", "short"))
def test_race_one_checker_each_in_short_and_long(variant: str) -> None:
    # the mover's 6-point against the opponent's ace, from either side's numbering: 27/36
    for turn in ("white", "black"):
        white, black = ((0, 0, 0, 0, 0, 1), (1, 0, 0, 0, 0, 0)) if turn == "white" else ((1, 0, 0, 0, 0, 0), (0, 0, 0, 0, 0, 1))
        race = bearoff.race_probabilities(bearoff_position(variant, turn, white, black))
        assert race.win == pytest.approx(0.75, abs=1e-12), turn


def test_race_ladder_flag_reaches_the_table() -> None:
    # three on the ace against one on the 6-point: the 6-6 ladder is 6, 6 (31 fail) or four 6s (30 fail)
    s6 = 28 / 36
    for per, fails in ((2, 31), (4, 30)):
        position = bearoff_position("crazy", "white", (3, 0, 0, 0, 0, 0), (0, 0, 0, 0, 0, 1), ladder_per_value=per)
        race = bearoff.race_probabilities(position)
        assert race.win == pytest.approx(1 - fails / 36 + fails / 36 * (1 - s6), abs=1e-12), per


def convolved(table: OneSided, x: tuple[int, ...], y: tuple[int, ...]) -> tuple[float, float, float, float]:
    """Win, win with mars, lose with mars of x to move against y, summed turn by turn (docs/rules.md, Race
    values): x needing n turns wins when y needs n or more, with a mars when y has 15 checkers and needs n or
    more to bear off its first; y needing m wins when x needs more, with a mars when x has 15 and needs more
    than m for its first."""
    px, py = table.turns_distribution(x), table.turns_distribution(y)
    fx, fy = table.turns_distribution_first(x), table.turns_distribution_first(y)
    win = win_mars = lose_mars = 0.0
    for n in range(1, MAX_TURNS + 1):
        win += px[n - 1] * py[n - 1 :].sum()
        if sum(y) == 15:
            win_mars += px[n - 1] * fy[n - 1 :].sum()
        if sum(x) == 15:
            lose_mars += py[n - 1] * fx[n:].sum()
    return win, win_mars, 1 - win, lose_mars


@pytest.mark.parametrize(
    ("white", "black"),
    [
        ((15, 0, 0, 0, 0, 0), (15, 0, 0, 0, 0, 0)),
        ((15, 0, 0, 0, 0, 0), (0, 0, 0, 0, 0, 15)),
        ((0, 0, 0, 0, 0, 15), (15, 0, 0, 0, 0, 0)),
        ((0, 0, 0, 0, 0, 14), (15, 0, 0, 0, 0, 0)),
        ((3, 2, 4, 1, 3, 2), (0, 5, 0, 4, 3, 3)),
        ((2, 0, 1, 0, 0, 0), (0, 0, 2, 3, 4, 1)),
    ],
)
def test_race_from_one_sided_tables(white: tuple[int, ...], black: tuple[int, ...]) -> None:
    race = bearoff.race_probabilities(bearoff_position("long", "white", white, black))
    values = (race.win_single, race.win_mars, race.lose_single, race.lose_mars)
    assert not race.exact
    assert min(values) >= 0 and sum(values) == pytest.approx(1, abs=1e-12)
    win, win_mars, lose, lose_mars = convolved(one_sided("long"), white, black)
    assert race.win == pytest.approx(win, abs=1e-12) and race.win_mars == pytest.approx(win_mars, abs=1e-12)
    assert race.lose_single + race.lose_mars == pytest.approx(lose, abs=1e-12)
    assert race.lose_mars == pytest.approx(lose_mars, abs=1e-12)
    if sum(black) < 15:
        assert race.win_mars == 0
    if sum(white) < 15:
        assert race.lose_mars == 0
    if white == (15, 0, 0, 0, 0, 0):
        # the ace bears a checker off on every roll: White cannot lose a mars; against 15 on the ace, 4 turns
        # at least are needed to finish, so neither side can win one
        assert race.lose_mars == 0
        if black == white:
            assert race.win_mars == 0 and race.win > 0.5
    if white == (0, 0, 0, 0, 0, 15):
        # White may fail to bear a checker off the 6-point before Black's 4 turns or more: a mars can be
        # lost (the same with 14 White checkers cannot, above)
        assert race.lose_mars > 0


def test_race_uses_the_two_sided_table_where_both_fit() -> None:
    white, black = (1, 1, 0, 2, 0, 2), (0, 3, 0, 0, 0, 3)
    race = bearoff.race_probabilities(bearoff_position("gulbar", "black", white, black))
    assert race.exact and race.win_mars == 0 and race.lose_mars == 0
    assert race.win == two_sided("gulbar").win_probability(black, white)
    seven = bearoff.race_probabilities(bearoff_position("gulbar", "black", (1, 1, 0, 2, 0, 3), black))
    assert not seven.exact


@pytest.mark.parametrize("key", ("long", "sixone", "gulbar"))
def test_race_values_in_both_implementations(key: str, reference_bearoff: None) -> None:
    # a position of each implementation reads its own implementation's tables (small ones: the reference's
    # are slow to build); the method is the function
    variant, flags = TABLES[key]
    for white, black, turn in (((0, 1, 0, 0, 0, 1), (2, 0, 0, 0, 0, 0), "white"), ((1, 0, 0, 0, 0, 0), (0, 0, 1, 0, 1, 0), "black")):
        ours = bearoff_position(variant, turn, white, black, **flags)
        theirs = nardy_fast.reference.Position.from_text(ours.to_text())
        core_race, reference_race = ours.race_probabilities(), theirs.race_probabilities()
        assert core_race.exact and reference_race.exact
        assert core_race.win == pytest.approx(reference_race.win, abs=1e-12)
        assert core_race.win == bearoff.race_probabilities(ours).win


# --- GNU Backgammon --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def gnubg() -> Any:
    return pytest.importorskip("gnubg_nn", reason="GNU Backgammon's databases (gnubg-nn, the test extra) are absent")


def test_one_sided_against_gnubg(gnubg: Any) -> None:
    """GNU Backgammon's one-sided database on every layout: ``bearoff_probabilities(i)[k]`` is the probability
    of exactly k + 1 rolls, rounded to 16 bits; ids 1..54263 in the same order."""
    table = bearoff.one_sided("short")
    assert table is core.one_sided("long") or nardy_fast.IMPLEMENTATION != "cython"
    n = layouts(15)
    counts = np.array([gnubg.bearoff_id_2_pos(i) for i in range(1, n)], dtype=np.int64)
    theirs = np.zeros((n - 1, MAX_TURNS))
    for i in range(1, n):
        row = gnubg.bearoff_probabilities(i)
        theirs[i - 1, : len(row)] = row
    np.testing.assert_array_equal(table.ids(counts), np.arange(1, n))
    np.testing.assert_array_equal(all_layouts()[1:], counts)
    ours = table.turns_distribution(counts)
    rolls = np.arange(1, MAX_TURNS + 1)
    # expected turns: ours minimises them exactly, theirs is rounded
    assert np.abs(table.expected_turns(counts) - theirs @ rolls).max() < 3e-4
    # where two plays are within gnubg's rounding it may take the other: same mean, another distribution
    diff = np.abs(ours - theirs).max(axis=1)
    assert diff.max() < 5e-3
    assert (diff < 5e-5).mean() > 0.95  # measured: 98.9%


def gnubg_board(x: npt.NDArray[Any], y: npt.NDArray[Any]) -> list[list[int]]:
    """GNU Backgammon's board of ``x`` on roll against ``y``: [side not on roll, side on roll], each 25
    counts from its own point 1 (index 0) to its bar (index 24)."""
    not_on_roll, on_roll = [0] * 25, [0] * 25
    not_on_roll[:6] = (int(c) for c in y)
    on_roll[:6] = (int(c) for c in x)
    return [not_on_roll, on_roll]


def test_two_sided_against_gnubg(gnubg: Any) -> None:
    """GNU Backgammon evaluates bear-offs of up to 6 checkers a side from its exact two-sided database
    (16-bit equities): every pair of up to 3 checkers, and a sample of pairs of up to 6."""
    table = bearoff.two_sided("short")
    race = bearoff.one_sided("short", checkers=6)
    pairs = [(i, j) for i in range(1, layouts(3)) for j in range(1, layouts(3))]
    rng = np.random.default_rng(22)
    pairs += [(int(i), int(j)) for i, j in rng.integers(1, layouts(6), size=(6000, 2))]
    grid = all_layouts(6)
    theirs = np.array([gnubg.probabilities(gnubg_board(grid[i], grid[j]), 0)[0] for i, j in pairs])
    x, y = grid[[i for i, _ in pairs]], grid[[j for _, j in pairs]]
    ours = table.win_probability(x, y)
    assert np.abs(ours - theirs).max() < 1e-4  # measured: 5.0e-5
    # the test tells exact values from the one-sided approximation, which misses by up to about 1%
    approximate = race.race_probabilities(x, y)[:, :2].sum(axis=1)
    assert np.abs(approximate - theirs).max() > 1e-3


# --- whole tables ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("key", FULL)
def test_table_is_consistent(key: str) -> None:
    table = one_sided(key)
    n = layouts(15)
    assert table.checkers == 15 and table.semantics.key == key and table.implementation == core.IMPLEMENTATION
    assert table.nbytes == n * (2 + 2 * (MAX_TURNS + 1)) * 8
    mean, dist, mean_first, dist_first = table.arrays
    assert all(not a.flags.writeable for a in table.arrays)
    spans = np.arange(MAX_TURNS + 1)
    for m, d in ((mean, dist), (mean_first, dist_first)):
        assert (d >= 0).all()
        np.testing.assert_allclose(d.sum(axis=1), 1, atol=1e-12)
        np.testing.assert_allclose(d @ spans, m, atol=1e-9)
        assert d[0, 0] == 1 and (d[1:, 0] == 0).all() and (d[:, MAX_TURNS] == 0).all()
    # the first checker is off no later than the last: P(first <= t) >= P(all <= t) for every t
    assert (np.cumsum(dist_first, axis=1) >= np.cumsum(dist, axis=1) - 1e-12).all()
    assert (mean_first <= mean + 1e-12).all()
    one = layout_ids(np.eye(6, dtype=np.int64))
    np.testing.assert_array_equal(dist[one], dist_first[one])
    # one checker more never bears off sooner
    grid = all_layouts().astype(np.int64)
    fewer = grid[grid.sum(axis=1) < 15]
    for point in range(6):
        more = fewer.copy()
        more[:, point] += 1
        assert (mean[layout_ids(more)] >= mean[layout_ids(fewer)] - 1e-12).all(), point
    # a table of fewer checkers, built by itself, is the start of this one (the store serves a smaller table
    # as a prefix of a larger one it holds)
    small = core.IMPLEMENTATION_RECORD.kernels.one_sided(table.semantics, SMALL)
    for part, whole in zip(small, table.arrays):
        np.testing.assert_array_equal(part, whole[: layouts(SMALL)])


def test_tables_shared_by_semantics() -> None:
    assert core.one_sided("short") is core.one_sided("long")
    assert core.one_sided("short").semantics.key == "long"
    same: list[tuple[str, dict[str, Any]]] = [
        ("sixone", {"sixone_extra_roll_requires_play": True}),
        ("long", {"block_check": "per_step"}),
        ("long", {"first_roll_exception_doubles": ()}),
        ("gulbar", {"block_check": "per_step", "first_roll_exception_doubles": (6,)}),
        ("crazy", {"normal_doubles_first_rolls": 3, "ladder_per_value": 2}),
        ("crazy", {"ladder_per_value": np.int64(4)}),
    ]
    for variant, flags in same:
        plain = {"ladder_per_value": flags["ladder_per_value"]} if "ladder_per_value" in flags else {}
        assert core.one_sided(variant, checkers=SMALL, **flags) is core.one_sided(variant, checkers=SMALL, **plain), flags
    assert core.two_sided("short") is core.two_sided("long", block_check="per_step")
    distinct = {id(one_sided(key, SMALL)) for key in TABLES}
    assert len(distinct) == len(TABLES)


@pytest.fixture(scope="module")
def reference_bearoff() -> None:
    """Skip when the reference's builders are not there yet."""
    try:
        import nardy_fast.reference.bearoff as built

        assert callable(built.one_sided) and callable(built.two_sided)
    except (ImportError, AttributeError, NotImplementedError) as error:
        pytest.skip(f"the reference's bear-off builders are not available: {error!r}")


@pytest.mark.parametrize("key", TABLES)
def test_core_matches_reference(key: str, reference_bearoff: None) -> None:
    variant, flags = TABLES[key]
    try:
        ours = nardy_fast.reference.one_sided(variant, checkers=3, **flags)
        pair = nardy_fast.reference.two_sided(variant, checkers=2, **flags)
    except NotImplementedError as error:
        pytest.skip(f"the reference's bear-off builders are not available: {error!r}")
    assert ours.implementation == "python" and ours is not one_sided(key, 3)
    for a, b in zip(ours.arrays, one_sided(key, 3).arrays):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)
    np.testing.assert_allclose(pair.win, two_sided(key, 2).win, rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    ("key", "checkers", "pairs"), [(key, 4, 3) for key in TABLES] + [pytest.param(key, 6, 3, marks=pytest.mark.slow) for key in TABLES]
)
def test_core_equals_reference_bit_for_bit(key: str, checkers: int, pairs: int) -> None:
    # the two builders add the same terms in the same order (nardy_fast.bearoff.tables): the core's dedicated
    # bear-off generator and dynamic programming must give the very floats of the reference's recursion over
    # its own legal moves, on every layout of up to ``checkers`` checkers and every pair of up to ``pairs``
    from nardy_fast.bearoff.semantics import SEMANTICS
    from nardy_fast.core import _one_sided, _two_sided
    from nardy_fast.reference import bearoff as reference_bearoff

    semantics = SEMANTICS[key]
    for ours, theirs in zip(_one_sided(semantics, checkers), reference_bearoff.one_sided(semantics, checkers)):
        assert np.array_equal(ours, theirs)
    assert np.array_equal(_two_sided(semantics, pairs), reference_bearoff.two_sided(semantics, pairs))


# --- built once, disk cache ------------------------------------------------------------------------------


@pytest.fixture
def kernel_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Each call of the core's one-sided builder, counted (by the thread that made it)."""
    calls: list[int] = []
    original = _core.bearoff_one_sided

    def counting(*args: Any) -> Any:
        calls.append(threading.get_ident())
        time.sleep(0.2)  # a slow build, so that the other threads ask while it runs
        return original(*args)

    monkeypatch.setattr(_core, "bearoff_one_sided", counting)
    return calls


@pytest.fixture
def fresh_store(monkeypatch: pytest.MonkeyPatch) -> Callable[[], None]:
    """An empty in-memory store of tables for the test (the session's comes back after it), and a function
    that empties it again, as a new process would start: no table, and no larger table to take a prefix
    of, is there to serve a request."""
    monkeypatch.setattr(store, "_BUILT", {})
    return lambda: store._BUILT.clear()


def test_built_once_by_many_threads(fresh_store: Callable[[], None], kernel_calls: list[int]) -> None:
    barrier = threading.Barrier(8)
    got: list[object] = [None] * 8
    errors: list[BaseException] = []

    def ask(i: int) -> None:
        try:
            barrier.wait(timeout=60)
            got[i] = core.one_sided("gulbar", checkers=9)
        except BaseException as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads) and not errors
    assert len(kernel_calls) == 1
    assert all(table is got[0] for table in got)
    table = got[0]
    assert isinstance(table, OneSided) and table.expected_turns([0, 0, 0, 0, 0, 1]) == pytest.approx(1 + 8 / 36)
    assert core.one_sided("gulbar", checkers=9) is table and len(kernel_calls) == 1


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("NARDY_FAST_CACHE", str(tmp_path / "cache"))
    assert bearoff.cache_directory() == tmp_path / "cache"
    return tmp_path / "cache"


def cached(cache_dir: Path) -> Path:
    (path,) = cache_dir.iterdir()  # one file, no temporary left behind
    assert path.suffix == ".npz"
    return path


def test_disk_cache_written_and_read(cache_dir: Path, fresh_store: Callable[[], None], kernel_calls: list[int]) -> None:
    built = core.one_sided("sixone", checkers=5, cache=True)
    assert len(kernel_calls) == 1
    path = cached(cache_dir)
    fresh_store()
    read = core.one_sided("sixone", checkers=5, cache=True)
    assert len(kernel_calls) == 1 and read is not built and cached(cache_dir) == path
    for a, b in zip(read.arrays, built.arrays):
        np.testing.assert_array_equal(a, b)
    fresh_store()
    core.one_sided("sixone", checkers=5)  # cache=False: never reads the file
    assert len(kernel_calls) == 2


def flip(data: bytes, other: bytes) -> bytes:
    middle = bytearray(data)
    middle[len(middle) // 2] ^= 0xFF
    return bytes(middle)


def truncate(data: bytes, other: bytes) -> bytes:
    return data[: len(data) // 2]


def garbage(data: bytes, other: bytes) -> bytes:
    return b"not a table" * 100


def changed_array(data: bytes, other: bytes) -> bytes:
    """One value changed, the file's checksum kept."""
    with np.load(io.BytesIO(data)) as stored:
        arrays: dict[str, Any] = {name: np.array(stored[name]) for name in stored.files}
    arrays["mean"][7] += 0.5
    out = io.BytesIO()
    np.savez(out, **arrays)
    return out.getvalue()


def other_table(data: bytes, other: bytes) -> bytes:
    """The file of another table (its own checksum right) under this table's name."""
    return other


@pytest.mark.parametrize("damage", (flip, truncate, garbage, changed_array, other_table))
def test_disk_cache_rebuilt_when_damaged(
    damage: Callable[[bytes, bytes], bytes], cache_dir: Path, fresh_store: Callable[[], None], kernel_calls: list[int]
) -> None:
    core.one_sided("sixone", checkers=4, cache=True)
    four = cached(cache_dir)
    other = four.read_bytes()
    four.unlink()
    fresh_store()
    built = core.one_sided("sixone", checkers=5, cache=True)
    path = cached(cache_dir)
    path.write_bytes(damage(path.read_bytes(), other))
    calls = len(kernel_calls)
    fresh_store()
    rebuilt = core.one_sided("sixone", checkers=5, cache=True)
    assert len(kernel_calls) == calls + 1
    for a, b in zip(rebuilt.arrays, built.arrays):
        np.testing.assert_array_equal(a, b)
    # ... and rewritten: the next process reads it
    fresh_store()
    core.one_sided("sixone", checkers=5, cache=True)
    assert len(kernel_calls) == calls + 1 and cached(cache_dir) == path


def test_disk_cache_that_cannot_be_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_store: Callable[[], None], kernel_calls: list[int]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("NARDY_FAST_CACHE", str(blocker / "cache"))
    table = core.one_sided("sixone", checkers=5, cache=True)
    assert table.expected_turns([3, 0, 0, 0, 0, 0]) == pytest.approx(1 + 28 / 36)
    # the table's file name taken by a directory
    directory = tmp_path / "cache"
    monkeypatch.setenv("NARDY_FAST_CACHE", str(directory))
    fresh_store()
    core.one_sided("sixone", checkers=5, cache=True)
    path = cached(directory)
    path.unlink()
    path.mkdir()
    fresh_store()
    table = core.one_sided("sixone", checkers=5, cache=True)
    assert table.expected_turns([3, 0, 0, 0, 0, 0]) == pytest.approx(1 + 28 / 36)
    assert len(kernel_calls) == 3
    assert [p.name for p in directory.iterdir()] == [path.name]  # no temporary file left behind


# --- bad input -------------------------------------------------------------------------------------------

BAD_COUNTS: list[tuple[object, str]] = [
    ([-1, 0, 0, 0, 0, 0], "negative"),
    ([1, 0, 0, 0, 0, -2], "negative"),
    ([4, 0, 0, 0, 0, 0], "at most 3"),
    ([1, 1, 1, 0, 0, 1], "at most 3"),
    (np.array([[0, 0, 0, 0, 0, 1], [2, 2, 0, 0, 0, 0]]), "at most 3"),
    (np.array([200, 0, 0, 0, 0, 0], dtype=np.uint8), "at most 3"),
    (np.array([100, 100, 100, 0, 0, 0], dtype=np.int8), "at most 3"),  # no wraparound of the total
    ([1, 0, 0, 0, 0], "6 integer counts"),
    ([0] * 7, "6 integer counts"),
    ([], "6 integer counts"),
    ([1.0, 0, 0, 0, 0, 0], "6 integer counts"),
    (np.zeros(6), "6 integer counts"),
    (["1", 0, 0, 0, 0, 0], "6 integer counts"),
    ("100000", "6 integer counts"),
    ([True, False, False, False, False, False], "6 integer counts"),
    (np.zeros(6, dtype=bool), "6 integer counts"),
    ([[1, 0, 0, 0, 0, 0], [1, 0]], "6 integer counts"),
    ([np.nan] * 6, "6 integer counts"),
    ([2**70, 0, 0, 0, 0, 0], "6 integer counts"),
    (np.zeros((2, 1, 6), dtype=np.int64), "6 integer counts"),
    (None, "6 integer counts"),
    (5, "6 integer counts"),
    ({1: 1}, "6 integer counts"),
]


def counts_error(call: Callable[[], object]) -> NardyError:
    with pytest.raises(NardyError) as caught:
        call()
    return caught.value


@pytest.fixture(scope="module")
def reference_three(reference_bearoff: None) -> tuple[OneSided, TwoSided]:
    return nardy_fast.reference.one_sided("long", checkers=3), nardy_fast.reference.two_sided("long", checkers=3)


@pytest.mark.parametrize(("counts", "problem"), BAD_COUNTS)
def test_bad_counts(counts: object, problem: str, reference_three: tuple[OneSided, TwoSided]) -> None:
    good = [1, 0, 0, 0, 0, 0]
    messages: dict[tuple[str, int], list[str]] = {}
    for table, pair in ((one_sided("long", 3), two_sided("long", 3)), reference_three):
        calls: list[tuple[str, Callable[[], object]]] = [
            ("counts", lambda: table.expected_turns(counts)),
            ("counts", lambda: table.expected_turns_first(counts)),
            ("counts", lambda: table.turns_distribution(counts)),
            ("counts", lambda: table.turns_distribution_first(counts)),
            ("counts", lambda: table.ids(counts)),
            ("x_counts", lambda: table.race_probabilities(counts, good)),
            ("y_counts", lambda: table.race_probabilities(good, counts)),
            ("x_counts", lambda: pair.win_probability(counts, good)),
            ("y_counts", lambda: pair.win_probability(good, counts)),
        ]
        for field, call in calls:
            error = counts_error(call)
            assert type(error) is NardyError and str(error).startswith(f"{field}: ") and problem in str(error)
            messages.setdefault((field, call.__code__.co_firstlineno), []).append(str(error))
    # the same message from both implementations
    assert all(len(set(pair)) == 1 for pair in messages.values()), messages


class RaisingArray:
    """``__array__`` raises: NumPy passes its exception on."""

    def __array__(self, *args: object, **kwargs: object) -> None:
        raise RuntimeError("no array")


@pytest.mark.parametrize(
    "counts",
    [RaisingArray(), [True, 1, 0, 0, 0, 0]],
    ids=["__array__ raises", "a bool among ints"],
)
def test_hostile_counts(counts: object) -> None:
    # not integer counts (docs: a bool is never an integer, nardy_fast.inputs), whatever NumPy makes of them
    error = counts_error(lambda: one_sided("long", 3).expected_turns(counts))
    assert str(error).startswith("counts: ")


def test_unsigned_counts() -> None:
    # an unsigned integer array is an integer array
    table = one_sided("long", 3)
    for dtype in (np.uint8, np.uint16, np.uint32, np.uint64):
        batch = np.array([[0, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 0]], dtype=dtype)
        np.testing.assert_array_equal(table.expected_turns(batch), [1.25, 1.0])


BAD_TABLES: list[tuple[str, dict[str, Any], str]] = [
    ("backgammon", {}, "variant"),
    ("Long", {}, "variant"),
    (np.array(["long"]), {}, "variant"),  # type: ignore[list-item]
    (None, {}, "variant"),  # type: ignore[list-item]
    ("long", {"ladder_per_value": 4}, "ladder_per_value"),
    ("crazy", {"ladder_per_value": 3}, "ladder_per_value"),
    ("crazy", {"ladder_per_value": "4"}, "ladder_per_value"),
    ("gulbar", {"sixone_extra_roll_requires_play": True}, "sixone_extra_roll_requires_play"),
    ("long", {"bogus": 1}, "bogus"),
    ("long", {"block_check": "never"}, "block_check"),
    ("long", {"checkers": 16}, "checkers"),
    ("long", {"checkers": -1}, "checkers"),
    ("long", {"checkers": "6"}, "checkers"),
    ("long", {"checkers": True}, "checkers"),
    ("long", {"checkers": 6.0}, "checkers"),
    ("long", {"checkers": None}, "checkers"),
    ("long", {"checkers": 6, "cache": "yes"}, "cache"),
    ("long", {"checkers": 6, "cache": 1}, "cache"),
    ("long", {"checkers": 6, "cache": None}, "cache"),
]


@pytest.mark.parametrize(("variant", "arguments", "field"), BAD_TABLES)
def test_bad_one_sided(variant: str, arguments: dict[str, Any], field: str) -> None:
    messages = []
    for build in (bearoff.one_sided, core.one_sided, nardy_fast.reference.one_sided):
        error = counts_error(lambda: build(variant, **arguments))
        assert str(error).startswith(f"{field}: "), str(error)
        messages.append((type(error), str(error)))
    assert messages[0] == messages[1] == messages[2]


@pytest.mark.parametrize(
    ("variant", "arguments", "field"),
    [
        ("long", {"checkers": 7}, "checkers"),
        ("long", {"checkers": 0}, "checkers"),
        ("long", {"checkers": np.int8(7)}, "checkers"),
        ("long", {"checkers": False}, "checkers"),
        ("long", {"cache": True}, "cache"),  # two-sided tables are not cached: no such flag
        ("chess", {}, "variant"),
        ("sixone", {"ladder_per_value": 2}, "ladder_per_value"),
    ],
)
def test_bad_two_sided(variant: str, arguments: dict[str, Any], field: str) -> None:
    messages = []
    for build in (bearoff.two_sided, core.two_sided, nardy_fast.reference.two_sided):
        error = counts_error(lambda: build(variant, **arguments))
        assert str(error).startswith(f"{field}: "), str(error)
        messages.append((type(error), str(error)))
    assert messages[0] == messages[1] == messages[2]


def test_both_empty() -> None:
    empty = [0] * 6
    batch_x, batch_y = np.zeros((2, 6), dtype=int), [[1, 0, 0, 0, 0, 0], empty]  # the second pair: both empty
    calls = [
        lambda: two_sided("long").win_probability(empty, empty),
        lambda: two_sided("long").win_probability(batch_x, batch_y),
        lambda: one_sided("long", 3).race_probabilities(empty, empty),
        lambda: one_sided("long", 3).race_probabilities(batch_x, batch_y),
    ]
    for call in calls:
        assert str(counts_error(call)).startswith("x_counts: ")
    # one side empty: it has borne off all
    assert two_sided("long").win_probability(empty, [1, 0, 0, 0, 0, 0]) == 1.0
    assert two_sided("long").win_probability([1, 0, 0, 0, 0, 0], empty) == 0.0


@pytest.mark.parametrize("implementation", ("core", "reference"))
def test_bad_race_positions(implementation: str) -> None:
    position_class: Any = core.Position if implementation == "core" else nardy_fast.reference.Position
    cases: list[tuple[object, str]] = [
        (position_class.start("long"), "is not a bear-off"),
        (position_class.start("short"), "is not a bear-off"),
        (position_class.from_text("long w 1:14,7:1,13:-15 first=-"), "is not a bear-off"),
        (position_class.from_text("long b 13:-15 off=15/0 first=-"), "is a finished game"),
        (position_class.from_text("short w 24:-15 off=15/0 first=-"), "is a finished game"),
        ("long w 1:15,13:-15 first=-", "must be a Position"),
        (None, "must be a Position"),
        (one_sided("long", 3), "must be a Position"),
    ]
    for position, problem in cases:
        error = counts_error(lambda: bearoff.race_probabilities(position))  # type: ignore[arg-type]
        assert type(error) is NardyError and str(error).startswith("position: ") and problem in str(error)


# --- lookups ---------------------------------------------------------------------------------------------


def test_batch_agrees_with_one_call_per_row() -> None:
    table = one_sided("long")
    rng = np.random.default_rng(7)
    batch = all_layouts()[rng.integers(0, layouts(15), size=300)]
    rows = [tuple(int(c) for c in row) for row in batch]
    for method in (table.expected_turns, table.expected_turns_first):
        many = method(batch)
        assert isinstance(many, np.ndarray) and many.shape == (300,)
        singles = [method(row) for row in rows]
        assert all(type(one) is float for one in singles)
        np.testing.assert_array_equal(many, singles)
    for method in (table.turns_distribution, table.turns_distribution_first):
        many = method(batch)
        assert many.shape == (300, MAX_TURNS)
        for row, got in zip(rows, many):
            one = method(list(row))
            assert one.shape == (MAX_TURNS,)
            np.testing.assert_array_equal(one, got)
    np.testing.assert_array_equal(table.ids(batch), [table.ids(row) for row in rows])
    assert type(table.ids(rows[0])) is int
    # the same layouts as lists, tuples, and arrays of other integer types
    for form in (batch.tolist(), batch.astype(np.int64), batch.astype(np.uint8), np.asfortranarray(batch)):
        np.testing.assert_array_equal(table.expected_turns(form), table.expected_turns(batch))
    # race values: a batch against a batch, a batch against one layout
    races = table.race_probabilities(batch[:50], batch[50:100])
    assert races.shape == (50, 4)
    for x, y, got in zip(rows[:50], rows[50:100], races):
        if sum(x) or sum(y):
            np.testing.assert_array_equal(table.race_probabilities(x, y), got)
    against = table.race_probabilities(batch[:50], [0, 0, 0, 0, 0, 1])
    assert against.shape == (50, 4)
    assert str(counts_error(lambda: table.race_probabilities(batch[:3], batch[:4]))).startswith("y_counts: ")


def test_empty_batch_and_empty_layout() -> None:
    table = one_sided("long")
    none = np.zeros((0, 6), dtype=np.int64)
    means = table.expected_turns(none)
    assert isinstance(means, np.ndarray) and means.shape == (0,)
    assert table.turns_distribution(none).shape == (0, MAX_TURNS)
    assert table.expected_turns([0] * 6) == 0.0 and table.expected_turns_first([0] * 6) == 0.0
    assert not table.turns_distribution([0] * 6).any()


def test_lookups_are_copies() -> None:
    table = one_sided("long")
    row = table.turns_distribution([0, 0, 0, 0, 0, 1])
    row[:] = 7
    np.testing.assert_allclose(table.turns_distribution([0, 0, 0, 0, 0, 1]), turns(0.75, 0.25), atol=1e-12)
    with pytest.raises(ValueError):
        table.arrays.mean[1] = 3.0


def test_two_sided_batch() -> None:
    table = two_sided("sixone")
    rng = np.random.default_rng(5)
    grid = all_layouts(6)
    x, y = grid[rng.integers(1, layouts(6), size=200)], grid[rng.integers(1, layouts(6), size=200)]
    many = table.win_probability(x, y)
    assert isinstance(many, np.ndarray) and many.shape == (200,)
    against = table.win_probability(x, y[0])
    assert isinstance(against, np.ndarray)
    singles = [table.win_probability(list(a), tuple(b)) for a, b in zip(x, y)]
    assert all(type(one) is float for one in singles)
    np.testing.assert_array_equal(many, singles)
    np.testing.assert_array_equal(against, [table.win_probability(a, y[0]) for a in x])
    np.testing.assert_array_equal(table.win_probability(x, y), table.win[ids(x), ids(y)])



# --- hostile use of the table objects ------------------------------------------------------------------------


def test_tables_pickle_as_what_they_are() -> None:
    import pickle

    from nardy_fast.bearoff.store import table_of
    from nardy_fast.bearoff.tables import OneSided, TwoSided

    for table in (nardy_fast.core.one_sided("long", checkers=5), nardy_fast.core.two_sided("gulbar", checkers=2)):
        assert pickle.loads(pickle.dumps(table)) is table  # found again, never arrays read back
    with pytest.raises(NardyError, match="uninitialised OneSided"):
        OneSided.__new__(OneSided).expected_turns([1, 0, 0, 0, 0, 0])
    with pytest.raises(NardyError, match="uninitialised TwoSided"):
        TwoSided.__new__(TwoSided).win_probability([1, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0])
    # a pickle edited by hand names a table that does not exist: refused, naming the part
    for args, field in [
        (("one_sided", "java", "long", 3), "implementation"),
        (("one_sided", "cython", "longg", 3), "key"),
        (("one_sided", "cython", "long", 99), "checkers"),
        (("two_sided", "cython", "long", 7), "checkers"),
        (("three_sided", "cython", "long", 3), "kind"),
        (([], "cython", "long", 3), "kind"),
    ]:
        with pytest.raises(NardyError, match=f"^{field}: "):
            table_of(*args)


@pytest.mark.parametrize("key", list(TABLES))
def test_core_equals_reference_on_sampled_fifteen_checker_layouts(key: str) -> None:
    # whole tables of 15 checkers are beyond the reference: samples whose results stay on few points (a layout
    # on points 1..2 reaches only the 136 layouts there), reached by its memoised recursion over its own moves
    from nardy_fast.bearoff.semantics import SEMANTICS
    from nardy_fast.reference.bearoff import OneSidedRows

    rows = OneSidedRows(SEMANTICS[key])
    table = one_sided(key, 15)
    for counts in ([15, 0, 0, 0, 0, 0], [0, 15, 0, 0, 0, 0], [8, 7, 0, 0, 0, 0], [1, 14, 0, 0, 0, 0]):
        i = table.ids(counts)
        for (mean, dist), (means, dists) in (
            (rows.all_off(counts), (table.arrays.mean, table.arrays.dist)),
            (rows.first_off(counts), (table.arrays.mean_first, table.arrays.dist_first)),
        ):
            assert mean == means[i] and np.array_equal(dist, dists[i]), counts
