"""Throughput of the Ray driver on simulated clusters of 1, 2, 4, ... nodes
on this machine (each node one CPU, the head none), against one plain
`tengen match` run of the same games.

    python3 ray/bench_cluster.py --binary target/release/tengen --games 24 \\
        --nodes 1,2,4 -- --engine "..." --engine "..." --size 9

For each run it prints the wall time, games per minute, the processor time
per game of tengen and its engines (from the operating system's accounting
of the processes each shard waited for), and for Ray runs the processor time
per game of everything else in the cluster (Ray's processes and the driver):
the whole process tree's time minus tengen's.
"""

from __future__ import annotations

import argparse
import io
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import ray
from ray.cluster_utils import Cluster

from tengen_ray import run_match


def tree_cpu_seconds() -> float:
    """Processor time of this process and every process under it, with the
    time of the children each has waited for (from /proc)."""
    parents = {}
    times = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as file:
                stat = file.read()
        except OSError:
            continue
        # The command name, in parentheses, may hold spaces.
        fields = stat[stat.rindex(")") + 2:].split()
        parents[int(entry)] = int(fields[1])
        # utime, stime, cutime, cstime: fields 14 to 17 of stat.
        times[int(entry)] = sum(int(v) for v in fields[11:15])
    tree = {os.getpid()}
    grown = True
    while grown:
        grown = False
        for pid, parent in parents.items():
            if parent in tree and pid not in tree:
                tree.add(pid)
                grown = True
    return sum(times[pid] for pid in tree if pid in times) / os.sysconf("SC_CLK_TCK")


def plain(binary: str, match_args: list, games: int) -> tuple:
    with tempfile.TemporaryDirectory() as scratch:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.monotonic()
        subprocess.run(
            [binary, "match", *match_args, "--games", str(games),
             "--results", str(Path(scratch) / "results.jsonl")],
            check=True, capture_output=True,
        )
        wall = time.monotonic() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def on_cluster(binary: str, match_args: list, games: int, nodes: int) -> tuple:
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0})
    for _ in range(nodes):
        cluster.add_node(num_cpus=1, object_store_memory=80 * 1024 * 1024)
    cluster.wait_for_nodes()
    ray.init(address=cluster.address, log_to_driver=False)
    try:
        with tempfile.TemporaryDirectory() as scratch:
            before = tree_cpu_seconds()
            started = time.monotonic()
            run = run_match(binary, [*match_args, "--games", str(games)], nodes,
                            Path(scratch) / "results.jsonl", out=io.StringIO())
            wall = time.monotonic() - started
            total = tree_cpu_seconds() - before
    finally:
        ray.shutdown()
        cluster.shutdown()
    tengen = run.worker_cpu_seconds()
    return wall, tengen, total - tengen


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--games", type=int, default=24)
    parser.add_argument("--nodes", default="1,2,4")
    parser.add_argument("match_args", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    match_args = args.match_args[1:] if args.match_args[:1] == ["--"] else args.match_args
    games = args.games
    print(f"{games} games: tengen match {' '.join(match_args)}")
    print(f"load average before: {open('/proc/loadavg').read().split()[:3]}")
    wall, cpu = plain(args.binary, match_args, games)
    print(f"plain tengen match: {wall:.1f} s, {60 * games / wall:.1f} games/min, "
          f"{wall / games:.3f} s wall and {cpu / games:.3f} s CPU per game")
    for nodes in [int(n) for n in args.nodes.split(",")]:
        wall, tengen, ray_cpu = on_cluster(args.binary, match_args, games, nodes)
        print(f"Ray, {nodes} node(s), {nodes} shard(s): {wall:.1f} s, "
              f"{60 * games / wall:.1f} games/min, {wall / games:.3f} s wall per game, "
              f"CPU per game {tengen / games:.3f} s tengen + {ray_cpu / games:.3f} s Ray and driver")
        sys.stdout.flush()
    print(f"load average after: {open('/proc/loadavg').read().split()[:3]}")


if __name__ == "__main__":
    main()
