"""Composite evaluators (docs/rules.md, Evaluation, Position classes): one evaluator per position class, as
GNU Backgammon's evaluator and wildbg's ``CompositeEvaluator`` serve them, for every implementation.

A finished game is valued by its outcome; a bear-off inside the exact two-sided tables, a race and a position
in contact each by the evaluator given for its class (:mod:`nardy_fast.evaluation.classes`). The default
evaluator ``"net"`` is the composite of the shipped network in contact and the race evaluator ``"race"`` in
races and bear-offs (whose two-sided table is exact there): ``Composite()``. Built-in parts composed that way
(``race`` and ``bearoff`` the race evaluator, ``contact`` the network, a :class:`~nardy_fast.Network`, the
heuristic or pubeval) run as one built-in evaluator (:class:`CompositeBuiltin`, the kind of ``"net"``), in C
in the compiled core, in its hints and greedy playouts too; any other choice (a Python evaluator for a class,
say) is dispatched here, each class's rows given to its own evaluator in one call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional, Protocol, Union

import numpy as np
import numpy.typing as npt

from ..errors import NardyError, field_error
from ..inputs import choice
from .builtin import Builtin
from .classes import BEAROFF, CONTACT, RACE, classes_of
from .outcomes import BUILTINS, EVALUATORS, check_probabilities

if TYPE_CHECKING:
    from ..kernels import Kernels

__all__ = [
    "Composite",
    "CompositeBuiltin",
    "CONTACT_KINDS",
    "NETWORK",
    "RACE_EVALUATOR",
    "contact_of",
    "resolve_evaluator",
    "Evaluator",
]

#: The shipped network alone, and the race evaluator: the default composite's parts.
NETWORK = Builtin("network")
RACE_EVALUATOR = Builtin("race")
#: The built-in evaluators a built-in composite may value positions in contact with (their facts say so).
CONTACT_KINDS = tuple(facts.name for facts in BUILTINS if facts.contact)


@dataclass(frozen=True, repr=False)
class CompositeBuiltin(Builtin):
    """The built-in composite (the kind of ``"net"``) with another built-in evaluator in contact: ``contact``,
    one of :data:`CONTACT_KINDS` or a :class:`~nardy_fast.Network`; the race evaluator values races and
    bear-offs. Made by :attr:`Composite.builtin`."""

    contact: Builtin = NETWORK

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.facts.composes or not isinstance(self.contact, Builtin) or not self.contact.facts.contact:
            raise field_error(NardyError, "contact", f"must be one of {CONTACT_KINDS} or a Network", self.contact)

    def served(self) -> Optional[tuple[str, ...]]:  # noqa: D102 - Builtin.served: those of its part in contact
        return self.contact.served()

    def __repr__(self) -> str:
        return f"Composite(contact={self.contact!r})"


def contact_of(evaluator: Builtin) -> Builtin:
    """What the built-in composite ``evaluator`` (``"net"``) values positions in contact with."""
    contact = getattr(evaluator, "contact", NETWORK)
    assert isinstance(contact, Builtin)
    return contact


Rows = npt.NDArray[np.int8]


def tables_of(evaluator: Builtin, kernels: Kernels, rows: Rows, own: bool) -> object:
    """What the built-in composite ``evaluator`` reads for ``rows`` (its facts' ``tables``): ``(race tables,
    contact kind, contact tables)``, the race tables of every position ``own`` rows are or (not ``own``) lead to
    (:func:`~nardy_fast.evaluation.evaluators.tables_for`)."""
    from .race import race_tables, reached_tables  # the tables are built by those who value races

    contact = contact_of(evaluator)
    contact_tables = contact.tables_for(kernels, rows)
    race = race_tables(kernels, rows) if own or kernels.hint is None else reached_tables(kernels, rows)
    return race, contact.kind, contact_tables


class Evaluator(Protocol):
    """What a Python evaluator offers: ``evaluate(rows)``."""

    def evaluate(self, rows: Rows) -> object:
        """Probabilities (n, 5) for rows (n, 64)."""


#: The argument naming each class's evaluator (by class number), for the errors of what it returns.
CLASSES_FIELD = {BEAROFF: "bearoff", RACE: "race", CONTACT: "contact"}


def _plain(part: object, builtin: Builtin) -> bool:
    """Whether ``part`` is the built-in evaluator ``builtin`` itself (not a network of one's own)."""
    return type(part) is Builtin and part == builtin


class Composite:
    """An evaluator that values each position class (:data:`nardy_fast.evaluation.classes.CLASSES`) with its own
    evaluator: ``contact`` (by default ``"network"``, the shipped network alone), ``race`` (by default
    ``"race"``) and ``bearoff``, the bear-offs inside the exact two-sided tables (by default ``"race"``, whose
    values there are those tables'); a finished game is valued by its outcome. Each part is a built-in
    evaluator's name, a :class:`~nardy_fast.Network` or any object with an ``evaluate(rows)`` method, checked
    here. ``Composite()`` is ``"net"``. A composite is itself an evaluator, for ``nardy_fast.evaluate``,
    ``Position.hint``, ``Greedy`` and ``duel``; one of built-in parts composed as ``"net"`` is (see
    :attr:`builtin`) runs in C in the compiled core."""

    def __init__(self, contact: object = "network", race: object = "race", bearoff: object = "race") -> None:
        self.contact = resolve_evaluator(contact, "contact")
        self.race = resolve_evaluator(race, "race")
        self.bearoff = resolve_evaluator(bearoff, "bearoff")

    @property
    def builtin(self) -> Optional[Builtin]:
        """The built-in evaluator this composite is (``"net"``, or a :class:`CompositeBuiltin`), or ``None``
        when a part is not built-in or not composed as ``"net"`` composes its parts."""
        if not (_plain(self.race, RACE_EVALUATOR) and _plain(self.bearoff, RACE_EVALUATOR)):
            return None
        contact = self.contact
        if not isinstance(contact, Builtin) or not contact.facts.contact:
            return None
        return Builtin("net") if _plain(contact, NETWORK) else CompositeBuiltin("net", contact)

    def parts(self) -> tuple[Union[Builtin, object], ...]:
        """The evaluators of the classes bear-off, race and contact, in that order."""
        return self.bearoff, self.race, self.contact

    def evaluate(self, rows: Rows) -> npt.NDArray[np.float64]:
        """The values (n, 5) of unfinished rows (n, 64) when every part is a Python evaluator (each class's
        rows given to its own). A built-in part runs in an implementation, which is the one the composite is
        handed to (``nardy_fast.evaluate(rows, composite)``, ``Position.hint``, ``Greedy``, ``duel``): called
        directly, such a composite is a :class:`~nardy_fast.NardyError` saying so."""
        for part in self.parts():
            if isinstance(part, Builtin):
                problem = "has built-in parts: value rows with nardy_fast.evaluate(rows, composite)"
                raise field_error(NardyError, "evaluator", problem, self)
        array = np.asarray(rows)
        classes = classes_of(array)
        out = np.zeros((len(array), 5))
        for number, part in zip((BEAROFF, RACE, CONTACT), self.parts()):
            index = np.flatnonzero(classes == number)
            if index.size:
                values = part.evaluate(array[index])  # type: ignore[attr-defined]
                out[index] = check_probabilities(values, CLASSES_FIELD[number], rows=index.size)
        return out

    def __repr__(self) -> str:
        return f"Composite(contact={self.contact!r}, race={self.race!r}, bearoff={self.bearoff!r})"


def resolve_evaluator(value: object, name: str = "evaluator") -> Union[Builtin, Composite, Evaluator]:
    """A built-in evaluator by name, a :class:`~nardy_fast.evaluation.composite.Composite` (the built-in one
    it is, where its parts are composed as ``"net"``'s), or an object with a callable ``evaluate``; else a
    :class:`~nardy_fast.NardyError` naming ``name``."""
    if isinstance(value, Composite):
        return value.builtin or value
    if isinstance(value, Builtin):
        value.kind  # noqa: B018 - one made with __new__ alone is refused here, before any row is read
        return value
    if isinstance(value, str):
        known = choice(value, EVALUATORS)
        if known is None:
            raise field_error(
                NardyError, name, f"must be one of {EVALUATORS} or an object with an evaluate(rows) method", value
            )
        return Builtin(known)
    if callable(getattr(value, "evaluate", None)):
        return value  # type: ignore[return-value]
    raise field_error(NardyError, name, f"must be one of {EVALUATORS} or an object with an evaluate(rows) method", value)

