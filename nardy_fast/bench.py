"""``python -m nardy_fast bench``: how fast each implementation and API generates legal moves, and how fast
whole games are played, side by side in one run, with ratios (and GNU Backgammon where ``gnubg-nn`` is
installed). ``docs/benchmarks.md`` describes the method and keeps the history.

Two sections:

* positions: the children (distinct legal results) of the embedded corpus positions, every API of a variant
  on the same positions (the reference's ``legal_moves`` on fewer only when ``--reference-size`` says so,
  and then the core's ``legal_moves`` again on those, for the ratio);
* games: whole random games (``nardy_fast.playout``) against GNU Backgammon's move generator driven by a
  Python loop, long nardy against short, two threads against one, and a Python policy against the built-in
  one.

Each figure is the median of a few repeats. A repeat times every measurement of a section once, one after
the other, and a ratio is the median of the ratios within repeats: on a shared machine whose speed drifts,
the two sides of a ratio then see the same conditions. Work that takes less than :data:`MIN_SECONDS` is run
several times in a row per timing. Two threads can only be as fast as the cores the machine lends them at the
time; the CPU time they spend per position, against one thread's, says how much work running in parallel
adds, and the same parts run in two processes, which share nothing, say how fast the machine lets any two
workers go.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import math
import multiprocessing
import random
import re
import statistics
import sys
import time
import weakref
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.connection import Connection
from typing import NamedTuple, Optional, cast

import numpy as np
import numpy.typing as npt

from . import corpus
from ._dispatch import batch_children, children, implementations
from .errors import NardyError, field_error, quote
from .inputs import choice, integer, items
from .position import Position
from .variants import VARIANTS

__all__ = [
    "DEFAULT_SIZE",
    "DEFAULT_REPEATS",
    "DEFAULT_GAMES",
    "DEFAULT_GNUBG_GAMES",
    "DEFAULT_REFERENCE_GAMES",
    "MAX_REPEATS",
    "MAX_GAMES",
    "MAX_PARTS",
    "POLICY_BATCH",
    "MIN_SECONDS",
    "TOP_FRACTION",
    "DOMINANT_SHARE",
    "SECTIONS",
    "LEGEND",
    "Count",
    "Measure",
    "Work",
    "PositionsResult",
    "timed",
    "per_call",
    "per_array",
    "batched",
    "in_processes",
    "balanced_parts",
    "balanced_split",
    "top_share",
    "position_works",
    "run_positions",
    "report_positions",
    "gnubg_board",
    "gnubg_boards",
    "gnubg_work",
    "GnubgGame",
    "gnubg_game",
    "gnubg_games",
    "core_games",
    "games_in_processes",
    "random_policy",
    "game_works",
    "run_games",
    "report_games",
    "add_arguments",
    "command",
    "main",
]

Rows = npt.NDArray[np.int8]
#: A GNU Backgammon board: ``[opponent, player]`` from the side to move's view, 25 counts each (points 1..24
#: in that side's own numbering, its home first, then the bar).
Board = Sequence[Sequence[int]]
Progress = Callable[[str], None]

#: Corpus positions per variant by default: enough that every variant's figures are stable, few enough that
#: the reference's ``legal_moves`` runs on all of them and the whole job takes about a minute.
DEFAULT_SIZE = 1_000
DEFAULT_REPEATS = 5
#: Games per measurement of the core's playouts (about a second of work: fewer, and starting a second thread
#: weighs on the two-thread figure), of GNU Backgammon's loop (about 1,500 a second) and of the reference's
#: playouts (about 20 a second).
DEFAULT_GAMES = 20_000
DEFAULT_GNUBG_GAMES = 300
DEFAULT_REFERENCE_GAMES = 10
#: The batch of the callable policy: the games it is called for at once, once a ply.
POLICY_BATCH = 1_000
#: A timing shorter than this repeats the work in a row, so that timer and scheduler noise stay small.
MIN_SECONDS = 0.05
#: The share of children that the top ``TOP_FRACTION`` of positions (by children) give is printed per
#: variant; from ``DOMINANT_SHARE`` on, the variant is labelled as dominated by a few positions.
TOP_FRACTION = 0.01
DOMINANT_SHARE = 0.5
SEED = 2026
SECTIONS = ("positions", "games")
#: The bounds of :func:`main`'s counts (and the command's options): timed repeats, and games per
#: measurement (``playout``'s own bound).
MAX_REPEATS = 1000
MAX_GAMES = (1 << 31) - 1
#: The most parts the parallel measurements split their work in (threads, or processes started): far more
#: than the two they measure, few enough that no machine is swamped.
MAX_PARTS = 64

LEGEND = """\
legend:
  on, games     the positions (games) a row measured; a ratio of positions compares rows on the same ones,
                a ratio of games compares games/s of whole random games from the start
  positions/s   positions whose legal moves were generated, per second
  plays/s       children (distinct legal results) produced per second
  games/s       whole games played to the end per second; plies/s: moves played per second
  ratio         the median, over the repeats, of the ratio within each repeat (both sides timed back to back)
  legal_moves   a Python Move object per child; children: one array per position; batch_children: one call
  2 threads     the same work split in two parts on two threads of one process
  2 processes   the same parts in two processes: how far this machine lets two workers scale right now
  CPU/position  the CPU time per position (CPU/game: per game) over one thread's: 1.00 = no extra work in
                parallel, whatever share of the cores the machine lends
  top 1%        the share of all children that come from the 1% of positions with the most children;
                where it is high, a few (ladder) positions dominate the variant's rates"""


