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
    p.add_argument("--open", action="store_true", help="open the page in a web browser")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        import uvicorn

        from .app import create_app
    except ImportError as exc:
        print(f"error: the web solver needs {exc.name}: pip install "
              '-e ".[web]"', file=sys.stderr)
        return 2
    for name, value in (("--max-running", args.max_running), ("--max-body-kb", args.max_body_kb)):
        if value < 1:
            print(f"error: {name} must be at least 1", file=sys.stderr)
            return 2
    if args.max_queued < 0 or not 0 < args.time_limit <= args.max_time_limit:
        print("error: need --max-queued >= 0 and 0 < --time-limit <= --max-time-limit",
              file=sys.stderr)
        return 2
    settings = Settings(host=args.host, port=args.port, max_running=args.max_running,
                        max_queued=args.max_queued, time_limit=args.time_limit,
                        max_time_limit=args.max_time_limit,
                        max_body_bytes=args.max_body_kb * 1024, max_model_mb=args.max_model_mb)
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
    config = uvicorn.Config(create_app(settings), log_level="warning", access_log=False,
                            timeout_graceful_shutdown=3)
    server = uvicorn.Server(config)
    print(f"nonogram web solver: {url}  (Ctrl-C stops it)", flush=True)
    if args.open:
        import webbrowser
        webbrowser.open(url)
    server.run(sockets=[sock])
    return 0
