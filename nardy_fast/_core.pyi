"""Type stubs of the compiled core (``src_pyx/_core.pyx``)."""

from collections.abc import Sequence
from typing import Any, Optional

import numpy as np
import numpy.typing as npt
from typing_extensions import disjoint_base

from .inputs import IntLike, Ints
from .position import Move as _Move
from .position import Position, Step
from .state import State

#: Whether the network evaluator's loops run on AVX2 (``src_pyx/net_kernel.h``).
NET_AVX2: bool

@disjoint_base
class Children:
    """The packed results of one ``legal_moves`` call."""

@disjoint_base
class Move:
    """A core move: the interface of ``nardy_fast.Move``, built lazily."""

    @property
    def parent(self) -> Position: ...
    @property
    def roll(self) -> Optional[tuple[int, int]]: ...
    @property
    def steps(self) -> tuple[Step, ...]: ...
    @property
    def result(self) -> Position: ...
    @property
    def remainder(self) -> tuple[int, ...]: ...
    @property
    def extra_roll(self) -> bool: ...

@disjoint_base
class Generator:
    """A reusable search workspace."""

def engine(position: Position, roll: Optional[tuple[int, int]], limit: int = 0) -> list[_Move]:
    """All legal moves of a core ``position`` for a checked ``roll`` (``None``: the pending list), bounded by
    ``limit`` (0: none)."""

def legal_moves(
    position: Position, dice: Optional[Ints] = None, *, max_results: Optional[IntLike] = None
) -> list[_Move]:
    """``Position.legal_moves``: every legal move for ``dice``, one per distinct result."""

def position_key(state: State) -> int:
    """The Zobrist key of a ``State`` (equals ``nardy_fast.zobrist.position_key``)."""

def perft(state: State, depth: int) -> int:
    """perft of a ``State`` (see :func:`nardy_fast.perft`), computed without Python objects or the GIL."""

def batch_children(
    positions: npt.NDArray[np.int8], rolls: npt.NDArray[np.int8], limit: int = 0
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int64], npt.NDArray[np.uint64], int, bool]:
    """Children of N packed rows for N rolls: ``(children, offsets, keys, bad, over)``, ``bad`` -1 or the first
    row that failed its checks (``bad + N`` for its roll) or, with ``over``, whose search exceeded ``limit``."""

def playout_games(
    args: Any,
    first: int,
    last: int,
    winner: npt.NDArray[np.int8],
    points: npt.NDArray[np.int8],
    plies: npt.NDArray[np.int32],
    turns: npt.NDArray[np.int32],
    stop: npt.NDArray[np.int32],
) -> Optional[tuple[npt.NDArray[np.int8], npt.NDArray[np.int8]]]:
    """Play records ``first`` up to ``last`` of ``args``, a checked playout or duel
    (``nardy_fast.playouts.PlayoutArgs``: record ``i`` is game ``first_game + i``, in a duel ``first_game + i //
    2`` with the players swapped in odd records) into the given columns, without the GIL, each side by its seat
    (``args.seats``: random, first, or a built-in evaluator's greedy move); with ``args.trajectories``, the
    positions played (``last_only``: the last of each game) and their rolls. Returns ``None`` early, within a
    ply, once another thread sets ``stop[0]`` (the playout's stop flag). ``args.limit`` > 0 (``max_results``)
    gives a game up at a ply whose own search would hold more positions after one number of steps (winner
    ``LIMITED``)."""

def cube_games(
    args: Any,
    cube: Any,
    first: int,
    last: int,
    result: npt.NDArray[np.float64],
    winner: npt.NDArray[np.int8],
    points: npt.NDArray[np.int64],
    value: npt.NDArray[np.int64],
    tally: npt.NDArray[np.int64],
    stop: npt.NDArray[np.int32],
) -> None:
    """Play records ``first`` up to ``last`` of a cubeful duel or rollout (``args``, its checked playout with
    the seats; ``cube``, its ``nardy_fast.cubeargs.CubeArgs``) into the given columns, without the GIL, as
    ``nardy_fast.cubeloop.play_cubeful`` plays them: each record's result, its last game's winner and points
    and the cube's value at its end. Returns early, within a ply, once another thread sets ``stop[0]``."""

def evaluate_rows(
    rows: npt.NDArray[np.int8], kind: int, tables: object, out: npt.NDArray[np.float64]
) -> int:
    """Evaluate checked rows (N, 64) with built-in evaluator ``kind`` into ``out`` (N, 5), without the GIL: -1,
    or the index of the first row the evaluator cannot value."""

def classify_rows(rows: npt.NDArray[np.int8], out: npt.NDArray[np.int8]) -> int:
    """The class of each checked row (N, 64) into ``out`` (N,) (nardy_fast.evaluation.classes), without the GIL:
    -1, or the index of the first row that fails the gate."""

