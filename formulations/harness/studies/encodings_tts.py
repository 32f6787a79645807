"""The encodings study of ``bench/encodings_tts.py`` (docs/encodings.md): the disjoint training
and test puzzles, the configurations tried while tuning, the two-phase planner, the chosen
settings and the tables (optimal TTS99 per quantile, paired ratios to order, success curves)."""
from __future__ import annotations

import json
import math
import os
import random
import sys
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ...analysis.optimal import (
    QUANTILES,
    LadderData,
    QuantileOptimum,
    extend_ladder,
    ladder_index,
    ladder_length,
    optimal_tts,
    percentile_interval,
    quantile,
    resampled_tts,
)
from ...analysis.stats import repeats_for
from ...model import ENCODINGS
from ...model.penalty import FAMILY_WEIGHTS
from ..records import format_value
from ..study import REPO, RecordFile, Task, corpus_root, estimate_cost, load, pooled

ROOT = REPO   # the checkout: the puzzle list and the records live in it

JANKO_REL = "puzzlekit-dataset-janko/Nonogram_dataset.json"
OUT = ROOT / "bench" / "results" / "encodings"
PUZZLES = ROOT / "bench" / "encodings_puzzles.txt"
STUDY = "encodings-2"
SELECT_SEED = 29
TRAIN_PER_SIZE = {"10x10": 8}                 # training puzzles per size
TEST_PER_SIZE = {"10x10": 16, "15x15": 12}    # test puzzles per size
DRAWN = {"10x10": 32, "15x15": 16}            # keys drawn per size: train first, then test
SAMPLERS = ("sa", "tabu")
SCALES = (1.0, 0.5, 2.0)              # structural weights x their defaults (first: the default)
BETAS = ((1.0, 10.0), (0.3, 10.0), (1.0, 30.0))  # sa, units of 1 / min weight (first: default)
STRUCTURAL = {"order": ("monotone", "order"), "onehot": ("exactly_one", "clash"),
              "automaton": ("one_state", "transition")}
BASE = 100.0                          # every ladder is a subset of 100 * sqrt(2)^k
GUESS = {("sa", "order"): 141, ("sa", "onehot"): 200, ("sa", "automaton"): 1600,
         ("tabu", "order"): 25600, ("tabu", "onehot"): 25600, ("tabu", "automaton"): 25600}
MIN_LENGTH = {"sa": 10, "tabu": 100}
MAX_LENGTH = {"sa": 32000, "tabu": 204800}


@dataclass(frozen=True)
class Phase:
    """How much one phase measures: reads and sampling CPU per record, the first ladder (the
    centre and ``span`` sqrt(2) steps either side) and at most ``steps`` extensions."""
    name: str
    reads: int
    budget: float
    span: int
    steps: int
    quantiles: tuple[float, ...]


TUNE = Phase("tune", reads=60, budget=1.0, span=1, steps=2, quantiles=(0.5,))
TEST = Phase("test", reads=100, budget=1.0, span=2, steps=3, quantiles=QUANTILES)
RESAMPLES = 1000


# -- the puzzles ----------------------------------------------------------------------------------

def select(train: dict[str, int] = TRAIN_PER_SIZE, test: dict[str, int] = TEST_PER_SIZE,
           seed: int = SELECT_SEED, drawn: dict[str, int] = DRAWN) -> dict[str, dict[str, list[str]]]:
    """Seeded samples of janko keys: per size ``random.Random(f"{seed}-{size}")`` draws
    ``drawn`` keys from the size's keys sorted by id; the first ``train`` of them train, the
    next ``test`` test (the rest unused: the sizes were cut to the machine's time)."""
    from formulations.io import iter_janko

    keys: dict[str, list[str]] = defaultdict(list)
    for key, _p, _ in iter_janko(corpus_root() / JANKO_REL):
        keys[key.rsplit("_", 1)[-1]].append(key)
    out: dict[str, dict[str, list[str]]] = {"train": {}, "test": {}}
    for size in sorted(set(train) | set(test), key=cells_of):
        ks = sorted(keys[size], key=lambda k: (int(k.split("_")[0]), k))
        n_tr, n_te = train.get(size, 0), test.get(size, 0)
        n = max(drawn.get(size, 0), n_tr + n_te)
        draw = random.Random(f"{seed}-{size}").sample(ks, min(len(ks), n))
        out["train"][size], out["test"][size] = draw[:n_tr], draw[n_tr:n_tr + n_te]
    return out


