"""Reports, after a benchmark run, each group's medians as speed ratios to the reference (or the group's slowest
member), to GNU Backgammon where it was measured, and of two threads or processes to one thread. Every member
of a group does the same work, so a ratio of medians is a ratio of speeds."""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Optional

import pytest

from nardy_fast import VARIANTS


def _api(bench: Any) -> str:
    """What a member measures: its parameter (``core batch_children`` of ``test_children[crazy-core
    batch_children]``, the variant left out unless it is all there is), not the test's name, which may name the other side (``..._against_gnubg``)."""
    name: str = bench.name
    if "[" not in name:
        return name
    parameters = name[name.index("[") + 1 : -1]
    return "-".join(part for part in parameters.split("-") if part not in VARIANTS) or parameters


def _find(members: list[Any], test: Any) -> Optional[Any]:
    return next((b for b in members if test(_api(b))), None)


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
        base = (
            _find(members, lambda api: api.partition("-")[0] == "greedy playout")  # test_bench_duel.py
            or _find(members, lambda api: api == "reference legal_moves")
            or _find(members, lambda api: api.startswith("reference"))
            or max(members, key=lambda b: b.stats.median)
        )
        gnubg = _find(members, lambda api: "gnubg" in api)
        one_thread = _find(members, lambda api: api in ("core batch_children", "1 thread"))
        for bench in sorted(members, key=lambda b: b.stats.median):
            line = f"{group:38} {bench.name:58} {base.stats.median / bench.stats.median:8.1f}x {_api(base)}"
            if gnubg is not None and bench is not gnubg:
                line += f"   {gnubg.stats.median / bench.stats.median:6.2f}x gnubg"
            if one_thread is not None and ("threads" in _api(bench) or "processes" in _api(bench)):
                line += f"   {one_thread.stats.median / bench.stats.median:6.2f}x 1 thread"
            terminalreporter.write_line(line)
