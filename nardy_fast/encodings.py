"""Network encodings of packed rows: the input vectors of neural networks, many positions per call.

``encode(rows, scheme, out=None)`` turns an integer array of rows (N, 64) (:mod:`nardy_fast.layout`) into a
``float32`` array (N, F), F the scheme's number of features; a single row (64,) gives a vector (F,). Schemes
(:data:`SCHEMES`):

``"tdgammon"`` (198 features, short nardy only)
    gym-backgammon's ``Backgammon.get_board_features(side to move)``, value for value: White's points 1..24,
    then White's bar and off, Black's points 1..24, Black's bar and off, then ``1, 0`` when White is to move
    and ``0, 1`` when Black is. A point's four units are TD-Gammon's: ``c >= 1``, ``c >= 2``, ``c >= 3`` and
    ``(c - 3) / 2`` for ``c > 3`` checkers; the bar counts ``n / 2``, the borne-off ``n / 15``. The colours
    are absolute (not the mover's view), as in gym-backgammon, whose White is ours.

``"openspiel"`` (200 features, short nardy only)
    OpenSpiel's ``backgammon`` ``observation_tensor(player)`` for the side to move, at the state where it is
    to play: its checkers on OpenSpiel's points 0..23 (4 units: ``c == 1``, ``c == 2``, ``c == 3``,
    ``c - 3`` for ``c > 3``), then the opponent's, then the mover's bar, borne-off count and ``1`` (its
    turn), the opponent's bar, borne-off count and ``0``, and the two dice. OpenSpiel's player 0 (``x``) is
    our White and its point ``i`` is White's point ``24 - i``. A row holds no dice, so the last two features
    are 0: write the roll there, lower die first (``out[:, 198:] = sorted(roll)``), to have OpenSpiel's tensor
    after the roll. (A finished game is encoded the same way; OpenSpiel's terminal state keeps the last dice,
    and its two turn units depend on how the last turn ended.)

``"nardy"`` (every variant)
    The side to move's view in its own numbering (docs/rules.md, The mover's numbering), with everything a
    row holds, so that the row can be read back from it. Fields in order (the offsets are computed from
    :data:`NARDY_FIELDS`, which this table mirrors):

    ==================  ======  =====  =================================================================
    name                offset  width  meaning
    ==================  ======  =====  =================================================================
    ``mover_points``    0       96     the mover's checkers on its M1..M24, 4 TD-Gammon units a point
    ``opponent_points`` 96      96     the opponent's checkers on the mover's M1..M24, the same units
    ``bar``             192     2      checkers on the bar / 2 (mover, opponent)
    ``off``             194     2      checkers borne off / 15 (mover, opponent)
    ``head``            196     2      checkers on each side's own point 24 / 15 (the head of the long
                                       family; the mover's M24, the opponent's own 24)
    ``first_roll``      198     2      1 while the side's first roll is still to come (mover, opponent)
    ``pending``         200     6      how many times each value 1..6 is in the pending list
    ``rolls_played``    206     2      rolls played, as counted for ``normal_doubles_first_rolls``
                                       (mover, opponent)
    ``black``           208     1      1 when the mover is Black
    ``variant``         209     5      one-hot over ``VARIANTS``
    ``flags``           214     10     the rule flags in ``FLAG_SPECS`` order: one unit per two-valued
                                       flag (1 for its non-default value), six for the exception doubles
                                       (unit ``d - 1`` for double ``d``); 0 where a flag does not apply
    ==================  ======  =====  =================================================================

    224 features in all. The flags' units come from ``nardy_fast.variants.FLAG_SPECS`` (:data:`FLAG_UNITS`),
    so a new flag widens the encoding.

``"expert"`` (every variant)
    The 224 ``"nardy"`` features, then the 14 expert features of :mod:`nardy_fast.expert` (pips, blots, shots,
    primes, containment, contact and mobility of each side, the side to move's first): 238 in all, what a
    network of the ``"expert"`` scheme reads.

Both implementations encode the same rows to the same bits: the reference with vectorised NumPy
(:data:`NUMPY_ENCODERS`), the compiled core in C without the GIL. Every row is checked as
``Position.from_array`` checks it; an invalid row, or one of a variant the scheme does not encode, is an error
naming the row.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from itertools import accumulate
from typing import Protocol

import numpy as np
import numpy.typing as npt

from .board import mover_point
from .errors import NardyError, field_error
from .expert import EXPERT_WIDTH, MOVER_COLUMNS, expert_features
from .inputs import choice
from .layout import (
    BAR,
    BOARD,
    EXCEPTION_DOUBLES,
    FIRST_ROLL,
    FLAGS,
    NPENDING,
    OFF,
    PENDING,
    ROLLS_PLAYED,
    TURN,
    VARIANT,
    Rows,
    unpack,
)
from .variants import FLAG_SPECS, VARIANTS

__all__ = [
    "Scheme",
    "SCHEMES",
    "NARDY_FIELDS",
    "NARDY_OFFSETS",
    "FLAG_UNITS",
    "OPPONENT_HEAD",
    "NUMPY_ENCODERS",
    "td_units",
    "EncodeKernel",
    "python_kernel",
    "check_scheme",
    "check_out",
    "explain",
]

Features = npt.NDArray[np.float32]

#: One unit per two-valued flag and one per die for the exception doubles, in ``FLAG_SPECS`` order:
#: ``(name, bit, width)`` (``bit`` 0 marks the die mask, stored in the row's own column).
FLAG_UNITS: tuple[tuple[str, int, int], ...] = tuple(
    (spec.name, spec.bit, 1 if spec.bit else 6) for spec in FLAG_SPECS
)

#: The fields of the ``"nardy"`` encoding in order: ``(name, width, meaning)`` (the module's table).
NARDY_FIELDS: tuple[tuple[str, int, str], ...] = (
    ("mover_points", 96, "the mover's checkers on its M1..M24, 4 TD-Gammon units a point"),
    ("opponent_points", 96, "the opponent's checkers on the mover's M1..M24, the same units"),
    ("bar", 2, "checkers on the bar / 2 (mover, opponent)"),
    ("off", 2, "checkers borne off / 15 (mover, opponent)"),
    ("head", 2, "checkers on each side's own point 24 / 15 (mover, opponent)"),
    ("first_roll", 2, "1 while the side's first roll is still to come (mover, opponent)"),
    ("pending", 6, "how many times each value 1..6 is in the pending list"),
    ("rolls_played", 2, "rolls played, as counted for normal_doubles_first_rolls (mover, opponent)"),
    ("black", 1, "1 when the mover is Black"),
    ("variant", len(VARIANTS), "one-hot over VARIANTS"),
    ("flags", sum(width for _, _, width in FLAG_UNITS), "the rule flags in FLAG_SPECS order (FLAG_UNITS)"),
)
#: The offset of each field of the ``"nardy"`` encoding.
NARDY_OFFSETS: Mapping[str, int] = dict(
    zip((name for name, _, _ in NARDY_FIELDS), accumulate((width for _, width, _ in NARDY_FIELDS), initial=0))
)
_NARDY_WIDTH = sum(width for _, width, _ in NARDY_FIELDS)


@dataclass(frozen=True)
class Scheme:
    """An encoding: its name, its number of features and the variants it encodes."""

    name: str
    features: int
    variants: frozenset[str]
    doc: str


#: Every encoding by name.
SCHEMES: Mapping[str, Scheme] = {
    scheme.name: scheme
    for scheme in (
        Scheme("tdgammon", 198, frozenset({"short"}), "gym-backgammon's get_board_features (TD-Gammon)"),
        Scheme(
            "openspiel", 200, frozenset({"short"}), "OpenSpiel backgammon's observation_tensor, mover's view"
        ),
        Scheme(
            "nardy", _NARDY_WIDTH, frozenset(VARIANTS), "every field of a row, mover's view (module table)"
        ),
        Scheme(
            "expert", _NARDY_WIDTH + EXPERT_WIDTH, frozenset(VARIANTS), "the nardy features, then nardy_fast.expert's"
        ),
    )
}


# --- the reference's encoders: vectorised NumPy over checked int8 rows ----------------------------------------


def td_units(counts: npt.NDArray[np.int16]) -> Features:
    """TD-Gammon's four units of each count (N, P) -> (N, 4 P): c >= 1, c >= 2, c >= 3, (c - 3) / 2 above 3."""
    c = counts.astype(np.float32)
    units = np.stack([c >= 1, c >= 2, c >= 3, np.where(c > 3, (c - 3) / np.float32(2), 0)], axis=-1)
    return units.astype(np.float32).reshape(len(counts), 4 * counts.shape[1])