class Count(NamedTuple):
    """What one run of a measurement produced: ``items`` (positions searched or games played) and ``plays``
    (children generated or plies played)."""

    items: int
    plays: int


def _total(counts: Sequence[Count]) -> Count:
    return Count(sum(c.items for c in counts), sum(c.plays for c in counts))


class Measure:
    """One timed measurement: items (positions or games) and plays (children or plies) per second, median
    over repeats; ``cpu_samples`` are the process's CPU seconds (all threads) in the same repeats. A sample is
    the seconds of one run of the work."""

    def __init__(
        self,
        label: str,
        positions: int,
        plays: int,
        samples: list[float],
        cpu_samples: Optional[list[float]] = None,
    ) -> None:
        self.label = label
        self.positions = positions
        self.plays = plays
        self.samples = samples
        self.cpu_samples = cpu_samples if cpu_samples is not None else samples
        self.seconds = statistics.median(samples)

    @property
    def positions_per_second(self) -> float:
        """Positions searched (or games played) per second."""
        return self.positions / self.seconds

    @property
    def plays_per_second(self) -> float:
        """Plays (children, or plies) per second."""
        return self.plays / self.seconds

    def speedup(self, other: Measure) -> float:
        """Items/s over ``other``'s: the median of the ratios within repeats."""
        return statistics.median(
            (self.positions / mine) / (other.positions / theirs)
            for mine, theirs in zip(self.samples, other.samples)
        )

    def cpu_ratio(self, other: Measure) -> float:
        """CPU time per item over ``other``'s, the median of the ratios within repeats: 1.0 for threads that
        do no more work together than one thread alone, whatever share of the cores the machine gives them."""
        return statistics.median(
            (mine / self.positions) / (theirs / other.positions)
            for mine, theirs in zip(self.cpu_samples, other.cpu_samples)
        )


class Work(NamedTuple):
    """A measurement to make: ``run`` does the work once and returns what it produced, which must be
    ``items`` positions or games (checked on every run)."""

    label: str
    run: Callable[[], Count]
    items: int
    #: run once, untimed, right before each timed run: for work on several cores, which a shared machine
    #: lends to other guests while they idle (one waking took milliseconds here)
    warm_up: bool = False


def _quiet(message: str) -> None:
    """No progress report."""


def _stderr_progress(message: str) -> None:
    """Progress on stderr: one line rewritten in place on a terminal, a line each elsewhere (logs)."""
    if sys.stderr.isatty():
        sys.stderr.write("\r\x1b[K" + message)
    else:
        sys.stderr.write(message + "\n")
    sys.stderr.flush()


def _checked(work: Work, count: Count) -> Count:
    if count.items != work.items:
        raise RuntimeError(f"{work.label}: claims {work.items} items but produced {count.items}")
    return count


def timed(works: Sequence[Work], repeats: int, progress: Progress = _quiet, where: str = "") -> list[Measure]:
    """Every work timed once per repeat, in turn, after one untimed run each (it warms the caches and
    says how many runs in a row make a timing of at least :data:`MIN_SECONDS`)."""
    loops: list[int] = []
    plays = [0] * len(works)
    for i, work in enumerate(works):
        progress(f"{where}first run {i + 1}/{len(works)}: {work.label}")
        start = time.perf_counter()
        plays[i] = _checked(work, work.run()).plays
        seconds = time.perf_counter() - start
        loops.append(max(1, min(1000, math.ceil(MIN_SECONDS / max(seconds, 1e-9)))))
    samples: list[list[float]] = [[] for _ in works]
    cpu_samples: list[list[float]] = [[] for _ in works]
    for repeat in range(repeats):
        for i, work in enumerate(works):
            progress(f"{where}repeat {repeat + 1}/{repeats}, {i + 1}/{len(works)}: {work.label}")
            if work.warm_up:
                work.run()
            start, cpu_start = time.perf_counter(), time.process_time()
            for _ in range(loops[i]):
                count = work.run()
            seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
            plays[i] = _checked(work, count).plays
            samples[i].append(seconds / loops[i])
            cpu_samples[i].append(cpu / loops[i])
    return [
        Measure(work.label, work.items, plays[i], samples[i], cpu_samples[i]) for i, work in enumerate(works)
    ]


