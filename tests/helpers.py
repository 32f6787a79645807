"""What many test files share: the repository's paths, the corpus beside it, and the command
line run as a user runs it (``python -m formulations.solve ...`` in a child process)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
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


def _default_sigint() -> None:
    # a test suite started in the background (`pytest &`, nohup) passes SIGINT on as ignored,
    # and Python then installs no KeyboardInterrupt handler: the child would never see Ctrl-C
    signal.signal(signal.SIGINT, signal.SIG_DFL)


_SOLVE_MAIN = ("import sys\nfrom formulations.solve import main\n"
               "print('main', file=sys.stderr, flush=True)\nsys.exit(main())")


def interrupt_cli(args: list[str], after: float,
                  timeout: float = 120) -> tuple[int, dict | None, str] | None:
    """``python -m formulations.solve ARGS --json`` interrupted (SIGINT, as Ctrl-C) ``after``
    seconds past the end of its imports (a wrapper prints ``main`` then: the imports' time
    depends on the machine's load, and a Ctrl-C during them is Python's own): its exit code,
    its JSON record and its stderr; None when it ended before it could be interrupted: when
    it had exited, or when it had already written its answer (a Ctrl-C in the interpreter's
    teardown, after ``main`` returned, ends the process by SIGINT itself, exit -2). The
    process never outlives the call."""
    proc = subprocess.Popen([sys.executable, "-c", _SOLVE_MAIN, *args, "--json"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_default_sigint)
    try:
        assert proc.stderr is not None
        assert proc.stderr.readline() == "main\n", "the command line did not start"
        time.sleep(after)
        if proc.poll() is not None:
            proc.communicate()
            return None
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=timeout)
    finally:  # never leave a long run behind, whatever failed
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    record = json.loads(out) if out.strip() else None
    if (proc.returncode == -signal.SIGINT and record is not None
            and record.get("status") != "interrupted"):
        return None  # answered before the signal: it met the teardown
    return proc.returncode, record, err
