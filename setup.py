"""Build script: the pure-Python package plus the compiled core ``nardy_fast._core`` from ``src_pyx/``.

The core is not optional: a failed compile fails the build (``pip install``, ``python -m build``,
cibuildwheel), and a build that ends without the core's binary is an error too. There is no silent fall-back
to the pure-Python reference in a wheel or an install from source.

``NARDY_FAST_DEBUG=1`` at build time compiles the core with Cython's bounds, wraparound and initialisation
checks on and without optimisation; ``NARDY_FAST_DEBUG=asan`` adds AddressSanitizer and UBSan (GCC or Clang;
run Python with ``LD_PRELOAD=$(gcc -print-file-name=libasan.so) ASAN_OPTIONS=detect_leaks=0``).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

debug_mode = os.environ.get("NARDY_FAST_DEBUG", "")
debug = debug_mode in ("1", "asan")

def compile_args(compiler_type: str, build_temp: str) -> tuple[list[str], list[str]]:
    """The compile and link flags of the core for one compiler family and the current debug mode."""
    if compiler_type == "msvc":
        # src_pyx/nardy_compat.h spells GCC's bit builtins for MSVC
        if debug_mode == "asan":
            raise SystemExit("NARDY_FAST_DEBUG=asan needs GCC or Clang")
        return [*(["/Od", "/Zi"] if debug else ["/O2"])], (["/DEBUG"] if debug else [])
    sanitize = ["-fsanitize=address,undefined", "-fno-omit-frame-pointer"] if debug_mode == "asan" else []
    # no fused multiply-adds (Clang fuses by default where the CPU has them, arm64 say): the evaluators and the
    # search must give the reference's floats bit for bit
    exact = ["-ffp-contract=off"]
    return ([*exact, "-O0", "-g", *sanitize] if debug else [*exact, "-O3"]), sanitize


class BuildCore(build_ext):
    """``build_ext`` with per-compiler flags, that fails unless the core's binary was built."""

    def build_extensions(self) -> None:
        compile_flags, link_flags = compile_args(self.compiler.compiler_type, self.build_temp)
        for extension in self.extensions:
            extension.extra_compile_args = [*extension.extra_compile_args, *compile_flags]
            extension.extra_link_args = [*extension.extra_link_args, *link_flags]
        super().build_extensions()
        for extension in self.extensions:
            built = Path(self.get_ext_fullpath(extension.name))
            if not built.is_file():
                raise SystemExit(f"nardy-fast: the compiled core {extension.name} was not built ({built})")


def include_evaluators(src: Path = Path("src_pyx")) -> None:
    """Write ``src_pyx/evaluators.pxi``, an include of each built-in evaluator's C twin in ``src_pyx/evaluators/``
    in the order of their names: a new twin is a file there, with no line to add to the core. The file is
    rewritten only when it changes, so that an unchanged core is not compiled again."""
    lines = [
        "# Written by setup.py (include_evaluators), not by hand: the built-in evaluators' C twins, one unit each in",
        "# src_pyx/evaluators/, each registering itself under its kind (twins.pxi).",
        *(f'include "evaluators/{unit.name}"' for unit in sorted((src / "evaluators").glob("*.pxi"))),
    ]
    text = "\n".join(lines) + "\n"
    target = src / "evaluators.pxi"
    if not target.is_file() or target.read_text() != text:
        target.write_text(text)


include_evaluators()

ext_modules = cythonize(
    [
        Extension(
            "nardy_fast._core",
            ["src_pyx/_core.pyx"],
            include_dirs=[numpy.get_include(), "src_pyx"],
            define_macros=[
                ("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION"),
                # Built against NumPy 2 headers, the core runs on every NumPy the package depends on.
                ("NPY_TARGET_VERSION", "NPY_1_23_API_VERSION"),
                # debug builds check the core's invariants (src_pyx/nardy_compat.h)
                *([("NARDY_FAST_DEBUG", "1")] if debug else []),
            ],
            optional=False,
        )
    ],
    include_path=["src_pyx"],
    compiler_directives={
        "language_level": 3,
        "boundscheck": debug,
        "wraparound": debug,
        "initializedcheck": debug,
    },
)

setup(ext_modules=ext_modules, cmdclass={"build_ext": BuildCore})
