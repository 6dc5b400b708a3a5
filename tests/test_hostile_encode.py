"""Hostile use of ``encode`` (:mod:`nardy_fast.encodings`): its ``out=`` array and rows that change under it.

Checked here, in both implementations:

1. an ``out`` that shares memory with ``rows`` (the rows at its start, its end, its middle, straddling one of
   its ends, one row, a strided view, rows of another integer dtype) gives what encoding a copy of the rows
   gives, features and errors alike; so does the core's kernel called with overlapping arguments;
2. an ``out`` of the wrong dtype or byte order, read-only, not C-contiguous, unaligned, or of an ``ndarray``
   subclass whose ``shape`` lies, is refused with a ``NardyError`` naming ``out`` (or, unaligned, filled);
3. rows changed between their check and their encoding (by a hook that runs right after the check, and by a
   writer thread) are never encoded unchecked: each row is encoded as it was checked, or is an error;
4. an error's message describes the row that was checked, never the caller's row as it is later (by a kernel
   that changes the caller's array once it has checked, and by a writer thread);
5. ``scheme`` is compared as a plain string only (a ``str`` subclass's ``__hash__`` and ``__eq__`` are never
   called; a NumPy array is simply not a scheme).

The expected values are those of the reference encoding a private copy of the rows, made before any writer
starts: aliasing and races must not change what the rows encode to.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from writers import for_a_while, writer

from nardy_fast import _dispatch, encodings, layout, reference
from nardy_fast.corpus import load
from nardy_fast.errors import InvalidPositionError, NardyError
from nardy_fast.variants import VARIANTS

IMPLEMENTATIONS = _dispatch.implementations()
SCHEMES = sorted(encodings.SCHEMES)
Rows = npt.NDArray[np.int8]
Features = npt.NDArray[np.float32]


@pytest.fixture(params=sorted(IMPLEMENTATIONS))
def impl(request: pytest.FixtureRequest) -> ModuleType:
    """The implementation under test."""
    return IMPLEMENTATIONS[request.param]


def _reference(rows: object, scheme: str) -> tuple[object, ...]:
    """What the reference gives for a private copy of ``rows``: ``("ok", bytes, shape)`` or ``("error", class,
    message)``."""
    return _outcome(lambda: IMPLEMENTATIONS["python"].encode(np.array(rows, copy=True), scheme))


def _outcome(call: Callable[[], Any]) -> tuple[object, ...]:
    try:
        result = call()
    except NardyError as error:
        return ("error", type(error), str(error))
    return ("ok", np.asarray(result).tobytes(), np.asarray(result).shape)


def _short_rows(count: int) -> Rows:
    """Short-nardy rows: every scheme encodes them."""
    rows = np.ascontiguousarray(load("short")[0][:count])
    assert len(rows) == count
    return rows


def _with_bad_rows(rows: Rows) -> Rows:
    """``rows`` with row 7 invalid (a 16th White checker on the bar) and row 11 a long-nardy row (refused by
    "tdgammon" and "openspiel", encoded by "nardy")."""
    rows = rows.copy()
    rows[7, layout.BAR] += 1
    rows[11] = load("long")[0][0]
    return rows


# --- 1. out overlapping rows -----------------------------------------------------------------------------------


def _overlapping(rows: Rows, features: int, out_at: int, rows_at: int) -> tuple[Features, Rows]:
    """``(out, view)``: ``out`` (N, F) float32 at byte ``out_at`` of one buffer, ``view`` an int8 (N, 64)
    holding ``rows`` at byte ``rows_at`` of the same buffer."""
    n = len(rows)
    size = max(out_at + 4 * n * features, rows_at + rows.nbytes)
    buffer = np.zeros(size + 64, dtype=np.uint8)
    view = buffer[rows_at : rows_at + rows.nbytes].view(np.int8).reshape(rows.shape)
    out = buffer[out_at : out_at + 4 * n * features].view(np.float32).reshape(n, features)
    view[...] = rows
    assert np.shares_memory(out, view) and out.flags.aligned
    return out, view


#: ``(out's byte offset, rows' byte offset)`` as functions of (N, F): the rows at the start, the end, the
#: middle of out's buffer, beginning before it and ending beyond it
PLACES: dict[str, Callable[[int, int], tuple[int, int]]] = {
    "start": lambda n, f: (0, 0),
    "end": lambda n, f: (0, 4 * n * f - 64 * n),
    "middle": lambda n, f: (0, (4 * n * f - 64 * n) // 2 + 1),
    "before": lambda n, f: (32 * n, 0),
    "beyond": lambda n, f: (0, 4 * n * f - 32 * n),
}


@pytest.mark.parametrize("bad", [False, True], ids=["valid", "bad rows"])
@pytest.mark.parametrize("place", sorted(PLACES))
@pytest.mark.parametrize("scheme", SCHEMES)
def test_out_overlapping_rows_is_encoding_a_copy(
    impl: ModuleType, scheme: str, place: str, bad: bool
) -> None:
    rows = _short_rows(40)
    if bad:
        rows = _with_bad_rows(rows)
    features = encodings.SCHEMES[scheme].features
    want = _reference(rows, scheme)
    out, view = _overlapping(rows, features, *PLACES[place](len(rows), features))
    got = _outcome(lambda: impl.encode(view, scheme, out=out))
    assert got == want
    if got[0] == "ok":
        assert out.tobytes() == want[1]


@pytest.mark.parametrize("scheme", SCHEMES)
def test_core_kernel_with_overlapping_arguments(scheme: str) -> None:
    """The core's kernel itself reads every row before it writes over them, whoever calls it."""
    if "cython" not in IMPLEMENTATIONS:
        pytest.skip("the compiled core is not built")
    from nardy_fast._core import encode_rows

    rows = _short_rows(40)
    features = encodings.SCHEMES[scheme].features
    want = IMPLEMENTATIONS["python"].encode(rows.copy(), scheme)
    for place in PLACES.values():
        out, view = _overlapping(rows, features, *place(len(rows), features))
        assert encode_rows(view, scheme, out) == -1
        assert out.tobytes() == want.tobytes()


