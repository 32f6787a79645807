"""The tournament sets against nonosolve (``bench/tournament.py``): the sets' files, one solve in
this process or in a nonosolve process (CPU from the children's rusage, every grid checked), the
JSON-lines records a stopped run resumes from, and the table per set and solver."""
from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

from ..study import REPO

SHARED = REPO.parent / "shared"   # the corpus and the anchors, beside the checkout


RECORDS = REPO / "bench" / "results" / "tournament"


SOLVERS = ("lines", "cpsat", "nonosolve")


SET_DIR = "taai-tcga-icga-tournament"


def set_files(corpus: Path, names: list[str] | None) -> list[Path]:
    """The question files of the chosen sets (all present ones if ``names`` is None)."""
    folder = corpus / SET_DIR / "question"
    files = sorted(folder.glob("*.txt")) if names is None else [folder / f"{n}.txt" for n in names]
    missing = [f for f in files if not f.is_file()]
    if missing:
        raise SystemExit(f"no set {missing[0].stem!r} under {folder}")
    return files


def taai_text(key: str, puzzle) -> str:
    """One puzzle in the tournament layout (columns, then rows), for nonosolve."""
    def line(clue) -> str:
        return "\t".join(str(b.length) for b in clue)
    return "\n".join([f"${key}", *map(line, puzzle.columns), *map(line, puzzle.rows)]) + "\n"


def run_inprocess(backend: str, puzzle, time_limit: float, unique: bool) -> dict:
    """One in-process solve, CPU-timed by the package's clock."""
    from formulations.runtime.cputime import cpu_seconds
    from formulations.puzzle import check_grid
    from formulations.solving import solve_puzzle

    c0, w0 = cpu_seconds(), time.perf_counter()
    try:
        res = solve_puzzle(puzzle, backend, time_limit=time_limit, unique=unique)
    except Exception as e:  # noqa: BLE001 - a record, not a crash of a long run
        return {"status": "error", "cpu_s": cpu_seconds() - c0,
                "wall_s": time.perf_counter() - w0, "message": f"{type(e).__name__}: {e}"}
    cpu, wall = cpu_seconds() - c0, time.perf_counter() - w0
    status = res.status.value
    if res.grid is not None:
        if check_grid(puzzle, res.grid):  # solve_puzzle checks too: a second, independent look
            return {"status": "error", "cpu_s": cpu, "wall_s": wall,
                    "message": "the grid fails the clues"}
        if unique:
            status = ("unique" if res.unique else "multiple" if res.unique is False
                      else "solved")
    return {"status": status, "cpu_s": cpu, "wall_s": wall}


def run_nonosolve(binary: Path, key: str, puzzle, time_limit: float, unique: bool,
                  workdir: Path) -> dict:
    """nonosolve on one puzzle in its own process; CPU from wait4, grid checked."""
    from formulations.puzzle import check_grid

    f = workdir / f"p{key}.taai"
    f.write_text(taai_text(key, puzzle))
    args = [str(binary), "-n", "2" if unique else "1", "--timeout", str(time_limit),
            "--format", "taai", str(f)]
    # the mark set here: children reaped since the last call (the CDCL worker of a `lines` run
    # just timed, which the package's clock already gave to that run) are not nonosolve's
    child_cpu_delta()
    w0 = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = proc.communicate(timeout=time_limit * 3 + 30)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    wall = time.perf_counter() - w0
    # communicate() reaped the child; its rusage is in RUSAGE_CHILDREN: take the difference
    cpu = child_cpu_delta()
    lines = out.splitlines()
    head = lines[0].split() if lines else []
    word = head[2] if len(head) > 2 else "ERROR"
    own = next((float(t[5:]) for t in head if t.startswith("time=")), None)
    sat = next((int(t[4:]) for t in head if t.startswith("sat=")), None)
    rec = {"cpu_s": cpu, "wall_s": wall, "own_s": own, "sat": sat}
    grid_lines = [x for x in lines[1:] if x and set(x) <= {"#", "."}]
    if word in ("FOUND", "UNIQUE", "MULTIPLE"):
        grid = tuple(tuple(int(c == "#") for c in x) for x in grid_lines[:puzzle.height])
        if check_grid(puzzle, grid):
            return {**rec, "status": "error", "message": "nonosolve's grid fails the clues"}
        status = {"FOUND": "solved", "UNIQUE": "unique", "MULTIPLE": "multiple"}[word]
        return {**rec, "status": status if unique else "solved"}
    status = {"NONE": "infeasible", "TIMEOUT": "unknown"}.get(word, "error")
    return {**rec, "status": status, **({"message": err.strip()[-200:]} if status == "error"
                                          else {})}


