"""The Python examples of ``docs/rules.md`` run as written and print what the document says they print: a
``print(...)`` line's claim is its trailing ``# ...`` comment, or the ``# ...`` line right below it."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path
from typing import Optional

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"
BLOCKS = [
    (path, block)
    for path in sorted(DOCS.glob("*.md"))
    for block in re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), flags=re.DOTALL)
]


def claims(block: str) -> list[Optional[str]]:
    """What each ``print`` of ``block`` claims to print (``None``: no claim)."""
    lines = block.splitlines()
    found: list[Optional[str]] = []
    for index, line in enumerate(lines):
        if line.lstrip().startswith("print("):
            inline = re.search(r"\)\s+#\s?(.*)$", line)
            below = lines[index + 1] if index + 1 < len(lines) else ""
            found.append(inline[1].rstrip() if inline else below[2:].rstrip() if below.startswith("# ") else None)
    return found


def test_the_docs_have_examples() -> None:
    assert len(BLOCKS) >= 10


@pytest.mark.parametrize(("path", "block"), BLOCKS, ids=[f"{p.name}:{i}" for i, (p, _) in enumerate(BLOCKS)])
def test_docs_example_prints_what_it_claims(path: Path, block: str) -> None:
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exec(compile(block, str(path), "exec"), {})  # the document's own code
    printed = output.getvalue().splitlines()
    expected = claims(block)
    assert len(printed) == len(expected)
    for claim, line in zip(expected, printed):
        assert claim is None or claim == line
