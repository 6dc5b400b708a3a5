"""Reading and writing Jellyfish ``.mat`` match files (``pytest bench/test_bench_matchfiles.py``; issue 44's
target: at least 10,000 short-nardy games a second, on one core). The games are a money session of ``GAMES``
games with the cube, both sides playing the heuristic's best move (``Position.hint``), as long as real games
(about 55 plies in short nardy, 80 in long), nobody doubling; short nardy, and a long-nardy line. Each
member's rate is in ``extra_info["games/s"]``; nothing here asserts a time.

* ``write``: ``write_match`` of the record to a string (the record's steps formatted, no replay);
* ``read``: ``read_match`` of the text, every move matched to a legal move and replayed: ``core`` by the fast
  path (``nardy_fast.matfast``: the move lines read and the whole file's plies matched by the core's kernels),
  ``core move by move`` by the reader it stands in for (``nardy_fast.matread``, one Python call per ply: the
  figure before the fast path), ``reference`` by the reference's ``Position`` (move by move: the reference has
  no replay kernel).
"""

from __future__ import annotations

import io
from functools import cache

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

import nardy_fast
from nardy_fast import Game, Match, matread, reference
from nardy_fast.records import MatchRecord

#: Games of each session, and of the reference's (its replay takes some 30 ms a game).
GAMES = 1000
REFERENCE_GAMES = 100
VARIANTS = ("short", "long")


@cache
def session(variant: str, games: int = GAMES) -> tuple[MatchRecord, str]:
    """The record of the benchmark's games and its ``.mat`` text."""
    played = []
    for number in range(games):
        game = Game(variant, seed=1, game=number, opening="use_single_dice", match=Match())
        while not game.is_over():
            game.play(game.position.hint(game.roll, evaluator="heuristic")[0][0])
        played.append(game)
    record = nardy_fast.match_record(played)
    out = io.StringIO()
    nardy_fast.write_match(record, out)
    return record, out.getvalue()


def _rate(benchmark: BenchmarkFixture, games: int) -> None:
    benchmark.extra_info["games/s"] = round(games / benchmark.stats.stats.median)


@pytest.mark.parametrize("variant", VARIANTS)
def test_write(benchmark: BenchmarkFixture, variant: str) -> None:
    record, text = session(variant)
    benchmark.group = f"mat write {variant}"

    def write() -> str:
        out = io.StringIO()
        nardy_fast.write_match(record, out)
        return out.getvalue()

    assert benchmark.pedantic(write, rounds=10) == text  # type: ignore[no-untyped-call]
    _rate(benchmark, GAMES)


@pytest.mark.parametrize("api", ["core", "core move by move", "reference"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_read(benchmark: BenchmarkFixture, api: str, variant: str) -> None:
    if api.startswith("core") and nardy_fast.IMPLEMENTATION != "cython":
        pytest.skip("the compiled core is not built")
    games = REFERENCE_GAMES if api == "reference" else GAMES
    record, text = session(variant, games)
    cls = reference.Position if api == "reference" else nardy_fast.Position
    # the reference reads fewer games: a group of its own, so that each group's members do the same work
    benchmark.group = f"mat read {variant}" + (f", {games} games" if games != GAMES else "")
    if api == "core move by move":
        def read() -> MatchRecord:
            return matread.read_mat(text, cls)
    else:
        def read() -> MatchRecord:
            return nardy_fast.read_match(io.StringIO(text), position_class=cls)
    found = benchmark.pedantic(read, rounds=3 if api == "reference" else 7)  # type: ignore[no-untyped-call]
    assert found == record
    _rate(benchmark, games)
