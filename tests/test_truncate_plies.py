"""Playouts and rollouts truncated after a number of plies (``truncate_plies``; GNU Backgammon's truncated
rollouts; docs/rules.md, Truncated rollouts), in both implementations.

* playouts: a game's dice and choices depend only on ``(seed, game, ply)``, so a game truncated after ``N``
  plies must be the plain game (the same call without it) cut at its first unfinished row with no pending
  list after at least ``N`` plies; the records (winner -2, points 0, plies, turns) follow from the cut by hand.
  Every variant, the reference and the core (its C loop for built-in policies, the lock-step loop for a
  callable one, which must equal ``policy="first"``), with ``truncate="bearoff"`` as well (the first of the
  two stops); bad values are the same error everywhere;
* rollouts: one ply with stratified first rolls is, by the rules, the mean over the 36 rolls of the best
  move's 0-ply equity (``Position.hint``); a rollout's figures are those of its playout's last rows valued by
  the policy's evaluator (``nardy_fast.evaluate``, ``nardy_fast.equity``), the finished games by their points;
  reference and core agree, splits combine exactly, and a policy without an evaluator, the cube, or a bad
  value is refused with a ``NardyError`` naming ``truncate_plies``;
* the command line's ``rollout --truncate-plies``;
* Dask (slow): a sharded truncated rollout equals one process.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from functools import cache
from typing import Any

import cuts
import numpy as np
import numpy.typing as npt
import pytest
from ids import stable_repr

import nardy_fast
from nardy_fast import Cube, Greedy, layout, reference
from nardy_fast.__main__ import main as cli_main
from nardy_fast.analysis import AnalysedPosition as SharedPosition
from nardy_fast.corpus import load as load_corpus
from nardy_fast.errors import NardyError, NardyWarning
from nardy_fast.playouts import TRUNCATED, Trajectories
from nardy_fast.rollouts import Rollout
from nardy_fast.turns import MAX_PLIES
from nardy_fast.variants import VARIANTS

core = pytest.importorskip("nardy_fast.core", reason="the compiled core is not built")

IMPLS = {"reference": reference, "core": core}
Rows = npt.NDArray[np.int8]


def first_child(children: Rows, offsets: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """A callable policy that plays as ``policy="first"`` does: the first child of every game."""
    return np.zeros(len(offsets) - 1, dtype=np.int64)


def play(impl: Any, start: object, games: int, seed: int, policy: object = "random", **options: Any
         ) -> tuple[npt.NDArray[np.void], Trajectories]:
    played: tuple[npt.NDArray[np.void], Trajectories] = impl.playout(
        start, games, seed=seed, policy=policy, trajectories=True, **options
    )
    return played


def cut(records: npt.NDArray[np.void], played: Trajectories, plies: int, bearoff: bool = False
        ) -> tuple[npt.NDArray[np.void], Trajectories]:
    """What a playout truncated after ``plies`` plies (and at the bear-off, with ``bearoff``) must return, from
    the plain playout of the same games: each game cut at its first unfinished row with no pending list that
    is ``plies`` plies in or more (or, with ``bearoff``, a bear-off row)."""

    def stops(rows: Rows, played_plies: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
        rolling = ~layout.is_over(rows) & (rows[:, layout.NPENDING] == 0)
        stop: npt.NDArray[np.bool_] = rolling & ((played_plies >= plies) | (bearoff & layout.is_bearoff(rows)))
        return stop

    return cuts.cut(records, played, stops)


def same(a: tuple[npt.NDArray[np.void], Trajectories], b: tuple[npt.NDArray[np.void], Trajectories]) -> bool:
    return np.array_equal(a[0], b[0]) and all(
        np.array_equal(getattr(a[1], f), getattr(b[1], f)) for f in ("rows", "rolls", "offsets")
    )


# --- playouts -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("plies", [1, 5, 40])
def test_a_game_truncated_after_n_plies_is_the_plain_one_cut(variant: str, plies: int) -> None:
    games = 8 if variant == "crazy" else 40
    for policy in ("random", Greedy("heuristic")):
        plain = play(core, variant, games, seed=5, policy=policy)
        assert not (plain[0]["winner"] == TRUNCATED).any()
        truncated = play(core, variant, games, seed=5, policy=policy, truncate_plies=plies)
        assert same(truncated, cut(*plain, plies))
        assert (truncated[0]["winner"] == TRUNCATED).any()
        both = play(core, variant, games, seed=5, policy=policy, truncate_plies=plies, truncate="bearoff")
        assert same(both, cut(*plain, plies, bearoff=True))
        # without trajectories, the same records
        records = core.playout(variant, games, seed=5, policy=policy, truncate_plies=plies)
        assert np.array_equal(records, truncated[0])


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_reference_truncates_as_the_core(variant: str) -> None:
    for policy in ("random", "first"):
        for options in ({"truncate_plies": 6}, {"truncate_plies": 9, "truncate": "bearoff"}):
            expected = play(core, variant, 3, seed=4, policy=policy, **options)
            assert same(play(reference, variant, 3, seed=4, policy=policy, **options), expected)
            called = play(reference, variant, 3, seed=4, policy=first_child, batch=2, **options)
            assert policy != "first" or same(called, expected)


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_callable_policy_truncates_as_the_built_in_first_policy(variant: str) -> None:
    games = 4 if variant == "crazy" else 30
    built_in = play(core, variant, games, seed=8, policy="first", truncate_plies=7)
    assert same(built_in, cut(*play(core, variant, games, seed=8, policy="first"), 7))
    for threads, batch in ((1, 1000), (2, 3)):
        called = play(core, variant, games, seed=8, policy=first_child, truncate_plies=7, threads=threads,
                      batch=batch)
        assert same(called, built_in)


def test_a_pending_list_is_played_before_a_game_stops() -> None:
    # gulbar's transfers leave the mover with a pending list: such a row is never where a game stops, and a
    # game whose Nth ply leaves one plays it first
    for plies in range(1, 40):
        records, played = play(core, "gulbar", 100, seed=2, truncate_plies=plies)
        last = played.rows[played.offsets[1:] - 1]
        stopped = records["winner"] == TRUNCATED
        assert not last[stopped, layout.NPENDING].any() and (records["plies"][stopped] >= plies).all()
        if (records["plies"][stopped] > plies).any():
            return
    raise AssertionError("no gulbar game had a pending list at its truncation")


BAD_PLIES = [0, -1, MAX_PLIES, 1 << 40, 2.0, 2.5, True, False, "3", b"3", np.array([3]), [3], np.float64(3.0)]


@pytest.mark.parametrize("value", BAD_PLIES, ids=stable_repr)
def test_a_bad_truncate_plies_is_named_the_same_everywhere(value: object) -> None:
    expected = f"truncate_plies: must be None or an integer 1..{MAX_PLIES - 1} (got {value!r})"
    position = nardy_fast.Position.start("short")
    calls: list[Callable[[Any], object]] = [
        lambda impl: impl.playout("short", 2, truncate_plies=value),
        lambda impl: impl.playout("short", 2, policy=first_child, truncate_plies=value),
        lambda impl: impl.rollout(impl.Position.start("short"), 36, policy=Greedy("heuristic"),
                                  truncate_plies=value, stratify=False),
    ]
    for impl in (reference, core, nardy_fast):
        for call in calls:
            with pytest.raises(NardyError) as caught:
                call(impl)
            assert str(caught.value) == expected
    assert position.turn == "white"


def test_integers_of_numpy_are_plies() -> None:
    for value in (np.int8(4), np.int64(4), np.uint16(4)):
        assert np.array_equal(core.playout("long", 5, seed=1, truncate_plies=value),
                              core.playout("long", 5, seed=1, truncate_plies=4))


def test_a_hand_made_playout_of_the_core_checks_its_plies() -> None:
    from nardy_fast.kernels import StopFlag  # noqa: F401 - the type of the stop flag
    from nardy_fast.playouts import PlayoutOptions, bound, check_playout

    args = bound(core.IMPLEMENTATION_RECORD.kernels, check_playout("short", 2, 1, PlayoutOptions()))
    for value in (-1, MAX_PLIES, 1 << 40):
        with pytest.raises((NardyError, OverflowError)) as caught:
            core.IMPLEMENTATION_RECORD.kernels.playout(args._replace(truncate_plies=value))
        assert "truncate_plies" in str(caught.value) or isinstance(caught.value, OverflowError)


# --- rollouts -----------------------------------------------------------------------------------------------


@cache
def corpus_position(variant: str, index: int) -> Rows:
    """A row of the variant's shipped corpus in contact, nothing borne off and no pending list (so that games
    from it last longer than a few plies): the first such at or after ``index``."""
    rows, _ = load_corpus(variant)
    fit = (~layout.is_race(rows) & (rows[:, layout.OFF] == 0) & (rows[:, layout.OFF + 1] == 0)
           & (rows[:, layout.NPENDING] == 0))
    row: Rows = rows[index + int(np.argmax(fit[index:]))]
    assert fit[index:].any()
    return row


@pytest.mark.parametrize(("impl", "variant"), [("core", "short"), ("core", "long"), ("reference", "short")])
def test_one_ply_over_stratified_rolls_is_the_one_ply_value(impl: str, variant: str) -> None:
    # the mover plays each of the 36 first rolls (36 times each in 1,296 stratified games) by the evaluator's
    # 0-ply choice, and the game stops: the rollout's equity is the mean best 0-ply equity over the rolls
    position = IMPLS[impl].Position.from_array(corpus_position(variant, 123))
    assert not position.pending
    rolled = IMPLS[impl].rollout(position, 1296, seed=1, policy=Greedy("heuristic"), truncate_plies=1)
    assert rolled.truncated + sum(rolled.counts) == 1296 and rolled.truncated > 0
    best = [position.hint((a, b), evaluator="heuristic")[0][1] for a in range(1, 7) for b in range(1, 7)]
    assert rolled.equity == pytest.approx(float(np.mean(best)), abs=1e-12)


def by_hand(impl: Any, position: SharedPosition, games: int, seed: int, evaluator: Any, **options: Any) -> float:
    """The equity of a truncated rollout from its playout: each game's points, or its last row's equity by the
    evaluator (for that row's side to move), for the side to move of ``position``."""
    records, played = play(impl, position, games, seed, Greedy(evaluator), **options)
    last = played.rows[played.offsets[1:] - 1]
    total = 0.0
    for record, row in zip(records, last):
        if record["winner"] >= 0:
            won = int(record["winner"]) == (0 if position.turn == "white" else 1)
            total += float(record["points"]) * (1 if won else -1)
        else:
            assert record["winner"] == TRUNCATED
            value = float(nardy_fast.equity(nardy_fast.evaluate(row[None, :], evaluator))[0])
            total += value if int(row[layout.TURN]) == (0 if position.turn == "white" else 1) else -value
    return total / games


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_truncated_rollout_scores_its_last_rows_by_the_evaluator(variant: str) -> None:
    position = core.Position.from_array(corpus_position(variant, 77))
    for plies in (2, 9):
        rolled = core.rollout(position, 60, seed=3, policy=Greedy("heuristic"), truncate_plies=plies,
                              stratify=False)
        assert rolled.truncated > 0 and rolled.games == 60
        expected = by_hand(core, position, 60, 3, "heuristic", truncate_plies=plies, stratify=False)
        assert rolled.equity == pytest.approx(expected, abs=1e-9)


class Pips:
    """A Python evaluator: the side to move wins by its share of the pips left (no mars, no koks)."""

    def evaluate(self, rows: Rows) -> npt.NDArray[np.float64]:
        pips = np.array([core.Position.from_array(row).pips() for row in rows], dtype=np.float64)  # White, Black
        turn = rows[:, layout.TURN].astype(np.int64)
        mine, theirs = pips[np.arange(len(rows)), turn], pips[np.arange(len(rows)), 1 - turn]
        out = np.zeros((len(rows), 5))
        out[:, 0] = theirs / (mine + theirs)
        return out


@pytest.mark.parametrize("impl", sorted(IMPLS))
def test_a_python_evaluator_scores_the_stopped_games(impl: str) -> None:
    position = IMPLS[impl].Position.from_array(corpus_position("long", 30))
    rolled = IMPLS[impl].rollout(position, 8, seed=1, policy=Greedy(Pips()), truncate_plies=4, stratify=False)
    assert rolled.truncated == 8 and rolled.race[1:3] == (0.0, 0.0) and rolled.race[4:] == (0.0, 0.0)
    assert rolled.equity == pytest.approx(by_hand(IMPLS[impl], position, 8, 1, Pips(), truncate_plies=4,
                                                  stratify=False), abs=1e-12)


@pytest.mark.parametrize("variant", ["short", "sixone", "gulbar"])
def test_a_truncated_rollout_agrees_across_implementations(variant: str) -> None:
    row = corpus_position(variant, 40)
    for options in ({"truncate_plies": 3}, {"truncate_plies": 5, "truncate": "bearoff"}):
        rollouts = [
            impl.rollout(impl.Position.from_array(row), 12, seed=6, policy=Greedy("net"), stratify=False, **options)
            for impl in (reference, core)
        ]
        assert rollouts[0] == rollouts[1]


def test_truncated_rollouts_of_split_games_combine_into_the_whole() -> None:
    position = core.Position.from_array(corpus_position("long", 5))
    options: dict[str, Any] = {"seed": 2, "policy": Greedy("heuristic"), "truncate_plies": 4}
    whole = core.rollout(position, 1296, **options)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NardyWarning)  # a third of the stratified cycle each: balanced together
        parts = [core.rollout(position, 432, first_game=g, **options) for g in (0, 432, 864)]
    combined = Rollout.combine(parts)
    assert combined.counts == whole.counts and combined.truncated == whole.truncated
    assert combined.equity == pytest.approx(whole.equity, abs=1e-12)
    assert core.rollout(position, 1296, threads=2, **options) == whole