def write_selection(sel: dict, path: Path = PUZZLES) -> None:
    """Writes the train/test list (one ``PHASE REF`` a line, commented)."""
    lines = [f"# the encodings study's puzzles (bench/encodings_tts.py select): janko keys of "
             f"{JANKO_REL} in the corpus, or paths",
             f"# per size random.Random('{SELECT_SEED}-SIZE').sample(keys sorted by id, "
             f"{DRAWN}); the first drawn train, the next test. Train and test never overlap."]
    for phase in ("train", "test"):
        for size, keys in sel[phase].items():
            if not keys:
                continue
            lines.append(f"# {phase} {size}: {len(keys)}")
            lines += [f"{phase} {k}" for k in keys]
    path.write_text("\n".join(lines) + "\n")


@dataclass(frozen=True)
class Puzzles:
    """Training and test instances per size; ``source`` maps an instance to what
    :func:`formulations.harness.study.load` reads."""
    train: dict[str, list[str]]
    test: dict[str, list[str]]
    source: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        tr = {k for v in self.train.values() for k in v}
        te = {k for v in self.test.values() for k in v}
        if tr & te:
            raise ValueError(f"training and test puzzles overlap: {sorted(tr & te)[:5]}")


def read_selection(path: Path = PUZZLES) -> Puzzles:
    """The committed list: lines ``train KEY`` or ``test KEY`` (a janko key, or a puzzle file's
    path relative to the repository); refuses an overlap between the two sets."""
    if not path.is_file():
        sys.exit(f"{path}: missing; run `python bench/encodings_tts.py select`")
    sets: dict[str, dict[str, list[str]]] = {"train": defaultdict(list), "test": defaultdict(list)}
    source: dict[str, str] = {}
    for n, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        phase, _, ref = line.partition(" ")
        ref = ref.strip()
        if phase not in sets or not ref:
            sys.exit(f"{path}:{n}: expected 'train KEY' or 'test KEY', got {line!r}")
        if ref.endswith(".txt") or "/" in ref:
            p = Path(ref) if Path(ref).is_absolute() else ROOT / ref
            name, src = p.stem, str(p)
            pz = load(src)
            size = f"{pz.height}x{pz.width}"
        else:
            name, src, size = ref, f"corpus:{JANKO_REL}::{ref}", ref.rsplit("_", 1)[-1]
        sets[phase][size].append(name)
        source[name] = src
    try:
        return Puzzles(dict(sets["train"]), dict(sets["test"]), source)
    except ValueError as exc:
        sys.exit(f"{path}: {exc}")


# -- configurations -------------------------------------------------------------------------------

@dataclass(frozen=True, order=True)
class Config:
    """One setting of an encoding and sampler: the variant, the structural weights' scale and
    sa's beta range (units of 1 / smallest weight; None: the backend's default (1, 10))."""
    encoding: str
    sampler: str
    use_x: bool = False
    scale: float = 1.0
    beta: tuple[float, float] | None = None

    def weights(self) -> tuple[tuple[str, float], ...] | None:
        if self.scale == 1.0:
            return None  # the defaults: the records' keys say nothing of weights
        return tuple(sorted((f, FAMILY_WEIGHTS[f] * self.scale) for f in STRUCTURAL[self.encoding]))

    def beta_range(self) -> tuple[float, float] | None:
        """sa's beta range for ``Task.beta_range`` (absolute): ``beta`` over the configuration's
        smallest weight (links weigh 1), as the backend scales its default; None: the default."""
        if self.beta is None:
            return None
        w = min([1.0] + [FAMILY_WEIGHTS[f] * self.scale for f in STRUCTURAL[self.encoding]])
        return (self.beta[0] / w, self.beta[1] / w)

    def label(self) -> str:
        b = self.beta or BETAS[0]
        return (f"{self.encoding}/{self.sampler} x={int(self.use_x)} w*{self.scale:g}"
                + (f" beta={b[0]:g}..{b[1]:g}" if self.sampler == "sa" else ""))

    def to_dict(self) -> dict:
        w = dict(self.weights() or ((f, FAMILY_WEIGHTS[f]) for f in STRUCTURAL[self.encoding]))
        out = {"encoding": self.encoding, "sampler": self.sampler, "use_x": self.use_x,
               "weight_scale": self.scale, "weights": {**w, "link": FAMILY_WEIGHTS["link"]}}
        if self.sampler == "sa":
            out["beta_range_per_min_weight"] = list(self.beta or BETAS[0])
        return out


