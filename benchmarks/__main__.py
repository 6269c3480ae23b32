"""Run every benchmark and print one table: `python -m benchmarks [--quick]`."""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys

from benchmarks import (
    bench_client,
    bench_cluster,
    bench_controller,
    bench_delta_fifo,
    bench_informer,
    bench_memory,
    bench_reactive,
    bench_recording,
    bench_server,
    bench_sync,
    bench_watch,
    bench_workqueue,
)
from benchmarks.harness import format_table

SUITES = {
    "workqueue": bench_workqueue,
    "delta_fifo": bench_delta_fifo,
    "client": bench_client,
    "informer": bench_informer,
    "memory": bench_memory,
    "watch": bench_watch,
    "sync": bench_sync,
    "server": bench_server,
    "cluster": bench_cluster,
    "controller": bench_controller,
    "reactive": bench_reactive,
    "recording": bench_recording,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a tenth of the work, 1 round")
    parser.add_argument("--only", choices=sorted(SUITES), action="append", help="run one suite")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    parser.add_argument("--real-kubeconfig", metavar="PATH",
                        help="a real kube-apiserver for the cluster suite's rows "
                             f"(or ${bench_cluster.REAL_KUBECONFIG_ENV})")
    args = parser.parse_args(argv)
    if args.real_kubeconfig:
        os.environ[bench_cluster.REAL_KUBECONFIG_ENV] = args.real_kubeconfig

    scale, rounds = (0.1, 1) if args.quick else (1.0, 3)
    results = []
    for name in args.only or list(SUITES):
        results.extend(SUITES[name].run(scale=scale, rounds=rounds))

    print(f"kubenb benchmarks — Python {platform.python_version()}, {platform.machine()}")
    print("ratio = kubenb throughput / baseline throughput, same run, best of rounds;")
    print("rounds = the lowest and highest ratio of single rounds (each against its own")
    print("baseline time)\n")
    print(format_table(results))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(
                [
                    {
                        "name": r.name,
                        "ops": r.ops,
                        "kubenb_ops_per_s": r.kubenb_rate,
                        "baseline": r.baseline_name,
                        "baseline_ops_per_s": r.baseline_rate,
                        "ratio": r.ratio,
                        "round_ratios": list(r.round_ratios),
                        "target": r.target_ratio,
                    }
                    for r in results
                ],
                fh,
                indent=2,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
