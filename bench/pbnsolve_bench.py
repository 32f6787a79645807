"""The ``lines`` backend side by side with pbnsolve 1.10 (Jan Wolter's C solver, the reference of
the webpbn survey), both deciding uniqueness.

pbnsolve is built from its anchor folder (``../shared/anchors/pbnsolve/``, its ``build.sh``) into
``bench/results/pbnsolve-build/`` unless ``--pbnsolve PATH`` names a binary. Each puzzle is run
``--repeats`` times, the solvers interleaved (pbnsolve, then every ``lines`` variant, then again),
each run in a fresh process at the same niceness; a run that ends without a verdict is not
repeated. Times are medians:

* pbnsolve: the whole process (``pbnsolve -u -b FILE``): wall clock, and CPU from ``wait4``;
* ``lines``: in-process, the call ``solve_puzzle(puzzle, "lines", unique=True, time_limit=T)``
  (search, uniqueness and the clue check; reading the file and importing the package and the
  backend's module excluded),
  wall clock and the process's CPU time around it. ``--variants`` runs several guess rules
  (``probability,pbnsolve,balanced,simpson,tight``), ``--lines-option KEY=VALUE`` passes
  more options (``sprints=true``, ``backjump=true``, ``probing=false``).

Sets (``--sets``): ``survey`` (the webpbn survey: its 29 ``.non`` files plus Wolter's knotty and
faase XML), ``minizinc`` (the MiniZinc benchmarks converted to ``.non``), ``janko`` (60 puzzles of
puzzlekit's janko JSON, 10 from each size bin 10x10, 15x15, 20x20, 25x25, 30x30 and other, drawn
with ``random.Random(20240601)``, written as ``.non`` under ``bench/results/janko60/``), and
``cauldron`` (dejoue's 512x512 line-solvable ``cauldron.non``, also run through the model
backends of ``--presolve-backends`` with ``presolve=True``).

Writes ``bench/results/pbnsolve_<time>.csv`` (one row per run), ``..._medians.csv`` (one row per
puzzle and solver) and ``..._summary.txt``: per set and variant the solved counts, the geometric
mean and the worst of the ratio ``lines / pbnsolve`` over the puzzles both decide (wall and CPU),
the puzzles only one side decides, and the named hard cases.

    python bench/pbnsolve_bench.py --sets survey,minizinc,janko,cauldron --repeats 3
    python bench/pbnsolve_bench.py --sets survey --variants probability,pbnsolve,balanced,tight
    python bench/pbnsolve_bench.py --sets minizinc --only dom_08,non_med_2 --repeats 1
"""
from __future__ import annotations

import argparse
import csv
import json
import math
import os
import random
import signal
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
SHARED = ROOT.parent / "shared"
NAMED = ("webpbn-06574", "webpbn-08098", "webpbn-02712", "webpbn-10810", "webpbn-10088",
         "dom_08", "non_med_2", "cauldron")
JANKO_SEED = 20240601
JANKO_BINS = ("10x10", "15x15", "20x20", "25x25", "30x30")


# -- the puzzles ------------------------------------------------------------------------------

def puzzle_sets(corpus: Path, names: list[str]) -> list[tuple[str, str, Path]]:
    """(set, puzzle name, file) for every chosen set that is present."""
    out: list[tuple[str, str, Path]] = []
    for s in names:
        if s == "survey":
            files = sorted((corpus / "webpbn-survey-non").glob("*.non"))
            files += [corpus / "wolter-survey-xml" / f for f in ("knotty.xml", "faase.xml")]
        elif s == "minizinc":
            files = sorted((corpus / "minizinc-benchmarks-nonogram" / "converted-non").glob("*.non"))
        elif s == "janko":
            files = janko_sample(corpus / "puzzlekit-dataset-janko" / "Nonogram_dataset.json")
        elif s == "cauldron":
            files = [corpus / "picross-solver-dejoue" / "cauldron.non"]
        else:
            raise SystemExit(f"unknown set {s!r}: survey, minizinc, janko, cauldron")
        files = [f for f in files if f.exists()]
        if not files:
            print(f"skip {s}: no puzzles under {corpus}", file=sys.stderr)
        out += [(s, f.stem, f) for f in files]
    return out


