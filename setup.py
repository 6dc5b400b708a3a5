"""Build script: the pure-Python package plus the compiled core ``nardy_fast._core`` from ``src_pyx/``.

``NARDY_FAST_DEBUG=1`` at build time compiles the core with Cython's bounds, wraparound and initialisation
checks on and without optimisation; ``NARDY_FAST_DEBUG=asan`` adds AddressSanitizer and UBSan (run Python
with ``LD_PRELOAD=$(gcc -print-file-name=libasan.so) ASAN_OPTIONS=detect_leaks=0``).
"""

from __future__ import annotations

import os

from setuptools import setup

import numpy
from Cython.Build import cythonize
from setuptools import Extension

debug_mode = os.environ.get("NARDY_FAST_DEBUG", "")
debug = debug_mode in ("1", "asan")
sanitize = ["-fsanitize=address,undefined", "-fno-omit-frame-pointer"] if debug_mode == "asan" else []
ext_modules = cythonize(
    [
        Extension(
            "nardy_fast._core",
            ["src_pyx/_core.pyx"],
            include_dirs=[numpy.get_include(), "src_pyx"],
            define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
            extra_compile_args=(["-O0", "-g", *sanitize] if debug else ["-O3"]),
            extra_link_args=sanitize,
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

setup(ext_modules=ext_modules)
