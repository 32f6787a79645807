"""What the deduction trace (``nf.explain``, issue 43) costs, and what its difficulty level says.

Subcommands (records in ``bench/results/explain/records.jsonl.gz``, one JSON object a line):

* ``cost``    janko's 30x30 puzzles: CPU time of ``lines`` (``solve_lines``, the backend's
  search), of the trace (``explain``) and of the trace without placement counts
  (``explain(counts=False)``), interleaved puzzle by puzzle, each the median of ``--repeats``
  runs with the memo of settled lines emptied before every run; the per-puzzle ratios, their
  median with a bootstrap interval, and the ratio of the totals;
* ``levels``  the difficulty of every puzzle of the corpus sets (janko by size, the other
  folders) and of a sample of each tournament set (``--per-set`` puzzles, spread over the set),
  each with one ``lines`` run's CPU time (for the rank correlation; not a speed figure);
* ``table``   the docs' tables from the records: the level distribution per set, and
  Spearman's rank correlation of the level with ``lines``' CPU time per set and with ``sa``'s
  TTS99 (from the release's records, janko 10x10-30x30), each with a 95 % bootstrap interval.

    python bench/explain_bench.py cost --repeats 3
    python bench/explain_bench.py levels --per-set 25 --time-limit 10
    python bench/explain_bench.py table

The machine is shared: times are CPU (``time.process_time``), ratios are taken within one
puzzle's interleaved runs.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict

from formulations.harness.studies.explain_levels import (
    append,
    corpus_sets,
    cpu,
    janko,
    print_tables,
    read,
    report_cost,
)
from formulations.lines import clear_cache, solve_lines
from formulations.lines.explain import explain


def cmd_cost(args) -> None:
    rows = []
    run = time.strftime("%Y-%m-%dT%H:%M:%S")  # the table shows the latest run's rows
    puzzles = list(janko({(30, 30)}))[:args.limit]
    for n, (key, p) in enumerate(puzzles, 1):
        t = defaultdict(list)
        for _ in range(args.repeats):  # interleaved: each round runs all three
            t["lines"].append(cpu(lambda p=p: solve_lines(p, time_limit=args.time_limit)))
            t["explain"].append(cpu(lambda p=p: explain(p, time_limit=args.time_limit)))
            t["nocounts"].append(cpu(lambda p=p: explain(p, counts=False,
                                                     time_limit=args.time_limit)))
        row = {"kind": "cost", "run": run, "name": key,
               **{k: statistics.median(v) for k, v in t.items()}}
        rows.append(row)
        print(f"{n:>4}/{len(puzzles)} {key:<14} lines {row['lines'] * 1e3:8.2f} ms  explain "
              f"{row['explain'] / row['lines']:6.2f}x  without counts "
              f"{row['nocounts'] / row['lines']:6.2f}x", flush=True)
    append(rows)
    report_cost(rows)


def cmd_levels(args) -> None:
    done = {(r["set"], r["name"]) for r in read("level")}
    batch: list[dict] = []
    n = 0
    for set_name, name, p in corpus_sets(args.per_set):
        if (set_name, name) in done:
            continue
        t0 = time.process_time()
        ex = explain(p, time_limit=args.time_limit)
        ecpu = time.process_time() - t0
        clear_cache()
        t0 = time.process_time()
        r = solve_lines(p, time_limit=args.time_limit)
        lcpu = time.process_time() - t0
        d = ex.difficulty
        batch.append({"kind": "level", "set": set_name, "name": name, "height": p.height,
                      "width": p.width, "colour": not p.is_black_and_white,
                      "status": ex.status.value, "level": d.level, "line_steps": d.line_steps,
                      "probe_steps": d.probe_steps, "max_chain": d.max_chain,
                      "guesses": d.guesses, "beyond_lines": len(d.beyond_lines),
                      "explain_cpu_s": ecpu, "lines_cpu_s": lcpu,
                      "lines_status": r.status.value, "lines_timed_out": r.timed_out})
        n += 1
        if n % 10 == 0:
            append(batch)
            batch = []
            print(f"{n} puzzles; last: {set_name} {name} level {d.level}", flush=True)
    append(batch)
    print(f"{n} puzzles rated")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("cost")
    c.add_argument("--limit", type=int, default=None)
    c.add_argument("--repeats", type=int, default=3)
    c.add_argument("--time-limit", type=float, default=60.0)
    lv = sub.add_parser("levels")
    lv.add_argument("--per-set", type=int, default=25)
    lv.add_argument("--time-limit", type=float, default=10.0)
    sub.add_parser("table")
    args = ap.parse_args(argv)
    {"cost": cmd_cost, "levels": cmd_levels, "table": lambda _args: print_tables()}[args.cmd](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
