"""Rolled-out benchmark databases (docs/benchmarks.md, Rolled-out benchmark databases): positions with a roll,
their candidate moves and each candidate's equity by a rollout, and the error rate of an evaluator on them.

A database is a :class:`BenchmarkDatabase`, kept as one ``.npz`` archive (written by
:func:`nardy_fast.files.write_npz`, read by :func:`nardy_fast.files.read_npz` within bounds) of these members:

* ``rows`` (P, 64) ``int8``: the positions, packed (:mod:`nardy_fast.layout`), all of one variant, none over;
* ``rolls`` (P, 2) ``int8``: each position's roll, ``(0, 0)`` for a position that plays its pending list;
* ``classes`` (P,) ``int8``: each position's class (:mod:`nardy_fast.evaluation.classes` numbers);
* ``held_out`` (P,) ``bool``: the test set, never to be trained on;
* ``offsets`` (P + 1,) ``int64``: position ``i``'s candidates are ``children[offsets[i]:offsets[i + 1]]``, one
  at least;
* ``children`` (C, 64) ``int8``: the candidates, as the positions the moves lead to;
* ``equities`` and ``stderrs`` (C,) ``float64``: each candidate's rolled-out cubeless money equity, in points per
  game from the view of the side that made the move (whoever moves next), and its standard error;
* ``meta``: a JSON object as text: ``format`` (:data:`FORMAT`), ``version``, ``variant`` and how the database was
  made (``trials``, ``seed``, ``player``, ``command``, ... as the maker wrote them).

Anything else, in the archive or given to the constructor, is a :class:`~nardy_fast.NardyError` naming the member.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

import numpy as np
import numpy.typing as npt

from . import layout
from .errors import NardyError, field_error
from .evaluation.classes import CLASSES, classify
from .files import Member, parse_json, read_npz, write_npz
from .variants import VARIANTS

if TYPE_CHECKING:
    from .analysis import AnalysedPosition

__all__ = ["FORMAT", "VERSION", "MAX_POSITIONS", "MAX_CHILDREN", "BenchmarkDatabase", "ClassErrors",
           "read_database", "write_database", "measure", "shipped_database", "SHIPPED"]

#: The ``format`` entry of every database's ``meta``: a file without it is not one.
FORMAT = "nardy_fast benchmark database"
VERSION = 1
#: The most positions and candidates a database may hold (50 x and 100 x what a shipped one needs).
MAX_POSITIONS = 100_000
MAX_CHILDREN = 2_000_000
#: The most characters of ``meta``.
MAX_META = 100_000
#: The entries ``meta`` must have.
META_KEYS = ("format", "version", "variant")

_MEMBERS = {
    "rows": Member("i", 1, MAX_POSITIONS * layout.WIDTH),
    "rolls": Member("i", 1, MAX_POSITIONS * 2),
    "classes": Member("i", 1, MAX_POSITIONS),
    "held_out": Member("b", 1, MAX_POSITIONS),
    "offsets": Member("i", 8, MAX_POSITIONS + 1),
    "children": Member("i", 1, MAX_CHILDREN * layout.WIDTH),
    "equities": Member("f", 8, MAX_CHILDREN),
    "stderrs": Member("f", 8, MAX_CHILDREN),
    "meta": Member("U", 4 * MAX_META, 1, shape=()),
}


def _shaped(value: object, name: str, dtype: type, shape: tuple[Optional[int], ...]) -> npt.NDArray[Any]:
    """``value`` as a new array of ``dtype`` of ``shape`` (``None``: any length), or an error naming it."""
    try:
        array = np.asarray(value)
        if array.ndim != len(shape) or any(n is not None and n != m for n, m in zip(shape, array.shape)):
            raise ValueError
        if array.size and dtype is not np.float64 and not np.array_equal(array.astype(dtype), array):
            raise ValueError  # no silent wrap-around or truncation to the member's type
        return np.array(array, dtype=dtype, copy=True)
    except (TypeError, ValueError, OverflowError):
        want = "x".join("N" if n is None else str(n) for n in shape) or "a scalar"
        raise field_error(NardyError, name, f"must be an array {want} of {np.dtype(dtype).name}",
                          getattr(value, "shape", value)) from None


@dataclass(frozen=True, eq=False)
class BenchmarkDatabase:
    """A rolled-out benchmark database (the module docstring): its members, checked and copied when made."""

    rows: npt.NDArray[np.int8]
    rolls: npt.NDArray[np.int8]
    classes: npt.NDArray[np.int8]
    held_out: npt.NDArray[np.bool_]
    offsets: npt.NDArray[np.int64]
    children: npt.NDArray[np.int8]
    equities: npt.NDArray[np.float64]
    stderrs: npt.NDArray[np.float64]
    meta: Mapping[str, Any]

    def __post_init__(self) -> None:
        rows = _shaped(self.rows, "rows", np.int8, (None, layout.WIDTH))
        count = len(rows)
        if not 1 <= count <= MAX_POSITIONS:
            raise field_error(NardyError, "rows", f"must hold 1..{MAX_POSITIONS} positions", count)
        rolls = _shaped(self.rolls, "rolls", np.int8, (count, 2))
        classes = _shaped(self.classes, "classes", np.int8, (count,))
        held_out = _shaped(self.held_out, "held_out", np.bool_, (count,))
        offsets = _shaped(self.offsets, "offsets", np.int64, (count + 1,))
        children = _shaped(self.children, "children", np.int8, (None, layout.WIDTH))
        total = len(children)
        equities = _shaped(self.equities, "equities", np.float64, (total,))
        stderrs = _shaped(self.stderrs, "stderrs", np.float64, (total,))
        meta = _check_meta(self.meta)
        found = classify(rows)  # checks every row as a position ("rows[i]: ...")
        if (found == CLASSES.index("over")).any():
            raise field_error(NardyError, "rows", "must be unfinished games", int(np.argmax(found == 0)))
        variants = np.unique(rows[:, layout.VARIANT])
        if len(variants) != 1 or VARIANTS[int(variants[0])] != meta["variant"]:
            raise field_error(NardyError, "rows", f"must all be of meta's variant {meta['variant']!r}",
                              [VARIANTS[int(v)] for v in variants])
        if not np.array_equal(found, classes):
            raise field_error(NardyError, "classes", "must be the class of each row (evaluation.classes)",
                              int(np.argmax(found != classes)))
        pending = (rolls == 0).all(axis=1)
        if not (((rolls >= 1) & (rolls <= 6)).all(axis=1) | pending).all():
            raise field_error(NardyError, "rolls", "must be two dice 1..6, or (0, 0) for a pending list",
                              rolls.tolist()[:4])
        if offsets[0] != 0 or offsets[-1] != total or (np.diff(offsets) < 1).any():
            problem = f"must rise from 0 to len(children) ({total}), by one candidate at least per position"
            raise field_error(NardyError, "offsets", problem, offsets.tolist()[:8])
        classify(children)  # checks every candidate as a position ("rows[i]: ...")
        if not (np.isfinite(equities) & (np.abs(equities) <= 3.0)).all():
            raise field_error(NardyError, "equities", "must be finite numbers in [-3, 3] (points per game)",
                              equities[~(np.isfinite(equities) & (np.abs(equities) <= 3))][:4].tolist())
        if not (np.isfinite(stderrs) & (stderrs >= 0.0)).all():
            raise field_error(NardyError, "stderrs", "must be finite numbers >= 0", stderrs[:4].tolist())
        for name, array in (("rows", rows), ("rolls", rolls), ("classes", classes), ("held_out", held_out),
                            ("offsets", offsets), ("children", children), ("equities", equities),
                            ("stderrs", stderrs)):
            array.flags.writeable = False  # a database never changes once checked
            object.__setattr__(self, name, array)
        object.__setattr__(self, "meta", meta)

    def __len__(self) -> int:
        return len(self.rows)

    def candidates(self, index: int) -> slice:
        """The slice of :attr:`children` (and of the equities) that holds position ``index``'s candidates."""
        return slice(int(self.offsets[index]), int(self.offsets[index + 1]))

    def arrays(self) -> dict[str, Any]:
        """The archive's members (the module docstring)."""
        names = ("rows", "rolls", "classes", "held_out", "offsets", "children", "equities", "stderrs")
        arrays: dict[str, Any] = {name: getattr(self, name) for name in names}
        arrays["meta"] = np.array(json.dumps(dict(self.meta), sort_keys=True))
        return arrays