# --- positions: the move generators ---------------------------------------------------------------------


def _rolls_of(rolls: Rows) -> list[Optional[tuple[int, int]]]:
    return [None if r[0] == 0 else (int(r[0]), int(r[1])) for r in rolls]


def per_call(position_class: type[Position], rows: Rows, rolls: Rows) -> Callable[[], Count]:
    """``legal_moves`` one position at a time, a Python object per child."""
    positions = [position_class.from_array(row) for row in rows]
    dice = _rolls_of(rolls)
    return lambda: Count(len(positions), sum(len(p.legal_moves(d)) for p, d in zip(positions, dice)))


def per_array(rows: Rows, rolls: Rows) -> Callable[[], Count]:
    """``nardy_fast.children`` one packed row at a time, one array per position."""
    dice = _rolls_of(rolls)
    row_list = list(rows)
    return lambda: Count(len(row_list), sum(len(children(r, d)) for r, d in zip(row_list, dice)))


def _batch_count(rows: Rows, rolls: Rows) -> Count:
    return Count(len(rows), len(batch_children(rows, rolls)[0]))


def batched(rows: Rows, rolls: Rows, threads: int = 1) -> Callable[[], Count]:
    """``nardy_fast.batch_children`` over all rows; with ``threads`` > 1, over parts of about equal work
    (``balanced_parts``) at once: the calling thread takes one, the threads of a pool the others. The parts and
    the pool are made before timing, as a program that runs batches on threads keeps its threads. ``threads``
    is 1..:data:`MAX_PARTS`."""
    threads = _bounded("threads", threads, 1, MAX_PARTS)
    if threads == 1:
        return lambda: _batch_count(rows, rolls)
    first, *others = balanced_parts(rows, rolls, threads)
    pool = ThreadPoolExecutor(threads - 1, thread_name_prefix="nardy_fast-bench")

    def work() -> Count:
        running = [pool.submit(_batch_count, *part) for part in others]
        return _total([_batch_count(*first)] + [future.result() for future in running])

    weakref.finalize(work, pool.shutdown)
    return work


def in_processes(rows: Rows, rolls: Rows, count: int = 2) -> Callable[[], Count]:
    """The control of ``batched(rows, rolls, count)``: the same parts at once in ``count`` processes."""
    return _in_processes(
        [functools.partial(_batch_count, *part) for part in balanced_parts(rows, rolls, count)]
    )


def _in_processes(parts: Sequence[Callable[[], Count]]) -> Callable[[], Count]:
    """The parts at once in as many processes, the calling one and others started before timing (each sent
    its part once, then only a word per call). Processes share no memory, lock or interpreter, so threads
    that scale as far as they do lose nothing to each other."""
    first, *others = parts
    context = multiprocessing.get_context("spawn")  # no fork of a process that runs threads
    connections: list[Connection] = []
    workers = []
    for part in others:
        mine, theirs = context.Pipe()
        worker = context.Process(target=_part_server, args=(theirs, part), daemon=True)
        worker.start()
        theirs.close()  # the worker's end: if it dies, ``recv`` here ends instead of waiting for ever
        connections.append(mine)
        workers.append(worker)

    def work() -> Count:
        for connection in connections:
            connection.send(True)
        return _total([first()] + [Count(*connection.recv()) for connection in connections])

    def stop() -> None:
        for connection, worker in zip(connections, workers):
            with contextlib.suppress(OSError):  # a worker that died has nothing to stop
                connection.send(False)
            worker.join()

    work()  # untimed: the workers import the package
    weakref.finalize(work, stop)
    return work


def _part_server(connection: Connection, part: Callable[[], Count]) -> None:
    """A worker of ``_in_processes``: runs its part each time it is sent True, until sent False."""
    while connection.recv():
        connection.send(tuple(part()))


def balanced_parts(rows: Rows, rolls: Rows, count: int) -> list[tuple[Rows, Rows]]:
    """``count`` parts of the rows of about equal work (``balanced_split``), the work of a row taken as its
    number of children plus one (counted by one batch call). Equal numbers of rows would not do: a crazy ladder
    can have 400,000 children, a bear-off two."""
    weights = np.diff(batch_children(rows, rolls)[1]) + 1
    parts = balanced_split(weights, count)
    return [(np.ascontiguousarray(rows[part]), np.ascontiguousarray(rolls[part])) for part in parts]


