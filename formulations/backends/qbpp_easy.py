"""QUBO++ (pyqbpp): the model's linear constraints as native ``qbpp.cons`` terms, solved by
EasySolver (``qbpp``) or ExhaustiveSolver (``qbpp-exhaustive``), each solve in its own process.

Why a worker process: without a licence key pyqbpp allows 100 binary variables per process,
counted cumulatively, and aborts the process (SIGABRT) when a ``qbpp.var`` call would pass the
limit; an unknown ``search`` keyword aborts too. So the caller never touches pyqbpp beyond
``import pyqbpp`` (which loads no native code): each solve runs ``python -m backends.qbpp_easy``
in a fresh process, which measures ``max_var_count() - used_var_count()`` *before* creating any
variable and refuses a model that does not fit. A worker killed by a signal becomes an ERROR
result, never an exception in the caller. The licence is respected, never worked around.

The lowering: one ``qbpp.var`` array ``x`` over the model's variables and, per constraint,
``w_family * qbpp.cons(sum(c * x[v]), equal=rhs | between=(None, rhs) | between=(rhs, None))``
with the family weights of ``formulations.penalty`` (the dimod lowering's weights). pyqbpp
charges a native constraint ``w * d**2`` where ``d`` is the distance of the left-hand side from
its allowed range: for an equality that is ``w * (lhs - rhs)**2``, exactly the dimod lowering;
for the order encoding's inequalities ``a - b <= 0`` over binaries ``d`` is 0 or 1, so
``d**2 = a*(1-b)``, again exactly the dimod lowering. (For an inequality whose violation can
exceed 1 the two would differ, ``d**2`` against the indicator ``[d > 0]``; both are 0 exactly
when the constraint holds. The builder produces none.) pyqbpp's default variant has integer
coefficients, so rational weights are scaled to integers and energies divided back.
"""
from __future__ import annotations

import json
import math
import subprocess
import sys
import time
from fractions import Fraction
from collections.abc import Mapping
from typing import Any, cast

import numpy as np

from formulations.model import Model, NonogramModel, Sense
from formulations.runtime.clock import NO_DEADLINE, Deadline
from formulations.results import BackendError, ModelRefused, RawAnswer, Remedy, Status
from formulations.runtime.workers import REPO_ROOT, child_env, die_with_parent, exit_text, protocol_stdout

from .base import Backend, size_limit

INSTALL_HINT = 'pip install -e ".[qbpp]"  (pins pyqbpp==2026.10.6)'
DEFAULT_TIME_LIMIT = 10.0       # seconds; pyqbpp's own EasySolver default as well
# EasySolver's family weights unless the caller gives some (a given family overrides its own):
# monotone/order/link = 1/1/1, not the samplers' 2/2/1. Measured (bench/qbpp_defaults.py
# --time-limit 20, model with x, seeds 1 and 2, every conformance puzzle within the
# 100-variable cap): at 2/2/1 EasySolver stalls at energy 2 on puzzles/two_solutions4.txt
# for every seed tried; 1/1/1, 2/2/2 and 1/1/2 solved all eight puzzles (arrow5, cross5,
# flag_colour6, heart5, two_solutions4, the kit's 3x3 and 2x2, the colour staircase of
# tests/test_conformance.py) at every seed (docs/samplers.md has the table); 1/1/1 is the
# plainest of the three. For the model without x no weights solved everything (2/2/1 stalls on
# arrow5, 1/1/1, 2/2/2 and 1/1/2 on tests/test_qbpp.py's random 5x5 of seed 4; EasySolver's
# outcome did not move with the seed): it keeps the samplers' 2/2/1, as before.
QBPP_WEIGHTS = {"monotone": 1.0, "order": 1.0, "link": 1.0}
WORKER_GRACE_S = 15.0           # parent-side allowance for start-up and building on top of the limit
SEARCH_MARGIN_S = 0.3          # the search ends this long before the limit (reply, decoding)
MIN_SEARCH_S = 0.05            # a search gets at least this, to have a sample to report
_STARTUP_S = [1.0]              # a worker's start, import and build, as the last solve measured it
EXHAUSTIVE_MAX_VARIABLES = 28   # 2**28 assignments take ~25 s here; beyond that use qbpp or cpsat
LICENCE_HOWTO = ("activate a QUBO++ licence key as pyqbpp documents: `qbpp-license -k YOUR-KEY -a` "
                 "or set QBPP_LICENSE_KEY (a free trial key: run `qbpp-license -s` and register at "
                 "https://qubo-plus.github.io/portal/)")