def janko_sample(path: Path) -> list[Path]:
    """The 60-puzzle stratified janko sample as .non files (written once, then reused)."""
    if not path.exists():
        return []
    folder = RESULTS / "janko60"
    index = folder / "INDEX.tsv"
    if index.exists():
        return [folder / line.split("\t")[0] for line in index.read_text().splitlines()[1:]]
    sys.path.insert(0, str(ROOT))
    from formulations.io import iter_janko, write_non

    bins: dict[str, list[str]] = defaultdict(list)
    puzzles = {}
    for key, p, _ in iter_janko(path):
        size = key.rsplit("_", 1)[-1]
        bins[size if size in JANKO_BINS else "other"].append(key)
        puzzles[key] = p
    rng = random.Random(JANKO_SEED)
    chosen = []
    for b in sorted(bins):
        chosen += sorted(rng.sample(sorted(bins[b]), min(10, len(bins[b]))))
    folder.mkdir(parents=True, exist_ok=True)
    rows = ["file\tjanko_key\twidth\theight"]
    for key in chosen:
        name = f"janko-{key}.non"
        (folder / name).write_text(write_non(puzzles[key]))
        rows.append(f"{name}\t{key}\t{puzzles[key].width}\t{puzzles[key].height}")
    index.write_text("\n".join(rows) + "\n")
    return [folder / r.split("\t")[0] for r in rows[1:]]


# -- pbnsolve -----------------------------------------------------------------------------------

def find_pbnsolve(given: str | None, anchor: Path) -> Path | None:
    """The pbnsolve binary: ``given``, else built from ``anchor`` (once) into bench/results."""
    if given:
        return Path(given)
    script = anchor / "build.sh"
    if not script.exists():
        return None
    out = RESULTS / "pbnsolve-build"
    binary = out / "pbnsolve"
    newest = max(f.stat().st_mtime for f in (anchor / "src").iterdir())
    if not binary.exists() or binary.stat().st_mtime < newest:
        print(f"building pbnsolve from {anchor} into {out}", file=sys.stderr)
        subprocess.run(["bash", str(script), str(out)], check=True, stdout=subprocess.DEVNULL)
    return binary


def pbnsolve_verdict(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    last = lines[-1] if lines else ""
    if last.startswith("unique"):
        return "unique"
    if last.startswith("multiple"):
        return "multiple"
    if last.startswith("contradiction"):
        return "infeasible"
    return "none"


# -- running one child --------------------------------------------------------------------------

def run_child(argv: list[str], limit: float, nice: int) -> tuple[float, float, int, str, bool]:
    """(wall s, CPU s, peak RSS kB, output, killed) of a child run at ``nice``, killed at
    ``limit`` seconds of wall clock; CPU and RSS from the child's own rusage (``wait4``)."""
    import threading

    t0 = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=ROOT,
                         preexec_fn=(lambda: os.nice(nice)) if nice else None)
    chunks: list[bytes] = []
    reader = threading.Thread(target=lambda: chunks.append(p.stdout.read()), daemon=True)
    reader.start()
    killed = False
    while True:
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() - t0 > limit:
            os.kill(p.pid, signal.SIGKILL)
            killed = True
            pid, status, ru = os.wait4(p.pid, 0)
            break
        time.sleep(0.001)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    reader.join(5)
    out = b"".join(chunks).decode(errors="replace")
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss, out, killed


def run_pbnsolve(binary: Path, path: Path, limit: float, nice: int) -> dict:
    wall, cpu, rss, out, killed = run_child([str(binary), "-u", "-b", str(path)], limit, nice)
    return {"verdict": "none" if killed else pbnsolve_verdict(out), "wall_s": wall, "cpu_s": cpu,
            "rss_kb": rss, "note": "killed at the limit" if killed else ""}


def run_worker(spec: dict, path: Path, limit: float, nice: int) -> dict:
    argv = [sys.executable, str(Path(__file__).resolve()), "--worker", json.dumps(spec), str(path),
            str(limit)]
    wall, cpu, rss, out, killed = run_child(argv, limit + 60, nice)
    for line in reversed(out.splitlines()):
        if line.startswith("{"):
            got = json.loads(line)
            got["rss_kb"] = rss
            return got
    return {"verdict": "none", "wall_s": wall, "cpu_s": cpu, "rss_kb": rss,
            "note": ("killed" if killed else "crashed: ") + out[-200:].replace("\n", " | ")}


def worker(spec_json: str, path: str, limit: str) -> None:
    """In a child: read the puzzle, then time one solve_puzzle call in-process."""
    sys.path.insert(0, str(ROOT))
    from formulations.io import read_puzzle
    from formulations.lines import clear_cache
    from formulations.results import Status
    from formulations.solving import solve_puzzle

    from formulations.backends import get_backend

    spec = json.loads(spec_json)
    backend = spec.pop("backend")
    puzzle = read_puzzle(path)
    get_backend(backend).prepare({k: v for k, v in spec.items() if k != "presolve"})
    import formulations.model.presolve  # noqa: F401  (imports are not part of the solve)
    clear_cache()
    unique = backend in ("lines", "cpsat")
    t0, c0 = time.perf_counter(), time.process_time()
    res = solve_puzzle(puzzle, backend, unique=unique, time_limit=float(limit), **spec)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    if res.status is Status.SOLVED:
        verdict = {True: "unique", False: "multiple"}.get(res.unique, "solved")
    elif res.status is Status.INFEASIBLE:
        verdict = "infeasible"
    else:
        verdict = "none"
    print(json.dumps({"verdict": verdict, "wall_s": wall, "cpu_s": cpu, "note": res.message or "",
                      "nodes": res.info.get("nodes"), "probes": res.info.get("probes")}))


