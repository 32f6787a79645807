"""Bounded runs at the command line: one JSON answer on every path, inputs that cannot hang or
flood the reader, options checked, the time limit naming its stage, Ctrl-C on every backend."""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import CORPUS_DIR, ROOT
from helpers import interrupt_cli
from helpers import run_cli as run

from formulations import backends
from formulations.io.writers import write_non
from formulations.puzzle import puzzle_from_grid
from formulations.testing.stopwatch import Stopwatch

CAT = str(ROOT / "puzzles" / "cat15.txt")
IMPOSSIBLE = str(ROOT / "puzzles" / "impossible3.txt")
INSTALLED = backends.available_backends()
CORPUS = CORPUS_DIR  # ../shared/corpus, or NONOGRAM_CORPUS


def one_json(p: subprocess.CompletedProcess) -> dict:
    lines = [ln for ln in p.stdout.splitlines() if ln.strip()]
    assert len(lines) == 1, p.stdout
    record = json.loads(lines[0])
    assert record["exit_code"] == p.returncode
    return record


def _big(tmp_path: Path, n: int, seed: int = 1) -> str:
    rng = random.Random(seed)
    grid = tuple(tuple(int(rng.random() < 0.55) for _ in range(n)) for _ in range(n))
    path = tmp_path / f"random{n}.non"
    path.write_text(write_non(puzzle_from_grid(grid)))
    return str(path)


def test_every_outcome_is_one_json_object_with_the_same_keys(tmp_path):
    fifo = tmp_path / "fifo.txt"
    os.mkfifo(fifo)
    cases = [
        ((CAT, "--json"), 0, "solved"),
        ((CAT, "--json", "--backend", "lines", "--unique"), 0, "solved"),
        ((IMPOSSIBLE, "--json"), 1, "infeasible"),
        ((str(tmp_path / "missing.txt"), "--json"), 2, "error"),
        ((str(fifo), "--json"), 2, "error"),
        ((CAT, "--json", "--bogus"), 2, "error"),
        ((CAT, "--json", "--backend", "no-such"), 2, "error"),
        ((CAT, "--json", "--param", "no_such_parameter=1"), 2, "error"),
    ]
    if "sa" in INSTALLED:
        cases += [((IMPOSSIBLE, "--json", "--backend", "sa", "--time-limit", "1"), 1, "unknown"),
                  ((CAT, "--json", "--backend", "exact"), 2, "error"),
                  ((CAT, "--json", "--backend", "sa", "--seed", "3"), 0, "solved")]
    keys = None
    for args, code, status in cases:
        p = run(*args)
        assert p.returncode == code, (args, p.stderr)
        record = one_json(p)
        assert record["status"] == status, (args, record)
        assert "Traceback" not in p.stderr
        keys = keys or list(record)
        assert list(record) == keys, args  # the same keys, in the same order, every time
        if code == 2:
            assert record["message"] and len(p.stderr.strip().splitlines()) == 1
    solved = one_json(run(CAT, "--json"))
    assert solved["puzzle"] == CAT and solved["title"] is None and solved["height"] == 15
    titled = tmp_path / "titled.txt"
    titled.write_text("TITLE A cat\n" + "\n".join(Path(CAT).read_text().splitlines()))
    record = one_json(run(str(titled), "--json"))
    assert record["puzzle"] == str(titled) and record["title"] == "A cat"


