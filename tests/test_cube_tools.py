"""The tools that measured the cube's figures run (small sizes): ``tools/met_check.py`` (a match equity table
against cubeful match rollouts) and ``tools/cube_efficiency_fit.py`` (cube efficiencies from cubeful and
cubeless rollouts on the same dice)."""

from __future__ import annotations

import importlib.util
import json
import math
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import nardy_fast
from nardy_fast import Position, layout
from nardy_fast.corpus import load

ROOT = Path(__file__).resolve().parent.parent
pytest.importorskip("nardy_fast.core", reason="the tools' rollouts and matches are slow in the reference")
if not (ROOT / "tools" / "met_check.py").exists():
    pytest.skip("tools/ is not beside the tests (an installed package's suite)", allow_module_level=True)


def _tool(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_match_rolled_out_from_the_score_is_won_by_one_side() -> None:
    tool = _tool("met_check")
    share, error = tool.rolled_out("short", 1, 2, 12, seed=3, length=3)
    assert 0 <= share <= 1 and 0 < error < 0.2
    # 12 matches: a share is a whole number of twelfths
    assert abs(share * 12 - round(share * 12)) < 1e-9


def test_a_position_measured_for_its_efficiency(tmp_path: Path) -> None:
    tool = _tool("cube_efficiency_fit")
    rows, _ = load("long")
    index = next(i for i in range(len(rows)) if rows[i, layout.NPENDING] == 0 and not layout.is_over(rows[i : i + 1])[0])
    record = tool.measure(rows[index], 36, 5)
    rolled = nardy_fast.rollout(Position.from_array(rows[index]), 36, seed=5, policy="random", stratify=False)
    outputs = tool.outputs_of(rolled)
    # GNU Backgammon's order for the side on roll: won, won a mars or more, ..., lost a koks
    assert len(outputs) == 5 and outputs[0] == pytest.approx(sum(
        count for name, count in rolled.probabilities.items() if name.startswith(rolled.turn)))
    assert all(math.isfinite(record[key]) for key in ("dead", "live", "cubeful", "win", "W", "L"))
    assert record["W"] >= 1 and record["L"] >= 1 and abs(record["dead"]) <= 2
    out = tmp_path / "records.jsonl"
    done = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "cube_efficiency_fit.py"), "sixone", "--positions", "1", "--trials", "36",
         "--out", str(out)], capture_output=True, text=True, timeout=600, check=True,
    )
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [line["class"] for line in lines] == ["contact", "race"]
    assert "sixone contact: 1 positions rolled out" in done.stdout