@pytest.mark.parametrize("scheme", SCHEMES)
def test_one_row_inside_its_out(impl: ModuleType, scheme: str) -> None:
    row = _short_rows(1)[0]
    features = encodings.SCHEMES[scheme].features
    out = np.zeros(features, dtype=np.float32)
    view = out.view(np.int8)[features * 4 - 64 :]
    view[...] = row
    assert impl.encode(view, scheme, out) is out
    assert out.tobytes() == _reference(row, scheme)[1]


@pytest.mark.parametrize("dtype", ["int8 strided", "int16", "int32", "int64"])
def test_rows_of_any_dtype_inside_out(impl: ModuleType, dtype: str) -> None:
    """Rows converted to int8 (another dtype) or made contiguous (a strided view) and aliasing ``out``."""
    rows = _with_bad_rows(_short_rows(40)) if dtype == "int16" else _short_rows(40)
    out = np.zeros((40, 224), dtype=np.float32)
    if dtype == "int8 strided":
        view: npt.NDArray[Any] = out.view(np.int8).reshape(40, 896)[:, 128:256:2]
    else:
        width = np.dtype(dtype).itemsize
        view = out.view(np.int8).reshape(-1)[: 40 * 64 * width].view(dtype).reshape(40, 64)
    view[...] = rows
    assert np.shares_memory(view, out)
    want = _reference(rows, "nardy")
    assert _outcome(lambda: impl.encode(view, "nardy", out=out)) == want
    if want[0] == "ok":
        assert out.tobytes() == want[1]


# --- 2. out's own checks -----------------------------------------------------------------------------------------


class _LyingShape(np.ndarray[Any, np.dtype[np.float32]]):
    """An array that says it has the shape the caller wants."""

    @property  # type: ignore[misc]
    def shape(self) -> tuple[int, ...]:
        return (40, 198)


