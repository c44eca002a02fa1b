"""One shard of a match, run on a Ray worker.

The task runs `tengen match --shard I/N` in a scratch folder of the worker,
watches the results file tengen appends to, and yields each finished game
(its results line and its SGF record) as soon as tengen has written it. The
games the driver already has are written into the results file first, so
tengen resumes after them instead of playing them again.
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, List, Optional

# How often the task looks for new lines in the results file.
POLL_SECONDS = 0.05

# How much of tengen's standard error a failure reports.
STDERR_TAIL_CHARS = 2000


class ShardFailed(Exception):
    """The shard could not be played: the binary is missing on the worker, or
    tengen refused the arguments or stopped with an error. Not retried: the
    same shard would fail again on another worker."""


@dataclass(frozen=True)
class FinishedGame:
    """A game as tengen recorded it on the worker."""

    index: int
    line: str
    sgf: Optional[str]


@dataclass(frozen=True)
class ShardFinished:
    """The last thing a shard yields: the processor time tengen and the
    engines it started used on the worker, for the driver's figures."""

    cpu_seconds: float


@dataclass(frozen=True)
class ShardStarted:
    """The first thing a shard yields: where it runs and how many of its games
    it was given as already played."""

    node: str
    resumed: int


def _die_with_parent() -> None:
    """Runs in the child before exec: when the Ray worker dies (its node is
    lost or it is killed), the kernel kills tengen too, rather than leaving
    it to play on for nobody."""
    PR_SET_PDEATHSIG = 1
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except OSError:
        pass


def _node_name() -> str:
    """This worker's host name and Ray node id (several nodes can share a
    host, as in a simulated cluster)."""
    try:
        import ray

        node_id = ray.get_runtime_context().get_node_id()
    except Exception:  # noqa: BLE001 - only for messages
        node_id = "?"
    return f"{socket.gethostname()} node {node_id}"


def shard_command(
    binary: str, match_args: List[str], shard: int, count: int, results: Path, sgf_dir: Path
) -> List[str]:
    """The tengen command line of shard `shard` of `count`."""
    return [
        binary,
        "match",
        *match_args,
        "--shard",
        f"{shard}/{count}",
        "--results",
        str(results),
        "--sgf-dir",
        str(sgf_dir),
    ]


def _read_new_games(results: Path, offset: int) -> tuple[list[FinishedGame], int]:
    """The complete lines appended to `results` after byte `offset`, as games,
    and the offset after them. A line still being written (no newline yet)
    is left for the next look."""
    try:
        with open(results, "rb") as file:
            file.seek(offset)
            data = file.read()
    except FileNotFoundError:
        return [], offset
    end = data.rfind(b"\n")
    if end < 0:
        return [], offset
    games = []
    for raw in data[: end + 1].splitlines():
        text = raw.decode("utf-8").strip()
        if not text:
            continue
        record = json.loads(text)
        sgf_path = record.get("sgf")
        sgf = None
        if sgf_path:
            try:
                sgf = Path(sgf_path).read_text(encoding="utf-8")
            except FileNotFoundError:
                sgf = None
        games.append(FinishedGame(index=int(record["game"]), line=text, sgf=sgf))
    return games, offset + end + 1


def play_shard(
    binary: str,
    match_args: List[str],
    shard: int,
    count: int,
    finished_lines: List[str],
) -> Iterator[object]:
    """Plays shard `shard` of `count` with the tengen at `binary` on this
    machine, yielding a `ShardStarted`, a `FinishedGame` per game as it
    ends, and a `ShardFinished`. `finished_lines` are results lines of games already played
    (tengen resumes after the ones of this match and shard). Raises
    `ShardFailed` with the reason when tengen cannot run or fails."""
    node = _node_name()
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        raise ShardFailed(f"tengen binary {binary} not found (or not executable) on node {node}")
    with tempfile.TemporaryDirectory(prefix=f"tengen-shard-{shard}-of-{count}-") as scratch:
        work = Path(scratch)
        results = work / "results.jsonl"
        sgf_dir = work / "sgf"
        results.write_text("".join(line.rstrip("\n") + "\n" for line in finished_lines))
        offset = results.stat().st_size
        yield ShardStarted(node=node, resumed=len(finished_lines))
        command = shard_command(binary, match_args, shard, count, results, sgf_dir)
        stderr_path = work / "stderr.txt"
        with open(stderr_path, "wb") as stderr, open(work / "stdout.txt", "wb") as stdout:
            process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=stdout,
                stderr=stderr,
                preexec_fn=_die_with_parent,
            )
        cpu_seconds = 0.0
        try:
            while True:
                # wait4 rather than Popen.poll: it also tells the processor
                # time of tengen and of the engines it waited for.
                pid, status, usage = os.wait4(process.pid, os.WNOHANG)
                games, offset = _read_new_games(results, offset)
                for game in games:
                    yield game
                if pid != 0:
                    process.returncode = os.waitstatus_to_exitcode(status)
                    cpu_seconds = usage.ru_utime + usage.ru_stime
                    break
                if not games:
                    time.sleep(POLL_SECONDS)
        finally:
            if process.returncode is None:
                process.kill()
                process.wait()
        if process.returncode != 0:
            text = stderr_path.read_text(errors="replace")
            # With RUST_BACKTRACE set, tengen's error is followed by a stack
            # backtrace that would push the reason out of the tail.
            text = text.split("\n\nStack backtrace:", 1)[0]
            tail = text[-STDERR_TAIL_CHARS:].strip()
            raise ShardFailed(
                f"tengen exited with status {process.returncode} on node {node}: {tail}"
            )
        yield ShardFinished(cpu_seconds=cpu_seconds)
