"""Release 2's protocol (docs/benchmark.md, "Release 2"): records whose reads are decided by
counts alone, sessions that say which commit and CPU measured them, TTS99 in a unit any machine
reproduces (spin updates) with CPU time derived from a calibration, detection limits, puzzles
split by whether line propagation decides them, comparisons with and without set-up, and any
dimod sampler measured the same way (the "window sticker").

Why spin updates: the CPU time per read of the same record moved 1.03-1.45x between sessions of
release 1 while its intervals claimed 4-8 %; successes from a seed do not move. So the primary
figure is TTS99 x (length x variables) per read, and CPU time is that figure times a cost per
spin update measured per (sampler, size) in an interleaved calibration, repeated per session:
the spread between sessions widens the CPU intervals.
"""
from __future__ import annotations

import json
import math
import os
import random
import subprocess
import time
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..analysis.optimal import QUANTILES, LadderData, fit_with_steps, optimal_tts
from ..analysis.stats import repeats_for
from .study import EXACT, Task, measure, pooled, task_from_dict

STUDY = "release-2"
UNTIL_SUCCESSES = 10     # S: a cell stops once it has this many successes ...
MIN_READS = 100          # ... and at least this many reads (p-hat = 1 on 10 reads is too wide)
MAX_READS = 1000         # R_max: or this many reads; one success in R_max is the detection limit
READS_PER_CALL = 10
# release 1's caps left sa's 30x30 median at its top length (a bound) and every tabu optimum
# flat (its reads stopped at the ground state); release 2's tabu reads run their full cutoff
MAX_LENGTH = {"sa": 102400, "openjij-sa": 16000, "openjij-sqa": 4000, "tabu": 409600,
              "pimc": 8000, "rotor": 8000, "pt": 8000, "pa": 4000, "sa-tuned": 102400}
SHORT_READ_S = 0.002     # reads shorter than this by the cost model come in calls of 100


def reads_per_call(sampler: str, length: int, variables: int, interactions: int) -> int:
    """Calls of READS_PER_CALL reads, or of MIN_READS where the sampler plan's cost model (fixed
    constants: a function of the task alone, never of the clock) puts a read below
    SHORT_READ_S: the runner's work per call (decoding, scoring) then stays a small share of
    the sampling, and a cell draws MIN_READS reads anyway."""
    from .study import read_seconds
    t = read_seconds(sampler, length, variables, interactions)
    return MIN_READS if t < SHORT_READ_S else READS_PER_CALL


MEDIAN = ("the median over puzzles is an order statistic (numpy 'inverted_cdf'): the smallest "
          "TTS99 with at least half of the puzzles at or below it; a puzzle never solved counts "
          "as infinite, never dropped")
FIT_MIN_INSTANCES = 90
WORK_UNIT = {"tabu": "variable updates (updates per variable x variables; every read runs its "
                     "full cutoff)",
             "tabu-release-1": "variable updates at the cutoff (length x variables; release 1's "
                               "reads stopped at the ground state, so an upper bound on the work)",
             "pt": "spin updates (sweeps per replica x variables; a read stops once a replica "
                   "reaches the ground state, so the length is a cutoff: an upper bound on the "
                   "work)",
             "pa": "spin updates (sweeps per member x variables; a read stops once a member "
                   "reaches the ground state, so the length is a cutoff: an upper bound on the "
                   "work)"}


def work_unit(sampler: str, counted: bool = True) -> str:
    """The name of the unit a sampler's TTS99 is counted in."""
    if sampler == "tabu" and not counted:
        return WORK_UNIT["tabu-release-1"]
    return WORK_UNIT.get(sampler, "spin updates (sweeps x variables)")


# -- sessions ----------------------------------------------------------------------------------

def cpu_info() -> dict[str, Any]:
    """The CPU as the OS shows it: /proc/cpuinfo's model name and flags (first processor)."""
    model, flags = "", []  # type: str, list[str]
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name") and not model:
                    model = line.split(":", 1)[1].strip()
                elif line.startswith("flags") and not flags:
                    flags = line.split(":", 1)[1].split()
                if model and flags:
                    break
    except OSError:
        import platform
        model = platform.processor()
    return {"cpu_model": model, "cpu_flags": flags}


def tree_state(root: Path) -> tuple[str, bool]:
    """(commit, dirty): a tracked file modified outside bench/results makes the tree dirty."""
    def git(*a: str) -> str:
        try:
            return subprocess.run(["git", "-C", str(root), *a], capture_output=True, text=True,
                                  timeout=10).stdout.strip()
        except Exception:
            return ""
    dirty = git("status", "--porcelain", "--untracked-files=no", "--", ".",
                ":(exclude)bench/results")
    return git("rev-parse", "HEAD"), bool(dirty)


class DirtyTree(RuntimeError):
    """A run from a modified tree (its records could not name the code that made them)."""


