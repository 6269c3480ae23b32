"""The `kubenb` command (also `python -m kubenb`): command-line entry points.

- `serve`: the embedded API server until interrupted (kubectl and notebooks use it),
  its controllers in a `controller-manager` child, or playing a recording (`--replay`);
- `controller-manager`: the cluster's controllers and kubelet against any API server;
- `record`: what informers of some resources receive, into a recording file;
- `tour`: JupyterLab on the tour notebook (install nothing, print the URL);
- `notebooks --execute`: run every notebook headless with nbclient, write the executed
  copies and say where they are (what CI runs, and a check that an install works);
- `port`: a client-go project from a prototype's Controller (docs/porting.md).
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kubenb.recording.commands import (
    ProgressLine,
    ReplayStatus,
    add_record_parser,
    add_replay_arguments,
    replay_banner,
    replay_recording,
    replay_resources,
    show_recorder,
)

__all__ = [
    "NOTEBOOKS_DIR",
    "TOUR",
    "TOUR_PORT",
    "NotebookRun",
    "execute_notebook",
    "find_notebooks",
    "free_port",
    "kernel_config",
    "lab_command",
    "main",
    "notebook_env",
    "port_is_free",
    "tour_port",
    "wait_for_lab",
]

TOUR = "01_tour.ipynb"
TOUR_PORT = 8888  # JupyterLab's own default; the tour takes the next free one if taken
# Where `pip install -e .` (and a git checkout) keeps the notebooks; `--dir` overrides.
NOTEBOOKS_DIR = Path(__file__).resolve().parent.parent / "notebooks"


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kubenb",
                                     description="kubenb command-line tools")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser(
        "serve", help="run the embedded Kubernetes API server until interrupted")
    serve.add_argument("--port", type=int, default=0,
                       help="port to listen on (default: a free port)")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to bind (default: 127.0.0.1, loopback only)")
    serve.add_argument("--token", default=None,
                       help="require this bearer token on API requests (401 without it; "
                            "over HTTPS one is made when none is given, and written to the "
                            "kubeconfig, as a real API server wants credentials)")
    serve.add_argument("--kubeconfig-out", default=None, metavar="PATH",
                       help="also write a kubeconfig for this server to PATH")
    serve.add_argument("--history-window", type=int, default=10_000,
                       help="events kept for watch resumes (older RVs get 410)")
    serve.add_argument("--bookmark-interval", type=float, default=None,
                       help="seconds between watch BOOKMARK events (default 60; with "
                            "--replay, only the recorded bookmarks are sent)")
    transport = serve.add_mutually_exclusive_group()
    transport.add_argument("--plain-http", action="store_true",
                           help="serve plain HTTP instead of HTTPS (the default, as a real "
                                "API server: a throwaway CA, its data in the kubeconfig)")
    transport.add_argument("--tls", action="store_true",
                           help="serve HTTPS (the default already; kept for old scripts)")
    serve.add_argument("--seed-objects", type=_non_negative_int, default=0, metavar="N",
                       help="start with N realistic Running pods in namespace default")
    serve.add_argument("--churn", type=_non_negative_float, default=0.0, metavar="RATE",
                       help="create/update/delete objects at RATE per second")
    serve.add_argument("--churn-kinds", default="configmaps,pods", metavar="KINDS",
                       help="comma-separated kinds to churn (default: configmaps,pods)")
    serve.add_argument("--seed", type=int, default=0,
                       help="seed for --seed-objects and --churn (same seed, same objects)")
    serve.add_argument("--controllers", default="*", metavar="LIST",
                       help="the cluster's controllers to run: '*' (default: all of "
                            "garbagecollector, deployment, replicaset, job, kubelet, "
                            "serviceaccount, root-ca-cert-publisher), "
                            "names, '-name' to leave one out, '' for a bare API server")
    serve.add_argument("--controllers-in-process", action="store_true",
                       help="run them in the server's process, as kubenb.embedded() does "
                            "(default: a `kubenb controller-manager` process beside it)")
    add_replay_arguments(serve)
    _add_controller_manager_parser(commands)
    add_record_parser(commands)
    _add_port_parser(commands)

    tour = commands.add_parser(
        "tour", help="start JupyterLab on the tour notebook and print its URL")
    tour.add_argument("--port", type=int, default=None,
                      help=f"JupyterLab's port; fails if it is taken (default: {TOUR_PORT}, "
                           "or the next free one after it; 0: any free port)")
    tour.add_argument("--ip", default="127.0.0.1",
                      help="address JupyterLab binds (default: 127.0.0.1, loopback only)")
    tour.add_argument("--dir", type=Path, default=None, metavar="DIR",
                      help="the notebooks folder (default: the checkout's notebooks/)")
    tour.add_argument("--no-browser", action="store_true",
                      help="only print the URL; do not open a web browser")

    notebooks = commands.add_parser(
        "notebooks", help="run every notebook headless (nbclient) and save the executed copies")
    notebooks.add_argument("--execute", action="store_true", required=True,
                           help="execute the notebooks top to bottom (required: says what "
                                "this command does)")
    notebooks.add_argument("--out", type=Path, default=None, metavar="DIR",
                           help="where the executed copies go (default: a new temp folder)")
    notebooks.add_argument("--dir", type=Path, default=None, metavar="DIR",
                           help="the notebooks folder (default: the checkout's notebooks/)")
    notebooks.add_argument("--kubeconfig", default=None, metavar="PATH",
                           help="the cluster for notebooks that connect with a kubeconfig "
                                "(default: an embedded server started for the run)")
    notebooks.add_argument("--timeout", type=float, default=300.0,
                           help="seconds one cell may run (default 300)")
    notebooks.add_argument("names", nargs="*", metavar="NAME",
                           help="run only these notebooks (file names or stems)")
    return parser


def _add_controller_manager_parser(commands: Any) -> None:
    manager = commands.add_parser("controller-manager", help="run the cluster's controllers "
                                  "and kubelet against an API server until interrupted")
    manager.add_argument("--kubeconfig", default=None, metavar="PATH",
                         help="the server's kubeconfig (default: KUBECONFIG, ~/.kube/config)")
    manager.add_argument("--context", default=None, help="the kubeconfig context to use")
    manager.add_argument("--controllers", default="*", metavar="LIST",
                         help="which to run, as `kubenb serve --controllers` takes them")
    manager.add_argument("--exit-with-stdin", action="store_true",
                         help="also stop when standard input ends (`kubenb serve` uses it)")


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
    from kubenb.controllermanager import controller_names
    from kubenb.errors import KubenbError
    from kubenb.server import EmbeddedServer

    try:
        recording = replay_recording(args)
        names = [] if recording is not None else controller_names(args.controllers)
        bookmarks = args.bookmark_interval
        if bookmarks is None:
            bookmarks = 1e9 if recording is not None else 60.0
        token = args.token
        if token is None and not args.plain_http:
            # The kubeconfig's user then has a credential kubectl can swap for another
            # (`kubectl --token $(kubectl create token SA)`), as with a real cluster.
            token = secrets.token_urlsafe(24)
        server = EmbeddedServer(host=args.host, port=args.port, token=token,
                                history_window=args.history_window,
                                bookmark_interval=bookmarks, tls=not args.plain_http)
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
    controllers = None
    replay = None
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
        if recording is not None:  # its first lists are the state clients first see
            try:
                replay = server.replay(recording, speed=args.speed or None,
                                       resources=replay_resources(args))
            except KubenbError as exc:
                print(f"kubenb serve: {exc}", file=sys.stderr, flush=True)
                return 2
        if names:  # the controllers talk to the server over HTTP, like kubectl
            try:
                controllers = _start_controllers(server.kubeconfig_path, names,
                                                 in_process=args.controllers_in_process)
            except KubenbError as exc:
                print(f"kubenb serve: {exc}", file=sys.stderr, flush=True)
                return 2
        print(f"kubenb API server listening on {server.url}", flush=True)
        print(f"kubeconfig written to {path}" if args.kubeconfig_out else f"kubeconfig: {path}",
              flush=True)
        if server.ca_path:
            print(f"CA certificate: {server.ca_path}", flush=True)
        if args.seed_objects:
            print(f"seeded {args.seed_objects} pods in namespace default", flush=True)
        if names:
            pid = getattr(getattr(controllers, "proc", None), "pid", None)
            print(f"controllers ({'in this process' if pid is None else f'in process {pid}'}): "
                  f"{', '.join(names)}", flush=True)
        if churn is not None:
            churn.start()
            print(f"churn: {args.churn:g} operations/s on {', '.join(churn.kinds)} "
                  f"(seed {args.seed})", flush=True)
        if replay is not None:
            print(replay_banner(replay, args), flush=True)
        status = ReplayStatus(replay, ProgressLine()) if replay is not None else None
        while not stop.wait(0.5):
            if status is not None and not status.update():
                status = None  # done, and said so
    except KeyboardInterrupt:
        pass
    finally:
        if controllers is not None:
            controllers.stop()
        server.stop()
        signal.signal(signal.SIGTERM, previous)
    print("kubenb API server stopped", flush=True)
    return 0


def _start_controllers(kubeconfig: Any, names: Sequence[str], in_process: bool) -> Any:
    """The server's controllers: a ControllerManager here, or (by default) a
    `kubenb controller-manager` child beside the server, as a real cluster runs them."""
    from kubenb.controllermanager import ControllerManager, ControllerManagerProcess

    runner = ControllerManager if in_process else ControllerManagerProcess
    return runner(kubeconfig, names).start()


# -- record ----------------------------------------------------------------------------


def _record(args: argparse.Namespace) -> int:
    from kubenb.cluster import connect
    from kubenb.errors import KubenbError

    stop = threading.Event()
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: stop.set())
    cluster = None
    recorder = None
    progress = ProgressLine()
    try:
        cluster = connect(args.kubeconfig, args.context)
        namespace = "" if args.all_namespaces else (args.namespace or cluster.config.namespace)
        recorder = cluster.record(
            args.resources, args.output, namespace=namespace, label_selector=args.selector,
            field_selector=args.field_selector, duration=args.duration,
            max_bytes=args.max_bytes, max_events=args.max_events, redact=args.redact,
            redact_secrets=not args.no_redact_secrets)
        print(f"recording {', '.join(s.describe() for s in recorder.resources)} "
              f"to {recorder.path} (Ctrl-C stops)", file=sys.stderr, flush=True)
        while not recorder.wait(0.5) and not stop.is_set():
            show_recorder(recorder, progress)
    except KeyboardInterrupt:
        pass
    except KubenbError as exc:
        print(f"kubenb record: {exc}", file=sys.stderr, flush=True)
        return 2
    finally:
        if recorder is not None:
            recorder.stop()
        if cluster is not None:
            cluster.close()
        signal.signal(signal.SIGTERM, previous)
    show_recorder(recorder, progress, final=True)
    if recorder is not None and recorder.reason == "write-error":
        print(f"kubenb record: writing failed: {recorder.last_error}", file=sys.stderr,
              flush=True)
        return 1
    if recorder is not None and recorder.reason == "refused":
        print(f"kubenb record: the server refused the first list of "
              f"{recorder.last_error}", file=sys.stderr, flush=True)
        return 1
    return 0


# -- notebooks -------------------------------------------------------------------------


def find_notebooks(directory: Path | None = None, names: Sequence[str] = ()) -> list[Path]:
    """The notebooks to run, in file-name order (their numbers), checkpoints excluded."""
    folder = Path(directory) if directory is not None else NOTEBOOKS_DIR
    if not folder.is_dir():
        from kubenb.errors import KubenbError

        raise KubenbError(f"no notebooks folder at {folder}: pass --dir (the notebooks/ "
                          f"folder of a kubenb checkout)")
    found = sorted(p for p in folder.glob("*.ipynb") if not p.name.startswith("."))
    if names:
        def matches(path: Path, name: str) -> bool:  # "02" or "02_live_dataframes[.ipynb]"
            return Path(name).stem in (path.stem, path.stem.split("_", 1)[0])

        unknown = [n for n in names if not any(matches(p, n) for p in found)]
        if unknown:
            from kubenb.errors import KubenbError

            raise KubenbError(f"no notebook named {', '.join(unknown)} in {folder} "
                              f"(there are: {', '.join(p.stem for p in found)})")
        found = [p for p in found if any(matches(p, n) for n in names)]
    return found


@dataclass
class NotebookRun:
    """The outcome of executing one notebook: where its executed copy is, and any error."""

    source: Path
    executed: Path
    seconds: float
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def execute_notebook(path: Path, out_dir: Path, timeout: float = 300.0,
                     env: dict[str, str] | None = None) -> NotebookRun:
    """Run `path` top to bottom in a fresh python3 kernel; save the executed copy (also
    when a cell fails, so the reader sees where) as `out_dir/<name>`.

    The kernel runs in `out_dir`, so whatever a notebook writes lands beside its copy.
    `env` is the kernel's environment (default: this process's).
    """
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError

    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / path.name
    nb = nbformat.read(path, as_version=4)
    started = time.monotonic()
    error = None
    with tempfile.TemporaryDirectory(prefix="kubenb-kernel-") as sockets:
        client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                                config=kernel_config(sockets),
                                resources={"metadata": {"path": str(out_dir)}})
        try:
            client.execute(env=dict(os.environ if env is None else env))
        except (CellExecutionError, CellTimeoutError) as exc:
            error = _short_error(str(exc))
        finally:
            nbformat.write(nb, target)
    return NotebookRun(path, target, time.monotonic() - started, error)


def kernel_config(socket_dir: str) -> Any:
    """Configuration for the kernel manager nbclient makes: the kernel talks over Unix
    sockets in `socket_dir` where the OS has them, so it opens no TCP port anyone could
    eavesdrop on (and prints no "running over TCP without encryption" warning)."""
    from traitlets.config import Config as TraitletsConfig

    config = TraitletsConfig()
    if os.name == "posix":
        config.KernelManager.transport = "ipc"
        config.KernelManager.ip = os.path.join(socket_dir, "kernel")
    return config


def _short_error(text: str, lines: int = 30) -> str:
    """nbclient's message repeats the whole cell; keep its tail (the traceback's end)."""
    plain = re.sub(r"\x1b\[[0-9;]*m", "", text)  # the traceback's terminal colours
    kept = [line for line in plain.strip().splitlines() if line.strip()]
    return "\n".join(kept[-lines:])


def notebook_env(kubeconfig: str | os.PathLike[str]) -> dict[str, str]:
    """The kernels' environment: this one, with KUBECONFIG pointing at `kubeconfig`."""
    return dict(os.environ, KUBECONFIG=str(kubeconfig))


