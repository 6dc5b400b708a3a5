"""The rolled-out benchmark databases the package ships (docs/benchmarks.md, Rolled-out benchmark databases):
each read by its variant's name, its meta the documented command, its positions drawn again from the corpus
by its settings, its classes those of the positions, its held-out set every tenth, and one position rolled out
again giving the stored equities bit for bit."""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import nardy_fast
from nardy_fast import NardyError, read_benchmark
from nardy_fast._dispatch import implementations
from nardy_fast.benchdb import SHIPPED, shipped_database
from nardy_fast.benchmake import Settings, draw, roll_out_entry
from nardy_fast.evaluation.classes import classify
from nardy_fast.evaluation.composite import Composite
from nardy_fast.evaluation.network import Network, shipped

SHIPPED_VARIANTS = [v for v in nardy_fast.VARIANTS if Path(str(SHIPPED / f"{v}.npz")).is_file()]
DOCS = Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"
#: The networks shipped when the databases were made (a checkout's; an installed package has none).
BASELINE = Path(__file__).resolve().parent.parent / "bench" / "baseline"
#: The network each database was rolled out by (its "net" then), by the first digits of its sha256.
MADE_BY = {"short": "d2f63c2ef2b8", "long": "30bf20a5a396", "sixone": "ad74467f04ca", "gulbar": "b19e0ca56591",
           "crazy": "6df09e0769ee"}


def made_by(variant: str) -> object:
    """The evaluator "net" was when ``variant``'s database was made: "net" itself while that network is still
    shipped, else the network kept in bench/baseline (the networks before issue 45) or bench/baseline/databases
    (those shipped since and replaced) composed as "net" is; None when none is here."""
    if shipped(variant).sha256.startswith(MADE_BY[variant]):
        return "net"
    for kept in (BASELINE / f"{variant}.npz", BASELINE / "databases" / f"{variant}.npz"):
        if kept.is_file() and Network.load(kept).sha256.startswith(MADE_BY[variant]):
            return Composite(contact=Network.load(kept))
    return None


def test_short_and_long_nardy_have_a_database() -> None:
    assert {"short", "long"} <= set(SHIPPED_VARIANTS)  # issue 45: one a variant, short and long nardy's first


def test_a_variant_without_one_is_named() -> None:
    missing = [v for v in nardy_fast.VARIANTS if v not in SHIPPED_VARIANTS]
    for variant in missing:
        with pytest.raises(NardyError, match=f"database: no database is shipped .*'{variant}'"):
            read_benchmark(variant)
    with pytest.raises(NardyError, match="FILE: no database is shipped"):
        shipped_database("backgammon", "FILE")


@pytest.mark.parametrize("variant", SHIPPED_VARIANTS)
def test_a_shipped_database_is_what_its_command_makes(variant: str) -> None:
    database = read_benchmark(variant)
    meta = database.meta
    fields = {f.name for f in dataclasses.fields(Settings)}
    settings = Settings(**{k: v for k, v in meta.items() if k in fields})
    assert settings.variant == variant and len(database) == settings.positions >= 2000
    if DOCS.exists():  # the command that made it is in the docs, as the meta has it
        assert meta["command"] in DOCS.read_text()
    assert re.fullmatch(rf"python tools/make_benchmark_db.py {variant} --positions \d+ .*", meta["command"])
    drawn = draw(nardy_fast.Position, settings)
    firsts = [next(drawn) for _ in range(50)]
    for index, (_, position, roll) in enumerate(firsts):  # the positions are the corpus's, drawn by the seed
        assert (database.rows[index] == position.to_array()).all()
        assert tuple(database.rolls[index]) == roll
    assert (database.classes == classify(database.rows)).all()
    assert (database.held_out == (np.arange(len(database)) % 10 == 9)).all()
    sizes = np.diff(database.offsets)
    assert sizes.min() >= 2 and sizes.max() <= settings.candidates
    assert np.isfinite(database.equities).all() and np.abs(database.equities).max() <= 3.0
    # one position (the one with the fewest candidates among the first 50) rolled out again by the compiled
    # core (both implementations make the same entries: tests/test_benchdb.py; the reference takes minutes)
    core = implementations().get("cython")
    if core is None:
        pytest.skip("the compiled core is not built")
    index = min(range(50), key=lambda i: (sizes[i], i))
    _, position, roll = firsts[index]
    position = core.Position.from_array(position.to_array())
    then = made_by(variant)
    if then is None:
        pytest.skip("the network that made the database is kept in bench/baseline, a checkout's")
    settings = dataclasses.replace(settings, player=then, filter_evaluator=then)  # type: ignore[arg-type]
    children, equities, stderrs = roll_out_entry(position, roll, index, settings)
    block = database.candidates(index)
    assert (children == database.children[block]).all()
    assert equities.tolist() == database.equities[block].tolist()
    assert stderrs.tolist() == database.stderrs[block].tolist()


def test_the_cli_reads_a_shipped_database_by_its_variant() -> None:
    done = subprocess.run([sys.executable, "-m", "nardy_fast", "errors", "short", "--evaluator", "heuristic"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    found = nardy_fast.benchmark_errors(read_benchmark("short"), "heuristic", 0)
    assert f"{found['all'].count:>9}  {found['all'].loss:>10.2f}" in done.stdout
    missing = [v for v in nardy_fast.VARIANTS if v not in SHIPPED_VARIANTS]
    if missing:
        done = subprocess.run([sys.executable, "-m", "nardy_fast", "errors", missing[0]], capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 2 and "FILE: no database is shipped" in done.stderr
