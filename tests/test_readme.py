"""The README's Python examples run, and print what the README says they print."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_examples_run_and_print_what_they_claim() -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.DOTALL)
    assert len(blocks) >= 2
    namespace: dict[str, object] = {}
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        for block in blocks:
            exec(compile(block, str(README), "exec"), namespace)  # the README's own code
    printed = output.getvalue().splitlines()
    claimed = [
        line.split("# ", 1)[1].strip()
        for line in blocks[0].splitlines()
        if line.startswith("print(") and re.search(r"#\s*[\['P]", line)
    ]
    assert printed[: len(claimed)] == claimed
