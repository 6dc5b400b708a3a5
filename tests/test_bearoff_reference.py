"""The reference's bear-off table builders (nardy_fast.reference.bearoff; docs/rules.md, Bear-off tables),
checked against values derived by hand from the rules, against small recursions written here that do not use
the move generator, against GNU Backgammon's one-sided database (long nardy's bear-off is backgammon's),
against a brute-force expectimax over real two-sided positions, and for the consistency of whole tables.

Turns: a turn is one roll with its move plus the extra rolls it earns (six-one's 6-1, gulbar's fully played
double). "f/36 fail" below counts the 36 ordered rolls: a non-double a-b is 2 of them, a double 1.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from functools import cache

import numpy as np
import numpy.typing as npt
import pytest

from nardy_fast.bearoff.layouts import all_layouts, layout_ids, layouts
from nardy_fast.bearoff.semantics import MAX_TURNS, ROLL_ORDER, ROLL_WEIGHTS, SEMANTICS, Semantics
from nardy_fast.bearoff.tables import OneSidedArrays
from nardy_fast.errors import NardyError
from nardy_fast.position import Position as AnyPosition
from nardy_fast.reference import Position
from nardy_fast.reference import bearoff as rb

KEYS = tuple(SEMANTICS)
#: Quick whole-table checks use every layout of up to this many checkers (210 layouts).
SMALL = 4
Floats = npt.NDArray[np.float64]

#: The reference's slowest checks (about two minutes on 2 cores: 15 checkers' first checker off, and every pair
#: of up to 3 checkers by brute force) run with NARDY_FAST_FULL_BEAROFF=1, as the full differential does with
#: its variable; the slow tier keeps the rest.
FULL_BEAROFF = pytest.mark.skipif(
    os.environ.get("NARDY_FAST_FULL_BEAROFF") != "1", reason="the full bear-off check: NARDY_FAST_FULL_BEAROFF=1"
)


def lid(counts: tuple[int, ...]) -> int:
    """The id of one layout (points 1..6)."""
    return int(layout_ids(np.array([counts], dtype=np.int64))[0])


def on(**points: int) -> tuple[int, ...]:
    """A layout from counts by point: ``on(p6=2, p1=1)``."""
    counts = [0] * 6
    for name, count in points.items():
        counts[int(name[1:]) - 1] = count
    return tuple(counts)


def turns(*probabilities: float) -> Floats:
    """A distribution row: ``probabilities[k]`` is the probability of exactly ``k + 1`` turns."""
    row = np.zeros(MAX_TURNS + 1)
    row[1 : 1 + len(probabilities)] = probabilities
    return row


@cache
def small_table(key: str) -> OneSidedArrays:
    return rb.one_sided(SEMANTICS[key], SMALL)


@cache
def small_two_sided(key: str, checkers: int) -> Floats:
    return rb.two_sided(SEMANTICS[key], checkers)


@cache
def rows(key: str) -> rb.OneSidedRows:
    return rb.OneSidedRows(SEMANTICS[key])


# --- one checker on point p ---------------------------------------------------------------------------------

# Rolls that fail to bear off one checker on point p in one turn, out of 36.
# long (four-step doubles, no extra roll): p <= 3 always goes (2-1 from 3: 3/1 1/off; 1-1: four pips).
#   p=4: only 2-1 (3 pips; 1-1 is 4 pips and goes) -> 2.
#   p=5: 2-1, 3-1 (4 pips, and 5/2 then the 1 from 2 does not reach), 1-1 (4 pips) -> 5.
#   p=6: goes with a 6 (11), a non-double of sum >= 6 (5-1 5-2 5-3 5-4 4-2 4-3: 12) or 2-2..5-5 (4):
#   27; fails 2-1 3-1 4-1 3-2 and 1-1 -> 9.
# sixone: as long: a 6-1 bears one checker off with the 6, the game ends and earns nothing.
# gulbar: 1-1 from 5 or 6 plays all four steps without finishing (to 1 or 2), so it rolls again, and any
#   roll bears a checker on 1 or 2 off: p=5 fails 4, p=6 fails 8.
# crazy (both ladders): every double ends with 6, 6, and a 6 bears off the last checker: p=5 fails 4, p=6 8.
# Every failure leaves the checker on point 3 or lower, off on the next turn.
ONE_CHECKER_FAILS = {
    "long": (0, 0, 0, 2, 5, 9),
    "sixone": (0, 0, 0, 2, 5, 9),
    "gulbar": (0, 0, 0, 2, 4, 8),
    "crazy": (0, 0, 0, 2, 4, 8),
    "crazy_ladder4": (0, 0, 0, 2, 4, 8),
}


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("point", range(1, 7))
def test_one_checker(key: str, point: int) -> None:
    table = small_table(key)
    i = lid(on(**{f"p{point}": 1}))
    fails = ONE_CHECKER_FAILS[key][point - 1] / 36
    np.testing.assert_allclose(table.dist[i], turns(1 - fails, fails), atol=1e-15)
    assert table.mean[i] == pytest.approx(1 + fails, abs=1e-15)
    # with one checker the first off is the last off
    np.testing.assert_array_equal(table.dist_first[i], table.dist[i])
    assert table.mean_first[i] == table.mean[i]


def test_one_checker_doubles_by_the_generator() -> None:
    # what the counts above rest on, as the reference generator's results for 1-1
    assert rb.results(SEMANTICS["long"], on(p6=1), (1, 1)) == [(on(p2=1), False)]
    assert rb.results(SEMANTICS["gulbar"], on(p5=1), (1, 1)) == [(on(p1=1), True)]
    assert rb.results(SEMANTICS["gulbar"], on(p4=1), (1, 1)) == [(on(), False)]  # 4 pips: off, game over
    assert rb.results(SEMANTICS["crazy"], on(p6=1), (1, 1)) == [(on(), False)]  # 6/5/4/2/off
    assert rb.results(SEMANTICS["sixone"], on(p6=1), (6, 1)) == [(on(), False)]
    assert rb.results(SEMANTICS["sixone"], on(p6=2), (6, 1)) == [(on(p5=1), True)]


# --- two checkers -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("key", KEYS)
def test_two_on_the_ace(key: str) -> None:
    # each die (or step of a double) bears one checker off point 1: always one turn
    table = small_table(key)
    i = lid(on(p1=2))
    np.testing.assert_array_equal(table.dist[i], turns(1.0))
    np.testing.assert_array_equal(table.dist_first[i], turns(1.0))


# Two on point 2, rolls failing to bear both off in one turn:
# long: a die 1 moves 2/1 and the other die bears off one: 2-1 3-1 4-1 5-1 6-1 fail (10); 1-1 is 2/1 2/1
#   1/off 1/off; every other roll bears one off with each die. A failure leaves one checker on 1.
# sixone: 6-1 leaves one checker on 1 but rolls again within the turn: 8 fail.
# gulbar: a 1-1 finishes with its fourth step (no extra roll needed): 10 fail. crazy: 1-1 is 1, 1, 2, ...: 10.
TWO_ON_TWO_FAILS = {"long": 10, "sixone": 8, "gulbar": 10, "crazy": 10, "crazy_ladder4": 10}


@pytest.mark.parametrize("key", KEYS)
def test_two_on_point_two(key: str) -> None:
    table = small_table(key)
    i = lid(on(p2=2))
    fails = TWO_ON_TWO_FAILS[key] / 36
    np.testing.assert_allclose(table.dist[i], turns(1 - fails, fails), atol=1e-15)
    # the first checker: any die >= 2 bears one off, and 1-1 plays 2/1 then 1/off
    np.testing.assert_array_equal(table.dist_first[i], turns(1.0))


# Two on point 6 in one turn:
# long: a non-double bears off at most one checker per die and only a 6 does it from 6: never both. Doubles
#   6-6 (6/off twice), 5-5 (6/1 6/1 1/off 1/off), 4-4 (6/2 6/2 2/off 2/off), 3-3 (6/3/off twice) go; 2-2 and
#   1-1 move 8 or 4 of the 12 pips: 4/36.
# sixone: also 6-1: 6/off 6/5 (the only result: the 6 must bear off the checker on 6), and the extra roll
#   bears the checker on 5 off with 31 of 36 rolls (fails 2-1 3-1 1-1): 4/36 + 2/36 * 31/36.
# crazy (both ladders): every double ends with 6, 6, which bear off whatever two checkers are left: 6/36.
TWO_ON_SIX_ONE_TURN = {
    "long": 4 / 36,
    "sixone": 4 / 36 + 2 / 36 * 31 / 36,
    "crazy": 6 / 36,
    "crazy_ladder4": 6 / 36,
}


@pytest.mark.parametrize("key", sorted(TWO_ON_SIX_ONE_TURN))
def test_two_on_point_six(key: str) -> None:
    table = small_table(key)
    assert table.dist[lid(on(p6=2)), 1] == pytest.approx(TWO_ON_SIX_ONE_TURN[key], abs=1e-15)
    # the same is the whole chance to win against a side that surely finishes on its next turn
    win = small_two_sided(key, 2)
    assert win[lid(on(p6=2)), lid(on(p1=1))] == pytest.approx(TWO_ON_SIX_ONE_TURN[key], abs=1e-15)


def test_gulbar_two_on_six_plays_the_faster_double() -> None:
    # gulbar 2-2 from {6: 2} plays four steps without finishing and rolls again; its results are one checker
    # on 4 (6/4/2/off 6/4) or two on 2 (6/4/2 twice). One on 4 fails only 2-1 (mean 1 + 2/36); two on 2
    # fail every non-double with a 1 (mean 1 + 10/36): the play of least mean keeps one checker on 4.
    semantics = SEMANTICS["gulbar"]
    assert sorted(rb.results(semantics, on(p6=2), (2, 2))) == sorted([(on(p4=1), True), (on(p2=2), True)])
    table = small_table("gulbar")
    assert table.mean[lid(on(p4=1))] == pytest.approx(1 + 2 / 36, abs=1e-15)
    assert table.mean[lid(on(p2=2))] == pytest.approx(1 + 10 / 36, abs=1e-15)


# --- fifteen on the ace, by a recursion over the checkers left -----------------------------------------------


def ace_checkers_off(key: str, roll: tuple[int, int]) -> int:
    """Checkers a roll bears off the ace (when that many are left): one per step of the dice list
    (docs/rules.md, Rolls and the dice list): 2 for a non-double, 4 for a double, a crazy ladder d, d, ..., 6, 6
    has 2 * (7 - d) steps (4 * (7 - d) with ladder_per_value=4)."""
    a, b = roll
    if a != b:
        return 2
    return {"crazy": 2 * (7 - a), "crazy_ladder4": 4 * (7 - a)}.get(key, 4)


def ace_extra(key: str, roll: tuple[int, int]) -> bool:
    """Whether a roll that leaves checkers on the ace earns another roll: six-one's 6-1, gulbar's double
    (played in full, 4 checkers off, since some are left)."""
    return (key == "sixone" and roll == (6, 1)) or (key == "gulbar" and roll[0] == roll[1])


def ace_distribution(key: str, checkers: int) -> tuple[float, Floats]:
    """Mean and distribution of the turns to bear off ``checkers`` on the ace (no choice of play: every
    result is the ace with fewer checkers)."""
    empty = np.zeros(MAX_TURNS + 1)
    empty[0] = 1.0
    found: dict[int, tuple[float, Floats]] = {0: (0.0, empty)}
    for left in range(1, checkers + 1):
        mean, dist = 1.0, np.zeros(MAX_TURNS + 1)
        for roll, weight in zip(ROLL_ORDER, ROLL_WEIGHTS):
            after = max(0, left - ace_checkers_off(key, roll))
            if after == 0:
                dist[1] += weight / 36
                continue
            mean_after, dist_after = found[after]
            if ace_extra(key, roll):
                mean += weight / 36 * (mean_after - 1)
                dist += weight / 36 * dist_after
            else:
                mean += weight / 36 * mean_after
                dist[1:] += weight / 36 * dist_after[:-1]
        found[left] = (mean, dist)
    return found[checkers]


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("checkers", (1, 2, 3, 4, 5, 8, 15))
def test_ace(key: str, checkers: int) -> None:
    mean, dist = rows(key).all_off(on(p1=checkers))
    want_mean, want_dist = ace_distribution(key, checkers)
    assert mean == pytest.approx(want_mean, abs=1e-12)
    np.testing.assert_allclose(dist, want_dist, atol=1e-12)
    # every roll bears a checker off the ace
    mean_first, dist_first = rows(key).first_off(on(p1=checkers))
    assert mean_first == 1.0
    np.testing.assert_array_equal(dist_first, turns(1.0))


def test_fifteen_on_the_ace_by_hand() -> None:
    # long: 2 a roll, 4 a double, 15 checkers: at least 4 turns (4 doubles), at most 8 (7 non-doubles leave
    # one); 4 turns needs 4 doubles (at the 4th only 3 are left): (1/6)^4.
    _, dist = rows("long").all_off(on(p1=15))
    assert dist[4] == pytest.approx((1 / 6) ** 4, rel=1e-12)
    assert dist[:4].sum() == 0 and dist[9:].sum() == 0 and dist[8] > 0
    # gulbar: one turn needs 3 doubles (12 off, each rolling again) and a fourth double: (1/6)^4
    _, dist = rows("gulbar").all_off(on(p1=15))
    assert dist[1] == pytest.approx((1 / 6) ** 4, rel=1e-12)
    # sixone: one turn needs six 6-1s (12 off, each rolling again), then a double (3 left) or a seventh 6-1
    # (1 left, rolling again: any roll finishes)
    _, dist = rows("sixone").all_off(on(p1=15))
    assert dist[1] == pytest.approx((2 / 36) ** 6 * (6 / 36 + 2 / 36), rel=1e-12)
    # crazy with 4 steps a value: 1-1, 2-2, 3-3 have 24, 20, 16 steps and clear the ace at once
    _, dist = rows("crazy_ladder4").all_off(on(p1=15))
    assert dist[1] == pytest.approx(3 / 36, rel=1e-12)
    # crazy with 2 a value: 1-1 has 12 steps; no roll clears 15 at once
    _, dist = rows("crazy").all_off(on(p1=15))
    assert dist[1] == 0.0


# --- the first checker off the 6-point ----------------------------------------------------------------------

# Four checkers on 6, the first off in one turn. Bearing off from 6 needs a 6; a checker moved down may bear
# off only with a die equal to its point while checkers stay above it, and they do: a double moves at most 4
# checkers, so 6 is emptied only by the last step. long: a 6 (11 rolls), 5-1 (6/1 1/off) and 4-2 (6/2 2/off
# or 6/4 4/off): 4, 3-3 (6/3/off) and 2-2 (6/4/2/off): 2; 1-1, 4-4 (6/2 four times: the 4 cannot bear off
# from 2 under 6), 5-5 (6/1 four times) and the other non-doubles do not: 17/36. sixone: the same (its 6-1
# has a 6). crazy (both ladders): the 14 non-doubles as long, and every double, which ends with 6, 6: 20/36.
# Any checker off ends the count, so the play of least expected turns takes it.
FIRST_OFF_SIX = {"long": 17 / 36, "sixone": 17 / 36, "crazy": 20 / 36, "crazy_ladder4": 20 / 36}


@pytest.mark.parametrize("key", sorted(FIRST_OFF_SIX))
def test_first_off_the_six_point(key: str) -> None:
    table = small_table(key)
    assert table.dist_first[lid(on(p6=4)), 1] == pytest.approx(FIRST_OFF_SIX[key], abs=1e-15)


@pytest.mark.slow
@FULL_BEAROFF
@pytest.mark.parametrize("key", ("long", "sixone"))
def test_first_off_fifteen_on_the_six_point(key: str) -> None:
    # the same count for 15 checkers (a mars depends on it); it visits every layout of 15 checkers
    mean, dist = rb.OneSidedRows(SEMANTICS[key]).first_off(on(p6=15))
    assert dist[1] == pytest.approx(FIRST_OFF_SIX[key], abs=1e-15)
    assert mean == pytest.approx(float(np.arange(MAX_TURNS + 1) @ dist), abs=1e-9)


# --- whole tables -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("key", KEYS)
def test_table_is_consistent(key: str) -> None:
    table = small_table(key)
    t = np.arange(MAX_TURNS + 1)
    for mean, dist in ((table.mean, table.dist), (table.mean_first, table.dist_first)):
        np.testing.assert_allclose(dist.sum(axis=1), 1.0, atol=1e-12)
        assert (dist >= 0).all()
        np.testing.assert_allclose(dist @ t, mean, atol=1e-9)
        assert dist[1:, 0].sum() == 0  # only the empty layout needs no turn
    # the first checker off comes no later than the last: P(first >= t) <= P(all >= t)
    tail = np.cumsum(table.dist[:, ::-1], axis=1)[:, ::-1]
    tail_first = np.cumsum(table.dist_first[:, ::-1], axis=1)[:, ::-1]
    assert (tail_first <= tail + 1e-12).all()
    # a checker more never makes the bear-off quicker
    ids = {tuple(row): i for i, row in enumerate(all_layouts(SMALL))}
    for row, i in ids.items():
        for point in range(6):
            more = list(row)
            more[point] += 1
            j = ids.get(tuple(more))
            if j is not None:
                assert table.mean[j] >= table.mean[i] - 1e-12, (row, point)


@pytest.mark.parametrize("key", KEYS)
def test_rows_agree_with_the_table(key: str) -> None:
    # the memoised recursion over one layout and the whole-table builder follow one recurrence: same floats
    table = small_table(key)
    fresh = rb.OneSidedRows(SEMANTICS[key])
    for i, row in enumerate(all_layouts(3)):
        mean, dist = fresh.all_off(row)
        mean_first, dist_first = fresh.first_off(row)
        assert (mean, mean_first) == (table.mean[i], table.mean_first[i])
        np.testing.assert_array_equal(dist, table.dist[i])
        np.testing.assert_array_equal(dist_first, table.dist_first[i])


@pytest.mark.parametrize("key", KEYS)
def test_extra_rolls_do_not_depend_on_the_result(key: str) -> None:
    # the recurrence picks the result of least mean: that is the best play because every result of a roll
    # that leaves checkers earns the same (an extra roll or none)
    semantics = SEMANTICS[key]
    for row in all_layouts(3)[1:]:
        for roll in ROLL_ORDER:
            extras = {extra for left, extra in rb.results(semantics, row, roll) if sum(left)}
            assert len(extras) <= 1, (row, roll)


def test_long_table_against_gnubg() -> None:
    # long nardy's bear-off is backgammon's: GNU Backgammon's one-sided database (16-bit fixed point)
    gnubg = pytest.importorskip("gnubg_nn")
    table = small_table("long")
    for i, row in enumerate(all_layouts(SMALL)):
        if i == 0:
            continue
        theirs = np.array(gnubg.bearoff_probabilities(tuple(int(c) for c in row)))
        assert tuple(gnubg.bearoff_id_2_pos(i)) == tuple(row)  # the same ids
        ours = table.dist[i, 1:]
        np.testing.assert_allclose(ours[: len(theirs)], theirs, atol=1e-4, err_msg=str(row))
        assert ours[len(theirs) :].sum() < 1e-4


# --- two-sided ----------------------------------------------------------------------------------------------


def two_sided_position(
    variant: str, flags: Mapping[str, object], x: tuple[int, ...], y: tuple[int, ...]
) -> Position:
    """White to move holding ``x`` on its points 1..6, Black holding ``y`` on Black's points 1..6 (White's
    13..18 in the long family, White's 24..19 in short nardy; docs/rules.md, The mover's numbering)."""
    board = [0] * 24
    board[:6] = x
    for b, count in enumerate(y, start=1):
        board[b + 11 if variant != "short" else 24 - b] = -count
    off = (15 - sum(x), 15 - sum(y))
    return Position.from_board(variant, board, turn="white", off=off, first_roll=(False, False), **flags)  # type: ignore[arg-type]


def brute_force_win(position: AnyPosition, memo: dict[str, float]) -> float:
    """The probability that the side to move wins, both sides maximising it: a plain expectimax over the
    reference generator's moves on the whole position."""
    key = position.to_text()
    if key not in memo:
        total = 0.0
        for roll, weight in zip(ROLL_ORDER, ROLL_WEIGHTS):
            best = 0.0
            for move in position.legal_moves(roll):
                after = move.result
                if after.is_over():
                    value = 1.0 if after.winner() == position.turn else 0.0
                elif after.turn == position.turn:
                    value = brute_force_win(after, memo)
                else:
                    value = 1.0 - brute_force_win(after, memo)
                best = max(best, value)
            total += weight * best
        memo[key] = total / 36.0
    return memo[key]