def _spiel_units(counts: npt.NDArray[np.int16]) -> Features:
    """OpenSpiel's four units of each count: c == 1, c == 2, c == 3, c - 3 above 3."""
    c = counts.astype(np.float32)
    units = np.stack([c == 1, c == 2, c == 3, np.where(c > 3, c - 3, 0)], axis=-1)
    return units.astype(np.float32).reshape(len(counts), 4 * counts.shape[1])


def _sides(rows: Rows) -> tuple[npt.NDArray[np.int16], npt.NDArray[np.int16]]:
    """White's and Black's checkers on White's points 1..24."""
    board = rows[:, BOARD : BOARD + 24].astype(np.int16)
    return np.maximum(board, 0), np.maximum(-board, 0)


def _tdgammon(rows: Rows) -> Features:
    white, black = _sides(rows)
    out = np.zeros((len(rows), 198), dtype=np.float32)
    for side, counts in enumerate((white, black)):
        base = 98 * side
        out[:, base : base + 96] = td_units(counts)
        out[:, base + 96] = rows[:, BAR + side].astype(np.float32) / np.float32(2)
        out[:, base + 97] = rows[:, OFF + side].astype(np.float32) / np.float32(15)
    out[:, 196] = rows[:, TURN] == 0
    out[:, 197] = rows[:, TURN] == 1
    return out


