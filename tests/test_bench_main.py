"""The main job (``python -m nardy_fast bench``) and its measuring helpers: what it prints, that every
measurement counts what it claims, and that GNU Backgammon's game loop plays legal whole games."""

from __future__ import annotations

import argparse
import math
import random
import re
import time
from collections.abc import Sequence

import numpy as np
import pytest

import nardy_fast
import nardy_fast.bench.cli as bench_cli
import nardy_fast.bench.games as bench_games
import nardy_fast.bench.peers as bench_peers
import nardy_fast.bench.verdicts as bench_verdicts
from nardy_fast import bench, corpus
from nardy_fast.position import Position
from nardy_fast.variants import VARIANTS

CORE = nardy_fast.IMPLEMENTATION == "cython"
#: A progress line: percent done, time elapsed, time left, then the step.
PROGRESS = re.compile(r"^\[ *\d{1,2}% \d+:\d\d, about \d+:\d\d left\] \S")
POSITION_APIS = ["reference legal_moves"] + (
    [
        "core legal_moves",
        "core children (per position)",
        "core batch_children",
        "core batch_children, 2 threads",
        "core batch_children, 2 processes",
    ]
    if CORE
    else []
)


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    return parser.parse_args(argv)


def test_bench_prints_every_variant_the_legend_and_progress(capsys: pytest.CaptureFixture[str]) -> None:
    args = parse("--size", "30", "--reference-size", "10", "--repeats", "1", "--games", "40")
    args.gnubg_games, args.reference_games = 3, 1
    assert bench.command(args) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines[0].startswith(
        f"nardy_fast bench: implementation {nardy_fast.IMPLEMENTATION}; 30 corpus positions"
    )
    for term in (
        "on, games",
        "positions/s",
        "plays/s",
        "games/s",
        "ratio",
        "2 threads",
        "2 processes",
        "CPU/position",
        "top 1%",
    ):
        assert any(line.startswith(f"  {term}") for line in lines), term
    assert "how far this machine lets two workers scale right now" in out
    for variant in VARIANTS:
        rows = [line.split() for line in lines if line.split()[:1] == [variant]]
        # the header line of the variant: its positions, children and the share of the top 1%
        assert rows[0][1:3] == ["30", "positions,"], rows[0]
        assert "top" in rows[0] and any(word.endswith("%") for word in rows[0])
        for api in POSITION_APIS:
            measured = [row for row in rows if " ".join(row[1:]).startswith(api + " ")]
            # the reference and the core's legal_moves on the first 10, every API on all 30
            on = {int(row[len(api.split()) + 1].replace(",", "")) for row in measured}
            assert on == (
                {10} if api == "reference legal_moves" else {10, 30} if api == "core legal_moves" else {30}
            )
        if CORE:
            assert any(line.endswith("x reference") for line in map(" ".join, rows)), variant
            assert any("x 1 thread (CPU/position" in " ".join(row) for row in rows), variant
    games = out[out.index("\ngames:") :]
    if CORE:
        for label in (
            "core playout short ",
            "core playout long ",
            "2 threads",
            "2 processes",
            "NumPy policy",
        ):
            assert label in games, label
        assert "x short (target >= 1x)" in games and "x reference" in games
    assert "reference playout short" in games
    # progress: each variant and measurement, n of m, after the percent done and the time elapsed and left
    for number, variant in enumerate(VARIANTS, 1):
        assert f"bench positions, {variant} ({number}/{len(VARIANTS)} variants), repeat 1/1, 1/" in err, (
            variant
        )
    assert re.search(r"bench games, repeat 1/1, \d+/\d+: reference playout short", err)
    assert err.splitlines() and all(PROGRESS.match(line) for line in err.splitlines()), err[:500]
    # each section's verdicts after its table, one line per comparison
    verdicts = out[out.index("\nverdicts, positions:") : out.index("\ngames:")]
    if CORE:
        assert "legal_moves, core / reference on the same positions: " in verdicts
        for variant in VARIANTS:
            assert f"  {variant}, batch_children on 2 threads: " in verdicts, variant
        games_verdicts = out[out.index("\nverdicts, games:") :]
        for line in (
            "short games/s, core playout / reference playout: ",
            "games/s, long / short (core playout): ",
            "time per game, NumPy policy / built-in random: ",
            "short games, playout on 2 threads: ",
        ):
            assert f"\n  {line}" in games_verdicts, line
        assert "short games/s, core playout / GNU Backgammon's Python loop: " in games_verdicts
    else:
        # the reference alone: no core to compare it with, and each section's verdicts say so, alone
        assert verdicts.strip().splitlines()[1:] == [
            "  the compiled core is not in use: only the reference was measured"
        ]
        assert out[out.index("\nverdicts, games:") :].strip().splitlines()[1:] == [
            "  the compiled core is not in use: only the reference's games were measured"
        ]