BRUTE_FORCE = {
    "long": ("short", {}),  # long and short share a table: check it on short nardy's own board
    "sixone": ("sixone", {}),
    "gulbar": ("gulbar", {}),
    "crazy": ("crazy", {"ladder_per_value": 2}),
    "crazy_ladder4": ("crazy", {"ladder_per_value": 4}),
}


def check_against_brute_force(key: str, pairs: list[tuple[int, int]], checkers: int) -> None:
    variant, flags = BRUTE_FORCE[key]
    win = small_two_sided(key, checkers)
    table = all_layouts(checkers)
    memo: dict[str, float] = {}
    for x, y in pairs:
        position = two_sided_position(variant, flags, tuple(table[x]), tuple(table[y]))
        assert win[x, y] == pytest.approx(brute_force_win(position, memo), abs=1e-12), (x, y)


@pytest.mark.parametrize("key", KEYS)
def test_two_sided_against_brute_force(key: str) -> None:
    # up to 2 checkers for the side to move against 1
    check_against_brute_force(key, [(x, y) for x in range(1, layouts(2)) for y in range(1, layouts(1))], 2)


@pytest.mark.slow
@pytest.mark.parametrize("key", KEYS)
def test_two_sided_against_brute_force_two_checkers(key: str) -> None:
    check_against_brute_force(key, [(x, y) for x in range(1, layouts(2)) for y in range(1, layouts(2))], 2)


