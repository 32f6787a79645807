"""``python -m formulations.serve`` / ``nonogram-serve``: start the web solver and print its
address (127.0.0.1 unless ``--host`` says otherwise; ``--port 0`` picks a free port)."""
from __future__ import annotations

import argparse
import socket
import sys
from collections.abc import Sequence

from .settings import Settings


def build_parser() -> argparse.ArgumentParser:
    d = Settings()
    p = argparse.ArgumentParser(prog="python -m formulations.serve",
                                description="The web solver: paste clues, pick solvers, watch "
                                            "them work. Serves one page and its API.")
    p.add_argument("--host", default=d.host, help=f"address to bind (default {d.host}: this "
                   "machine only; 0.0.0.0 opens it to the network)")
    p.add_argument("--port", type=int, default=d.port,
                   help=f"port (default {d.port}; 0: any free one)")
    p.add_argument("--max-running", type=int, default=d.max_running, metavar="N",
                   help=f"solves at once, one worker process each (default {d.max_running})")
    p.add_argument("--max-queued", type=int, default=d.max_queued, metavar="N",
                   help="solves waiting; past them a request gets 429 at once (default "
                        f"{d.max_queued})")
    p.add_argument("--time-limit", type=float, default=d.time_limit, metavar="S",
                   help=f"a run's time limit when it asks for none (default {d.time_limit:g})")
    p.add_argument("--max-time-limit", type=float, default=d.max_time_limit, metavar="S",
                   help="the longest time limit a request may ask for (default "
                        f"{d.max_time_limit:g})")
    p.add_argument("--max-body-kb", type=int, default=d.max_body_bytes // 1024, metavar="KB",
                   help=f"largest request body (default {d.max_body_bytes // 1024})")
    p.add_argument("--max-model-mb", type=float, default=d.max_model_mb, metavar="MB",
                   help=f"memory cap of a run's model, estimated before it is built (default "
                        f"{d.max_model_mb:g})")
    p.add_argument("--request-timeout", type=float, default=d.header_timeout, metavar="S",
                   help="a connection's time to send a request's head, and again its body; "
                        f"past it: 408 and closed (default {d.header_timeout:g})")
    p.add_argument("--keep-finished-mb", type=float, default=d.keep_finished_bytes / 2**20,
                   metavar="MB", help="memory that finished runs kept for late readers may "
                   f"hold, the oldest forgotten first (default {d.keep_finished_bytes / 2**20:g})")
    p.add_argument("--open", action="store_true", help="open the page in a web browser")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        import uvicorn

        from .app import create_app
        from .serving import QuietServer, guarded_protocol
    except ImportError as exc:
        print(f"error: the web solver needs {exc.name}: pip install "
              '-e ".[web]"', file=sys.stderr)
        return 2
    for name, value in (("--max-running", args.max_running), ("--max-body-kb", args.max_body_kb)):
        if value < 1:
            print(f"error: {name} must be at least 1", file=sys.stderr)
            return 2
    if not args.request_timeout > 0 or args.keep_finished_mb < 0:
        print("error: need --request-timeout > 0 and --keep-finished-mb >= 0", file=sys.stderr)
        return 2
    if args.max_queued < 0 or not 0 < args.time_limit <= args.max_time_limit:
        print("error: need --max-queued >= 0 and 0 < --time-limit <= --max-time-limit",
              file=sys.stderr)
        return 2
    settings = Settings(host=args.host, port=args.port, max_running=args.max_running,
                        max_queued=args.max_queued, time_limit=args.time_limit,
                        max_time_limit=args.max_time_limit,
                        max_body_bytes=args.max_body_kb * 1024, max_model_mb=args.max_model_mb,
                        header_timeout=args.request_timeout, body_timeout=args.request_timeout,
                        keep_finished_bytes=int(args.keep_finished_mb * 2**20))
    try:
        sock = socket.socket(socket.AF_INET6 if ":" in args.host else socket.AF_INET)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((args.host, args.port))
        sock.listen(128)  # connections wait in the backlog until uvicorn accepts them
    except OSError as exc:
        print(f"error: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}",
              file=sys.stderr)
        return 2
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/"
    app = create_app(settings)
    config = uvicorn.Config(app, log_level="warning", access_log=False,
                            http=guarded_protocol(settings.header_timeout),
                            timeout_graceful_shutdown=STOP_GRACE_S)  # type: ignore[arg-type]  # uvicorn says int; asyncio.wait_for takes a float
    server = QuietServer(config, app)
    print(f"nonogram web solver: {url}  (Ctrl-C stops it)", flush=True)
    if args.open:
        import webbrowser
        webbrowser.open(url)
    server.run(sockets=[sock])
    print(f"nonogram web solver stopped ({server.stopped_by or 'done'})", flush=True)
    return 0


STOP_GRACE_S = 1.0
"""After Ctrl-C or SIGTERM every worker is killed at once and every waiting request answered
503; connections still open this long after are closed (the stop stays under 2 s)."""
