"""Build script: the package is pure Python plus the Cython sources found in ``src_pyx/`` (if any).

``NARDY_FAST_DEBUG=1`` at build time compiles the core with bounds and wraparound checks on.
"""

from __future__ import annotations

import os
from pathlib import Path

from setuptools import setup

ext_modules = []
sources = sorted(Path("src_pyx").glob("*.pyx"))
if sources:
    import numpy
    from Cython.Build import cythonize

    debug = os.environ.get("NARDY_FAST_DEBUG") == "1"
    ext_modules = cythonize(
        [str(s) for s in sources],
        compiler_directives={
            "language_level": 3,
            "boundscheck": debug,
            "wraparound": debug,
            "initializedcheck": debug,
            "cdivision": not debug,
        },
    )
    for ext in ext_modules:
        ext.include_dirs.append(numpy.get_include())
        ext.name = "nardy_fast." + ext.name.rsplit(".", 1)[-1]

setup(ext_modules=ext_modules)