@pytest.mark.parametrize("key", KEYS)
def test_two_sided_sanity(key: str) -> None:
    win = small_two_sided(key, 3)
    one = small_table(key)
    n = len(win)
    assert ((win >= 0) & (win <= 1 + 1e-15)).all()
    assert (win[0] == 1).all() and (win[1:, 0] == 0).all()
    # having the roll never hurts in a race: x wins moving first at least as often as moving second
    assert (win[1:, 1:] + win[1:, 1:].T >= 1 - 1e-12).all()
    # a single checker on the ace finishes at once: the side to move holding it wins
    assert (win[lid(on(p1=1)), 1:] == 1).all()
    # against one checker on the ace, x wins only by finishing this turn: at least the one-sided chance of
    # that (the two-sided play may aim at it more directly), and the hand-derived values
    finish_now = win[1:, lid(on(p1=1))]
    assert (finish_now >= one.dist[1:n, 1] - 1e-12).all()
    fails = ONE_CHECKER_FAILS[key][5] / 36
    assert win[lid(on(p6=1)), lid(on(p1=1))] == pytest.approx(1 - fails, abs=1e-15)


@pytest.mark.slow
@FULL_BEAROFF
@pytest.mark.parametrize("key", KEYS)
def test_two_sided_against_brute_force_three_checkers(key: str) -> None:
    rng = np.random.default_rng(22)
    check_against_brute_force(
        key, [(int(x), int(y)) for x, y in rng.integers(1, layouts(3), size=(40, 2))], 3
    )