def balanced_split(weights: npt.NDArray[np.int64], count: int) -> list[npt.NDArray[np.intp]]:
    """The indices of ``weights`` in ``count`` ascending parts: each index in turn, heaviest first, goes to the
    part with the least weight so far (so the parts' weights differ by at most the largest weight).
    ``count`` is 1..:data:`MAX_PARTS`."""
    count = _bounded("count", count, 1, MAX_PARTS)
    loads = [0] * count
    members: list[list[int]] = [[] for _ in range(count)]
    for index in np.argsort(-weights, kind="stable"):
        lightest = loads.index(min(loads))
        members[lightest].append(int(index))
        loads[lightest] += int(weights[index])
    return [np.sort(np.array(m, dtype=np.intp)) for m in members]


def top_share(counts: npt.NDArray[np.int64], fraction: float = TOP_FRACTION) -> float:
    """The share of all children that the ``fraction`` of positions with the most children give (at least
    one position): near ``fraction`` when positions weigh alike, near 1 when a few dominate."""
    total = int(counts.sum())
    if total == 0:
        return 0.0
    top = max(1, math.ceil(len(counts) * fraction))
    return int(np.sort(counts)[::-1][:top].sum()) / total


def gnubg_board(position: Position) -> list[list[int]]:
    """A short-nardy position as a GNU Backgammon board (``[opponent, player]``, 25 counts each, bar last)
    from the view of its side to move."""
    player, opponent = [0] * 25, [0] * 25
    for index, count in enumerate(position.board):
        point = index + 1 if position.turn == "white" else 24 - index
        mine = count > 0 if position.turn == "white" else count < 0
        if mine:
            player[point - 1] = abs(count)
        elif count:
            opponent[24 - point] = abs(count)
    me = 0 if position.turn == "white" else 1
    player[24], opponent[24] = position.bar[me], position.bar[1 - me]
    return [opponent, player]


def gnubg_boards(rows: Rows, rolls: Rows) -> list[tuple[list[list[int]], int, int]]:
    """Short-nardy rows as GNU Backgammon boards (:func:`gnubg_board`) with their rolls."""
    position_class = implementations()["python"].Position
    return [
        (gnubg_board(position_class.from_array(row)), int(roll[0]), int(roll[1]))
        for row, roll in zip(rows, rolls)
    ]


def gnubg_work(rows: Rows, rolls: Rows) -> Optional[Work]:
    """GNU Backgammon's ``moves()`` through ``gnubg_nn`` on the same positions, if it is installed."""
    try:
        import gnubg_nn
    except ImportError:
        return None
    boards = gnubg_boards(rows, rolls)
    moves = gnubg_nn.moves
    return Work(
        "gnubg_nn.moves",
        lambda: Count(len(boards), sum(len(moves(b, d1, d2)) for b, d1, d2 in boards)),
        len(boards),
    )


class PositionsResult(NamedTuple):
    """The positions section of one variant: its measurements and the children of each measured position."""

    variant: str
    counts: npt.NDArray[np.int64]
    measures: list[Measure]

    @property
    def top_share(self) -> float:
        """The share of the children from the top :data:`TOP_FRACTION` of positions."""
        return top_share(self.counts)


def position_works(rows: Rows, rolls: Rows, reference_size: int, with_gnubg: bool) -> list[Work]:
    """The measurements of one variant's positions, every API on all the rows but the reference's
    ``legal_moves``, which takes the first ``reference_size`` (and the core's again on those when they are
    fewer, for a ratio on the same positions)."""
    from . import IMPLEMENTATION
    from . import Position as Chosen

    n, small = len(rows), min(reference_size, len(rows))
    works = [
        Work(
            "reference legal_moves",
            per_call(implementations()["python"].Position, rows[:small], rolls[:small]),
            small,
        )
    ]
    if IMPLEMENTATION == "cython":
        if small < n:
            works.append(Work("core legal_moves", per_call(Chosen, rows[:small], rolls[:small]), small))
        works += [
            Work("core legal_moves", per_call(Chosen, rows, rolls), n),
            Work("core children (per position)", per_array(rows, rolls), n),
            Work("core batch_children", batched(rows, rolls), n),
            Work("core batch_children, 2 threads", batched(rows, rolls, 2), n, warm_up=True),
            Work("core batch_children, 2 processes", in_processes(rows, rolls, 2), n, warm_up=True),
        ]
    gnubg = gnubg_work(rows, rolls) if with_gnubg else None
    if gnubg is not None:
        works.append(gnubg)
    return works


