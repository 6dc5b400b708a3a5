"""Playouts and rollouts truncated at the bear-off (``truncate="bearoff"``; issue 22 item 6, docs/rules.md,
Races and bear-off positions and Bear-off tables), in both implementations.

* playouts: a game's dice and random choices depend only on ``(seed, game, ply)``, so a truncated game must be
  the plain game (the same call without ``truncate``) cut at its first unfinished bear-off row with no pending
  list, found here by ``layout.is_bearoff`` and checked against ``race.is_bearoff`` (a coding of its own); the
  records (winner -2, points 0, plies, turns) follow from the cut by hand. Every variant from its start and
  from race rows, the reference, the core's C loop and the lock-step loop of a callable policy (the first
  child, which must equal ``policy="first"``); a bear-off start stops at once; bad ``truncate`` values are the
  same error everywhere;
* rollouts: on a bear-off every game is stopped and the rollout is the position's race values
  (``race_probabilities``) exactly; on races the stopped games' sums are those of ``race_probabilities`` of the
  playout's last rows (not ``row_outcomes``, which the rollout uses), reference and core agree, splits by
  ``first_game`` combine exactly and threads change nothing; against the plain rollout, with a policy that
  plays the bear-off as the one-sided tables do, the paired difference of the two is within a few standard
  errors (the race values are then the expected outcome of playing on) and the truncated error is smaller
  (with random play they differ, as documented); a bear-off with a pending list plays it before it is scored;
* ``Rollout``'s new fields: bad values, and sums no games could give, are a ``NardyError`` naming the field;
  the figures of a small rollout by hand; ``str`` names the truncated games;
* Dask (slow): a sharded truncated rollout equals one process.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator
from functools import cache
from typing import Any

import cuts
import numpy as np
import numpy.typing as npt
import pytest
from ids import stable_repr

from nardy_fast import layout, race, reference
from nardy_fast.analysis import AnalysedPosition as SharedPosition
from nardy_fast.bearoff.layouts import layout_ids
from nardy_fast.board import mover_point
from nardy_fast.errors import NardyError
from nardy_fast.playouts import TRUNCATED, Trajectories
from nardy_fast.rollouts import OUTCOMES, Rollout, rollout_options
from nardy_fast.variants import VARIANTS

core = pytest.importorskip("nardy_fast.core", reason="the compiled core is not built")

IMPLS = {"reference": reference, "core": core}
Rows = npt.NDArray[np.int8]
Policy = Callable[[Rows, npt.NDArray[np.int64]], npt.NDArray[np.int64]]


def first_child(children: Rows, offsets: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """A callable policy that plays as ``policy="first"`` does: the first child of every game."""
    return np.zeros(len(offsets) - 1, dtype=np.int64)


# --- positions ----------------------------------------------------------------------------------------------


@cache
def plain_games(variant: str) -> Trajectories:
    """Random games of ``variant`` by the core, for the rows below."""
    played: tuple[object, Trajectories] = core.playout(variant, 40, seed=11, trajectories=True)
    return played[1]


def _first_rows(variant: str, wanted: npt.NDArray[np.bool_], count: int) -> Rows:
    played = plain_games(variant)
    picked = []
    for begin, end in zip(played.offsets[:-1].tolist(), played.offsets[1:].tolist()):
        hits = np.flatnonzero(wanted[begin:end])
        if hits.size:
            picked.append(played.rows[begin + hits[0]])
        if len(picked) == count:
            break
    assert len(picked) == count, variant
    return np.stack(picked)


@cache
def race_rows(variant: str) -> Rows:
    """Four race rows of ``variant`` that are not bear-off rows (each the first of its game), from play."""
    rows = plain_games(variant).rows
    return _first_rows(variant, layout.is_race(rows) & ~layout.is_bearoff(rows) & ~layout.is_over(rows), 4)


@cache
def bearoff_rows(variant: str) -> Rows:
    """Four unfinished bear-off rows of ``variant`` (each the first of its game), from play."""
    rows = plain_games(variant).rows
    return _first_rows(variant, layout.is_bearoff(rows) & ~layout.is_over(rows), 4)


def bearoff_position(
    Position: type[SharedPosition], variant: str, white: list[int], black: list[int], turn: str = "white"
) -> SharedPosition:
    """A bear-off: ``white`` and ``black`` the counts on each side's own points 1..6, the rest borne off."""
    board = [0] * 24
    for m, count in enumerate(white, start=1):
        board[m - 1] += count
    for m, count in enumerate(black, start=1):
        board[mover_point(variant, m) - 1] -= count
    off = (15 - sum(white), 15 - sum(black))
    return Position.from_board(variant, board, turn=turn, off=off, first_roll=(False, False))