def session_entry(root: Path, *, allow_dirty: bool = False, **extra: Any) -> dict[str, Any]:
    """A session of the manifest: when, which commit (refusing a modified tree unless
    ``allow_dirty``), which CPU (model and flags), the load, and ``extra`` (the configuration)."""
    import datetime as dt
    import platform

    commit, dirty = tree_state(root)
    if dirty and not allow_dirty:
        raise DirtyTree(f"{root}: the tree has modified tracked files; commit them, or pass "
                        f"--allow-dirty (the session then says dirty: true)")
    return {"started": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "commit": commit, "dirty": dirty, **cpu_info(), "cores": os.cpu_count(),
            "python": platform.python_version(), "platform": platform.platform(),
            "load_average": list(os.getloadavg()), "protocol": protocol_config(), **extra}


def protocol_config() -> dict[str, Any]:
    return {"study": STUDY, "until_successes": UNTIL_SUCCESSES, "min_reads": MIN_READS,
            "max_reads": MAX_READS, "reads_per_call": READS_PER_CALL, "max_length": MAX_LENGTH,
            "rule": "calls of reads_per_call reads until >= min_reads reads and >= "
                    "until_successes successes, or max_reads reads; never by elapsed CPU"}


# -- verify: a record re-runs to the same counts -------------------------------------------------

def verify(records: Sequence[dict], sample: int, *, seed: int = 0) -> dict[str, Any]:
    """Re-run ``sample`` random count-decided records (those with a ``task``) in this process
    and compare: successes, reads and the energies' digest must match; the CPU per read is
    reported as a ratio (now / recorded), which may move."""
    cands = [r for r in pooled(records) if r.get("task") and r.get("rule")]
    picks = random.Random(seed).sample(cands, min(sample, len(cands)))
    rows = []
    for r in picks:
        now = measure(task_from_dict(r["task"]))
        ratio = ((now["cpu_s"] / now["reads"]) / (r["cpu_s"] / r["reads"])
                 if r["cpu_s"] > 0 and now["reads"] else None)
        rows.append({"key": r["key"], "successes_recorded": r["successes"],
                     "successes_now": now["successes"], "reads_recorded": r["reads"],
                     "reads_now": now["reads"],
                     "energies_match": now.get("energy_sha1") == r.get("energy_sha1"),
                     "cpu_per_read_ratio": None if ratio is None else round(ratio, 4)})
    ok = bool(rows) and all(x["successes_recorded"] == x["successes_now"] and
                            x["reads_recorded"] == x["reads_now"] and x["energies_match"]
                            for x in rows)
    return {"candidates": len(cands), "checked": len(rows), "all_match": ok, "records": rows}


# -- calibration: CPU per spin update, per (sampler, size), interleaved ---------------------------

def calibration_task(sampler: str, key: str, source: str, length: int, reads: int,
                     sampler_class: str | None = None, params: tuple | None = None) -> Task:
    """Exactly ``reads`` reads at ``length`` (the count rule with an unreachable success count)."""
    return Task(STUDY + "-calibration", key, source, sampler, length, 0, reads=reads,
                reads_per_call=READS_PER_CALL, until_successes=reads + 1, min_reads=reads,
                sampler_class=sampler_class, params=params)