def hint_values(
    row: npt.NDArray[np.int8], d1: int, d2: int, plies: int, kind: int, tables: object
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float64], npt.NDArray[np.int8]]:
    """Every legal move of a packed row for the roll ``d1-d2`` (0-0: its pending list) valued at ``plies`` by
    built-in evaluator ``kind``, without the GIL: ``(children (k, 64), probabilities (k, 5), plies_reached
    (k,))`` in legal_moves order, the probabilities seen by the row's side to move, plies_reached 0 for a move
    the TOP filter cut."""

def search_values(
    rows: npt.NDArray[np.int8], plies: int, kind: int, tables: object, out: npt.NDArray[np.float64],
    stop: npt.NDArray[np.int32],
) -> int:
    """value(row, plies) of every packed row (N, 64) for its side to move, by built-in evaluator ``kind``, into
    ``out`` (N, 5), without the GIL: -1, or the index of the first row that is not a position; stops before
    the next row once ``stop[0]`` is set."""

def game_rolls(
    seed: int, games: npt.NDArray[np.int64], counters: npt.NDArray[np.int64], stratify: bool
) -> npt.NDArray[np.int8]:
    """Roll ``counters[i]`` of game ``games[i]`` for every ``i`` (``nardy_fast.dice.game_rolls``)."""

def children(
    position: Any, dice: Optional[Sequence[int]] = None, limit: int = 0
) -> Optional[npt.NDArray[np.int8]]:
    """The children of one packed row, or ``None`` for anything the caller must explain."""

def encode_rows(rows: npt.NDArray[np.int8], scheme: str, out: npt.NDArray[np.float32]) -> int:
    """Write the features of rows (N, 64) for ``scheme`` into ``out`` (N, F) without the GIL: -1, or the first
    row that failed its checks or is of a variant the scheme does not encode."""

def segment_argmax_rows(
    scores: npt.NDArray[np.float64], offsets: npt.NDArray[np.int64], out: npt.NDArray[np.int64]
) -> None:
    """``out[i]``: the index within segment ``i`` of its first highest score (``nardy_fast.segments``)."""

def bearoff_one_sided(
    layouts: npt.NDArray[np.int8],
    extra_roll: str,
    ladder: int,
    mean: npt.NDArray[np.float64],
    dist: npt.NDArray[np.float64],
    mean_first: npt.NDArray[np.float64],
    dist_first: npt.NDArray[np.float64],
) -> None:
    """Fill a one-sided bear-off table (``nardy_fast.bearoff.tables``) of ``layouts``, without the GIL."""

def bearoff_two_sided(layouts: npt.NDArray[np.int8], extra_roll: str, ladder: int, win: npt.NDArray[np.float64]) -> None:
    """Fill a two-sided bear-off table (``nardy_fast.bearoff.tables``) of ``layouts``, without the GIL."""

def bearoff_two_sided_cubeful(
    layouts: npt.NDArray[np.int8], extra_roll: str, ladder: int, values: npt.NDArray[np.float64]
) -> None:
    """Fill the cubeful two-sided bear-off table (``nardy_fast.bearoff.tables``) of ``layouts``: ``values``
    (3, n, n), the money equities with the cube centred, the mover's, the opponent's; without the GIL."""

def is_bearoff_row(row: npt.NDArray[np.int8]) -> bool:
    """Whether a checked row is a bear-off position (docs/rules.md, Races and bear-off positions)."""

def searched() -> int:
    """The move searches' work in this process so far: searches started and level-search nodes expanded,
    counted in blocks of 4096 (an approximate count, for a display of progress)."""

def idle_workspaces() -> tuple[int, int, int, int]:
    """The pool of idle search workspaces, for its tests: the bytes it counts for them, the bytes their
    buffers hold, how many there are, and the most it keeps."""

def replay_plies(
    starts: npt.NDArray[np.int8],
    first: npt.NDArray[np.int64],
    last: npt.NDArray[np.int64],
    rolls: npt.NDArray[np.int8],
    pairs: npt.NDArray[np.int8],
    npairs: npt.NDArray[np.int8],
    results: npt.NDArray[np.int8],
    steps: npt.NDArray[np.uint16],
    levels: npt.NDArray[np.int8],
    stops: npt.NDArray[np.int64],
) -> None:
    """Replay game ``k`` from ``starts[k]`` through plies ``first[k]`` up to ``last[k]``, each written move
    matched to its legal move as ``nardy_fast.records.find_move`` matches it: results, canonical step codes and
    their number per ply; ``stops[k]`` -1, or the first ply left to the caller."""

def read_move_lines(
    text: bytes,
    edge: int,
    kinds: npt.NDArray[np.int8],
    numbers: npt.NDArray[np.int64],
    plies: npt.NDArray[np.int64],
    runs: npt.NDArray[np.int64],
    rolls: npt.NDArray[np.int8],
    npairs: npt.NDArray[np.int8],
    pairs: npt.NDArray[np.int8],
) -> int:
    """Read the ``\\n``-separated lines of ``text``: each line's kind (0 another line, 1 one ply in the left
    column, 2 one ply in the right column, 3 two plies), number, first ply and the end of its run of two-ply
    lines numbered in a row; each ply's dice, written pairs and their number. The plies read."""
