"""Benchmarks, implementations side by side in one run (``pytest bench/``; ``docs/benchmarks.md``).

Every member of a group does the same work, so the ratio printed at the end of the run is a speed ratio:
the children of the same corpus positions and rolls (one group per variant), or the same number of whole
random games (the ``games`` groups). GNU Backgammon's generator joins the short-nardy groups when
``gnubg-nn`` is installed (``pip install -e ".[bench,peers]"``). Nothing here asserts a time.
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
    [
        "reference legal_moves",
        "core legal_moves",
        "core children",
        "core batch_children",
        "reference batch_children",
    ],
)
def test_children(benchmark: pytest.FixtureRequest, variant: str, api: str) -> None:
    rows, rolls = _rows(variant)
    work: dict[str, Callable[[], object]] = {
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
        work: Callable[[], object] = gnubg.run
    else:
        # only the one measured is made (a thread pool, processes)
        make: dict[str, Callable[[], Callable[[], bench.Count]]] = {
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


GAMES = 400  # games per member of a games group (GNU Backgammon's loop plays about 1,500 a second)


@pytest.mark.parametrize("api", ["core playout", "gnubg_nn Python loop"])
def test_games_short_core_against_gnubg(benchmark: pytest.FixtureRequest, api: str) -> None:
    """Random games of short nardy from the start, one thread: the core's playout against the loop a Python
    program writes around GNU Backgammon's move generator (target: the core at least 5x)."""
    if api == "gnubg_nn Python loop":
        pytest.importorskip("gnubg_nn", reason="gnubg-nn (extra 'peers') is not installed")
        work = bench.gnubg_games(GAMES)
    else:
        work = bench.core_games("short", GAMES)
    benchmark.group = f"games short ({GAMES}): core vs gnubg loop"  # type: ignore[attr-defined]
    benchmark(work)  # type: ignore[operator]


@pytest.mark.parametrize("api", ["core playout", "reference playout"])
def test_games_short_core_against_reference(benchmark: pytest.FixtureRequest, api: str) -> None:
    """A handful of games: the reference plays about 20 a second."""
    games = 5
    playout = core.playout if api == "core playout" else reference.playout
    benchmark.group = f"games short ({games}): core vs reference"  # type: ignore[attr-defined]
    benchmark.pedantic(playout, args=("short", games), kwargs={"seed": bench.SEED}, rounds=3)  # type: ignore[attr-defined]


@pytest.mark.parametrize("variant", ["short", "long"])
def test_games_long_against_short(benchmark: pytest.FixtureRequest, variant: str) -> None:
    """Long nardy's games against short nardy's, the same number (target: long at least as fast)."""
    benchmark.group = f"games ({GAMES * 5}): long vs short"  # type: ignore[attr-defined]
    benchmark(bench.core_games(variant, GAMES * 5))  # type: ignore[operator]


@pytest.mark.parametrize("api", ["1 thread", "2 threads", "2 processes"])
def test_games_short_threads(benchmark: pytest.FixtureRequest, api: str) -> None:
    """The same games on one thread, two, and split by number between two processes (the control: how far
    the machine lets two workers scale at the time)."""
    games = GAMES * 5
    if api == "2 processes":
        work = bench.games_in_processes("short", games)
    else:
        work = bench.core_games("short", games, threads=int(api[0]))
    benchmark.group = f"games short ({games}): threads"  # type: ignore[attr-defined]
    benchmark(work)  # type: ignore[operator]


@pytest.mark.parametrize("policy", ["built-in random", "NumPy callable"])
def test_games_short_policy(benchmark: pytest.FixtureRequest, policy: str) -> None:
    """A Python callable policy (a NumPy random choice, called once per ply for a batch of 1,000 games)
    against the built-in random policy (target: the callable costs at most 3x)."""
    games = bench.POLICY_BATCH
    if policy == "built-in random":

        def work() -> object:
            return nardy_fast.playout("short", games, seed=bench.SEED)

    else:

        def work() -> object:
            chooser = bench.random_policy(bench.SEED)
            return nardy_fast.playout(
                "short", games, seed=bench.SEED, policy=chooser, batch=bench.POLICY_BATCH
            )

    benchmark.group = f"games short ({games}): policy"  # type: ignore[attr-defined]
    benchmark(work)  # type: ignore[operator]
