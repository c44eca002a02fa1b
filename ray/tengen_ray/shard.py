"""One shard of a match or of a review, run on a Ray worker.

`play_shard` runs `tengen match --shard I/N` in a scratch folder of the
worker, watches the results file tengen appends to, and yields each finished
game (its results line and its SGF record) as soon as tengen has written it.
The games the driver already has are written into the results file first, so
tengen resumes after them instead of playing them again.

`review_shard` writes the records it is given into a scratch folder, runs
`tengen review --shard I/N` on them, and yields each review as soon as tengen
has written it. The reviews the driver already has are marked done in
tengen's output folder first, so tengen skips them as on a rerun.
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
from typing import Callable, Generator, Iterator, List, Optional, Sequence, Tuple

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
class ReviewedRecord:
    """A record's review as tengen wrote it on the worker: the record's
    place in the list the shard was given, its file name and the review's
    bytes."""

    index: int
    name: str
    review: bytes


@dataclass(frozen=True)
class ShardFinished:
    """The last thing a shard yields: the processor time tengen and the
    engines it started used on the worker, for the driver's figures; for a
    review, the records tengen could not review (their place in the list,
    tengen's reason)."""

    cpu_seconds: float
    failures: Tuple[Tuple[int, str], ...] = ()


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


def _run_watching(command: List[str], work: Path, look: Callable[[], list]) -> Generator:
    """Runs tengen's `command` in `work` (its output in `stdout.txt` and
    `stderr.txt` there), yielding what `look` finds each time it looks, as
    soon as tengen has written it; returns tengen's exit status and the
    processor time it and the engines it waited for used. tengen is killed
    if the caller stops early."""
    with open(work / "stderr.txt", "wb") as stderr, open(work / "stdout.txt", "wb") as stdout:
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=stderr,
            preexec_fn=_die_with_parent,
        )
    ended = False
    try:
        while True:
            # wait4 rather than Popen.poll: it also tells the processor
            # time. Looked at after the wait, so that the last look after
            # tengen's end finds everything it wrote.
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            found = look()
            # A loop, not `yield from`: Ray's streaming generators send
            # values in, which a list's iterator does not take.
            for item in found:
                yield item
            if pid != 0:
                ended = True
                process.returncode = os.waitstatus_to_exitcode(status)
                return process.returncode, usage.ru_utime + usage.ru_stime
            if not found:
                time.sleep(POLL_SECONDS)
    finally:
        if not ended:
            process.kill()
            process.wait()


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

        def look() -> List[FinishedGame]:
            nonlocal offset
            games, offset = _read_new_games(results, offset)
            return games

        returncode, cpu_seconds = yield from _run_watching(command, work, look)
        if returncode != 0:
            raise _tengen_failed(returncode, node, work / "stderr.txt")
        yield ShardFinished(cpu_seconds=cpu_seconds)


def _stderr_text(stderr_path: Path) -> str:
    """tengen's standard error, without the stack backtrace that follows its
    error when RUST_BACKTRACE is set (it would push the reason out of the
    tail)."""
    text = stderr_path.read_text(errors="replace")
    return text.split("\n\nStack backtrace:", 1)[0]


def _tengen_failed(status: int, node: str, stderr_path: Path) -> ShardFailed:
    tail = _stderr_text(stderr_path)[-STDERR_TAIL_CHARS:].strip()
    return ShardFailed(f"tengen exited with status {status} on node {node}: {tail}")


def option_value(args: Sequence[str], option: str) -> Optional[str]:
    """The value of `option` among command-line arguments (`--x V` or
    `--x=V`, the last one given), or None."""
    value = None
    for position, argument in enumerate(args):
        if argument == option and position + 1 < len(args):
            value = args[position + 1]
        elif argument.startswith(option + "="):
            value = argument.split("=", 1)[1]
    return value


def record_file_name(index: int, count: int) -> str:
    """The scratch file of the record at `index` of `count`: numbered, so
    that the folder's name order (tengen's) is the list's order whatever
    the records are called."""
    width = max(6, len(str(max(count - 1, 0))))
    return f"{index:0{width}d}.sgf"


