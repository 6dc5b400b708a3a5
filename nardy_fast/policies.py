"""The policies, in one place: what a playout, a rollout, a duel, a :class:`~nardy_fast.Game` helper and the
environments' opponents accept as a player, and how each chooses its moves (docs/rules.md, Evaluation).

* ``"random"``: a seeded uniform choice among the distinct legal results (:func:`nardy_fast.dice.choice`
  of the seed, the game number and the ply);
* ``"first"``: the first result in ``legal_moves`` order;
* :class:`Greedy` ``(evaluator, plies)``: the best move of :meth:`Position.hint` with that evaluator and
  depth (a built-in evaluator's name, or any object with an ``evaluate(rows)`` method);
* a callable ``policy(children, offsets) -> choices`` (see :func:`nardy_fast.playout`).

:func:`resolve_policy` checks a value once; :meth:`PolicySpec.choose` is the one place a policy picks moves
for a batch of positions, whoever asks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Optional, Union

import numpy as np
import numpy.typing as npt

from . import dice
from .batch import handed_out
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
from .turns import POLICIES

if TYPE_CHECKING:
    from .implementation import Implementation
    from .playouts import PlayoutArgs
    from .position import Move, Position

__all__ = [
    "POLICIES",
    "Policy",
    "Greedy",
    "PolicySpec",
    "PolicyLike",
    "resolve_policy",
    "check_plies",
    "check_choices",
    "read_choices",
    "choices_problem",
    "greedy_choices",
    "bind",
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


@dataclass(frozen=True, eq=False, repr=False)
class Greedy:
    """The policy that plays the best move by ``evaluator`` searched ``plies`` deep (0, 1 or 2): the first move of
    :meth:`Position.hint`. ``evaluator`` (by default ``"net"``: the network shipped for the game's variant in
    contact, the race evaluator in races and bear-offs) is a built-in evaluator's name (``"net"``, ``"network"``,
    ``"heuristic"``, ``"pubeval"``, ``"race"``) or any object with an ``evaluate(rows)`` method. Built-in evaluators
    play in C without the GIL in the compiled core; a Python evaluator is called once per ply of a batch of games
    (per level of a deeper search), with up to :data:`~nardy_fast.evaluation.search.CHUNK` rows at a time."""

    evaluator: EvaluatorLike = "net"
    plies: int = 0
    resolved: Union[Builtin, Evaluator] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "resolved", resolve_evaluator(self.evaluator))
        object.__setattr__(self, "plies", check_plies(self.plies))

    def __getattr__(self, name: str) -> object:
        # only for fields never set: a Greedy made with __new__ alone (their class defaults are removed below)
        if name in _GREEDY_FIELDS:
            raise uninitialised_error("Greedy")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __repr__(self) -> str:
        return f"Greedy({self.evaluator!r}, plies={self.plies})"


_GREEDY_FIELDS = frozenset(f.name for f in fields(Greedy))
# The defaults stay in __init__'s signature; as class attributes they would be read from a Greedy made with
# __new__ alone, as if it had been made with them.
for _name in ("evaluator", "plies"):
    delattr(Greedy, _name)

PolicyLike = Union[str, Greedy, "Policy"]


@dataclass(frozen=True, eq=False)
class PolicySpec:
    """A checked policy: its ``kind`` (``"random"``, ``"first"``, ``"greedy"``, ``"callable"``) and what it
    needs: the :class:`Greedy` or the callable."""

    kind: str
    greedy: Optional[Greedy] = None
    callback: Optional[Policy] = None

    @property
    def builtin_evaluator(self) -> int:
        """The kind of a greedy policy's built-in evaluator, -1 for any other policy."""
        g = self.greedy
        return g.resolved.kind if g is not None and isinstance(g.resolved, Builtin) else -1

    def __repr__(self) -> str:
        return repr(self.greedy) if self.greedy is not None else repr(self.callback or self.kind)

    def choose(
        self,
        record: Implementation,
        rows: Rows,
        children: Rows,
        offsets: Offsets,
        numbers: npt.NDArray[np.int64],
        plies: npt.NDArray[np.int64],
        seed: int,
        rolls: Optional[Rows] = None,
    ) -> npt.NDArray[np.int64]:
        """The chosen child of each position ``rows[i]`` (n, 64) among its ``children[offsets[i]:offsets[i+1]]``
        (its legal moves for the roll it is to play, ``rolls[i]`` when given: (0, 0) for a pending list), game
        ``numbers[i]`` at ply ``plies[i]`` of ``seed``'s dice: one index within each position's children."""
        counts = np.diff(offsets)
        if self.kind == "first":
            return np.zeros(len(rows), dtype=np.int64)
        if self.kind == "random":
            return np.array(
                [dice.choice(seed, int(g), int(p), int(c)) for g, p, c in zip(numbers, plies, counts)], dtype=np.int64
            )
        if self.kind == "callable":
            assert self.callback is not None
            return check_choices(self.callback(handed_out(children), handed_out(offsets)), counts)
        assert self.greedy is not None
        return greedy_choices(record, self.greedy, rows, children, offsets, rolls)