# --------------------------------------------------------------------------------------------
# The parent side: plain data out, plain data back.
# --------------------------------------------------------------------------------------------
def integer_weights(weights: Mapping[str, float]) -> tuple[dict[str, int], int]:
    """Family weights as integers times a common scale (pyqbpp's default variant has int32
    coefficients): returns ``(int_weights, scale)`` with ``weight = int_weight / scale``."""
    fracs = {k: Fraction(float(w)).limit_denominator(1000) for k, w in weights.items()}
    for k, fr in fracs.items():
        if not math.isclose(float(fr), float(weights[k]), rel_tol=1e-9, abs_tol=0.0):
            raise BackendError(f"weight {k}={weights[k]!r} is not a ratio of small integers, "
                               "which pyqbpp's integer coefficients need")
    scale = math.lcm(*(fr.denominator for fr in fracs.values())) if fracs else 1
    out = {k: int(fr * scale) for k, fr in fracs.items()}
    if any(v > 10**6 for v in out.values()):
        raise BackendError(f"weights {dict(weights)} need integer weights up to {max(out.values())}"
                           " in pyqbpp; use simpler ratios")
    return out, scale


def resolve_weights(model: Model, weights: Mapping[str, Any] | None) -> dict[str, float]:
    """The penalty module's family weights (defaults overridden), checked there."""
    from formulations.model.penalty import FAMILIES, check_weights

    families = list(FAMILIES) + sorted({c.family for c in model.constraints} - set(FAMILIES))
    try:
        return check_weights(weights, families)
    except ValueError as exc:
        raise BackendError(str(exc)) from None


def model_payload(model: Model, weights: Mapping[str, float]) -> tuple[dict[str, Any], int]:
    """The model as JSON-ready data for the worker, and the weight scale."""
    wint, scale = integer_weights(weights)
    cons, const = [], 0
    for c in model.constraints:
        lo = c.rhs if c.sense in (Sense.EQ, Sense.GE) else None
        hi = c.rhs if c.sense in (Sense.EQ, Sense.LE) else None
        w = wint[c.family]
        if not c.terms:  # a constant constraint the model kept because it fails: its penalty
            d = max(0, (lo - 0) if lo is not None else 0, (0 - hi) if hi is not None else 0)
            const += w * d * d
            continue
        cons.append([[v for v, _ in c.terms], [a for _, a in c.terms], lo, hi, w])
    return {"n": model.num_variables, "cons": cons, "const": const}, scale


