"""Bounded runs: oversized and adversarial inputs through every backend with a time limit, and
the worst overrun and peak memory per backend.

    python bench/bounded_runs.py [--time-limit 5] [--backends cpsat,sa,...] [--inputs NAME,...]

Each run is a whole ``python -m formulations.solve FILE --backend B --time-limit T --json``
process (its children included, e.g. the qbpp worker), watched with psutil: wall time, peak
resident memory of the process tree, exit code, whether stdout held exactly one JSON object.
A run still going ``--kill-after`` seconds after the start is killed and reported as such.
The inputs are generated into a temporary folder (and dejoue's 512x512 ``cauldron.non`` is read
from the corpus when it is there); nothing is written into the repository but the CSV in
``bench/results/``. Overrun = wall time minus the time limit; the promise is at most
max(1 s, 5 % of the limit).
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

from formulations.io.writers import write_non
from formulations.puzzle import puzzle_from_grid

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
RESULTS = ROOT / "bench" / "results"

BACKENDS = ["cpsat", "lines", "sa", "tabu", "descent", "exact", "qbpp", "qbpp-exhaustive",
            "dimod:dimod:ExactSolver", "cpsat --presolve", "sa --presolve"]


def _random_puzzle(n: int, seed: int, density: float = 0.55):
    rng = random.Random(seed)
    grid = tuple(tuple(int(rng.random() < density) for _ in range(n)) for _ in range(n))
    return puzzle_from_grid(grid, f"random{n}")


def make_inputs(folder: Path) -> dict[str, Path]:
    """The adversarial set: name -> path."""
    out: dict[str, Path] = {}
    for n in (100, 200, 1000):
        p = folder / f"random{n}.non"
        p.write_text(write_non(_random_puzzle(n, n)))
        out[f"random{n}"] = p
    empty = folder / "empty1000.non"
    empty.write_text("width 1000\nheight 1000\nrows\n" + "0\n" * 1000 + "columns\n" + "0\n" * 1000)
    out["empty1000"] = empty
    cauldron = CORPUS / "picross-solver-dejoue" / "cauldron.non"
    if cauldron.is_file():
        out["cauldron512"] = cauldron
    big = folder / "huge.txt"  # 300 MB of clue text: the reader must refuse, not swallow it
    with big.open("w") as f:
        line = "1 " * 500 + "\n"
        for _ in range(300_000):
            f.write(line)
    out["huge300MB"] = big
    fifo = folder / "fifo.txt"
    os.mkfifo(fifo)
    out["fifo"] = fifo
    out["devzero"] = Path("/dev/zero")
    out["directory"] = folder
    return out


def _cap_memory(gb: float):
    """A child's address-space cap, so that an input read until memory runs out (``/dev/zero``
    before the readers took regular files only) cannot take the machine down with it."""
    def cap() -> None:
        import resource
        limit = int(gb * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return cap


def run_one(path: Path, backend: str, time_limit: float, kill_after: float,
            memory_cap_gb: float = 12.0) -> dict:
    parts = backend.split()
    cmd = [sys.executable, "-m", "formulations.solve", str(path), "--backend", parts[0],
           "--time-limit", str(time_limit), "--json", *parts[1:]]
    # stdout and stderr go to files: a pipe read only after the exit would block a child whose
    # answer (a 1000x1000 grid) is larger than the pipe's buffer
    out_f, err_f = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=out_f, stderr=err_f,
                            env={**os.environ, "PYTHONPATH": str(ROOT)},
                            preexec_fn=_cap_memory(memory_cap_gb))
    ps = psutil.Process(proc.pid)
    peak = 0
    killed = False
    while proc.poll() is None:
        try:
            rss = ps.memory_info().rss + sum(c.memory_info().rss for c in ps.children(recursive=True))
            peak = max(peak, rss)
        except psutil.Error:
            pass
        if time.perf_counter() - t0 > kill_after:
            for c in ps.children(recursive=True):
                c.kill()
            proc.kill()
            killed = True
            break
        time.sleep(0.02)
    proc.wait()
    wall = time.perf_counter() - t0
    out_f.seek(0)
    err_f.seek(0)
    out, err = out_f.read(), err_f.read()
    out_f.close()
    err_f.close()
    lines = [ln for ln in out.decode(errors="replace").splitlines() if ln.strip()]
    status = None
    try:
        one_json = len(lines) == 1 and isinstance(json.loads(lines[0]), dict)
        status = json.loads(lines[0]).get("status") if one_json else None
    except ValueError:
        one_json = False
    err_text = err.decode(errors="replace").strip().splitlines()
    return {"input": path.name if path.name else str(path), "backend": backend,
            "time_limit": time_limit, "wall_s": round(wall, 3),
            "overrun_s": round(wall - time_limit, 3), "peak_mb": round(peak / 2**20, 1),
            "exit": "killed" if killed else proc.returncode, "one_json": one_json,
            "status": status, "traceback": any("Traceback" in ln for ln in err_text),
            "stderr": (err_text[-1] if err_text else "")[:200]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--time-limit", type=float, default=5.0)
    ap.add_argument("--kill-after", type=float, default=90.0)
    ap.add_argument("--memory-cap-gb", type=float, default=12.0,
                    help="address-space cap of each run (a run over it fails, as on a smaller machine)")
    ap.add_argument("--backends", default=",".join(BACKENDS))
    ap.add_argument("--inputs", help="comma-separated input names (default: all)")
    ap.add_argument("--out", default=str(RESULTS / "bounded_runs.csv"))
    args = ap.parse_args(argv)
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        inputs = make_inputs(Path(tmp))
        names = args.inputs.split(",") if args.inputs else list(inputs)
        for name in names:
            for b in backends:
                r = run_one(inputs[name], b, args.time_limit, args.kill_after, args.memory_cap_gb)
                r["input"] = name
                rows.append(r)
                print(f"{name:<12} {b:<24} wall {r['wall_s']:7.2f}s  peak {r['peak_mb']:8.1f} MB  "
                      f"exit {r['exit']!s:<6} json {r['one_json']!s:<5} {r['stderr'][:70]}",
                      flush=True)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print(f"\nper backend (time limit {args.time_limit:g} s; promise: overrun <= "
          f"{max(1.0, 0.05 * args.time_limit):g} s):")
    print(f"{'backend':<24} {'worst overrun':>14} {'on':<12} {'peak MB':>9} {'on':<12} "
          f"{'no JSON':>8} {'traceback':>9}")
    for b in backends:
        rs = [r for r in rows if r["backend"] == b]
        worst = max(rs, key=lambda r: r["overrun_s"])
        mem = max(rs, key=lambda r: r["peak_mb"])
        print(f"{b:<24} {worst['overrun_s']:>13.2f}s {worst['input']:<12} {mem['peak_mb']:>9.1f} "
              f"{mem['input']:<12} {sum(not r['one_json'] for r in rs):>8} "
              f"{sum(r['traceback'] for r in rs):>9}")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
