"""How a run ends when Ctrl-C lands at a random moment: exit code, and seconds from SIGINT to exit.

Each trial starts ``python -m formulations.solve PUZZLE --backend B --unique --json`` from a
source tree (``--src``: this checkout by default, or a copy of an older one), sends SIGINT after a
delay drawn uniformly from ``--delay`` (so that it lands in the translation, the loading or the
search), and waits ``--hang`` seconds for the exit; a run still alive then is a hang (its native
stacks are printed with gdb when gdb is there, then it is killed). The promise is exit 130 with
an ``interrupted`` record within a second.

    python bench/ctrl_c_latency.py --runs 30
    python bench/ctrl_c_latency.py --src /tmp/old-checkout --runs 16 --seed 7
"""
from __future__ import annotations

import argparse
import random
import shutil
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
DEFAULT_PUZZLE = CORPUS / "webpbn-survey-non" / "webpbn-22336.non"


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # a background shell passes SIGINT ignored


def trial(src: Path, puzzle: Path, backend: str, delay: float, hang: float) -> tuple[str, float]:
    """(``exit code`` or ``hang``, seconds from SIGINT to exit)."""
    proc = subprocess.Popen([sys.executable, "-m", "formulations.solve", str(puzzle), "--backend",
                             backend, "--unique", "--json"], cwd=src, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=_default_sigint)
    time.sleep(delay)
    if proc.poll() is not None:
        proc.communicate()
        return f"ended before the signal ({proc.returncode})", 0.0
    proc.send_signal(signal.SIGINT)
    sent = time.monotonic()
    try:
        proc.communicate(timeout=hang)
        return str(proc.returncode), time.monotonic() - sent
    except subprocess.TimeoutExpired:
        if shutil.which("gdb"):
            subprocess.run(["gdb", "-p", str(proc.pid), "-batch", "-ex", "thread apply all bt 12"],
                           timeout=120, check=False)
        proc.kill()
        proc.communicate()
        return "hang", hang


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", type=Path, default=ROOT, help="source tree to run (default: this one)")
    ap.add_argument("--puzzle", type=Path, default=DEFAULT_PUZZLE)
    ap.add_argument("--backend", default="sat")
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--delay", type=float, nargs=2, default=(2.5, 25.0), metavar=("MIN", "MAX"))
    ap.add_argument("--hang", type=float, default=30.0,
                    help="seconds after SIGINT that count as a hang")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if not args.puzzle.is_file():
        print(f"{args.puzzle}: no such puzzle (the corpus is not here?)", file=sys.stderr)
        return 2
    rng = random.Random(args.seed)
    waits: list[float] = []
    outcomes: dict[str, int] = {}
    for i in range(args.runs):
        delay = rng.uniform(*args.delay)
        outcome, waited = trial(args.src, args.puzzle, args.backend, delay, args.hang)
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
        if outcome == "130":
            waits.append(waited)
        print(f"{i}: SIGINT at {delay:5.2f} s -> {outcome}, {waited:.2f} s", flush=True)
    print("outcomes:", ", ".join(f"{k} x{v}" for k, v in sorted(outcomes.items())))
    if waits:
        print(f"exit 130 after SIGINT: median {statistics.median(waits):.2f} s, "
              f"max {max(waits):.2f} s over {len(waits)} runs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