def calibrate(groups: Sequence[Mapping[str, Any]], *, rounds: int = 3, reads: int = 20,
              seed: int = 0, log=print) -> dict[str, Any]:
    """The cost model t_read = a + c x (length x variables) per group (``sampler``, ``size``,
    ``puzzles``: [(key, source)], ``length``; optional ``sampler_class``, ``params``): each round
    measures every group, in a shuffled order, at ``length`` and ``length / 8`` on each puzzle
    (``reads`` reads each), so that the groups share the machine's state; c from the two
    lengths (per puzzle, median), a the rest. Returns per group every round's a and c and their
    medians, and the median set-up CPU per record."""
    rng = random.Random(seed)
    per: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    order = list(groups)
    for rnd in range(rounds):
        rng.shuffle(order)
        for g in order:
            name = f"{g['sampler']}|{g['size']}"
            long_, short = int(g["length"]), max(1, int(g["length"]) // 8)
            cs, as_, setup = [], [], []
            for key, source in g["puzzles"]:
                t = {}
                for L in (short, long_):
                    rec = measure(calibration_task(g["sampler"], key, source, L, reads,
                                                   g.get("sampler_class"), g.get("params")))
                    t[L] = rec["cpu_s"] / rec["reads"]
                    setup.append(rec["setup_cpu_s"])
                    n = rec["variables"]
                c = max(t[long_] - t[short], 0.0) / ((long_ - short) * n)
                cs.append(c)
                as_.append(max(t[short] - c * short * n, 0.0))
            per[name]["c"].append(float(np.median(cs)))
            per[name]["a"].append(float(np.median(as_)))
            per[name]["setup"].append(float(np.median(setup)))
            log(f"calibration round {rnd + 1}/{rounds} {name}: c {per[name]['c'][-1]:.3e} s per "
                f"spin update, a {per[name]['a'][-1]:.3e} s per read")
    out = {}
    for name, d in per.items():
        out[name] = {"c_s": float(np.median(d["c"])), "a_s": float(np.median(d["a"])),
                     "c_rounds": d["c"], "a_rounds": d["a"],
                     "setup_cpu_s": float(np.median(d["setup"])), "rounds": rounds,
                     "reads": reads}
    return out


def add_calibration(path: Path, session: str, groups: Mapping[str, Any], cpu: Mapping) -> None:
    """Append one session's calibration to ``path`` (calibration.json), atomically."""
    data = json.loads(path.read_text()) if path.exists() else {"sessions": []}
    data["sessions"].append({"session": session, **cpu, "groups": dict(groups)})
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    os.replace(tmp, path)


FIT_ROUNDS_AGREE = 2.0   # a session's rounds' c within this factor of each other, or it failed


def _fit_ok(r: Mapping[str, Any]) -> bool:
    """Every round's c positive and the rounds within FIT_ROUNDS_AGREE of each other."""
    cs = list(r["c_rounds"])
    return (r["c_s"] > 0 and bool(cs) and min(cs) > 0
            and max(cs) <= FIT_ROUNDS_AGREE * min(cs))


def cost_model(calibration: Mapping | None, group: str) -> dict[str, Any] | None:
    """A group's cost per spin update over the sessions that calibrated it: the median over
    sessions of (a, c); ``spread`` the relative spread that widens the CPU intervals: with one
    session its rounds' (max / min - 1), with more the larger of that and the sessions'.

    A session whose fit failed (c <= 0: the long reads cost no more than the short ones, the
    per-read constant and the machine's noise swamping the work; c <= 0 in any round; or its
    rounds' c more than FIT_ROUNDS_AGREE apart: pt at 10x10, whose reads stop at the ground
    state, gave 1e-9, 1e-10 and 0) is left out and counted in ``failed_sessions``; with none left the group has no
    cost model (its CPU figures then come from the records)."""
    if not calibration:
        return None
    rows = [s["groups"][group] for s in calibration.get("sessions", []) if group in s["groups"]]
    good = [r for r in rows if _fit_ok(r)]
    if not good:
        return None
    cs = [r["c_s"] for r in good]
    within = max(max(r["c_rounds"]) / min(c for c in r["c_rounds"] if c > 0) - 1 for r in good)
    between = (max(cs) / min(cs) - 1) if len(cs) > 1 else 0.0
    return {"c_s": float(np.median(cs)), "a_s": float(np.median([r["a_s"] for r in good])),
            "setup_cpu_s": float(np.median([r["setup_cpu_s"] for r in good])),
            "sessions": len(good), "failed_sessions": len(rows) - len(good),
            "spread": round(max(within, between), 4),
            "between_sessions": round(between, 4), "within_session": round(within, 4),
            "enough_sessions": len(good) >= 3}


def cpu_models(calibration: Mapping | None) -> dict[str, int]:
    """The CPU models that calibrated (``cpu_model`` as /proc/cpuinfo names it), each with its
    number of sessions, most sessions first (ties: the one that calibrated first)."""
    count: dict[str, int] = {}
    for s in (calibration or {}).get("sessions", []):
        m = s.get("cpu_model") or "unknown"
        count[m] = count.get(m, 0) + 1
    return dict(sorted(count.items(), key=lambda kv: -kv[1]))


def reference_cpu(calibration: Mapping | None) -> str | None:
    """The CPU the CPU figures are stated for by default: the one with the most sessions."""
    models = cpu_models(calibration)
    return next(iter(models), None)


def for_cpu(calibration: Mapping | None, cpu: str | None) -> dict[str, Any] | None:
    """The calibration's sessions on one CPU model: a cost per spin update is a property of a
    machine, so sessions of different CPUs are never pooled into one median (their spread is
    the machines' difference, not the clock's noise); ``machine_ratios`` reports it apart."""
    if not calibration or cpu is None:
        return None
    sessions = [s for s in calibration.get("sessions", [])
                if (s.get("cpu_model") or "unknown") == cpu]
    return {**calibration, "sessions": sessions} if sessions else None


def machine_ratios(calibration: Mapping | None, reference: str | None) -> dict[str, Any]:
    """Per other CPU model and group: its cost per spin update (median c over its sessions)
    over the reference CPU's, and the same for the per-read constant a; what the CPU figures
    of the summary become on that machine (the spin-update figures do not change)."""
    out: dict[str, Any] = {}
    ref = for_cpu(calibration, reference)
    for cpu, n in cpu_models(calibration).items():
        if cpu == reference:
            continue
        mine = for_cpu(calibration, cpu)
        groups = sorted({g for s in (mine or {}).get("sessions", []) for g in s["groups"]})
        rows: dict[str, Any] = {}
        for g in groups:
            a, b = cost_model(mine, g), cost_model(ref, g)
            if a and b:
                rows[g] = {"c_ratio": round(a["c_s"] / b["c_s"], 3),
                           "a_ratio": round(a["a_s"] / b["a_s"], 3) if b["a_s"] > 0 else None}
        cr = [r["c_ratio"] for r in rows.values()]
        out[cpu] = {"sessions": n, "groups": rows,
                    "c_ratio_range": [min(cr), max(cr)] if cr else None,
                    "c_ratio_median": float(np.median(cr)) if cr else None}
    return out


# -- the summary's release-2 figures ----------------------------------------------------------------

def _num(v: Any) -> float | None:
    return None if v is None or not math.isfinite(v) else float(v)


def _with_time(data: LadderData, t: np.ndarray) -> LadderData:
    return LadderData(data.instances, data.lengths, data.successes, data.reads, t)


def work_matrix(data: LadderData, variables: Mapping[str, int]) -> np.ndarray:
    """Spin updates per read per instance and length: length x variables."""
    n = np.array([variables[i] for i in data.instances], dtype=float)[:, None]
    return n * np.asarray(data.lengths, dtype=float)[None, :]


def spin_update_entries(rs: Sequence[dict], data: LadderData, *, resamples: int,
                        model: Mapping | None, keep_replicates: bool = False,
                        ) -> dict[str, dict[str, Any]]:
    """Per quantile: TTS99 in spin updates at its own optimal length with the two-level
    bootstrap interval (no time spread: counts reproduce), the detection limit (one success in
    R_max reads at the longest length) in spin updates and CPU, and, with a calibration, the
    CPU TTS99 derived from the cost model (t_read = a + c x spin updates per read) at the CPU
    optimum, its interval widened by the calibration's spread."""
    variables = {r["instance"]: int(r["variables"]) for r in rs}
    W = work_matrix(data, variables)
    su = optimal_tts(_with_time(data, W), QUANTILES, resamples=resamples, seed=0)
    nmed = float(np.median(list(variables.values())))
    Lmax = data.lengths[-1]
    at_top = [r["reads"] for r in rs if r["length"] == Lmax]
    rmax = max((r.get("rule") or {}).get("max_reads") or 0 for r in rs) or \
        (int(np.median(at_top)) if at_top else MAX_READS)
    limit_su = float(repeats_for(1.0 / rmax)) * Lmax * nmed
    cpu = None
    if model is not None:
        T = model["a_s"] + model["c_s"] * W
        cpu = optimal_tts(_with_time(data, T), QUANTILES, resamples=resamples, seed=0,
                          t_spread=model["spread"])
        limit_s = float(repeats_for(1.0 / rmax)) * (model["a_s"] + model["c_s"] * Lmax * nmed)
    else:
        limit_s = None
    out = {}
    for k, o in enumerate(su):
        e = {"optimal_length_spin_updates": o.optimal_length,
             "interior_spin_updates": o.interior, "edge_spin_updates": o.edge,
             "tts99_spin_updates": _num(o.tts99_s), "low_spin_updates": _num(o.low_s),
             "high_spin_updates": _num(o.high_s),
             "per_length_spin_updates": [_num(v) for v in o.per_length],
             "detection_limit_spin_updates": limit_su, "max_reads": rmax,
             "detection_limit_s": limit_s,
             "text_spin_updates": (f"> {limit_su:.3g}" if not math.isfinite(o.tts99_s)
                                   else f"{o.tts99_s:.3g}")}
        if keep_replicates and o.replicates is not None:
            e["replicates_spin_updates"] = [float(f"{v:.4g}") if math.isfinite(v) else None
                                            for v in o.replicates]
        if cpu is not None:
            c = cpu[k]
            e |= {"cpu_from": "calibration", "optimal_length_cpu": c.optimal_length,
                  "interior_cpu": c.interior, "tts99_cpu_s": _num(c.tts99_s),
                  "low_cpu_s": _num(c.low_s), "high_cpu_s": _num(c.high_s),
                  "edge_cpu": c.edge, "per_length_cpu": [_num(v) for v in c.per_length],
                  "text_cpu": (f"> {limit_s:.3g} s" if not math.isfinite(c.tts99_s)
                               else f"{c.tts99_s:.3g} s")}
        else:
            e["cpu_from"] = "records"
        out[str(o.q)] = e
    return out


def at_optimum(rs: Sequence[dict], length: int | None, *, resamples: int,
               seed: int = 0) -> dict[str, Any] | None:
    """What a referee asks beside TTS99, at one length (the median's optimum): per puzzle the
    mean residual energy of a read (penalty energy; 0 is the ground state) and, per energy
    target t of TARGETS, the time to target (TTS99 of a read reaching energy <= t) in spin
    updates; the median over puzzles of each with a 95 % two-level bootstrap interval (puzzles
    resampled, then each puzzle's count redrawn binomially from its own rate; the residual
    energy's within-puzzle spread is not in the records, so its interval resamples puzzles
    only). Records without ``at_most`` (other studies) give None."""
    from .study import TARGETS
    from ..analysis.optimal import quantile

    if length is None:
        return None
    at = [r for r in rs if r["length"] == length and r.get("at_most") is not None
          and r.get("reads")]
    if not at:
        return None
    acc: dict[str, list[Any]] = {}
    for r in at:
        a = acc.setdefault(r["instance"], [0, 0.0, np.zeros(len(TARGETS)), int(r["variables"])])
        a[0] += int(r["reads"])
        a[1] += float(r["energy_mean"]) * int(r["reads"])
        a[2] = a[2] + np.asarray(r["at_most"], dtype=float)
    reads = np.array([a[0] for a in acc.values()], dtype=np.int64)
    resid = np.array([a[1] / a[0] for a in acc.values()])
    hits = np.array([a[2] for a in acc.values()])            # puzzles x targets
    work = np.array([float(length) * a[3] for a in acc.values()])
    rng = np.random.default_rng(seed)
    n = len(reads)
    idx = rng.integers(0, n, size=(resamples, n))
    med = float(quantile(resid, 0.5, axis=0))
    boot = quantile(resid[idx], 0.5, axis=1)
    out: dict[str, Any] = {
        "length": int(length), "instances": n,
        "residual_energy": {"median": med, "low": float(np.quantile(boot, 0.025)),
                            "high": float(np.quantile(boot, 0.975))},
        "targets": {}}
    for j, t in enumerate(TARGETS):
        p = hits[:, j] / reads
        point = quantile(repeats_for(p) * work, 0.5, axis=0)
        k = rng.binomial(reads[idx], p[idx])                  # resamples x puzzles
        reps = quantile(repeats_for(k / reads[idx]) * work[idx], 0.5, axis=1)
        lo, hi = np.quantile(reps, [0.025, 0.975], method="inverted_cdf")
        out["targets"][str(t)] = {"tts99_spin_updates": _num(float(point)),
                                  "low_spin_updates": _num(float(lo)),
                                  "high_spin_updates": _num(float(hi)),
                                  "reached_by": int((hits[:, j] > 0).sum())}
    return out


def line_decided(instances: Sequence[str], source_of) -> dict[str, bool]:
    """Per puzzle: does line propagation alone (formulations.lines.fixed_point) decide it?"""
    from ..lines import clear_cache, fixed_point
    from ..lines.engine import Status
    from .study import load

    out = {}
    for key in instances:
        clear_cache()
        out[key] = fixed_point(load(source_of(key))).status == Status.SOLVED
    return out


def classes(rs: Sequence[dict], data: LadderData, decided: Mapping[str, bool], *,
            resamples: int, model: Mapping | None) -> dict[str, Any]:
    """The size split by whether line propagation decides the puzzle: per class the count and
    the median TTS99 (spin updates; CPU with a calibration) at the class's own optimal length,
    with intervals."""
    out: dict[str, dict[str, Any]] = {}
    for name, want in (("lines_decide", True), ("lines_do_not_decide", False)):
        keep = [i for i in data.instances if decided.get(i) == want]
        if not keep:
            out[name] = {"instances": 0}
            continue
        sub = [r for r in rs if r["instance"] in set(keep)]
        d = LadderData.from_records(sub)
        q = spin_update_entries(sub, d, resamples=resamples, model=model)["0.5"]
        out[name] = {"instances": len(keep), "median": {
            k: q.get(k) for k in ("tts99_spin_updates", "low_spin_updates", "high_spin_updates",
                                  "optimal_length_spin_updates", "interior_spin_updates",
                                  "tts99_cpu_s", "low_cpu_s", "high_cpu_s", "text_spin_updates")}}
    return out


def seed_agreement(rs: Sequence[dict], *, resamples: int) -> dict[str, Any] | None:
    """With two seeds or more on the same instances and lengths: per seed the median TTS99 in
    spin updates at its own optimal length with its interval, from that seed's records alone,
    and whether every pair of intervals overlaps (a seed that moved the figure beyond its
    sampling error would show here). None with one seed."""
    seeds = sorted({int(r.get("seed", 0)) for r in rs})
    if len(seeds) < 2:
        return None
    cells = {(r["instance"], r["length"]) for r in rs if int(r.get("seed", 0)) == seeds[0]}
    per: dict[str, dict[str, Any]] = {}
    for sd in seeds:
        sub = [r for r in rs if int(r.get("seed", 0)) == sd]
        cells &= {(r["instance"], r["length"]) for r in sub}
    for sd in seeds:
        sub = [r for r in rs if int(r.get("seed", 0)) == sd and (r["instance"], r["length"]) in cells]
        d = LadderData.from_records(sub)
        q = spin_update_entries(sub, d, resamples=resamples, model=None)["0.5"]
        per[str(sd)] = {k: q.get(k) for k in ("tts99_spin_updates", "low_spin_updates",
                                              "high_spin_updates", "optimal_length_spin_updates",
                                              "text_spin_updates")}
    lows = [v["low_spin_updates"] or 0.0 for v in per.values()]
    highs = [math.inf if v["high_spin_updates"] is None else v["high_spin_updates"]
             for v in per.values()]
    return {"seeds": per, "instances": len({i for i, _ in cells}),
            "intervals_overlap": max(lows) <= min(highs)}


def fits_spin_updates(points: Sequence[tuple], *, generated: Sequence[str],
                      min_instances: int = FIT_MIN_INSTANCES) -> dict[str, Any]:
    """Fits of the median (and the other quantiles) in spin updates over janko sizes with at
    least FIT_MIN_INSTANCES puzzles and an interior optimum, with and without 10x10; the
    generated sizes (and janko sizes with fewer puzzles, e.g. 40x30's five) apart.
    ``points``: (size, cells, instances, q, tts, replicates, interior)."""
    out: dict[str, Any] = {
        "description": ("a description of TTS99 over the janko sizes fitted (about 100 to 900 "
                        "cells), not an asymptotic law: three or four sizes, each with its own "
                        "population of puzzles"),
        "rule": f"janko sizes with >= {min_instances} puzzles and an interior optimum",
        "apart": sorted({p[0].split()[0] for p in points if p[0] in generated or
                         p[2] < min_instances})}
    for q in QUANTILES:
        use = [p for p in points if p[3] == q and p[6] and p[0] not in generated
               and p[2] >= min_instances and p[4] is not None and math.isfinite(p[4])]
        fq = {}
        for tag, pts in (("with_10x10", use), ("without_10x10",
                                                [p for p in use if p[0] != "10x10"])):
            fq[tag] = {"sizes": [p[0] for p in pts],
                       "poly_cells": fit_with_steps([p[1] for p in pts], [p[4] for p in pts],
                                                    [p[5] for p in pts], model="poly",
                                                    x="cells"),
                       "exp_cells": fit_with_steps([p[1] for p in pts], [p[4] for p in pts],
                                                   [p[5] for p in pts], model="exp", x="cells")}
        out[str(q)] = fq
    return out


def spearman(records: Sequence[dict], summary: Mapping[str, Any], *, resamples: int = 1000,
             seed: int = 0) -> list[dict[str, Any]]:
    """Per size and pair of samplers: Spearman's rank correlation over the puzzles both measured
    of their TTS99 in spin updates, each at its own median-optimal length (a puzzle never
    solved there ranks last, tied), with the percentile interval over puzzles resampled."""
    from scipy.stats import rankdata

    by: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
    for name, d in summary["samplers"].items():
        if name in EXACT:
            continue
        for z, e in d["sizes"].items():
            L = e["quantiles"]["0.5"].get("optimal_length_spin_updates")
            if L is None:
                continue
            acc: dict[str, list] = defaultdict(lambda: [0, 0, 0])
            for r in pooled(records):
                if r["sampler"] == name and r.get("size") == z and r["length"] == L:
                    a = acc[r["instance"]]
                    a[0] += r["successes"]
                    a[1] += r["reads"]
                    a[2] = int(r["variables"])
            by[(name, z)] = {i: float(repeats_for(a[0] / a[1])) * L * a[2]
                             for i, a in acc.items() if a[1]}
    out = []
    rng = np.random.default_rng(seed)
    names = sorted({n for n, _ in by})
    for size in sorted({z for _, z in by}, key=lambda z: math.prod(map(int, z.split("x")))):
        for i, na in enumerate(names):
            for b in names[i + 1:]:
                A, B = by.get((na, size), {}), by.get((b, size), {})
                common = sorted(set(A) & set(B))
                if len(common) < 5:
                    continue
                x = np.array([A[k] for k in common])
                y = np.array([B[k] for k in common])

                def rho(ix: np.ndarray, x=x, y=y) -> float:  # x, y bound: used in this pass
                    rx, ry = rankdata(x[ix]), rankdata(y[ix])
                    if rx.std() == 0 or ry.std() == 0:
                        return math.nan
                    return float(np.corrcoef(rx, ry)[0, 1])
                full = rho(np.arange(len(common)))
                reps = np.array([rho(rng.integers(len(common), size=len(common)))
                                 for _ in range(resamples)])
                reps = reps[np.isfinite(reps)]
                lo, hi = (np.quantile(reps, [0.025, 0.975]) if len(reps) else (math.nan,) * 2)
                out.append({"size": size, "a": na, "b": b, "instances": len(common),
                            "rho": _num(full), "low": _num(float(lo)), "high": _num(float(hi))})
    return out


def both_ways(summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every sampler against every exact baseline per size and quantile, CPU TTS99 against the
    baseline's time to the uniqueness proof, with set-up excluded on both sides (sampling only;
    the baseline's time less its model build) and included on both (the sampler's median set-up
    per record added; the baseline as timed): ``holds_both_ways`` when both ratios are on the
    same side of 1."""
    rows = []
    sams = summary["samplers"]
    for name, d in sams.items():
        if name in EXACT:
            continue
        for base in EXACT:
            if base not in sams:
                continue
            for z, e in d["sizes"].items():
                b = sams[base]["sizes"].get(z)
                if not b:
                    continue
                for q, o in e["quantiles"].items():
                    t = o.get("tts99_cpu_s", o.get("tts99_s"))
                    bt = b["uniqueness"][q]["time_s"]
                    bx = b["uniqueness"][q].get("time_excl_build_s")
                    setup = e.get("setup_cpu_s_for_comparison") or e.get("median_setup_cpu_s")
                    if t is None or bt is None or setup is None:
                        continue
                    inc = (t + setup) / bt
                    exc = t / bx if bx else None
                    rows.append({"sampler": name, "baseline": base, "size": z, "q": q,
                                 "ratio_setup_included": round(inc, 4),
                                 "ratio_setup_excluded": None if exc is None else round(exc, 4),
                                 "holds_both_ways": None if exc is None else
                                 (inc > 1) == (exc > 1),
                                 "verdict": _verdict(o, b["uniqueness"][q], setup, bx)})
    return rows


def _verdict(o: Mapping[str, Any], b: Mapping[str, Any], setup: float,
             bx: float | None) -> str:
    """"faster" or "slower" when the sampler's 95 % interval lies wholly on one side of the
    baseline's, both with set-up included (the baseline's interval, the sampler's ends plus
    its set-up) and excluded (the baseline's point time less its build: its interval without
    the build is not kept); "not resolved" otherwise. What README and notebooks may claim."""
    lo = o.get("low_cpu_s", o.get("low_s"))
    hi = o.get("high_cpu_s", o.get("high_s"))
    blo, bhi = b.get("low_s"), b.get("high_s")
    if lo is None or blo is None or bhi is None or bx is None:
        return "not resolved"
    hi = math.inf if hi is None else hi
    if hi + setup < blo and hi < bx:
        return "faster"
    if lo + setup > bhi and lo > bx:
        return "slower"
    return "not resolved"


def table_spin_updates(summary: Mapping[str, Any], min_instances: int = 1) -> str:
    """Release 2's figures as markdown: per sampler, size and quantile TTS99 in spin updates and
    CPU with intervals (a bound marked, an unsolved quantile as '> detection limit'); per size
    the two classes (line propagation decides the puzzle or not); the fits in spin updates with
    and without 10x10; the comparisons with set-up excluded and included."""
    def iv(v, lo, hi, unit=""):
        def f(x): return "inf" if x is None else f"{x:.3g}"
        return f"{f(v)}{unit} [{f(lo)}, {f(hi)}]"

    rows, cls, fits = [], [], []
    for name, d in sorted(summary["samplers"].items()):
        if name in EXACT:
            continue
        for z, e in d["sizes"].items():
            if e["instances"] < min_instances or "work_unit" not in e:
                continue
            for q, o in e["quantiles"].items():
                if o.get("tts99_spin_updates") is None:
                    su = o.get("text_spin_updates", "unsolved")
                    cpu = f"> {o['detection_limit_s']:.3g} s" if o.get("detection_limit_s") \
                        else "unsolved"
                else:
                    tag = "" if o.get("interior_spin_updates") else ", bound"
                    su = iv(o["tts99_spin_updates"], o["low_spin_updates"],
                            o["high_spin_updates"]) + \
                        f" (L*={o['optimal_length_spin_updates']:,}{tag})"
                    cpu = iv(o.get("tts99_s"), o.get("low_s"), o.get("high_s"), " s") + \
                        f" ({o.get('cpu_from')})"
                rows.append(f"| {name} | {z} | {e['instances']} | {q} | {su} | {cpu} |")
            for k, c in (e.get("classes") or {}).items():
                m = c.get("median") or {}
                cls.append(f"| {name} | {z} | {k.replace('_', ' ')} | {c['instances']} | "
                           + (iv(m.get("tts99_spin_updates"), m.get("low_spin_updates"),
                                 m.get("high_spin_updates"))
                              if m.get("tts99_spin_updates") is not None
                              else m.get("text_spin_updates", "-")) + " |")
        fsu = d.get("fits_spin_updates") or {}
        for q in ("0.5", "0.75", "0.9"):
            for tag in ("with_10x10", "without_10x10"):
                f = (fsu.get(q) or {}).get(tag) or {}
                pc = f.get("poly_cells")
                if pc:
                    fits.append(f"| {name} | {q} | {tag.replace('_', ' ')} | "
                                f"{', '.join(f['sizes'])} | "
                                f"{iv(pc['exponent'], pc['low'], pc['high'])} |")
    if not rows:
        return ""
    out = ["TTS99 in spin updates (the unit any machine reproduces) and in CPU (from the "
           "calibration, or the records), 95 % intervals; L* the optimal length in spin updates",
           "", "| sampler | size | n | q | spin updates (L*) | CPU |", "|---|---|---|---|---|---|",
           *rows]
    if cls:
        out += ["", "Median per class: does line propagation alone decide the puzzle?", "",
                "| sampler | size | class | n | median TTS99, spin updates |",
                "|---|---|---|---|---|", *cls]
    if fits:
        out += ["", "Fits in spin updates, cells^b (" + summary.get("median", "")[:0] +
                "janko sizes with >= 90 puzzles and an interior optimum; a description over "
                "about 100 to 900 cells, not an asymptotic law)", "",
                "| sampler | q | | sizes | b [95 %] |", "|---|---|---|---|---|", *fits]
    comps = summary.get("comparisons") or []
    if comps:
        out += ["", "Against the exact baselines' uniqueness proof (ratio of CPU TTS99 to it)",
                "", "| sampler | baseline | size | q | set-up excluded | set-up included | "
                "holds both ways |", "|---|---|---|---|---|---|---|"]
        out += [f"| {c['sampler']} | {c['baseline']} | {c['size']} | {c['q']} | "
                f"{c['ratio_setup_excluded']} | {c['ratio_setup_included']} | "
                f"{c['holds_both_ways']} |" for c in comps]
    return "\n".join(out)


# -- the window sticker ---------------------------------------------------------------------------

def ratio_interval(user: Sequence[float | None], base: Sequence[float | None], *,
                   seed: int = 0) -> tuple[float | None, float | None]:
    """95 % percentile interval of user / base over independently paired bootstrap replicates
    (the two bootstraps are independent: a random pairing is a draw of the ratio's)."""
    u = np.array([np.inf if v is None else v for v in user], dtype=float)
    b = np.array([np.inf if v is None else v for v in base], dtype=float)
    if not len(u) or not len(b):
        return None, None
    rng = np.random.default_rng(seed)
    k = min(len(u), len(b))
    with np.errstate(invalid="ignore", divide="ignore"):
        r = rng.permutation(u)[:k] / rng.permutation(b)[:k]
    r = np.where(np.isnan(r), np.inf, r)   # inf / inf: unbounded
    lo, hi = np.quantile(r, [0.025, 0.975], method="inverted_cdf")
    return _num(float(lo)), _num(float(hi))


def sticker(user: Mapping[str, Any], baseline: Mapping[str, Any], name: str, *,
            base_sampler: str = "sa", base_model: Mapping[str, Mapping] | None = None) -> str:
    """The window sticker: per size and quantile the user's sampler's TTS99 in spin updates and
    CPU (intervals), the baseline sampler's (``baseline``: a summary, its CPU from
    ``base_model``, this session's calibration of it, when given) and the ratio user / baseline
    in spin updates with its interval."""
    def fmt(v: float | None, lo: float | None, hi: float | None, unit: str = "") -> str:
        if v is None:
            return f"> {lo:.3g}{unit}" if lo is not None else "unsolved"
        def f(x): return "inf" if x is None else f"{x:.3g}"
        return f"{v:.3g}{unit} [{f(lo)}, {f(hi)}]"

    lines = [f"Window sticker: {name} against {base_sampler} ({baseline.get('study', '?')}), "
             f"TTS99 at each quantile's optimal length, 95 % intervals",
             "",
             f"| size | n | q | {name}: spin updates | {name}: CPU | {base_sampler}: spin updates"
             f" | {base_sampler}: CPU | ratio (spin updates) |",
             "|---|---|---|---|---|---|---|---|"]
    mine = user["samplers"].get(name, {}).get("sizes", {})
    theirs = baseline["samplers"].get(base_sampler, {}).get("sizes", {})
    for z, e in mine.items():
        b = theirs.get(z)
        for q, o in e["quantiles"].items():
            su = (fmt(o.get("tts99_spin_updates"), o.get("low_spin_updates"),
                      o.get("high_spin_updates"))
                  if o.get("tts99_spin_updates") is not None
                  else f"> {o['detection_limit_spin_updates']:.3g}")
            cpu = fmt(o.get("tts99_cpu_s"), o.get("low_cpu_s"), o.get("high_cpu_s"), " s") \
                if o.get("cpu_from") == "calibration" else "no calibration"
            if b is None:
                lines.append(f"| {z} | {e['instances']} | {q} | {su} | {cpu} | not in the "
                             f"baseline | | |")
                continue
            bo = b["quantiles"][q]
            bsu = fmt(bo.get("tts99_spin_updates"), bo.get("low_spin_updates"),
                      bo.get("high_spin_updates"))
            bm = (base_model or {}).get(z)
            if bm and bo.get("tts99_spin_updates") is not None:
                # the baseline's CPU on this machine: its work at its optimum at this session's
                # cost model
                # per spin update c, and the per-read constant a over the reads (the work
                # over one read's work at the optimum, at the size's median variables)
                per = bm["c_s"] + bm["a_s"] / max(1.0, (bo.get("optimal_length_spin_updates")
                                                        or 1) * b.get("median_variables", 1))
                t = bo["tts99_spin_updates"] * per
                lo = (bo.get("low_spin_updates") or 0) * per / (1 + bm["spread"])
                hi = None if bo.get("high_spin_updates") is None else \
                    bo["high_spin_updates"] * per * (1 + bm["spread"])
                bcpu = fmt(t, lo, hi, " s")
            else:
                bcpu = fmt(bo.get("tts99_s"), bo.get("low_s"), bo.get("high_s"), " s") + \
                    " (baseline's records)"
            r = None
            if o.get("tts99_spin_updates") is not None and bo.get("tts99_spin_updates"):
                r = o["tts99_spin_updates"] / bo["tts99_spin_updates"]
            lo, hi = ratio_interval(o.get("replicates_spin_updates") or [],
                                    bo.get("replicates_spin_updates") or [])
            ratio = ("n/a" if r is None else f"{r:.3g}") + (
                f" [{'0' if lo is None else format(lo, '.3g')}, "
                f"{'inf' if hi is None else format(hi, '.3g')}]"
                if o.get("replicates_spin_updates") and bo.get("replicates_spin_updates")
                else "")
            lines.append(f"| {z} | {e['instances']} | {q} | {su} | {cpu} | {bsu} | {bcpu} | "
                         f"{ratio} |")
    lines += ["", "Spin updates: length x variables per read (the sampler's sweeps); CPU: "
              "spin updates x this session's calibrated cost per spin update plus a per-read "
              "constant, widened by the calibration's spread. A quantile no length solves reads "
              "'> L', L the detection limit (TTS99 of one success in R_max reads at the longest "
              "length)."]
    return "\n".join(lines)


def timed(f, *a, **k) -> tuple[Any, float]:
    t = time.perf_counter()
    return f(*a, **k), time.perf_counter() - t
