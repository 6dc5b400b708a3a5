"""The policies, in one place: what a playout, a rollout, a duel, a :class:`~nardy_fast.Game` helper and the
environments' opponents accept as a player, and how each chooses its moves (docs/rules.md, Evaluation).

* ``"random"``: a seeded uniform choice among the distinct legal results (:func:`nardy_fast.dice.choice`
  of the seed, the game number and the ply);
* ``"first"``: the first result in ``legal_moves`` order;
* :class:`Greedy` ``(evaluator, plies)``: the best move of :meth:`Position.hint` with that evaluator and
  depth (a built-in evaluator's name, or any object with an ``evaluate(rows)`` method);
* a callable ``policy(children, offsets) -> choices`` (see :func:`nardy_fast.playout`).

Each is an object of one kind, a :class:`Player` (:class:`Random`, :class:`First`, :class:`Greedy`,
:class:`Callback`; the names and callables above are made into them by :func:`resolve_policy`, which checks a
value once): :meth:`Player.choose` is the one place a policy picks moves for a batch of positions, whoever
asks, and :meth:`Player.seat` is its form for an implementation's game loops (:class:`~nardy_fast.kernels.
Seat`: the built-ins played by the kernels, in C in the compiled core; a Python evaluator or a callable by its
chooser, in lock-step).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, NamedTuple, Optional, Union

import numpy as np
import numpy.typing as npt

from . import dice
from .batch import handed_out
from .choices import check_choices, choices_problem, read_choices
from .cube import Cube, Match
from .cubeplay import RESPONSES, STRATEGIES, TAKE, CubeState, doubles, responses
from .errors import NardyError, field_error, uninitialised_error
from .evaluation.evaluators import (
    Builtin,
    Evaluator,
    EvaluatorLike,
    check_served,
    resolve_evaluator,
    tables_for,
)
from .evaluation.search import MAX_PLIES, Search, equity_of, ranking, seen_from
from .inputs import choice, integer
from .kernels import Kernels, Seat, kernels_of
from .turns import POLICIES

if TYPE_CHECKING:
    from .position import Move, Position

__all__ = [
    "POLICIES",
    "Policy",
    "Player",
    "Random",
    "First",
    "Greedy",
    "Callback",
    "PolicyLike",
    "resolve_policy",
    "check_plies",
    "check_choices",
    "read_choices",
    "choices_problem",
    "greedy_choices",
    "hint_moves",
]

Rows = npt.NDArray[np.int8]
Offsets = npt.NDArray[np.int64]

#: A callable policy: ``policy(children, offsets) -> choices`` (see :func:`nardy_fast.playout`).
Policy = Callable[[npt.NDArray[np.int8], npt.NDArray[np.int64]], object]


def check_plies(value: object, name: str = "plies") -> int:
    """A search depth: an integer 0..MAX_PLIES."""
    plies = integer(value)
    if plies is None or not 0 <= plies <= MAX_PLIES:
        raise field_error(NardyError, name, f"must be an integer 0..{MAX_PLIES}", value)
    return plies


Ints = npt.NDArray[np.int64]


class Batch(NamedTuple):
    """The positions a player chooses for at once, as :meth:`Player.choose` takes them."""

    rows: Rows
    children: Rows
    offsets: Offsets
    numbers: Ints
    plies: Ints
    seed: int
    rolls: Optional[Rows]


class Player:
    """A policy: what chooses the moves of one side. :meth:`choose` picks a child for each of a batch of
    positions; :meth:`seat` is the player bound to an implementation's kernels for its game loops."""

    __slots__ = ()

    def seat(self, kernels: Kernels, rows: Rows) -> Seat:
        """This player as a seat of ``kernels``' game loops, for games starting from ``rows`` (checked rows;
        a built-in evaluator is checked against them, its tables built)."""
        raise NotImplementedError

    def choose(
        self,
        kernels: Kernels,
        rows: Rows,
        children: Rows,
        offsets: Offsets,
        numbers: Ints,
        plies: Ints,
        seed: int,
        rolls: Optional[Rows] = None,
    ) -> Ints:
        """The chosen child of each position ``rows[i]`` (n, 64) among its ``children[offsets[i]:offsets[i+1]]``
        (its legal moves for the roll it is to play, ``rolls[i]`` when given: (0, 0) for a pending list), game
        ``numbers[i]`` at ply ``plies[i]`` of ``seed``'s dice: one index within each position's children."""
        return self._choose(kernels, Batch(rows, children, offsets, numbers, plies, seed, rolls))

    def _choose(self, kernels: Kernels, batch: Batch) -> Ints:
        raise NotImplementedError

    def doubles(self, kernels: Kernels, rows: Rows, states: Sequence[CubeState]) -> npt.NDArray[np.bool_]:
        """Whether the side on roll of each position ``rows[i]``, before its roll, doubles the cube of its game
        (``states[i]``: the cube, available to it, and the match): never, unless the player has a strategy."""
        return np.zeros(len(rows), dtype=bool)

    def responses(self, kernels: Kernels, rows: Rows, states: Sequence[CubeState]) -> Ints:
        """How this player, doubled by the side on roll of each position ``rows[i]``, answers: a code of
        :data:`~nardy_fast.cubeplay.RESPONSES` (pass, take, beaver): it takes, unless it has a strategy."""
        return np.full(len(rows), TAKE, dtype=np.int64)

    def cube_action(self, position: Position, cube: Optional[Cube] = None, match: Optional[Match] = None) -> str:
        """``"double"`` or ``"no double"``: this player's action on roll in ``position`` (one :meth:`doubles`)."""
        row, state = _cube_state(position, cube, match)
        return "double" if self.doubles(kernels_of(position), row, [state])[0] else "no double"

    def cube_response(self, position: Position, cube: Optional[Cube] = None, match: Optional[Match] = None) -> str:
        """``"take"``, ``"pass"`` or ``"beaver"``: this player's answer to a double by the side on roll of
        ``position`` (one :meth:`responses`)."""
        row, state = _cube_state(position, cube, match)
        return RESPONSES[int(self.responses(kernels_of(position), row, [state])[0])]