def settings_of(monkeypatch: pytest.MonkeyPatch, *argv: str) -> dict[str, object]:
    """What ``bench.command`` passes to ``main`` for ``argv`` (nothing runs)."""
    given: dict[str, object] = {}

    def main(size: int, reference_size: object, repeats: int, **kwargs: object) -> int:
        given.update(size=size, reference_size=reference_size, repeats=repeats, **kwargs)
        return 0

    monkeypatch.setattr(bench_cli, "main", main)
    assert bench.command(parse(*argv)) == 0
    return given


def test_the_defaults_and_the_long_run(monkeypatch: pytest.MonkeyPatch) -> None:
    default = settings_of(monkeypatch)
    assert (default["size"], default["reference_size"], default["repeats"], default["games"]) == (
        bench.DEFAULT_SIZE,
        bench.DEFAULT_REFERENCE_SIZE,
        bench.DEFAULT_REPEATS,
        bench.DEFAULT_GAMES,
    )
    assert default["reference_games"] == bench.DEFAULT_REFERENCE_GAMES
    # --long: the earlier defaults (the reference on every position: None), an option given still wins
    assert {k: v for k, v in settings_of(monkeypatch, "--long").items() if k in bench.LONG_RUN} == bench.LONG_RUN
    mixed = settings_of(monkeypatch, "--long", "--games", "7", "--reference-size", "50")
    assert (mixed["games"], mixed["reference_size"], mixed["repeats"]) == (7, 50, bench.LONG_RUN["repeats"])


def test_options_are_checked() -> None:
    for argv in (["--size", "0"], ["--size", str(corpus.SIZE + 1)], ["--repeats", "x"], ["--games", "0"]):
        with pytest.raises(SystemExit):
            parse(*argv)
    with pytest.raises(nardy_fast.NardyError, match="size"):
        bench.main(0)


def test_speedup_is_the_median_of_ratios_within_repeats() -> None:
    fast = bench.Measure("fast", 10, 0, [1.0, 2.0, 10.0])
    slow = bench.Measure("slow", 10, 0, [4.0, 4.0, 10.0])
    # within repeats: 4x, 2x, 1x; the ratio of the medians would be 4 / 2 = 2x as well, but not in general
    assert fast.speedup(slow) == 2.0
    assert (
        bench.Measure("a", 10, 0, [1.0, 3.0, 3.0]).speedup(bench.Measure("b", 10, 0, [3.0, 3.0, 9.0])) == 3.0
    )


def test_cpu_ratio_is_the_median_of_per_position_ratios_within_repeats() -> None:
    # two threads on 10 positions spending 1.0, 1.2, 3.0 CPU seconds; one thread on 20 spending 2.0, 2.0, 2.0
    two = bench.Measure("two", 10, 0, [0.5, 0.6, 1.5], [1.0, 1.2, 3.0])
    one = bench.Measure("one", 20, 0, [2.0, 2.0, 2.0], [2.0, 2.0, 2.0])
    # per position: 0.1 / 0.1, 0.12 / 0.1, 0.3 / 0.1
    assert two.cpu_ratio(one) == pytest.approx(1.2)
    assert bench.Measure("wall", 5, 0, [1.0]).cpu_samples == [1.0]


def test_top_share() -> None:
    # 100 positions: the top 1% is one position, of 901 children out of 99 + 901
    assert bench.top_share(np.array([1] * 99 + [901])) == pytest.approx(0.901)
    # 150 positions: the top 1% rounds up to two, of 50 and 40 children out of 148 + 90
    assert bench.top_share(np.array([1] * 148 + [40, 50])) == pytest.approx(90 / 238)
    assert bench.top_share(np.zeros(5, dtype=np.int64)) == 0.0


def test_crazy_is_labelled_as_dominated_by_a_few_positions() -> None:
    results = [
        bench.PositionsResult(
            v, np.diff(nardy_fast.batch_children(*(a[:500] for a in corpus.load(v)))[1]), []
        )
        for v in VARIANTS
    ]
    lines = bench.report_positions(results).splitlines()
    dominated = {line.split()[0] for line in lines if "DOMINATED BY A FEW" in line}
    assert dominated == {"crazy"}


