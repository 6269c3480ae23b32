"""The flight recorder's command line: the arguments of `kubenb record` and of
`kubenb serve --replay`, and the progress line both print on stderr.

kubenb.cli runs the commands (it composes a Cluster or a server, which this package
must not import); what they parse and how they report lives here, beside the recorder
and the replay it describes. A progress line is rewritten in place on a terminal and
is a plain line now and then in a log file or a pipe.
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import Any

from kubenb.clock import Clock, RealClock
from kubenb.errors import KubenbError
from kubenb.recording.format import Recording, format_offset

__all__ = [
    "ProgressLine",
    "ReplayStatus",
    "add_record_parser",
    "add_replay_arguments",
    "non_negative_float",
    "parse_size",
    "positive_int",
    "replay_banner",
    "replay_recording",
    "replay_resources",
    "show_recorder",
]


def non_negative_float(text: str) -> float:
    """argparse type: a number >= 0."""
    value = float(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, not {value}")
    return value


class ProgressLine:
    """A status line on stderr. On a terminal it is rewritten in place; on a file or a
    pipe (a log) it is a plain line at most every `every` seconds, so a log gets a line
    now and then, not hundreds of rewrites. `clock` times those lines."""

    def __init__(self, stream: Any = None, every: float = 10.0,
                 clock: Clock | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.clock = clock or RealClock()
        isatty = getattr(self.stream, "isatty", None)
        self.tty = bool(isatty and isatty())
        self.every = every
        self._last: float | None = None
        self._width = 0

    def show(self, text: str) -> None:
        if self.tty:
            print("\r" + text.ljust(self._width), end="", file=self.stream, flush=True)
            self._width = len(text)
            return
        now = self.clock.now()
        if self._last is None:
            self._last = now  # the first line after `every` seconds
        elif now - self._last >= self.every:
            self._last = now
            print(text, file=self.stream, flush=True)

    def finish(self, text: str) -> None:
        """The last line, always shown (ending the rewritten one on a terminal)."""
        if self.tty and self._width:
            print("\r" + text.ljust(self._width), file=self.stream, flush=True)
        else:
            print(text, file=self.stream, flush=True)
        self._width = 0


# -- kubenb record ------------------------------------------------------------------


def add_record_parser(commands: Any) -> None:
    """The `kubenb record` subcommand's arguments."""
    record = commands.add_parser(
        "record", help="record what informers of some resources receive into a file "
                       "(docs/recording.md); Ctrl-C stops it cleanly")
    record.add_argument("resources", nargs="+", metavar="RESOURCE",
                        help="what to record, as kubectl names it: pods, deploy, "
                             "foos.example.com ...")
    record.add_argument("-o", "--output", required=True, metavar="PATH",
                        help="the recording file to write (gzip JSON lines, e.g. run.jsonl.gz)")
    record.add_argument("--kubeconfig", default=None, metavar="PATH",
                        help="the cluster (default: KUBECONFIG, ~/.kube/config, in-cluster)")
    record.add_argument("--context", default=None, help="the kubeconfig context to use")
    where = record.add_mutually_exclusive_group()
    where.add_argument("-n", "--namespace", default=None,
                       help="one namespace (default: the context's namespace)")
    where.add_argument("-A", "--all-namespaces", action="store_true",
                       help="every namespace")
    record.add_argument("-l", "--selector", default=None, help="a label selector")
    record.add_argument("--field-selector", default=None, help="a field selector")
    record.add_argument("--duration", type=non_negative_float, default=None,
                        metavar="SECONDS",
                        help="stop after this long (default: until Ctrl-C)")
    record.add_argument("--max-bytes", type=parse_size, default=None, metavar="SIZE",
                        help="stop when the file reaches SIZE bytes (suffixes k, M, G)")
    record.add_argument("--max-events", type=positive_int, default=None, metavar="N",
                        help="stop after N watch events")
    record.add_argument("--redact", action="append", default=[], metavar="FIELD",
                        help="also replace this field's value by <redacted> in every "
                             "object, e.g. spec.template (repeatable; '\\.' is a dot "
                             "inside a key)")
    record.add_argument("--no-redact-secrets", action="store_true",
                        help="keep Secret values in the file (by default they are replaced: "
                             "data by <redacted> in base64, stringData by <redacted>)")


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, not {value}")
    return value


def parse_size(text: str) -> int:
    """argparse type: bytes, with k, M or G (powers of 1024): "500k", "20M", "1G"."""
    units = {"": 1, "k": 1024, "m": 1024 ** 2, "g": 1024 ** 3}
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kmg]?)i?b?\s*", text.lower())
    if not match:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (e.g. 500k, 20M, 1G)")
    value = int(float(match.group(1)) * units[match.group(2)])
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1 byte, not {text!r}")
    return value