def _notebooks(args: argparse.Namespace) -> int:
    from kubenb.errors import KubenbError

    missing = [m for m in ("nbclient", "nbformat", "ipykernel") if not _importable(m)]
    if missing:
        print(f"kubenb notebooks: {', '.join(missing)} not installed; run "
              f"pip install 'kubenb[notebook]' (or pip install -e '.[notebook]')",
              file=sys.stderr, flush=True)
        return 2
    try:
        paths = find_notebooks(args.dir, args.names)
    except KubenbError as exc:
        print(f"kubenb notebooks: {exc}", file=sys.stderr, flush=True)
        return 2
    out = (args.out or Path(tempfile.mkdtemp(prefix="kubenb-notebooks-"))).resolve()
    server = None
    if args.kubeconfig is None:
        # Notebooks that connect like kubectl get an embedded server's kubeconfig, so
        # nothing here touches whatever cluster ~/.kube/config names.
        from kubenb.server import EmbeddedServer

        server = EmbeddedServer().start()
        server.seed_objects(12, seed=5)
        env = notebook_env(server.write_kubeconfig(out / "embedded.kubeconfig"))
    else:
        env = notebook_env(Path(args.kubeconfig).resolve())
    print(f"executing {len(paths)} notebook(s) into {out}", flush=True)
    failed = 0
    try:
        for path in paths:
            run = execute_notebook(path, out, timeout=args.timeout, env=env)
            verdict = "ok" if run.ok else "FAILED"
            print(f"  {verdict:6} {run.seconds:6.1f}s  {run.executed}", flush=True)
            if not run.ok:
                failed += 1
                print("    " + (run.error or "").replace("\n", "\n    "), flush=True)
    finally:
        if server is not None:
            server.stop()
    print(f"executed copies are in {out}", flush=True)
    if failed:
        print(f"{failed} of {len(paths)} notebook(s) failed", file=sys.stderr, flush=True)
        return 1
    return 0


