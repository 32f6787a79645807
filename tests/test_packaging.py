"""The core stays light: solver packages are imported only when a backend runs."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from helpers import ROOT
HEAVY = ("ortools", "dimod", "dwave", "pyqbpp", "matplotlib", "distributed")


def test_importing_the_package_and_registry_loads_no_solver():
    code = ("import sys, formulations, formulations.solve, formulations.compare, "
            "formulations.testing.conformance, formulations.show.plots\n"
            "from formulations import backends\n"
            "backends.all_backends(); backends.get_backend('ladder:cell')\n"
            f"print([m for m in sys.modules if m.split('.')[0] in {HEAVY!r}])")
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "[]"


def test_no_module_is_named_after_a_package_it_wraps():
    names = {f.stem for f in (ROOT / "formulations").rglob("*.py")}
    names |= {f.name for f in (ROOT / "formulations").rglob("*") if f.is_dir()}
    assert len(names) > 30  # the whole tree was seen
    assert not names & {"ortools", "dimod", "dwave", "pyqbpp", "qbpp", "matplotlib", "distributed",
                        "openjij", "dask", "numpy", "pandas"}


def test_the_layers_import_only_downwards():
    # The pipeline's layers: the puzzle and results at the bottom; io, model and lines above;
    # backends, the solving pipeline, the harness and show above those; the command lines on top.
    # A module may import its own layer or a lower one, never a higher one (no import circles).
    import ast

    layer = {"puzzle": 0, "results": 0, "options": 0, "runtime": 0, "analysis": 0,
             "io": 1, "model": 1, "lines": 1, "backends": 2, "solving": 3, "testing": 4,
             "harness": 4, "show": 4, "solve": 5,
             "compare": 5, "serve": 5, "generate": 5, "__init__": 6}

    def place(path: Path) -> str:
        return path.relative_to(ROOT).with_suffix("").parts[1]

    for path in (ROOT / "formulations").rglob("*.py"):
        here = place(path)
        pkg = path.relative_to(ROOT).with_suffix("").parts[:-1]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    module = node.module or node.names[0].name  # "from . import options"
                    base = pkg[:len(pkg) - node.level + 1] + tuple(module.split("."))
                else:
                    base = tuple((node.module or "").split("."))
            elif isinstance(node, ast.Import):
                base = tuple(node.names[0].name.split("."))
            else:
                continue
            base = tuple(b for b in base if b)
            if not base or base[0] != "formulations":
                continue
            there = base[1] if len(base) > 1 else "__init__"
            if here == there or (path.name == "__init__.py" and path.parent.name == "formulations"):
                continue
            assert layer[there] <= layer[here], f"{path.relative_to(ROOT)} imports {'.'.join(base)}"


def test_the_package_top_holds_few_loose_modules():
    # Modules are grouped by what they are for (runtime, analysis, io, model, lines, backends,
    # harness, show, serve, testing); the top keeps the pipeline's entry points and its values.
    loose = sorted(p.stem for p in (ROOT / "formulations").glob("*.py")
                   if p.stem not in ("__init__", "__main__"))
    assert "solving" in loose  # the folder was read
    assert len(loose) <= 8, loose


def test_each_backends_install_hint_names_an_extra_that_installs_what_it_imports():
    # every module a backend requires (Backend.requires) is a package of the extra its hint
    # names in pyproject.toml, so that `pip install -e ".[EXTRA]"` makes it available
    import re
    import tomllib

    from formulations.backends import get_backend, names
    from formulations.backends.base import EXTRAS

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]

    def pip_names(extra: str) -> set[str]:
        return {re.split(r"[<>=!~ ;\[]", spec, maxsplit=1)[0].lower() for spec in extras[extra]}

    for name in names():
        b = get_backend(name)
        if not b.requires:
            continue
        extra = re.search(r'pip install -e "\.\[(\w+)\]"', b.install_hint)
        assert extra, (name, b.install_hint)
        for module in b.requires:
            key = module
            while key and key not in EXTRAS:
                key = key.rpartition(".")[0]
            assert key, f"{name} requires {module}, which no extra is known to install"
            pip = re.split(r"[<>=]", EXTRAS[key][1])[0].lower()
            assert pip in pip_names(extra.group(1)), (name, module, extra.group(1))


def test_the_registry_and_the_help_import_without_any_solver_package(tmp_path):
    # a fresh `pip install -e .` has numpy only: --list-backends and --help must work there;
    # shadow every optional package with a module that fails to import
    blocked = ["scipy", "dimod", "dwave", "ortools", "openjij", "hybrid", "pyqbpp", "pysat",
               "highspy", "threadpoolctl"]
    for mod in blocked:
        (tmp_path / f"{mod}.py").write_text("raise ImportError('blocked for the test')\n")
    env = {"PYTHONPATH": f"{tmp_path}:{ROOT}", "PATH": "/usr/bin:/bin"}
    for args in (["--list-backends"], ["--list-backends", "--json"], ["--help"]):
        p = subprocess.run([sys.executable, "-m", "formulations.solve", *args], cwd=tmp_path,
                           capture_output=True, text=True, timeout=120, env=env)
        assert p.returncode == 0 and "Traceback" not in p.stderr, (args, p.stderr[-500:])
    p = subprocess.run([sys.executable, "-m", "formulations.solve", "--list-backends"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env)
    listed = {line.split()[0]: line for line in p.stdout.splitlines()}
    assert "not installed: pip install -e \".[anneal]\"" in listed["sa"]
    assert "not installed: pip install -e \".[cpsat]\"" in listed["cpsat"]
    assert " installed " in listed["lines"]
    p = subprocess.run([sys.executable, "-m", "formulations.solve", str(ROOT / "puzzles" /
                        "cat15.txt"), "--backend", "sa"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=120, env=env)
    assert p.returncode == 2 and 'pip install -e ".[anneal]"' in p.stderr, p.stderr


def test_no_module_imports_another_modules_private_name():
    # A name starting with one underscore is its module's own; what others need is public
    # (the sampler pipeline's plans, the CP-SAT parameter setter, ...).
    import ast

    seen, bad = 0, []
    for folder in ("formulations", "bench", "tests"):
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.ImportFrom) and node.module != "__future__":
                    seen += 1
                    bad += [f"{path.relative_to(ROOT)}:{node.lineno} {a.name}" for a in node.names
                            if a.name.startswith("_") and not a.name.startswith("__")
                            and a.name != "_core"]  # the compiled core, a module of its package
    assert seen > 200  # the trees were read
    assert bad == []