def _bad_outs() -> dict[str, tuple[Callable[[Rows], object], str]]:
    frozen = np.zeros((40, 198), dtype=np.float32)
    frozen.flags.writeable = False

    def frozen_alias(rows: Rows) -> object:
        out = np.zeros((40, 198), dtype=np.float32)
        out.view(np.int8).reshape(-1)[: rows.nbytes] = rows.reshape(-1)
        out.flags.writeable = False
        return out

    return {
        "float64": (lambda rows: np.zeros((40, 198)), "out: must be a float32 array of shape (40, 198)"),
        "float16": (lambda rows: np.zeros((40, 198), np.float16), "'float16'"),
        "big-endian": (lambda rows: np.zeros((40, 198), ">f4"), "'>f4'"),
        "int32": (lambda rows: np.zeros((40, 198), np.int32), "'int32'"),
        "shape": (lambda rows: np.zeros((40, 199), np.float32), "(got ((40, 199), 'float32'))"),
        "lying shape": (
            lambda rows: np.zeros((20, 199), np.float32).view(_LyingShape),
            "(got ((20, 199), 'float32'))",
        ),
        "strided": (lambda rows: np.zeros((40, 396), np.float32)[:, ::2], "out: must be C-contiguous"),
        "Fortran": (lambda rows: np.zeros((40, 198), np.float32, order="F"), "out: must be C-contiguous"),
        "read-only": (lambda rows: frozen, "out: must be writable"),
        "read-only alias": (frozen_alias, "out: must be writable"),
        "list": (lambda rows: [[0.0] * 198] * 40, "out: must be a float32 NumPy array"),
    }


@pytest.mark.parametrize("case", sorted(_bad_outs()))
def test_bad_out_is_refused_alike(case: str) -> None:
    make, text = _bad_outs()[case]
    rows = _short_rows(40)
    outcomes = {
        name: _outcome(lambda: module.encode(rows.copy(), "tdgammon", out=make(rows)))
        for name, module in IMPLEMENTATIONS.items()
    }
    assert len(set(outcomes.values())) == 1, outcomes
    kind, cls, message = next(iter(outcomes.values()))
    assert kind == "error" and cls is NardyError and text in str(message), message


def test_unaligned_out_is_filled(impl: ModuleType) -> None:
    rows = _short_rows(40)
    buffer = np.zeros(40 * 224 * 4 + 1, dtype=np.uint8)
    out = buffer[1:].view(np.float32).reshape(40, 224)
    assert not out.flags.aligned
    assert impl.encode(rows, "nardy", out=out) is out
    assert out.tobytes() == _reference(rows, "nardy")[1]


# --- 3. rows changed between their check and their encoding ----------------------------------------------------