# --- playouts: the plain game cut at its first bear-off -----------------------------------------------------


def stops(rows: Rows) -> npt.NDArray[np.bool_]:
    """Where a truncated game stops: an unfinished bear-off whose side to move is to roll (a pending list is
    played first: race values are those of a side about to roll)."""
    stop: npt.NDArray[np.bool_] = layout.is_bearoff(rows) & ~layout.is_over(rows) & (rows[:, layout.NPENDING] == 0)
    return stop


def cut(records: npt.NDArray[np.void], played: Trajectories) -> tuple[npt.NDArray[np.void], Trajectories]:
    """What a truncated playout must return, from the plain playout of the same games: each game cut at its
    first stop (:func:`stops`; :func:`cuts.cut`)."""
    bearoff = layout.is_bearoff(played.rows)
    # the vectorised coding against the per-state one
    assert bearoff.tolist() == [race.is_bearoff(layout.unpack(row)) for row in played.rows]
    return cuts.cut(records, played, lambda rows, plies: stops(rows))


def same_trajectories(a: Trajectories, b: Trajectories) -> bool:
    return all(np.array_equal(getattr(a, f), getattr(b, f)) for f in ("rows", "rolls", "offsets"))


def check_truncated(records: npt.NDArray[np.void], played: Trajectories) -> None:
    """The invariants of a truncated playout, from its own output."""
    assert set(records["winner"].tolist()) <= {TRUNCATED, -1, 0, 1}
    assert np.array_equal(np.diff(played.offsets), records["plies"].astype(np.int64) + 1)
    last = played.rows[played.offsets[1:] - 1]
    stopped = records["winner"] == TRUNCATED
    assert layout.is_bearoff(last[stopped]).all() and not layout.is_over(last[stopped]).any()
    assert (records["points"][stopped] == 0).all()
    assert layout.is_over(last[records["winner"] >= 0]).all()
    # no row before a game's last is a stop
    before = np.ones(len(played.rows), dtype=bool)
    before[played.offsets[1:] - 1] = False
    assert not (stops(played.rows) & before).any()


def play(
    impl: Any, start: object, games: int, seed: int, policy: object = "random", **options: Any
) -> tuple[npt.NDArray[np.void], Trajectories]:
    played: tuple[npt.NDArray[np.void], Trajectories] = impl.playout(
        start, games, seed=seed, policy=policy, trajectories=True, **options
    )
    return played


#: Games per case: the reference plays whole games in Python; crazy gulbar's ladders are the slowest to play.
GAMES = {"reference": 3, "core": 60}


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("impl", sorted(IMPLS))
@pytest.mark.parametrize("origin", ["start", "race"])
def test_a_truncated_playout_is_the_plain_one_cut_at_its_first_bearoff(
    impl: str, variant: str, origin: str
) -> None:
    games = GAMES[impl] // 3 if variant == "crazy" else GAMES[impl]
    start: object = variant if origin == "start" else race_rows(variant)
    plain_records, plain = play(IMPLS[impl], start, games, seed=5)
    assert not (plain_records["winner"] == TRUNCATED).any()
    expected_records, expected = cut(plain_records, plain)
    records, truncated = play(IMPLS[impl], start, games, seed=5, truncate="bearoff")
    check_truncated(records, truncated)
    assert np.array_equal(records, expected_records)
    assert same_trajectories(truncated, expected)
    assert (records["winner"] == TRUNCATED).any() or impl == "reference"
    if impl == "reference":  # the core plays the same games
        core_records, core_played = play(core, start, games, seed=5, truncate="bearoff")
        assert np.array_equal(core_records, records) and same_trajectories(core_played, truncated)


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_callable_policy_truncates_as_the_built_in_first_policy(variant: str) -> None:
    games = 4 if variant == "crazy" else 40  # the first child of a crazy gulbar ladder makes long games
    for start in (variant, race_rows(variant)):
        built_in = play(core, start, games, seed=8, policy="first", truncate="bearoff")
        check_truncated(*built_in)
        assert np.array_equal(built_in[0], cut(*play(core, start, games, seed=8, policy="first"))[0])
        for threads, batch in ((1, 1000), (2, 3)):
            called = play(
                core, start, games, seed=8, policy=first_child, truncate="bearoff", threads=threads, batch=batch
            )
            assert np.array_equal(called[0], built_in[0]) and same_trajectories(called[1], built_in[1])