def stage_a(encoding: str, sampler: str, scales: Sequence[float] = SCALES) -> list[Config]:
    """Stage A's configurations: with and without x, each scale of the structural weights."""
    return [Config(encoding, sampler, ux, s) for ux in (False, True) for s in scales]


def stage_b(best: Config, betas: Sequence[tuple[float, float]] = BETAS) -> list[Config]:
    """Stage B (sa only): stage A's best with each other beta range."""
    if best.sampler != "sa":
        return []
    return [Config(best.encoding, best.sampler, best.use_x, best.scale, (b[0], b[1]))
            for b in betas if tuple(b) != BETAS[0]]


# -- the plan: ladders per configuration and size -------------------------------------------------

@dataclass
class Group:
    """One ladder: a configuration on a set of instances."""
    phase: Phase
    config: Config
    size: str
    instances: tuple[str, ...]
    centre: int


@dataclass
class Outcome:
    """A finished ladder: its records and per-quantile optima (``complete`` False while tasks
    are missing)."""
    complete: bool
    records: list[dict]
    lengths: list[int]
    missing: list[Task]
    optima: list[QuantileOptimum] | None = None


class Planner:
    """``plan(records)`` for :func:`run_tasks`: tuning ladders first (stage A, then B), then each
    encoding and sampler's test ladders once its tuning is complete. Decisions depend on the
    records only, so a resumed run replays them."""

    def __init__(self, puzzles: Puzzles, encodings: Sequence[str] = ENCODINGS,
                 samplers: Sequence[str] = SAMPLERS, *, scales: Sequence[float] = SCALES,
                 betas: Sequence[tuple[float, float]] = BETAS, tune: Phase = TUNE,
                 test: Phase = TEST):
        self.puzzles, self.encodings, self.samplers = puzzles, list(encodings), list(samplers)
        self.scales, self.betas = list(scales), [(b[0], b[1]) for b in betas]
        self.tune, self.test = tune, test
        self._decided: dict[tuple, tuple[list[QuantileOptimum], list[int]]] = {}
        self._sizes: dict[tuple, tuple[int, int]] = {}

    # one ladder
    def task(self, g: Group, instance: str, length: int) -> Task:
        c = g.config
        return Task(f"{STUDY}-{g.phase.name}", instance, self.puzzles.source[instance], c.sampler,
                    length, 0, reads=g.phase.reads, reads_per_call=10,
                    cpu_budget_s=g.phase.budget, use_x=c.use_x, encoding=c.encoding,
                    weights=c.weights(), beta_range=c.beta_range())

    def initial(self, g: Group) -> list[int]:
        s = g.config.sampler
        k0 = ladder_index(max(g.centre, 1), BASE)
        out = [ladder_length(k, BASE) for k in range(k0 - g.phase.span, k0 + g.phase.span + 1)]
        return sorted({min(max(n, MIN_LENGTH[s]), MAX_LENGTH[s]) for n in out})

    def outcome(self, g: Group, records: dict[str, dict]) -> Outcome:
        """Replay the ladder's growth from the records."""
        lengths = self.initial(g)
        for step in range(g.phase.steps + 1):
            tasks = [self.task(g, i, n) for n in lengths for i in g.instances]
            missing = [t for t in tasks if t.key not in records]
            have = [records[t.key] for t in tasks if t.key in records]
            if missing:
                return Outcome(False, have, lengths, missing)
            # a complete ladder's records never change: its optima and extension are cached
            key = (g.phase, g.config, g.size, g.instances, tuple(lengths))
            if key not in self._decided:
                s = g.config.sampler
                # the ladder grew (and grows) by the data's argmin alone, as when the study was
                # run; two resamples cannot say where replicates' minima sit. The figures
                # reported (test_summary) use the replicates' rule: a flat stretch is a bound.
                optima = optimal_tts(LadderData.from_records(pooled(have)), g.phase.quantiles,
                                     resamples=2, edge_share_max=1.0)
                self._decided[key] = (optima, extend_ladder(lengths, optima, base=BASE,
                                                            min_length=MIN_LENGTH[s],
                                                            max_length=MAX_LENGTH[s]))
            optima, add = self._decided[key]
            if step == g.phase.steps:
                return Outcome(True, have, lengths, [], optima)
            if not add:
                return Outcome(True, have, lengths, [], optima)
            lengths = sorted(set(lengths) | set(add))
        raise AssertionError("unreachable")

    # tuning
    def tune_groups(self, encoding: str, sampler: str, records: dict[str, dict]
                    ) -> tuple[list[tuple[Group, Outcome]], Config | None]:
        """The tuning ladders of one encoding and sampler so far, and the chosen configuration
        once every ladder is complete (None before)."""
        out: list[tuple[Group, Outcome]] = []
        centre = GUESS.get((sampler, encoding), 1000)

        def run(configs: Iterable[Config]) -> bool:
            done = True
            for c in configs:
                for size, insts in self.puzzles.train.items():
                    g = Group(self.tune, c, size, tuple(insts), centre)
                    o = self.outcome(g, records)
                    out.append((g, o))
                    done &= o.complete
            return done

        if not run(stage_a(encoding, sampler, self.scales)):
            return out, None
        best = choose([(g.config, o) for g, o in out])
        if not run(stage_b(best, self.betas)):
            return out, None
        return out, choose([(g.config, o) for g, o in out])

    def __call__(self, records: dict[str, dict]) -> list[Task]:
        tasks: list[Task] = []
        tests: list[Task] = []
        for enc in self.encodings:
            for s in self.samplers:
                groups, best = self.tune_groups(enc, s, records)
                tasks += [t for _, o in groups for t in o.missing]
                if best is None:
                    continue
                for size, insts in self.puzzles.test.items():
                    g = Group(self.test, best, size, tuple(insts), self.centre(best, groups, size))
                    tests += self.outcome(g, records).missing
        tests.sort(key=lambda t: cells_of(t.instance.rsplit("_", 1)[-1]) if "_" in t.instance else 0)
        return tasks + tests

    def centre(self, best: Config, groups: Sequence[tuple[Group, Outcome]], size: str) -> int:
        """Where a test ladder starts: the tuned length (the training median's optimum); for
        sa times the ratio of cells to the training puzzles' (longer anneals for larger
        puzzles; the ladder's extensions find the optimum from there). tabu's reads stop at
        the ground state, so its length is kept."""
        length = tuned_length(best, groups) or GUESS.get((best.sampler, best.encoding), 1000)
        train = [z for z, ks in self.puzzles.train.items() if ks]
        if best.sampler == "sa" and train and cells_of(train[0]) and cells_of(size):
            length = int(round(length * cells_of(size) / cells_of(train[0])))
        return length

    def test_groups(self, records: dict[str, dict]) -> list[tuple[Group, Outcome]]:
        out = []
        for enc in self.encodings:
            for s in self.samplers:
                groups, best = self.tune_groups(enc, s, records)
                if best is None:
                    continue
                for size, insts in self.puzzles.test.items():
                    g = Group(self.test, best, size, tuple(insts), self.centre(best, groups, size))
                    out.append((g, self.outcome(g, records)))
        return out

    def cost(self, t: Task) -> float:
        """A task's estimated CPU seconds (for the progress bar), from its QUBO's size."""
        size = next((z for ph in (self.puzzles.train, self.puzzles.test)
                     for z, ks in ph.items() if t.instance in ks), "")
        key = (size, t.encoding, t.use_x)  # the first instance of its size stands for all
        if key not in self._sizes:
            from formulations.model import build_model
            from formulations.model.penalty import lower
            pen = lower(build_model(load(t.source), use_x=t.use_x, encoding=t.encoding))
            self._sizes[key] = (pen.num_variables, len(pen.qv))
        return estimate_cost(t, *self._sizes[key])