def test_a_policy_without_an_evaluator_cannot_score_a_stopped_game() -> None:
    expected = ("truncate_plies: scores a stopped game by the policy's evaluator: the policy must be a Greedy "
                "(got 4)")
    for impl in (reference, core):
        position = impl.Position.from_array(corpus_position("short", 9))
        for policy in ("random", "first", first_child):
            with pytest.raises(NardyError) as caught:
                impl.rollout(position, 36, policy=policy, truncate_plies=4, stratify=False)
            assert str(caught.value) == expected
        # a playout has no scores to give: it stops the games with any policy
        assert (impl.playout(position, 2, policy="random", truncate_plies=1)["winner"] == TRUNCATED).all()


def test_the_cube_plays_whole_games() -> None:
    for impl in (reference, core):
        position = impl.Position.from_array(corpus_position("short", 9))
        with pytest.raises(NardyError, match=r"^truncate_plies: a cubeful rollout plays whole games"):
            impl.rollout(position, 36, policy=Greedy("heuristic"), truncate_plies=4, cube=Cube(), stratify=False)
        with pytest.raises(NardyError, match=r"^truncate_plies: a playout with the cube plays whole games"):
            impl.playout("short", 2, truncate_plies=4, cube=True)


# --- the command line ---------------------------------------------------------------------------------------