@pytest.mark.parametrize("variant", ["long", "short", "gulbar"])
def test_the_references_callable_policy_truncates_as_its_first_policy(variant: str) -> None:
    rows = race_rows(variant)
    built_in = play(reference, rows, 4, seed=8, policy="first", truncate="bearoff")
    called = play(reference, rows, 4, seed=8, policy=first_child, truncate="bearoff", threads=2, batch=1)
    assert np.array_equal(called[0], built_in[0]) and same_trajectories(called[1], built_in[1])
    core_played = play(core, rows, 4, seed=8, policy="first", truncate="bearoff")
    assert np.array_equal(core_played[0], built_in[0]) and same_trajectories(core_played[1], built_in[1])


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("impl", sorted(IMPLS))
def test_a_bearoff_start_stops_at_once(impl: str, variant: str) -> None:
    rows = bearoff_rows(variant)
    position = IMPLS[impl].Position.from_array(rows[0])
    for start, count in ((rows, len(rows)), (position, 1)):
        for policy in ("random", "first", first_child):
            records, played = play(IMPLS[impl], start, 2 * count, seed=3, policy=policy, truncate="bearoff")
            assert records["winner"].tolist() == [TRUNCATED] * 2 * count
            assert not records["points"].any() and not records["plies"].any() and not records["turns"].any()
            assert records["start"].tolist() == [g % count for g in range(2 * count)]
            starts = rows if count > 1 else rows[:1]
            assert np.array_equal(played.rows, starts[np.arange(2 * count) % count])
            assert not played.rolls.any() and played.offsets.tolist() == list(range(2 * count + 1))
        # without trajectories, the same records
        assert np.array_equal(IMPLS[impl].playout(start, 2 * count, seed=3, truncate="bearoff"), records)


@pytest.mark.parametrize("impl", sorted(IMPLS))
def test_without_truncate_nothing_changes(impl: str) -> None:
    games = 3 if impl == "reference" else 50
    for start in ("gulbar", race_rows("short"), bearoff_rows("long")):
        plain = IMPLS[impl].playout(start, games, seed=2)
        assert np.array_equal(IMPLS[impl].playout(start, games, seed=2, truncate=None), plain)
        assert not (plain["winner"] == TRUNCATED).any()