def greedy_choices(
    record: Implementation, greedy: Greedy, rows: Rows, children: Rows, offsets: Offsets, rolls: Optional[Rows] = None
) -> npt.NDArray[np.int64]:
    """The first move of each position's hint ranking (docs/rules.md, Evaluation and search), batched. Given
    the rolls, a deeper search of a built-in evaluator is the implementation's own hint, where it has one."""
    owners = np.repeat(np.arange(len(rows)), np.diff(offsets))
    search = Search(record, greedy.resolved)
    if greedy.plies == 0:
        values = seen_from(rows, owners, children, search.evaluate(children, rows[owners]))
        return record.segment_argmax(equity_of(values), offsets)
    picks = np.zeros(len(rows), dtype=np.int64)
    builtin = greedy.resolved if isinstance(greedy.resolved, Builtin) else None
    kernel = record.kernels.hint
    if builtin is not None and kernel is not None and rolls is not None and len(rows):
        tables = tables_for(record, builtin, rows[:1])
        for i in range(len(rows)):
            _, values, reached = kernel(rows[i], int(rolls[i, 0]), int(rolls[i, 1]), greedy.plies, builtin.kind, tables)
            picks[i] = ranking(values, reached)[0]
        return picks
    for i in range(len(rows)):
        part = children[offsets[i] : offsets[i + 1]]
        values, reached = search.ranked(rows[i], part, greedy.plies)
        picks[i] = int(np.lexsort((np.arange(len(part)), -equity_of(values), -reached.astype(np.int64)))[0])
    return picks


def resolve_policy(value: object, name: str = "policy", evaluators: bool = False) -> PolicySpec:
    """``value`` as a checked policy, or a :class:`~nardy_fast.NardyError` naming ``name``. With
    ``evaluators``, an evaluator (a built-in's name or an object with ``evaluate``) is its 0-ply
    :class:`Greedy`."""
    if isinstance(value, Greedy):
        value.resolved  # noqa: B018 - a Greedy made with __new__ alone is refused here, not in the games
        return PolicySpec("greedy", greedy=value)
    if isinstance(value, str):
        known = choice(value, POLICIES)
        if known is not None:
            return PolicySpec(known)
    if evaluators and (isinstance(value, (str, Builtin)) or callable(getattr(value, "evaluate", None))):
        return PolicySpec("greedy", greedy=Greedy(resolve_evaluator(value, name)))
    if callable(value) and not isinstance(value, str):
        return PolicySpec("callable", callback=value)
    also = ", an evaluator" if evaluators else ""
    raise field_error(NardyError, name, f"must be one of {POLICIES}, a Greedy{also} or a callable", value)


