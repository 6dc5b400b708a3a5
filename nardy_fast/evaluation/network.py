"""The network evaluator ``"network"`` (docs/rules.md, Evaluation): a multilayer perceptron with one hidden layer,
its weights, their file format and the weights the package ships, written once for every implementation.

The network values a position for its side to move with the five outputs of
:data:`~nardy_fast.evaluation.outcomes.OUTPUTS`:

1. The inputs ``x`` are the row's encoding by the network's scheme (:mod:`nardy_fast.encodings`): ``"nardy"``,
   :data:`INPUTS` float32 features (the side to move's view, TD-Gammon's four units a point, bar, off, heads,
   pending values, variant and flags), or ``"expert"``, those and the expert features of
   :mod:`nardy_fast.expert` after them (:data:`NETWORK_SCHEMES`; the rows of ``w1`` tell which).
2. The hidden layer ``h = max(0, b1 + x @ w1)`` (rectified linear units) has ``hidden`` units; ``w1`` is
   (inputs, hidden).
3. The outputs are ``sigmoid(b2 + w2 @ h)``; ``w2`` is (5, hidden). They are made nested as the seam requires
   (``win_mars <= win``, ``win_koks <= win_mars``, ``lose_mars <= 1 - win``, ``lose_koks <= lose_mars``), each
   capped by the one it must not exceed.

Arithmetic, in float32, so that both implementations give the same bits:

- The hidden sums start at ``b1``. Then, point by point from M1 to M24, each adds the point's term: the sum
  over the four units of the side holding the point of ``x[j] * w1[j]``, in unit order, from 0 (an empty
  point adds nothing). Then the features from index :data:`POINT_FEATURES` on add ``x[j] * w1[j]`` one by
  one in order (a zero feature adds nothing).
- The output sums start at ``b2`` and add ``w2[:, k] * h[k]`` unit by unit (a unit at 0 adds nothing).
- Each output is the sigmoid, in float64, of its float32 sum.

The point terms depend on the weights and on the point's side and count only: the core reads them from
:func:`point_terms`, a table made once per network.

A :class:`Network` is a built-in evaluator (its kind is ``"network"``'s): the network alone, in every position,
as a trained model is; the compiled core evaluates it in C without the GIL, so ``Greedy(network)`` playouts,
hints and rollouts stay in C. The name ``"network"`` is the network shipped for the row's variant
(:func:`shipped`), loaded on first use and shared by the rule flags of that variant; the default ``"net"`` is
that network in contact composed with the race evaluator in races and bear-offs
(:mod:`nardy_fast.evaluation.composite`), and ``Composite(contact=network)`` composes a network of one's own
the same way.

Weights files are ``.npz`` archives (read without pickles) of float32 arrays ``w1``, ``b1``, ``w2``, ``b2``
and a JSON string ``meta``: ``variant``, ``scheme``, ``hidden``, the ``sha256`` of the four arrays' bytes in
that order, and ``training`` (how they were made: command, seed, games, seconds). Loading checks all of it;
a missing, unreadable or corrupt file is a :class:`~nardy_fast.NardyError` naming ``weights``. The file is
read by :func:`nardy_fast.files.read_npz`: only those five members, each within its bounds before it is
read (a header claiming a huge shape, a member inflating to gigabytes, cost nothing). A ``training`` record
is JSON of at most :data:`MAX_TRAINING_DEPTH` levels and :data:`MAX_TRAINING_CHARS` characters, integers
within +-2**64 and finite numbers, when a network is made as when it is loaded: what is saved loads.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Optional

import numpy as np
import numpy.typing as npt

from ..encodings import SCHEMES, td_units
from ..errors import NardyError, field_error
from ..files import MAX_JSON_INT, Member, parse_json, read_npz, write_npz
from ..inputs import choice
from ..layout import VARIANT
from ..variants import VARIANTS
from .builtin import Builtin
from .constants import INPUTS, MAX_COUNT, MAX_HIDDEN, MAX_INPUTS, NETWORK_SCHEMES, POINT_FEATURES, SCHEME

__all__ = ["SCHEME", "INPUTS", "NETWORK_SCHEMES", "MAX_INPUTS", "SCHEME_OF_INPUTS", "MAX_HIDDEN", "MAX_WEIGHT", "POINT_FEATURES", "MAX_COUNT", "ARRAYS", "point_terms", "Network", "shipped", "shipped_path", "network_for", "SHIPPED_DIR",
           "MAX_TRAINING_DEPTH", "MAX_TRAINING_CHARS"]

#: The largest weight magnitude allowed: with it no float32 sum of the network can overflow.
MAX_WEIGHT = 1e6
#: The arrays of a network, in file and checksum order.
ARRAYS = ("w1", "b1", "w2", "b2")
#: Where the shipped weights are: one ``<variant>.npz`` per variant.
SHIPPED_DIR = Path(__file__).resolve().parent.parent / "data" / "nets"
#: The most levels of lists and dicts a ``training`` record may nest (the record itself is the first).
MAX_TRAINING_DEPTH = 32
#: The most characters of a ``training`` record as JSON.
MAX_TRAINING_CHARS = 1 << 20
#: The most characters of a weights file's ``meta`` (its ``training`` and a few short fields).
_META_CHARS = MAX_TRAINING_CHARS + 4096
#: What a weights file's members may be (``read_npz``): real arrays no larger than the largest network's
#: (their exact shapes are checked after), and the JSON text ``meta``.
_MEMBERS = {
    **{key: Member("biufc", 16, MAX_INPUTS * MAX_HIDDEN, required=False) for key in ("w1", "b1", "w2", "b2")},
    "meta": Member("U", 4 * _META_CHARS, 1, shape=()),
}

Weights = npt.NDArray[np.float32]


#: The scheme of a network by the number of its inputs (the rows of its ``w1``).
SCHEME_OF_INPUTS = {SCHEMES[name].features: name for name in NETWORK_SCHEMES}


def _shapes(inputs: int, hidden: int) -> dict[str, tuple[int, ...]]:
    return {"w1": (inputs, hidden), "b1": (hidden,), "w2": (5, hidden), "b2": (5,)}


def checksum(arrays: dict[str, Weights]) -> str:
    """The SHA-256 of the arrays' float32 bytes in :data:`ARRAYS` order."""
    digest = hashlib.sha256()
    for name in ARRAYS:
        digest.update(np.ascontiguousarray(arrays[name], dtype=np.float32).tobytes())
    return digest.hexdigest()


