"""The README's Python examples each run on their own, as written: each block is saved as a script and run by a
fresh interpreter (``python block.py``, in an empty temporary folder, as a reader who copies it would), and
prints what the README says it prints: a ``print(...)`` line's claim is its trailing ``# ...`` comment."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from pathlib import Path
from typing import Optional

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.DOTALL)
#: Blocks that start a Dask cluster of worker processes: seconds each, so left out of the quick subset.
SLOW = {i for i, block in enumerate(BLOCKS) if "LocalCluster" in block}
#: What a block's text shows it needs beyond the package: an optional extra's module.
NEEDS = {"from distributed": "distributed", "nardy_fast.env": "pettingzoo", "rgb_array": "cairosvg"}


def missing(block: str) -> Optional[str]:
    """The first module ``block`` needs that cannot be imported here (cairosvg fails with ``OSError`` when
    the Cairo library is absent), else ``None``."""
    for marker, module in NEEDS.items():
        if marker in block:
            try:
                importlib.import_module(module)
            except (ImportError, OSError):
                return module
    return None


def claims(block: str) -> list[Optional[str]]:
    """What each ``print`` of ``block`` claims to print (``None``: no claim)."""
    found: list[Optional[str]] = []
    for line in block.splitlines():
        if line.lstrip().startswith("print("):
            inline = re.search(r"\)\s+#\s?(.*)$", line)
            found.append(inline[1].rstrip() if inline else None)
    return found


def run_alone(block: str, folder: Path) -> subprocess.CompletedProcess[str]:
    """``block`` saved as a script in ``folder`` and run there by a fresh interpreter."""
    script = folder / "block.py"
    script.write_text(block, encoding="utf-8")
    # the folder holds nothing but the script, so the package is the installed one; the environment is the
    # test run's (an implementation it forces applies to the examples too)
    return subprocess.run(
        [sys.executable, str(script)],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_the_readme_has_examples() -> None:
    assert len(BLOCKS) >= 6


def test_claims_are_read_from_indented_prints_too() -> None:
    assert claims("if True:\n    print(1)  # 1\nprint(2)\n") == ["1", None]


@pytest.mark.parametrize(
    "block",
    [pytest.param(b, marks=[pytest.mark.slow] if i in SLOW else [], id=f"block{i}") for i, b in enumerate(BLOCKS)],
)
def test_readme_example_runs_as_a_script_and_prints_what_it_claims(block: str, tmp_path: Path) -> None:
    absent = missing(block)
    if absent is not None:
        pytest.skip(f"{absent} (an optional extra) is not installed")
    done = run_alone(block, tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    printed = done.stdout.splitlines()
    expected = claims(block)
    assert len(printed) == len(expected), (printed, expected)
    for claim, line in zip(expected, printed):
        assert claim is None or claim == line