def _cube_state(position: object, cube: Optional[Cube], match: Optional[Match]) -> tuple[Rows, CubeState]:
    """One position's row and its (checked) cube and match (a centred cube and money play by default)."""
    from .position import Position

    if not isinstance(position, Position):
        raise field_error(NardyError, "position", "must be a Position", position)
    cube, match = Cube() if cube is None else cube, Match() if match is None else match
    if not isinstance(cube, Cube):
        raise field_error(NardyError, "cube", "must be a nardy_fast.Cube", cube)
    if not isinstance(match, Match):
        raise field_error(NardyError, "match", "must be a nardy_fast.Match", match)
    return position.to_array()[None, :], (cube, match)


class _Named(Player):
    """A built-in policy known by its name in :data:`POLICIES`, which is its ``repr`` (as a duel names it)."""

    __slots__ = ()
    name = ""

    def seat(self, kernels: Kernels, rows: Rows) -> Seat:
        return Seat(POLICIES.index(self.name))

    def __repr__(self) -> str:
        return repr(self.name)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self)

    def __hash__(self) -> int:
        return hash(self.name)


class Random(_Named):
    """``"random"``: a seeded uniform choice among the distinct legal results (:func:`nardy_fast.dice.choice`
    of the seed, the game number and the ply)."""

    __slots__ = ()
    name = "random"

    def _choose(self, kernels: Kernels, batch: Batch) -> Ints:
        counts = np.diff(batch.offsets)
        picks = [dice.choice(batch.seed, int(g), int(p), int(c)) for g, p, c in zip(batch.numbers, batch.plies, counts)]
        return np.array(picks, dtype=np.int64)


class First(_Named):
    """``"first"``: the first result in ``legal_moves`` order."""

    __slots__ = ()
    name = "first"

    def _choose(self, kernels: Kernels, batch: Batch) -> Ints:
        return np.zeros(len(batch.rows), dtype=np.int64)


