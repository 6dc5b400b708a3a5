"""Reading and writing Jellyfish ``.mat`` match files (``pytest bench/test_bench_matchfiles.py``; issue 44's
target: at least 10,000 short-nardy games a second, on one core). The games are a money session of ``GAMES``
short-nardy games with the cube, both sides playing the heuristic's best move (``Position.hint``), as long as
real games (about 55 plies). Each member's rate is in ``extra_info["games/s"]``; nothing here asserts a time.

* ``write``: ``write_match`` of the record to a string (the record's steps formatted, no replay);
* ``read``: ``read_match`` of the text, every move matched to a legal move and replayed by the
  implementation's ``Position`` (``core``, ``reference``).
"""

from __future__ import annotations

import io
from functools import cache

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

import nardy_fast
from nardy_fast import Game, Match, reference
from nardy_fast.records import MatchRecord

GAMES = 200


@cache
def session() -> tuple[MatchRecord, str]:
    """The record of the benchmark's games and its ``.mat`` text."""
    games = []
    for number in range(GAMES):
        game = Game("short", seed=1, game=number, opening="use_single_dice", match=Match())
        while not game.is_over():
            game.play(game.position.hint(game.roll, evaluator="heuristic")[0][0])
        games.append(game)
    record = nardy_fast.match_record(games)
    out = io.StringIO()
    nardy_fast.write_match(record, out)
    return record, out.getvalue()


def _rate(benchmark: BenchmarkFixture) -> None:
    benchmark.extra_info["games/s"] = round(GAMES / benchmark.stats.stats.median)


def test_write(benchmark: BenchmarkFixture) -> None:
    record, text = session()
    benchmark.group = "mat write"

    def write() -> str:
        out = io.StringIO()
        nardy_fast.write_match(record, out)
        return out.getvalue()

    assert benchmark.pedantic(write, rounds=10) == text  # type: ignore[no-untyped-call]
    _rate(benchmark)


@pytest.mark.parametrize("api", ["core", "reference"])
def test_read(benchmark: BenchmarkFixture, api: str) -> None:
    if api == "core" and nardy_fast.IMPLEMENTATION != "cython":
        pytest.skip("the compiled core is not built")
    record, text = session()
    cls = nardy_fast.Position if api == "core" else reference.Position
    benchmark.group = "mat read"
    found = benchmark.pedantic(  # type: ignore[no-untyped-call]
        lambda: nardy_fast.read_match(io.StringIO(text), position_class=cls), rounds=3)
    assert found == record
    _rate(benchmark)
