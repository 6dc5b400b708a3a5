"""Rolled-out benchmark databases on tiny sizes: the maker (tools/make_benchmark_db.py) and its resumption, the
reader's refusals, and the error rate of an evaluator (docs/benchmarks.md, Rolled-out benchmark databases)."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import nardy_fast
from nardy_fast import NardyError, Position, benchmark_errors, corpus, read_benchmark
from nardy_fast._dispatch import implementations
from nardy_fast.benchdb import BenchmarkDatabase, write_database
from nardy_fast.benchmake import Entry, Settings, assemble, roll_out_entry
from nardy_fast.evaluation.classes import CLASSES, RACE, classify
from nardy_fast.files import write_npz

TOOL = Path(__file__).resolve().parent.parent / "tools" / "make_benchmark_db.py"
OPTIONS = ["sixone", "--positions", "3", "--trials", "36", "--candidates", "3", "--seed", "4",
           "--player", "heuristic", "--filter", "heuristic", "--filter-plies", "0", "--held-out-every", "2"]


def _tool() -> Any:
    if not TOOL.exists():
        pytest.skip("tools/ is not installed with the package")
    spec = importlib.util.spec_from_file_location("make_benchmark_db", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database of three six-one positions (extra rolls: some candidates leave the mover on roll)."""
    out = tmp_path_factory.mktemp("bench") / "whole.npz"
    assert _tool().main([*OPTIONS, "--out", str(out)]) == 0
    return out


def _same(a: BenchmarkDatabase, b: BenchmarkDatabase) -> None:
    for name, array in a.arrays().items():
        if name != "meta":
            assert np.array_equal(array, b.arrays()[name]), name
            assert array.dtype == b.arrays()[name].dtype, name
    drop = {"made", "seconds"}
    assert {k: v for k, v in a.meta.items() if k not in drop} == {k: v for k, v in b.meta.items() if k not in drop}


def test_the_tool_resumes_bit_identically(made: Path, tmp_path: Path) -> None:
    tool = _tool()
    out = tmp_path / "whole.npz"
    assert tool.main([*OPTIONS, "--out", str(out), "--stop-after", "1"]) == 0
    checkpoint = out.with_name(out.name + tool.SUFFIX)
    assert not out.exists() and len(checkpoint.read_text().splitlines()) == 2
    with checkpoint.open("a") as handle:
        handle.write('{"index": 1, "source": 12, "row": [1, 2')  # a run killed while writing a line
    assert tool.main([*OPTIONS, "--out", str(out)]) == 0
    assert not checkpoint.exists()
    whole, resumed = read_benchmark(made), read_benchmark(out)
    _same(whole, resumed)
    assert len(whole) == 3 and whole.meta["trials"] == 36 and whole.meta["player"] == "heuristic"
    assert whole.meta["command"].startswith("python tools/make_benchmark_db.py sixone --positions 3 ")
    assert whole.held_out.tolist() == [False, True, False]  # every second position, as asked
    # other settings never resume a checkpoint of these
    assert tool.main([*OPTIONS, "--out", str(tmp_path / "b.npz"), "--stop-after", "0"]) == 0
    with pytest.raises(SystemExit):
        tool.main([*OPTIONS[:-1], "3", "--out", str(tmp_path / "b.npz")])


