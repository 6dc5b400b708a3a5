"""The computed match equity table of every variant (``nardy_fast/data/met/<variant>.txt``, made by
``tools/make_met.py``): each file is what ``mec_table`` computes from the rates its header names, the rates
are its game counts', and the table is square, complementary and monotone; the koks term of ``mec_table``
by hand; the tool on a few games against the games themselves; ``nardy-fast met``."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

import nardy_fast
from nardy_fast import VARIANTS, Greedy, NardyError
from nardy_fast.cli import main
from nardy_fast.cube import TABLES, match_equity_table, mec_table
from nardy_fast.cube.met import parse_table, table_header
from nardy_fast.variants import SPECS

TOOL = Path(__file__).resolve().parent.parent / "tools" / "make_met.py"


def header_figures(lines: list[str]) -> dict[str, float]:
    """The counts and rates a table file's header names."""
    text = "\n".join(lines)
    figures: dict[str, float] = {}
    for key, pattern in (
        ("games", r"games: (\d+) \((\d+) decided, (\d+) given up\)"),
        ("single", r"wins: single (\d+), mars (\d+), koks (\d+)"),
        ("rates", r"rates: mars ([0-9.]+) koks ([0-9.]+)"),
        ("errors", r"standard errors: mars ([0-9.]+) koks ([0-9.]+)"),
    ):
        found = re.search(pattern, text)
        assert found is not None, f"no {key} in the header"
        names = {"games": ("games", "decided", "unfinished"), "single": ("single", "mars", "koks"),
                 "rates": ("mars_rate", "koks_rate"), "errors": ("mars_se", "koks_se")}[key]
        figures.update(zip(names, map(float, found.groups())))
    return figures


@pytest.mark.parametrize("variant", VARIANTS)
def test_shipped_table_is_mec_of_its_rates(variant: str) -> None:
    table = match_equity_table(variant)
    figures = header_figures(table_header(variant))
    expected = mec_table(figures["mars_rate"], koks_rate=figures["koks_rate"], size=table.size)
    # written to six decimals
    assert np.abs(table.pre - expected.pre).max() <= 5e-7 + 1e-12
    assert np.abs(table.post - expected.post).max() <= 5e-7 + 1e-12
    # the rates are the counts', measured to the standard error the issue asks for
    decided = figures["single"] + figures["mars"] + figures["koks"]
    assert decided == figures["decided"] and figures["games"] == decided + figures["unfinished"]
    assert figures["mars_rate"] == round(figures["mars"] / decided, 6)
    assert figures["koks_rate"] == round(figures["koks"] / decided, 6)
    assert figures["mars_se"] <= 0.0031
    assert (figures["koks"] > 0) == SPECS[variant].koks


@pytest.mark.parametrize("variant", VARIANTS)
def test_shipped_table_is_square_and_monotone(variant: str) -> None:
    table = match_equity_table(variant)
    assert table.name == variant and table.pre.shape == (25, 25) and table.post.shape == (25,)
    assert np.abs(table.pre + table.pre.T - 1.0).max() <= 1e-6
    assert (np.diff(table.pre, axis=0) <= 1e-6).all() and (np.diff(table.pre, axis=1) >= -1e-6).all()
    assert (table.post[2:] <= table.post[:-2] + 1e-6).all()
    # every entry of a longer match is strictly less sure than the shorter one's, where the table is not yet 1
    assert (np.diff(table.pre[:, 0]) < 0).all()
    # the free drop at 2 away after Crawford, GNU Backgammon's term
    assert table.post_crawford(2) == pytest.approx(0.5 - 0.015, abs=1e-6)


def test_names_and_unknown_name() -> None:
    assert set(TABLES) == {"kazaross-xg2", *VARIANTS}
    assert nardy_fast.match_equity_table("short") is match_equity_table("short")
    # short nardy's computed table is its own, not the published backgammon one
    assert not np.allclose(match_equity_table("short").pre, match_equity_table("kazaross-xg2").pre, atol=1e-3)
    with pytest.raises(NardyError, match="name") as error:
        match_equity_table("backgammon")
    for name in TABLES:
        assert repr(name) in str(error.value)


