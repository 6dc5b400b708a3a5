"""``segment_argmax`` (nardy_fast.segments): the first highest score of every CSR segment, in both
implementations, against ``numpy.argmax`` of each slice; its use as a scoring policy; bad input alike."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from types import ModuleType

import numpy as np
import numpy.typing as npt
import pytest

import nardy_fast
from nardy_fast import _dispatch
from nardy_fast.errors import NardyError

IMPLEMENTATIONS = sorted(_dispatch.implementations().items())
Argmax = Callable[[object, object], npt.NDArray[np.int64]]


@pytest.fixture(params=[name for name, _ in IMPLEMENTATIONS])
def argmax(request: pytest.FixtureRequest) -> Argmax:
    module: ModuleType = dict(IMPLEMENTATIONS)[request.param]
    found: Argmax = module.segment_argmax
    return found


@pytest.mark.parametrize("seed", range(5))
def test_every_segment_gets_the_first_of_its_highest(argmax: Argmax, seed: int) -> None:
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 30, size=200)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    scores = rng.integers(-3, 4, size=offsets[-1]).astype(np.float32)  # many ties
    expected = [int(np.argmax(scores[a:b])) for a, b in itertools.pairwise(offsets)]
    assert argmax(scores, offsets).tolist() == expected
    assert argmax(scores.astype(np.int64), offsets.astype(np.int32)).tolist() == expected


def test_small_cases_by_hand(argmax: Argmax) -> None:
    assert argmax([1, 3, 3, 0, 5, -1], [0, 3, 4, 6]).tolist() == [1, 0, 0]
    assert argmax([-np.inf, -np.inf, np.inf], [0, 2, 3]).tolist() == [0, 0]
    assert argmax([2.0], [0, 1]).dtype == np.int64
    assert argmax(np.zeros(0), [0]).tolist() == []


BAD: list[tuple[object, object, str]] = [
    ([1.0, np.nan], [0, 2], "scores"),
    ([[1.0]], [0, 1], "scores"),
    (["a"], [0, 1], "scores"),
    ([1.0, 2.0], [0, 0, 2], "offsets"),  # an empty segment has no argmax
    ([1.0, 2.0], [1, 2], "offsets"),
    ([1.0, 2.0], [0, 3], "offsets"),
    ([1.0, 2.0], [0.0, 2.0], "offsets"),
    ([1.0, 2.0], [[0, 2]], "offsets"),
    ([1.0, 2.0], [], "offsets"),
    ([1.0, 2.0], [0, 2, 1], "offsets"),
    # steps that wrap around in int64 (2**63 - 1 up to -2 is a "step" of 2**63 - 1 after wrapping)
    ([1.0, 2.0, 3.0], [0, 2**63 - 1, -2, 0, 3], "offsets"),
    ([1.0, 2.0, 3.0], [0, -(2**63), 3], "offsets"),
    ([1.0, 2.0, 3.0], np.array([0, 2**63 + 1, 3], dtype=np.uint64), "offsets"),
    ([1.0, 2.0, 3.0], np.array([0, 2**64 - 1, 1, 3], dtype=np.uint64), "offsets"),
    ([1.0, 2.0, 3.0], np.array([0, 2**63 - 1, 2**64 - 2, 0, 3], dtype=np.uint64), "offsets"),  # int64's case
]


@pytest.mark.parametrize(("scores", "offsets", "field"), BAD)
def test_bad_input_is_named_alike(scores: object, offsets: object, field: str) -> None:
    messages = set()
    for _, module in IMPLEMENTATIONS:
        with pytest.raises(NardyError) as caught:
            module.segment_argmax(scores, offsets)
        assert str(caught.value).startswith(f"{field}: ")
        messages.add((type(caught.value), str(caught.value)))
    assert len(messages) == 1


def test_arrays_changed_by_another_thread_give_one_of_their_answers(argmax: Argmax) -> None:
    """The arrays are copied before they are checked: a writer flipping the scores gives the argmax of one
    of the two versions, or of a mix of them segment by segment, never an index outside a segment."""
    offsets = np.arange(0, 40_001, 4)
    scores = np.tile(np.array([0.0, 1.0, 0.0, 0.0]), 10_000)
    stop = threading.Event()

    def flip() -> None:
        while not stop.is_set():
            scores[1::4], scores[2::4] = scores[2::4].copy(), scores[1::4].copy()

    writer = threading.Thread(target=flip)
    writer.start()
    try:
        for _ in range(50):
            found = argmax(scores, offsets)
            assert set(found.tolist()) <= {0, 1, 2}
    finally:
        stop.set()
        writer.join()


def test_a_scoring_policy_plays_the_games_of_its_choices() -> None:
    """A policy that scores every child with segment_argmax makes the same choices as one that loops."""

    def by_segments(children: npt.NDArray[np.int8], offsets: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        return nardy_fast.segment_argmax(-children[:, 0].astype(np.float64), offsets)

    def by_loop(children: npt.NDArray[np.int8], offsets: npt.NDArray[np.int64]) -> list[int]:
        return [int(np.argmax(-children[a:b, 0].astype(np.float64))) for a, b in itertools.pairwise(offsets)]

    first = nardy_fast.playout("long", 20, seed=5, policy=by_segments)
    assert first.tobytes() == nardy_fast.playout("long", 20, seed=5, policy=by_loop).tobytes()