def _check_meta(meta: object) -> dict[str, Any]:
    if not isinstance(meta, Mapping) or not all(isinstance(key, str) for key in meta):
        raise field_error(NardyError, "meta", "must be a mapping of names to values", type(meta).__name__)
    checked = dict(meta)
    missing = [key for key in META_KEYS if key not in checked]
    if missing:
        raise field_error(NardyError, "meta", f"must name {', '.join(META_KEYS)}", sorted(checked)[:8])
    if checked["format"] != FORMAT:
        raise field_error(NardyError, "meta.format", f"must be {FORMAT!r}: not a benchmark database",
                          checked["format"])
    if checked["version"] != VERSION:
        raise field_error(NardyError, "meta.version", f"must be {VERSION}", checked["version"])
    if checked["variant"] not in VARIANTS:
        raise field_error(NardyError, "meta.variant", f"must be one of {VARIANTS}", checked["variant"])
    try:
        text = json.dumps(checked, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError):
        raise field_error(NardyError, "meta", "must be plain JSON values", sorted(checked)[:8]) from None
    if len(text) > MAX_META:
        raise field_error(NardyError, "meta", f"must be at most {MAX_META} characters as JSON", len(text))
    parsed: dict[str, Any] = json.loads(text)
    return parsed


#: Where the package's own databases are, one a variant: ``<variant>.npz``.
SHIPPED = resources.files("nardy_fast") / "data" / "bench"


