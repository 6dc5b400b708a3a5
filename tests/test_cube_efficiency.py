"""The cube efficiencies of the variants (docs/rules.md, The doubling cube): the long family's figures are the
fits of the rolled-out positions shipped in docs/cube/ (``tools/cube_efficiency_fit.py``), and the same
measurement of short nardy finds GNU Backgammon's contact figure, which was tuned for backgammon by other
means."""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path
from types import ModuleType

import pytest

from nardy_fast import VARIANTS
from nardy_fast.cube import cube_efficiency
from nardy_fast.cube.janowski import CONTACT_X, EFFICIENCIES

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "docs" / "cube"
TOOL = ROOT / "tools" / "cube_efficiency_fit.py"
#: the rolled-out positions and the tool that fits them live in the repository, not in an installed package
beside = pytest.mark.skipif(not (TOOL.exists() and DATA.is_dir()),
                            reason="tools/ and docs/ are not beside the tests (an installed package's suite)")


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("cube_efficiency_fit", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_variant_has_its_efficiencies() -> None:
    assert tuple(EFFICIENCIES) == VARIANTS
    assert all(EFFICIENCIES[name].measured for name in VARIANTS)


def shipped_figures(variant: str) -> dict[str, float]:
    return {
        "contact": cube_efficiency("contact", 0, 0, variant),
        "race": cube_efficiency("race", 80, 0, variant),
        "bearoff": cube_efficiency("bearoff", 0, 0, variant),
    }


@beside
@pytest.mark.parametrize("variant", [name for name in VARIANTS if name != "short" and EFFICIENCIES[name].measured])
def test_the_long_familys_figures_are_the_fits_of_the_shipped_rollouts(variant: str) -> None:
    tool = _tool()
    records = tool.read_records([DATA / f"{variant}.jsonl"])
    found = tool.figures(variant, records)
    shipped = shipped_figures(variant)
    # the figures the players decided with: GNU Backgammon's (the first round), or crazy gulbar's own
    deciding = {json.dumps(record.get("deciding")) for record in records}
    assert deciding == ({"[0.78, 0.87, 0.96]"} if variant == "crazy" else {"null"})
    for name, (rolled, window, x, error) in found.items():
        if variant == "crazy" and name == "bearoff":
            continue  # the fixed point of two rounds (below)
        assert window >= 30 and error < 0.07, (name, rolled, window, error)
        assert abs(shipped[name] - x) <= 0.005 + 1e-9, (name, shipped[name], x)
        # one figure at every depth, and a race's whatever its pips
        assert cube_efficiency(name, 40, 2, variant) == shipped[name]


@beside
def test_the_measurement_finds_gnu_backgammons_contact_figure_in_short_nardy() -> None:
    tool = _tool()
    _, window, x, error = tool.figures("short", tool.read_records([DATA / "short.jsonl"]))["contact"]
    assert window >= 300
    assert abs(x - CONTACT_X[0]) < 2 * error and error < 0.05
    assert not math.isnan(x)


@beside
def test_crazy_gulbars_bearoff_figure_is_the_fixed_point_of_its_rollouts_and_the_exact_tables() -> None:
    """A bear-off's measured x depends on the figure the players decide with: crazy gulbar's shipped one is
    where the fit crosses it, between two rounds on the same positions and dice, and agrees with the fit of
    the exact two-sided bear-offs (no rollouts, no players)."""
    tool = _tool()
    shipped = shipped_figures("crazy")["bearoff"]
    fits = []
    for name in ("crazy.jsonl", "crazy-bearoff-0.98.jsonl"):
        records = tool.read_records([DATA / name])
        (deciding,) = {record["deciding"][2] for record in records}
        _, window, x, error = tool.figures("crazy", records)["bearoff"]
        assert window >= 200 and error < 0.05, (name, window, error)
        fits.append((deciding, x, error))
    (low, above, low_error), (high, below, high_error) = fits
    assert low < shipped < high
    assert above > shipped + 2 * low_error and below < shipped - 2 * high_error
    pairs, exact = tool.exact_bearoff_fit("crazy")
    assert pairs > 100_000 and abs(exact - shipped) < 0.015, exact
