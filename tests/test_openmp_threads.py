"""OpenJij's samplers run on one OpenMP thread in the backend and in the study runner, so that
their CPU time is one read's own work like every other sampler's (and a busy machine does not
stretch their time limit). Checked by the threads the OpenMP runtime starts: with
OMP_NUM_THREADS=4 an unlimited SQASampler call starts 3 pool threads, which stay; a limited one
starts none. In a fresh process, so that no earlier call has started the pool; after the same
calls with dwave's sa, which start every other thread the pipeline has (OpenBLAS's)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("openjij")
pytest.importorskip("threadpoolctl")
pytest.importorskip("dimod")

from helpers import ROOT

SCRIPT = textwrap.dedent("""
    import json, sys, time
    import openjij
    from formulations.solving import solve_puzzle
    from formulations.io import read_puzzle
    from formulations.harness.study import Task, measure

    def threads(at_most=None):
        # a joined sampling thread may still be leaving the kernel's list: wait (up to 3 s)
        # until the count is back at ``at_most``
        end = time.monotonic() + 3
        while True:
            with open("/proc/self/status") as f:
                n = int(next(l for l in f if l.startswith("Threads:")).split()[1])
            if at_most is None or n <= at_most or time.monotonic() > end:
                return n
            time.sleep(0.01)

    house = sys.argv[1]
    # everything but OpenJij's pool first (scipy's OpenBLAS starts its threads at import)
    solve_puzzle(read_puzzle(house), "sa", seed=1, reads=4, sweeps=50)
    measure(Task("t", "house10", house, "sa", 50, 1, reads=4, reads_per_call=2, cpu_budget_s=20))
    out = {"start": threads()}
    for name in ("openjij-sqa", "openjij-sa"):
        res = solve_puzzle(read_puzzle(house), name, seed=1, reads=4, sweeps=50)
        out[name] = [res.status.value, threads(out["start"])]
    rec = measure(Task("t", "house10", house, "openjij-sqa", 50, 1, reads=4, reads_per_call=2,
                       cpu_budget_s=20))
    out["study"] = [rec["reads"], threads(out["start"])]
    # the same call unlimited: the pool starts (the check above could fail)
    from formulations.model import build_model, lower
    bqm = lower(build_model(read_puzzle(house), use_x=False)).to_bqm(labels="index")
    openjij.SQASampler().sample(bqm, num_sweeps=50, num_reads=4, seed=1)
    out["unlimited"] = threads()
    from threadpoolctl import threadpool_info
    out["after"] = [i["num_threads"] for i in threadpool_info() if i["user_api"] == "openmp"]
    print(json.dumps(out))
""")


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="counts threads in /proc")
def test_openjij_samples_on_one_openmp_thread():
    env = {**os.environ, "OMP_NUM_THREADS": "4", "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-c", SCRIPT, str(ROOT / "puzzles" / "house10.txt")],
                         capture_output=True, text=True, env=env, timeout=240, cwd=ROOT)
    assert run.returncode == 0, run.stderr[-2000:]
    out = json.loads(run.stdout.strip().splitlines()[-1])
    start = out["start"]   # the pool would add 3 threads, which stay
    assert out["openjij-sqa"][1] < start + 3 and out["openjij-sa"][1] < start + 3, out
    assert out["study"][0] == 4 and out["study"][1] < start + 3, out
    assert out["unlimited"] >= start + 3, out   # unlimited, the runtime starts its pool
    assert out["after"] and all(n == 4 for n in out["after"]), out  # the limit was restored