def choose(candidates: Sequence[tuple[Config, Outcome]]) -> Config:
    """The configuration with the lowest median optimal TTS99 over the training puzzles (on
    ties, the first listed: the default)."""
    def score(co: tuple[Config, Outcome]) -> float:
        o = co[1].optima[0] if co[1].optima else None
        return o.tts99_s if o is not None else math.inf
    return min(candidates, key=score)[0]


def tuned_length(best: Config, groups: Sequence[tuple[Group, Outcome]]) -> int | None:
    """The tuned configuration's optimal length on the training puzzles (None: no optimum)."""
    for g, o in groups:
        if g.config == best and o.optima:
            return o.optima[0].optimal_length
    return None


# -- analysis (the notebook's too) ------------------------------------------------------------------

def cells_of(size: str) -> int:
    """The cells of a size ``HxW`` (0 when the name is not one): sizes sort by it."""
    try:
        h, w = (int(v) for v in size.split("x"))
    except ValueError:
        return 0
    return h * w


def _num(v: float | None) -> float | None:
    return None if v is None or not math.isfinite(v) else float(v)


def read_records(path: Path = OUT / "records.jsonl.gz") -> list[dict]:
    """The study's records; exits with the command to run when there are none."""
    recs = RecordFile(path).read() if path.is_file() else []
    if not recs:
        raise FileNotFoundError(f"no encodings records at {path}: run `nice -n 19 python "
                                f"bench/encodings_tts.py run` first")
    return recs


