"""Run the test suite against the installed ``nardy_fast`` (a wheel), never the source tree.

Usage: ``python tools/test_installed.py [PROJECT] [PYTEST_ARGS...]``

``PROJECT`` (default: this file's repository) provides ``tests/``, ``README.md``, ``docs/`` and ``src_pyx/``;
they are copied into a fresh temporary directory and pytest runs there, so ``import nardy_fast`` can only find
the installed package.
The run fails unless that package is outside ``PROJECT`` and its compiled core is in use
(``nardy_fast.IMPLEMENTATION == "cython"``): an installed wheel never falls back to pure Python. Pytest
arguments follow (paths relative to the copy, e.g. ``tests/test_api.py``); without a path, all of ``tests``.
cibuildwheel's ``test-command`` and ``tools/check_dist.sh`` call this script.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# Loaded into pytest (-p): checks again, inside the test process, which nardy_fast the tests import.
PLUGIN = '''\
"""Checks, in the test process itself, that the tests use the installed nardy_fast and its core."""

import os

import nardy_fast


def pytest_report_header(config):
    return f"nardy_fast {nardy_fast.__version__}: {nardy_fast.__file__} (implementation {nardy_fast.IMPLEMENTATION})"


def pytest_sessionstart(session):
    expected = os.environ["NARDY_FAST_EXPECTED_FILE"]
    if os.path.realpath(nardy_fast.__file__) != expected or nardy_fast.IMPLEMENTATION != "cython":
        raise SystemExit(f"tests import {nardy_fast.__file__} ({nardy_fast.IMPLEMENTATION}), not {expected}")
'''


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def check_installed(project: Path) -> Path:
    """The installed ``nardy_fast/__init__.py``; exits unless it is outside ``project`` with its core in use.

    The import runs without ``NARDY_FAST_IMPLEMENTATION``: the default choice must be the core.
    """
    requested = os.environ.pop("NARDY_FAST_IMPLEMENTATION", None)
    try:
        import nardy_fast
    finally:
        if requested is not None:
            os.environ["NARDY_FAST_IMPLEMENTATION"] = requested

    package = Path(nardy_fast.__file__).resolve()
    print(f"nardy_fast {nardy_fast.__version__} from {package}")
    print(f"implementation: {nardy_fast.IMPLEMENTATION}")
    if _inside(package, project):
        sys.exit(f"FAIL: nardy_fast was imported from the source tree {project}, not from the installed wheel")
    if nardy_fast.IMPLEMENTATION != "cython":
        sys.exit('FAIL: nardy_fast.IMPLEMENTATION != "cython": the compiled core is not in use')
    from nardy_fast import _core

    core = Path(_core.__file__ or "").resolve()
    print(f"core: {core}")
    if core.parent != package.parent:
        sys.exit(f"FAIL: the core {core} is not inside the installed package {package.parent}")
    return package


def main(argv: list[str]) -> int:
    """Check the installed package, then run pytest on a copy of the tests; pytest's exit status."""
    here = Path(__file__).resolve().parent.parent
    project = Path(argv[0]).resolve() if argv and not argv[0].startswith("-") else here
    pytest_args = argv[1:] if argv and not argv[0].startswith("-") else argv
    package = check_installed(project)
    with tempfile.TemporaryDirectory(prefix="nardy-fast-tests-") as scratch:
        root = Path(scratch)
        shutil.copytree(
            project / "tests",
            root / "tests",
            ignore=shutil.ignore_patterns("__pycache__", ".hypothesis", ".mypy_cache", ".pytest_cache"),
        )
        shutil.copy2(project / "README.md", root / "README.md")  # tests/test_readme.py runs its examples
        shutil.copytree(project / "docs", root / "docs")  # and tests/test_docs.py those of docs/
        # tests/test_structure.py reads the core's units (their order, seams and headers)
        shutil.copytree(project / "src_pyx", root / "src_pyx", ignore=shutil.ignore_patterns("*.c", "*.so", "*.html"))
        (root / "pytest.ini").write_text("[pytest]\naddopts = -ra\n", encoding="utf-8")
        (root / "installed_check.py").write_text(PLUGIN, encoding="utf-8")
        if not any(arg.startswith("tests") for arg in pytest_args):
            pytest_args = [*pytest_args, "tests"]
        env = dict(os.environ, NARDY_FAST_EXPECTED_FILE=str(package))
        env.pop("PYTHONPATH", None)
        command = [sys.executable, "-m", "pytest", "-p", "installed_check", "-p", "no:cacheprovider", *pytest_args]
        print("+", " ".join(command), f"(in {root})", flush=True)
        return subprocess.call(command, cwd=root, env=env)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