def _openspiel(rows: Rows) -> Features:
    white, black = _sides(rows)
    black_to_move = (rows[:, TURN] == 1)[:, None]
    # OpenSpiel's point i is White's point 24 - i: White's board read backwards
    mover = np.where(black_to_move, black, white)[:, ::-1]
    opponent = np.where(black_to_move, white, black)[:, ::-1]
    me = rows[:, TURN].astype(np.intp)
    index = np.arange(len(rows))
    out = np.zeros((len(rows), 200), dtype=np.float32)
    out[:, 0:96] = _spiel_units(mover)
    out[:, 96:192] = _spiel_units(opponent)
    out[:, 192] = rows[index, BAR + me]
    out[:, 193] = rows[index, OFF + me]
    out[:, 194] = 1
    out[:, 195] = rows[index, BAR + 1 - me]
    out[:, 196] = rows[index, OFF + 1 - me]
    return out


_MOVER_COLUMNS = MOVER_COLUMNS
#: The mover's number of the opponent's own point 24, per variant.
OPPONENT_HEAD = np.array([mover_point(variant, 24) for variant in VARIANTS], dtype=np.intp)


def _nardy(rows: Rows) -> Features:
    n = len(rows)
    index = np.arange(n)
    variant = rows[:, VARIANT].astype(np.intp)
    me = rows[:, TURN].astype(np.intp)
    sign = np.where(me == 1, -1, 1).astype(np.int16)[:, None]
    # the board in the mover's numbering, its checkers positive
    seen = rows[index[:, None], _MOVER_COLUMNS[variant, me]].astype(np.int16) * sign
    mine, theirs = np.maximum(seen, 0), np.maximum(-seen, 0)
    out = np.zeros((n, _NARDY_WIDTH), dtype=np.float32)
    at = NARDY_OFFSETS
    out[:, at["mover_points"] : at["mover_points"] + 96] = td_units(mine)
    out[:, at["opponent_points"] : at["opponent_points"] + 96] = td_units(theirs)
    for k, side in enumerate((me, 1 - me)):
        out[:, at["bar"] + k] = rows[index, BAR + side].astype(np.float32) / np.float32(2)
        out[:, at["off"] + k] = rows[index, OFF + side].astype(np.float32) / np.float32(15)
        out[:, at["first_roll"] + k] = rows[index, FIRST_ROLL + side]
        out[:, at["rolls_played"] + k] = rows[index, ROLLS_PLAYED + side]
    out[:, at["head"]] = mine[:, 23].astype(np.float32) / np.float32(15)
    out[:, at["head"] + 1] = theirs[index, OPPONENT_HEAD[variant] - 1].astype(np.float32) / np.float32(15)
    pending = rows[:, PENDING : PENDING + 24]
    listed = np.arange(24)[None, :] < rows[:, NPENDING : NPENDING + 1]
    for value in range(1, 7):
        out[:, at["pending"] + value - 1] = ((pending == value) & listed).sum(axis=1)
    out[:, at["black"]] = me
    out[index, at["variant"] + variant] = 1
    unit = at["flags"]
    for _, bit, width in FLAG_UNITS:
        if bit:
            out[:, unit] = (rows[:, FLAGS].astype(np.int16) & bit) != 0
        else:
            for d in range(6):
                out[:, unit + d] = (rows[:, EXCEPTION_DOUBLES].astype(np.int16) >> d) & 1
        unit += width
    return out


