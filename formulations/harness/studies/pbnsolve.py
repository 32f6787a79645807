"""The ``lines`` backend against pbnsolve (``bench/pbnsolve_bench.py``,
``bench/engine_compare.py``): the corpus sets both run on, pbnsolve built from its anchor and
run in a child (CPU and peak memory from ``wait4``), and the per-puzzle medians and the ratio
summary."""
from __future__ import annotations

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

from ..study import REPO

RESULTS = REPO / "bench" / "results"


SHARED = REPO.parent / "shared"   # the corpus and the anchors, beside the checkout


NAMED = ("webpbn-06574", "webpbn-08098", "webpbn-02712", "webpbn-10810", "webpbn-10088",
         "dom_08", "non_med_2", "cauldron")


JANKO_SEED = 20240601


JANKO_BINS = ("10x10", "15x15", "20x20", "25x25", "30x30")


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
    """pbnsolve's verdict from its last output line (unique, multiple, infeasible or none)."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    last = lines[-1] if lines else ""
    if last.startswith("unique"):
        return "unique"
    if last.startswith("multiple"):
        return "multiple"
    if last.startswith("contradiction"):
        return "infeasible"
    return "none"


def run_child(argv: list[str], limit: float, nice: int) -> tuple[float, float, int, str, bool]:
    """(wall s, CPU s, peak RSS kB, output, killed) of a child run at ``nice``, killed at
    ``limit`` seconds of wall clock; CPU and RSS from the child's own rusage (``wait4``)."""
    import threading

    t0 = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=REPO,
                         preexec_fn=(lambda: os.nice(nice)) if nice else None)
    chunks: list[bytes] = []
    stdout = p.stdout
    assert stdout is not None
    reader = threading.Thread(target=lambda: chunks.append(stdout.read()), daemon=True)
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
    """One ``pbnsolve -u -b FILE`` run: verdict, wall, CPU and peak memory."""
    wall, cpu, rss, out, killed = run_child([str(binary), "-u", "-b", str(path)], limit, nice)
    return {"verdict": "none" if killed else pbnsolve_verdict(out), "wall_s": wall, "cpu_s": cpu,
            "rss_kb": rss, "note": "killed at the limit" if killed else ""}


def median(xs: list[float]) -> float:
    """The median (nan of nothing)."""
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
                a = a or {"verdict": "", "wall_s": math.nan, "cpu_s": math.nan}  # pbnsolve not run
                da = a["verdict"] not in ("none", "")
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
