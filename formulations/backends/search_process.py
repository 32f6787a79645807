"""A complete solver's search in a worker process that can be killed at once.

Why: some native searches cannot be stopped within a second from Python. HiGHS's presolve
checks neither its interrupt callback nor its time limit often (seconds to minutes on a 60x60
survey puzzle); CaDiCaL has no interrupt in pysat, and its inprocessing runs up to 11 s inside one
conflict-bounded slice (webpbn #22336), while pysat's own SIGINT handler ``longjmp``s out of
the solver and can leave malloc's lock taken (the process then hangs in ``free``: seen in CI and
here under gdb). A process is killed at once on Ctrl-C and past the deadline, and its CPU time
counts in :func:`~formulations.runtime.cputime.cpu_seconds` once it is joined.

The worker ``target(conn, *args)`` sends ``("first", outcome, values, info)`` and, when
uniqueness was asked and the first outcome is ``solved``, ``("second", outcome, values, info)``;
``outcome`` is ``solved``, ``infeasible``, ``unknown`` (its own time limit) or an error text.
A daemonic process (the web solver's runs, Dask workers) may have no children: there the target
runs in place, since that process is itself what its parent kills.
"""
from __future__ import annotations

import multiprocessing
import signal
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from formulations.runtime.clock import Deadline, OutOfTime
from formulations.results import BackendError, RawAnswer, Status
from formulations.runtime.workers import die_with_parent, exit_text, forked_worker

GRACE_S = 0.5
"""How long past the deadline the worker may run before it is killed (the solvers check their
limits only between steps)."""


def context() -> Any:
    """fork where there is one (the model is inherited, not pickled), else spawn."""
    return multiprocessing.get_context(
        "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")


class _Inbox:
    """The pipe's sending end for a target run in place: keeps what it is sent."""

    def __init__(self) -> None:
        self.messages: list[tuple] = []

    def send(self, message: tuple) -> None:
        self.messages.append(message)


def _block_sigint() -> None:
    """Block SIGINT in this thread (ignore it where there is no signal mask)."""
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    else:
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def runs_in_place() -> bool:
    """Whether :func:`search` would run its target in this process (a daemonic process)."""
    return bool(multiprocessing.current_process().daemon)


def _run_target(conn: Any, target: Callable[..., None], args: tuple, in_place: bool) -> None:
    """Run ``target``, its failures turned into messages: ``("out_of_time", stage, None, {})``,
    ``("refused", text, None, {})`` (a BackendError) or ``("error", text, None, {})``. In a
    worker SIGINT is blocked (the caller decides how a Ctrl-C ends, and a native library's own
    handler can never run) and the worker dies with its caller."""
    if not in_place:
        _block_sigint()
        die_with_parent()
    try:
        target(conn, *args)
    except OutOfTime as exc:
        conn.send(("out_of_time", exc.stage, None, {}))
    except BackendError as exc:
        conn.send(("refused", str(exc), None, {}))
    except Exception as exc:  # noqa: BLE001 - reported to the caller in words
        conn.send(("error", f"{type(exc).__name__}: {exc}", None, {}))


def _ends_search(kind: str, outcome: str, second_wanted: bool) -> bool:
    return kind != "first" or outcome != "solved" or not second_wanted


def search(target: Callable[..., None], args: tuple, *, solver: str, unique: bool,
           block: list[int], deadline: Deadline, info: dict[str, Any]) -> RawAnswer:
    """Run ``target`` in a worker (or in place, in a daemonic process) and turn its messages
    into the answer. ``deadline``: the run's (the worker reads the same one: its clock is the
    system's monotonic clock); ``info`` is added to the worker's figures. Ctrl-C kills the
    worker and goes on up as KeyboardInterrupt."""
    t0 = time.perf_counter()
    second_wanted = unique and bool(block)
    if runs_in_place():
        inbox = _Inbox()
        _run_target(inbox, target, args, True)
        got = {m[0]: m[1:] for m in inbox.messages}
        killed, ended = False, ""
    else:
        got, killed, ended = _collect(target, args, solver, second_wanted, deadline)
    return _answer(got, killed, ended, solver=solver, unique=unique, block=block,
                   elapsed=time.perf_counter() - t0, info=info)


def _collect(target: Callable[..., None], args: tuple, solver: str, second_wanted: bool,
             deadline: Deadline) -> tuple[dict[str, tuple], bool, str]:
    got: dict[str, tuple] = {}
    killed = False
    # Ctrl-C included: forked_worker kills and joins the worker, and KeyboardInterrupt goes on
    with forked_worker(context(), _run_target, (target, args, False),
                       f"{solver}-worker") as (worker, recv):
        while True:
            if recv.poll(0.1):
                try:
                    kind, outcome, values, figures = recv.recv()
                except EOFError:
                    break
                got[kind] = (outcome, values, figures)
                if _ends_search(kind, outcome, second_wanted):
                    break
            elif not worker.is_alive():
                if recv.poll(0):  # a last message sent just before it ended
                    continue
                break
            elif deadline.past(GRACE_S):
                killed = True
                break
    return got, killed, exit_text(worker.exitcode)


def _answer(got: dict[str, tuple], killed: bool, ended: str, *, solver: str, unique: bool,
            block: list[int], elapsed: float, info: dict[str, Any]) -> RawAnswer:
    if "first" not in got:
        if "out_of_time" in got:  # raised in the caller as they would have been in place
            raise OutOfTime(got["out_of_time"][0])
        if "refused" in got:
            raise BackendError(got["refused"][0])
        if "error" in got:
            return RawAnswer(Status.ERROR, solve_s=elapsed, info=dict(info),
                             message=f"{solver}: {got['error'][0]}")
        if killed:
            return RawAnswer(Status.UNKNOWN, solve_s=elapsed,
                             info={**info, "killed_at_deadline": True},
                             message="time limit reached before a solution")
        return RawAnswer(Status.ERROR, solve_s=elapsed, info=dict(info),
                         message=f"the {solver} worker ended without an answer ({ended})")
    outcome, first, figures = got["first"]
    figures = dict(figures)
    if "second" in got:
        figures.update(got["second"][2])
    figures.update(info)
    if killed:
        figures["killed_at_deadline"] = True
    if outcome == "infeasible":
        return RawAnswer(Status.INFEASIBLE, solve_s=elapsed, info=figures)
    if outcome == "unknown":
        return RawAnswer(Status.UNKNOWN, solve_s=elapsed, info=figures,
                         message="time limit reached before a solution")
    if outcome != "solved":
        return RawAnswer(Status.ERROR, solve_s=elapsed, info=figures, message=outcome)
    found: list[np.ndarray] = [first]
    proven: bool | None = None
    if unique:
        if not block:  # nothing free: the grid is the only one
            proven = True
        elif "second" in got:
            second, values, _ = got["second"]
            if second == "infeasible":
                proven = True
            elif second == "solved":
                found.append(values)
                proven = False
        elif "error" in got or "refused" in got:
            figures["second_error"] = (got.get("error") or got["refused"])[0]
    return RawAnswer(Status.SOLVED, tuple(found), solve_s=elapsed, proven_unique=proven,
                     info=figures)
