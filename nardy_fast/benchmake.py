"""The making of a rolled-out benchmark database (docs/benchmarks.md, Rolled-out benchmark databases), one
position at a time so that a long run can stop and resume (``tools/make_benchmark_db.py``): which positions,
which candidate moves, and each candidate's equity by a rollout of the package itself.

* **Positions**: the variant's shipped corpus (:mod:`nardy_fast.corpus`, seeded random self-play) in an order
  drawn from the seed, skipping the positions with a single legal move (they lose nothing whatever the
  evaluator, and would only dilute the error rate); every ``held_out_every``-th kept position is held out.
* **Candidates**: every legal move when there are at most ``candidates`` of them, else the ``candidates`` best
  by ``filter_evaluator`` searched ``filter_plies`` deep (:meth:`Position.hint`).
* **Equities**: each candidate's result is rolled out ``trials`` games by :func:`nardy_fast.rollout` with
  ``Greedy(player, player_plies)`` on both sides, stratified when ``trials`` is a multiple of 1,296, truncated at
  the bear-off by the exact tables when ``truncate`` is ``"bearoff"`` and after ``truncate_plies`` plies (scored
  by the player's evaluator at 0 ply) when that is set, with one seed for every candidate of a
  position (common random numbers: the candidates are played out on the same dice, so the noise of their
  differences, which is what a benchmark measures, is far below that of each equity). A rollout's equity is for
  the side to move in the rolled-out position, which is the mover again after an extra roll (six-one, gulbar)
  and the opponent otherwise: it is turned to the mover's view by the rollout's own ``turn``. A move that ends the
  game is scored by its outcome, exactly.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple, Optional

import numpy as np
import numpy.typing as npt

from . import corpus, layout
from .benchdb import FORMAT, VERSION, BenchmarkDatabase
from .errors import NardyError, field_error
from .evaluation.classes import classify
from .kernels import kernels_of
from .policies import Greedy
from .rollouts import roll_out, rollout_options

if TYPE_CHECKING:
    from .analysis import AnalysedPosition

__all__ = ["Settings", "Entry", "draw", "entry_seed", "roll_out_entry", "Job", "Made", "roll_out_job", "assemble",
           "STRATA"]

#: A rollout is stratified (its first two rolls balanced) when its games are a multiple of this.
STRATA = 36 * 36


@dataclass(frozen=True)
class Settings:
    """How a database is made (the module docstring); all of it goes into the database's ``meta``."""

    variant: str
    positions: int
    trials: int
    candidates: int
    seed: int
    player: str = "net"
    player_plies: int = 0
    filter_evaluator: str = "net"
    filter_plies: int = 2
    truncate: Optional[str] = "bearoff"
    held_out_every: int = 10
    truncate_plies: Optional[int] = None


@dataclass(frozen=True)
class Entry:
    """One position of a database: its corpus index, row, roll (``(0, 0)``: its pending list), whether it is held
    out, and its candidates' rows, equities (mover's view) and standard errors."""

    source: int
    row: npt.NDArray[np.int8]
    roll: tuple[int, int]
    held_out: bool
    children: npt.NDArray[np.int8]
    equities: npt.NDArray[np.float64]
    stderrs: npt.NDArray[np.float64]


def draw(position_class: type[AnalysedPosition], settings: Settings) -> Iterator[tuple[int, AnalysedPosition, tuple[int, int]]]:
    """The positions of a database in order, as (corpus index, position, roll): the corpus shuffled by the seed,
    unfinished positions with more than one legal move only."""
    rows, rolls = corpus.load(settings.variant)
    order = list(range(len(rows)))
    random.Random(settings.seed).shuffle(order)
    for source in order:
        position = position_class.from_array(rows[source])
        roll = (int(rolls[source][0]), int(rolls[source][1]))
        if position.is_over() or len(position.legal_moves(roll if roll[0] else None)) < 2:
            continue
        yield source, position, roll