def _expert(rows: Rows) -> Features:
    return np.hstack([_nardy(rows), expert_features(rows)])


#: The reference encoder of each scheme: checked int8 rows (N, 64) -> float32 (N, F).
NUMPY_ENCODERS: Mapping[str, Callable[[Rows], Features]] = {
    "tdgammon": _tdgammon,
    "openspiel": _openspiel,
    "nardy": _nardy,
    "expert": _expert,
}


# --- the API, the same for every implementation ----------------------------------------------------------------


class EncodeKernel(Protocol):
    """An implementation's encoder: writes the features of every row of a C-contiguous int8 matrix into
    ``out`` (float32, C-contiguous (N, F)) and returns -1, or the first row that is invalid or of a variant
    ``scheme`` does not encode (the rows after it are left unwritten). The rows encoded are the rows checked,
    and the result is the same when ``out`` overlaps ``rows`` as when it does not."""

    def __call__(self, rows: Rows, scheme: str, out: Features) -> int:
        """Encode, or say where it stopped."""
        ...


def python_kernel(rows: Rows, scheme: str, out: Features) -> int:
    """The reference's kernel: every row checked by :func:`nardy_fast.layout.unpack`, then encoded with
    NumPy, both from one copy of ``rows`` (another thread may change them between the check and the encoding;
    ``out`` is written only once every row is read)."""
    rows = np.array(rows, dtype=np.int8, order="C", copy=True)
    allowed = SCHEMES[scheme].variants
    for index, row in enumerate(rows):
        try:
            state = unpack(row)
        except NardyError:
            return index
        if state.variant not in allowed:
            return index
    out[...] = NUMPY_ENCODERS[scheme](rows)
    return -1


def check_scheme(scheme: object) -> Scheme:
    """The scheme named ``scheme`` (one of :data:`SCHEMES`)."""
    name = choice(scheme, SCHEMES)
    if name is None:
        raise field_error(NardyError, "scheme", f"must be one of {tuple(SCHEMES)}", scheme)
    return SCHEMES[name]


def check_out(out: object, shape: tuple[int, ...]) -> Features:
    """A plain ``ndarray`` view of ``out`` when it is a writable C-contiguous float32 array of ``shape``: its
    own dtype, shape and flags, whatever a subclass's attributes say."""
    if not isinstance(out, np.ndarray):
        raise field_error(
            NardyError, "out", f"must be a float32 NumPy array of shape {shape}", type(out).__name__
        )
    array: Features = np.ndarray.view(out, np.ndarray)
    if array.dtype != np.float32 or array.shape != shape:
        raise field_error(
            NardyError, "out", f"must be a float32 array of shape {shape}", (array.shape, str(array.dtype))
        )
    if not array.flags.c_contiguous:
        raise field_error(NardyError, "out", "must be C-contiguous", array.strides)
    if not array.flags.writeable:
        raise field_error(NardyError, "out", "must be writable", "read-only array")
    return array


def explain(rows: Rows, index: int, scheme: Scheme) -> NardyError:
    """The error for row ``index``: its check's, or the scheme's when the row is valid."""
    try:
        state = unpack(rows[index])
    except NardyError as error:
        return type(error)(f"rows[{index}]: {error}")
    return field_error(
        NardyError,
        f"rows[{index}]",
        f"scheme {scheme.name!r} encodes only variant(s) {tuple(sorted(scheme.variants))}",
        state.variant,
    )
