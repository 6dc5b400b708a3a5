"""A slow ply shows on the command line's progress line: the count of the move searches' work that both
implementations keep (``Kernels.searched``), and the ticker of :class:`nardy_fast.cli.progress.Progress` that
redraws the line while the bar stands still and says how much the searches did meanwhile."""

from __future__ import annotations

import io
import re
import threading
import time
from types import ModuleType

import pytest

import nardy_fast.cli.progress as cli_progress
from nardy_fast import _dispatch, corpus
from nardy_fast.cli.progress import Progress, in_chunks

#: The block in which the core adds its work to the count (``TICK_MASK + 1``, src_pyx/tables.pxi).
BLOCK = 4096

#: A crazy gulbar ladder of the shipped corpus whose 1-1 has 14,613 results, after some 41,000 nodes
#: expanded: about a second in the reference, milliseconds in the core.
LADDER = 8945

_STILL = re.compile(r"\| busy for \d+:\d\d: ([\d.]+[kMG]?) positions searched")


def _implementations() -> list[str]:
    return sorted(_dispatch.implementations())


def _ladder_work(implementation: ModuleType) -> tuple[int, int]:
    """The results of the corpus's ladder and the growth of the implementation's count while it is searched."""
    rows, rolls = corpus.load("crazy")
    position = implementation.Position.from_array(rows[LADDER])
    roll = (int(rolls[LADDER][0]), int(rolls[LADDER][1]))
    searched = implementation.IMPLEMENTATION_RECORD.kernels.searched
    before = searched()
    results = len(position.legal_moves(roll))
    return results, searched() - before


def test_the_searches_work_is_counted_alike_in_both_implementations() -> None:
    found = {name: _ladder_work(module) for name, module in _dispatch.implementations().items()}
    results = {name: pair[0] for name, pair in found.items()}
    assert set(results.values()) == {14_613}, results
    # the reference adds a search's whole work by its end: some 41,000 nodes here, ten blocks
    reference = found["python"][1]
    assert reference > 4 * BLOCK
    if "cython" in found:
        # the core expands the same nodes and adds them in whole blocks per workspace, whose count carries
        # up to a block from earlier searches: within a block of the reference's either way
        core = found["cython"][1]
        assert core % BLOCK == 0 and abs(core - reference) <= BLOCK, (core, reference)


@pytest.mark.parametrize("name", _implementations())
def test_the_count_never_falls(name: str) -> None:
    searched = _dispatch.implementations()[name].IMPLEMENTATION_RECORD.kernels.searched
    first = searched()
    assert isinstance(first, int) and first >= 0 and searched() >= first


def _tickers() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == "nardy_fast-progress"]


def _frames(stream: io.StringIO) -> list[str]:
    return stream.getvalue().split("\r")[1:]


def test_a_still_bar_shows_the_searches_work_until_it_moves(monkeypatch: pytest.MonkeyPatch) -> None:
    # frequent redraws, so that a loaded machine still draws some within the second of margin below
    monkeypatch.setattr(cli_progress, "_TICK_SECONDS", 0.1)
    monkeypatch.setattr(cli_progress, "_FIRST_CHUNK", 2)
    work = [1_000]
    stream = io.StringIO()

    def play(first: int, count: int) -> int:
        if first == 0:
            # a slow ply: 3.4 million positions searched while the bar stands still for 3 seconds
            work[0] += 3_400_000
            time.sleep(3.0)
        return count

    with Progress(4, stream, searched=lambda: work[0]) as progress:
        assert len(_tickers()) == 1
        in_chunks(4, 1, play, progress)
        time.sleep(1.0)  # redrawn as the rate changes, never 2 seconds still
    frames = _frames(stream)
    assert not _tickers()
    assert stream.getvalue().endswith("\n") and stream.getvalue().count("\n") == 1
    busy = [frame for frame in frames if "busy for" in frame]
    assert busy and all(frame.startswith("0/4 games ") for frame in busy), busy
    assert all(_STILL.search(frame) for frame in busy), busy
    assert {match.group(1) for frame in busy if (match := _STILL.search(frame))} == {"3.4M"}, busy
    # no note once the bar moved, however often it is redrawn; the padding wipes the longer line drawn before
    after = frames[max(i for i, frame in enumerate(frames) if "busy" in frame) + 1 :]
    assert after and not any("busy" in frame for frame in after)
    assert after[0].startswith("2/4 games ") and len(after[0]) >= len(busy[-1].rstrip())
    assert re.fullmatch(r"4/4 games +100\.0% +[\d,]+ games/s +ETA 0:00 *\n", frames[-1]), frames[-1]


@pytest.mark.parametrize("error", [RuntimeError, KeyboardInterrupt])
def test_the_ticker_stops_when_the_work_fails(error: type[BaseException]) -> None:
    stream = io.StringIO()
    with pytest.raises(error):
        with Progress(10, stream, searched=lambda: 0):
            assert len(_tickers()) == 1
            raise error()
    assert not _tickers()
    assert stream.getvalue().endswith("\n")


def test_no_stream_no_ticker() -> None:
    calls = []

    def searched() -> int:
        calls.append(1)
        return 0

    with Progress(10, None, searched=searched) as progress:
        assert not _tickers()
        progress.update(5)
    assert not _tickers() and not calls


def test_amounts_are_short() -> None:
    amount = cli_progress._amount
    assert [amount(n) for n in (0, 950, 41_000, 3_400_000, 1_200_000_000)] == ["0", "950", "41.0k", "3.4M", "1.2G"]