def _importable(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


# -- tour ------------------------------------------------------------------------------


def lab_command(root_dir: Path, port: int, token: str, ip: str = "127.0.0.1",
                open_browser: bool = False, notebook: str = TOUR) -> list[str]:
    """`jupyter lab` with the flags the tour needs (the same ones the browser test uses)."""
    cmd = [sys.executable, "-m", "jupyter", "lab", f"--ServerApp.ip={ip}",
           f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
           f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root_dir}",
           f"--LabApp.default_url=/lab/tree/{notebook}",
           "--LabApp.expose_app_in_browser=True"]  # window.jupyterapp: scripts can run cells
    if not open_browser:
        cmd.append("--no-browser")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")  # otherwise jupyter refuses to start as root
    return cmd


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def port_is_free(host: str, port: int) -> bool:
    """Whether `port` can be bound on `host` now (as jupyter would bind it)."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as sock:
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def tour_port(host: str, requested: int | None, tries: int = 50) -> int:
    """The port the tour listens on: the one the user asked for (0: any free one), else
    TOUR_PORT or the next free port after it, as `jupyter lab` itself does. Raises
    OSError when the requested port, or all `tries` ports from TOUR_PORT, are taken."""
    if requested == 0:
        return free_port(host)
    if requested is not None:
        if not port_is_free(host, requested):
            raise OSError(f"port {requested} on {host} is in use; choose another with --port, "
                          f"or leave --port out to take the next free one")
        return requested
    for port in range(TOUR_PORT, TOUR_PORT + tries):
        if port_is_free(host, port):
            return port
    raise OSError(f"ports {TOUR_PORT}-{TOUR_PORT + tries - 1} on {host} are all in use; "
                  f"pass --port 0 for any free port")


def wait_for_lab(url: str, proc: subprocess.Popen[Any], timeout: float = 120.0) -> None:
    """Return once JupyterLab answers `url`; raise if it exits or `timeout` passes."""
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"jupyter lab exited with status {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"jupyter lab did not answer within {timeout:g}s")
        time.sleep(0.25)


def _tour(args: argparse.Namespace) -> int:
    if not _importable("jupyterlab"):
        print("kubenb tour: JupyterLab is not installed; run pip install 'kubenb[notebook]' "
              "(or pip install -e '.[notebook]')", file=sys.stderr, flush=True)
        return 2
    root = (args.dir or NOTEBOOKS_DIR).resolve()
    if not (root / TOUR).is_file():
        print(f"kubenb tour: no {TOUR} in {root}: pass --dir (the notebooks/ folder of a "
              f"kubenb checkout)", file=sys.stderr, flush=True)
        return 2
    try:
        port = tour_port(args.ip, args.port)
    except OSError as exc:
        print(f"kubenb tour: {exc}", file=sys.stderr, flush=True)
        return 1
    token = secrets.token_hex(16)
    proc = subprocess.Popen(lab_command(root, port, token, args.ip, not args.no_browser))
    host = "127.0.0.1" if args.ip in ("0.0.0.0", "::", "") else args.ip
    base = f"http://{host}:{port}"
    stop = threading.Event()
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: stop.set())
    try:
        wait_for_lab(f"{base}/api/status?token={token}", proc)
        # The URL carries the login token, as jupyter's own banner does: this terminal's
        # user needs it to open the page.
        print(f"kubenb tour: open {base}/lab/tree/{TOUR}?token={token}", flush=True)
        print("(the notebooks start an embedded API server: no cluster needed; "
              "Ctrl-C stops JupyterLab)", flush=True)
        while proc.poll() is None and not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    except (RuntimeError, TimeoutError) as exc:
        print(f"kubenb tour: {exc}", file=sys.stderr, flush=True)
        return 1
    finally:
        signal.signal(signal.SIGTERM, previous)
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
    return 0


# -- port --------------------------------------------------------------------------------


def _add_port_parser(commands: Any) -> None:
    port = commands.add_parser(
        "port", help="write a client-go controller project from a prototype's Controller "
                     "(docs/porting.md, 'Generate the Go project')")
    port.add_argument("target", metavar="FILE.py:NAME",
                      help="the Controller: prototype.py:controller, package.module:name, "
                           "or notebook.ipynb (with --name)")
    port.add_argument("--out", required=True, type=Path, metavar="DIR",
                      help="where to write the Go project")
    port.add_argument("--name", default=None,
                      help="the Controller's name in a notebook (default: controller)")
    port.add_argument("--module", default="example.com/controller",
                      help="the Go module path (default: example.com/controller)")
    port.add_argument("--client-go", default=None, metavar="VERSION",
                      help="the k8s.io/client-go version go.mod pins (default: the v0.32 "
                           "line)")


def _port(args: argparse.Namespace) -> int:
    from kubenb.errors import KubenbError
    from kubenb.port import DEFAULT_CLIENT_GO, port
    from kubenb.port.loader import load_controller

    try:
        controller = load_controller(args.target, args.name)
    except (KubenbError, ValueError) as err:
        print(f"kubenb port: {err}", file=sys.stderr)
        return 1
    try:
        report = port(controller, str(args.out), module=args.module,
                      client_go=args.client_go or DEFAULT_CLIENT_GO)
    except (KubenbError, ValueError) as err:
        print(f"kubenb port: {err}", file=sys.stderr)
        return 1
    finally:
        controller.stop()  # a prototype may have left it running
    print(f"wrote {args.out}: {', '.join(sorted(report.files))}\n"
          f"reconcile: {report.reach.translated} of {report.reach.total} statements "
          f"translated, {len(report.todos)} TODO(s) (see PORTING.md)")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Parse `argv` and run the chosen command; returns the exit code."""
    args = _build_parser().parse_args(argv)
    if args.command == "serve":
        return _serve(args)
    if args.command == "controller-manager":
        from kubenb.controllermanager.process import controller_manager_command

        return controller_manager_command(args)
    if args.command == "record":
        return _record(args)
    if args.command == "tour":
        return _tour(args)
    if args.command == "notebooks":
        return _notebooks(args)
    if args.command == "port":
        return _port(args)
    return 2  # pragma: no cover - argparse rejects unknown commands


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