def test_a_second_run_of_the_same_database_stops_at_once(made: Path, tmp_path: Path) -> None:
    fcntl = pytest.importorskip("fcntl", reason="no advisory locks here (Windows): the tool takes none")
    tool = _tool()
    out = tmp_path / "whole.npz"
    lock = out.with_name(out.name + tool.SUFFIX + ".lock")
    with lock.open("a") as held:  # another run, making it now
        fcntl.flock(held.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(SystemExit, match="another run is making this database"):
            tool.main([*OPTIONS, "--out", str(out)])
        assert not out.with_name(out.name + tool.SUFFIX).exists()  # it wrote nothing
    # the lock is the system's, not the file's: a lock file left by a killed run keeps no one out
    assert lock.exists() and tool.main([*OPTIONS, "--out", str(out)]) == 0
    assert not lock.exists()
    _same(read_benchmark(made), read_benchmark(out))


def test_workers_make_the_same_database(made: Path, tmp_path: Path) -> None:
    tool = _tool()
    (tmp_path / "workers").mkdir()
    out = tmp_path / "workers" / "whole.npz"  # the command names the file
    # a run of two workers stopped after one position, then resumed by three: the one run's database
    assert tool.main([*OPTIONS, "--out", str(out), "--stop-after", "1", "--workers", "2"]) == 0
    checkpoint = out.with_name(out.name + tool.SUFFIX)
    assert not out.exists() and len(checkpoint.read_text().splitlines()) == 2
    assert tool.main([*OPTIONS, "--out", str(out), "--workers", "3"]) == 0
    assert not checkpoint.exists()
    _same(read_benchmark(made), read_benchmark(out))
    for bad in ("0", "x"):
        with pytest.raises(SystemExit):
            tool.main([*OPTIONS, "--out", str(tmp_path / "c.npz"), "--workers", bad])


def test_stored_equities_are_the_movers_rollouts(made: Path) -> None:
    database = read_benchmark(made)
    settings = Settings(**{k: database.meta[k] for k in (f.name for f in dataclasses.fields(Settings))})
    for index in range(len(database)):
        position = Position.from_array(database.rows[index])
        roll = (int(database.rolls[index][0]), int(database.rolls[index][1]))
        block = database.candidates(index)
        child = Position.from_array(database.children[block][0])
        assert child.to_array().tolist() in [m.result.to_array().tolist() for m in position.legal_moves(roll)]
        if child.is_over():
            continue
        seed = (settings.seed * 1_000_003 + index) % (1 << 63)
        rolled = nardy_fast.rollout(child, 36, seed=seed, policy=nardy_fast.Greedy("heuristic"), stratify=False,
                                    truncate="bearoff")
        sign = 1 if child.turn == position.turn else -1  # after an extra roll the mover is on roll again
        assert database.equities[block][0] == sign * rolled.equity
        assert database.stderrs[block][0] == rolled.equity_stderr


def test_a_database_of_truncated_rollouts(tmp_path: Path) -> None:
    # --truncate-plies: each candidate's games stop after that many plies, scored by the player's evaluator
    out = tmp_path / "cut.npz"
    assert _tool().main([*OPTIONS[:2], "2", *OPTIONS[3:], "--truncate-plies", "3", "--out", str(out)]) == 0
    database = read_benchmark(out)
    assert database.meta["truncate_plies"] == 3 and database.meta["command"].endswith(" --truncate-plies 3")
    assert " --truncate-plies" not in read_benchmark_command(OPTIONS)
    for index in range(len(database)):
        position = Position.from_array(database.rows[index])
        block = database.candidates(index)
        for child_row, equity in zip(database.children[block], database.equities[block]):
            child = Position.from_array(child_row)
            if child.is_over():
                continue
            seed = (4 * 1_000_003 + index) % (1 << 63)
            rolled = nardy_fast.rollout(child, 36, seed=seed, policy=nardy_fast.Greedy("heuristic"), stratify=False,
                                        truncate="bearoff", truncate_plies=3)
            assert rolled.truncated > 0
            assert equity == (1 if child.turn == position.turn else -1) * rolled.equity


def read_benchmark_command(options: list[str]) -> str:
    """The canonical command of a database made with ``options`` (and ``--out x.npz``)."""
    tool = _tool()
    result: str = tool.command_of(tool.settings_of(tool.parse([*options, "--out", "x.npz"])), Path("x.npz"))
    return result


def _damaged(made: Path, tmp_path: Path, name: str, value: object) -> Path:
    arrays = read_benchmark(made).arrays()
    arrays[name] = value
    path = tmp_path / "damaged.npz"
    write_npz(path, arrays)
    return path


def test_the_reader_refuses_damaged_and_foreign_files(made: Path, tmp_path: Path) -> None:
    database = read_benchmark(made)
    equities = database.equities.copy()
    equities[1] = np.nan
    offsets = database.offsets.copy()
    offsets[1] = offsets[2]
    meta = json.dumps({**database.meta, "format": "something else"})
    for name, value, field in [("equities", equities, "equities"), ("offsets", offsets, "offsets"),
                               ("classes", database.classes + 1, "classes"), ("meta", np.array(meta), "meta.format"),
                               ("stderrs", -database.stderrs, "stderrs"), ("rows", database.rows[:2], "rolls")]:
        with pytest.raises(NardyError, match=f"^{field}: "):
            read_benchmark(_damaged(made, tmp_path, name, value))
    foreign = tmp_path / "foreign.npz"
    np.savez(foreign, weights=np.zeros(3))
    with pytest.raises(NardyError, match=r"^database: not a benchmark database .*no rows"):
        read_benchmark(foreign)
    cut = tmp_path / "cut.npz"
    cut.write_bytes(made.read_bytes()[: made.stat().st_size // 2])  # a copy cut short
    with pytest.raises(NardyError, match=r"^database: not a benchmark database"):
        read_benchmark(cut)
    (tmp_path / "text.npz").write_text("not an archive")
    with pytest.raises(NardyError, match=r"^FILE: not a benchmark database"):
        read_benchmark(tmp_path / "text.npz", "FILE")


def _probabilities(value: float) -> list[float]:
    """Outputs whose equity (2 win - 1 + win_mars + win_koks - lose_mars - lose_koks) is ``value`` in [-3, 3]."""
    if value >= 1:
        return [1.0, min(1.0, value - 1), max(0.0, value - 2), 0.0, 0.0]
    if value <= -1:
        return [0.0, 0.0, 0.0, min(1.0, -value - 1), max(0.0, -value - 2)]
    return [(value + 1) / 2, 0.0, 0.0, 0.0, 0.0]


class Table:
    """An evaluator that values each legal move's result by a given equity for its mover: a candidate's by
    ``values`` (the database's, or others), any other move's by ``otherwise``."""

    def __init__(self, database: BenchmarkDatabase, values: npt.NDArray[np.float64], otherwise: float = -3.0):
        self.values: dict[bytes, float] = {}
        for index in range(len(database)):
            position = Position.from_array(database.rows[index])
            roll = tuple(int(d) for d in database.rolls[index])
            block = database.candidates(index)
            mine = {row.tobytes(): float(v) for row, v in zip(database.children[block], values[block])}
            for move in position.legal_moves(roll if roll[0] else None):
                row = move.result.to_array()
                value = mine.get(row.tobytes(), otherwise)  # the mover's view
                own = move.result.turn == position.turn  # the mover on roll again (an extra roll): its own view
                self.values[row.tobytes()] = value if own else -value

    def evaluate(self, rows: npt.NDArray[np.int8]) -> npt.NDArray[np.float64]:
        return np.array([_probabilities(self.values[row.tobytes()]) for row in rows])


def test_the_databases_own_values_lose_nothing(made: Path) -> None:
    database = read_benchmark(made)
    rates = benchmark_errors(database, Table(database, database.equities))
    assert rates["all"].count == 3 and rates["all"].loss == 0.0
    assert benchmark_errors(made, Table(database, database.equities), held_out=True)["all"].count == 1


def test_a_fixed_pickers_loss_is_the_hand_computed_one(made: Path) -> None:
    database = read_benchmark(made)
    # prefer each position's last candidate: it loses the best's equity minus its own
    last = np.zeros(len(database.equities))
    last[database.offsets[1:] - 1] = 1.0
    losses = [database.equities[database.candidates(i)].max() - database.equities[database.offsets[i + 1] - 1]
              for i in range(len(database))]
    rates = benchmark_errors(database, Table(database, last, otherwise=-1.0))
    assert rates["all"].loss == pytest.approx(1000 * np.mean(losses))
    assert rates["all"].stderr == pytest.approx(1000 * np.std(losses, ddof=1) / np.sqrt(3))
    # prefer a move outside the candidates, where there is one: it loses as much as the worst candidate
    outside = []
    for i in range(len(database)):
        roll = tuple(int(d) for d in database.rolls[i])
        moves = Position.from_array(database.rows[i]).legal_moves(roll)
        block = database.equities[database.candidates(i)]
        assert not any(m.result.is_over() for m in moves)  # else the outcome, not the evaluator, values it
        outside.append(block.max() - (block.min() if len(moves) > len(block) else block.max()))
    rates = benchmark_errors(database, Table(database, -3 * np.ones(len(database.equities)), otherwise=3.0))
    assert rates["all"].loss == pytest.approx(1000 * np.mean(outside))


def _forced() -> tuple[npt.NDArray[np.int8], tuple[int, int]]:
    rows, rolls = corpus.load("long")
    for row, roll in zip(rows, rolls):
        position = Position.from_array(row)
        dice = (int(roll[0]), int(roll[1]))
        if dice[0] and not position.is_over() and len(position.legal_moves(dice)) == 1:
            return row, dice
    raise AssertionError("no forced move in the corpus")


@pytest.mark.parametrize("evaluator", ["heuristic", "net"])
def test_a_forced_move_loses_nothing(evaluator: str) -> None:
    row, roll = _forced()
    child = Position.from_array(row).legal_moves(roll)[0].result.to_array()
    entry = Entry(0, row, roll, False, child[None, :], np.array([0.25]), np.array([0.1]))
    database = assemble([entry], {"variant": "long"})
    rates = benchmark_errors(database, evaluator, plies=1)
    assert rates["all"].count == 1 and rates["all"].loss == 0.0
    assert list(rates) == [CLASSES[classify(row[None, :])[0]], "all"]


def test_both_implementations_make_the_same_entries() -> None:
    rows, rolls = corpus.load("short")
    races = np.flatnonzero(classify(rows) == RACE)[:2]
    settings = Settings("short", 2, 36, 3, 9, player="heuristic", filter_evaluator="heuristic", filter_plies=0)
    made = {}
    for name, module in sorted(implementations().items()):
        entries = []
        for index, source in enumerate(races):
            position = module.Position.from_array(rows[source])
            roll = (int(rolls[source][0]), int(rolls[source][1]))
            entries.append(Entry(int(source), rows[source], roll, False, *roll_out_entry(position, roll, index, settings)))
        made[name] = assemble(entries, {"variant": "short"})
    first, *others = made.values()
    for other in others:
        _same(first, other)


def test_writing_and_reading_give_the_same_database(made: Path, tmp_path: Path) -> None:
    database = read_benchmark(made)
    write_database(tmp_path / "copy.npz", database)
    _same(database, read_benchmark(tmp_path / "copy.npz"))
    with pytest.raises(NardyError, match=r"^held_out: "):
        benchmark_errors(database, held_out="yes")  # type: ignore[arg-type]


def test_the_command_prints_the_functions_figures(made: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    from nardy_fast import cli

    assert cli.main(["errors", str(made), "--evaluator", "heuristic", "--plies", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rates = benchmark_errors(made, "heuristic", 1)
    assert lines[0].startswith("error rate of heuristic at 1-ply") and "sixone nardy, all positions" in lines[0]
    for rate in rates.values():
        assert f"{rate.name:<8}  {rate.count:>9}  {rate.loss:>10.2f}  {rate.stderr:>8.2f}" in lines
    (tmp_path / "junk.npz").write_text("junk")
    assert cli.main(["errors", str(tmp_path / "junk.npz")]) == 2
    assert capsys.readouterr().err.startswith("nardy-fast: error: FILE: not a benchmark database")
    assert cli.main(["errors", str(made), "--evaluator", "nothing-such"]) == 2
    assert "--evaluator: must be one of" in capsys.readouterr().err


def test_an_extra_roll_keeps_the_movers_view() -> None:
    """Six-one's 6-1 earns another roll: the rolled-out position has the mover on roll again, and its rollout's
    equity, already the mover's, keeps its sign (the others' flip)."""
    start = Position.start("sixone")
    settings = Settings("sixone", 1, 36, 5, 2, player="heuristic", filter_evaluator="heuristic", filter_plies=0)
    children, equities, _ = roll_out_entry(start, (6, 1), 0, settings)
    assert len(children) == 5  # docs/rules.md's example: five results
    for row, value in zip(children, equities):
        child = Position.from_array(row)
        assert child.turn == start.turn  # the extra roll
        rolled = nardy_fast.rollout(child, 36, seed=2 * 1_000_003, policy=nardy_fast.Greedy("heuristic"),
                                    stratify=False, truncate="bearoff")
        assert value == rolled.equity
    children, equities, _ = roll_out_entry(start, (6, 2), 0, settings)
    child = Position.from_array(children[0])
    assert child.turn != start.turn
    rolled = nardy_fast.rollout(child, 36, seed=2 * 1_000_003, policy=nardy_fast.Greedy("heuristic"),
                                stratify=False, truncate="bearoff")
    assert equities[0] == -rolled.equity
