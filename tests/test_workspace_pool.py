"""The core's memory kept between calls: idle search workspaces up to a bound across all of them, counted as
they are taken and given back (``idle_workspaces``), and freed batch outputs reused as spares. Its accounting
holds after large ladders, searches stopped by ``max_results``, threads searching at once and batches."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from nardy_fast import SearchLimitError
from nardy_fast._dispatch import implementations
from nardy_fast.corpus import load

CORE = implementations().get("cython")
pytestmark = pytest.mark.skipif(CORE is None, reason="the core is not built")

#: A 1-1 ladder of game 661 of the whole-game differential (seed 20261201): 295,836 results, whose workspace
#: is tens of megabytes, more than one idle workspace was once allowed to keep.
LADDER = (
    "crazy w 1:1,2:2,3:1,4:-2,5:-1,6:-1,10:2,13:-6,14:-5,16:1,18:6,21:1,24:1 first=- ladder_per_value=4"
)
LADDER_RESULTS = 295_836


def _pool() -> tuple[int, int, int, int]:
    from nardy_fast import _core

    return _core.idle_workspaces()


def _ladder_children(max_results: int = 0) -> int:
    assert CORE is not None
    row = CORE.Position.from_text(LADDER).to_array()
    return len(CORE.children(row, (1, 1), max_results=max_results or None))


def _assert_consistent() -> tuple[int, int]:
    counted, held, number, bound = _pool()
    assert counted == held, f"the pool counts {counted} bytes for idle workspaces that hold {held}"
    assert held <= bound
    return held, number


def test_a_large_ladders_workspace_is_kept_for_the_next_call() -> None:
    assert _ladder_children() == LADDER_RESULTS
    held, number = _assert_consistent()
    assert number >= 1
    assert held > 16 << 20  # more than the former bound of one idle workspace
    # the next call takes it back: the pool no longer counts it while it searches
    assert _ladder_children() == LADDER_RESULTS
    _assert_consistent()


def test_a_search_stopped_by_max_results_gives_its_workspace_back() -> None:
    with pytest.raises(SearchLimitError):
        _ladder_children(max_results=1000)
    _assert_consistent()


def test_threads_searching_at_once_keep_the_pool_within_its_bound() -> None:
    counts: list[int] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            counts.append(_ladder_children())
        except BaseException as error:  # noqa: BLE001 - reported by the main thread
            errors.append(error)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert counts == [LADDER_RESULTS] * 4
    _, number = _assert_consistent()
    assert number >= 1


def test_batches_reuse_freed_outputs_without_changing_them() -> None:
    assert CORE is not None
    rows, rolls = load("crazy")
    first = CORE.batch_children(rows, rolls)
    kept = [np.array(part, copy=True) for part in first]
    second = CORE.batch_children(rows, rolls)  # the first's buffers are still alive: fresh ones
    del first
    third = CORE.batch_children(rows, rolls)  # may take the first's freed buffers
    for batch in (second, third):
        for part, expected in zip(batch, kept):
            np.testing.assert_array_equal(part, expected)
    _assert_consistent()