def test_koks_term_by_hand() -> None:
    single, mars, koks = 0.7, 0.2, 0.1
    table = mec_table(mars, koks_rate=koks)
    assert np.array_equal(mec_table(0.26, koks_rate=0.0).pre, mec_table(0.26).pre)
    # post-Crawford 3 away: the trailer doubles at once; a single leaves 1-away all, a mars or a koks wins
    post3 = 0.5 * (single * 0.5 + mars + koks)
    assert table.post_crawford(3) == pytest.approx(post3)
    # 5 away: a single leaves 3 away (post-Crawford), a mars 1 away, a koks wins
    assert table.post_crawford(5) == pytest.approx(0.5 * (single * post3 + mars * 0.5 + koks))
    # the Crawford game at 1-away 3-away: the leader wins now; loses a single (then 1-away 2-away post-Crawford,
    # the trailer's free-drop value), a mars (1-away all), or a koks (the match)
    leader_after = 1.0 - (0.5 - 0.015)
    assert table.mwc(1, 3, crawford=True) == pytest.approx(0.5 + 0.5 * (single * leader_after + mars * 0.5))
    with pytest.raises(NardyError, match="koks_rate"):
        mec_table(0.5, koks_rate=0.6)


def load_tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_met", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(not TOOL.exists(), reason="tools/ is not beside the tests (an installed package's suite)")
def test_tool_on_a_few_games(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--variant", "short", "--seed", "5", "--pilot", "30", "--chunk", "30", "--max-games", "60",
            "--threads", "1", "--checkpoint", str(tmp_path / "ck.json"), "--out", str(tmp_path / "met")]
    tool = load_tool()
    assert tool.main(argv) == 0
    err = capsys.readouterr().err
    assert err.splitlines()[0] == "python tools/make_met.py " + " ".join(argv)
    text = (tmp_path / "met" / "short.txt").read_text(encoding="utf-8")
    table = parse_table("short", text)
    lines = [line[1:].strip() for line in text.splitlines() if line.startswith("#")]
    assert f"command: python tools/make_met.py {' '.join(argv)}" in lines
    figures = header_figures(lines)
    # the counts are those of the same games played here: 60 games of Greedy("net", 0) on seed 5's dice
    points = nardy_fast.playout("short", 60, seed=5, policy=Greedy("net", 0))["points"]
    assert figures["games"] == 60
    for name, value in (("single", 1), ("mars", 2), ("koks", 3), ("unfinished", 0)):
        assert figures[name] == int((points == value).sum())
    expected = mec_table(figures["mars_rate"], koks_rate=figures["koks_rate"])
    assert np.abs(table.pre - expected.pre).max() <= 5e-7 + 1e-12
    # run again: the checkpoint holds every game, so nothing is replayed and the file is the same
    checkpoint = (tmp_path / "ck.json").read_text(encoding="utf-8")
    assert tool.main(argv) == 0
    assert "short: " not in capsys.readouterr().err
    assert (tmp_path / "ck.json").read_text(encoding="utf-8") == checkpoint
    assert (tmp_path / "met" / "short.txt").read_text(encoding="utf-8") == text


def test_cli_prints_known_entries(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["met", "kazaross-xg2", "--size", "6"]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines() if re.match(r"\s+\d+ ", line)}
    # Kazaross-XG2: 5-away against 3-away is 35.205%; 1-away against 2-away (the Crawford game) 67.736%
    assert rows["5"][2] == "35.2" and rows["1"][1] == "67.7" and len(rows["6"]) == 6
    assert "Kazaross-XG2 match equity table" in out
    assert main(["met", "long", "--size", "3"]) == 0
    out = capsys.readouterr().out
    # post-Crawford, the last line: 1 away 50%, 2 away the free drop's 48.5%
    assert out.splitlines()[-1].split()[:2] == ["50.0", "48.5"]
    assert "rates: mars" in out and "command: python tools/make_met.py" in out


def test_cli_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["met", "backgammon"]) == 2
    err = capsys.readouterr().err
    assert "TABLE: must be one of kazaross-xg2, long, sixone, short, gulbar, crazy" in err
    assert main(["met", "long", "--size", "26"]) == 2
    assert "--size: must be at most 25" in capsys.readouterr().err
    assert main(["met", "long", "--size", "0"]) == 2


def test_cli_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["met", "--help"])
    assert exit_.value.code == 0
    text = capsys.readouterr().out
    assert text.startswith("usage: nardy-fast met ") and "--size N" in text
    assert "`" not in text and "print" in text.split("options:")[0]
