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
    serve.add_argument("--tls", action="store_true",
                       help="serve HTTPS with a throwaway CA (its data goes in the kubeconfig)")
    serve.add_argument("--seed-objects", type=_non_negative_int, default=0, metavar="N",
                       help="start with N realistic Running pods in namespace default")
    serve.add_argument("--churn", type=_non_negative_float, default=0.0, metavar="RATE",
                       help="create/update/delete objects at RATE per second, with a "
                            "kubelet that moves pods Pending -> Running")
    serve.add_argument("--churn-kinds", default="configmaps,pods", metavar="KINDS",
                       help="comma-separated kinds to churn (default: configmaps,pods)")
    serve.add_argument("--seed", type=int, default=0,
                       help="seed for --seed-objects and --churn (same seed, same objects)")
    return parser


def _non_negative_int(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, not {value}")
    return value


def _non_negative_float(text: str) -> float:
    value = float(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, not {value}")
    return value


def _serve(args: argparse.Namespace) -> int:
    from kubenb.errors import KubenbError
    from kubenb.server import EmbeddedServer

    try:
        server = EmbeddedServer(host=args.host, port=args.port, token=args.token,
                                history_window=args.history_window,
                                bookmark_interval=args.bookmark_interval, tls=args.tls)
        if args.seed_objects:
            server.seed_objects(args.seed_objects, seed=args.seed)
        churn = None
        if args.churn:
            kinds = tuple(k.strip() for k in args.churn_kinds.split(",") if k.strip())
            churn = server.churn(rate=args.churn, kinds=kinds, seed=args.seed)
    except KubenbError as exc:
        print(f"kubenb serve: {exc}", file=sys.stderr, flush=True)
        return 2
    stop = threading.Event()

    def _on_signal(signum: int, frame: object) -> None:
        stop.set()

    previous = signal.signal(signal.SIGTERM, _on_signal)
    try:
        try:
            server.start()
        except OSError as exc:
            print(f"kubenb serve: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}",
                  file=sys.stderr, flush=True)
            return 2
        # The kubeconfig is in place before the URL is announced: a script that waits
        # for the URL line can use both at once.
        path = (server.write_kubeconfig(args.kubeconfig_out) if args.kubeconfig_out
                else server.kubeconfig_path)
        print(f"kubenb API server listening on {server.url}", flush=True)
        print(f"kubeconfig written to {path}" if args.kubeconfig_out else f"kubeconfig: {path}",
              flush=True)
        if server.ca_path:
            print(f"CA certificate: {server.ca_path}", flush=True)
        if args.seed_objects:
            print(f"seeded {args.seed_objects} pods in namespace default", flush=True)
        if churn is not None:
            churn.start()
            print(f"churn: {args.churn:g} operations/s on {', '.join(churn.kinds)} "
                  f"(seed {args.seed}), kubelet on", flush=True)
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
