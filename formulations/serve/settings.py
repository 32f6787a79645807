"""The server's own limits: every request is held to them, whatever it asks for."""
from __future__ import annotations

import os
from dataclasses import dataclass

from ..model.size import DEFAULT_MAX_MODEL_MB


@dataclass(frozen=True)
class Settings:
    """``max_running`` solves run at once (one worker process each) and ``max_queued`` more wait;
    a request past them is answered 429 at once. A run gets ``time_limit`` seconds unless it asks
    for less or more, never more than ``max_time_limit``; its process is killed ``grace``
    seconds after that (process start, imports, the answer's check). Request bodies over
    ``max_body_bytes`` are refused (413); models over ``max_model_mb`` (the package's own cap,
    estimated from the clues) are refused before they are built. Finished solves are kept
    for late readers, at most ``keep_finished`` of them and ``keep_finished_bytes`` in all
    (finished tasks are not kept). A connection that sends no complete request head within
    ``header_timeout`` seconds, or no complete body within ``body_timeout``, is answered 408
    and closed; an over-cap body is read and discarded up to ``drain_bytes`` so that a client
    that writes it all before reading sees the 413 (past that it is closed after the 413)."""
    host: str = "127.0.0.1"
    port: int = 8765
    max_running: int = max(1, min(4, os.cpu_count() or 1))
    max_queued: int = 8
    time_limit: float = 10.0
    max_time_limit: float = 60.0
    grace: float = 10.0
    max_body_bytes: int = 2 * 2**20
    max_model_mb: float = min(DEFAULT_MAX_MODEL_MB, 1024.0)
    max_download_bytes: int = 64 * 2**20
    max_threads: int = max(1, os.cpu_count() or 1)
    task_time_limit: float = 15.0
    max_tasks: int = 2
    max_tasks_queued: int = 16
    keep_finished: int = 64
    keep_finished_bytes: int = 64 * 2**20
    header_timeout: float = 10.0
    body_timeout: float = 10.0
    drain_bytes: int = 64 * 2**20
    start_method: str = "forkserver"