def run_positions(
    variants: Sequence[str] = VARIANTS,
    size: int = DEFAULT_SIZE,
    reference_size: Optional[int] = None,
    repeats: int = DEFAULT_REPEATS,
    progress: Progress = _quiet,
) -> list[PositionsResult]:
    """The positions section: every measurement of every variant, on its first ``size`` corpus positions."""
    results = []
    for number, variant in enumerate(variants, 1):
        rows, rolls = corpus.load(variant)
        rows, rolls = rows[:size], rolls[:size]
        where = f"bench positions, {variant} ({number}/{len(variants)} variants), "
        progress(where + "preparing")
        counts = np.diff(batch_children(rows, rolls)[1])
        works = position_works(
            rows, rolls, size if reference_size is None else reference_size, variant == "short"
        )
        results.append(PositionsResult(variant, counts, timed(works, repeats, progress, where)))
        del works  # the thread pool and the worker processes end with their work
    return results


def _same(measures: Sequence[Measure], label: str, items: int) -> Optional[Measure]:
    """The measurement ``label`` on ``items`` positions (the same ones: every list is a prefix)."""
    return next((m for m in measures if m.label == label and m.positions == items), None)


def _parallel_ratios(m: Measure, one: Optional[Measure], unit: str) -> list[str]:
    if one is None:
        return []
    if m.label.endswith("2 threads"):
        return [f"{m.speedup(one):.2f}x 1 thread (CPU/{unit} {m.cpu_ratio(one):.2f})"]
    if m.label.endswith("2 processes"):
        return [f"{m.speedup(one):.2f}x 1 thread: the machine's own limit for two workers now"]
    return []


def report_positions(results: Sequence[PositionsResult]) -> str:
    """The positions table: per variant, a line on its positions (and whether a few dominate), then each
    measurement with the ratios the project's targets are stated in."""
    lines = [
        "positions: every API on the same corpus positions of each variant",
        f"{'variant':8} {'api':34} {'on':>7} {'positions/s':>13} {'plays/s':>13}  ratio",
    ]
    for result in results:
        share = result.top_share
        top = max(1, math.ceil(len(result.counts) * TOP_FRACTION))
        note = (
            f"{len(result.counts):,} positions, {int(result.counts.sum()):,} children; top 1% ({top:,}"
            f" position{'s' if top > 1 else ''}):"
            f" {share:.0%} of the children"
        )
        if share >= DOMINANT_SHARE:
            note += (
                " -- DOMINATED BY A FEW LADDER POSITIONS: its rates depend on which positions are measured"
            )
        lines.append(f"{result.variant:8} {note}")
        found = result.measures
        for m in found:
            ratios = []
            if m.label == "core legal_moves":
                ref = _same(found, "reference legal_moves", m.positions)
                if ref is not None:
                    ratios.append(f"{m.speedup(ref):,.0f}x reference")
            if m.label in ("core children (per position)", "core batch_children"):
                calls = _same(found, "core legal_moves", m.positions)
                if calls is not None:
                    ratios.append(f"{m.speedup(calls):.2f}x core legal_moves")
            gnubg = _same(found, "gnubg_nn.moves", m.positions)
            if gnubg is not None and m.label.startswith("core") and "legal_moves" not in m.label:
                ratios.append(f"{m.speedup(gnubg):.2f}x gnubg")
            ratios += _parallel_ratios(m, _same(found, "core batch_children", m.positions), "position")
            lines.append(
                f"{result.variant:8} {m.label:34} {m.positions:7,} {m.positions_per_second:13,.0f}"
                f" {m.plays_per_second:13,.0f}  " + ", ".join(ratios)
            )
    return "\n".join(line.rstrip() for line in lines)


# --- games: whole games -----------------------------------------------------------------------------------


class GnubgGame(NamedTuple):
    """A game played by :func:`gnubg_game`: the winner (0 White, 1 Black), the points (1 single, 2 mars,
    3 koks), the plies (rolls, a roll that cannot be played included) and the last board (``[loser,
    winner]`` from the winner's view, the winner's 25 counts all 0)."""

    winner: int
    points: int
    plies: int
    final: Board


def _gnubg_points(loser: Sequence[int]) -> int:
    """The points of a game whose loser has ``loser`` left (its own numbering, bar last)."""
    if sum(loser) < 15:
        return 1
    # the winner's home, 1..6 in its numbering, is the loser's 19..24
    return 3 if loser[24] or any(loser[18:24]) else 2


@functools.lru_cache(maxsize=1)
def _gnubg_start() -> Board:
    return gnubg_board(implementations()["python"].Position.start("short"))


