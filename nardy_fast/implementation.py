"""One implementation's public objects, assembled from its kernels: the single place where the checks, the
errors and the documentation of the batch API, the encodings, playouts and rollouts meet an implementation.

An implementation (the reference, the compiled core) supplies its ``Position`` class and its kernels
(:class:`Kernels`); :class:`Implementation` is the frozen record of what it offers, whose methods are the
package's functions for it (``nardy_fast.reference.playout`` is ``reference.IMPLEMENTATION_RECORD.playout``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Optional, Union, overload

import numpy as np
import numpy.typing as npt

from .analysis import AnalysedPosition
from .batch import BatchResult, as_array, check_rows
from .bearoff.store import (
    CUBEFUL_DOC,
    ONE_SIDED_DOC,
    TWO_SIDED_DOC,
    one_sided_table,
    two_sided_cubeful_table,
    two_sided_table,
)
from .bearoff.tables import CubefulTwoSided, OneSided, TwoSided
from .cube import Cube, CubeDecision, Match, MatchEquityTable
from .cubeduel import CubeDuelResult, session_match
from .cubeful import cube_decisions
from .cubeplayouts import cube_playout
from .cuberollouts import CubefulRollout, cube_roll_out, cube_state
from .duel import DUEL_DOC, DuelResult
from .duel import duel as play_duel
from .duelrecords import playout_match_records
from .encodings import Features, check_out, check_scheme
from .encodings import explain as explain_row
from .errors import NardyError
from .evaluation.evaluators import evaluate
from .kernels import HintKernel, Kernels
from .layout import WIDTH, Rows
from .playouts import PLAYOUT_DOC, Played, PlayoutOptions, Records, Trajectories, play
from .policies import hint_moves
from .position import Move
from .position import Position as BasePosition
from .records import MatchRecord
from .rollouts import (
    ROLLOUT_DOC,
    Rollout,
    check_position,
    check_progress,
    roll_out,
    rollout_options,
    rollout_parts,
    warn_unbalanced,
)
from .vector import Games as BaseGames

__all__ = ["Kernels", "Implementation", "HintKernel"]


@dataclass(frozen=True)
class Implementation:
    """The public objects of one implementation: its ``Position`` and ``Games`` classes and, as methods, the
    package's functions over its kernels (the same checks, errors and documentation for every
    implementation)."""

    name: str
    Position: type[AnalysedPosition]
    kernels: Kernels
    Games: type[BaseGames]

    def __post_init__(self) -> None:
        if self.kernels.name != self.name:
            raise ValueError(f"{self.name}: its kernels must be its own")

    def one_sided(self, variant: str, *, checkers: int = 15, cache: bool = False, **flags: object) -> OneSided:  # noqa: D102 - ONE_SIDED_DOC
        return one_sided_table(self.name, self.kernels.one_sided, variant, checkers, cache, flags)

    def two_sided(self, variant: str, *, checkers: int = 6, **flags: object) -> TwoSided:  # noqa: D102 - TWO_SIDED_DOC
        return two_sided_table(self.name, self.kernels.two_sided, variant, checkers, flags)

    def two_sided_cubeful(self, variant: str, *, checkers: int = 6, **flags: object) -> CubefulTwoSided:  # noqa: D102 - CUBEFUL_DOC
        return two_sided_cubeful_table(self.name, self.kernels.two_sided_cubeful, variant, checkers, flags)

    def evaluate(self, rows: object, evaluator: object) -> npt.NDArray[np.float64]:
        """The values of positions for their sides to move by ``evaluator``: (N, 5) float64 for packed rows
        (N, 64), (5,) for one row (64,) or one ``Position``, in :data:`nardy_fast.evaluation.OUTPUTS` order
        (win, win with mars or more, win with koks, lose with mars or more, lose with koks); their points per
        game are :func:`nardy_fast.equity` of them.

        ``evaluator`` is a built-in one's name (``"net"``, the default: the network shipped for each variant in
        contact, the race evaluator in races; ``"network"`` that network alone; ``"heuristic"`` for every variant,
        ``"pubeval"`` for short nardy, ``"race"`` for races: docs/rules.md, Evaluation), a
        :class:`~nardy_fast.Network` of the rows' variant, or any object with an ``evaluate(rows)`` method, called
        once with read-only copies of the unfinished rows (n, 64) and returning (n, 5) probabilities (checked:
        shape, real numbers, no NaN, nested in [0, 1]). A finished game is valued by its outcome, never by the
        evaluator. The rows are copied and checked first, as for ``encode``: a row that is no position is refused
        (``rows[i]: ...``) before any evaluator sees one. The compiled core evaluates built-in evaluators in C
        without the GIL (Ctrl-C stops it within a second)."""
        return evaluate(self.kernels, rows, evaluator)

    def cube_decisions(
        self, rows: object, *, evaluator: object = None, cube: Optional[Cube] = None, match: Optional[Match] = None,
        table: Optional[MatchEquityTable] = None, plies: int = 0,
    ) -> CubeDecision:
        """The cube decisions of many positions at once (:meth:`Position.cube_decision` of each, one
        :class:`~nardy_fast.cube.CubeDecision` of arrays): packed rows (N, 64), their sides to move on roll,
        valued by ``evaluator`` (``None``: ``"net"``) with ``cube`` and ``match`` (and ``table``) as
        :meth:`Position.cube_decision` takes them; one row (64,) or one ``Position`` gives numbers and one
        action. At 0 ply, the batch path: one evaluator call and Janowski's formulas over arrays. The rows are
        copied and checked as ``evaluate`` checks them."""
        return cube_decisions(self.kernels, rows, evaluator, cube, match, table, plies)

    def hint(
        self, position: BasePosition, roll: Optional[Sequence[int]] = None, evaluator: object = "net", plies: int = 0
    ) -> list[tuple[Move, float]]:
        """:meth:`Position.hint` of one of this implementation's positions."""
        return hint_moves(self.kernels, position, roll, evaluator, plies)

    @overload
    def duel(
        self, a: object, b: object, variant: str, games: int = 2000, *, seed: int = 0, first_game: int = 0,
        batch: int = 1000, threads: int = 1, progress: Optional[Callable[[int], None]] = None,
        cube: Literal[False] = False, match: None = None, match_records: bool = False, **flags: object,
    ) -> DuelResult: ...
    @overload
    def duel(
        self, a: object, b: object, variant: str, games: int = 2000, *, seed: int = 0, first_game: int = 0,
        batch: int = 1000, threads: int = 1, progress: Optional[Callable[[int], None]] = None,
        cube: bool = False, match: Union[int, Match, None] = None, match_records: bool = False, **flags: object,
    ) -> Union[DuelResult, CubeDuelResult]: ...
    def duel(  # noqa: D102 - DUEL_DOC
        self,
        a: object,
        b: object,
        variant: str,
        games: int = 2000,
        *,
        seed: int = 0,
        first_game: int = 0,
        batch: int = 1000,
        threads: int = 1,
        progress: Optional[Callable[[int], None]] = None,
        cube: bool = False,
        match: Union[int, Match, None] = None,
        match_records: bool = False,
        **flags: object,
    ) -> Union[DuelResult, CubeDuelResult]:
        return play_duel(
            self.kernels, a, b, variant, games, seed=seed, first_game=first_game, batch=batch, threads=threads,
            progress=progress, flags=flags, cube=cube, match=match, match_records=match_records,
            position_class=self.Position,
        )  # fmt: skip

    def segment_argmax(self, scores: object, offsets: object) -> npt.NDArray[np.int64]:
        """For each segment ``i`` of ``scores`` (``offsets`` in CSR form, as ``batch_children`` and a callable
        playout policy give them), the index within it of its highest score: the first of equal highest
        ones, as ``numpy.argmax``. One int64 per segment: the choices of a policy that scores every child.
        ``scores`` is a 1-D array of real numbers without NaN, ``offsets`` rises strictly from 0 to
        ``len(scores)`` (every segment holds a score); both are copied before they are checked and read. The
        compiled core runs without the GIL."""
        return self.kernels.segment_argmax(scores, offsets)

    def batch_children(self, positions: object, rolls: object, *, max_results: Optional[int] = None) -> BatchResult:
        """All children of N positions, in CSR form, with no Python object per child.

        ``positions`` is an integer array (N, 64) of rows (:mod:`nardy_fast.layout`), ``rolls`` an array (N,
        2), or one roll for all; a row whose position has a pending list takes the roll (0, 0), and so may a
        finished one (a finished game has no children, with or without dice). Returns
        ``(children, offsets, keys)``: the children of row ``i`` are ``children[offsets[i]:offsets[i+1]]`` (in
        ``legal_moves`` order) with their Zobrist keys in ``keys``. ``max_results`` bounds each row's search as
        in ``Position.legal_moves`` (the error names the row).

        The compiled core releases the GIL while it works, so threads scale; it reads each row once, into
        memory of its own, so an array changed by another thread meanwhile gives the children of the rows as
        they were read, or an error, never a crash. Its ``children`` and ``keys`` are views of buffers with
        room to spare (24 rows per position, or a larger buffer an earlier call freed; room never written is
        not mapped in large outputs). Freed buffers, up to 128 MB of each kind, are kept for the next calls,
        whose pages then need no fault, and so are the idle search workspaces, up to 128 MB in all.
        """
        return self.kernels.batch_children(positions, rolls, max_results=max_results)

    def children(
        self, position: object, dice: Optional[Sequence[int]] = None, *, max_results: Optional[int] = None
    ) -> Rows:
        """The children of one position row for ``dice`` (omitted for a pending list, and may be for a finished
        game, which has none), as one (k, 64) array; ``max_results`` as in ``Position.legal_moves``."""
        return self.kernels.children(position, dice, max_results=max_results)

    def encode(self, rows: object, scheme: str, out: Optional[Features] = None) -> Features:
        """The network inputs of packed rows: a ``float32`` array (N, F) for rows (N, 64), a vector (F,) for
        one row (64,) or one ``Position``.

        ``scheme`` is one of :data:`nardy_fast.SCHEMES` (``"tdgammon"``, ``"openspiel"``, ``"nardy"``,
        ``"expert"``; layouts in :mod:`nardy_fast.encodings`). ``out``, when given, is a writable C-contiguous ``float32``
        array of the result's shape: the features are written there and it is returned (after an error its
        contents are unspecified). Every row is checked as ``Position.from_array`` checks it (the error names
        the row), and must be of a variant the scheme encodes. The rows are copied first, and that copy is
        checked, encoded and quoted in errors: ``out`` may overlap ``rows``, and another thread may change
        them meanwhile (each row is then encoded as it was copied, or is an error). The compiled core encodes
        without the GIL.
        """
        checked = check_scheme(scheme)
        if isinstance(rows, BasePosition):
            rows = rows.to_array()  # one position: its vector
        array = as_array(rows, "rows", NardyError, f"(N, {WIDTH})")
        matrix = check_rows(array, "rows")
        shape = (checked.features,) if array.ndim == 1 else (len(matrix), checked.features)
        if out is None:
            result = target = np.zeros(shape, dtype=np.float32)
        else:
            result, target = out, check_out(out, shape)
        # the core writes through a C float pointer: an unaligned out is filled from an aligned array
        written = target if target.flags.aligned else np.zeros(shape, dtype=np.float32)
        bad = self.kernels.encode(matrix, checked.name, written.reshape(len(matrix), checked.features))
        if bad >= 0:
            raise explain_row(matrix, bad, checked)
        if written is not target:
            target[...] = written
        return result

    @overload
    def playout(
        self,
        start: object,
        games: int,
        *,
        seed: int = ...,
        policy: object = ...,
        threads: int = ...,
        opening: str = ...,
        first_game: int = ...,
        stratify: bool = ...,
        batch: int = ...,
        trajectories: Literal[False] = ...,
        truncate: Optional[str] = ...,
        truncate_plies: Optional[int] = ...,
        max_results: Optional[int] = ...,
        cube: bool = ...,
        match: Union[int, Match, None] = ...,
        **flags: object,
    ) -> Records: ...
    @overload
    def playout(
        self,
        start: object,
        games: int,
        *,
        seed: int = ...,
        policy: object = ...,
        threads: int = ...,
        opening: str = ...,
        first_game: int = ...,
        stratify: bool = ...,
        batch: int = ...,
        trajectories: Literal[True],
        truncate: Optional[str] = ...,
        truncate_plies: Optional[int] = ...,
        max_results: Optional[int] = ...,
        cube: bool = ...,
        match: Union[int, Match, None] = ...,
        **flags: object,
    ) -> tuple[Records, Trajectories]: ...
    def playout(  # noqa: D102 - PLAYOUT_DOC
        self,
        start: object,
        games: int,
        *,
        seed: int = 0,
        policy: object = "random",
        threads: int = 1,
        opening: str = "fresh_roll",
        first_game: int = 0,
        stratify: bool = False,
        batch: int = 1000,
        trajectories: bool = False,
        truncate: Optional[str] = None,
        truncate_plies: Optional[int] = None,
        max_results: Optional[int] = None,
        cube: bool = False,
        match: Union[int, Match, None] = None,
        **flags: object,
    ) -> Played:
        options = PlayoutOptions(
            policy, threads, opening, first_game, stratify, batch, trajectories, truncate, max_results, flags,
            truncate_plies=truncate_plies,
        )
        session = session_match(cube, match)
        if session is not None:
            return cube_playout(self.kernels, start, games, seed, options, session)
        return self.play(start, games, seed, options)

    def playout_match_records(
        self, start: object, games: int, *, seed: int = 0, policy: object = "random", opening: str = "fresh_roll",
        first_game: int = 0, stratify: bool = False, max_results: Optional[int] = None, cube: bool = False,
        match: Union[int, Match, None] = None, **flags: object,
    ) -> tuple[MatchRecord, ...]:
        """The games a :meth:`playout` with the same arguments plays, as match records (docs/rules.md, Match
        records of duels and playouts): record ``i`` is game ``first_game + i`` (a money game, or one without
        the cube) or match ``first_game + i``, the policy's ``repr`` for both players. Played again in the one
        Python game loop, at most 1,000 a call (``games``)."""
        options = PlayoutOptions(policy, 1, opening, first_game, stratify, 1000, False, None, max_results, flags)
        session = session_match(cube, match)
        return playout_match_records(self.kernels, self.Position, start, games, seed, options, session)

    def play(self, start: object, games: object, seed: object, options: PlayoutOptions) -> Played:
        """:meth:`playout` with its options as one value (:class:`~nardy_fast.playouts.PlayoutOptions`)."""
        return play(self.kernels, start, games, seed, options)

    @overload
    def rollout(
        self,
        position: BasePosition,
        games: int = 1296,
        *,
        seed: int = 0,
        policy: object = "random",
        stratify: bool = True,
        threads: int = 1,
        first_game: int = 0,
        batch: int = 1000,
        truncate: Optional[str] = None,
        truncate_plies: Optional[int] = None,
        max_results: Optional[int] = None,
        progress: Optional[Callable[[int], object]] = None,
        cube: None = None,
        match: None = None,
    ) -> Rollout: ...
    @overload
    def rollout(
        self,
        position: BasePosition,
        games: int = 1296,
        *,
        seed: int = 0,
        policy: object = "random",
        stratify: bool = True,
        threads: int = 1,
        first_game: int = 0,
        batch: int = 1000,
        truncate: Optional[str] = None,
        truncate_plies: Optional[int] = None,
        max_results: Optional[int] = None,
        progress: Optional[Callable[[int], object]] = None,
        cube: Optional[Cube] = None,
        match: Union[int, Match, None] = None,
    ) -> Union[Rollout, CubefulRollout]: ...
    def rollout(  # noqa: D102 - ROLLOUT_DOC
        self,
        position: BasePosition,
        games: int = 1296,
        *,
        seed: int = 0,
        policy: object = "random",
        stratify: bool = True,
        threads: int = 1,
        first_game: int = 0,
        batch: int = 1000,
        truncate: Optional[str] = None,
        truncate_plies: Optional[int] = None,
        max_results: Optional[int] = None,
        progress: Optional[Callable[[int], object]] = None,
        cube: Optional[Cube] = None,
        match: Union[int, Match, None] = None,
    ) -> Union[Rollout, CubefulRollout]:
        options = rollout_options(policy, stratify, threads, first_game, batch, truncate, max_results, truncate_plies)
        start = check_position(position)
        check_progress(progress)
        cubeful = cube is not None or match is not None
        state = cube_state(cube, match) if cubeful else None
        warn_unbalanced(games, options, stacklevel=4)
        if state is not None:
            return cube_roll_out(self.kernels, start, games, seed, options, *state, progress=check_progress(progress))
        return rollout_parts(self.roll_out, position, games, seed, options, progress)

    def roll_out(self, position: object, games: object, seed: object, options: PlayoutOptions) -> Rollout:
        """:meth:`rollout` with its options as one value (:func:`~nardy_fast.rollouts.rollout_options`), and
        no warning: for a part of a rollout, whose games need not balance the rolls alone."""
        return roll_out(self.kernels, position, games, seed, options)


# one docstring each, shared with nardy_fast.bearoff's functions, nardy_fast.duel, playout and rollout
Implementation.one_sided.__doc__ = ONE_SIDED_DOC
Implementation.two_sided.__doc__ = TWO_SIDED_DOC
Implementation.two_sided_cubeful.__doc__ = CUBEFUL_DOC
Implementation.duel.__doc__ = DUEL_DOC
Implementation.playout.__doc__ = PLAYOUT_DOC
Implementation.rollout.__doc__ = ROLLOUT_DOC
