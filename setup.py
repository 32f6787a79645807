"""The compiled line-solving core (formulations/lines/_core.c): plain C through Python's C API,
built by ``pip install -e .`` with the machine's C compiler (see docs/line_core.md)."""
import platform

from setuptools import Extension, setup

flags = ["-O3"]
if platform.machine().lower() in ("x86_64", "amd64"):
    flags.append("-mpopcnt")  # every x86-64 CPU since 2008; popcount is the inner loop's count

setup(ext_modules=[Extension("formulations.lines._core", ["formulations/lines/_core.c"],
                             extra_compile_args=flags),
                   # the deduction trace's placement counts (formulations/lines/explain.py)
                   Extension("formulations.lines._count", ["formulations/lines/_count.c"],
                             extra_compile_args=["-O3"]),
                   # belief-propagation phases for the CDCL fallback (formulations/lines/phases.py)
                   Extension("formulations.lines._bp", ["formulations/lines/_bp.c"],
                             extra_compile_args=["-O3", "-ffp-contract=off"])])