def gnubg_game(rng: random.Random, trace: Optional[list[tuple[Board, int, int]]] = None) -> GnubgGame:
    """One game of short nardy (backgammon without the cube) played by GNU Backgammon's move generator and a
    uniform random choice among its distinct results: the loop a Python program would write around
    ``gnubg_nn.moves`` and ``gnubg_nn.board_from_position_key``. Who starts is rolled (one die each, equal dice
    again), then the starter rolls two fresh dice, as ``playout``'s default opening; the game ends when a side
    has no checkers left. ``trace`` receives each board to move (that side's view) and its roll."""
    import gnubg_nn

    moves, board_of, randint, choice = (
        gnubg_nn.moves,
        gnubg_nn.board_from_position_key,
        rng.randint,
        rng.choice,
    )
    white, black = randint(1, 6), randint(1, 6)
    while white == black:
        white, black = randint(1, 6), randint(1, 6)
    side = 0 if white > black else 1
    board: Board = _gnubg_start()
    plies = 0
    while True:
        d1, d2 = randint(1, 6), randint(1, 6)
        if trace is not None:
            trace.append((board, d1, d2))
        keys = moves(board, d1, d2)
        plies += 1
        if keys:
            opponent, player = board_of(choice(keys))
            if not any(player):
                return GnubgGame(side, _gnubg_points(opponent), plies, (opponent, player))
            board = (player, opponent)  # the opponent's turn, from its view
        else:
            board = (board[1], board[0])
        side ^= 1


def gnubg_games(games: int, seed: int = SEED) -> Callable[[], Count]:
    """``games`` games of :func:`gnubg_game`, the dice of ``random.Random(seed)``."""

    def work() -> Count:
        rng = random.Random(seed)
        played = [gnubg_game(rng) for _ in range(games)]
        return Count(len(played), sum(game.plies for game in played))

    return work


def _playout_count(start: str, games: int, seed: int, threads: int = 1, first_game: int = 0) -> Count:
    from . import playout

    records = playout(start, games, seed=seed, threads=threads, first_game=first_game)
    return Count(len(records), int(records["plies"].sum()))


def core_games(start: str, games: int, seed: int = SEED, threads: int = 1) -> Callable[[], Count]:
    """``nardy_fast.playout(start, games, seed=seed, threads=threads)``, the built-in random policy."""
    return functools.partial(_playout_count, start, games, seed, threads)