class Callback(Player):
    """A callable ``policy(children, offsets) -> choices`` as a player (see :func:`nardy_fast.playout`): it gets
    read-only copies of the children and offsets, and its choices are copied, then checked."""

    __slots__ = ("callback",)
    callback: Policy

    def __init__(self, callback: Policy) -> None:
        if not callable(callback) or isinstance(callback, str):
            raise field_error(NardyError, "callback", "must be callable", callback)
        object.__setattr__(self, "callback", callback)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__!r} object is immutable")

    def seat(self, kernels: Kernels, rows: Rows) -> Seat:  # noqa: D102 - Player.seat
        return Seat(-1, chooser=self._chooser)

    def _chooser(self, rows: Rows, children: Rows, offsets: Offsets) -> Ints:
        return check_choices(self.callback(handed_out(children), handed_out(offsets)), np.diff(offsets))

    def _choose(self, kernels: Kernels, batch: Batch) -> Ints:
        return self._chooser(batch.rows, batch.children, batch.offsets)

    def __repr__(self) -> str:
        return repr(self.callback)


@dataclass(frozen=True, eq=False, repr=False)
class Greedy(Player):
    """The policy that plays the best move by ``evaluator`` searched ``plies`` deep (0, 1 or 2): the first move of
    :meth:`Position.hint`. ``evaluator`` (by default ``"net"``: the network shipped for the game's variant in
    contact, the race evaluator in races and bear-offs) is a built-in evaluator's name (``"net"``, ``"network"``,
    ``"heuristic"``, ``"pubeval"``, ``"race"``) or any object with an ``evaluate(rows)`` method. Built-in evaluators
    play in C without the GIL in the compiled core; a Python evaluator is called once per ply of a batch of games
    (per level of a deeper search), with up to :data:`~nardy_fast.evaluation.search.CHUNK` rows at a time.
    ``cube`` is its cube strategy (:data:`~nardy_fast.cubeplay.STRATEGIES`): by default Janowski's cube
    decision at the match's score from the evaluator's 0-ply outputs."""

    evaluator: EvaluatorLike = "net"
    plies: int = 0
    cube: str = "janowski"
    resolved: Union[Builtin, Evaluator] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "resolved", resolve_evaluator(self.evaluator))
        object.__setattr__(self, "plies", check_plies(self.plies))
        strategy = choice(self.cube, STRATEGIES)
        if strategy is None:
            raise field_error(NardyError, "cube", f"must be one of {STRATEGIES}", self.cube)
        object.__setattr__(self, "cube", strategy)

    def __getattr__(self, name: str) -> object:
        # only for fields never set: a Greedy made with __new__ alone (their class defaults are removed below)
        if name in _GREEDY_FIELDS:
            raise uninitialised_error("Greedy")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __repr__(self) -> str:
        strategy = "" if self.cube == "janowski" else f", cube={self.cube!r}"
        return f"Greedy({self.evaluator!r}, plies={self.plies}{strategy})"

    def doubles(self, kernels: Kernels, rows: Rows, states: Sequence[CubeState]) -> npt.NDArray[np.bool_]:  # noqa: D102
        return doubles(kernels, self.resolved, self.cube, rows, states)

    def responses(self, kernels: Kernels, rows: Rows, states: Sequence[CubeState]) -> Ints:  # noqa: D102
        return responses(kernels, self.resolved, self.cube, rows, states)

    def seat(self, kernels: Kernels, rows: Rows) -> Seat:  # noqa: D102 - Player.seat
        def chooser(positions: Rows, children: Rows, offsets: Offsets) -> Ints:
            return greedy_choices(kernels, self, positions, children, offsets)

        resolved = self.resolved
        if isinstance(resolved, Builtin):
            check_served(resolved, rows)
            return Seat(0, resolved.kind, self.plies, tables_for(kernels, resolved, rows), chooser)
        return Seat(-1, chooser=chooser)

    def _choose(self, kernels: Kernels, batch: Batch) -> Ints:
        return greedy_choices(kernels, self, batch.rows, batch.children, batch.offsets, batch.rolls)


_GREEDY_FIELDS = frozenset(f.name for f in fields(Greedy))
# The defaults stay in __init__'s signature; as class attributes they would be read from a Greedy made with
# __new__ alone, as if it had been made with them.
for _name in ("evaluator", "plies", "cube"):
    delattr(Greedy, _name)

