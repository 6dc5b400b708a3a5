"""The network evaluator "network" (nardy_fast.evaluation.network; its twins ``network_evaluate`` in
src_pyx/evaluators/network.pxi and nardy_fast.reference.network) with networks of random weights from seeded generators,
never the shipped ones (those are tested through a directory of our own).

Checked here:

1. twins: the compiled core and the reference value the same weights to the same bits (the issue asks 1e-5)
   on the corpus of every variant, rows of the non-default rule flags and finished games mixed in, for 16
   and 80 hidden units, and at the extremes (1 and 512 units, weights of +-MAX_WEIGHT that saturate every
   sigmoid);
2. the forward pass of the module's docstring, computed here in float64 with NumPy matrix products from
   ``nardy_fast.encode(rows, "nardy")``, is both implementations' to 1e-5, the nesting caps included (and
   they do cap); a constant network is worked out by hand;
3. finished games are valued by their outcome (worked out by hand from docs/rules.md, and as the heuristic
   evaluator values them), wherever they stand among live rows;
4. bad input, the same class and message in both implementations: weights of the wrong shapes, NaN,
   infinite or too large (judged before the cast to float32), not real numbers; an unknown variant; a
   ``training`` that is no JSON object; rows, playouts, duels, hints and rollouts of a variant the network
   does not serve; weights files missing, not npz, without meta, edited, damaged, of another encoding or of
   no known variant; saving to what is no path or where nothing can be written (no temporary file left);
   the core's kernels fed bad tables, the network's and the race evaluator's (tables that are no tuple
   included), in a child process;
5. save/load and pickling keep the bits, the checksum (SHA-256 of the float32 bytes in w1, b1, w2, b2 order,
   recomputed here) and ``training``; an edited pickle is refused; a network's attributes cannot be
   assigned or deleted;
6. ``Greedy(network)`` playouts are the same games in both implementations and for 1 or 2 threads of the
   core; hints rank alike in both implementations (and as a Python evaluator with the same values does);
   a duel of a network against itself on duplicate dice scores 0;
7. two threads evaluating at once get the one-thread answer;
8. ``"network"`` is the shipped network of the rows' variant (``shipped``, from a directory of our own); ``"net"``
   the composite with it in contact.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import pickle
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import FrozenInstanceError
from functools import cache
from pathlib import Path
from typing import Any, Optional

import numpy as np
import numpy.typing as npt
import pytest
from test_heuristic import assert_nested
from test_hostile import run_in_child as hostile_child

import nardy_fast
from nardy_fast import layout
from nardy_fast._dispatch import implementations
from nardy_fast.corpus import load
from nardy_fast.errors import NardyError
from nardy_fast.evaluation import network as network_module
from nardy_fast.evaluation.composite import Composite
from nardy_fast.evaluation.network import INPUTS, MAX_HIDDEN, MAX_WEIGHT, Network, shipped
from nardy_fast.evaluation.outcomes import EVALUATORS
from nardy_fast.policies import Greedy
from nardy_fast.reference.network import network_evaluate
from nardy_fast.variants import FLAG_SPECS, VARIANTS

Rows = npt.NDArray[np.int8]
Values = npt.NDArray[np.float64]

IMPLS = implementations()
NAMES = sorted(IMPLS)
needs_core = pytest.mark.skipif("cython" not in IMPLS, reason="the compiled core is not built")
KIND = EVALUATORS.index("network")
VARIANTS_MESSAGE = f"variant: must be one of {VARIANTS}"


def random_network(variant: str, hidden: int, seed: int, scale: float = 1.0) -> Network:
    """A network of ``hidden`` units with weights from a seeded generator, large enough that the outputs
    spread over (0, 1) and the nesting caps act."""
    rng = np.random.default_rng(seed)
    return Network(
        variant,
        rng.normal(0.0, 0.4 * scale, (INPUTS, hidden)),
        rng.normal(0.0, 0.5 * scale, hidden),
        rng.normal(0.0, 2.0 * scale, (5, hidden)),
        rng.normal(0.0, 1.0 * scale, 5),
        training={"seed": seed, "by": "tests/test_network.py"},
    )


@cache
def net(variant: str, hidden: int = 16) -> Network:
    return random_network(variant, hidden, seed=VARIANTS.index(variant) * 1000 + hidden)


@cache
def finished_rows(variant: str) -> Rows:
    """The last positions of seeded random games of ``variant`` (finished)."""
    _, paths = IMPLS[nardy_fast.IMPLEMENTATION].playout(variant, 12, seed=41, trajectories=True)
    rows = np.ascontiguousarray(paths.rows[paths.offsets[1:] - 1])
    assert layout.is_over(rows).all()
    rows.flags.writeable = False
    return rows


@cache
def flag_rows(variant: str) -> Rows:
    """Positions of random games of ``variant`` with each two-valued rule flag at its other value (the
    network of the default rules values them too)."""
    found = [np.zeros((0, layout.WIDTH), dtype=np.int8)]
    for spec in FLAG_SPECS:
        if variant in spec.variants and spec.bit:
            flags: dict[str, Any] = {spec.name: spec.other}
            _, paths = nardy_fast.playout(variant, 2, seed=43, trajectories=True, **flags)
            found.append(paths.rows[::7])
    rows = np.ascontiguousarray(np.concatenate(found))
    rows.flags.writeable = False
    return rows


@cache
def mixed_rows(variant: str, every: int = 1) -> Rows:
    """Corpus rows of ``variant`` (every ``every``-th), rows of the other rule flags, and finished games
    spread among them."""
    live = np.concatenate([load(variant)[0][::every], flag_rows(variant)])
    over = finished_rows(variant)
    at = np.linspace(0, len(live), len(over), dtype=np.int64)
    rows = np.ascontiguousarray(np.insert(live, at, over, axis=0))
    rows.flags.writeable = False
    return rows


def values(name: str, rows: Rows, evaluator: object) -> Values:
    out: Values = IMPLS[name].evaluate(rows, evaluator)
    return out


def outcome(module: Any, call: Callable[[Any], object]) -> tuple[str, str]:
    """The class and message of the error ``call(module)`` raises."""
    with pytest.raises(Exception) as caught:
        call(module)
    return type(caught.value).__name__, str(caught.value)


def same_error_in_both(call: Callable[[Any], object]) -> str:
    """``call(module)`` raises a NardyError with the same message in every implementation; the message."""
    seen = {name: outcome(IMPLS[name], call) for name in NAMES}
    assert len(set(seen.values())) == 1, seen
    kind, message = next(iter(seen.values()))
    assert kind == "NardyError", seen
    return message


# --- 1. the twins -------------------------------------------------------------------------------------------


@needs_core
@pytest.mark.parametrize("hidden", [16, 80])
@pytest.mark.parametrize("variant", VARIANTS)
def test_core_is_the_reference_bit_for_bit(variant: str, hidden: int) -> None:
    rows = mixed_rows(variant, every=2)
    network = net(variant, hidden)
    ours, theirs = values("cython", rows, network), values("python", rows, network)
    assert np.abs(ours - theirs).max() <= 1e-5  # the bar
    differ = np.flatnonzero((ours != theirs).any(axis=1))
    assert not len(differ), (rows[differ[0]].tolist(), ours[differ[0]], theirs[differ[0]])
    assert_nested(ours)
    live = ~layout.is_over(rows)
    assert len(np.unique(ours[live, 0])) > len(rows) // 4  # the rows are told apart, not all saturated


@needs_core
@pytest.mark.parametrize(
    ("hidden", "scale", "sign"),
    [(1, 1.0, 0), (MAX_HIDDEN, 1.0, 0), (7, 0.0, 1), (7, 0.0, -1), (33, 0.0, 0)],
    ids=["one-unit", "512-units", "max-weights", "min-weights", "max-weights-mixed"],
)
def test_twins_agree_at_the_extremes(hidden: int, scale: float, sign: int) -> None:
    """Weights of +-MAX_WEIGHT make every sum huge: each output sigmoid is 0 or 1 (C's ``exp`` overflows to
    infinity where Python's raises), still nested, the same in both."""
    rows = mixed_rows("gulbar", every=40)
    if scale:
        network = random_network("gulbar", hidden, seed=hidden, scale=scale)
    else:
        rng = np.random.default_rng(hidden)
        shapes = [(INPUTS, hidden), (hidden,), (5, hidden), (5,)]
        arrays = [MAX_WEIGHT * (sign or 1) * (rng.choice([-1.0, 1.0], s) if not sign else np.ones(s)) for s in shapes]
        network = Network("gulbar", *arrays)
    ours, theirs = values("cython", rows, network), values("python", rows, network)
    assert np.array_equal(ours, theirs)
    assert_nested(ours)
    if not scale:
        live = ours[~layout.is_over(rows)]
        assert np.isin(live, [0.0, 1.0]).all()
        if sign == 1:  # every output saturates at 1: win, and win's caps; a loss is capped at 1 - win = 0
            assert (live == [1.0, 1.0, 1.0, 0.0, 0.0]).all()
        if sign == -1:  # hidden units at 0: the outputs are sigmoid(-1e6) = 0
            assert (live == 0.0).all()


# --- 2. the forward pass, by hand ---------------------------------------------------------------------------


def sigmoid(x: Values) -> Values:
    out: Values = 1.0 / (1.0 + np.exp(-x))
    return out


def by_hand(rows: Rows, network: Network) -> tuple[Values, Values]:
    """The network's outputs for unfinished rows computed in float64 from the docstring: the raw sigmoids,
    and the nested outputs."""
    w1, b1, w2, b2 = (network.arrays()[k].astype(np.float64) for k in ("w1", "b1", "w2", "b2"))
    x = np.asarray(nardy_fast.encode(rows, "nardy"), dtype=np.float64)
    assert x.shape == (len(rows), INPUTS)
    h = np.maximum(0.0, b1 + x @ w1)
    raw = sigmoid(b2 + h @ w2.T)
    out = raw.copy()
    out[:, 1] = np.minimum(out[:, 1], out[:, 0])
    out[:, 2] = np.minimum(out[:, 2], out[:, 1])
    out[:, 3] = np.minimum(out[:, 3], 1.0 - out[:, 0])
    out[:, 4] = np.minimum(out[:, 4], out[:, 3])
    return raw, out


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("variant", VARIANTS)
def test_the_forward_pass_by_hand(name: str, variant: str) -> None:
    rows = load(variant)[0][:: 5 if name == "cython" else 20]
    network = net(variant, 80)
    raw, expected = by_hand(rows, network)
    ours = values(name, rows, network)
    assert np.abs(ours - expected).max() <= 1e-5
    assert_nested(ours)
    # the caps act: each output is capped somewhere, and left alone somewhere
    capped = [raw[:, 1] > raw[:, 0], raw[:, 2] > np.minimum(raw[:, 1], raw[:, 0]), raw[:, 3] > 1.0 - raw[:, 0]]
    for column in capped:
        assert column.any() and not column.all()


def test_a_constant_network_by_hand() -> None:
    """No weights but the output biases: the hidden units add nothing whatever the row, and the outputs are the
    sigmoids of b2 = (0, 1, -1, 2, 3), that is (1/2, 0.731, 0.269, 0.881, 0.953), capped: win_mars by win
    (1/2), win_koks stays 0.269, lose_mars by 1 - win (1/2), lose_koks by lose_mars (1/2)."""
    hidden = 3
    b2 = np.array([0.0, 1.0, -1.0, 2.0, 3.0])
    network = Network("short", np.zeros((INPUTS, hidden)), np.zeros(hidden), np.zeros((5, hidden)), b2)
    expected = [0.5, 0.5, 1.0 / (1.0 + math.exp(1.0)), 0.5, 0.5]
    rows = load("short")[0][:50]
    for name in NAMES:
        out = values(name, rows, network)
        assert np.array_equal(out, np.tile(expected, (len(rows), 1))), name


# --- 3. finished games --------------------------------------------------------------------------------------

#: Finished positions and their outcome for the side to move (docs/rules.md, Game end and scoring: a single
#: win when the loser has borne off a checker, mars when it has none, koks in short nardy when it also has a
#: checker on the bar or in the winner's home; the long family has no koks).
FINISHED = [
    ("short w 19:-14 off=15/1", (1, 0, 0, 0, 0)),
    ("short b 19:-15 off=15/0", (0, 0, 0, 1, 0)),
    ("short w 3:-15 off=15/0", (1, 1, 1, 0, 0)),
    ("short b 19:-14 bar=0/1 off=15/0", (0, 0, 0, 1, 1)),
    ("long w 18:-14 off=15/1", (1, 0, 0, 0, 0)),
    ("long w 1:-15 off=15/0", (1, 1, 0, 0, 0)),
    ("sixone w 12:14 off=1/15", (0, 0, 0, 0, 0)),
    ("gulbar b 1:-15 off=15/0", (0, 0, 0, 1, 0)),
    ("crazy b 12:15 off=0/15", (1, 1, 0, 0, 0)),
]


@pytest.mark.parametrize("name", NAMES)
def test_finished_games_get_their_outcome(name: str) -> None:
    module = IMPLS[name]
    for text, expected in FINISHED:
        position = module.Position.from_text(text)
        network = net(position.variant)
        np.testing.assert_array_equal(module.evaluate(position, network), expected, err_msg=text)
        np.testing.assert_array_equal(position.evaluate(network), expected, err_msg=text)
    for variant in VARIANTS:
        network = net(variant)
        over = finished_rows(variant)
        np.testing.assert_array_equal(values(name, over, network), values(name, over, "heuristic"))
        # among live rows: the live ones get what they get alone, the finished ones their outcome
        live = load(variant)[0][:30]
        rows = np.concatenate([over[:4], live[:10], over[4:], live[10:]])
        out = values(name, rows, network)
        np.testing.assert_array_equal(out[~layout.is_over(rows)], values(name, live, network))
        np.testing.assert_array_equal(out[layout.is_over(rows)], values(name, over, "heuristic"))


# --- 4. bad input -------------------------------------------------------------------------------------------

H = 6


def good_arrays() -> dict[str, Any]:
    rng = np.random.default_rng(5)
    return {"w1": rng.normal(size=(INPUTS, H)), "b1": rng.normal(size=H), "w2": rng.normal(size=(5, H)), "b2": rng.normal(size=5)}


def with_value(key: str, index: tuple[int, ...], value: float) -> dict[str, Any]:
    arrays = good_arrays()
    arrays[key][index] = value
    return arrays


def replaced(**changes: object) -> dict[str, Any]:
    arrays = good_arrays()
    arrays.update(changes)
    return arrays


SHAPE_W1 = f"weights: w1 must be (inputs, hidden) with inputs {INPUTS} or {INPUTS + 14} and 1 <= hidden <= {MAX_HIDDEN}"
BAD_WEIGHTS = [
    (replaced(w1=np.zeros((INPUTS - 1, H))), f"{SHAPE_W1} (got ({INPUTS - 1}, {H}))"),
    (replaced(w1=np.zeros((INPUTS + 1, H))), f"{SHAPE_W1} (got ({INPUTS + 1}, {H}))"),
    (replaced(w1=np.zeros((INPUTS, 0)), b1=np.zeros(0), w2=np.zeros((5, 0))), f"{SHAPE_W1} (got ({INPUTS}, 0))"),
    (replaced(w1=np.zeros((INPUTS, 513)), b1=np.zeros(513), w2=np.zeros((5, 513))), f"{SHAPE_W1} (got ({INPUTS}, 513))"),
    (replaced(w1=np.zeros(INPUTS * H)), f"{SHAPE_W1} (got ({INPUTS * H},))"),
    (replaced(w1=np.zeros((1, INPUTS, H))), f"{SHAPE_W1} (got (1, {INPUTS}, {H}))"),
    (replaced(w1=None), "weights: w1 is not an array of real numbers (got None)"),
    (replaced(b1=np.zeros(H - 1)), f"weights: b1 must have shape ({H},) for {H} hidden units (got ({H - 1},))"),
    (replaced(b1=np.zeros((H, 1))), f"weights: b1 must have shape ({H},) for {H} hidden units (got ({H}, 1))"),
    (replaced(b1=None), "weights: b1 is not an array of real numbers (got None)"),
    (replaced(w2=np.zeros((4, H))), f"weights: w2 must have shape (5, {H}) for {H} hidden units (got (4, {H}))"),
    (replaced(w2=np.zeros((H, 5))), f"weights: w2 must have shape (5, {H}) for {H} hidden units (got ({H}, 5))"),
    (replaced(w2=np.zeros((5, H + 1))), f"weights: w2 must have shape (5, {H}) for {H} hidden units (got (5, {H + 1}))"),
    (replaced(b2=np.zeros(4)), f"weights: b2 must have shape (5,) for {H} hidden units (got (4,))"),
    (replaced(b2=np.zeros(6)), f"weights: b2 must have shape (5,) for {H} hidden units (got (6,))"),
    (with_value("w1", (3, 2), np.nan), "weights: w1 has values that are NaN or infinite (got 'w1')"),
    (with_value("b1", (0,), np.inf), "weights: b1 has values that are NaN or infinite (got 'b1')"),
    (with_value("w2", (4, 5), -np.inf), "weights: w2 has values that are NaN or infinite (got 'w2')"),
    (with_value("b2", (1,), np.nan), "weights: b2 has values that are NaN or infinite (got 'b2')"),
    # infinite in float32, but judged as given: finite, too large
    (with_value("w1", (0, 0), 1e39), "weights: w1 has values beyond +-1e+06 (got 'w1')"),
    (with_value("w2", (1, 1), 1e300), "weights: w2 has values beyond +-1e+06 (got 'w2')"),
    (with_value("w2", (0, 0), 2e6), "weights: w2 has values beyond +-1e+06 (got 'w2')"),
    (with_value("b2", (4,), -1.5e6), "weights: b2 has values beyond +-1e+06 (got 'b2')"),
    (with_value("w1", (INPUTS - 1, H - 1), 1.01e6), "weights: w1 has values beyond +-1e+06 (got 'w1')"),
    (replaced(b1=["a"] * H), f"weights: b1 is not an array of real numbers (got {['a'] * H!r})"),
    (replaced(b2={"a": 1}), "weights: b2 is not an array of real numbers (got {'a': 1})"),
    (replaced(w2=np.array([[object()] * H] * 5)), "weights: w2 is not an array of real numbers (got array([[<object"),
    (replaced(b1=[[1.0, 2.0], [3.0]] + [0.0] * (H - 2)), "weights: b1 is not an array of real numbers (got"),
    # what is no array of real numbers is named before any shape is judged
    (replaced(w1=np.zeros((3, 3)), b2=np.array(["x"] * 5)), "weights: b2 is not an array of real numbers (got"),
]


@pytest.mark.filterwarnings("error")  # no value is cast to float32 before it is judged (no overflow warning)
@pytest.mark.parametrize(("arrays", "message"), BAD_WEIGHTS, ids=[str(i) for i in range(len(BAD_WEIGHTS))])
def test_bad_weights_are_refused(arrays: dict[str, Any], message: str) -> None:
    with pytest.raises(NardyError) as caught:
        Network("short", **arrays)
    assert str(caught.value).startswith(message)
    assert len(str(caught.value)) < 400


def test_the_largest_weights_are_allowed() -> None:
    network = Network("short", **with_value("w2", (0, 0), -MAX_WEIGHT))
    assert network.tables[2][0, 0] == -MAX_WEIGHT


@pytest.mark.parametrize("variant", ["nope", "Short", "", None, 3, np.array("short"), b"short", ["short"]])
def test_an_unknown_variant_is_refused(variant: object) -> None:
    with pytest.raises(NardyError) as caught:
        Network(variant, **good_arrays())  # type: ignore[arg-type]
    assert str(caught.value).startswith(VARIANTS_MESSAGE)


@pytest.mark.filterwarnings("error")  # a ComplexWarning would say the imaginary part was dropped
@pytest.mark.parametrize(
    "b1",
    [np.ones(H) + 0.5j, np.ones(H, dtype=np.complex64), np.array(["0.5"] * H), np.array([b"1"] * H), np.ones(H, dtype=bool)],
    ids=["complex", "complex-real", "str", "bytes", "bool"],
)
def test_weights_that_are_not_real_numbers_are_refused(b1: object) -> None:
    """Only real numbers are weights: cast to float32, a complex array would lose its imaginary part and a
    text array would be parsed, silently."""
    with pytest.raises(NardyError) as caught:
        Network("short", **replaced(b1=b1))
    assert str(caught.value).startswith("weights: b1 is not an array of real numbers (got array(")


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize(
    "dtype",
    [
        np.int8,
        np.int64,
        np.uint16,
        np.float64,
        np.float16,
    ],
)
def test_weights_of_any_real_dtype_are_taken_as_float32(dtype: type) -> None:
    """Integer and other float dtypes are real numbers: small whole numbers are the same weights in each,
    taken without a warning."""
    arrays = {key: np.abs(np.round(value * 4)) for key, value in good_arrays().items()}
    expected = Network("short", **{key: value.astype(np.float32) for key, value in arrays.items()})
    assert len(np.unique(expected.tables[0])) > 5  # the weights differ, not all 0
    network = Network("short", **{key: value.astype(dtype) for key, value in arrays.items()})
    assert network.sha256 == expected.sha256
    assert all(table.dtype == np.float32 for table in network.tables[:4])


def test_the_most_negative_integer_is_beyond_the_largest_weight() -> None:
    b1 = np.zeros(H, dtype=np.int64)
    b1[2] = np.iinfo(np.int64).min
    with pytest.raises(NardyError) as caught:
        Network("short", **replaced(b1=b1))
    assert str(caught.value) == "weights: b1 has values beyond +-1e+06 (got 'b1')"


@pytest.mark.parametrize("training", [5, "text", [1, 2], {"seed": object()}, {"seed": np.float32(1.0)}, {1: {2: {3}}}])
def test_training_must_be_a_json_object(training: object, tmp_path: Path) -> None:
    """``training`` is saved as JSON: what cannot be is refused when the network is made, naming it (and a
    save never leaves its temporary file behind)."""
    with pytest.raises(NardyError) as caught:
        Network("short", **good_arrays(), training=training).save(tmp_path / "a.npz")  # type: ignore[arg-type]
    assert str(caught.value) == f"training: must be a dict of JSON values or None (got {training!r})"
    assert list(tmp_path.iterdir()) == []


def test_training_is_a_copy_of_its_own() -> None:
    given: dict[Any, Any] = {"seed": 1, "log": [1, 2], 3: "key"}
    network = Network("short", **good_arrays(), training=given)
    given["log"].append(3)
    assert network.training == {"seed": 1, "log": [1, 2], "3": "key"}  # as JSON keeps it: keys are strings
    assert Network("short", **good_arrays()).training == {}


def test_a_network_serves_its_own_variant_only() -> None:
    network = net("short")
    long_rows = load("long")[0][:5]
    message = f"evaluator: evaluates short nardy only (rows[0] is long) (got {network!r})"
    start = IMPLS["python"].Position.from_array(long_rows[0])
    calls: list[Callable[[Any], object]] = [
        lambda m: m.evaluate(long_rows, network),
        lambda m: m.evaluate(long_rows[0], network),
        lambda m: m.Position.from_array(long_rows[0]).evaluate(network),
        lambda m: m.playout("long", 2, seed=1, policy=Greedy(network)),
        lambda m: m.playout("long", 2, seed=1, policy=Greedy(network, 1)),
        lambda m: m.duel(Greedy(network), "random", "long", 2),
        lambda m: m.duel("random", Greedy(network), "long", 2),
        lambda m: m.Position.from_array(long_rows[0]).hint((3, 1), evaluator=network),
        lambda m: m.Position.from_array(long_rows[0]).hint((3, 1), evaluator=network, plies=1),
        lambda m: m.rollout(m.Position.from_array(start.to_array()), 2, policy=Greedy(network), stratify=False),
    ]
    for call in calls:
        assert same_error_in_both(call) == message
    # a short row first, then a long one: the long one is named
    rows = np.concatenate([load("short")[0][:3], long_rows])
    assert same_error_in_both(lambda m: m.evaluate(rows, network)) == message.replace("rows[0]", "rows[3]")
    # the rule flags of its variant are its variant: served
    flagged = flag_rows("long")
    assert len(flagged) and (flagged[:, layout.FLAGS] != 0).all()
    assert values(NAMES[0], flagged, net("long")).shape == (len(flagged), 5)


def saved(tmp_path: Path, network: Network, name: str = "net.npz") -> Path:
    path = tmp_path / name
    network.save(path)
    return path


def archive(path: Path) -> dict[str, Any]:
    with np.load(path, allow_pickle=False) as opened:
        return {key: opened[key] for key in opened.files}


def rewrite(path: Path, arrays: dict[str, Any]) -> Path:
    with open(path, "wb") as handle:
        np.savez(handle, **arrays)
    return path


def test_bad_weights_files_are_refused(tmp_path: Path) -> None:
    good = saved(tmp_path, net("long"))
    stored = archive(good)
    meta = json.loads(str(stored["meta"]))
    assert meta["variant"] == "long" and meta["scheme"] == "nardy" and meta["hidden"] == 16

    def refused(path: object, problem: str, named: bool = True) -> None:
        with pytest.raises(NardyError) as caught:
            Network.load(path)
        assert str(caught.value).startswith(f"weights: {problem}"), str(caught.value)
        if named:
            assert str(caught.value).endswith(f"(got {str(path)!r})")

    refused(tmp_path / "missing.npz", "no such file")
    text = tmp_path / "text.npz"
    text.write_text("these are no weights")
    refused(text, "is not a weights file (")
    (tmp_path / "empty.npz").write_bytes(b"")
    refused(tmp_path / "empty.npz", "is not a weights file (")
    refused(tmp_path, "is not a weights file (")  # a directory
    refused(rewrite(tmp_path / "nometa.npz", {k: v for k, v in stored.items() if k != "meta"}), "is not a weights file (")
    refused(rewrite(tmp_path / "badjson.npz", {**stored, "meta": np.array("{not json")}), "is not a weights file (")
    refused(rewrite(tmp_path / "list.npz", {**stored, "meta": np.array("[1, 2]")}), "are not weights of a network of ('nardy', 'expert')")
    other = json.dumps({**meta, "scheme": "tesauro"})
    refused(rewrite(tmp_path / "scheme.npz", {**stored, "meta": np.array(other)}), "are not weights of a network of ('nardy', 'expert')")
    expert = json.dumps({**meta, "scheme": "expert"})  # a known scheme, but not that of these arrays
    refused(rewrite(tmp_path / "expert.npz", {**stored, "meta": np.array(expert)}), "do not have the 238 inputs of their scheme 'expert'")
    noscheme = json.dumps({k: v for k, v in meta.items() if k != "scheme"})
    refused(rewrite(tmp_path / "noscheme.npz", {**stored, "meta": np.array(noscheme)}), "are not weights of a network of ('nardy', 'expert')")
    # the arrays edited (one weight nudged; two arrays swapped in order; a checksum left out): corrupt
    nudged = stored["b1"].copy()
    nudged[0] = np.nextafter(nudged[0], np.float32(np.inf))
    refused(rewrite(tmp_path / "edited.npz", {**stored, "b1": nudged}), "do not match their checksum (the file is corrupt)")
    nosum = json.dumps({k: v for k, v in meta.items() if k != "sha256"})
    refused(rewrite(tmp_path / "nosum.npz", {**stored, "meta": np.array(nosum)}), "do not match their checksum")
    # arrays missing, of other shapes, not finite, or objects (pickles are not read)
    refused(rewrite(tmp_path / "now2.npz", {k: v for k, v in stored.items() if k != "w2"}), "w2 is not an array of real numbers (got None)", named=False)
    refused(rewrite(tmp_path / "shape.npz", {**stored, "w1": stored["w1"][:, :4]}), "b1 must have shape (4,)", named=False)
    nan = stored["w2"].copy()
    nan[1, 1] = np.nan
    refused(rewrite(tmp_path / "nan.npz", {**stored, "w2": nan}), "w2 has values that are NaN or infinite", named=False)
    objects = np.empty(stored["b2"].shape, dtype=object)
    refused(rewrite(tmp_path / "objects.npz", {**stored, "b2": objects}), "is not a weights file (")
    complex_b2 = stored["b2"] + 0.5j
    refused(rewrite(tmp_path / "complex.npz", {**stored, "b2": complex_b2}), "b2 is not an array of real numbers (got", named=False)
    # weights of no known variant, whatever their checksum
    for variant in ("backgammon", None, ["long"], 1):
        unknown = json.dumps({**meta, "variant": variant})
        refused(rewrite(tmp_path / "variant.npz", {**stored, "meta": np.array(unknown)}), "are for no known variant")
    novariant = json.dumps({k: v for k, v in meta.items() if k != "variant"})
    refused(rewrite(tmp_path / "novariant.npz", {**stored, "meta": np.array(novariant)}), "are for no known variant")
    for path in (None, 3, object(), ["a.npz"]):
        with pytest.raises(NardyError) as caught:
            Network.load(path)
        assert str(caught.value).startswith("weights: must be a path (got ")
    # the good file still loads, from a str or a Path
    assert Network.load(str(good)).sha256 == Network.load(good).sha256 == net("long").sha256


def test_save_to_an_unwritable_path(tmp_path: Path) -> None:
    network = net("short")
    nowhere = tmp_path / "no such directory" / "net.npz"
    with pytest.raises(NardyError) as caught:
        network.save(nowhere)
    assert str(caught.value) == f"out: cannot be written (No such file or directory) (got {str(nowhere)!r})"
    assert list(tmp_path.iterdir()) == []  # no temporary file left
    (tmp_path / "directory").mkdir()
    with pytest.raises(NardyError) as caught:
        network.save(tmp_path / "directory")
    assert str(caught.value) == f"out: cannot be written (Is a directory) (got {str(tmp_path / 'directory')!r})"


def test_a_failed_save_leaves_no_temporary_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "directory").mkdir()
    with pytest.raises(NardyError):
        net("short").save(tmp_path / "directory")  # os.replace fails
    assert [p.name for p in tmp_path.iterdir()] == ["directory"]
    # interrupted while writing (Ctrl-C): the interruption goes on, the temporary file does not stay, an older
    # file of that name is left whole
    old = saved(tmp_path, net("short", 80))

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(np, "savez", interrupted)
    with pytest.raises(KeyboardInterrupt):
        net("short").save(old)
    monkeypatch.undo()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["directory", "net.npz"]
    assert Network.load(old).sha256 == net("short", 80).sha256


