"""Playouts, written once for every implementation: their options and checks, the binding of their policy to
an implementation's kernels, and which loop plays them.

A checked playout (:class:`~nardy_fast.kernels.PlayoutArgs`) has a seat per side bound from its policy
(:meth:`nardy_fast.policies.Player.seat`): the implementation's playout kernel plays built-in seats (the
core's loop in C; the reference's in the one Python game loop, :mod:`nardy_fast.lockstep`, over its moves); a
seat with a chooser alone (a callable policy, a Python evaluator) is played by that Python loop over the
kernels' ``batch_children``. Both split the games into ranges, one per thread (:func:`~nardy_fast.kernels.split_range`,
:func:`~nardy_fast.kernels.on_threads`). The records, trajectories and requests are :mod:`nardy_fast.kernels`'
(named here too).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np
import numpy.typing as npt

from . import dice, layout
from .batch import check_rows
from .errors import NardyError, field_error
from .inputs import boolean, choice, integer
from .kernels import (
    Chooser,
    Kernels,
    Played,
    PlayoutArgs,
    PlayoutKernel,
    Records,
    Seat,
    StopFlag,
    Trajectories,
    on_threads,
    split_range,
)
from .lockstep import callable_playout
from .policies import Policy, check_choices, resolve_policy
from .position import Position
from .state import State, check_limit, start_state
from .turns import MAX_PLIES, OPENINGS, TRUNCATED
from .variants import VARIANTS

__all__ = [
    "Policy",
    "Chooser",
    "StopFlag",
    "GAMES_BOUND",
    "Records",
    "Trajectories",
    "PlayoutOptions",
    "PlayoutArgs",
    "Seat",
    "PlayoutKernel",
    "Played",
    "TRUNCATIONS",
    "TRUNCATED",
    "MAX_THREADS",
    "MAX_BATCH",
    "split_range",
    "check_playout",
    "check_truncate_plies",
    "check_choices",
    "on_threads",
    "bound",
    "played",
    "play",
    "PLAYOUT_DOC",
]


#: A playout's ``games`` are fewer than this (:func:`check_playout`), a rollout's too.
GAMES_BOUND = 1 << 31

#: What ``truncate`` may be: stop each game at its first bear-off position (docs/rules.md, Races and bear-off
#: positions).
TRUNCATIONS = ("bearoff",)
#: The most threads one playout runs on, and the most games a callable policy sees at once.
MAX_THREADS = 1024
MAX_BATCH = 1 << 20


#: The documentation of :func:`nardy_fast.playout` (every implementation's ``playout``).
PLAYOUT_DOC = """Play ``games`` whole games with seeded dice and return one :data:`~nardy_fast.game.RECORD` per game
(winner, points, plies, turns, start); with ``trajectories=True``, ``(records, trajectories)``.
With the doubling cube (``cube=True``: money play; ``match``: a match length or a
:class:`~nardy_fast.Match`, money play with its Jacoby and beaver options or a match from its score),
one :data:`~nardy_fast.cubeplayouts.CUBE_RECORD` per money game (winner, points times the cube, the
cube's final value, plies) or one :data:`~nardy_fast.cubeplayouts.MATCH_RECORD` per whole match
(winner, the final score, games, plies); see below.

``start`` is a variant name (each game rolls who starts and plays the opening per ``opening``, rule
flags as keyword arguments), a ``Position``, or packed rows (game ``g`` starts from row ``g % N``; the
side to move rolls first). The games are numbered ``first_game`` .. ``first_game + games - 1``, and the
dice of game ``g`` are a pure function of ``(seed, g)`` (:mod:`nardy_fast.dice`): the records never
depend on ``threads``, on the implementation, or on how the games are split into calls
(``playout(s, 100, seed=1, first_game=50)`` is ``playout(s, 150, seed=1)[50:]``); ``seed`` is 0
unless given, as for :class:`~nardy_fast.Game` and the command line. ``stratify=True``
makes the first two rolls of game ``g`` its pair of all 36 x 36 (the rollouts' variance reduction).

``policy`` chooses each move:

* ``"random"``: a seeded uniform choice among the distinct legal results;
* ``"first"``: the first in ``legal_moves`` order;
* a callable ``policy(children, offsets) -> choices`` for models that score positions in bulk. The
  games are played ``batch`` at a time in lock-step: once per ply the policy gets the children of
  every unfinished game of the batch, ``children`` (M, 64) int8 rows in ``legal_moves`` order and
  ``offsets`` (n + 1,) int64 (the children of the ``i``-th unfinished game, in game order, are
  ``children[offsets[i]:offsets[i + 1]]``; both are read-only copies the package never reads again, so
  nothing a policy does to them changes a game), and returns ``n`` integers, the index of the chosen
  child within each game's (copied, then checked). Its cost is one ``batch_children`` call and one
  Python call per ply of a batch, so large batches amortise it. A policy may call back into the
  package; an exception it raises propagates unchanged and the playout returns nothing.

``truncate="bearoff"`` stops each game at its first bear-off position whose side to move is to roll
(docs/rules.md, Races and bear-off positions; the start itself, maybe; a pending list is played
first): its record has winner -2 and points 0, and its trajectory ends there. ``truncate_plies=N``
(1 .. MAX_PLIES - 1) stops each game likewise once it has played ``N`` plies, at the first position
after them whose side to move is to roll (a pending list is played first): a truncated rollout's games.

``max_results`` gives a game up (winner :data:`~nardy_fast.game.LIMITED`, points 0, its trajectory ending
there) at a ply whose own search would hold more positions after one number of steps; ``None``: no bound.

The trajectories hold every position of every game (see :class:`Trajectories`): about 6 KB a game.
A game still going after :data:`~nardy_fast.game.MAX_PLIES` plies is given up (winner -1). The
compiled core plays the built-in policies in C without the GIL, ``threads`` at once; callable
policies run on ``threads`` threads too, each its own range of games. An exception in any thread
(Ctrl-C in the calling one) stops every thread within a ply, and is raised once they have all stopped.

With the cube, ``policy`` plays both seats and takes the cube actions too (a
:class:`~nardy_fast.Greedy` by its ``cube`` strategy; the built-in and callable policies never double
and always take). Record ``i`` is game ``first_game + i`` of the seed (money play: the cubeless
playout's dice) or match ``first_game + i``, whose game ``j`` is number ``(first_game + i) * 256 + j``
(match numbers below 2**54). A game ends by a pass or is played out; ``trajectories`` and ``truncate``
are refused. docs/rules.md, Playouts with the cube, has the records and an example.
"""


@dataclass(frozen=True)
class PlayoutOptions:
    """The options of a playout, as :func:`nardy_fast.playout` takes them (its docstring says what each
    means), as one value: what ``rollout``, the command line and :mod:`nardy_fast.distributed` hand on.
    Nothing is checked until a playout uses them (:func:`check_playout`). ``flags`` are the rule flags of a
    variant's start."""

    policy: object = "random"  # a policy of nardy_fast.policies
    threads: int = 1
    opening: str = "fresh_roll"
    first_game: int = 0
    stratify: bool = False
    batch: int = 1000
    trajectories: bool = False
    truncate: Optional[str] = None
    max_results: object = None
    flags: Mapping[str, object] = field(default_factory=dict)
    truncate_plies: object = None

    @classmethod
    def of(cls, **keywords: Any) -> PlayoutOptions:
        """The options of ``playout``'s keyword arguments: the named ones, and the rest as rule flags."""
        names = {f for f in cls.__dataclass_fields__ if f != "flags"}
        flags = {k: v for k, v in keywords.items() if k not in names}
        return cls(**{k: v for k, v in keywords.items() if k in names}, flags=flags)

    def keywords(self) -> dict[str, Any]:
        """``playout``'s keyword arguments for these options (the inverse of :meth:`of`)."""
        named = {f: getattr(self, f) for f in self.__dataclass_fields__ if f != "flags"}
        return {**named, **self.flags}


def _boolean(value: object, name: str) -> bool:
    checked = boolean(value)
    if checked is None:
        raise field_error(NardyError, name, "must be True or False", value)
    return checked


def _starts(start: object, flags: Mapping[str, object]) -> tuple[npt.NDArray[np.int8], tuple[State, ...], bool]:
    """The starting rows of a playout, each checked once, with their states: a variant's start from its table
    (its flags checked), a position's own row, or rows given (copied, then checked)."""
    if isinstance(start, str):
        variant = choice(start, VARIANTS)
        if variant is None:
            raise field_error(
                NardyError, "start", f"must be a variant, a Position or rows, one of {VARIANTS}", start
            )
        state = start_state(variant, flags)
        return layout.pack(state)[None, :], (state,), True
    if flags:
        raise field_error(NardyError, "flags", "are the positions' own when they are given", flags)
    if isinstance(start, Position):
        if start.is_over():
            raise field_error(NardyError, "start[0]", "is a finished game", start.state.off)
        return start.to_array()[None, :], (start.state,), False
    try:
        array = np.asarray(start)
    except (ValueError, TypeError):
        array = np.zeros(0)
    if array.ndim != 2 or array.shape[1] != layout.WIDTH or array.dtype.kind not in "iu" or not len(array):
        raise field_error(NardyError, "start", "must be a variant, a Position or rows (N, 64)", start)
    # a copy of our own (values that do not fit int8 refused, not wrapped): the core reads the rows without
    # the GIL, while another thread may change the caller's array; the checks are made on this copy, and only
    # it is played
    rows = check_rows(array, "start")
    states = []
    for index, row in enumerate(rows):
        try:
            state = layout.unpack(row)
        except NardyError as error:
            raise type(error)(f"start[{index}]: {error}") from None
        if 15 in state.off:
            raise field_error(NardyError, f"start[{index}]", "is a finished game", state.off)
        states.append(state)
    return rows, tuple(states), False


def check_truncate_plies(value: object) -> int:
    """A playout's ``truncate_plies``: None (0, never) or an integer 1 .. MAX_PLIES - 1, else a NardyError."""
    if value is None:
        return 0
    plies = integer(value)
    if plies is None or not 1 <= plies < MAX_PLIES:
        raise field_error(NardyError, "truncate_plies", f"must be None or an integer 1..{MAX_PLIES - 1}", value)
    return plies


def check_playout(start: object, games: object, seed: object, options: PlayoutOptions) -> PlayoutArgs:
    """Check a playout's request (the same checks and messages for every implementation)."""
    count = integer(games)
    if count is None or count < 1 or count >= GAMES_BOUND:
        raise field_error(NardyError, "games", "must be a positive integer below 2**31", games)
    player = resolve_policy(options.policy)
    workers = integer(options.threads)
    if workers is None or not 1 <= workers <= MAX_THREADS:
        raise field_error(NardyError, "threads", f"must be an integer 1..{MAX_THREADS}", options.threads)
    how = choice(options.opening, OPENINGS)
    if how is None:
        raise field_error(NardyError, "opening", f"must be one of {OPENINGS}", options.opening)
    first = integer(options.first_game)
    if first is None or not 0 <= first < (1 << 62) - count:
        raise field_error(
            NardyError, "first_game", "must be an integer 0 <= first_game < 2**62 - games", options.first_game
        )
    size = integer(options.batch)
    if size is None or not 1 <= size <= MAX_BATCH:
        raise field_error(NardyError, "batch", "must be an integer 1..2**20", options.batch)
    truncate = options.truncate is not None
    if truncate and choice(options.truncate, TRUNCATIONS) is None:
        raise field_error(NardyError, "truncate", f"must be None or one of {TRUNCATIONS}", options.truncate)
    plies = check_truncate_plies(options.truncate_plies)
    rows, states, from_start = _starts(start, options.flags)
    return PlayoutArgs(
        rows,
        states,
        from_start,
        count,
        dice.check_seed(seed),
        workers,
        OPENINGS.index(how),
        first,
        _boolean(options.stratify, "stratify"),
        size,
        _boolean(options.trajectories, "trajectories"),
        truncate,
        limit=check_limit(options.max_results),
        player=player,
        truncate_plies=plies,
    )


def bound(kernels: Kernels, args: PlayoutArgs) -> PlayoutArgs:
    """A checked playout with its policy bound to ``kernels``: the same seat on both sides."""
    seat = resolve_policy(args.player).seat(kernels, args.rows)
    return args._replace(seats=(seat, seat))


def played(kernels: Kernels, args: PlayoutArgs) -> Played:
    """A bound playout played: by the kernels' playout for seats they play, else in lock-step."""
    if args.lockstep:
        return callable_playout(kernels.batch_children, kernels.game_rolls, args)
    return kernels.playout(args)


def play(kernels: Kernels, start: object, games: object, seed: object, options: PlayoutOptions) -> Played:
    """:func:`nardy_fast.playout` with ``kernels`` and its options as one value (:class:`PlayoutOptions`)."""
    return played(kernels, bound(kernels, check_playout(start, games, seed, options)))
