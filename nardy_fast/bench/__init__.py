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

The job prints each variant's rows as soon as they are measured, and after each section's table one verdict
line per comparison (:mod:`~nardy_fast.bench.verdicts`: its target, and whether a two-thread ratio was taken
on a loaded machine, which its two-process control says). Its progress line gives the percent done and the
time left, estimated from the work planned and corrected by the work measured, and is redrawn at least
every second.

Its parts: ``harness`` (what a measurement is and how it is timed, and the progress line), ``parallel`` (work
split across threads and processes), ``peers`` (GNU Backgammon's boards, move generator and game loop),
``positions`` and ``games`` (each section's measurements, run and table), ``verdicts`` (a line per
comparison) and ``cli`` (the command's options and :func:`main`); beside the job, ``duels`` (duels of built-in
players against greedy playouts doing the same work, ``python -m nardy_fast.bench.duels``).
"""

from __future__ import annotations

from .cli import LEGEND, LONG_RUN, MAX_GAMES, MAX_REPEATS, SECTIONS, add_arguments, command, main
from .games import (
    DEFAULT_GAMES,
    DEFAULT_GNUBG_GAMES,
    DEFAULT_REFERENCE_GAMES,
    POLICY_BATCH,
    core_games,
    game_works,
    games_in_processes,
    games_plan,
    random_policy,
    report_games,
    run_games,
)
from .harness import DEFAULT_REPEATS, MIN_SECONDS, TICK_SECONDS, Count, Measure, Tracker, Work, timed
from .harness import SEED as SEED
from .harness import Progress as Progress
from .harness import Rows as Rows
from .parallel import MAX_PARTS, balanced_parts, balanced_split, batched, in_processes
from .peers import (
    GNUBG_INSTALL,
    GnubgGame,
    gnubg_board,
    gnubg_boards,
    gnubg_game,
    gnubg_games,
    gnubg_greedy_game,
    gnubg_greedy_games,
    gnubg_installed,
    gnubg_work,
)
from .peers import Board as Board
from .positions import (
    DEFAULT_REFERENCE_SIZE,
    DEFAULT_SIZE,
    DOMINANT_SHARE,
    TOP_FRACTION,
    PositionsResult,
    per_array,
    per_call,
    position_works,
    positions_header,
    positions_plan,
    positions_rows,
    report_positions,
    run_positions,
    top_share,
)
from .verdicts import (
    GNUBG_TARGET,
    LOADED_CONTROL,
    LONG_TARGET,
    POLICY_TARGET,
    THREADS_TARGET,
    games_verdicts,
    parallel_verdict,
    positions_verdicts,
)

__all__ = [
    "DEFAULT_SIZE",
    "DEFAULT_REFERENCE_SIZE",
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
    "LONG_RUN",
    "LEGEND",
    "TICK_SECONDS",
    "LOADED_CONTROL",
    "THREADS_TARGET",
    "GNUBG_TARGET",
    "LONG_TARGET",
    "POLICY_TARGET",
    "GNUBG_INSTALL",
    "Count",
    "Measure",
    "Work",
    "Tracker",
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
    "positions_plan",
    "run_positions",
    "positions_header",
    "positions_rows",
    "report_positions",
    "gnubg_installed",
    "gnubg_board",
    "gnubg_boards",
    "gnubg_work",
    "GnubgGame",
    "gnubg_game",
    "gnubg_games",
    "gnubg_greedy_game",
    "gnubg_greedy_games",
    "core_games",
    "games_in_processes",
    "random_policy",
    "game_works",
    "games_plan",
    "run_games",
    "report_games",
    "parallel_verdict",
    "positions_verdicts",
    "games_verdicts",
    "add_arguments",
    "command",
    "main",
]