@pytest.mark.parametrize("variant", ["short", "crazy"])
def test_balanced_split_covers_every_row_in_order_by_work(variant: str) -> None:
    """Every row in exactly one part, each part ascending; the parts' work (children plus one per row) within
    the heaviest row of each other, as the greedy split promises."""
    rows, rolls = corpus.load(variant)
    weights = np.diff(nardy_fast.batch_children(rows[:300], rolls[:300])[1]) + 1
    parts = bench.balanced_split(weights, 3)
    assert all((np.diff(part) > 0).all() for part in parts)
    assert sorted(np.concatenate(parts).tolist()) == list(range(len(weights)))
    loads = [int(weights[part].sum()) for part in parts]
    assert max(loads) - min(loads) <= weights.max()
    assert [len(r) for r, _ in bench.balanced_parts(rows[:300], rolls[:300], 3)] == [len(p) for p in parts]


def test_batched_on_threads_and_processes_counts_every_child() -> None:
    rows, rolls = corpus.load("short")
    rows, rolls = rows[:300], rolls[:300]
    plays = len(nardy_fast.batch_children(rows, rolls)[0])
    assert (
        bench.batched(rows, rolls)()
        == bench.batched(rows, rolls, 2)()
        == bench.batched(rows, rolls, 3)()
        == bench.in_processes(rows, rolls, 2)()
        == (300, plays)
    )


def test_a_measurement_that_produces_other_than_it_claims_fails() -> None:
    with pytest.raises(RuntimeError, match="claims 4 items but produced 3"):
        bench.timed([bench.Work("short of one", lambda: bench.Count(3, 0), 4)], 1)


def test_the_games_measurements_count_the_games_they_claim() -> None:
    works = bench.game_works(37, 5, 2)
    labels = [work.label for work in works]
    if CORE:
        assert labels[:5] == [
            "core playout short",
            "core playout long",
            "core playout short, 2 threads",
            "core playout short, 2 processes",
            f"core playout short, NumPy policy, batch {bench.POLICY_BATCH:,}",
        ]
    assert labels[-1] == "reference playout short"
    for work in works:
        assert (
            work.run().items
            == work.items
            == {"gnubg_nn Python loop short": 5, "reference playout short": 2}.get(work.label, 37)
        ), work.label
    if CORE:
        # the same 37 games whether on one thread, two, or split by number between two processes
        records = nardy_fast.playout("short", 37, seed=bench.SEED)
        by_label = {work.label: work for work in works}
        assert by_label["core playout short"].run() == (37, int(records["plies"].sum()))
        assert by_label["core playout short, 2 threads"].run() == (37, int(records["plies"].sum()))
        assert by_label["core playout short, 2 processes"].run() == (37, int(records["plies"].sum()))
        measures = bench.timed(works[:2], 1)
        assert [m.positions for m in measures] == [37, 37]


# --- GNU Backgammon's game loop ----------------------------------------------------------------------------


def position_of(board: bench.Board) -> Position:
    """The short-nardy position of a GNU Backgammon board, White to move (the player), by the numbering of
    docs/rules.md: the player's point p is White's p; the opponent's own point q is White's 25 - q."""
    opponent, player = board
    points = [0] * 24
    for index in range(24):
        points[index] += player[index]
        points[23 - index] -= opponent[index]
    return nardy_fast.Position.from_board(
        "short",
        points,
        bar=(player[24], opponent[24]),
        off=(15 - sum(player), 15 - sum(opponent)),
        first_roll=(False, False),
    )


def test_gnubg_board_and_position_of_are_inverse() -> None:
    rows, _ = corpus.load("short")
    for row in rows[:200]:
        position = nardy_fast.Position.from_array(row)
        board = bench.gnubg_board(position)
        mirrored = position_of(board)
        assert bench.gnubg_board(mirrored) == board
        if position.turn == "white":
            assert mirrored.board == position.board


def test_gnubg_game_loop_plays_legal_whole_games() -> None:
    """Every move of the loop is one of the package's legal results for the board and roll; the game ends with
    the last mover's checkers all borne off, and its points are the package's."""
    pytest.importorskip("gnubg_nn", reason="gnubg-nn (extra 'peers') is not installed")
    rng = random.Random(7)
    for _ in range(4):
        trace: list[tuple[bench.Board, int, int]] = []
        game = bench.gnubg_game(rng, trace)
        assert game.plies == len(trace)
        assert not any(game.final[1]) and sum(game.final[0]) > 0
        assert [list(side) for side in trace[0][0]] == bench.gnubg_board(nardy_fast.Position.start("short"))
        for ply, (board, d1, d2) in enumerate(trace):
            position = position_of(board)
            results = [move.result for move in position.legal_moves((d1, d2))]
            if ply + 1 < len(trace):
                after = [list(side) for side in trace[ply + 1][0]]
                assert after in [bench.gnubg_board(result) for result in results], (ply, board, d1, d2)
            else:
                over = [r for r in results if r.is_over()]
                assert over and {r.points() for r in over} == {game.points}


