"""Reports, after a benchmark run, each group's medians as speed ratios to the reference's ``legal_moves`` (or
the group's slowest member) and to GNU Backgammon where it was measured."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pytest


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    session = getattr(config, "_benchmarksession", None)
    if session is None or not session.benchmarks:
        return
    groups: dict[str, list[Any]] = defaultdict(list)
    for bench in session.benchmarks:
        if bench.stats is not None:
            groups[bench.group or ""].append(bench)
    terminalreporter.section("speed ratios from this run's medians")
    for group, members in sorted(groups.items()):
        base = next((b for b in members if "reference legal_moves" in b.name or "reference" in b.name), None)
        base = base or max(members, key=lambda b: b.stats.median)
        gnubg = next((b for b in members if "gnubg" in b.name), None)
        one_thread = next((b for b in members if b.name.endswith("[core batch_children]")), None)
        for bench in sorted(members, key=lambda b: b.stats.median):
            line = f"{group:22} {bench.name:48} {base.stats.median / bench.stats.median:8.1f}x {base.name}"
            if gnubg is not None and bench is not gnubg:
                line += f"   {gnubg.stats.median / bench.stats.median:6.2f}x gnubg"
            if one_thread is not None and ("threads" in bench.name or "processes" in bench.name):
                line += f"   {one_thread.stats.median / bench.stats.median:6.2f}x 1 thread"
            terminalreporter.write_line(line)
