"""`python -m kubenb ...`: command-line entry points (for now, `serve`)."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Sequence


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m kubenb",
                                     description="kubenb command-line tools")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser(
        "serve", help="run the embedded Kubernetes API server until interrupted")
    serve.add_argument("--port", type=int, default=0,
                       help="port to listen on (default: a free port)")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to bind (default: 127.0.0.1, loopback only)")
    serve.add_argument("--token", default=None,
                       help="require this bearer token on API requests (401 without it)")
    serve.add_argument("--kubeconfig-out", default=None, metavar="PATH",
                       help="also write a kubeconfig for this server to PATH")
    serve.add_argument("--history-window", type=int, default=10_000,
                       help="events kept for watch resumes (older RVs get 410)")
    serve.add_argument("--bookmark-interval", type=float, default=60.0,
                       help="seconds between watch BOOKMARK events")
    return parser


def _serve(args: argparse.Namespace) -> int:
    from kubenb.server import EmbeddedServer

    server = EmbeddedServer(host=args.host, port=args.port, token=args.token,
                            history_window=args.history_window,
                            bookmark_interval=args.bookmark_interval)
    stop = threading.Event()

    def _on_signal(signum: int, frame: object) -> None:
        stop.set()

    previous = signal.signal(signal.SIGTERM, _on_signal)
    try:
        server.start()
        print(f"kubenb API server listening on {server.url}", flush=True)
        if args.kubeconfig_out:
            path = server.write_kubeconfig(args.kubeconfig_out)
            print(f"kubeconfig written to {path}", flush=True)
        else:
            print(f"kubeconfig: {server.kubeconfig_path}", flush=True)
        while not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
        signal.signal(signal.SIGTERM, previous)
    print("kubenb API server stopped", flush=True)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Parse `argv` and run the chosen command; returns the exit code."""
    args = _build_parser().parse_args(argv)
    if args.command == "serve":
        return _serve(args)
    return 2  # pragma: no cover - argparse rejects unknown commands


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
