"""The web solver's runner on its own: a run that ignores its limit is killed with its children
at the deadline, a full queue refuses at once, a cancel ends a queued run before it starts."""
from __future__ import annotations

import asyncio
import os
import time

import pytest

pytest.importorskip("starlette", reason="the web solver needs the web extra")

from web_server import stubborn_worker  # noqa: E402

from formulations.serve.runs import Busy, Runner, process_context  # noqa: E402


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:  # a zombie is gone too (its parent has not reaped it yet)
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] == "Z"
    except OSError:
        return True


def test_a_run_past_its_deadline_is_killed_with_its_children():
    async def main():
        runner = Runner(stubborn_worker, slots=1, queue=1, grace=0.5,
                        context=process_context("forkserver"), name="test")
        run = runner.admit({}, limit=0.5)
        waiting = runner.admit({}, limit=0.5)
        with pytest.raises(Busy):  # one running, one waiting: a third is refused at once
            runner.admit({}, limit=0.5)
        for r in (run, waiting):
            while r.final is None:
                await r.changed.wait()
        return runner, run

    runner, run = asyncio.run(main())
    assert run.ended == "killed" and run.final["type"] == "killed"
    started = next(m for m in run.messages if m["type"] == "started")
    for pid in (started["pid"], started["child"]):
        end = time.monotonic() + 5
        while not _gone(pid) and time.monotonic() < end:
            time.sleep(0.05)
        assert _gone(pid), pid
    assert runner.refused == 1


def test_a_cancelled_queued_run_never_starts():
    async def main():
        runner = Runner(stubborn_worker, slots=1, queue=2, grace=0.3,
                        context=process_context("forkserver"), name="test")
        first = runner.admit({}, limit=0.3)
        second = runner.admit({}, limit=0.3)
        runner.cancel(second)
        for run in (first, second):
            while run.final is None:
                await run.changed.wait()
        return first, second

    first, second = asyncio.run(main())
    assert first.ended == "killed"
    assert second.ended == "cancelled" and not any(m["type"] == "started"
                                                   for m in second.messages)


class _SlowStart:
    """A process context whose processes take half a second to start (a loaded machine, or the
    forkserver's own first start); the pids it started are kept."""

    def __init__(self, ctx):
        self.ctx, self.pids = ctx, []

    def Pipe(self, *args, **kwargs):
        return self.ctx.Pipe(*args, **kwargs)

    def Process(self, *args, **kwargs):
        return _SlowProcess(self.ctx.Process(*args, **kwargs), self.pids)


class _SlowProcess:
    def __init__(self, proc, pids):
        self.proc, self.pids = proc, pids

    def start(self):
        time.sleep(0.5)
        self.proc.start()
        self.pids.append(self.proc.pid)

    def __getattr__(self, name):
        return getattr(self.proc, name)


def test_a_run_cancelled_while_its_process_starts_ends_cancelled_and_its_process_goes():
    ctx = _SlowStart(process_context("forkserver"))

    async def main():
        runner = Runner(stubborn_worker, slots=1, queue=1, grace=30, context=ctx, name="test")
        run = runner.admit({}, limit=60)
        await asyncio.sleep(0.2)  # its process is being started
        runner.cancel(run)
        while run.final is None:
            await run.changed.wait()
        end = time.monotonic() + 30
        while runner.finished < 1 and time.monotonic() < end:
            await asyncio.sleep(0.05)
        return runner, run

    runner, run = asyncio.run(main())
    assert run.ended == "cancelled" and run.state == "done"  # not "running" once it has started
    assert runner.load["running"] == 0 and runner.finished == 1
    assert len(ctx.pids) == 1
    end = time.monotonic() + 5
    while not _gone(ctx.pids[0]) and time.monotonic() < end:
        time.sleep(0.05)
    assert _gone(ctx.pids[0])