@pytest.mark.parametrize("impl", sorted(IMPLS))
def test_without_truncate_no_ply_is_tested_for_the_bearoff(impl: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # the bear-off test is a fifth of a callable policy's playout: a playout that does not truncate needs none
    def refused(rows: object) -> object:
        raise AssertionError("a playout without truncate tested a row for the bear-off")

    starts = ("long", race_rows("short"))
    monkeypatch.setattr(layout, "is_bearoff", refused)
    games = 3 if impl == "reference" else 20
    for start in starts:
        called = IMPLS[impl].playout(start, games, seed=2, policy=first_child, batch=7)
        assert np.array_equal(called, IMPLS[impl].playout(start, games, seed=2, policy="first"))


# --- bad truncate values ------------------------------------------------------------------------------------


class Hostile:
    """A value whose comparisons and hash raise: never compared, only refused."""

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("compared")

    def __hash__(self) -> int:
        raise RuntimeError("hashed")

    def __repr__(self) -> str:
        return "<Hostile>"


BAD_TRUNCATE = [
    "race",
    "",
    "BEAROFF",
    "bearoff ",
    b"bearoff",
    1,
    0,
    True,
    False,
    2.5,
    ("bearoff",),
    ["bearoff"],
    {"bearoff"},
    np.array("bearoff"),
    np.array(["bearoff"]),
    Hostile(),
]


@pytest.mark.parametrize("value", BAD_TRUNCATE, ids=stable_repr)
def test_a_bad_truncate_is_named_the_same_everywhere(value: object) -> None:
    expected = f"truncate: must be None or one of ('bearoff',) (got {value!r})"
    for name, impl in IMPLS.items():
        position = impl.Position.from_array(race_rows("long")[0])
        calls: list[Callable[[], object]] = [
            lambda: impl.playout("long", 2, truncate=value),
            lambda: impl.playout("short", 2, policy=first_child, truncate=value),
            lambda: impl.playout(bearoff_rows("crazy"), 2, truncate=value),
            lambda: impl.rollout(position, 36, stratify=False, truncate=value),
        ]
        for index, call in enumerate(calls):
            with pytest.raises(NardyError) as caught:
                call()
            assert type(caught.value) is NardyError and str(caught.value) == expected, (name, index)


def test_a_numpy_string_is_a_string() -> None:
    rows = race_rows("sixone")
    plain = core.playout(rows, 20, truncate="bearoff")
    assert np.array_equal(core.playout(rows, 20, truncate=np.str_("bearoff")), plain)


# --- rollouts of bear-off positions: the race values exactly ------------------------------------------------


def race_outcomes(position: SharedPosition) -> dict[str, float]:
    """The six outcomes of a rollout (White's, then Black's) of ``position``'s race values."""
    values = position.race_probabilities()
    mover = [values.win_single, values.win_mars, 0.0]
    other = [values.lose_single, values.lose_mars, 0.0]
    white, black = (mover, other) if position.turn == "white" else (other, mover)
    return dict(zip(OUTCOMES, white + black))


def signed_values(turn: str) -> npt.NDArray[np.float64]:
    """The points each outcome is worth to ``turn``, in OUTCOMES order."""
    white = np.array([1.0, 2.0, 3.0, -1.0, -2.0, -3.0])
    return white if turn == "white" else -white


#: Small bear-offs (the reference builds their tables quickly): (White's counts, Black's counts, side to move).
SMALL_BEAROFFS = [
    ([1, 0, 2, 0, 0, 0], [0, 2, 0, 0, 1, 0], "white"),
    ([0, 0, 0, 0, 0, 3], [1, 1, 1, 0, 0, 0], "black"),
    ([0, 0, 0, 1, 0, 0], [0, 0, 0, 0, 0, 2], "white"),
]


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize(("white", "black", "turn"), SMALL_BEAROFFS)
def test_a_truncated_rollout_of_a_bearoff_is_its_race_values(
    variant: str, white: list[int], black: list[int], turn: str
) -> None:
    results = {}
    for name, impl in IMPLS.items():
        position = bearoff_position(impl.Position, variant, white, black, turn)
        assert position.is_bearoff()
        rollout = impl.rollout(position, 1296, seed=4, truncate="bearoff")
        results[name] = rollout
        expected = race_outcomes(position)
        assert rollout.games == rollout.truncated == 1296
        assert not any(rollout.counts) and not rollout.unfinished
        assert rollout.probabilities == pytest.approx(expected, abs=1e-12)
        equity = sum(v * expected[o] for v, o in zip(signed_values(turn), OUTCOMES))
        assert rollout.equity == pytest.approx(equity, abs=1e-12)
        # every game scores the same: no error, and nothing but rounding in the figures
        assert 0 <= rollout.equity_stderr < 1e-6
        assert all(0 <= e < 1e-6 for e in rollout.stderr.values())
    ref, fast = results["reference"], results["core"]
    assert (ref.counts, ref.truncated, ref.turn) == (fast.counts, fast.truncated, fast.turn)
    assert ref.race == pytest.approx(fast.race, rel=1e-12, abs=1e-12)
    assert ref.race_squares == pytest.approx(fast.race_squares, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("variant", ["long", "short", "gulbar"])
@pytest.mark.parametrize("turn", ["white", "black"])
@pytest.mark.parametrize("heavy", ["white", "black"])
def test_a_truncated_rollout_of_a_full_bearoff_counts_the_mars(variant: str, turn: str, heavy: str) -> None:
    # one side with all 15 checkers high in its home, the other with two: the one-sided tables, a mars possible
    few, full = [0, 0, 0, 0, 1, 1], [0, 0, 0, 0, 5, 10]
    white, black = (full, few) if heavy == "white" else (few, full)
    position = bearoff_position(core.Position, variant, white, black, turn)
    expected = race_outcomes(position)
    light = "black" if heavy == "white" else "white"
    assert 0 < expected[f"{light}_mars"] < 1 and expected[f"{heavy}_mars"] == 0
    rollout = core.rollout(position, 1296, truncate="bearoff", threads=2)
    assert rollout.truncated == 1296
    assert rollout.probabilities == pytest.approx(expected, abs=1e-12)
    assert 0 <= rollout.equity_stderr < 1e-6


# --- rollouts of races --------------------------------------------------------------------------------------


#: Small races (at most 3 checkers a side, not all home): the reference builds their tables quickly.
SMALL_RACES = {
    "long": "long w 2:1,5:1,9:1,14:-1,15:-1,20:-1 off=12/12 first=-",
    "sixone": "sixone b 2:1,8:1,9:1,13:-2,22:-1 off=12/12 first=-",
    "short": "short w 2:1,5:1,9:1,14:-1,20:-1,22:-1 off=12/12 first=-",
    "gulbar": "gulbar w 3:1,10:2,16:-1,19:-1,23:-1 off=12/12 first=-",
    "crazy": "crazy b 1:1,4:1,11:1,14:-2,21:-1 off=12/12 first=-",
}


def scored_by_position(
    impl: Any, text: str, games: int, seed: int, **options: Any
) -> tuple[npt.NDArray[np.float64], int]:
    """The sums over a truncated playout's stopped games of the six outcomes' probabilities, each from
    ``race_probabilities`` of its last position, and how many stopped."""
    records, played = play(impl, impl.Position.from_text(text), games, seed, truncate="bearoff", **options)
    last = played.rows[played.offsets[1:] - 1]
    sums = np.zeros(len(OUTCOMES))
    for row in last[records["winner"] == TRUNCATED]:
        sums += list(race_outcomes(impl.Position.from_array(row)).values())
    return sums, int(np.count_nonzero(records["winner"] == TRUNCATED))


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_truncated_race_rollout_agrees_across_implementations(variant: str) -> None:
    text = SMALL_RACES[variant]
    results = {}
    for name, impl in IMPLS.items():
        position = impl.Position.from_text(text)
        assert position.is_race() and not position.is_bearoff()
        rollout = impl.rollout(position, 48, seed=6, stratify=False, truncate="bearoff")
        plain = impl.rollout(position, 48, seed=6, stratify=False)
        sums, stopped = scored_by_position(impl, text, 48, 6, stratify=False)
        assert rollout.truncated == stopped > 0 and rollout.games == 48
        assert rollout.race == pytest.approx(tuple(sums), rel=1e-12, abs=1e-12)
        assert sum(rollout.race) == pytest.approx(stopped, abs=1e-9)
        # the games that ended before a bear-off ended as in the plain rollout
        assert all(t <= p for t, p in zip(rollout.counts, plain.counts))
        results[name] = rollout
    ref, fast = results["reference"], results["core"]
    fields = ("counts", "unfinished", "truncated", "turn")
    assert [getattr(ref, f) for f in fields] == [getattr(fast, f) for f in fields]
    assert ref.race == pytest.approx(fast.race, rel=1e-12, abs=1e-12)
    assert ref.race_squares == pytest.approx(fast.race_squares, rel=1e-12, abs=1e-12)
    assert ref.race_equity_squares == pytest.approx(fast.race_equity_squares, rel=1e-12, abs=1e-12)


#: Races with 13 checkers a side (both have borne off: no mars), each side's last checker still to come home:
#: their first bear-off positions are scored by the one-sided tables.
BIG_RACES = {
    "long": "long w 1:2,2:2,3:2,4:2,5:2,6:2,8:1,13:-2,14:-2,15:-2,16:-2,17:-2,18:-2,21:-1 off=2/2 first=-",
    "short": "short b 1:2,2:2,3:2,4:2,5:2,6:2,9:1,16:-1,19:-2,20:-2,21:-2,22:-2,23:-2,24:-2 off=2/2 first=-",
    "gulbar": "gulbar w 1:2,2:2,3:2,4:2,5:2,6:2,10:1,13:-2,14:-2,15:-2,16:-2,17:-2,18:-2,20:-1 off=2/2 first=-",
    "sixone": "sixone w 1:2,2:2,3:2,4:2,5:2,6:2,8:1,13:-2,14:-2,15:-2,16:-2,17:-2,18:-2,22:-1 off=2/2 first=-",
    "crazy": "crazy b 1:2,2:2,3:2,4:2,5:2,6:2,7:1,13:-2,14:-2,15:-2,16:-2,17:-2,18:-2,20:-1 off=2/2 first=-",
}


def table_policy(variant: str) -> Policy:
    """A callable policy that plays every bear-off as the one-sided table assumes (the least expected turns to
    bear off all, ties to the lower layout id) and anything else by its first child: with it, a stopped game's
    race value (win or lose, no mars here) is the expected outcome of playing the game on."""
    table = core.one_sided(variant)
    black_columns = [mover_point(variant, m) - 1 for m in range(1, 7)]

    def policy(children: Rows, offsets: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        board = children[:, layout.BOARD : layout.BOARD + 24].astype(np.int64)
        sides = [np.clip(board[:, :6], 0, None), np.clip(-board[:, black_columns], 0, None)]
        ids = [layout_ids(side) for side in sides]
        turns = [np.asarray(table.expected_turns(side), dtype=np.float64) for side in sides]
        starts = offsets[:-1]
        home = np.minimum.reduceat(layout.is_bearoff(children) | layout.is_over(children), starts)
        # the side that moved is the one whose layout differs between the children of a game
        white_moved = np.maximum.reduceat(ids[0], starts) != np.minimum.reduceat(ids[0], starts)
        segment = np.repeat(np.arange(len(starts)), np.diff(offsets))
        moved = white_moved[segment]
        key_turns = np.where(moved, turns[0], turns[1])
        key_ids = np.where(moved, ids[0], ids[1])
        order = np.lexsort((key_ids, key_turns, segment))
        firsts = order[np.searchsorted(segment[order], np.arange(len(starts)))]
        best = firsts - starts
        return np.where(home, best, 0).astype(np.int64)

    return policy


def outcome_for(turn: str, records: npt.NDArray[np.void]) -> npt.NDArray[np.float64]:
    """Each finished game's points for ``turn`` (0 for one not finished)."""
    side = 0 if turn == "white" else 1
    sign = np.where(records["winner"] == side, 1.0, -1.0)
    return np.where(records["winner"] >= 0, sign * records["points"], 0.0)


def check_paired(variant: str, games: int) -> None:
    text = BIG_RACES[variant]
    position = core.Position.from_text(text)
    assert position.is_race() and not position.is_bearoff()
    policy = table_policy(variant)
    plain_records = core.playout(position, games, seed=1, policy=policy, stratify=True, batch=games)
    records, played = play(
        core, position, games, seed=1, policy=policy, stratify=True, batch=games, truncate="bearoff"
    )
    stopped = records["winner"] == TRUNCATED
    assert stopped.mean() > 0.9
    # each stopped game's value for the side to move, from race_probabilities of its last row
    values = outcome_for(position.turn, records)
    last = played.rows[played.offsets[1:] - 1]
    for i in np.flatnonzero(stopped):
        at = core.Position.from_array(last[i])
        race_values = at.race_probabilities()
        assert not race_values.exact and race_values.win_mars == race_values.lose_mars == 0.0
        sign = 1.0 if at.turn == position.turn else -1.0
        values[i] = sign * (race_values.win_single - race_values.lose_single)
    plain_values = outcome_for(position.turn, plain_records)
    assert np.array_equal(plain_values[~stopped], values[~stopped])  # the same games up to the bear-off
    difference = plain_values - values
    error = difference.std(ddof=1) / math.sqrt(games)
    assert abs(difference.mean()) < 4.5 * error, (difference.mean(), error)
    # the rollouts count the same figures, and the truncated one is the more precise
    plain = core.rollout(position, games, seed=1, policy=policy, batch=games)
    truncated = core.rollout(position, games, seed=1, policy=policy, batch=games, truncate="bearoff")
    assert plain.equity == pytest.approx(plain_values.mean(), abs=1e-12)
    assert truncated.equity == pytest.approx(values.mean(), abs=1e-12)
    assert truncated.equity_stderr == pytest.approx(values.std(ddof=1) / math.sqrt(games), rel=1e-9)
    assert truncated.equity_stderr < 0.8 * plain.equity_stderr


@pytest.mark.parametrize("variant", ["long", "short", "gulbar"])
def test_a_truncated_rollout_expects_what_playing_on_scores(variant: str) -> None:
    check_paired(variant, 2592)


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["sixone", "crazy"])
def test_a_truncated_rollout_expects_what_playing_on_scores_in_more_variants(variant: str) -> None:
    check_paired(variant, 2592)


def test_random_play_of_the_bearoff_is_not_what_the_race_values_score() -> None:
    # the truncated equity is that of the best bear-off play (docs/rules.md, Truncated rollouts), not of random
    # play: far apart here, so a comparison with a plain random rollout would test nothing but noise
    position = core.Position.from_text(BIG_RACES["long"])
    plain = core.rollout(position, 5184)
    truncated = core.rollout(position, 5184, truncate="bearoff")
    assert abs(plain.equity - truncated.equity) > 3 * plain.equity_stderr
    assert truncated.equity_stderr < plain.equity_stderr


@pytest.mark.parametrize("variant", VARIANTS)
def test_truncated_rollouts_of_split_games_combine_into_the_whole(variant: str) -> None:
    position = core.Position.from_text(SMALL_RACES[variant])
    whole = core.rollout(position, 2592, seed=3, truncate="bearoff")
    bounds = [0, 1, 700, 1296, 2592]
    parts = [
        core.IMPLEMENTATION_RECORD.roll_out(
            position, end - begin, 3, rollout_options(first_game=begin, truncate="bearoff")
        )
        for begin, end in itertools.pairwise(bounds)
    ]
    combined = Rollout.combine(parts)
    fields = ("counts", "unfinished", "truncated")
    assert [getattr(combined, f) for f in fields] == [getattr(whole, f) for f in fields]
    # sums of some thousand terms, added in another order: equal to rounding
    assert combined.race == pytest.approx(whole.race, rel=1e-12, abs=1e-12)
    assert combined.race_squares == pytest.approx(whole.race_squares, rel=1e-12, abs=1e-12)
    assert combined.race_equity_squares == pytest.approx(whole.race_equity_squares, rel=1e-12, abs=1e-12)
    assert combined.equity == pytest.approx(whole.equity, abs=1e-12)
    assert combined.equity_stderr == pytest.approx(whole.equity_stderr, abs=1e-12)
    for threads, policy in ((2, "random"), (3, "random"), (1, first_child), (2, first_child)):
        built_in = "first" if callable(policy) else "random"
        base = core.rollout(position, 1296, seed=3, truncate="bearoff", policy=built_in)
        other = core.rollout(position, 1296, seed=3, truncate="bearoff", threads=threads, policy=policy, batch=100)
        assert other == base, (threads, policy)


@pytest.mark.parametrize("impl", sorted(IMPLS))
def test_a_pending_list_is_played_before_the_race_values_score(impl: str) -> None:
    # White must first play a pending 1 (6/5 or 5/4) and then rolls: the race values of the position as if it
    # simply rolled would give White a step for nothing. With policy "first" the game plays the first legal
    # move and stops at the bear-off after it.
    Position = IMPLS[impl].Position
    position = Position.from_text("gulbar w 5:1,6:1,13:-1,14:-1 off=13/13 first=- pending=1")
    assert position.is_bearoff() and position.pending == (1,)
    after = position.legal_moves()[0].result
    assert after.turn == "white" and not after.pending
    rollout = IMPLS[impl].rollout(position, 36, policy="first", stratify=False, truncate="bearoff")
    assert rollout.probabilities == pytest.approx(race_outcomes(after), abs=1e-12)
    records = IMPLS[impl].playout(position, 4, policy="first", truncate="bearoff")
    assert records["plies"].tolist() == [1] * 4


# --- Rollout's fields ---------------------------------------------------------------------------------------


def make(**fields: Any) -> Rollout:
    base: dict[str, Any] = {"counts": (1, 0, 0, 0, 0, 0), "unfinished": 0, "turn": "white"}
    return Rollout(**{**base, **fields})


ZEROS = (0.0,) * 6
ONE = (1, 0, 0, 0, 0, 0)


@pytest.mark.parametrize(
    ("fields", "name", "problem"),
    [
        ({"truncated": -1}, "truncated", "must be an integer >= 0"),
        ({"truncated": True}, "truncated", "must be an integer >= 0"),
        ({"truncated": 1.0}, "truncated", "must be an integer >= 0"),
        ({"truncated": "1"}, "truncated", "must be an integer >= 0"),
        ({"truncated": None}, "truncated", "must be an integer >= 0"),
        ({"truncated": 1, "race": (1.0,) * 5}, "race", "must be 6 finite numbers"),
        ({"truncated": 1, "race": (1.0,) * 7}, "race", "must be 6 finite numbers"),
        ({"truncated": 1, "race": (True, 0, 0, 0, 0, 0)}, "race", "must be 6 finite numbers"),
        ({"truncated": 1, "race": ("1", 0, 0, 0, 0, 0)}, "race", "must be 6 finite numbers"),
        ({"truncated": 1, "race": "abcdef"}, "race", "must be 6 finite numbers"),
        ({"truncated": 1, "race": 1.0}, "race", "must be 6 finite numbers"),
        ({"truncated": 1, "race": np.ones((2, 3)) / 6}, "race", "must be 6 finite numbers"),
        ({"truncated": 1, "race": (math.nan, 1, 0, 0, 0, 0)}, "race", "must be finite numbers 0..1"),
        ({"truncated": 1, "race": (math.inf, 0, 0, 0, 0, 0)}, "race", "must be finite numbers 0..1"),
        ({"truncated": 1, "race": (-0.5, 1.5, 0, 0, 0, 0)}, "race", "must be finite numbers 0..1"),
        ({"truncated": 2, "race": (3.0, 0, 0, 0, 0, 0)}, "race", "must be finite numbers 0..2"),
        ({"race": (0.5, 0.5, 0, 0, 0, 0)}, "race", "must be finite numbers 0..0"),
        ({"truncated": 1, "race": ONE, "race_squares": (1,) * 5}, "race_squares", "must be 6 finite numbers"),
        (
            {"truncated": 1, "race": ONE, "race_squares": (2, 0, 0, 0, 0, 0)},
            "race_squares",
            "must be finite numbers 0..1",
        ),
        ({"race_squares": (math.nan,) + ZEROS[1:]}, "race_squares", "must be finite numbers 0..0"),
    ],
)
def test_bad_truncated_fields_are_named(fields: dict[str, Any], name: str, problem: str) -> None:
    with pytest.raises(NardyError) as caught:
        make(**fields)
    assert str(caught.value) == f"{name}: {problem} (got {fields[name]!r})"


@pytest.mark.parametrize("value", [-1.0, math.nan, math.inf, 10.0, True, "1", (1.0,), None])
def test_a_bad_race_equity_squares_is_named_and_quoted_as_given(value: object) -> None:
    # one number, quoted as given (not wrapped in a tuple); a truncated game scores at most 3 points, so 9 a game
    with pytest.raises(NardyError) as caught:
        make(truncated=1, race=ONE, race_squares=ONE, race_equity_squares=value)
    message = str(caught.value)
    assert message.startswith("race_equity_squares: ") and message.endswith(f"(got {value!r})"), message


@pytest.mark.parametrize(
    ("fields", "name"),
    [
        # every stopped game's probabilities add up to 1, so the race sums add up to the games stopped
        ({"truncated": 2, "race": (0.5, 0, 0, 0, 0, 0), "race_squares": (0.25, 0, 0, 0, 0, 0)}, "race"),
        ({"truncated": 1, "race": ZEROS, "race_squares": ZEROS}, "race"),
        # p * p <= p for a probability: a sum of squares is at most the sum
        ({"truncated": 2, "race": (1, 1, 0, 0, 0, 0), "race_squares": (2, 0, 0, 0, 0, 0)}, "race_squares"),
    ],
)
def test_race_sums_that_no_games_could_give_are_refused(fields: dict[str, Any], name: str) -> None:
    with pytest.raises(NardyError, match=f"^{name}: "):
        make(**fields)


def test_the_figures_of_a_small_truncated_rollout_by_hand() -> None:
    # one game White won, one stopped at a bear-off where White wins or loses a single game half the time each
    rollout = make(
        truncated=1,
        race=(0.5, 0, 0, 0.5, 0, 0),
        race_squares=(0.25, 0, 0, 0.25, 0, 0),
        race_equity_squares=0.0,
    )
    assert rollout.games == 2
    assert rollout.probabilities["white_single"] == 0.75 and rollout.probabilities["black_single"] == 0.25
    # values 1 and 0.5: mean 0.75, sample variance 0.125, error sqrt(0.125 / 2)
    assert rollout.stderr["white_single"] == pytest.approx(0.25)
    assert rollout.stderr["black_single"] == pytest.approx(0.25)
    # equities 1 and 0: mean 0.5, sample variance 0.5, error 0.5
    assert rollout.equity == 0.5 and rollout.equity_stderr == pytest.approx(0.5)
    # Black to move, two stopped games: a White mars or a Black single game half the time each (Black's equity
    # -2 * 0.5 + 0.5 = -0.5), and a sure Black single game (+1): mean 0.25, deviations 0.75, sample variance
    # 1.125, error sqrt(1.125 / 2) = 0.75
    black = Rollout((0,) * 6, 0, "black", 2, (0, 0.5, 0, 1.5, 0, 0), (0, 0.25, 0, 1.25, 0, 0), 0.25 + 1.0)
    assert black.probabilities["white_mars"] == 0.25 and black.probabilities["black_single"] == 0.75
    assert black.equity == pytest.approx(0.25) and black.equity_stderr == pytest.approx(0.75)
    same = make(truncated=1, race=np.array([0.5, 0, 0, 0.5, 0, 0]), race_squares=[0.25, 0, 0, 0.25, 0, 0])
    assert same == rollout


def test_str_names_the_truncated_games() -> None:
    position = bearoff_position(core.Position, "long", [1, 0, 2, 0, 0, 0], [0, 2, 0, 0, 1, 0])
    text = str(core.rollout(position, 36, stratify=False, truncate="bearoff"))
    assert "\n  truncated     36 " in text
    plain = str(core.rollout(position, 36, stratify=False))
    assert "truncated" not in plain


# --- Dask ---------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    pytest.importorskip("distributed", reason="Dask's distributed scheduler (the dask extra) is absent")
    from distributed import Client, LocalCluster  # type: ignore[import-not-found, unused-ignore]

    with (
        LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None) as cluster,  # type: ignore[no-untyped-call, unused-ignore]
        Client(cluster) as connected,  # type: ignore[no-untyped-call, unused-ignore]
    ):
        yield connected


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["long", "short"])
def test_a_sharded_truncated_rollout_equals_one_process(client: Any, variant: str) -> None:
    from nardy_fast import distributed as nd

    position = core.Position.from_text(SMALL_RACES[variant])
    with pytest.raises(NardyError, match=r"^truncate: must be None or one of \('bearoff',\) \(got 'race'\)$"):
        nd.rollout(client, position, 1296, truncate="race")
    local = core.rollout(position, 1296, seed=9, truncate="bearoff")
    sharded = nd.rollout(client, position, 1296, seed=9, shards=5, truncate="bearoff")
    fields = ("counts", "unfinished", "truncated")
    assert [getattr(sharded, f) for f in fields] == [getattr(local, f) for f in fields]
    assert sharded.race == pytest.approx(local.race, rel=1e-12, abs=1e-12)
    assert sharded.race_squares == pytest.approx(local.race_squares, rel=1e-12, abs=1e-12)
    assert sharded.equity == pytest.approx(local.equity, abs=1e-12)