def time_spread(rs: Sequence[dict]) -> float:
    """The relative uncertainty of a record's mean CPU time per read (the release's rule:
    ``bench/release.py`` ``time_spread``)."""
    from formulations.harness.release import time_spread as spread
    return spread(rs)


def tuning_table(planner: Planner, records: dict[str, dict], resamples: int = 200) -> list[dict]:
    """Per configuration tried: the training median's optimal length and TTS99 with its
    two-level bootstrap interval, and which one was chosen."""
    rows = []
    for enc in planner.encodings:
        for s in planner.samplers:
            groups, best = planner.tune_groups(enc, s, records)
            for g, o in groups:
                if not o.complete:
                    continue
                rs = pooled(o.records)
                opt = optimal_tts(LadderData.from_records(rs), (0.5,), resamples=resamples,
                                  t_spread=time_spread(rs))[0]
                rows.append({"encoding": enc, "sampler": s, "x": g.config.use_x,
                             "w_scale": g.config.scale,
                             "beta": "-" if s != "sa" else "{:g}..{:g}".format(*(g.config.beta or BETAS[0])),
                             "lengths": f"{o.lengths[0]}-{o.lengths[-1]} ({len(o.lengths)})",
                             "L*": opt.optimal_length, "interior": opt.interior,
                             "median_tts99_ms": _ms(opt.tts99_s), "low_ms": _ms(opt.low_s),
                             "high_ms": _ms(opt.high_s), "solved": f"{opt.solved}/{opt.instances}",
                             "chosen": g.config == best})
    return rows


def _ms(v: float | None) -> float | None:
    v = _num(v)
    return None if v is None else 1e3 * v


def tuned_settings(planner: Planner, records: dict[str, dict]) -> dict[str, Any]:
    """tuned.json: per encoding and sampler the chosen configuration, its training score and
    how many configurations were tried."""
    out: dict[str, Any] = {"study": STUDY, "criterion": "median over the training puzzles of "
                           "TTS99 at the anneal length minimising that median (CPU s)",
                           "training": {z: len(k) for z, k in planner.puzzles.train.items()},
                           "settings": {}}
    for enc in planner.encodings:
        for s in planner.samplers:
            groups, best = planner.tune_groups(enc, s, records)
            if best is None:
                continue
            o = next(o for g, o in groups if g.config == best)
            rs = pooled(o.records)   # reported by the replicates' rule (the replay's is the argmin)
            q = optimal_tts(LadderData.from_records(rs), (0.5,), resamples=RESAMPLES,
                            t_spread=time_spread(rs))[0]
            out["settings"][f"{enc}/{s}"] = {
                **best.to_dict(), "training_median_tts99_s": _num(q.tts99_s),
                "training_optimal_length": q.optimal_length, "interior": q.interior,
                "edge": q.edge, "configurations_tried": len(groups)}
    return out