def test_output_to_a_closed_pipe_ends_quietly():
    p = subprocess.Popen([sys.executable, "-m", "formulations.solve", CAT, "--json"], cwd=ROOT,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.close()  # the reader is gone before the answer is written
    err = p.stderr.read().decode()
    p.wait(timeout=120)
    assert "Traceback" not in err and "BrokenPipe" not in err
    assert p.returncode == 0


def test_no_color_is_honoured_on_a_terminal():
    import pty

    def on_tty(env: dict) -> str:
        master, slave = pty.openpty()
        proc = subprocess.Popen([sys.executable, "-m", "formulations.solve",
                                 str(ROOT / "puzzles" / "flag_colour6.txt")], cwd=ROOT,
                                stdout=slave, stderr=subprocess.DEVNULL, env=env)
        os.close(slave)
        chunks = []
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
        proc.wait(timeout=120)
        os.close(master)
        return b"".join(chunks).decode(errors="replace")

    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    assert "\x1b[48;2;" in on_tty(env)
    assert "\x1b[" not in on_tty({**env, "NO_COLOR": "1"})


def test_inputs_that_would_hang_or_flood_the_reader_are_refused(tmp_path):
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    big = tmp_path / "big.txt"
    big.write_text("ROWS\n" + ("1 " * 1000 + "\n") * 600 + "COLUMNS\n1\n")  # 1.2 MB
    for args, fragment in [((str(fifo),), "is a FIFO"), (("/dev/zero",), "is a device"),
                           ((str(tmp_path),), "is a directory"),
                           ((str(big), "--max-input-mb", "1"), "over the input cap of 1 MB")]:
        p = run(*args, timeout=60)  # a hang would time out here
        assert p.returncode == 2 and fragment in p.stderr, (args, p.stderr)
        assert p.stderr.strip().splitlines()[0].startswith(f"error: {args[0]}")
    p = run(str(big), "--max-input-mb", "1")
    assert "--max-input-mb lifts it" in p.stderr


def test_file_key_selects_one_puzzle_of_a_multi_puzzle_file(tmp_path):
    two = tmp_path / "two.txt"
    two.write_text("GRID first\nROWS\n[ 1 ]\nCOLUMNS\n[ 1 ]\n"
                   "GRID second\nROWS\n[ 2 ]\n[ 0 ]\nCOLUMNS\n[ 1 ]\n[ 1 ]\n")
    record = one_json(run(f"{two}::1", "--json"))
    assert record["status"] == "solved" and record["grid"] == ["##", ".."]
    assert record["title"] == "second"
    p = run(f"{two}::7")
    assert p.returncode == 2 and "no puzzle number '7' (file holds 2)" in p.stderr
    p = run(str(two))
    assert p.returncode == 2 and "holds 2 puzzles" in p.stderr


@pytest.mark.parametrize("args, fragment", [
    (("--time-limit", "0"), "must be more than 0"),
    (("--time-limit", "-1"), "must be more than 0"),
    (("--backend", "sa", "--reads", "0"), "reads must be at least 1"),
    (("--backend", "sa", "--sweeps", "0"), "sweeps must be at least 1"),
    (("--backend", "sa", "--sweeps", "1000000000"), "sweeps at most 100,000,000 a read"),
    (("--backend", "sa", "--param", "num_sweeps=200000000"), "sweeps at most 100,000,000"),
    (("--workers", "-1"), "workers must be at least 0"),
    (("--max-model-mb", "0"), "must be more than 0"),
])
def test_numeric_options_are_checked(args, fragment):
    if "sa" in args and "sa" not in INSTALLED:
        pytest.skip("sa is not installed")
    p = run(CAT, *args)
    assert p.returncode == 2 and fragment in p.stderr, p.stderr


def test_a_run_out_of_time_says_in_which_stage(tmp_path):
    path = _big(tmp_path, 150)
    p = run(path, "--json", "--backend", "cpsat", "--time-limit", "1")
    record = one_json(p)
    assert record["status"] == "unknown" and record["grid"] is None
    assert "time limit" in record["message"] and any(
        stage in record["message"] for stage in ("model build", "CP-SAT translation", "search"))
    if "sa" in INSTALLED:
        record = one_json(run(path, "--json", "--backend", "sa", "--time-limit", "1"))
        assert record["status"] == "unknown" and "time limit" in record["message"]


def test_lines_keeps_the_time_limit_on_a_1000x1000_puzzle():
    # every guess ranks the open cells by placement counts over all 2,000 lines (seconds each
    # time at this size): the search reads the clock line by line, not only between nodes
    from formulations.solving import solve_puzzle

    rng = random.Random(3)
    grid = tuple(tuple(int(rng.random() < 0.55) for _ in range(1000)) for _ in range(1000))
    puzzle = puzzle_from_grid(grid)  # 1.3 s here: not part of the run the limit bounds
    with Stopwatch() as sw:  # the time it would take on an idle machine (pytest -n, other jobs)
        r = solve_puzzle(puzzle, "lines", time_limit=1.0)
    assert r.status.value == "unknown" and "time limit" in r.message
    assert sw.elapsed < 1.0 + 2.0, sw


def test_a_model_over_the_memory_cap_is_refused_before_it_is_built(tmp_path):
    p = run(_big(tmp_path, 150), "--json", "--max-model-mb", "50")
    record = one_json(p)
    assert p.returncode == 2 and "over the memory cap of 50 MB" in record["message"]
    assert "--max-model-mb" in record["message"]


# -- Ctrl-C ---------------------------------------------------------------------------------------

def _interrupt(args: list[str], after: float) -> tuple[int, dict, str]:
    got = interrupt_cli(args, after)
    assert got is not None, "the run ended before it could be interrupted"
    code, record, err = got
    assert record is not None, err
    return code, record, err


LONG_RUNS = {  # each runs for minutes unless interrupted
    "cpsat": ["--backend", "cpsat", "--param", "num_workers=1", "--unique"],
    "sa": ["--backend", "sa", "--reads", "1000000"],
    "tabu": ["--backend", "tabu", "--reads", "100000"],
    "descent": ["--backend", "descent", "--reads", "10000000"],
    "qbpp": ["--backend", "qbpp", "--time-limit", "600"],
    "lines": ["--backend", "lines", "--unique"],
}


@pytest.mark.parametrize("backend", [b for b in LONG_RUNS if b in INSTALLED])
def test_ctrl_c_is_interrupted_exit_130_on_every_backend(backend, tmp_path):
    if backend in ("cpsat", "lines"):  # the search itself must be interrupted: a hard puzzle
        hard = CORPUS / "webpbn-survey-non" / "webpbn-22336.non"
        if not hard.is_file():
            pytest.skip("the webpbn survey (corpus) is not here")
        target = str(hard)
    elif backend == "qbpp":
        target = IMPOSSIBLE  # EasySolver searches until its time limit
    else:
        target = CAT
    code, record, err = _interrupt([target, *LONG_RUNS[backend]], after=4.0)
    assert code == 130 and record["status"] == "interrupted", err
    assert record["exit_code"] == 130 and "Traceback" not in err
    # the work done before the interrupt is reported: its time, and the model it built
    assert record["build_s"] + record["solve_s"] > 1.0, record
    if backend != "lines":
        assert record["variables"] > 0 and record["constraints"] > 0, record


@pytest.mark.parametrize("backend", [b for b in ("sa", "tabu") if b in INSTALLED])
def test_ctrl_c_stops_every_sampling_thread(backend):
    # with two threads sharing the reads, Ctrl-C still ends the run at once, exit 130
    code, record, err = _interrupt([CAT, *LONG_RUNS[backend], "--workers", "2"], after=4.0)
    assert code == 130 and record["status"] == "interrupted", err
    assert "Traceback" not in err
