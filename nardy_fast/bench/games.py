"""The bench's games section: whole random games of the core (one thread, two, two processes, a Python
policy) against GNU Backgammon's Python loop and the reference's playouts, and its table."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from .._dispatch import implementations
from ..errors import NardyError, field_error
from ..inputs import integer
from .harness import DEFAULT_REPEATS, SEED, Count, Measure, Progress, Work, bounded, quiet, timed
from .parallel import MAX_PARTS, parallel_ratios, parts_in_processes
from .peers import gnubg_games

__all__ = [
    "DEFAULT_GAMES",
    "DEFAULT_GNUBG_GAMES",
    "DEFAULT_REFERENCE_GAMES",
    "POLICY_BATCH",
    "core_games",
    "games_in_processes",
    "random_policy",
    "game_works",
    "run_games",
    "report_games",
]

#: Games per measurement of the core's playouts (about a second of work: fewer, and starting a second thread
#: weighs on the two-thread figure), of GNU Backgammon's loop (about 1,500 a second) and of the reference's
#: playouts (about 20 a second).
DEFAULT_GAMES = 20_000
DEFAULT_GNUBG_GAMES = 300
DEFAULT_REFERENCE_GAMES = 10
#: The batch of the callable policy: the games it is called for at once, once a ply.
POLICY_BATCH = 1_000


def _playout_count(start: str, games: int, seed: int, threads: int = 1, first_game: int = 0) -> Count:
    from .. import playout

    records = playout(start, games, seed=seed, threads=threads, first_game=first_game)
    return Count(len(records), int(records["plies"].sum()))


def core_games(start: str, games: int, seed: int = SEED, threads: int = 1) -> Callable[[], Count]:
    """``nardy_fast.playout(start, games, seed=seed, threads=threads)``, the built-in random policy."""
    return functools.partial(_playout_count, start, games, seed, threads)


def games_in_processes(start: str, games: int, seed: int = SEED, count: int = 2) -> Callable[[], Count]:
    """The control of ``core_games(start, games, seed, count)``: the same games, split by number
    (``first_game``), at once in ``count`` processes (1..:data:`MAX_PARTS`): at least one game each."""
    count = bounded("count", count, 1, MAX_PARTS)
    if integer(games) is None or games < count:
        raise field_error(NardyError, "games", f"must be at least {count}, a game for each process", games)
    bounds = [games * i // count for i in range(count + 1)]
    return parts_in_processes(
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
    from .. import playout

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
    from .. import IMPLEMENTATION

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
    progress: Progress = quiet,
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
            ratios += parallel_ratios(m, short, "game")
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