def check_choices(
    choices: object,
    counts: npt.NDArray[np.int64],
    field: str = "policy",
    wrong_shape: str = "must return {n} integer choices, one per game (shape ({n},))",
    wrong_choice: str = "returned choice {choice} for a game with {moves} moves (game {i} of the call)",
    slots: Optional[npt.NDArray[np.int64]] = None,
) -> npt.NDArray[np.int64]:
    """What a callable policy returned, checked: one integer per game, each ``0 <= c < count``. The checks are
    made on a copy, which alone is returned: the policy's own array may be changed meanwhile (by a thread it
    started, say), and a choice checked must be the choice played. The errors name ``field``, their problems
    ``wrong_shape`` (formatted with ``n``) and ``wrong_choice`` (with ``choice``, ``moves``, ``i`` and, given
    ``slots``, the game's ``slot``)."""
    array = read_choices(choices)
    problem = choices_problem(array, counts, wrong_shape, wrong_choice, slots)
    if problem is not None:
        raise field_error(NardyError, field, problem, choices)
    return array.astype(np.int64, copy=False)


def read_choices(choices: object) -> npt.NDArray[np.generic]:
    """``choices`` read once into an array of our own (an object array for what NumPy cannot convert): the
    one place their user code (``__array__``, ``__len__``, ``__getitem__``) runs, so that a caller holding a
    lock reads them before taking it."""
    try:
        return np.array(choices)
    except (ValueError, TypeError):
        return np.zeros(0, dtype=object)


def choices_problem(
    array: npt.NDArray[np.generic],
    counts: npt.NDArray[np.int64],
    wrong_shape: str,
    wrong_choice: str,
    slots: Optional[npt.NDArray[np.int64]] = None,
) -> Optional[str]:
    """What is wrong with choices read by :func:`read_choices` (:func:`check_choices`' problems), or ``None``:
    no user code runs here, and the value is not quoted, so that a caller may check under a lock and raise
    the error, quoting the caller's object, once the lock is released."""
    if array.shape != counts.shape or array.dtype.kind not in "iu":
        return wrong_shape.format(n=len(counts))
    wrong = np.less(array, 0) | np.greater_equal(array, counts)
    if not wrong.any():
        return None
    i = int(np.argmax(wrong))
    slot = -1 if slots is None else int(slots[i])
    return wrong_choice.format(choice=int(array[i]), moves=int(counts[i]), i=i, slot=slot)


def bind(record: Implementation, args: PlayoutArgs) -> PlayoutArgs:
    """A checked playout's Greedy policy bound to ``record``: a built-in evaluator (and its tables) for the
    kernel, which plays it in C in the compiled core, or a Python evaluator as the lock-step ``chooser``."""
    greedy = args.greedy
    if greedy is None:
        return args
    if isinstance(greedy.resolved, Builtin):
        check_served(greedy.resolved, args.rows)
        tables = tables_for(record, greedy.resolved, args.rows)
        return args._replace(evaluator=greedy.resolved.kind, plies=greedy.plies, tables=tables)

    def chooser(rows: Rows, children: Rows, offsets: Offsets) -> npt.NDArray[np.int64]:
        return greedy_choices(record, greedy, rows, children, offsets)

    return args._replace(chooser=chooser)


def hint_moves(
    record: Implementation, position: Position, roll: Optional[Sequence[int]], evaluator: object, plies: object
) -> list[tuple[Move, float]]:
    """:meth:`Position.hint` of one of ``record``'s positions: its own C search for a built-in evaluator where
    it has one, else the shared search."""
    checked = resolve_evaluator(evaluator)
    depth = check_plies(plies)
    moves = position.legal_moves(roll)  # checks the roll, and a pending list's lack of one
    row = position.to_array()
    dice = (0, 0) if roll is None or position.pending else (int(roll[0]), int(roll[1]))
    if isinstance(checked, Builtin):
        check_served(checked, row[None, :])  # the position's error, before any of its children's
    if isinstance(checked, Builtin) and record.kernels.hint is not None and not position.is_over():
        tables = tables_for(record, checked, row[None, :])
        _, values, reached = record.kernels.hint(row, dice[0], dice[1], depth, checked.kind, tables)
    else:
        _, values, reached = Search(record, checked).hint(row, dice, depth)
    equities = equity_of(values)
    return [(moves[i], float(equities[i])) for i in ranking(values, reached)]