def shipped_database(variant: str, field: str = "database") -> Path:
    """The path of the database the package ships for ``variant`` (docs/benchmarks.md, Rolled-out benchmark
    databases); a variant without one is a :class:`~nardy_fast.NardyError` naming ``field``."""
    path = Path(str(SHIPPED / f"{variant}.npz"))
    if variant not in VARIANTS or not path.is_file():
        shipped = sorted(v for v in VARIANTS if Path(str(SHIPPED / f"{v}.npz")).is_file())
        raise field_error(NardyError, field, f"no database is shipped for this variant (shipped: {shipped})",
                          variant)
    return path


def read_database(path: object, field: str = "database") -> BenchmarkDatabase:
    """The database in the ``.npz`` file ``path``, or the one shipped for a variant when ``path`` is a
    variant's name (a file of that name is ``./short``); a file that is no database, or a damaged one, is a
    :class:`~nardy_fast.NardyError` naming ``field`` (the archive) or the member that is wrong."""
    if isinstance(path, str) and path in VARIANTS:
        path = shipped_database(path, field)
    arrays = read_npz(path, field, "not a benchmark database", _MEMBERS)
    try:
        meta = parse_json(str(arrays.pop("meta")))
    except ValueError as error:
        raise field_error(NardyError, "meta", f"must be a JSON object ({error})", str(path)) from None
    return BenchmarkDatabase(**arrays, meta=meta)


def write_database(path: Path, database: BenchmarkDatabase, field: str = "out") -> None:
    """Write ``database`` to ``path`` at once (:func:`nardy_fast.files.write_npz`, compressed)."""
    write_npz(path, database.arrays(), compressed=True, field=field)


@dataclass(frozen=True)
class ClassErrors:
    """An evaluator's error rate on the positions of one class (or ``"all"``): ``count`` positions, the mean
    equity lost per move x 1000 (``loss``) and its standard error over the positions (``nan`` below two)."""

    name: str
    count: int
    loss: float
    stderr: float


def position_losses(database: BenchmarkDatabase, position_class: type[AnalysedPosition], evaluator: object,
                    plies: int, indices: Sequence[int]) -> npt.NDArray[np.float64]:
    """The equity each position of ``indices`` loses by the move ``evaluator`` picks at ``plies``: the best
    candidate's rolled-out equity minus that of the candidate picked; a pick that is no candidate (one the
    maker's search cut) loses as much as the worst candidate. A position with one candidate loses nothing."""
    losses = np.zeros(len(indices))
    for n, index in enumerate(indices):
        block = database.candidates(index)
        equities = database.equities[block]
        if len(equities) == 1:
            continue  # a forced move (or a single candidate): whatever is picked, nothing is lost
        position = position_class.from_array(database.rows[index])
        roll = database.rolls[index]
        dice = None if not roll.any() else (int(roll[0]), int(roll[1]))
        picked = position.hint(dice, evaluator=evaluator, plies=plies)[0][0].result.to_array()
        same = (database.children[block] == picked).all(axis=1)
        chosen = float(equities[int(np.argmax(same))]) if same.any() else float(equities.min())
        losses[n] = float(equities.max()) - chosen
    return losses


def _summary(name: str, losses: npt.NDArray[np.float64]) -> ClassErrors:
    count = len(losses)
    mean = 1000.0 * float(losses.mean()) if count else math.nan
    stderr = 1000.0 * float(losses.std(ddof=1)) / math.sqrt(count) if count > 1 else math.nan
    return ClassErrors(name, count, mean, stderr)


def measure(database: object, position_class: type[AnalysedPosition], evaluator: object = "net", plies: int = 0,
            held_out: Optional[bool] = None) -> dict[str, ClassErrors]:
    """The error rate of ``evaluator`` searched ``plies`` deep on ``database`` (a :class:`BenchmarkDatabase`
    or a path to one), per position class present and for ``"all"``: see :class:`ClassErrors` and
    :func:`position_losses`. ``held_out`` ``True`` measures the test set alone, ``False`` the rest, ``None``
    every position."""
    if not isinstance(database, BenchmarkDatabase):
        database = read_database(database)
    if held_out not in (None, True, False):
        raise field_error(NardyError, "held_out", "must be None, True or False", held_out)
    chosen = np.arange(len(database))
    if held_out is not None:
        chosen = chosen[database.held_out == held_out]
    losses = position_losses(database, position_class, evaluator, plies, [int(i) for i in chosen])
    classes = database.classes[chosen]
    result = {name: _summary(name, losses[classes == number]) for number, name in enumerate(CLASSES)
              if (classes == number).any()}
    result["all"] = _summary("all", losses)
    return result
