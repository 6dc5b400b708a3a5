"""The bench's games section: whole random games of the core (one thread, two, two processes, a Python
policy) against GNU Backgammon's Python loop and the reference's playouts, and its table."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from .. import implementations
from ..errors import NardyError, field_error
from ..inputs import integer
from ..playouts import split_range
from .harness import (
    DEFAULT_REPEATS,
    SEED,
    Count,
    Measure,
    Progress,
    Work,
    bounded,
    quiet,
    stage,
    timed,
    timed_estimate,
)
from .parallel import MAX_PARTS, PROCESS_START_SECONDS, parallel_ratios, parts_in_processes
from .peers import GNUBG_INSTALL, gnubg_games, gnubg_installed

__all__ = [
    "DEFAULT_GAMES",
    "DEFAULT_GNUBG_GAMES",
    "DEFAULT_REFERENCE_GAMES",
    "POLICY_BATCH",
    "core_games",
    "games_in_processes",
    "random_policy",
    "game_works",
    "games_plan",
    "run_games",
    "report_games",
]

#: Games per measurement of the core's playouts (a quarter of a second of work, so that the whole job answers
#: in about a minute on a loaded machine; ``--long`` plays 20,000), of GNU Backgammon's loop (about 1,300 a
#: second) and of the reference's playouts (about 20 a second).
DEFAULT_GAMES = 4_000
DEFAULT_GNUBG_GAMES = 300
DEFAULT_REFERENCE_GAMES = 5
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
    return parts_in_processes(
        [
            functools.partial(_playout_count, start, last - first, seed, 1, first)
            for first, last in split_range(0, games, count)
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


_POLICY_LABEL = f"core playout short, NumPy policy, batch {POLICY_BATCH:,}"
#: Games per second of each measurement on a quiet machine, for the time left before a run measures it (the
#: estimates only steer the progress line).
_GAMES_PER_SECOND = {
    "core playout short": 15e3,
    "core playout long": 20e3,
    "core playout short, 2 threads": 25e3,
    "core playout short, 2 processes": 25e3,
    _POLICY_LABEL: 7e3,
    "gnubg_nn Python loop short": 1.3e3,
    "reference playout short": 22.0,
}


def _game_labels(games: int, gnubg_games_count: int, reference_games: int) -> list[tuple[str, int, bool]]:
    """The games section's measurements: (label, games, warm-up), in order."""
    from .. import IMPLEMENTATION

    labels = []
    if IMPLEMENTATION == "cython":
        labels += [
            ("core playout short", games, False),
            ("core playout long", games, False),
            ("core playout short, 2 threads", games, True),
        ]
        if games >= 2:  # one game cannot be split in two (report_games says it was left out)
            labels.append(("core playout short, 2 processes", games, True))
        labels.append((_POLICY_LABEL, games, False))
    if gnubg_games_count and gnubg_installed():
        labels.append(("gnubg_nn Python loop short", gnubg_games_count, False))
    if reference_games:
        labels.append(("reference playout short", reference_games, False))
    return labels


def game_works(games: int, gnubg_games_count: int, reference_games: int) -> list[Work]:
    """The games section: short nardy unless said, random policy, one thread unless said."""
    makers: dict[str, Callable[[int], Callable[[], Count]]] = {
        "core playout short": lambda n: core_games("short", n),
        "core playout long": lambda n: core_games("long", n),
        "core playout short, 2 threads": lambda n: core_games("short", n, threads=2),
        "core playout short, 2 processes": lambda n: games_in_processes("short", n),
        _POLICY_LABEL: lambda n: _callable_games("short", n),
        "gnubg_nn Python loop short": gnubg_games,
        "reference playout short": lambda n: _reference_games("short", n),
    }
    return [
        Work(label, makers[label](n), n, warm_up=warm_up, estimate=n / _GAMES_PER_SECOND[label])
        for label, n, warm_up in _game_labels(games, gnubg_games_count, reference_games)
    ]


def games_plan(
    games: int = DEFAULT_GAMES,
    gnubg_games_count: int = DEFAULT_GNUBG_GAMES,
    reference_games: int = DEFAULT_REFERENCE_GAMES,
    repeats: int = DEFAULT_REPEATS,
) -> list[tuple[str, float]]:
    """The stage of :func:`run_games` and the seconds it is expected to take on a quiet machine, for a
    :class:`~nardy_fast.bench.harness.Tracker`'s time left."""
    labels = _game_labels(games, gnubg_games_count, reference_games)
    runs = [(n / _GAMES_PER_SECOND[label], warm_up) for label, n, warm_up in labels]
    start = PROCESS_START_SECONDS if any(label.endswith("2 processes") for label, _, _ in labels) else 0.0
    return [("games", start + timed_estimate(runs, repeats))]


def run_games(
    games: int = DEFAULT_GAMES,
    gnubg_games_count: int = DEFAULT_GNUBG_GAMES,
    reference_games: int = DEFAULT_REFERENCE_GAMES,
    repeats: int = DEFAULT_REPEATS,
    progress: Progress = quiet,
) -> list[Measure]:
    """The games section's measurements."""
    with stage(progress, "games"):
        progress("bench games, preparing")
        works = game_works(games, gnubg_games_count, reference_games)
        return timed(works, repeats, progress, "bench games, ")


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
        omitted.append(
            "GNU Backgammon's loop (--gnubg-games 0)"
            if gnubg_installed()
            else f"GNU Backgammon's loop (gnubg-nn is not installed: {GNUBG_INSTALL})"
        )
    if "reference playout short" not in by_label:
        omitted.append("the reference's playouts (--reference-games 0)")
    if omitted:
        lines.append("not measured: " + "; ".join(omitted))
    return "\n".join(line.rstrip() for line in lines)