def review_command(
    binary: str, review_args: List[str], shard: int, count: int, records: Path, out: Path
) -> List[str]:
    """The tengen command line of review shard `shard` of `count`."""
    return [
        binary,
        "review",
        str(records),
        *review_args,
        "--out",
        str(out),
        "--shard",
        f"{shard}/{count}",
    ]


def _new_reviews(out: Path, seen: set, names: dict) -> List[Tuple[int, bytes]]:
    """The reviews tengen finished in `out` since the last look (place in
    the list, bytes). tengen writes each into a hidden `.NAME.partial` file
    and renames it, so a visible file is whole."""
    found = []
    with os.scandir(out) as entries:
        for entry in entries:
            if entry.name in names and entry.name not in seen:
                seen.add(entry.name)
                found.append(entry.name)
    return [(names[name], (out / name).read_bytes()) for name in sorted(found)]


def _record_failures(stderr_path: Path, folder: Path, names: dict) -> List[Tuple[int, str]]:
    """The records tengen said it could not review: its lines
    `RECORD: reason` on standard error about the scratch files."""
    prefix = f"{folder}{os.sep}"
    failures = []
    for line in _stderr_text(stderr_path).splitlines():
        if line.startswith(prefix):
            file_name, _, reason = line[len(prefix):].partition(": ")
            if file_name in names:
                failures.append((names[file_name], reason.strip()))
    return failures


def review_shard(
    binary: str,
    records: List[Tuple[str, bytes]],
    review_args: List[str],
    shard: int,
    count: int,
    done: List[int],
) -> Iterator[object]:
    """Reviews shard `shard` of `count` of `records` (file name and text,
    in the collection's order; tengen takes those whose place leaves
    `shard` modulo `count`) with the tengen at `binary` on this machine,
    yielding a `ShardStarted`, a `ReviewedRecord` per review as tengen
    writes it, and a `ShardFinished` with the records tengen could not
    review. `done` are the places of records whose review the driver
    already has: tengen skips them. Raises `ShardFailed` with the reason
    when tengen cannot run or fails for another reason than bad records."""
    node = _node_name()
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        raise ShardFailed(f"tengen binary {binary} not found (or not executable) on node {node}")
    model = option_value(review_args, "--model")
    if model is not None and not os.path.isfile(model):
        raise ShardFailed(f"KataGo network {model} not found on node {node}")
    with tempfile.TemporaryDirectory(prefix=f"tengen-review-{shard}-of-{count}-") as scratch:
        work = Path(scratch)
        folder = work / "records"
        out = work / "out"
        folder.mkdir()
        out.mkdir()
        names = {}
        for index, (_, text) in enumerate(records):
            file_name = record_file_name(index, len(records))
            (folder / file_name).write_bytes(text)
            names[file_name] = index
        # An empty file stands for a review the driver has: tengen skips a
        # record whose review exists, and the task does not send it back.
        seen = set()
        for index in done:
            file_name = record_file_name(index, len(records))
            (out / file_name).write_bytes(b"")
            seen.add(file_name)
        yield ShardStarted(node=node, resumed=len(done))
        command = review_command(binary, review_args, shard, count, folder, out)
        stderr_path = work / "stderr.txt"

        def look() -> List[ReviewedRecord]:
            return [
                ReviewedRecord(index=index, name=records[index][0], review=review)
                for index, review in _new_reviews(out, seen, names)
            ]

        returncode, cpu_seconds = yield from _run_watching(command, work, look)
        # Exit status 1 with records named on standard error: those records
        # could not be reviewed, the others were. Anything else is tengen's
        # failure.
        failures = _record_failures(stderr_path, folder, names)
        if returncode != 0 and not (returncode == 1 and failures):
            raise _tengen_failed(returncode, node, stderr_path)
        yield ShardFinished(cpu_seconds=cpu_seconds, failures=tuple(failures))