# --- results ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("key", KEYS)
def test_results_do_not_depend_on_the_opponent(key: str) -> None:
    # the same layouts with the opponent at home on its points 1..6 (several checkers, some off): the
    # mover's results and extra rolls are those of results(); for long, also on short nardy's board
    semantics = SEMANTICS[key]
    variants = [BRUTE_FORCE[key], ("long", {})] if key == "long" else [BRUTE_FORCE[key]]
    rng = np.random.default_rng(7)
    table = all_layouts(5)
    opponent = on(p1=2, p3=1, p6=3)
    for x in rng.integers(1, len(table), size=12):
        row = tuple(int(c) for c in table[x])
        for roll in ROLL_ORDER:
            want = sorted(rb.results(semantics, row, roll))
            for variant, flags in variants:
                position = two_sided_position(variant, flags, row, opponent)
                got = sorted(
                    (on() if m.result.off[0] == 15 else tuple(m.result.board[:6]), m.extra_roll)
                    for m in position.legal_moves(roll)
                )
                assert got == want, (variant, row, roll)


# --- bad input ----------------------------------------------------------------------------------------------


def test_bad_input() -> None:
    semantics = SEMANTICS["long"]
    cases: list[tuple[Callable[[], object], str]] = [
        (lambda: rb.results(semantics, (1, 2, 3), (1, 1)), "counts"),
        (lambda: rb.results(semantics, (0, 0, 0, 0, 0, 16), (1, 1)), "counts"),
        (lambda: rb.results(semantics, (-1, 0, 0, 0, 0, 2), (1, 1)), "counts"),
        (lambda: rb.results(semantics, [(1, 0, 0, 0, 0, 0)] * 2, (1, 1)), "counts"),
        # semantics that are none of the tables' are refused where they are made (issue 40's checking sweep)
        (lambda: rb.results(Semantics("short", "", 0), (1, 0, 0, 0, 0, 0), (1, 1)), "key"),
        (lambda: rb.results(Semantics("long", "six_one", 0), (1, 0, 0, 0, 0, 0), (1, 1)), "extra_roll"),
        (lambda: rb.one_sided("long", 2), "semantics"),  # type: ignore[arg-type]
        (lambda: rb.one_sided(semantics, 16), "checkers"),
        (lambda: rb.one_sided(semantics, 2.0), "checkers"),  # type: ignore[arg-type]
        (lambda: rb.two_sided(semantics, 7), "checkers"),
        (lambda: rb.OneSidedRows(semantics).all_off((0, 0, 0, 0, 0, 1.5)), "counts"),
    ]
    for call, field in cases:
        with pytest.raises(NardyError) as caught:
            call()
        assert str(caught.value).startswith(f"{field}: "), str(caught.value)