def show_recorder(recorder: Any, progress: ProgressLine, final: bool = False) -> None:
    """The recording's counters on the progress line."""
    if recorder is None:
        return
    s = recorder.stats()
    line = (f"{s['events']} events, {s['lists']} lists, {s['errors']} errors, "
            f"{s['bytes'] / 1024:.1f} KiB, {s['elapsed']:.0f}s")
    if final:
        progress.finish(f"stopped ({recorder.reason}): {line}; wrote {recorder.path}")
    else:
        progress.show(f"recording: {line}")


# -- kubenb serve --replay ------------------------------------------------------------


def add_replay_arguments(serve: Any) -> None:
    """`kubenb serve`'s --replay, --speed and --replay-resources."""
    serve.add_argument("--replay", default=None, metavar="FILE",
                       help="play this recording (docs/recording.md) through the server: it "
                            "starts from the recorded lists and plays once every recorded "
                            "resource is listed or watched; the cluster's controllers do "
                            "not run")
    serve.add_argument("--speed", type=non_negative_float, default=None, metavar="N",
                       help="with --replay: N times the recorded pace (default 1; 0: as "
                            "fast as possible)")
    serve.add_argument("--replay-resources", default=None, metavar="LIST",
                       help="with --replay: replay only these recorded resources "
                            "(comma-separated, e.g. pods,deployments.apps)")


def replay_recording(args: argparse.Namespace) -> Recording | None:
    """The recording `--replay` names (read before the server starts: a bad file fails
    fast), or None; refuses options that would write into the recorded history."""
    if args.replay is None:
        for flag, value in (("--speed", args.speed),
                            ("--replay-resources", args.replay_resources)):
            if value is not None:
                raise KubenbError(f"{flag} needs --replay FILE")
        return None
    clashes = [flag for flag, on in (("--seed-objects", args.seed_objects),
                                     ("--churn", args.churn),
                                     ("--controllers", args.controllers not in ("*", "")))
               if on]
    if clashes:
        raise KubenbError(f"--replay cannot run with {', '.join(clashes)}: they would write "
                          "into the recorded history")
    recording = Recording.read(args.replay)
    if args.speed is None:
        args.speed = 1.0
    replay_resources(args, recording)  # names that are not recorded fail here
    return recording


def replay_resources(args: argparse.Namespace,
                     recording: Recording | None = None) -> list[str] | None:
    """The resources --replay-resources names (checked against `recording` if given)."""
    if not args.replay_resources:
        return None
    names = [n.strip() for n in args.replay_resources.split(",") if n.strip()]
    if recording is not None:
        recording.select(names)
    return names


def replay_banner(replay: Any, args: argparse.Namespace) -> str:
    """What `kubenb serve --replay` says it plays, once the server listens."""
    pace = f"at {args.speed:g}x the recorded pace" if args.speed else "as fast as possible"
    what = "; ".join(spec.describe() for spec in replay.recording.resources)
    return (f"replaying {args.replay} ({format_offset(replay.end_t)} of {what}) {pace}; "
            "it plays once every recorded resource is listed or watched")


class ReplayStatus:
    """`kubenb serve --replay`'s progress: the replay's state on a ProgressLine; once the
    replay has warned that it waits for clients, the flag that replays only the watched
    resources; a last line when it is done."""

    def __init__(self, replay: Any, progress: ProgressLine) -> None:
        self.replay = replay
        self.progress = progress
        self._hinted = False

    def update(self) -> bool:
        """Show where the replay is; False once it is done (the last line shown)."""
        replay = self.replay
        p = replay.progress()
        line = (f"replay {p['state']}: {p['applied']}/{p['actions']} actions, "
                f"{format_offset(p['position'])} of {format_offset(p['end'])}")
        if replay.done:
            self.progress.finish(line + ("" if replay.error else
                                         "; the server keeps serving the recorded final "
                                         "state"))
            return False
        if replay.warned and p["waiting_for"] and not self._hinted:
            self._hinted = True
            watched = [spec.key for spec in replay.recording.resources
                       if spec.key not in p["waiting_for"]]
            hint = (f"--replay-resources {','.join(watched)}" if watched else
                    "--replay-resources LIST")
            self.progress.finish(f"{line}; list or watch {', '.join(p['waiting_for'])} "
                                 f"too, or serve again with {hint}")
        else:
            self.progress.show(line)
        return True
