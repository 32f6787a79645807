"""The scripts of ``bench/`` are commands over the package: each answers ``--help`` (its imports
resolve from the package, with no folder put on ``sys.path``), and none is imported as a module
by the tests, the notebooks or another script (what they share lives in
``formulations.harness.studies``)."""
from __future__ import annotations

import ast
import os
import subprocess
import sys

from helpers import ROOT

SCRIPTS = sorted((ROOT / "bench").glob("*.py"))


def test_every_bench_command_answers_help():
    assert len(SCRIPTS) > 15  # the folder was read
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = {s.name: subprocess.Popen([sys.executable, str(s), "--help"], cwd=ROOT, env=env,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for s in SCRIPTS}
    failed = {}
    for name, proc in procs.items():
        out, err = proc.communicate(timeout=300)
        if proc.returncode != 0 or "usage:" not in out:
            failed[name] = err[-500:]
    assert failed == {}


def test_no_bench_script_changes_sys_path_or_imports_another():
    names = {s.stem for s in SCRIPTS}
    bad = []
    for script in SCRIPTS:
        for node in ast.walk(ast.parse(script.read_text())):
            if isinstance(node, ast.ImportFrom | ast.Import):
                mods = [node.module or ""] if isinstance(node, ast.ImportFrom) else \
                    [a.name for a in node.names]
                bad += [f"{script.name} imports {m}" for m in mods if m.split(".")[0] in names]
            # engine_compare's worker imports the package from a tree it is given (--old)
            if (isinstance(node, ast.Attribute) and node.attr == "insert"
                    and ast.unparse(node.value) == "sys.path" and script.name != "engine_compare.py"):
                bad.append(f"{script.name}:{node.lineno} changes sys.path")
    assert bad == []


def test_no_test_or_notebook_loads_a_bench_script():
    # tests import the package only; a notebook may put the checkout itself on sys.path (an
    # uninstalled checkout), nothing else
    import json
    import re

    code = {p.name: p.read_text() for p in (ROOT / "tests").glob("*.py")
            if p.name != "test_bench_commands.py"}
    for nb in (ROOT / "notebooks").glob("*.ipynb"):
        cells = json.loads(nb.read_text())["cells"]
        code[nb.name] = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    assert len(code) > 40
    loads = re.compile(r"spec_from_file_location|import_module\(|load_bench|sys\.path\.(append|"
                       r"insert)\(0, str\((?!ROOT\))")
    assert {n: m.group(0) for n, t in code.items() if (m := loads.search(t))} == {}