def test_rows_changed_right_after_their_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reference's kernel checks each row with ``layout.unpack``: a hook there makes every row invalid in
    the caller's array as soon as it is checked, as another thread could. What is encoded is what was
    checked."""
    rows = _short_rows(40)
    want = IMPLEMENTATIONS["python"].encode(rows.copy(), "tdgammon")
    shared = rows.copy()
    check = layout.unpack

    def check_then_spoil(row: Rows) -> object:
        state = check(row)
        shared[:, layout.BAR] = 16  # 16 White checkers on the bar: no row is valid any more
        return state

    monkeypatch.setattr(encodings, "unpack", check_then_spoil)
    got = IMPLEMENTATIONS["python"].encode(shared, "tdgammon")
    assert (shared[:, layout.BAR] == 16).all()  # the hook ran
    assert got.tobytes() == want.tobytes()


def test_rows_made_invalid_by_another_thread(impl: ModuleType) -> None:
    """Another thread adds a White checker to the bar of every row or takes one away, over and over (16 or 14
    in all, then 15 again): ``encode`` raises the error of an invalid row, or encodes every row as it is when
    valid."""
    rows = _short_rows(8)
    want = IMPLEMENTATIONS["python"].encode(rows.copy(), "tdgammon")
    spoiled = rows.copy()
    spoiled[:, layout.BAR] ^= 1
    messages = {
        str(_reference(spoiled[i : i + 1], "tdgammon")[2]).replace("rows[0]", f"rows[{i}]") for i in range(8)
    }
    shared = rows.copy()
    errors = 0

    def toggle() -> None:
        shared[:, layout.BAR] ^= 1  # one checker more or less than 15: invalid, then valid again

    with writer(toggle):
        for _ in for_a_while(2000, 30, lambda: errors > 0):
            try:
                got = impl.encode(shared, "tdgammon")
            except InvalidPositionError as error:
                errors += 1
                assert str(error) in messages
            else:
                assert got.tobytes() == want.tobytes()
    assert errors  # the writer was seen


# --- 4. the error describes the row that was checked -----------------------------------------------------------


def _kernels() -> dict[str, encodings.EncodeKernel]:
    found: dict[str, encodings.EncodeKernel] = {"python": encodings.python_kernel}
    if "cython" in IMPLEMENTATIONS:
        from nardy_fast._core import encode_rows

        found["cython"] = encode_rows
    return found


@pytest.mark.parametrize("name", sorted(_kernels()))
def test_the_error_describes_the_row_checked(name: str) -> None:
    """A kernel that finds a long row, after which the caller's row becomes a short one (as another thread
    could make it): the error still says the row was long."""
    kernel = _kernels()[name]
    short = _short_rows(4)
    long_row = load("long")[0][0]
    shared = short.copy()
    shared[2] = long_row

    def kernel_then_change(rows: Rows, scheme: str, out: Features) -> int:
        bad = kernel(rows, scheme, out)
        shared[2] = short[2]
        return bad

    record = reference.IMPLEMENTATION_RECORD
    encode = replace(record, kernels=replace(record.kernels, encode=kernel_then_change)).encode
    want = _reference(np.concatenate([short[:2], long_row[None, :]]), "tdgammon")
    got = _outcome(lambda: encode(shared, "tdgammon"))
    assert got == want and "(got 'long')" in str(got[2])


@pytest.mark.slow  # a writer thread against many encodes: seconds in the reference
def test_errors_under_a_writer_thread_describe_the_row_checked(impl: ModuleType) -> None:
    """Another thread switches the variant byte of every row between short and long nardy (each row valid as
    both): every error says the row was long, and every result is the short rows' encoding."""
    short, long_ = VARIANTS.index("short"), VARIANTS.index("long")
    rows = _short_rows(200)
    as_long = rows.copy()
    as_long[:, layout.VARIANT] = long_
    rows = np.ascontiguousarray(rows[[_valid(row) for row in as_long]][:64])
    assert len(rows) == 64
    want = IMPLEMENTATIONS["python"].encode(rows.copy(), "tdgammon")
    shared = rows.copy()
    errors = 0

    def toggle() -> None:
        shared[:, layout.VARIANT] ^= short ^ long_

    with writer(toggle):
        for _ in for_a_while(3000, 30, lambda: errors > 0):
            try:
                got = impl.encode(shared, "tdgammon")
            except NardyError as error:
                errors += 1
                assert re.fullmatch(
                    r"rows\[\d+\]: scheme 'tdgammon' encodes only variant\(s\) \('short',\) \(got 'long'\)",
                    str(error),
                ), error
            else:
                assert got.tobytes() == want.tobytes()
    assert errors  # the writer was seen


def _valid(row: Rows) -> bool:
    try:
        layout.unpack(row)
    except NardyError:
        return False
    return True


# --- 5. the scheme's name ------------------------------------------------------------------------------------------


class _HostileStr(str):
    def __hash__(self) -> int:
        raise RuntimeError("__hash__ called")

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("__eq__ called")


def test_scheme_is_compared_as_a_plain_string(impl: ModuleType) -> None:
    rows = _short_rows(5)
    want = _reference(rows, "nardy")
    assert _outcome(lambda: impl.encode(rows, _HostileStr("nardy"))) == want
    assert _outcome(lambda: impl.encode(rows, np.str_("nardy"))) == want
    for bad in (_HostileStr("gnubg"), np.array(["nardy"]), np.array("nardy"), b"nardy"):
        kind, cls, message = _outcome(lambda: impl.encode(rows, bad))  # noqa: B023
        assert kind == "error" and cls is NardyError, message
        assert str(message).startswith("scheme: must be one of"), message