def _checked_arrays(arrays: dict[str, object], name: str) -> dict[str, Weights]:
    """The four arrays as read-only float32 C arrays of a network's shapes, finite; else an error naming
    ``name``."""
    sources: dict[str, npt.NDArray[Any]] = {}
    for key in ARRAYS:
        value = arrays.get(key)
        try:
            source = np.asarray(value)
        except (TypeError, ValueError):
            source = np.zeros(0, dtype=object)
        if source.dtype.kind not in "iuf":
            raise field_error(NardyError, name, f"{key} is not an array of real numbers", value)
        sources[key] = source
    shape = sources["w1"].shape
    if len(shape) != 2 or shape[0] not in SCHEME_OF_INPUTS or not 1 <= shape[1] <= MAX_HIDDEN:
        widths = " or ".join(str(width) for width in SCHEME_OF_INPUTS)
        problem = f"w1 must be (inputs, hidden) with inputs {widths} and 1 <= hidden <= {MAX_HIDDEN}"
        raise field_error(NardyError, name, problem, shape)
    hidden = int(shape[1])
    out: dict[str, Weights] = {}
    for key, want in _shapes(int(shape[0]), hidden).items():
        source = sources[key]
        if source.shape != want:
            raise field_error(NardyError, name, f"{key} must have shape {want} for {hidden} hidden units", source.shape)
        if not np.isfinite(source).all():
            raise field_error(NardyError, name, f"{key} has values that are NaN or infinite", key)
        if float(np.abs(source.astype(np.float64)).max()) > MAX_WEIGHT:
            raise field_error(NardyError, name, f"{key} has values beyond +-{MAX_WEIGHT:g}", key)
        array = np.array(source, dtype=np.float32, order="C", copy=True)
        array.setflags(write=False)
        out[key] = array
    return out


def _json_bounds(value: object) -> Optional[str]:
    """What puts ``value`` past a ``training`` record's bounds (the module docstring), or None; walked without
    recursion, so that a record nested 100,000 deep is refused, not a ``RecursionError``."""
    stack: list[tuple[object, int]] = [(value, 1)]
    seen = 0
    while stack:
        item, depth = stack.pop()
        seen += 1
        if seen > MAX_TRAINING_CHARS:
            return f"has more than {MAX_TRAINING_CHARS} values"
        if isinstance(item, (dict, list, tuple)):
            if depth > MAX_TRAINING_DEPTH:
                return f"nests deeper than {MAX_TRAINING_DEPTH} levels"
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
        elif isinstance(item, float) and not np.isfinite(item):
            return "holds a number that is not finite"
        elif isinstance(item, int) and not isinstance(item, bool) and abs(item) >= MAX_JSON_INT:
            return "holds an integer past 2**64"
    return None