def test_the_command_line_rolls_out_truncated(capsys: pytest.CaptureFixture[str]) -> None:
    position = nardy_fast.Position.from_array(corpus_position("long", 5))
    argv = ["rollout", "--position", position.to_text(), "--games", "1296", "--policy", "heuristic",
            "--truncate-plies", "4", "--seed", "2"]
    assert cli_main(argv) == 0
    out = capsys.readouterr().out
    expected = nardy_fast.rollout(position, 1296, seed=2, policy=Greedy("heuristic"), truncate_plies=4)
    assert "truncated after 4 plies" in out and "with --truncate-plies N after N plies" in out
    assert f"{expected.equity:+.5f} points per game" in out
    for bad in ("0", "x", str(MAX_PLIES)):
        assert cli_main([*argv[:-4], "--truncate-plies", bad]) == 2
        assert f"--truncate-plies: must be an integer 1..{MAX_PLIES - 1} (got '{bad}')" in capsys.readouterr().err
    assert cli_main(["rollout", "--position", position.to_text(), "--truncate-plies", "4"]) == 2
    assert "--truncate-plies: scores the stopped games by an evaluator --policy, not random" in capsys.readouterr().err


# --- Dask ---------------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_sharded_rollout_truncated_after_n_plies_equals_one_process() -> None:
    pytest.importorskip("distributed", reason="Dask's distributed scheduler (the dask extra) is absent")
    from distributed import Client, LocalCluster  # type: ignore[import-not-found, unused-ignore]

    from nardy_fast import distributed as nd

    position = core.Position.from_array(corpus_position("long", 5))
    with (
        LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None) as cluster,  # type: ignore[no-untyped-call, unused-ignore]
        Client(cluster) as client,  # type: ignore[no-untyped-call, unused-ignore]
    ):
        with pytest.raises(NardyError, match=r"^truncate_plies: scores a stopped game by the policy's evaluator"):
            nd.rollout(client, position, 1296, truncate_plies=3)
        with pytest.raises(NardyError, match=r"^truncate_plies: a cubeful rollout plays whole games"):
            nd.rollout(client, position, 1296, policy=Greedy("heuristic"), truncate_plies=3, cube=Cube())
        options: dict[str, Any] = {"seed": 9, "policy": Greedy("heuristic"), "truncate_plies": 5}
        local = core.rollout(position, 1296, **options)
        sharded = nd.rollout(client, position, 1296, shards=5, **options)
    assert (sharded.counts, sharded.truncated) == (local.counts, local.truncated)
    assert sharded.race == pytest.approx(local.race, rel=1e-12, abs=1e-12)
    assert sharded.equity == pytest.approx(local.equity, abs=1e-12)
