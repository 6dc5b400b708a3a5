"""Benchmarks, implementations side by side in one run, one group per variant (``pytest bench/``).

Every member of a variant's group does the same work: the children of the same corpus positions and rolls,
so the ratio printed at the end of the run is a speed ratio. GNU Backgammon's generator joins the short-nardy
group when ``gnubg-nn`` is installed (``pip install -e ".[bench,peers]"``).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

import nardy_fast
from nardy_fast import bench, corpus, reference

SIZE = 100  # positions per variant in the side-by-side groups (the reference is slow)
VARIANTS = nardy_fast.VARIANTS
core = pytest.importorskip("nardy_fast.core", reason="the compiled core is not built")


def _rows(variant: str, size: int = SIZE) -> tuple[bench.Rows, bench.Rows]:
    rows, rolls = corpus.load(variant)
    return rows[:size], rolls[:size]


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize(
    "api",
    ["reference legal_moves", "core legal_moves", "core children", "core batch_children", "reference batch_children"],
)
def test_children(benchmark: pytest.FixtureRequest, variant: str, api: str) -> None:
    rows, rolls = _rows(variant)
    work: dict[str, Callable[[], int]] = {
        "reference legal_moves": bench.per_call(reference.Position, rows, rolls),
        "core legal_moves": bench.per_call(core.Position, rows, rolls),
        "core children": bench.per_array(rows, rolls),
        "core batch_children": bench.batched(rows, rolls),
        "reference batch_children": lambda: len(reference.batch_children(rows, rolls)[0]),
    }
    benchmark.group = variant  # type: ignore[attr-defined]
    benchmark(work[api])  # type: ignore[operator]


def test_children_gnubg(benchmark: pytest.FixtureRequest) -> None:
    gnubg_nn = pytest.importorskip("gnubg_nn", reason="gnubg-nn (extra 'peers') is not installed")
    boards = bench.gnubg_boards(*_rows("short"))
    benchmark.group = "short"  # type: ignore[attr-defined]
    benchmark(lambda: sum(len(gnubg_nn.moves(b, d1, d2)) for b, d1, d2 in boards))  # type: ignore[operator]


@pytest.mark.parametrize(
    "api",
    [
        "core children",
        "core batch_children",
        "core batch_children, 2 threads",
        "core batch_children, 2 processes",
        "gnubg_nn.moves",
    ],
)
def test_short_corpus(benchmark: pytest.FixtureRequest, api: str) -> None:
    """The array APIs and GNU Backgammon on the whole short-nardy corpus (10,000 positions; no reference,
    which would take minutes a round): the ratios of the speed targets, on work large enough that no call's
    fixed cost counts. Two processes on the same parts as two threads show how far the machine lets two workers
    scale at all."""
    rows, rolls = _rows("short", corpus.SIZE)
    if api == "gnubg_nn.moves":
        gnubg = bench.gnubg_work(rows, rolls)
        if gnubg is None:
            pytest.skip("gnubg-nn (extra 'peers') is not installed")
        work = gnubg.run
    else:
        # only the one measured is made (a thread pool, processes)
        make: dict[str, Callable[[], Callable[[], int]]] = {
            "core children": lambda: bench.per_array(rows, rolls),
            "core batch_children": lambda: bench.batched(rows, rolls),
            "core batch_children, 2 threads": lambda: bench.batched(rows, rolls, 2),
            "core batch_children, 2 processes": lambda: bench.in_processes(rows, rolls, 2),
        }
        work = make[api]()
    benchmark.group = "short, whole corpus"  # type: ignore[attr-defined]
    benchmark(work)  # type: ignore[operator]


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("implementation", ["reference", "core"])
def test_perft(benchmark: pytest.FixtureRequest, variant: str, implementation: str) -> None:
    cls = reference.Position if implementation == "reference" else core.Position
    depth = 1 if variant == "short" else 2
    start = cls.start(variant)
    benchmark.group = f"perft {variant} depth {depth}"  # type: ignore[attr-defined]
    benchmark(nardy_fast.perft, start, depth)  # type: ignore[operator]
