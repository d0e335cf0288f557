"""Build nbayes' optional compiled loops (``nbayes._kernels``); everything else is in
pyproject.toml.

The extension is optional: without a C compiler the build prints a warning and nbayes runs
on its numpy code, with the same results (``nbayes.compiled_kernels()`` tells which).
"""

import sys

from setuptools import Extension, setup


def extensions() -> list:
    try:
        from Cython.Build import cythonize
    except ImportError:  # building without the declared build requirements
        return []
    # -O3 vectorises the per-class loops; without trapping math (floating-point exception
    # flags, which nbayes never reads) a compare-and-select vectorises too. MSVC: defaults.
    flags = [] if sys.platform == "win32" else ["-O3", "-fno-trapping-math"]
    kernels = Extension("nbayes._kernels", ["src/nbayes/_kernels.pyx"], optional=True,
                        extra_compile_args=flags,
                        depends=["src/nbayes/_kernels_simd.h", "src/nbayes/_kernels_loops.h"])
    return cythonize([kernels], language_level=3, quiet=True)


setup(ext_modules=extensions())