def entry_seed(seed: int, index: int) -> int:
    """The rollout seed of the ``index``-th position (every candidate of it shares it): distinct per position."""
    return (seed * 1_000_003 + index) % (1 << 63)


def _mover_equity(child: AnalysedPosition, mover: int) -> tuple[float, float]:
    """A finished game's exact equity for the ``mover`` (0 White, 1 Black): its points, won or lost."""
    row = child.to_array()[None, :]
    points = float(layout.points(row)[0])
    return (points if int(layout.winner(row)[0]) == mover else -points), 0.0


def roll_out_entry(position: AnalysedPosition, roll: tuple[int, int], index: int, settings: Settings
                   ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """The candidates of ``position`` for ``roll`` and their rolled-out equities and standard errors, for the
    ``index``-th position of a database made with ``settings`` (the module docstring)."""
    dice = roll if roll[0] else None
    moves = position.legal_moves(dice)
    if len(moves) > settings.candidates:
        ranked = position.hint(dice, evaluator=settings.filter_evaluator, plies=settings.filter_plies)
        moves = [move for move, _ in ranked[: settings.candidates]]
    mover = int(layout.turn(position.to_array()[None, :])[0])
    kernels = kernels_of(position)
    options = rollout_options(policy=Greedy(settings.player, settings.player_plies),
                              stratify=settings.trials % STRATA == 0, truncate=settings.truncate,
                              truncate_plies=settings.truncate_plies)
    seed = entry_seed(settings.seed, index)
    children = np.zeros((len(moves), layout.WIDTH), dtype=np.int8)
    equities = np.zeros(len(moves))
    stderrs = np.zeros(len(moves))
    for n, move in enumerate(moves):
        child = move.result
        children[n] = child.to_array()
        if child.is_over():
            equities[n], stderrs[n] = _mover_equity(child, mover)  # type: ignore[arg-type]
            continue
        result = roll_out(kernels, child, settings.trials, seed, options)  # the same dice for every candidate
        sign = 1.0 if result.turn == position.turn else -1.0
        equities[n], stderrs[n] = sign * result.equity, result.equity_stderr
    return children, equities, stderrs


class Job(NamedTuple):
    """A position to make in a worker: its number in the database, its corpus row, the position, its roll and
    the settings."""

    number: int
    source: int
    position: AnalysedPosition
    roll: tuple[int, int]
    settings: Settings


class Made(NamedTuple):
    """A made position: its candidates, their equities and standard errors, and the seconds they took."""

    children: npt.NDArray[np.int8]
    equities: npt.NDArray[np.float64]
    stderrs: npt.NDArray[np.float64]
    took: float


def roll_out_job(job: Job) -> Made:
    """:func:`roll_out_entry` of one job, timed: what a worker of ``tools/make_benchmark_db.py`` runs (each
    position's rollouts are seeded by its index alone, so any worker makes the same entry)."""
    started = time.perf_counter()
    children, equities, stderrs = roll_out_entry(job.position, job.roll, job.number, job.settings)
    return Made(children, equities, stderrs, time.perf_counter() - started)


def assemble(entries: list[Entry], meta: dict[str, object]) -> BenchmarkDatabase:
    """The database of ``entries`` (one at least) in order, with ``meta`` and its ``format`` and ``version``."""
    if not entries:
        raise field_error(NardyError, "entries", "must hold one position at least", entries)
    rows = np.array([entry.row for entry in entries], dtype=np.int8)
    sizes = [len(entry.equities) for entry in entries]
    return BenchmarkDatabase(
        rows=rows,
        rolls=np.array([entry.roll for entry in entries], dtype=np.int8),
        classes=classify(rows),
        held_out=np.array([entry.held_out for entry in entries], dtype=bool),
        offsets=np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
        children=np.concatenate([entry.children for entry in entries]),
        equities=np.concatenate([entry.equities for entry in entries]),
        stderrs=np.concatenate([entry.stderrs for entry in entries]),
        meta={**meta, "format": FORMAT, "version": VERSION},
    )