def _share_test(found: Sequence[float], expected: Sequence[float], games: int) -> None:
    """Each share within five standard errors of a sample of ``games``."""
    for f, e in zip(found, expected):
        assert abs(f - e) <= 5 * math.sqrt(max(e * (1 - e), 1e-4) / games) + 1e-9, (found, expected)


def test_gnubg_game_loop_plays_the_games_of_the_random_playout() -> None:
    """The same game (short nardy from the start, who starts rolled, a fresh first roll, a uniform choice among
    the distinct results): the points and the starter's wins agree with the core's playouts within sampling
    error, and so does the length of the games."""
    pytest.importorskip("gnubg_nn", reason="gnubg-nn (extra 'peers') is not installed")
    if not CORE:
        pytest.skip("20,000 games of the reference would take minutes")
    rng = random.Random(11)
    games = [bench.gnubg_game(rng) for _ in range(400)]
    records = nardy_fast.playout("short", 20_000, seed=3)
    points = [sum(g.points == p for g in games) / len(games) for p in (1, 2, 3)]
    expected = [float(np.mean(records["points"] == p)) for p in (1, 2, 3)]
    _share_test(points, expected, len(games))
    plies = np.array([g.plies for g in games])
    assert abs(plies.mean() - records["plies"].mean()) <= 5 * records["plies"].std() / math.sqrt(len(games))
    white = sum(g.winner == 0 for g in games) / len(games)
    _share_test([white], [float(np.mean(records["winner"] == 0))], len(games))


# --- the progress line ----------------------------------------------------------------------------------------


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_progress_line_gives_percent_and_time_left_from_the_plan() -> None:
    clock, lines = FakeClock(), list[str]()
    tracker = bench.Tracker(lines.append, clock=clock)
    tracker.plan([("a", 10.0), ("b", 10.0)])
    tracker.begin("a")
    clock.now = 5.0
    assert tracker.left() == 15.0  # half of a, all of b
    tracker("step one")
    assert lines[-1] == "[ 25% 0:05, about 0:15 left] step one"
    clock.now = 20.0  # a took twice its estimate: b is expected to as well
    tracker.end()
    assert tracker.factor() == 2.0 and tracker.left() == 20.0
    tracker.begin("b")
    tracker.expect(6.0)  # what the runs measured says, instead of the estimate
    clock.now = 22.0
    assert tracker.left() == 4.0
    clock.now = 100.0  # past every estimate: the line never claims 100% before the end
    tracker("late")
    assert tracker.left() == 0.0 and lines[-1].startswith("[ 99% 1:40, about 0:00 left] late")


def test_the_progress_line_moves_every_second_while_one_step_runs() -> None:
    """One step that takes 2.5 s: the thread redraws the line (its elapsed time) at least every second."""
    stamps: list[tuple[float, str]] = []
    tracker = bench.Tracker(lambda line: stamps.append((time.perf_counter(), line)))
    tracker.plan([("one step", 3.0)])
    with tracker:
        tracker.begin("one step")
        tracker("sleeping")
        time.sleep(2.5)
        tracker.end()
    times = [t for t, _ in stamps]
    # at least every second (a tick's lateness aside), and not much more often: a log gets a line a second
    assert 3 <= len(stamps) <= 5 and max(np.diff(times)) <= 1.0 + bench.TICK_SECONDS, stamps
    assert all(PROGRESS.match(line) and line.endswith("] sleeping") for _, line in stamps)
    assert len({line for _, line in stamps}) == len(stamps)  # redrawn only when the text changed


def test_timed_tells_the_tracker_the_time_left() -> None:
    clock, lines = FakeClock(), list[str]()
    tracker = bench.Tracker(lines.append, clock=clock)
    tracker.plan([("section", 100.0)])
    tracker.begin("section")
    works = [bench.Work("w", lambda: bench.Count(1, 1), 1, estimate=1.0)]
    before = tracker.left()
    bench.timed(works, 2, tracker)
    # after the last run nothing is left of the section, whatever its plan said
    assert before == 100.0 and tracker.left() == 0.0
    assert [line.split("] ")[1] for line in lines] == ["first run 1/1: w", "repeat 1/2, 1/1: w", "repeat 2/2, 1/1: w"]