def games_in_processes(start: str, games: int, seed: int = SEED, count: int = 2) -> Callable[[], Count]:
    """The control of ``core_games(start, games, seed, count)``: the same games, split by number
    (``first_game``), at once in ``count`` processes (1..:data:`MAX_PARTS`): at least one game each."""
    count = _bounded("count", count, 1, MAX_PARTS)
    if integer(games) is None or games < count:
        raise field_error(NardyError, "games", f"must be at least {count}, a game for each process", games)
    bounds = [games * i // count for i in range(count + 1)]
    return _in_processes(
        [
            functools.partial(_playout_count, start, bounds[i + 1] - bounds[i], seed, 1, bounds[i])
            for i in range(count)
        ]
    )


def random_policy(
    seed: int,
) -> Callable[[npt.NDArray[np.int8], npt.NDArray[np.int64]], npt.NDArray[np.int64]]:
    """A callable policy for ``playout`` that picks uniformly at random with NumPy: the cheapest useful one,
    so its cost over the built-in ``"random"`` is the cost of the Python call and the arrays."""
    rng = np.random.default_rng(seed)

    def policy(children: npt.NDArray[np.int8], offsets: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        counts = np.diff(offsets)
        return (rng.random(len(counts)) * counts).astype(np.int64)

    return policy


def _callable_games(start: str, games: int, seed: int = SEED) -> Callable[[], Count]:
    from . import playout

    def work() -> Count:
        records = playout(start, games, seed=seed, policy=random_policy(seed), batch=POLICY_BATCH)
        return Count(len(records), int(records["plies"].sum()))

    return work


def _reference_games(start: str, games: int, seed: int = SEED) -> Callable[[], Count]:
    playout = implementations()["python"].playout

    def work() -> Count:
        records = playout(start, games, seed=seed)
        return Count(len(records), int(records["plies"].sum()))

    return work


def game_works(games: int, gnubg_games_count: int, reference_games: int) -> list[Work]:
    """The games section: short nardy unless said, random policy, one thread unless said."""
    from . import IMPLEMENTATION

    works = []
    if IMPLEMENTATION == "cython":
        works += [
            Work("core playout short", core_games("short", games), games),
            Work("core playout long", core_games("long", games), games),
            Work("core playout short, 2 threads", core_games("short", games, threads=2), games, warm_up=True),
        ]
        if games >= 2:  # one game cannot be split in two (report_games says it was left out)
            processes = games_in_processes("short", games)
            works.append(Work("core playout short, 2 processes", processes, games, warm_up=True))
        works += [
            Work(
                f"core playout short, NumPy policy, batch {POLICY_BATCH:,}",
                _callable_games("short", games),
                games,
            ),
        ]
    if gnubg_games_count:
        with contextlib.suppress(ImportError):
            import gnubg_nn  # noqa: F401 - only whether it is installed

            works.append(
                Work("gnubg_nn Python loop short", gnubg_games(gnubg_games_count), gnubg_games_count)
            )
    if reference_games:
        works.append(
            Work("reference playout short", _reference_games("short", reference_games), reference_games)
        )
    return works


def run_games(
    games: int = DEFAULT_GAMES,
    gnubg_games_count: int = DEFAULT_GNUBG_GAMES,
    reference_games: int = DEFAULT_REFERENCE_GAMES,
    repeats: int = DEFAULT_REPEATS,
    progress: Progress = _quiet,
) -> list[Measure]:
    """The games section's measurements."""
    progress("bench games, preparing")
    return timed(game_works(games, gnubg_games_count, reference_games), repeats, progress, "bench games, ")


def report_games(measures: Sequence[Measure]) -> str:
    """The games table, with the ratios of the targets: the core's short games at least 5x GNU Backgammon's
    loop, long games at least as fast as short ones, a Python policy at most 3x the built-in one's time."""
    by_label = {m.label: m for m in measures}
    short = by_label.get("core playout short")
    lines = [
        "games: whole random games from the start (the built-in random policy unless said), side by side",
        f"{'api':48} {'games':>7} {'games/s':>11} {'plies/s':>13}  ratio",
    ]
    for m in measures:
        ratios = []
        if m is short:
            for label, name in (
                ("gnubg_nn Python loop short", "gnubg loop"),
                ("reference playout short", "reference"),
            ):
                if label in by_label:
                    target = " (target >= 5x)" if name == "gnubg loop" else ""
                    ratios.append(f"{m.speedup(by_label[label]):,.1f}x {name}{target}")
        elif short is not None:
            if m.label == "core playout long":
                ratios.append(f"{m.speedup(short):.2f}x short (target >= 1x)")
            elif "policy" in m.label:
                ratios.append(f"costs {1 / m.speedup(short):.2f}x built-in random per game (target <= 3x)")
            ratios += _parallel_ratios(m, short, "game")
        lines.append(
            f"{m.label:48} {m.positions:7,} {m.positions_per_second:11,.1f} {m.plays_per_second:13,.0f}  "
            + ", ".join(ratios)
        )
    omitted = []
    if short is not None and "core playout short, 2 processes" not in by_label:
        omitted.append("two processes (one game cannot be split in two: --games 2 or more)")
    if "gnubg_nn Python loop short" not in by_label:
        omitted.append("GNU Backgammon's loop (gnubg-nn not installed or --gnubg-games 0)")
    if "reference playout short" not in by_label:
        omitted.append("the reference's playouts (--reference-games 0)")
    if omitted:
        lines.append("not measured: " + "; ".join(omitted))
    return "\n".join(line.rstrip() for line in lines)


# --- the command ----------------------------------------------------------------------------------------


def _count(low: int, high: int = MAX_GAMES) -> Callable[[str], int]:
    """An argparse ``type``: an integer ``low..high``, else an error that quotes the text given."""

    def parse(text: str) -> int:
        # ASCII digits only, and few enough that Python converts them (it refuses more than 4,300)
        value = int(text) if re.fullmatch(r"[+-]?[0-9]{1,100}", text) else None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be an integer {low}..{high} (got {quote(text)})")
        return value

    return parse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of the ``bench`` command (defaults: about a minute and under 300 MB on two cores)."""
    parser.add_argument(
        "--size",
        metavar="N",
        type=_count(1, corpus.SIZE),
        default=DEFAULT_SIZE,
        help=f"corpus positions per variant, every API on the same ones (default {DEFAULT_SIZE:,}, at most"
        f" {corpus.SIZE:,}; crazy's whole corpus needs about 700 MB)",
    )
    parser.add_argument(
        "--reference-size",
        metavar="N",
        type=_count(1, corpus.SIZE),
        default=None,
        help="the reference's legal_moves on only the first N of those positions (default: all of them; the"
        " reference takes minutes on crazy's whole corpus)",
    )
    parser.add_argument(
        "--repeats",
        metavar="N",
        type=_count(1, MAX_REPEATS),
        default=DEFAULT_REPEATS,
        help=f"timed repeats (default {DEFAULT_REPEATS})",
    )
    parser.add_argument(
        "--games",
        metavar="N",
        type=_count(1),
        default=DEFAULT_GAMES,
        help=f"games per measurement of the core's playouts (default {DEFAULT_GAMES:,})",
    )
    parser.add_argument(
        "--gnubg-games",
        metavar="N",
        type=_count(0),
        default=DEFAULT_GNUBG_GAMES,
        help=f"games of GNU Backgammon's Python loop (default {DEFAULT_GNUBG_GAMES:,}; 0 leaves it out)",
    )
    parser.add_argument(
        "--reference-games",
        metavar="N",
        type=_count(0),
        default=DEFAULT_REFERENCE_GAMES,
        help=f"games of the reference's playouts, about 20 a second (default {DEFAULT_REFERENCE_GAMES}; 0 leaves"
        " them out)",
    )
    parser.add_argument(
        "--variant",
        metavar="VARIANT",
        action="append",
        choices=VARIANTS,
        help=f"measure the positions of this variant only, one of {', '.join(VARIANTS)} (repeat the option for"
        " several; default: all)",
    )
    parser.add_argument(
        "--section",
        metavar="SECTION",
        action="append",
        choices=SECTIONS,
        help="run this section only: positions (the move generators) or games (whole games); repeat the option"
        " for both (the default)",
    )


def _bounded(field: str, value: object, low: int, high: int) -> int:
    """An integer ``low..high`` given to :func:`main`, else a ``NardyError`` naming ``field``."""
    number = integer(value)
    if number is None or not low <= number <= high:
        raise field_error(NardyError, field, f"must be an integer {low}..{high}", value)
    return number


def _names(field: str, value: object, choices: tuple[str, ...]) -> tuple[str, ...]:
    """One or more names among ``choices`` given to :func:`main`, else a ``NardyError`` naming ``field``."""
    found = items(value)
    names = None if found is None else tuple(choice(name, choices) for name in found)
    if not names or any(name is None for name in names):
        raise field_error(NardyError, field, f"must be one or more of {choices}", value)
    return cast("tuple[str, ...]", names)


def command(args: argparse.Namespace) -> int:
    """Run the ``bench`` command with the options of :func:`add_arguments`."""
    return main(
        args.size,
        args.reference_size,
        args.repeats,
        games=args.games,
        gnubg_games_count=args.gnubg_games,
        reference_games=args.reference_games,
        variants=tuple(args.variant or VARIANTS),
        sections=tuple(args.section or SECTIONS),
    )


def main(
    size: int = DEFAULT_SIZE,
    reference_size: Optional[int] = None,
    repeats: int = DEFAULT_REPEATS,
    *,
    games: int = DEFAULT_GAMES,
    gnubg_games_count: int = DEFAULT_GNUBG_GAMES,
    reference_games: int = DEFAULT_REFERENCE_GAMES,
    variants: Sequence[str] = VARIANTS,
    sections: Sequence[str] = SECTIONS,
    progress: Progress = _stderr_progress,
) -> int:
    """Run the benchmark: print its settings and legend, then each section's table as it ends, with
    progress on stderr.

    The counts are bounded as the command's options are: ``size`` and ``reference_size`` 1..``corpus.SIZE``,
    ``repeats`` 1..:data:`MAX_REPEATS`, ``games`` 1..:data:`MAX_GAMES` (with one game, the two-process
    control is left out, and the report says so), ``gnubg_games_count`` and ``reference_games``
    0..:data:`MAX_GAMES`; ``variants`` and ``sections`` are one or more names of ``VARIANTS`` and
    :data:`SECTIONS`. Anything else is a ``NardyError`` naming the argument."""
    from . import IMPLEMENTATION

    size = _bounded("size", size, 1, corpus.SIZE)
    if reference_size is not None:
        reference_size = _bounded("reference_size", reference_size, 1, corpus.SIZE)
    repeats = _bounded("repeats", repeats, 1, MAX_REPEATS)
    games = _bounded("games", games, 1, MAX_GAMES)
    gnubg_games_count = _bounded("gnubg_games_count", gnubg_games_count, 0, MAX_GAMES)
    reference_games = _bounded("reference_games", reference_games, 0, MAX_GAMES)
    variants = _names("variants", variants, VARIANTS)
    sections = _names("sections", sections, SECTIONS)
    if not callable(progress):
        raise field_error(NardyError, "progress", "must be a callable taking a message", progress)
    reference = size if reference_size is None else min(reference_size, size)
    print(
        f"nardy_fast bench: implementation {IMPLEMENTATION}; {size:,} corpus positions per variant (reference"
        f" legal_moves on the first {reference:,}); {games:,} games per playout; medians of {repeats} repeats"
    )
    print(LEGEND, flush=True)
    if "positions" in sections:
        results = run_positions(variants, size, reference_size, repeats, progress)
        progress("bench positions: done")
        print("\n" + report_positions(results), flush=True)
    if "games" in sections:
        measures = run_games(games, gnubg_games_count, reference_games, repeats, progress)
        progress("bench games: done")
        print("\n" + report_games(measures), flush=True)
    if sys.stderr.isatty():
        sys.stderr.write("\n")
    return 0


if __name__ == "__main__":
    # the same program as ``python -m nardy_fast bench`` (its parser, its one-line errors), run as a script:
    # this module is imported by the command line, which it does not import back
    import runpy

    sys.argv[1:1] = ["bench"]
    runpy.run_module("nardy_fast", run_name="__main__", alter_sys=True)
