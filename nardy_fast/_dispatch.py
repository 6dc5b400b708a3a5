"""The one place that chooses the implementation behind the package's names: the compiled core when it is
built, else the pure-Python reference; ``NARDY_FAST_IMPLEMENTATION=python|cython`` forces one (``cython``
fails loudly when the core is missing). Everything else in the package is written for both.

The package's functions are defined here, each calling the chosen implementation's record
(:class:`~nardy_fast.implementation.Implementation`), whose method holds the one docstring they share.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Literal, Optional, Union, overload

import numpy as np
import numpy.typing as npt

from . import reference
from .analysis import AnalysedPosition
from .batch import BatchResult
from .cube import Cube, CubeDecision, Match, MatchEquityTable
from .cubeduel import CubeDuelResult
from .cuberollouts import CubefulRollout
from .duel import DuelResult
from .encodings import Features
from .errors import quote
from .implementation import Implementation
from .layout import Rows
from .playouts import Played, Records, Trajectories
from .position import Position as _Position
from .records import MatchRecord
from .rollouts import Rollout
from .vector import Games as _Games

__all__ = [
    "IMPLEMENTATION",
    "Position",
    "batch_children",
    "children",
    "encode",
    "playout",
    "playout_match_records",
    "rollout",
    "segment_argmax",
    "evaluate",
    "cube_decisions",
    "duel",
    "Games",
    "reference",
    "implementations",
]


def _choose() -> ModuleType:
    requested = os.environ.get("NARDY_FAST_IMPLEMENTATION", "")
    if requested not in ("", "python", "cython"):
        raise ImportError(f"NARDY_FAST_IMPLEMENTATION: must be 'python' or 'cython' (got {quote(requested)})")
    if requested == "python":
        return reference
    try:
        from . import core
    except ImportError:
        if requested == "cython":
            raise
        return reference
    return core


_chosen = _choose()
#: The chosen implementation's public objects.
RECORD: Implementation = _chosen.IMPLEMENTATION_RECORD

#: The implementation behind ``Position``: ``"cython"`` when the core is built, else ``"python"``.
IMPLEMENTATION: str = RECORD.name
Position: type[AnalysedPosition] = RECORD.Position
#: N games stepped from outside (:class:`nardy_fast.vector.Games`), bound to the chosen implementation.
Games: type[_Games] = RECORD.Games


def batch_children(positions: object, rolls: object, *, max_results: Optional[int] = None) -> BatchResult:
    return RECORD.batch_children(positions, rolls, max_results=max_results)


def children(position: object, dice: Optional[Sequence[int]] = None, *, max_results: Optional[int] = None) -> Rows:
    return RECORD.children(position, dice, max_results=max_results)


def encode(rows: object, scheme: str, out: Optional[Features] = None) -> Features:
    return RECORD.encode(rows, scheme, out)


@overload
def playout(
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
def playout(
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
    played: Played = RECORD.playout(
        start,
        games,
        seed=seed,
        policy=policy,
        threads=threads,
        opening=opening,
        first_game=first_game,
        stratify=stratify,
        batch=batch,
        trajectories=trajectories,  # type: ignore[call-overload]  # a bool: the implementation's overloads' union
        truncate=truncate,
        truncate_plies=truncate_plies,
        max_results=max_results,
        cube=cube,
        match=match,
        **flags,
    )
    return played


def playout_match_records(
    start: object, games: int, *, seed: int = 0, policy: object = "random", opening: str = "fresh_roll",
    first_game: int = 0, stratify: bool = False, max_results: Optional[int] = None, cube: bool = False,
    match: Union[int, Match, None] = None, **flags: object,
) -> tuple[MatchRecord, ...]:
    return RECORD.playout_match_records(
        start, games, seed=seed, policy=policy, opening=opening, first_game=first_game, stratify=stratify,
        max_results=max_results, cube=cube, match=match, **flags,
    )  # fmt: skip


@overload
def rollout(
    position: _Position,
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
    position: _Position,
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
def rollout(
    position: _Position,
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
    return RECORD.rollout(
        position,
        games,
        seed=seed,
        policy=policy,
        stratify=stratify,
        threads=threads,
        first_game=first_game,
        batch=batch,
        truncate=truncate,
        truncate_plies=truncate_plies,
        max_results=max_results,
        progress=progress,
        cube=cube,
        match=match,
    )


def segment_argmax(scores: object, offsets: object) -> npt.NDArray[np.int64]:
    return RECORD.segment_argmax(scores, offsets)


def evaluate(rows: object, evaluator: object) -> npt.NDArray[np.float64]:
    return RECORD.evaluate(rows, evaluator)


def cube_decisions(
    rows: object, *, evaluator: object = None, cube: Optional[Cube] = None, match: Optional[Match] = None,
    table: Optional[MatchEquityTable] = None, plies: int = 0,
) -> CubeDecision:
    return RECORD.cube_decisions(rows, evaluator=evaluator, cube=cube, match=match, table=table, plies=plies)


@overload
def duel(
    a: object, b: object, variant: str, games: int = 2000, *, seed: int = 0, first_game: int = 0,
    batch: int = 1000, threads: int = 1, progress: Optional[Callable[[int], None]] = None,
    cube: Literal[False] = False, match: None = None, match_records: bool = False, **flags: object,
) -> DuelResult: ...
@overload
def duel(
    a: object, b: object, variant: str, games: int = 2000, *, seed: int = 0, first_game: int = 0,
    batch: int = 1000, threads: int = 1, progress: Optional[Callable[[int], None]] = None,
    cube: bool = False, match: Union[int, Match, None] = None, match_records: bool = False, **flags: object,
) -> Union[DuelResult, CubeDuelResult]: ...
def duel(
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
    return RECORD.duel(
        a, b, variant, games, seed=seed, first_game=first_game, batch=batch, threads=threads, progress=progress,
        cube=cube, match=match, match_records=match_records, **flags,
    )  # fmt: skip


# one docstring each: the implementation's method's
for _function in (batch_children, children, encode, playout, playout_match_records, rollout, segment_argmax, evaluate,
                  cube_decisions, duel):
    _function.__doc__ = getattr(Implementation, _function.__name__).__doc__
del _function


def implementations() -> dict[str, ModuleType]:
    """Every implementation that can be imported here, by name (``"python"``, and ``"cython"`` when built):
    for tools that compare them, such as the benchmarks and the perft check."""
    found = {"python": reference}
    try:
        from . import core
    except ImportError:
        return found
    found["cython"] = core
    return found