def test_the_plan_covers_every_stage_of_the_run() -> None:
    plan = bench.positions_plan(VARIANTS, 100, 20, 1) + bench.games_plan(50, 0, 1, 1)
    assert [name for name, _ in plan] == [f"positions {v}" for v in VARIANTS] + ["games"]
    assert all(seconds > 0 for _, seconds in plan)


def test_each_variant_is_reported_as_soon_as_it_is_measured() -> None:
    events: list[str] = []
    bench.run_positions(
        ("long", "short"), 20, 5, 1, events.append, report=lambda r: events.append(f"rows {r.variant}")
    )
    assert events.index("rows long") < events.index("bench positions, short (2/2 variants), preparing")
    assert events[-1] == "rows short"


# --- verdicts ------------------------------------------------------------------------------------------------


def test_a_two_thread_ratio_on_a_loaded_machine_is_not_judged() -> None:
    loaded = bench.parallel_verdict("x", 0.93, 1.02)
    assert "taken on a loaded machine" in loaded and "1.02x" in loaded and "MISSED" not in loaded
    assert "not judged" in loaded and "\n" not in loaded
    assert bench.parallel_verdict("x", 1.8, 1.9).endswith(": met (two processes: 1.90x)")
    near = bench.parallel_verdict("x", 1.6, 1.7)
    assert "below the target, but as fast as two processes went (1.70x)" in near and "MISSED" not in near
    assert "MISSED" in bench.parallel_verdict("x", 1.0, 1.9)
    assert "without the two-process control" in bench.parallel_verdict("x", 1.8, None)


def measure(label: str, seconds: float, items: int = 100) -> bench.Measure:
    return bench.Measure(label, items, 0, [seconds] * 3)


def test_games_verdicts_say_when_a_missed_target_was_taken_on_a_loaded_machine() -> None:
    measures = [
        measure("core playout short", 1.0),
        measure("core playout long", 1.2),  # slower than short: the target missed
        measure("core playout short, 2 threads", 1.1),
        measure("core playout short, 2 processes", 1.0),  # the control: 1.0x, no second core
        measure(f"core playout short, NumPy policy, batch {bench.POLICY_BATCH:,}", 4.0),
        measure("gnubg_nn Python loop short", 20.0),
    ]
    lines = bench.games_verdicts(measures)
    assert len(lines) == 4
    by_start = {line.split(":")[0]: line for line in lines}
    assert by_start["short games/s, core playout / GNU Backgammon's Python loop"].endswith("20.0x (target >= 5x): met")
    for key in ("games/s, long / short (core playout)", "time per game, NumPy policy / built-in random"):
        assert "missed, on a loaded machine (two processes made 1.00x one" in by_start[key], key
    assert "not judged, taken on a loaded machine" in by_start["short games, playout on 2 threads"]
    # the same figures with a free second core: the misses are plain misses
    measures[3] = measure("core playout short, 2 processes", 0.5)
    quiet = bench.games_verdicts(measures)
    assert sum(line.endswith("MISSED") for line in quiet) == 2


def test_without_gnubg_every_table_says_how_to_add_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for module in (bench_peers, bench_games, bench_verdicts, bench_cli):
        monkeypatch.setattr(module, "gnubg_installed", lambda: False)
    monkeypatch.setattr(bench_peers, "gnubg_work", lambda rows, rolls: None)
    import nardy_fast.bench.positions as bench_positions

    monkeypatch.setattr(bench_positions, "gnubg_installed", lambda: False)
    monkeypatch.setattr(bench_positions, "gnubg_work", lambda rows, rolls: None)
    status = bench.main(20, 5, 1, games=20, gnubg_games_count=3, reference_games=0, variants=("short",))
    out = capsys.readouterr().out
    assert status == 0
    hint = "pip install gnubg-nn"
    assert hint in out.splitlines()[0]  # the settings line says so at once
    assert f"GNU Backgammon's loop (gnubg-nn is not installed: {hint}" in out
    if CORE:
        assert f"GNU Backgammon's gnubg_nn.moves: not measured: gnubg-nn is not installed; {hint}" in out
        assert f"GNU Backgammon's Python loop: not measured: gnubg-nn is not installed; {hint}" in out
    else:
        # no core / GNU Backgammon comparison to miss without the core: the positions' verdicts say only
        # that, and no games were measured (--reference-games 0), so none are judged
        verdicts = out[out.index("\nverdicts, positions:") : out.index("\ngames:")]
        assert verdicts.strip().splitlines()[1:] == [
            "  the compiled core is not in use: only the reference was measured"
        ]
        assert "verdicts, games:" not in out
