"""p is estimated from every read drawn: the encodings study pools a further batch with a first
batch that had no success (it used to replace it, biasing p high)."""
from __future__ import annotations

import importlib.util
import math
import re
import sys
from pathlib import Path

import pytest

pytest.importorskip("dwave.samplers")

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def enc():
    spec = importlib.util.spec_from_file_location("encodings_tts", ROOT / "bench" / "encodings_tts.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("encodings_tts", mod)  # its dataclasses look their module up
    spec.loader.exec_module(sys.modules["encodings_tts"])
    mod = sys.modules["encodings_tts"]
    mod.VERBOSE = False
    return mod


def test_pool_batches_sums_reads_and_successes(enc):
    a = {"reads": 20, "successes": 0, "t_read_s": 0.001, "t_read_wall_s": 0.002, "best_energy": 3.0}
    b = {"reads": 200, "successes": 1, "t_read_s": 0.002, "t_read_wall_s": 0.003, "best_energy": 0.0}
    row = enc.pool_batches(a, b)
    assert (row["reads"], row["successes"]) == (220, 1) and row["p"] == pytest.approx(1 / 220)
    t = (0.02 + 0.4) / 220
    assert row["t_read_s"] == pytest.approx(t)
    assert row["tts99_s"] == pytest.approx(t * math.log(0.01) / math.log(1 - 1 / 220))
    assert row["tts99_low_s"] < row["tts99_s"] < row["tts99_high_s"] and row["best_energy"] == 0


def test_a_batch_without_success_is_pooled_with_the_next(enc):
    from formulations.io import read_puzzle
    from formulations.model import build_model
    from formulations.model.penalty import penalty_terms

    puzzle = read_puzzle(ROOT / "puzzles" / "house10.txt")
    nm = build_model(puzzle, use_x=False)
    pen = penalty_terms(nm).weighted(None)
    bqm = pen.to_bqm(labels="index")
    # one sweep from random states: no read reaches the ground state
    row = enc.measure("sa", enc.make_sampler("sa"), bqm, pen, nm, puzzle, 1, 20, 7,
                      budget_s=0.05, min_reads=20)
    m = re.match(r"pooled: (\d+) more reads after 0 of 20", row["note"])
    assert m, row["note"]
    assert row["reads"] == 20 + int(m.group(1)) and row["successes"] == 0
    assert math.isfinite(row["tts99_low_s"]) and row["tts99_high_s"] == math.inf