def central_directory(data: bytearray) -> int:
    """Where the first entry of a zip archive's central directory starts (its signature PK 1 2)."""
    return bytes(data).index(b"PK\x01\x02")


def unsupported_compression(data: bytearray) -> None:
    data[central_directory(data) + 10] ^= 0xFF  # the first member's compression method


def encrypted(data: bytearray) -> None:
    data[central_directory(data) + 8] |= 1  # the first member's flags: encrypted


def newer_zip_version(data: bytearray) -> None:
    data[central_directory(data) + 6] ^= 0xFF  # the version needed to extract


def header_cut(data: bytearray) -> None:
    """The .npy header of w1 without its closing brace."""
    at = bytes(data).index(b"'shape': (224, ")
    end = bytes(data).index(b"}", at)
    data[end] = ord(" ")


#: Damage a single changed byte can do that zipfile, zlib or NumPy's header parser report in their own ways.
LOAD_LEAKS = {
    "unsupported-compression": (unsupported_compression, "NotImplementedError from zipfile escapes Network.load"),
    "encrypted-flag": (encrypted, "RuntimeError (encrypted, password required) from zipfile escapes Network.load"),
    "zip-version": (newer_zip_version, "NotImplementedError (zip file version) escapes Network.load"),
    "npy-header-cut": (header_cut, "tokenize.TokenError from numpy's header parser escapes Network.load"),
}


