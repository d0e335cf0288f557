"""Build nbayes' optional compiled loops (``nbayes._kernels``); everything else is in
pyproject.toml.

The extension is optional: without a working C compiler the build prints a warning and nbayes
runs on its numpy code, with the same results (``nbayes.compiled_kernels()`` tells which).
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
    kernels = Extension("nbayes._kernels", ["src/nbayes/_kernels.pyx"],
                        extra_compile_args=flags,
                        depends=["src/nbayes/_kernels_simd.h", "src/nbayes/_kernels_loops.h"])
    text = Extension("nbayes._text", ["src/nbayes/_text.pyx"], extra_compile_args=flags,
                     depends=["src/nbayes/_text_loops.h"])
    built = cythonize([kernels, text], language_level=3, quiet=True)
    for extension in built:  # set here: cythonize does not carry the flag over
        extension.optional = True
    return built


setup(ext_modules=extensions())