def _training(value: object) -> dict[str, Any]:
    """How weights were made: a dict of JSON values within bounds (a copy of our own), else an error naming
    ``training``."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise field_error(NardyError, "training", "must be a dict of JSON values or None", value)
    bounds = _json_bounds(value)
    if bounds is not None:
        raise field_error(NardyError, "training", bounds, "<a dict>")
    try:
        text = json.dumps(value, allow_nan=False)
        copied = json.loads(text)
    except (TypeError, ValueError):
        raise field_error(NardyError, "training", "must be a dict of JSON values or None", value) from None
    if len(text) > MAX_TRAINING_CHARS:
        raise field_error(NardyError, "training", f"is more than {MAX_TRAINING_CHARS} characters of JSON", "<a dict>")
    assert isinstance(copied, dict)
    return copied


def unit_values() -> Weights:
    """The four "nardy" units of each count 0..MAX_COUNT (MAX_COUNT + 1, 4), as the encoding computes them."""
    counts = np.arange(MAX_COUNT + 1, dtype=np.int16)[:, None]
    return td_units(counts).reshape(MAX_COUNT + 1, 4)


def point_terms(w1: Weights) -> Weights:
    """The point terms of weights ``w1`` (module docstring), (2, 24, MAX_COUNT + 1, hidden): ``[side, m - 1,
    count]`` for the mover's (side 0) or the opponent's (side 1) ``count`` checkers on M m, read-only."""
    units = unit_values()
    terms = np.zeros((2, 24, MAX_COUNT + 1, w1.shape[1]), dtype=np.float32)
    for side in range(2):
        for point in range(24):
            first = side * 96 + 4 * point
            for u in range(4):
                terms[side, point] += units[:, u : u + 1] * w1[first + u][None, :]
    terms.setflags(write=False)
    return terms


@dataclass(frozen=True, eq=False, repr=False, init=False)
class Network(Builtin):
    """A network's weights for one variant: the built-in evaluator ``"network"`` with these weights. ``w1``
    (inputs, hidden), ``b1`` (hidden,), ``w2`` (5, hidden), ``b2`` (5,) are checked and copied into read-only
    float32 arrays; ``training`` says how they were made (saved with them)."""

    variant: str
    hidden: int
    training: dict[str, Any]
    sha256: str
    _arrays: dict[str, Weights]
    _terms: Weights
    _w2t: Weights

    def __init__(
        self,
        variant: str,
        w1: object,
        b1: object,
        w2: object,
        b2: object,
        *,
        training: Optional[dict[str, Any]] = None,
    ) -> None:
        known = choice(variant, VARIANTS)
        if known is None:
            raise field_error(NardyError, "variant", f"must be one of {VARIANTS}", variant)
        arrays = _checked_arrays({"w1": w1, "b1": b1, "w2": w2, "b2": b2}, "weights")
        w2t = np.zeros((int(arrays["b1"].shape[0]), 8), dtype=np.float32)
        w2t[:, :5] = arrays["w2"].T
        w2t.setflags(write=False)
        values = {
            "name": "network",
            "variant": known,
            "hidden": int(arrays["b1"].shape[0]),
            "training": _training(training),
            "sha256": checksum(arrays),
            "_arrays": arrays,
            "_terms": point_terms(arrays["w1"]),
            "_w2t": w2t,
        }
        for key, value in values.items():  # the fields are made here, not passed: a frozen dataclass sets them so
            object.__setattr__(self, key, value)

    @property
    def scheme(self) -> str:
        """The encoding the network reads (one of :data:`NETWORK_SCHEMES`), told by the rows of ``w1``."""
        return SCHEME_OF_INPUTS[int(self._arrays["w1"].shape[0])]

    def served(self) -> Optional[tuple[str, ...]]:  # noqa: D102 - Builtin.served: its own variant
        return (self.variant,)

    # one network is equal to itself only (weights are compared by checksum where it matters)
    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        shown = "" if self.scheme == SCHEME else f" scheme={self.scheme}"
        return f"<Network {self.variant} hidden={self.hidden}{shown} sha256={self.sha256[:12]}>"

    def __reduce__(self) -> tuple[Any, ...]:
        a = self._arrays
        return (_rebuild, (self.variant, a["w1"], a["b1"], a["w2"], a["b2"], self.training))

    @property
    def tables(self) -> tuple[Weights, ...]:
        """``(w1, b1, w2, b2, terms, w2t)``: what the implementations' kernels read; ``terms`` is
        :func:`point_terms`, ``w2t`` is ``w2`` transposed and padded to (hidden, 8) with zeros."""
        a = self._arrays
        return a["w1"], a["b1"], a["w2"], a["b2"], self._terms, self._w2t

    def arrays(self) -> dict[str, Weights]:
        """Writable copies of the four arrays, by name."""
        return {key: value.copy() for key, value in self._arrays.items()}

    def save(self, path: object) -> None:
        """Write the weights to ``path`` (``.npz``), atomically: a reader sees the old file or the new."""
        try:
            target = Path(os.fspath(path))  # type: ignore[call-overload]
        except TypeError:
            raise field_error(NardyError, "out", "must be a path", path) from None
        meta = {"variant": self.variant, "scheme": self.scheme, "hidden": self.hidden, "sha256": self.sha256}
        meta["training"] = self.training
        try:
            write_npz(target, {"meta": np.array(json.dumps(meta, sort_keys=True)), **self._arrays})
        except NardyError:
            raise
        except (OSError, ValueError) as error:
            reason = error.strerror if isinstance(error, OSError) else str(error)
            raise field_error(NardyError, "out", f"cannot be written ({reason})", str(target)) from None

    @classmethod
    def load(cls, path: object) -> Network:
        """The network saved at ``path``, checked: its arrays' shapes, finiteness and checksum, its variant
        and encoding."""
        try:
            where = os.fspath(path)  # type: ignore[call-overload]
        except TypeError:
            raise field_error(NardyError, "weights", "must be a path", path) from None
        arrays = read_npz(where, "weights", "is not a weights file", _MEMBERS)
        try:
            meta = parse_json(str(arrays.pop("meta")))
        except ValueError as error:
            raise field_error(NardyError, "weights", f"is not a weights file ({error})", str(where)) from None
        if not isinstance(meta, dict) or choice(meta.get("scheme"), NETWORK_SCHEMES) is None:
            raise field_error(NardyError, "weights", f"are not weights of a network of {NETWORK_SCHEMES}", str(where))
        checked = _checked_arrays(dict(arrays), "weights")
        if SCHEME_OF_INPUTS[int(checked["w1"].shape[0])] != meta["scheme"]:
            problem = f"do not have the {SCHEMES[meta['scheme']].features} inputs of their scheme {meta['scheme']!r}"
            raise field_error(NardyError, "weights", problem, str(where))
        if checksum(checked) != meta.get("sha256"):
            raise field_error(NardyError, "weights", "do not match their checksum (the file is corrupt)", str(where))
        training = meta.get("training")
        bounds = _json_bounds(training)
        if bounds is not None:
            raise field_error(NardyError, "weights", f"have a training record that {bounds}", str(where))
        variant = choice(meta.get("variant"), VARIANTS)
        if variant is None:
            raise field_error(NardyError, "weights", "are for no known variant", str(where))
        return cls(
            variant,
            checked["w1"],
            checked["b1"],
            checked["w2"],
            checked["b2"],
            training=training if isinstance(training, dict) else None,
        )


def _rebuild(variant: str, w1: Weights, b1: Weights, w2: Weights, b2: Weights, training: dict[str, Any]) -> Network:
    return Network(variant, w1, b1, w2, b2, training=training)


def shipped_path(variant: str) -> Path:
    """The file of the weights shipped for ``variant``."""
    return SHIPPED_DIR / f"{variant}.npz"


@cache
def shipped(variant: str) -> Network:
    """The network the package ships for ``variant`` (loaded once, checked)."""
    known = choice(variant, VARIANTS)
    if known is None:
        raise field_error(NardyError, "variant", f"must be one of {VARIANTS}", variant)
    network = Network.load(shipped_path(known))
    if network.variant != known:
        raise field_error(NardyError, "weights", f"are for {network.variant}, not {known}", str(shipped_path(known)))
    return network


def network_for(evaluator: Builtin, variant: str) -> Network:
    """The weights ``evaluator`` (``"network"``, ``"net"`` or a :class:`Network`) values ``variant`` with."""
    if isinstance(evaluator, Network):
        if evaluator.variant != variant:
            problem = f"evaluates {evaluator.variant} nardy only, not {variant}"
            raise field_error(NardyError, "evaluator", problem, evaluator)
        return evaluator
    return shipped(variant)


def tables_of(evaluator: Builtin, kernels: object, rows: npt.NDArray[np.int8], own: bool) -> tuple[Weights, ...]:
    """What a network evaluator reads for ``rows`` of one variant (its facts' ``tables``): the weights it values
    that variant with (:func:`network_for`), as :attr:`Network.tables`."""
    return network_for(evaluator, VARIANTS[int(rows[0, VARIANT])]).tables
