"""How uvicorn runs the web solver: one line and no traceback on Ctrl-C or SIGTERM (every worker
killed at once, every waiting request answered), and connections that send no request closed."""
from __future__ import annotations

import asyncio
import signal
from types import FrameType
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from .app import stop_runs


class QuietServer(uvicorn.Server):
    """A uvicorn server that on the first SIGINT / SIGTERM kills the application's workers (so
    that every request waiting on a run is answered 503 at once) and stops; the signal is not
    raised again after the stop (uvicorn's default, which printed a KeyboardInterrupt traceback).
    A second Ctrl-C stops at once."""

    def __init__(self, config: uvicorn.Config, app: Any):
        super().__init__(config)
        self.app, self.stopped_by = app, ""

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if self.should_exit:
            self.force_exit = True
            return
        self.stopped_by = signal.Signals(sig).name
        self.should_exit = True
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is not None:  # from the loop, not inside the signal handler
            loop.call_soon_threadsafe(stop_runs, self.app)
        else:
            stop_runs(self.app)


def guarded_protocol(header_timeout: float) -> type:
    """uvicorn's h11 protocol with a deadline for a request's head: a connection that sends no
    complete request line and headers within ``header_timeout`` seconds of connecting (or of its
    last response) gets 408 and is closed, so idle and half-sent connections do not pile up.
    (uvicorn closes an idle keep-alive connection itself, but only until its first byte.)"""

    class GuardedH11(H11Protocol):
        _head_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
            super().connection_lost(exc)

        def _arm(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
            self._head_timer = self.loop.call_later(header_timeout, self._expire)

        def _expire(self) -> None:
            self._head_timer = None
            if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
                return  # closed, or a request is under way (its body has its own deadline)
            if self.conn.our_state is h11.IDLE:
                body = (b'{"error": "no complete request within %g s"}' % header_timeout)
                self.transport.write(b"HTTP/1.1 408 Request Timeout\r\nContent-Type: "
                                     b"application/json\r\nConnection: close\r\nContent-Length: "
                                     + str(len(body)).encode() + b"\r\n\r\n" + body)
            self.transport.close()

    return GuardedH11