@pytest.mark.parametrize(
    "damage",
    ["cut-300", "cut-end", "cut-half", "flipped-byte", "compressed-flipped-byte"]
    + list(LOAD_LEAKS),
)
def test_a_damaged_weights_file_is_refused(tmp_path: Path, damage: str) -> None:
    """A weights file cut short (a download or copy interrupted) or with a byte changed: corrupt."""
    good = saved(tmp_path, net("long"))
    if damage.startswith("compressed"):  # the arrays deflated (zlib's errors)
        with open(good, "wb") as handle:
            np.savez_compressed(handle, **archive(saved(tmp_path, net("long"), "again.npz")))
        assert Network.load(good).sha256 == net("long").sha256
    data = bytearray(good.read_bytes())
    cut = {"cut-300": 300, "cut-end": len(data) - 40, "cut-half": len(data) // 2}.get(damage, len(data))
    if damage.endswith("flipped-byte"):
        data[len(data) // 2] ^= 0xFF
    if damage in LOAD_LEAKS:
        LOAD_LEAKS[damage][0](data)
    path = tmp_path / "damaged.npz"
    path.write_bytes(bytes(data[:cut]))
    with pytest.raises(NardyError) as caught:
        Network.load(path)
    assert str(caught.value).startswith("weights: is not a weights file (")
    assert str(caught.value).endswith(f"(got {str(path)!r})")


@pytest.mark.parametrize("path", [None, 3, object(), ["a.npz"]])
def test_save_refuses_what_is_not_a_path(path: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(NardyError) as caught:
        net("short").save(path)
    assert str(caught.value) == f"out: must be a path (got {path!r})"
    assert list(tmp_path.iterdir()) == []


# the core's kernel, fed bad tables: in a child process, as a crash there must fail one test only


def run_in_child(function: str, timeout: float = 120) -> str:
    """Run ``function()`` of this module in a fresh interpreter (``test_hostile.run_in_child``)."""
    return hostile_child(function, timeout, module="test_network")


class Tables(tuple):  # type: ignore[type-arg]
    """A tuple of the caller's, but not a tuple: it could hand out other arrays than it holds."""


def kernel_probes() -> None:
    """Bad tables for ``_core.evaluate_rows`` of the network: a JSON line per probe, with the error. The
    tables are ``Network.tables`` (whatever arrays they hold) with one thing wrong."""
    from nardy_fast import _core

    rows = np.ascontiguousarray(load("short")[0][:20])
    good = tuple(net("short").tables)
    probes: dict[str, object] = {
        "none": None,
        "empty": (),
        "one-short": good[:-1],
        "one-more": (*good, good[0]),
        "int": 5,
        "str": "abcdefgh"[: len(good)],
        "objects": (object(),) * len(good),
        "nones": (None,) * len(good),
        "float64": tuple(a.astype(np.float64) for a in good),
        "int32": tuple(a.astype(np.int32) for a in good),
        # the kernel keeps pointers into the arrays: only a tuple of the caller's is sure to hold them
        "list": list(good),
        "generator": (a for a in good),
        "tuple-subclass": Tables(good),
    }
    for i, array in enumerate(good):
        def swap(value: object, i: int = i) -> tuple[object, ...]:
            return (*good[:i], value, *good[i + 1 :])

        probes[f"{i}-float64"] = swap(array.astype(np.float64))
        probes[f"{i}-fortran"] = swap(np.asfortranarray(array)) if array.ndim > 1 else swap(array[::-1])
        probes[f"{i}-shorter"] = swap(np.ascontiguousarray(array[:-1]))
        probes[f"{i}-longer"] = swap(np.concatenate([array, array[:1]]))
        probes[f"{i}-flat"] = swap(array.ravel()) if array.ndim > 1 else swap(array[None, :])
        probes[f"{i}-empty"] = swap(np.zeros((0,) * array.ndim, np.float32))
    for hidden in (0, 600):  # arrays of the shapes a network of that many units would have
        shaped = []
        for array in good:
            shape = tuple(hidden if n == len(good[1]) else n for n in array.shape)
            shaped.append(np.zeros(shape, np.float32))
        probes[f"hidden-{hidden}"] = tuple(shaped)
    for label, tables in probes.items():
        out = np.zeros((len(rows), 5))
        try:
            _core.evaluate_rows(rows, KIND, tables, out)
            result = ["ok", ""]
        except Exception as error:  # reported to the parent, which judges it
            result = [type(error).__name__, str(error)]
        print(json.dumps([label, *result]))
    # the good tables, and a new tuple of the same arrays
    for tables in (good, tuple(list(good))):
        out = np.zeros((len(rows), 5))
        assert _core.evaluate_rows(rows, KIND, tables, out) == -1
        print(json.dumps(["good", "ok", repr(out.sum())]))


@needs_core
def test_the_kernel_refuses_bad_tables() -> None:
    lines = [json.loads(line) for line in run_in_child("kernel_probes").splitlines()]
    results = {label: (kind, message) for label, kind, message in lines if label != "good"}
    assert len(results) >= 20
    for label, (kind, message) in results.items():
        # every one refused, by the house's error where the kernel checks (a TypeError or ValueError of
        # Cython's buffer checks is clean too)
        assert kind in ("NardyError", "TypeError", "ValueError"), (label, kind, message)
        assert kind != "NardyError" or message.startswith("tables: "), (label, message)
        assert len(message) < 400
    # what the kernel checks itself (the arrays' dtypes are Cython's buffer checks: a ValueError)
    for label in ("none", "empty", "one-short", "one-more", "int", "hidden-0", "hidden-600"):
        assert results[label][0] == "NardyError", (label, results[label])
    for label in ("float64", "int32", "0-float64", "5-float64"):
        assert results[label][0] in ("NardyError", "ValueError"), (label, results[label])
    for label, name in (("list", "list"), ("generator", "generator"), ("tuple-subclass", "Tables"), ("int", "int")):
        assert results[label] == ("NardyError", f"tables: are not a network's tables (got {name!r})")
    good = [line for line in lines if line[0] == "good"]
    assert len(good) == 2 and good[0] == good[1]


def unmapped_when_gone(tables: tuple[Any, ...]) -> Any:
    """The arrays of ``tables`` one by one, each a fresh copy in memory of its own that is unmapped when the
    copy goes (a read after that is a crash, not a wrong number)."""
    import mmap

    for array in tables:
        if array is None:
            yield None
            continue
        mapped = mmap.mmap(-1, max(array.nbytes, 1))
        copy = np.frombuffer(mapped, dtype=array.dtype, count=array.size).reshape(array.shape)
        copy[...] = array
        del mapped
        yield copy
        del copy


def kernel_tables_from_an_iterator() -> None:
    """Tables that are an iterator of arrays that are gone once taken: refused (the kernel keeps pointers into
    the arrays, so it takes a tuple only), never read after they are gone."""
    from nardy_fast import _core

    network = random_network("short", MAX_HIDDEN, seed=1, scale=0.2)
    rows = np.ascontiguousarray(load("short")[0][:200])
    out = np.zeros((len(rows), 5))
    with pytest.raises(NardyError) as caught:
        _core.evaluate_rows(rows, KIND, unmapped_when_gone(network.tables), out)
    assert str(caught.value) == "tables: are not a network's tables (got 'generator')"
    expected = np.zeros((len(rows), 5))
    assert _core.evaluate_rows(rows, KIND, network.tables, expected) == -1
    # the same arrays, alive, in a tuple: the same values
    copies = tuple(np.array(array) for array in network.tables)
    assert _core.evaluate_rows(rows, KIND, copies, out) == -1 and np.array_equal(out, expected)


@needs_core
def test_the_kernel_never_reads_tables_that_are_gone() -> None:
    run_in_child("kernel_tables_from_an_iterator")


#: A race worked by hand (docs/rules.md, Bear-off tables): White to move, one checker on its 6-point, Black
#: one on its ace, 14 off each. White bears off at once with 27 rolls of 36 (a sum of 6 or more, and 2-2);
#: else Black does: win 3/4, no mars.
RACE = "long w 6:1,13:-1 off=14/14 first=-"


def race_kernel_probes() -> None:
    """The race evaluator's kernel fed tables that are no tuple of three, or arrays that are gone once taken:
    a JSON line per probe, with the error or the values of the race."""
    from nardy_fast import _core
    from nardy_fast.core import Position as CorePosition
    from nardy_fast.evaluation.race import race_tables

    race = EVALUATORS.index("race")
    rows = np.ascontiguousarray(np.stack([CorePosition.from_text(RACE).to_array()] * 3))
    good = race_tables(CorePosition.kernels, rows, 3, 2)
    assert good is not None and type(good) is tuple and len(good) == 3 and good[2] is not None
    probes: dict[str, object] = {
        "good": good,
        "one-sided": (good[0], good[1], None),
        "none": None,
        "list": list(good),
        "generator": unmapped_when_gone(good),
        "tuple-subclass": Tables(good),
        "two": good[:2],
        "four": (*good, good[2]),
        "int": 5,
    }
    for label, tables in probes.items():
        out = np.full((len(rows), 5), np.nan)
        result: list[Any]
        try:
            bad = _core.evaluate_rows(rows, race, tables, out)
            result = ["ok", str(bad), out.tolist()]
        except Exception as error:  # reported to the parent, which judges it
            result = [type(error).__name__, str(error), None]
        print(json.dumps([label, *result]))


@needs_core
def test_the_race_kernel_refuses_tables_that_are_no_tuple() -> None:
    lines = [json.loads(line) for line in run_in_child("race_kernel_probes").splitlines()]
    results = {label: (kind, message, out) for label, kind, message, out in lines}
    for label in ("good", "one-sided"):  # the two-sided table, or the one-sided convolution: 3/4 both
        kind, bad, out = results[label]
        assert (kind, bad) == ("ok", "-1"), (label, results[label])
        np.testing.assert_allclose(out, [[0.75, 0.0, 0.0, 0.0, 0.0]] * 3, rtol=0, atol=1e-12)
    assert results["none"][:2] == ("ok", "-1")  # the formula: a value, whatever it is
    names = {"list": "list", "generator": "generator", "tuple-subclass": "Tables", "two": "tuple", "four": "tuple", "int": "int"}
    for label, name in names.items():
        expected = f"tables: are not the race evaluator's tables (got {name!r})"
        assert results[label] == ("NardyError", expected, None), (label, results[label])


def test_the_reference_kernel_refuses_bad_tables() -> None:
    from nardy_fast.reference.evaluate import evaluate_rows

    rows = np.ascontiguousarray(load("short")[0][:5])
    w1, b1, w2, b2 = net("short").tables[:4]
    for tables in (None, (), (w1, b1, w2), 5, (w1, b1[:3], w2, b2)):
        with pytest.raises((NardyError, TypeError, ValueError)):
            evaluate_rows(rows, KIND, tables, np.zeros((5, 5)))


# --- 5. save, load, pickle ----------------------------------------------------------------------------------


def sha256_by_hand(network: Network) -> str:
    digest = hashlib.sha256()
    arrays = network.arrays()
    for array in (arrays["w1"], arrays["b1"], arrays["w2"], arrays["b2"]):
        digest.update(np.asarray(array, dtype="<f4").tobytes(order="C"))
    return digest.hexdigest()


def test_a_network_holds_read_only_copies() -> None:
    arrays = good_arrays()
    network = Network("sixone", **arrays)
    assert network.name == "network" and network.kind == KIND and network.variant == "sixone" and network.hidden == H
    for array, source in zip(network.tables, (arrays["w1"], arrays["b1"], arrays["w2"], arrays["b2"])):
        assert array.dtype == np.float32 and array.flags.c_contiguous and not array.flags.writeable
        np.testing.assert_array_equal(array, source.astype(np.float32))
        with pytest.raises(ValueError):
            array[(0,) * array.ndim] = 1.0
    before = values(NAMES[0], load("sixone")[0][:20], network)
    arrays["w1"][:] = 0.0  # the caller's arrays are not the network's
    np.testing.assert_array_equal(values(NAMES[0], load("sixone")[0][:20], network), before)
    copies = network.arrays()
    assert all(a.flags.writeable for a in copies.values())
    copies["b2"][:] = 9.0
    assert not (network.tables[3] == 9.0).any()
    assert network.sha256 == sha256_by_hand(network)
    copied = network.arrays()
    again = Network("sixone", copied["w1"], copied["b1"], copied["w2"], copied["b2"])
    assert again.sha256 == network.sha256 and again != network and again == again  # equality is identity
    assert len({network, again}) == 2
    assert "sixone" in repr(network) and network.sha256[:12] in repr(network)


@pytest.mark.parametrize("attribute", ["variant", "hidden", "training", "sha256", "name", "_arrays", "_terms", "tables", "kind", "new"])
def test_a_network_cannot_be_changed(attribute: str) -> None:
    """A network is a value: its attributes, whether it has them or not, can be neither assigned nor
    deleted (as those of the frozen dataclass Builtin), and it values rows as before."""
    network = random_network("short", 8, seed=2)
    rows = load("short")[0][:20]
    before = (values(NAMES[0], rows, network), network.sha256, repr(network), network.variant, network.hidden)
    for value in ("long", 3, None, network.tables):
        with pytest.raises(FrozenInstanceError):
            setattr(network, attribute, value)
    with pytest.raises(FrozenInstanceError):
        delattr(network, attribute)
    after = (values(NAMES[0], rows, network), network.sha256, repr(network), network.variant, network.hidden)
    assert np.array_equal(after[0], before[0]) and after[1:] == before[1:]
    assert not hasattr(network, "new")


def test_save_and_load_keep_the_bits(tmp_path: Path) -> None:
    network = net("crazy", 80)
    path = saved(tmp_path, network)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["net.npz"]  # no temporary file left
    loaded = Network.load(path)
    assert loaded is not network and loaded.variant == "crazy" and loaded.hidden == 80
    assert loaded.sha256 == network.sha256 == sha256_by_hand(loaded)
    assert loaded.training == network.training == {"seed": network.training["seed"], "by": "tests/test_network.py"}
    for a, b in zip(loaded.tables, network.tables):
        assert a.dtype == np.float32 and a.tobytes() == b.tobytes() and not a.flags.writeable
    rows = mixed_rows("crazy", every=50)
    for name in NAMES:
        np.testing.assert_array_equal(values(name, rows, loaded), values(name, rows, network))
    # saving again replaces the file
    other = net("crazy", 16)
    other.save(path)
    assert Network.load(path).sha256 == other.sha256
    meta = json.loads(str(archive(path)["meta"]))
    assert meta == {"variant": "crazy", "scheme": "nardy", "hidden": 16, "sha256": other.sha256, "training": other.training}


@pytest.mark.parametrize("protocol", range(2, pickle.HIGHEST_PROTOCOL + 1))
def test_pickling_keeps_the_bits(protocol: int) -> None:
    network = net("short", 80)
    copy = pickle.loads(pickle.dumps(network, protocol=protocol))
    assert isinstance(copy, Network) and copy is not network
    assert copy.sha256 == network.sha256 and copy.training == network.training and copy.variant == "short"
    assert not copy.tables[0].flags.writeable
    rows = mixed_rows("short", every=50)
    for name in NAMES:
        np.testing.assert_array_equal(values(name, rows, copy), values(name, rows, network))


@pytest.mark.parametrize(
    ("value", "problem"),
    [(np.nan, "w1 has values that are NaN or infinite"), (np.inf, "w1 has values that are NaN or infinite"), (3e6, "w1 has values beyond")],
)
def test_an_edited_pickle_is_refused(value: float, problem: str) -> None:
    """The pickle of a network with the bytes of its w1 replaced, as by hand: refused on load."""
    network = net("long")
    data = pickle.dumps(network, protocol=4)
    original = network.tables[0].tobytes()
    assert data.count(original) == 1
    edited = data.replace(original, np.full(network.tables[0].shape, value, dtype=np.float32).tobytes())
    with pytest.raises(NardyError) as caught:
        pickle.loads(edited)
    assert str(caught.value).startswith(f"weights: {problem}")
    # and a pickle made by an object that claims to be a network with other arguments
    rebuild, args = network.__reduce__()

    class Forged:
        def __reduce__(self) -> tuple[Any, ...]:
            return rebuild, (args[0], np.full_like(args[1], value), *args[2:])

    with pytest.raises(NardyError) as caught:
        pickle.loads(pickle.dumps(Forged()))
    assert str(caught.value).startswith(f"weights: {problem}")

    class OtherVariant:
        def __reduce__(self) -> tuple[Any, ...]:
            return rebuild, ("backgammon", *args[1:])

    with pytest.raises(NardyError) as caught:
        pickle.loads(pickle.dumps(OtherVariant()))
    assert str(caught.value).startswith(VARIANTS_MESSAGE)


# --- 6. playouts, hints, duels ------------------------------------------------------------------------------


@needs_core
@pytest.mark.parametrize(("variant", "games"), [("short", 10), ("long", 6)])
def test_greedy_playouts_are_the_same_in_both_implementations(variant: str, games: int) -> None:
    network = net(variant)
    ours = IMPLS["cython"].playout(variant, games, seed=3, policy=Greedy(network))
    theirs = IMPLS["python"].playout(variant, games, seed=3, policy=Greedy(network))
    np.testing.assert_array_equal(ours, theirs)
    # the network's choices matter: a random policy plays other games on the same dice
    assert not np.array_equal(ours, IMPLS["cython"].playout(variant, games, seed=3))


@needs_core
@pytest.mark.parametrize("variant", ["short", "long", "gulbar"])
def test_greedy_playouts_do_not_depend_on_threads(variant: str) -> None:
    network = net(variant, 80)
    core = IMPLS["cython"]
    one = core.playout(variant, 40, seed=3, policy=Greedy(network), threads=1)
    two = core.playout(variant, 40, seed=3, policy=Greedy(network), threads=2)
    np.testing.assert_array_equal(one, two)
    np.testing.assert_array_equal(one, nardy_fast.playout(variant, 40, seed=3, policy=Greedy(network)))
    # another network plays other games
    assert not np.array_equal(one, core.playout(variant, 40, seed=3, policy=Greedy(net(variant, 16))))


class Twin:
    """The reference's forward pass of a network as a Python evaluator: the shared search calls it."""

    def __init__(self, network: Network) -> None:
        self.tables = network.tables

    def evaluate(self, rows: Rows) -> Values:
        return network_evaluate(np.asarray(rows), self.tables)


@cache
def hint_positions(variant: str) -> Rows:
    _, paths = nardy_fast.playout(variant, 1, seed=17, trajectories=True)
    rolled = paths.rows[paths.rolls[:, 0] > 0]
    return np.ascontiguousarray(rolled[[4, len(rolled) // 2]])


@needs_core
@pytest.mark.parametrize("variant", ["short", "long"])
def test_hints_rank_alike_in_both_implementations(variant: str) -> None:
    network = net(variant, 16)
    choices = 0
    for row in hint_positions(variant):
        for roll in ((3, 1), (5, 5)):
            for plies in (0, 1):
                ranked = {
                    name: IMPLS[name].Position.from_array(row).hint(roll, evaluator=network, plies=plies) for name in NAMES
                }
                assert ranked["cython"] == ranked["python"], (row.tolist(), roll, plies)
                # the core's C search and its shared search over a Python evaluator of the same values
                twin = IMPLS["cython"].Position.from_array(row).hint(roll, evaluator=Twin(network), plies=plies)
                assert [m for m, _ in twin] == [m for m, _ in ranked["cython"]]
                np.testing.assert_allclose([e for _, e in twin], [e for _, e in ranked["cython"]], rtol=0, atol=1e-12)
                choices += len(ranked["cython"]) > 1
    assert choices >= 4


@needs_core
@pytest.mark.parametrize("plies", [0, 1])
def test_a_greedy_move_is_the_hints_first(plies: int) -> None:
    """A Greedy(network) player moves to the child of its hint's first move (the hint as a Python evaluator
    of the same values gives it)."""
    network = net("short", 16)
    core = IMPLS["cython"]
    for row in hint_positions("short"):
        position = core.Position.from_array(row)
        best = position.hint((6, 2), evaluator=network, plies=plies)[0][0]
        twin = position.hint((6, 2), evaluator=Twin(network), plies=plies)[0][0]
        assert best == twin


@pytest.mark.parametrize("name", NAMES)
def test_a_network_against_itself_scores_zero(name: str) -> None:
    network = net("short", 16)
    module = IMPLS[name]
    games = 20 if name == "cython" else 4
    duel = module.duel(Greedy(network), Greedy(network), "short", games, seed=5)
    assert duel.games == games
    assert (duel.points.reshape(-1, 2).sum(axis=1) == 0).all()  # each pair: the same game, seats swapped
    assert duel.ppg == 0.0 and (duel.points != 0).all()
    if name == "cython":
        against = nardy_fast.duel(Greedy(network), "random", "short", 20, seed=5)
        assert against.games == 20 and (against.points != 0).all()
        again = IMPLS["python"].duel(Greedy(network), "random", "short", 4, seed=5)
        np.testing.assert_array_equal(again.points, against.points[:4])


# --- 7. threads ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_two_threads_evaluate_at_once(name: str) -> None:
    network = net("long", 80)
    rows = load("long")[0]
    rows = np.ascontiguousarray(np.tile(rows, (5, 1)) if name == "cython" else rows[:1500])
    alone = values(name, rows, network)
    answers: list[Optional[Values]] = [None] * 4
    errors: list[BaseException] = []
    start = threading.Barrier(2)

    def work(k: int) -> None:
        try:
            start.wait(timeout=60)
            for j in (k, k + 2):
                answers[j] = values(name, rows, network)
        except BaseException as error:  # reported by the main thread
            errors.append(error)

    threads = [threading.Thread(target=work, args=(k,)) for k in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not any(thread.is_alive() for thread in threads) and not errors, errors
    for answer in answers:
        assert answer is not None and np.array_equal(answer, alone)


# --- 8. the shipped networks --------------------------------------------------------------------------------


@pytest.fixture
def ships(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A directory of our own as the shipped networks', the cache of loaded ones cleared before and after."""
    monkeypatch.setattr(network_module, "SHIPPED_DIR", tmp_path)
    shipped.cache_clear()
    yield tmp_path
    shipped.cache_clear()


def test_net_is_the_shipped_network_of_the_rows_variant(ships: Path) -> None:
    for variant in ("short", "long"):
        net(variant, 16).save(ships / f"{variant}.npz")
    assert network_module.shipped_path("short") == ships / "short.npz"
    first = shipped("short")
    assert first.sha256 == net("short", 16).sha256 and shipped("short") is first  # loaded once
    rows = {v: mixed_rows(v, every=100) for v in ("short", "long")}
    both = np.concatenate([rows["short"], rows["long"], rows["short"][:7]])
    for name in NAMES:
        for variant in ("short", "long"):
            np.testing.assert_array_equal(
                values(name, rows[variant], "network"), values(name, rows[variant], net(variant, 16))
            )
        # rows of two variants: each valued by its own variant's network
        expected = np.concatenate([values(name, rows["short"], net("short")), values(name, rows["long"], net("long"))])
        np.testing.assert_array_equal(values(name, both, "network"), np.concatenate([expected, expected[:7]]))
    # a variant with no file: a NardyError naming the weights, the same in both
    gulbar = load("gulbar")[0][:3]
    message = same_error_in_both(lambda m: m.evaluate(gulbar, "net"))
    assert message == f"weights: no such file (got {str(ships / 'gulbar.npz')!r})"
    # a file of another variant's network, and a corrupt file
    net("short", 16).save(ships / "sixone.npz")
    message = same_error_in_both(lambda m: m.evaluate(load("sixone")[0][:3], "net"))
    assert message == f"weights: are for short, not sixone (got {str(ships / 'sixone.npz')!r})"
    (ships / "crazy.npz").write_text("no weights")
    message = same_error_in_both(lambda m: m.evaluate(load("crazy")[0][:3], "net"))
    assert message.startswith("weights: is not a weights file (")
    with pytest.raises(NardyError) as caught:
        shipped("backgammon")
    assert str(caught.value).startswith(VARIANTS_MESSAGE)


@needs_core
def test_greedy_net_plays_the_shipped_network(ships: Path) -> None:
    """``"network"`` is the shipped network alone; ``"net"`` the composite with it in contact."""
    net("short", 80).save(ships / "short.npz")
    core = IMPLS["cython"]
    by_name = core.playout("short", 20, seed=3, policy=Greedy("network"))
    np.testing.assert_array_equal(by_name, core.playout("short", 20, seed=3, policy=Greedy(net("short", 80))))
    composite = Composite(contact=net("short", 80))
    by_name = core.playout("short", 20, seed=3, policy=Greedy("net"))
    np.testing.assert_array_equal(by_name, core.playout("short", 20, seed=3, policy=Greedy(composite)))
    row = hint_positions("short")[0]
    for name in NAMES:
        position = IMPLS[name].Position.from_array(row)
        assert position.hint((4, 2), evaluator="network") == position.hint((4, 2), evaluator=net("short", 80))
        assert position.hint((4, 2), evaluator="net") == position.hint((4, 2), evaluator=composite)
    assert core.duel(Greedy("network"), Greedy(net("short", 80)), "short", 20, seed=2).ppg == 0.0
    assert core.duel(Greedy("net"), Greedy(composite), "short", 20, seed=2).ppg == 0.0


@needs_core
def test_the_baseline_loops_give_the_bits_of_the_cpus() -> None:
    """The core's network loops are compiled for AVX2 and for the baseline, the first chosen when the CPU has
    it (src_pyx/net_kernel.h); NARDY_FAST_NET_BASELINE=1 forces the baseline. Both give the same bits."""
    code = (
        "import hashlib, numpy as np, nardy_fast, nardy_fast._core as c; from nardy_fast.corpus import load;"
        "from nardy_fast.evaluation.network import Network, INPUTS;"
        "r = np.random.default_rng(5); n = Network('long', r.normal(0, .3, (INPUTS, 40)), r.normal(0, .1, 40),"
        " r.normal(0, .3, (5, 40)), r.normal(0, .1, 5));"
        "v = nardy_fast.core.evaluate(np.ascontiguousarray(load('long')[0][:2000]), n);"
        "print(c.NET_AVX2, hashlib.sha256(v.tobytes()).hexdigest())"
    )
    seen = {}
    for baseline in ("0", "1"):
        # the core's loops, whichever implementation the suite itself runs under
        env = {**os.environ, "NARDY_FAST_NET_BASELINE": baseline, "NARDY_FAST_IMPLEMENTATION": "cython"}
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
        assert done.returncode == 0, done.stderr
        avx2, digest = done.stdout.split()
        seen[baseline] = digest
        if baseline == "1":
            assert avx2 == "False"
    assert seen["0"] == seen["1"]
