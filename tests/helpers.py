"""What many test files share: the repository's paths, the corpus beside it, and the command
line run as a user runs it (``python -m formulations.solve ...`` in a child process)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PUZZLES = ROOT / "puzzles"
# The benchmark corpus lives beside the repo (../shared/corpus), never inside it;
# NONOGRAM_CORPUS names another place (a worktree one level deeper, say).
CORPUS_DIR = Path(os.environ.get("NONOGRAM_CORPUS") or ROOT.parent / "shared" / "corpus")


def run_cli(*args: str, module: str = "formulations.solve", cwd: Path = ROOT,
            timeout: float = 180, env: dict[str, str] | None = None,
            **kw) -> subprocess.CompletedProcess:
    """``python -m MODULE ARGS`` from the repository's root, its output captured as text;
    ``env`` adds to this process's environment."""
    return subprocess.run([sys.executable, "-m", module, *args], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout,
                          env={**os.environ, **env} if env is not None else None, **kw)


def one_line_error(p: subprocess.CompletedProcess) -> str:
    """The one line a refused command printed on stderr (no traceback)."""
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in p.stderr, p.stderr
    return lines[0]


def assert_rejected(path: Path, line: int | None, fragment: str) -> None:
    """Reading ``path`` fails with one PuzzleError line naming the file, the line and the problem."""
    from formulations.io import read_puzzle
    from formulations.puzzle import PuzzleError

    with pytest.raises(PuzzleError) as info:
        read_puzzle(path)
    msg = str(info.value)
    assert "\n" not in msg
    prefix = f"{path}:{line}: " if line is not None else f"{path}: "
    assert msg.startswith(prefix), msg
    assert fragment in msg, msg


def load_bench(name: str, alias: str | None = None):
    """A script of ``bench/`` as a module (registered in sys.modules first: its dataclasses look
    their module up), loaded once per process."""
    import importlib.util
    alias = alias or name
    if alias not in sys.modules:
        spec = importlib.util.spec_from_file_location(alias, ROOT / "bench" / f"{name}.py")
        assert spec is not None and spec.loader is not None
        sys.modules[alias] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[alias])
    return sys.modules[alias]