def run_nonosolve_batch(binary: Path, puzzles: list, time_limit: float, unique: bool,
                        workdir: Path) -> dict:
    """nonosolve's own tournament mode on the same puzzles in one process (``--taai``): the
    set's CPU without a process start per puzzle; its solutions file is checked."""
    from formulations.io.tournament import read_tournament_solutions
    from formulations.puzzle import check_grid

    q, sol, log = workdir / "set.taai", workdir / "set.sol", workdir / "set.log"
    q.write_text("".join(taai_text(k, p) for k, p in puzzles))
    args = [str(binary), "--taai", str(q), "-o", str(sol), "--log", str(log),
            "--timeout", str(time_limit)] + (["-n", "2"] if unique else [])
    child_cpu_delta()  # the mark, as in run_nonosolve
    w0 = time.perf_counter()
    subprocess.run(args, capture_output=True, text=True)
    wall = time.perf_counter() - w0
    cpu = child_cpu_delta()
    grids = read_tournament_solutions(sol)
    valid = sum(not check_grid(p, grids[k]) for k, p in puzzles if k in grids)
    return {"status": f"{valid}/{len(puzzles)}", "cpu_s": cpu, "wall_s": wall}


_last_children = [0.0]


def child_cpu_delta() -> float:
    """CPU seconds of the children reaped since the last call (the first call sets the mark)."""
    import resource
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    now = ru.ru_utime + ru.ru_stime
    delta, _last_children[0] = now - _last_children[0], now
    return delta


def find_nonosolve(given: str | None) -> Path | None:
    """The nonosolve binary: ``given``, else built once from its anchor (None: cannot)."""
    if given:
        return Path(given)
    out = Path("/tmp/nonosolve-build")
    binary = out / "bin" / "nonosolve"
    if binary.exists():
        return binary
    script = SHARED / "anchors" / "nonosolve" / "build.sh"
    if not script.exists() or shutil.which("g++") is None:
        return None
    print(f"building nonosolve into {out} (a few minutes)", file=sys.stderr)
    done = subprocess.run([str(script), str(out)], capture_output=True, text=True)
    return binary if done.returncode == 0 and binary.exists() else None


def records_path(unique: bool, folder: Path = RECORDS) -> Path:
    """The records of the first-solution or the uniqueness runs."""
    return folder / ("unique.jsonl" if unique else "first.jsonl")


def load_records(path: Path) -> list[dict]:
    """The records so far (a line cut by a kill is dropped: that puzzle runs again)."""
    if not path.exists():
        return []
    out = []
    for line in path.read_text().splitlines():
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:  # a line cut by a kill: that puzzle runs again
            continue
    return out


def record_key(r: dict) -> tuple:
    """What makes a record the same run (label, set, puzzle, solver, time limit)."""
    return (r["label"], r["set"], r["id"], r["solver"], r["time_limit"])


def quantile(xs: list[float], q: float) -> float:
    """The q-quantile by the nearest-rank rule (the 99th of 100 values is the 99th smallest)."""
    s = sorted(xs)
    return s[max(0, math.ceil(q * len(s)) - 1)]


def table(records: list[dict], unique: bool, label: str | None) -> str:
    """The Markdown table per label, set and solver (all labels when ``label`` is None)."""
    ok = {"unique", "multiple"} if unique else {"solved"}
    by: dict[tuple, dict[str, dict]] = defaultdict(dict)
    for r in records:
        if label is None or r["label"] == label:
            by[(r["label"], r["set"], r["time_limit"])].setdefault(r["solver"], {})[r["id"]] = r
    rows = ["| label | set | solver | solved | total CPU s | median s | 99th pct s | worst s "
            "| CPU / nonosolve |", "|---|---|---|---|---|---|---|---|---|"]
    for (lab, s, _t), per in sorted(by.items()):
        ref = per.get("nonosolve", {})
        batch = per.get("nonosolve-batch", {}).get("*")
        for solver in SOLVERS:
            got = per.get(solver)
            if not got:
                continue
            ts = [r["cpu_s"] for r in got.values() if r["status"] != "capped"]
            solved = sum(r["status"] in ok for r in got.values())
            common = [i for i in got if i in ref]
            ratio = ""
            if solver != "nonosolve" and common:
                mine = sum(got[i]["cpu_s"] for i in common)
                theirs = sum(ref[i]["cpu_s"] for i in common)
                ratio = f"{mine / theirs:.2f}" + ("" if len(common) == len(got) else
                                                  f" (on {len(common)})")
                if batch and len(common) == len(got) == len(ref):
                    ratio += f"; {sum(r['cpu_s'] for r in got.values()) / batch['cpu_s']:.2f}"
            if solver == "nonosolve" and batch:
                ratio = f"batch: {batch['cpu_s']:.2f} s, {batch['status']} valid"
            rows.append(f"| {lab} | {s} | {solver} | {solved}/{len(got)} | {sum(ts):.2f} | "
                        f"{quantile(ts, .5):.4f} | {quantile(ts, .99):.3f} | {max(ts):.3f} | "
                        f"{ratio} |" if ts else f"| {lab} | {s} | {solver} | {solved}/{len(got)} "
                        "| | | | | |")
    return "\n".join(rows)