# -- the run and its summary --------------------------------------------------------------------

def solvers(args) -> list[tuple[str, dict]]:
    """(column name, worker spec) of every non-pbnsolve solver."""
    extra = {}
    for kv in args.lines_option:
        k, _, v = kv.partition("=")
        extra[k] = {"true": True, "false": False}.get(v.lower(), v)
    out = []
    for g in args.variants.split(","):
        name = "lines" if len(args.variants.split(",")) == 1 and not extra else f"lines[{g}]"
        out.append((name, {"backend": "lines", "guess": g, **extra}))
    return out


def median(xs: list[float]) -> float:
    return statistics.median(xs) if xs else math.nan


def summarise(rows: list[dict], names: list[str]) -> tuple[list[dict], list[str]]:
    """Medians per puzzle and solver, and the summary lines."""
    runs: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows:
        runs[(r["set"], r["puzzle"], r["solver"])].append(r)
    med = []
    for (s, p, solver), rs in runs.items():
        verdicts = sorted({r["verdict"] for r in rs})
        med.append({"set": s, "puzzle": p, "solver": solver, "runs": len(rs),
                    "verdict": "|".join(verdicts),
                    "wall_s": median([r["wall_s"] for r in rs]),
                    "cpu_s": median([r["cpu_s"] for r in rs]),
                    "rss_kb": max(int(r["rss_kb"] or 0) for r in rs)})
    by = {(m["set"], m["puzzle"], m["solver"]): m for m in med}
    lines: list[str] = []
    sets = sorted({m["set"] for m in med}, key=lambda s: ["survey", "minizinc", "janko",
                                                           "cauldron"].index(s))
    for s in sets:
        puzzles = sorted({m["puzzle"] for m in med if m["set"] == s})
        for solver in names:
            if solver == "pbnsolve":
                continue
            both, only_pbn, only_ours, disagree, ratios, cratios = [], [], [], [], [], []
            n_pbn = n_ours = 0
            for p in puzzles:
                a, b = by.get((s, p, "pbnsolve")), by.get((s, p, solver))
                if b is None:
                    continue
                da = a is not None and a["verdict"] not in ("none", "")
                db = b["verdict"] not in ("none", "", "solved") or (
                    b["verdict"] == "solved" and solver.startswith(("sa", "tabu", "qbpp")))
                n_pbn += da
                n_ours += db
                if da and db:
                    if "|" in a["verdict"] + b["verdict"] or (
                            a["verdict"] != b["verdict"] and b["verdict"] != "solved"):
                        disagree.append(f"{p} ({a['verdict']} / {b['verdict']})")
                    r = b["wall_s"] / max(a["wall_s"], 1e-6)
                    c = b["cpu_s"] / max(a["cpu_s"], 1e-6)
                    both.append(p)
                    ratios.append((r, p))
                    cratios.append((c, p))
                elif da:
                    only_pbn.append(f"{p} (pbnsolve {a['wall_s']:.2f} s)")
                elif db:
                    only_ours.append(f"{p} ({b['wall_s']:.2f} s)")
            if not both and not only_pbn and not only_ours:
                continue
            gm = math.exp(statistics.fmean(math.log(r) for r, _ in ratios)) if ratios else math.nan
            gc = math.exp(statistics.fmean(math.log(r) for r, _ in cratios)) if cratios else math.nan
            worst = max(ratios) if ratios else (math.nan, "-")
            over3 = sorted(((r, p) for r, p in ratios if r > 3), reverse=True)
            lines.append(f"[{s}] {solver}: {len(puzzles)} puzzles, pbnsolve decides {n_pbn}, "
                         f"{solver} decides {n_ours}, both {len(both)}")
            lines.append(f"    ratio {solver} / pbnsolve over both: geometric mean {gm:.3f} (wall), "
                         f"{gc:.3f} (CPU); worst {worst[0]:.2f} ({worst[1]}); "
                         f"{len(over3)} above 3x" + (": " + ", ".join(f"{p} {r:.1f}x"
                                                                      for r, p in over3[:8])
                                                     if over3 else ""))
            if only_pbn:
                lines.append("    only pbnsolve decides: " + ", ".join(only_pbn))
            if only_ours:
                lines.append(f"    only {solver} decides: " + ", ".join(only_ours))
            if disagree:
                lines.append("    VERDICTS DIFFER: " + ", ".join(disagree))
    named = [m for m in med if m["puzzle"] in NAMED]
    if named:
        lines.append("named puzzles (median wall s / CPU s, verdict):")
        for p in NAMED:
            cells = [f"{m['solver']} {m['wall_s']:.3f}/{m['cpu_s']:.3f} {m['verdict']}"
                     for m in named if m["puzzle"] == p]
            if cells:
                lines.append(f"    {p}: " + "; ".join(cells))
    return med, lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sets", default="survey,minizinc,janko,cauldron")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--time-limit", type=float, default=60.0, help="seconds per run (default 60)")
    ap.add_argument("--variants", default="hybrid",
                    help="lines guess rules to run, comma separated (default hybrid, the default rule)")
    ap.add_argument("--lines-option", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--presolve-backends", default="cpsat,sa",
                    help="model backends run with presolve=True on the cauldron set")
    ap.add_argument("--only", default="", help="puzzle names (file stems), comma separated")
    ap.add_argument("--pbnsolve", default=None, help="a pbnsolve binary (default: build it)")
    ap.add_argument("--anchor", default=str(SHARED / "anchors" / "pbnsolve"))
    ap.add_argument("--corpus", default=str(SHARED / "corpus"))
    ap.add_argument("--nice", type=int, default=10, help="niceness of every child (default 10)")
    ap.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker(*args.worker)
        return 0
    RESULTS.mkdir(parents=True, exist_ok=True)
    binary = find_pbnsolve(args.pbnsolve, Path(args.anchor))
    if binary is None:
        print(f"no pbnsolve: {args.anchor}/build.sh not found and no --pbnsolve given; "
              "running lines alone", file=sys.stderr)
    puzzles = puzzle_sets(Path(args.corpus), [s.strip() for s in args.sets.split(",") if s.strip()])
    if args.only:
        keep = set(args.only.split(","))
        puzzles = [p for p in puzzles if p[1] in keep]
    ours = solvers(args)
    extra_backends = [(f"{b}+presolve", {"backend": b, "presolve": True})
                      for b in args.presolve_backends.split(",") if b]
    names = (["pbnsolve"] if binary else []) + [n for n, _ in ours] + [n for n, _ in extra_backends]
    stamp = time.strftime("%Y%m%d-%H%M%S")
    out_csv = RESULTS / f"pbnsolve_{stamp}.csv"
    fields = ["set", "puzzle", "solver", "repeat", "verdict", "wall_s", "cpu_s", "rss_kb", "nodes",
              "probes", "note"]
    rows: list[dict] = []
    try:
        with out_csv.open("w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=fields, extrasaction="ignore")
            w.writeheader()
            for n, (s, name, path) in enumerate(puzzles, 1):
                todo = ([("pbnsolve", None)] if binary else []) + ours
                if s == "cauldron":
                    todo += extra_backends
                done: set[str] = set()
                for rep in range(args.repeats):
                    for solver, spec in todo:
                        if solver in done:
                            continue
                        if spec is None:
                            got = run_pbnsolve(binary, path, args.time_limit, args.nice)
                        else:
                            got = run_worker(dict(spec), path, args.time_limit, args.nice)
                        row = {"set": s, "puzzle": name, "solver": solver, "repeat": rep, **got}
                        rows.append(row)
                        w.writerow(row)
                        fh.flush()
                        if got["verdict"] == "none":
                            done.add(solver)  # no verdict: a repeat would only cost the limit
                        print(f"[{n}/{len(puzzles)} {s}] {name} {solver} #{rep}: {got['verdict']} "
                              f"{got['wall_s']:.3f} s wall, {got['cpu_s']:.3f} s CPU", flush=True)
    except KeyboardInterrupt:
        print("\ninterrupted: summary of what was measured")
    med, lines = summarise(rows, names)
    med_csv = out_csv.with_name(out_csv.stem + "_medians.csv")
    with med_csv.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(med[0]) if med else ["set"])
        w.writeheader()
        w.writerows(med)
    text = "\n".join([f"pbnsolve bench {stamp}: {args.repeats} repeats, {args.time_limit:g} s "
                      f"limit, niceness {args.nice}, pbnsolve {binary}"] + lines)
    out_csv.with_name(out_csv.stem + "_summary.txt").write_text(text + "\n")
    print("\n" + text)
    print(f"\nrows: {out_csv}\nmedians: {med_csv}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