def test_summary(planner: Planner, records: dict[str, dict], resamples: int = RESAMPLES,
                 seed: int = 0) -> list[dict]:
    """Per encoding, sampler, size and quantile: the optimal length and TTS99 with its
    interval on the test puzzles (a bound when the optimum is at a ladder edge)."""
    rows = []
    for g, o in planner.test_groups(records):
        if not o.complete:
            continue
        rs = pooled(o.records)
        for q in optimal_tts(LadderData.from_records(rs), QUANTILES, resamples=resamples,
                             seed=seed, t_spread=time_spread(rs)):
            rows.append({"encoding": g.config.encoding, "sampler": g.config.sampler,
                         "size": g.size, "q": q.q, "instances": q.instances, "solved": q.solved,
                         "lengths": f"{o.lengths[0]}-{o.lengths[-1]} ({len(o.lengths)})",
                         "L*": q.optimal_length, "interior": q.interior, "edge": q.edge,
                         "tts99_ms": _ms(q.tts99_s), "low_ms": _ms(q.low_s),
                         "high_ms": _ms(q.high_s),
                         "bound_ms": _ms(censored_bound(LadderData.from_records(rs), q.q))})
    return rows


def censored_bound(data: LadderData, q: float, confidence: float = 0.95) -> float:
    """A lower bound on the q-quantile's optimal TTS99 that stays finite when puzzles were never
    solved: each puzzle's TTS99 at each length from the upper end of the Clopper-Pearson
    interval of p (0 successes in R reads still bound p below 1 - (0.025)^(1/R)), then the
    q-quantile over puzzles and its minimum over lengths (each puzzle's bound holds at 97.5 %;
    read as a bound of the data, not a joint confidence statement)."""
    from formulations.analysis.stats import p_interval

    if not data.instances:
        return math.inf
    _, hi = p_interval(data.successes, data.reads, confidence)
    with np.errstate(invalid="ignore"):
        t = np.asarray(data.t_read) * repeats_for(hi)
    t = np.where((data.reads > 0) & np.isfinite(t), t, np.inf)
    return float(quantile(t, q, axis=0).min())


def _replicate_minima(data: LadderData, idx: np.ndarray, rng: np.random.Generator,
                      q: float) -> np.ndarray:
    """Per bootstrap replicate (rows of ``idx``: resampled instances): the q-quantile's
    minimum over lengths after resampling each instance's successes binomially."""
    return quantile(resampled_tts(data, idx, rng), q, axis=1).min(axis=1)


def paired_ratio(base: LadderData, other: LadderData, q: float, *, resamples: int = RESAMPLES,
                 seed: int = 0, confidence: float = 0.95) -> dict[str, Any]:
    """other / base of the q-quantile's optimal TTS99 on the same instances, with a paired
    bootstrap interval: each replicate resamples the instances once for both encodings, then
    each encoding's reads. A replicate where base is inf gives an undefined ratio, counted as
    0 for the lower end and inf for the upper (conservative both ways)."""
    if base.instances != other.instances:
        raise ValueError("the ratio needs the same instances for both encodings")
    pb = float(quantile(base.tts(), q, axis=0).min())
    po = float(quantile(other.tts(), q, axis=0).min())
    rng = np.random.default_rng(seed)
    n = len(base.instances)
    idx = rng.integers(n, size=(resamples, n))
    rb, ro = _replicate_minima(base, idx, rng, q), _replicate_minima(other, idx, rng, q)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where(np.isinf(rb), np.nan, ro / rb)  # finite / inf is 0.0, not undefined
    lo, _ = percentile_interval(np.where(np.isnan(r), 0.0, r), confidence)
    _, hi = percentile_interval(np.where(np.isnan(r), np.inf, r), confidence)
    point = po / pb if math.isfinite(pb) and pb > 0 else math.nan
    return {"ratio": point, "low": lo, "high": hi,
            "undefined_replicates": int(np.isnan(r).sum())}