def _last_line(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[-1] if lines else ""


_BANNER = ("QUBO++ Ver.", "No license key", "Variable Limit", "License")


def _extra_stderr(text: str) -> str:
    """The worker's stderr without pyqbpp's licence banner (kept for diagnosis only)."""
    return "\n".join(ln for ln in text.splitlines() if ln.strip() and not ln.startswith(_BANNER))


def run_worker(request: dict[str, Any], timeout: float | None) -> tuple[dict[str, Any] | None, str]:
    """Run one request in a fresh worker process. Returns ``(reply, problem)``: the reply dict,
    or None and a one-line description of what went wrong (crash, timeout, garbage)."""
    t0 = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, "-m", "formulations.backends.qbpp_easy"], input=json.dumps(request),
                              capture_output=True, text=True, timeout=timeout, env=child_env(),
                              cwd=str(REPO_ROOT), preexec_fn=die_with_parent)
    except subprocess.TimeoutExpired as exc:  # subprocess.run has killed and reaped the worker
        return None, f"timeout: pyqbpp worker still running after {exc.timeout:.1f}s, killed"
    except OSError as exc:
        return None, f"could not start the pyqbpp worker: {exc}"
    wall = time.perf_counter() - t0
    if proc.returncode < 0:
        why = _last_line(_extra_stderr(proc.stderr)) or _last_line(proc.stderr)
        return None, f"pyqbpp worker died ({exit_text(proc.returncode)})" + (f": {why}" if why else "")
    try:
        reply = json.loads(proc.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        why = _last_line(proc.stderr)
        return None, (f"pyqbpp worker exited with code {proc.returncode} without an answer"
                      + (f": {why}" if why else ""))
    reply["worker_s"] = wall
    extra = _extra_stderr(proc.stderr)
    if extra:
        reply["stderr"] = extra[-2000:]
    return reply, ""


def refusal(n: int, max_vars: int, used: int, nm: Any = None,
            backend: str = "qbpp") -> ModelRefused:
    """The refusal of a model over pyqbpp's variable limit: the count, the limit, the remedies."""
    free = max(0, max_vars - used)
    where = (f"pyqbpp allows {max_vars} binary variables per process without a licence key"
             if max_vars <= 100 else f"the active pyqbpp licence allows {max_vars} binary variables")
    before = getattr(nm, "variables_before", None)  # set on a presolved model
    remedies = []
    if before is None:
        remedies.append(Remedy("presolve"))
    if nm is not None and nm.use_x and 0 < nm.a_variables <= free:
        remedies.append(Remedy("no_x", f"{nm.a_variables} variables"))
    remedies.append(Remedy("other_backend", "sa,cpsat"))
    what = f"{n} binary variables" + (f" after presolve (from {before})" if before else "")
    return ModelRefused(backend, f"the model has {what} but {where} ({free} free in a fresh "
                        f"worker); a licence lifts the limit: {LICENCE_HOWTO}", tuple(remedies))


def pyqbpp_limits() -> tuple[int, int]:
    """``(max_var_count(), used_var_count())`` as a fresh worker process sees them."""
    reply, problem = run_worker({"op": "limits", "n": 0, "cons": [], "const": 0}, timeout=60)
    if reply is None:
        raise BackendError(problem)
    if "error" in reply:
        raise BackendError(problem or reply["error"])
    return int(reply["max_var_count"]), int(reply["used_var_count"])


FREE_VARIABLES = 100  # what pyqbpp allows without a licence key: smaller models need no check
_LIMITS: list[tuple[int, int]] = []  # pyqbpp_limits() of a fresh worker, asked once per process


def over_limit(nm: Any) -> ModelRefused | None:
    """``Backend.refuse``: a model over pyqbpp's variable limit is refused before the model is
    sent to a worker (the worker checks again, since a licence may change in between)."""
    n = nm.model.num_variables
    if n <= FREE_VARIABLES:
        return None
    if not _LIMITS:
        _LIMITS.append(pyqbpp_limits())
    max_vars, used = _LIMITS[0]
    return refusal(n, max_vars, used, nm) if n > max_vars - used else None


def pyqbpp_energies(nm: NonogramModel | Model, assignments, weights: Mapping[str, Any] | None = None,
                    ) -> np.ndarray:
    """pyqbpp's own energy of its expression (``Sol.comp_energy()``) for each 0/1 assignment,
    evaluated in a worker and divided by the weight scale: the same numbers EasySolver sees."""
    inner = getattr(nm, "model", None)
    model = inner if isinstance(inner, Model) else cast(Model, nm)
    w = resolve_weights(model, weights)
    payload, scale = model_payload(model, w)
    X = np.atleast_2d(np.asarray(assignments, dtype=np.int64))
    request = {"op": "energy", **payload, "assignments": X.tolist()}
    reply, problem = run_worker(request, timeout=120)
    if reply is None:
        raise BackendError(problem)
    if reply.get("refused"):
        raise refusal(model.num_variables, reply["max_var_count"], reply["used_var_count"])
    if "error" in reply:
        raise BackendError(f"pyqbpp worker: {reply['error']}")
    return np.asarray(reply["energies"], dtype=np.float64) / scale


def _solve(nm: NonogramModel, solver: str, backend: str, *, deadline: Deadline,
           seed: int | None, weights: Mapping[str, Any] | None, thread_count: int) -> RawAnswer:
    model = nm.model
    n = model.num_variables
    own = QBPP_WEIGHTS if getattr(nm, "use_x", True) else {}  # without x: the samplers' 2/2/1
    w = resolve_weights(model, {**own, **(weights or {})})
    if n == 0:  # every line fixed by its clue: nothing to search
        empty = np.zeros(0, dtype=np.int8)
        if model.is_feasible(empty):
            return RawAnswer(Status.SOLVED, (empty,), energy=0.0, info={"weights": w})
        return RawAnswer(Status.INFEASIBLE, message="constant constraints fail (no variables)")
    if thread_count < 1:
        raise BackendError(f"thread_count must be at least 1, got {thread_count}")
    payload, scale = model_payload(model, w)
    request: dict[str, Any] = {"op": "solve", "solver": solver, **payload}
    time_limit = deadline.left()  # the worker is a process of its own: it gets seconds
    if solver == "easy":
        # a time limit covers the worker's start and build too: EasySolver gets what is left
        # after them (as the last workers took), and the worker is killed at the limit + 0.5 s
        tl = (DEFAULT_TIME_LIMIT if time_limit is None
              else max(0.0, float(time_limit) - _STARTUP_S[0]))
        params: dict[str, Any] = {"target_energy": 0, "time_limit": tl, "thread_count": thread_count}
        if seed is not None:
            params["seed"] = int(seed) & 0xFFFFFFFF
        timeout: float | None = (tl + WORKER_GRACE_S if time_limit is None
                                 else max(0.0, float(time_limit)) + 0.5)
        if time_limit is not None:
            # the search's own limit is set again in the worker once it has started and built
            # (a loaded machine can make that take longer than the last start took): it ends
            # SEARCH_MARGIN_S before the limit, with its best sample, not killed at it
            request["ends_at"] = time.time() + float(time_limit) - SEARCH_MARGIN_S
    else:
        params = {"target_energy": 0}
        timeout = None if time_limit is None else max(0.0, float(time_limit)) + 0.5
    request["params"] = params

    t0 = time.perf_counter()
    reply, problem = run_worker(request, timeout)
    info: dict[str, Any] = {"weights": w, "weight_scale": scale, "qbpp_solver": solver,
                            "qbpp_params": params}
    if reply is None:
        return failure_answer(problem, time.perf_counter() - t0, info)
    info["worker_s"] = round(reply.get("worker_s", 0.0), 6)
    if "search_s" in reply:  # what the worker spent outside the search: its start-up estimate
        _STARTUP_S[0] = max(0.0, reply["worker_s"] - reply["search_s"])
    for key in ("max_var_count", "used_var_count"):
        if key in reply:
            info[f"qbpp_{key}"] = reply[key]
    if reply.get("refused"):
        raise refusal(n, reply["max_var_count"], reply["used_var_count"], nm, backend)
    if "error" in reply:
        return RawAnswer(Status.ERROR, solve_s=time.perf_counter() - t0,
                         message=f"pyqbpp worker: {reply['error']}", info=info)
    values = np.asarray(reply["values"], dtype=np.int8)
    energy = reply["energy"] / scale
    solver_info = reply.get("solver_info", {})
    info.update({"tts": reply["tts"], "qbpp_build_s": round(reply["build_s"], 6),
                 "qbpp_version": solver_info.get("version"),
                 "qbpp_run_time": _num(solver_info.get("run_time")),
                 "qbpp_violated": reply.get("violated")})
    if "flip_count" in solver_info:
        info["qbpp_flip_count"] = _num(solver_info["flip_count"])
    if "stderr" in reply:
        info["qbpp_stderr"] = reply["stderr"]
    common = dict(solve_s=reply["search_s"], energy=energy, info=info)
    if reply["energy"] == 0:
        return RawAnswer(Status.SOLVED, (values,), **common)
    if solver == "exhaustive":
        # A complete enumeration whose minimum is positive: with positive weights energy 0 is
        # exactly feasibility, so no assignment satisfies the model.
        return RawAnswer(Status.INFEASIBLE, (values,), message=f"exhaustive search: minimum energy "
                         f"{energy:g} > 0, no assignment satisfies the model", **common)
    return RawAnswer(Status.UNKNOWN, (values,), message=f"best energy {energy:g} > 0 within "
                     f"{params['time_limit']:g}s", **common)


def failure_answer(problem: str, elapsed: float = 0.0,
                   info: dict[str, Any] | None = None) -> RawAnswer:
    """A worker that timed out is UNKNOWN (no answer in time); one that crashed is an ERROR
    result: either way the caller gets a result, never the crash."""
    status = Status.UNKNOWN if problem.startswith("timeout") else Status.ERROR
    return RawAnswer(status, solve_s=elapsed, message=problem, info=dict(info or {}))


def _num(text: Any) -> Any:
    """pyqbpp's info values are strings; numbers become numbers."""
    try:
        return int(text)
    except (TypeError, ValueError):
        pass
    try:
        return float(text)
    except (TypeError, ValueError):
        return text


def solve_easy(nm: NonogramModel, *, deadline: Deadline = NO_DEADLINE, seed: int | None = None,
               unique: bool = False, weights: Mapping[str, Any] | None = None,
               thread_count: int = 1) -> RawAnswer:
    return _solve(nm, "easy", "qbpp", deadline=deadline, seed=seed, weights=weights,
                  thread_count=thread_count)


def solve_exhaustive(nm: NonogramModel, *, deadline: Deadline = NO_DEADLINE,
                     seed: int | None = None,
                     unique: bool = False, weights: Mapping[str, Any] | None = None) -> RawAnswer:
    return _solve(nm, "exhaustive", "qbpp-exhaustive", deadline=deadline, seed=None,
                  weights=weights, thread_count=1)


BACKENDS = [
    Backend(
        name="qbpp",
        description="QUBO++ EasySolver on native qbpp.cons constraints with the dimod family weights "
                    "(a worker process per solve; 100 variables without a licence key)",
        solve_fn=solve_easy,
        requires=("pyqbpp",),
        install_hint=INSTALL_HINT,
        options={"weights": dict, "thread_count": int},
        refuse=over_limit,
        minimum={"thread_count": 1},
    ),
    Backend(
        name="qbpp-exhaustive",
        description=f"QUBO++ ExhaustiveSolver (complete: proves infeasibility) for tiny models, "
                    f"at most {EXHAUSTIVE_MAX_VARIABLES} variables",
        solve_fn=solve_exhaustive,
        requires=("pyqbpp",),
        install_hint=INSTALL_HINT,
        options={"weights": dict},
        refuse=size_limit("qbpp-exhaustive", EXHAUSTIVE_MAX_VARIABLES,
                          "it enumerates 2^n assignments"),
        use_x=False,  # 2^n assignments: the model with fewer variables is always faster
    ),
]


# --------------------------------------------------------------------------------------------
# The worker side: the only code that calls into pyqbpp's native library.
# --------------------------------------------------------------------------------------------
def _build_expression(qbpp, request: dict[str, Any]):
    n = request["n"]
    x = qbpp.var("x", shape=n)
    xs = [x[i] for i in range(n)]
    f = qbpp.Expr()
    for vars_, coefs, lo, hi, w in request["cons"]:
        body = qbpp.Expr()
        for v, a in zip(vars_, coefs):
            body += a * xs[v]
        if lo is not None and lo == hi:
            c = qbpp.cons(body, equal=lo)
        else:
            c = qbpp.cons(body, between=(lo, hi))
        f += c if w == 1 else w * c
    if request.get("const"):
        f += int(request["const"])
    used = sorted({v for vars_, *_ in request["cons"] for v in vars_})
    return x, xs, f, used


def _work(request: dict[str, Any]) -> dict[str, Any]:
    import pyqbpp as qbpp

    limits = {"max_var_count": int(qbpp.max_var_count()), "used_var_count": int(qbpp.used_var_count())}
    n = int(request["n"])
    if n > limits["max_var_count"] - limits["used_var_count"]:
        return {"refused": True, **limits}  # creating the variables would abort the process
    if request["op"] == "limits" or n == 0:
        return limits
    t0 = time.perf_counter()
    x, xs, f, used = _build_expression(qbpp, request)
    build_s = time.perf_counter() - t0
    if request["op"] == "energy":
        energies = []
        for row in request["assignments"]:
            sol = qbpp.Sol(f)
            sol.set({xs[v]: int(row[v]) for v in used})
            energies.append(int(sol.comp_energy()))
        return {"energies": energies, "build_s": build_s, **limits}
    params = dict(request["params"])  # built by the parent from known keywords only
    if "ends_at" in request and "time_limit" in params:   # what is left of the caller's limit
        params["time_limit"] = max(MIN_SEARCH_S, min(float(params["time_limit"]),
                                                     float(request["ends_at"]) - time.time()))
    t1 = time.perf_counter()
    if request["solver"] == "exhaustive":
        sol = qbpp.ExhaustiveSolver(f).search(**params)
    else:
        sol = qbpp.EasySolver(f).search(**params)
    search_s = time.perf_counter() - t1
    values = [int(v) for v in sol(x)]
    return {"values": values, "energy": int(sol.energy), "tts": float(sol.tts), "build_s": build_s,
            "search_s": search_s, "violated": int(f.cons(sol)), "solver_info": dict(sol.info), **limits}


def _worker_main() -> int:
    """Read one JSON request on stdin, answer one JSON line on the original stdout.

    The native library may print (its licence banner goes to stderr); fd 1 is pointed at stderr
    so nothing but the answer reaches the parent's stdout pipe.
    """
    out = protocol_stdout()
    try:
        reply = _work(json.load(sys.stdin))
    except Exception as exc:  # reported as an ERROR result by the parent
        reply = {"error": f"{type(exc).__name__}: {exc}"}
    out.write(json.dumps(reply) + "\n")
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(_worker_main())