PolicyLike = Union[str, Player, "Policy"]


def greedy_choices(
    kernels: Kernels, greedy: Greedy, rows: Rows, children: Rows, offsets: Offsets, rolls: Optional[Rows] = None
) -> Ints:
    """The first move of each position's hint ranking (docs/rules.md, Evaluation and search), batched. Given
    the rolls, a deeper search of a built-in evaluator is the implementation's own hint, where it has one."""
    owners = np.repeat(np.arange(len(rows)), np.diff(offsets))
    search = Search(kernels, greedy.resolved)
    if greedy.plies == 0:
        values = seen_from(rows, owners, children, search.evaluate(children, rows[owners]))
        return kernels.segment_argmax(equity_of(values), offsets)
    picks = np.zeros(len(rows), dtype=np.int64)
    builtin = greedy.resolved if isinstance(greedy.resolved, Builtin) else None
    kernel = kernels.hint
    if builtin is not None and kernel is not None and rolls is not None and len(rows):
        tables = tables_for(kernels, builtin, rows[:1])
        for i in range(len(rows)):
            _, values, reached = kernel(rows[i], int(rolls[i, 0]), int(rolls[i, 1]), greedy.plies, builtin.kind, tables)
            picks[i] = ranking(values, reached)[0]
        return picks
    for i in range(len(rows)):
        part = children[offsets[i] : offsets[i + 1]]
        values, reached = search.ranked(rows[i], part, greedy.plies)
        picks[i] = int(np.lexsort((np.arange(len(part)), -equity_of(values), -reached.astype(np.int64)))[0])
    return picks


def resolve_policy(value: object, name: str = "policy", evaluators: bool = False) -> Player:
    """``value`` as a checked policy (a :class:`Player`), or a :class:`~nardy_fast.NardyError` naming ``name``.
    With ``evaluators``, an evaluator (a built-in's name or an object with ``evaluate``) is its 0-ply
    :class:`Greedy`."""
    if isinstance(value, Greedy):
        value.resolved  # noqa: B018 - a Greedy made with __new__ alone is refused here, not in the games
        return value
    if type(value) is Callback:
        if not callable(getattr(value, "callback", None)):
            raise uninitialised_error("Callback")
        return value
    if isinstance(value, (Random, First)) and type(value) in (Random, First):
        return value  # not a subclass: its own choose would differ from the seat the loops play
    if isinstance(value, type) and issubclass(value, Player):
        raise field_error(NardyError, name, f"must be a policy, such as {value.__name__}(), not its class", value)
    if isinstance(value, str):
        known = choice(value, POLICIES)
        if known is not None:
            return Random() if known == "random" else First()
    if evaluators and (isinstance(value, (str, Builtin)) or callable(getattr(value, "evaluate", None))):
        return Greedy(resolve_evaluator(value, name))
    if callable(value) and not isinstance(value, str):
        return Callback(value)
    also = ", an evaluator" if evaluators else ""
    raise field_error(NardyError, name, f"must be one of {POLICIES}, a Greedy{also} or a callable", value)


def hint_moves(
    kernels: Kernels, position: Position, roll: Optional[Sequence[int]], evaluator: object, plies: object
) -> list[tuple[Move, float]]:
    """:meth:`Position.hint` of one of ``kernels``' positions: its own C search for a built-in evaluator where
    it has one, else the shared search."""
    checked = resolve_evaluator(evaluator)
    depth = check_plies(plies)
    moves = position.legal_moves(roll)  # checks the roll, and a pending list's lack of one
    row = position.to_array()
    dice = (0, 0) if roll is None or position.pending else (int(roll[0]), int(roll[1]))
    if isinstance(checked, Builtin):
        check_served(checked, row[None, :])  # the position's error, before any of its children's
    if isinstance(checked, Builtin) and kernels.hint is not None and not position.is_over():
        tables = tables_for(kernels, checked, row[None, :])
        _, values, reached = kernels.hint(row, dice[0], dice[1], depth, checked.kind, tables)
    else:
        _, values, reached = Search(kernels, checked).hint(row, dice, depth)
    equities = equity_of(values)
    return [(moves[i], float(equities[i])) for i in ranking(values, reached)]