def ratio_table(planner: Planner, records: dict[str, dict], base: str = "order",
                resamples: int = RESAMPLES, seed: int = 0) -> list[dict]:
    """Per other encoding, sampler, size and quantile: other / base optimal TTS99 on the test
    puzzles with its paired bootstrap interval."""
    data: dict[tuple[str, str, str], LadderData] = {}
    for g, o in planner.test_groups(records):
        if o.complete:
            data[(g.config.encoding, g.config.sampler, g.size)] = \
                LadderData.from_records(pooled(o.records))
    rows = []
    for (enc, s, size), d in sorted(data.items(), key=lambda kv: (cells_of(kv[0][2]), kv[0][1])):
        b = data.get((base, s, size))
        if enc == base or b is None:
            continue
        for q in QUANTILES:
            r = paired_ratio(b, d, q, resamples=resamples, seed=seed)
            order_high = optimal_tts(b, (q,), resamples=resamples, seed=seed)[0].high_s
            rows.append({"size": size, "sampler": s, "other": enc, "q": q,
                         "ratio": _num(r["ratio"]) if not math.isnan(r["ratio"]) else None,
                         "low": r["low"], "high": r["high"],
                         # where the other encoding's quantile is unbounded (puzzles never
                         # solved), what the reads drawn still show: its bound / order's high
                         "at_least": censored_bound(d, q) / order_high
                         if math.isfinite(order_high) else None,
                         "undefined_replicates": r["undefined_replicates"]})
    return rows


def success_curves(planner: Planner, records: dict[str, dict]) -> list[dict]:
    """Per encoding, sampler, size and length on the test puzzles: the quartiles over instances
    of the success probability p (reads pooled per instance)."""
    rows = []
    for g, o in planner.test_groups(records):
        d = LadderData.from_records(pooled(o.records))
        if not d.instances:
            continue
        p = d.successes / np.maximum(d.reads, 1)
        for j, n in enumerate(d.lengths):
            col = p[d.reads[:, j] > 0, j]
            if len(col):
                q1, med, q3 = np.quantile(col, [0.25, 0.5, 0.75])
                rows.append({"encoding": g.config.encoding, "sampler": g.config.sampler,
                             "size": g.size, "length": n, "instances": len(col),
                             "p_q1": float(q1), "p_median": float(med), "p_q3": float(q3),
                             "solved_any": int((col > 0).sum())})
    return rows


def fmt(v: Any, digits: int = 3) -> str:
    """A value as the tables print it."""
    return format_value(v, digits)


def interval(v: Any, lo: Any, hi: Any) -> str:
    """A value with its interval, ``v [lo, hi]``."""
    return f"{fmt(v)} [{fmt(lo)}, {fmt(hi)}]"


def status_lines(records: Sequence[dict]) -> list[str]:
    """The records so far, per phase, encoding, sampler and size: how many and their CPU
    (sampling, set-up and the zero-length call)."""
    c: dict[tuple, list] = defaultdict(lambda: [0, 0.0])
    for r in records:
        if "error" in r:
            continue
        a = c[(r["study"], r["encoding"], r["sampler"], r["size"])]
        a[0] += 1
        a[1] += r["cpu_s"] + r["setup_cpu_s"] + (r.get("overhead_cpu_s") or 0.0)
    errors = sum(1 for r in records if "error" in r)
    total = sum(a[1] for a in c.values())
    return [f"{len(records)} records ({errors} errors), {total / 60:.1f} CPU-min measured"] + \
        [f"{k[0]:<20} {k[1]:<10} {k[2]:<5} {k[3]:>6}: {n:>5} records, {cpu:7.1f} CPU-s"
         for k, (n, cpu) in sorted(c.items())]


def write_json(path: Path, data: dict) -> None:
    """Writes ``data`` as indented JSON through a temporary file (a kill leaves the old one)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    os.replace(tmp, path)
