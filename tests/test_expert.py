"""The expert features (nardy_fast.expert, the "expert" encoding) and networks that read them: values derived by
hand on known positions, both implementations bit for bit, a "nardy" network widened with zero weights valuing
every position as before, the weights file's scheme, and trainings of the expert inputs."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from writers import flippable, for_a_while, writer

import nardy_fast
from nardy_fast import encodings, layout
from nardy_fast._dispatch import implementations
from nardy_fast.corpus import load
from nardy_fast.errors import NardyError
from nardy_fast.evaluation.composite import Composite
from nardy_fast.evaluation.network import INPUTS, Network, shipped
from nardy_fast.expert import EXPERT_FIELDS, EXPERT_WIDTH, PER_SIDE
from nardy_fast.policies import Greedy
from nardy_fast.training import train
from nardy_fast.variants import VARIANTS

Rows = npt.NDArray[np.int8]
IMPLS = implementations()
NAMES = sorted(IMPLS)
SCALES = np.array([scale for _, scale in EXPERT_FIELDS] * 2, dtype=np.float64)


def counts(position: Any) -> list[int]:
    """The expert features of ``position`` as the integers they scale (the mover's seven, then the other's)."""
    row = np.ascontiguousarray(position.to_array()[None, :])
    features = nardy_fast.encode(row, "expert")[0, INPUTS:]
    return [int(v) for v in np.rint(features.astype(np.float64) * SCALES)]


@cache
def rows(variant: str) -> Rows:
    """Every third corpus position of ``variant``."""
    found: Rows = np.ascontiguousarray(load(variant)[0][::3])
    return found


def test_the_fields_are_seven_a_side() -> None:
    assert PER_SIDE == 7 and EXPERT_WIDTH == 14
    assert encodings.SCHEMES["expert"].features == INPUTS + EXPERT_WIDTH
    assert [name for name, _ in EXPERT_FIELDS] == ["pips", "blots", "shots", "prime", "trapped", "contact", "mobility"]


@pytest.mark.parametrize("variant", ["long", "sixone", "gulbar", "crazy"])
def test_the_long_family_start(Position: Any, variant: str) -> None:
    # 15 checkers on each head: 15 * 24 = 360 pips; a head is a run of one point held, with the other side's
    # 15 checkers behind it on their way; the head's checkers reach 6 points of which none is held (the other
    # head is 12 points away); no hitting: blots, shots and contact are 0
    assert counts(Position.start(variant)) == [360, 0, 0, 1, 1, 0, 6] * 2


def test_the_short_nardy_start(Position: Any) -> None:
    # 2 x 24 + 5 x 13 + 3 x 8 + 5 x 6 = 167 pips; no blots; every point held (two or more), so the longest run
    # is 1 and the other side has checkers behind each; all 15 checkers still have an opposing checker ahead;
    # mobility, from 24: 23..18 but the other's 19 (its 6 point): 5; from 13: 12..7 but 12 (its 13): 5; from 8:
    # 7..2: 6; from 6: 5..1 but 1 (its 24), and 0 is off the board: 4; 20 in all
    assert counts(Position.start("short")) == [167, 0, 0, 1, 1, 15, 20] * 2


def test_a_split_after_six_one(Position: Any) -> None:
    # White plays 24/18 24/23 (Black to move): White's blots on 18 and 23, Black's checkers on White's 1 (2),
    # 12 (5), 17 (3) and 19 (5): distances 17, 6, 1 to the 18 and 22, 11, 6, 4 to the 23. Rolls with a 1, 4 or
    # 6: 36 - 3 x 3 = 27; of the others (2, 3, 5 only) 2-2 reaches 4 and 3-3 reaches 6: 29 shots. White's pips
    # 167 - 7 = 160, 15 checkers in contact; its mobility: from 23: 22..17 but 19 and 17: 4; from 18: 17..12
    # but 17 and 12: 4; 13: 5; 8: 6; 6: 4; 23 in all. Black's mobility gains its 6 point's 5 to its 1 (White's
    # 24 empty now): 21.
    start = Position.start("short")
    move = next(m for m in start.legal_moves((6, 1)) if str(m) == "24/18 24/23")
    after = start.play(move, (6, 1))
    assert counts(after) == [167, 0, 0, 1, 1, 15, 21, 160, 2, 29, 1, 1, 15, 23]


def test_a_prime_with_checkers_behind_it(Position: Any) -> None:
    # White holds 4 to 9 (a six-point prime) with Black's two back checkers on White's 1, behind it; White's
    # other checkers on 6..9 are the prime's own. Black's runs: its 6 point is White's 19, its 8 White's 17.
    board = [0] * 24
    for point, count in {4: 2, 5: 2, 6: 3, 7: 2, 8: 3, 9: 3}.items():
        board[point - 1] = count
    board[0] = -2  # Black's 24 point
    board[18] = -8  # Black's 6
    board[16] = -5  # Black's 8
    position = Position.from_board("short", board, turn="black")
    black, white = counts(position)[:PER_SIDE], counts(position)[PER_SIDE:]
    assert white[3] == 6 and white[4] == 6  # the prime, and Black's back checkers behind it
    # Black holds its 6, its 8 and White's 1 (its anchor), apart: runs of 1; only the anchor has White's
    # checkers above it in White's way (the 6 and 8 are White's 19 and 17, all of White's checkers past them)
    assert black[3] == 1 and black[4] == 1
    # Black's pips: 2 x 24 + 8 x 6 + 5 x 8; its back checkers are the only ones with White's checkers ahead
    assert black[0] == 48 + 48 + 40 and black[5] == 2


@pytest.mark.parametrize("variant", VARIANTS)
def test_both_implementations_encode_the_same_bits(variant: str) -> None:
    got = {name: IMPLS[name].encode(rows(variant), "expert") for name in NAMES}
    first = got[NAMES[0]]
    for name in NAMES[1:]:
        assert got[name].tobytes() == first.tobytes(), name
    nardy = IMPLS[NAMES[0]].encode(rows(variant), "nardy")
    assert first[:, :INPUTS].tobytes() == nardy.tobytes()
    assert (first[:, INPUTS:] >= 0).all() and first[:, INPUTS:].any()


def plain(variant: str) -> Network:
    """A network of the ``"nardy"`` scheme for ``variant``: the shipped one, or the shipped expert one with the
    rows of its expert features cut off."""
    arrays = shipped(variant).arrays()
    return Network(variant, arrays["w1"][:INPUTS], arrays["b1"], arrays["w2"], arrays["b2"])


def widened(network: Network, scale: float, seed: int) -> Network:
    """``network`` reading the expert features too, with weights from them drawn at ``scale`` (0: none)."""
    assert network.scheme == "nardy"
    arrays = network.arrays()
    extra = np.random.default_rng(seed).normal(0.0, 1.0, (EXPERT_WIDTH, network.hidden)).astype(np.float32)
    w1 = np.vstack([arrays["w1"], extra * np.float32(scale)])
    return Network(network.variant, w1, arrays["b1"], arrays["w2"], arrays["b2"])


@pytest.mark.parametrize("variant", ["short", "long"])
def test_expert_networks_value_the_same_bits_in_both_implementations(variant: str) -> None:
    network = widened(plain(variant), 0.3, seed=1)
    assert network.scheme == "expert" and "scheme=expert" in repr(network)
    values = {name: IMPLS[name].evaluate(rows(variant), network) for name in NAMES}
    for name in NAMES[1:]:
        np.testing.assert_array_equal(values[name], values[NAMES[0]])
    raw = IMPLS[NAMES[0]].evaluate(rows(variant), plain(variant))
    assert np.abs(values[NAMES[0]] - raw).max() > 0.05  # the features are read


@pytest.mark.parametrize("variant", ["short", "gulbar"])
def test_zero_weights_from_the_features_value_as_the_plain_network(variant: str) -> None:
    network = widened(plain(variant), 0.0, seed=1)
    for name in NAMES:
        got = IMPLS[name].evaluate(rows(variant), network)
        np.testing.assert_array_equal(got, IMPLS[name].evaluate(rows(variant), plain(variant)))


def test_an_expert_network_plays_and_saves(tmp_path: Path) -> None:
    network = widened(plain("short"), 0.3, seed=2)
    path = tmp_path / "x.npz"
    network.save(path)
    loaded = Network.load(path)
    assert loaded.scheme == "expert" and loaded.sha256 == network.sha256
    results = [nardy_fast.duel(Greedy(Composite(contact=loaded)), Greedy(), "short", 20, seed=5) for _ in range(2)]
    assert repr(results[0]) == repr(results[1])
    hint = nardy_fast.Position.start("short").hint((3, 1), evaluator=loaded)
    assert hint and str(hint[0][0])


def test_training_widens_a_plain_network(tmp_path: Path) -> None:
    start = widened(plain("short"), 0.0, seed=0)
    # no game learnt from: the widened start itself, valuing as the plain network
    made = train("short", 10, out=tmp_path / "w.npz", inputs="expert", init=plain("short"), rate=1e-9, batch=10,
                 eval_every=0, hidden=plain("short").hidden)
    assert made.scheme == "expert" and made.training["inputs"] == "expert"
    some = rows("short")[:200]
    assert np.abs(nardy_fast.evaluate(some, made) - nardy_fast.evaluate(some, start)).max() < 1e-3
    with pytest.raises(NardyError, match=r"^inputs: must be one of \('nardy', 'expert'\) \(got 'raw'\)$"):
        train("short", 10, out=tmp_path / "bad.npz", inputs="raw")
    with pytest.raises(NardyError, match=r"^init: reads the 'expert' inputs, not 'nardy' \(got <Network"):
        train("short", 10, out=tmp_path / "bad.npz", init=made, hidden=made.hidden)


def test_both_implementations_search_an_expert_network_alike() -> None:
    network = widened(plain("long"), 0.3, seed=3)
    hints = {}
    for name, cls in (("python", nardy_fast.reference.Position), ("cython", nardy_fast.Position)):
        here = cls.from_array(rows("long")[100])
        hints[name] = [(str(move), value) for move, value in here.hint((4, 2), evaluator=network, plies=1)]
    assert hints["python"] == hints["cython"] and len(hints["python"]) > 1


@pytest.mark.skipif("cython" not in IMPLS, reason="the compiled core is not built")
@pytest.mark.parametrize("variant", ["short", "long"])
def test_rows_changed_by_another_thread(variant: str) -> None:
    """The core copies each row before reading it without the GIL: with another thread flipping the side to
    move of every row back and forth, each row is encoded, and valued by an expert network, as one of its two
    states, never a mix of them (the expert features read the whole board: both sides' masks and pips)."""
    core = IMPLS["cython"]
    live = flippable(rows(variant))
    flipped = live.copy()
    flipped[:, layout.TURN] ^= 1
    network = widened(plain(variant), 0.3, seed=4)

    def encoded(some: Rows) -> npt.NDArray[Any]:
        found: npt.NDArray[Any] = core.encode(some, "expert")
        return found

    def valued(some: Rows) -> npt.NDArray[Any]:
        found: npt.NDArray[Any] = core.evaluate(some, network)
        return found

    calls = {"encode": encoded, "evaluate": valued}
    either = {name: (call(live), call(flipped)) for name, call in calls.items()}
    for first, second in either.values():  # the two states differ in every row, so a mix would show
        assert not (first == second).all(axis=1).any()
    shared = live.copy()
    seen = {name: [False, False] for name in calls}

    def flip() -> None:
        shared[:, layout.TURN] ^= 1

    with writer(flip):
        for _ in for_a_while(20, 30, lambda: all(all(both) for both in seen.values())):
            for name, call in calls.items():
                found = call(shared)
                match = [(found == state).all(axis=1) for state in either[name]]
                assert (match[0] | match[1]).all(), name
                seen[name][0] |= bool(match[0].any())
                seen[name][1] |= bool(match[1].any())
    assert all(all(both) for both in seen.values()), seen  # the writer was seen by every kernel
