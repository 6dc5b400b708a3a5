"""The README's Python examples each run on their own, as written, and print what the README says they print:
a ``print(...)`` line's claim is its trailing ``# ...`` comment."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path
from typing import Optional

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.DOTALL)


def claims(block: str) -> list[Optional[str]]:
    """What each ``print`` of ``block`` claims to print (``None``: no claim)."""
    found: list[Optional[str]] = []
    for line in block.splitlines():
        if line.lstrip().startswith("print("):
            inline = re.search(r"\)\s+#\s?(.*)$", line)
            found.append(inline[1].rstrip() if inline else None)
    return found


def test_the_readme_has_examples() -> None:
    assert len(BLOCKS) >= 6


@pytest.mark.parametrize("block", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_readme_example_runs_alone_and_prints_what_it_claims(block: str) -> None:
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exec(compile(block, str(README), "exec"), {})  # the README's own code, in a namespace of its own
    printed = output.getvalue().splitlines()
    expected = claims(block)
    assert len(printed) == len(expected)
    for claim, line in zip(expected, printed):
        assert claim is None or claim == line
