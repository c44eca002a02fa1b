"""The review driver: spreads `tengen review` over a collection of game
records as shards on a Ray cluster, and gathers the reviews into one folder
as they are written.

    tengen-ray review --shards 4 --binary /usr/local/bin/tengen --out reviews/ \\
        games/ more/game-7.sgf -- --model /models/net.bin.gz --visits 100

The records (files, or folders of them: their .sgf files in name order, as
tengen takes them) are read here: workers need not see this machine's
files. Those whose review is already in the --out folder are skipped, so a
stopped run resumes where it was. Every shard is given the remaining
records' names and texts, writes them into a scratch folder in the same
order and runs `tengen review --shard I/N` on them; each review comes back
as soon as tengen has written it and is written into the --out folder whole
(into `.NAME.partial`, then renamed). Everything after `--` is given to
`tengen review` unchanged (the driver adds `--out` and `--shard`, and
`--threads` matching --cpus-per-shard when it is not given); the network
named by `--model` must be at that path on every worker, as the binary is.

A shard whose worker or node dies is submitted again, and tengen skips the
reviews the driver already has. A record tengen cannot review (an illegal
move, a board too large) does not stop the others: the driver names it with
tengen's reason at the end and exits with status 1. A shard that fails for
any other reason (the binary or the network missing on a worker, arguments
tengen refuses) stops the run with tengen's message.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, TextIO, Tuple

import ray

from .driver import DriverError, drive_shard
from .shard import ReviewedRecord, option_value, review_shard

# Options of `tengen review` that the driver sets itself for each shard.
DRIVER_OPTIONS = ("--out", "--shard")


@dataclass
class ReviewAttempt:
    """One submission of one shard."""

    shard: int
    number: int
    resumed: int
    node: Optional[str] = None
    reviews: int = 0
    lost_because: Optional[str] = None
    cpu_seconds: Optional[float] = None


@dataclass
class ReviewRun:
    """What a review run did: the collection's records, those skipped as
    already reviewed, those reviewed or failed in this run, and every
    attempt of every shard."""

    records: List[str] = field(default_factory=list)
    skipped: List[str] = field(default_factory=list)
    reviewed: List[str] = field(default_factory=list)
    failures: Dict[str, str] = field(default_factory=dict)
    attempts: List[ReviewAttempt] = field(default_factory=list)
    duplicates: int = 0
    seconds: float = 0.0

    def retries(self) -> List[ReviewAttempt]:
        """The attempts that replaced one whose worker was lost."""
        return [a for a in self.attempts if a.number > 0]


def collection(inputs: List[Path]) -> List[Path]:
    """The records among `inputs` as `tengen review` takes them: files as
    given, folders as their .sgf files (not their subfolders) in name
    order; refuses a missing input, two records of the same name (their
    reviews would overwrite each other) and an empty collection."""
    records: List[Path] = []
    for given in inputs:
        path = Path(given)
        if path.is_dir():
            try:
                found = [
                    entry
                    for entry in path.iterdir()
                    if entry.is_file() and entry.suffix.lower() == ".sgf"
                ]
            except OSError as error:
                raise DriverError(f"{path}: cannot list the folder: {error}") from error
            records.extend(sorted(found, key=lambda entry: os.fsencode(entry.name)))
        elif path.is_file():
            records.append(path)
        else:
            raise DriverError(f"{path}: no such file or folder")
    if not records:
        raise DriverError("no SGF records among the inputs")
    names: Dict[str, Path] = {}
    for record in records:
        if record.name in names:
            raise DriverError(
                f"{names[record.name]} and {record} have the same name: "
                "their reviews would overwrite each other"
            )
        names[record.name] = record
    return records


def check_review_arguments(shards: int, review_args: List[str]) -> None:
    """Refuses what would make the shards wrong before anything starts."""
    if shards < 1:
        raise DriverError(f"--shards must be at least 1, not {shards}")
    for argument in review_args:
        for option in DRIVER_OPTIONS:
            if argument == option or argument.startswith(option + "="):
                raise DriverError(
                    f"leave {option} out of the review arguments: the driver sets it for each shard"
                )
        if argument in ("-o", "--output") or argument.startswith(("-o", "--output=")):
            raise DriverError(
                "-o/--output names one record's review: the driver writes every review into --out"
            )
        if argument.lower().endswith(".sgf") and not argument.startswith("-"):
            raise DriverError(
                f"{argument}: give the records before --; the arguments after it go to tengen review"
            )
    if option_value(review_args, "--model") is None:
        raise DriverError("give the KataGo network after --: --model PATH (the same path on every worker)")


def shard_arguments(review_args: List[str], cpus_per_shard: float) -> List[str]:
    """The arguments each shard gives tengen: the user's, with `--threads`
    as many as the CPUs Ray reserves for a shard unless they set it."""
    if option_value(review_args, "--threads") is not None:
        return list(review_args)
    return [*review_args, "--threads", str(max(1, round(cpus_per_shard)))]


def write_whole(path: Path, data: bytes) -> None:
    """Writes `data` to `path` whole or not at all, as tengen does: into
    `.NAME.partial` beside it, then renamed over it."""
    partial = path.with_name(f".{path.name}.partial")
    partial.write_bytes(data)
    os.replace(partial, path)


class _ReviewGatherer:
    """Receives the reviews of every shard (from one thread per shard),
    writes them into the --out folder, and prints progress."""

    def __init__(self, run: ReviewRun, pending: List[str], out_dir: Path, out: TextIO):
        self.run = run
        self.pending = pending
        self.out_dir = out_dir
        self.out = out
        self.lock = threading.Lock()
        # The places (in `pending`) of the reviews here, and of the failed records.
        self.received: set = set()
        self.failed: Dict[int, str] = {}
        self.failure: Optional[str] = None
        self.running: Dict[int, object] = {}

    def say(self, text: str) -> None:
        with self.lock:
            print(text, file=self.out, flush=True)

    def done(self, shard: int, count: int) -> List[int]:
        with self.lock:
            return sorted(index for index in self.received if index % count == shard)

    def add(self, shard: int, count: int, attempt: ReviewAttempt, item: ReviewedRecord) -> None:
        with self.lock:
            attempt.reviews += 1
            if item.index in self.received:
                # Only possible when a review reached the driver twice.
                self.run.duplicates += 1
                return
            name = self.pending[item.index]
            if item.name != name:
                self.failure = f"shard {shard}/{count} sent a review of {item.name} for {name}"
                return
            write_whole(self.out_dir / name, item.review)
            self.received.add(item.index)
            self.run.reviewed.append(name)
            done = len(self.run.skipped) + len(self.run.reviewed)
            print(
                f"[{done}/{len(self.run.records)}] {name} reviewed (shard {shard}/{count})",
                file=self.out,
                flush=True,
            )

    def add_failures(self, shard: int, count: int, failures: Tuple[Tuple[int, str], ...]) -> None:
        with self.lock:
            for index, reason in failures:
                name = self.pending[index]
                self.failed[index] = reason
                self.run.failures[name] = reason
                print(f"{name} could not be reviewed (shard {shard}/{count}): {reason}",
                      file=self.out, flush=True)

    def fail(self, text: str) -> None:
        with self.lock:
            if self.failure is None:
                self.failure = text

    def stop_all(self) -> None:
        """Cancels every shard still running (after a failure)."""
        with self.lock:
            running = list(self.running.values())
        for generator in running:
            try:
                ray.cancel(generator)
            except Exception:  # noqa: BLE001 - already finished or gone
                pass


def _review_one_shard(
    gatherer: _ReviewGatherer,
    task: Callable,
    binary: str,
    records: object,
    review_args: List[str],
    shard: int,
    count: int,
    retries: int,
) -> None:
    """Runs one shard to its end, submitting it again (with the reviews
    already here marked done) each time its worker is lost, at most
    `retries` times."""
    drive_shard(
        gatherer,
        shard,
        count,
        retries,
        resumed=lambda: gatherer.done(shard, count),
        new_attempt=lambda number, resumed: ReviewAttempt(shard=shard, number=number, resumed=resumed),
        submit=lambda done: task.remote(binary, records, review_args, shard, count, done),
        finished=lambda item: gatherer.add_failures(shard, count, item.failures),
        resubmitted=lambda n: f"without its {n} finished reviews",
    )


def run_review(
    binary: str,
    inputs: List[Path],
    review_args: List[str],
    shards: int,
    out_dir: Path,
    retries: int = 3,
    cpus_per_shard: float = 1.0,
    out: Optional[TextIO] = None,
    run: Optional[ReviewRun] = None,
) -> ReviewRun:
    """Reviews the records among `inputs` into `out_dir` as
    `tengen review INPUTS --out OUT_DIR REVIEW_ARGS` would, split into
    `shards` Ray tasks that run the tengen at `binary` on the workers (Ray
    must be initialised). Returns the run (filled in as it goes into `run`
    when given); raises `DriverError` with the reasons when a record could
    not be reviewed (the others' reviews are in `out_dir`) or the run could
    not be finished."""
    if out is None:
        out = sys.stdout
    check_review_arguments(shards, review_args)
    records = collection(inputs)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    if run is None:
        run = ReviewRun()
    run.records = [record.name for record in records]
    pending: List[Tuple[str, bytes]] = []
    for record in records:
        if (out_dir / record.name).is_file():
            run.skipped.append(record.name)
        else:
            try:
                pending.append((record.name, record.read_bytes()))
            except OSError as error:
                raise DriverError(f"{record}: cannot read it: {error}") from error
    if run.skipped:
        print(
            f"{len(run.skipped)} of {len(records)} records already reviewed in {out_dir}: skipped",
            file=out,
            flush=True,
        )
    if not pending:
        print("nothing to review", file=out, flush=True)
        return run
    gatherer = _ReviewGatherer(run, [name for name, _ in pending], out_dir, out)
    # The records go into Ray's object store once, whatever the number of
    # shards; each worker fetches them once.
    records_ref = ray.put(pending)
    args = shard_arguments(review_args, cpus_per_shard)
    task = ray.remote(num_returns="streaming", max_retries=0, num_cpus=cpus_per_shard)(review_shard)
    started = time.monotonic()
    # A shard with no record among the pending ones is not submitted.
    threads = [
        threading.Thread(
            target=_review_one_shard,
            args=(gatherer, task, binary, records_ref, args, shard, shards, retries),
            name=f"review-shard-{shard}",
            daemon=True,
        )
        for shard in range(min(shards, len(pending)))
    ]
    for thread in threads:
        thread.start()
    while any(thread.is_alive() for thread in threads):
        if gatherer.failure is not None:
            gatherer.stop_all()
            break
        time.sleep(0.2)
    if gatherer.failure is not None:
        for thread in threads:
            thread.join(timeout=10)
        raise DriverError(gatherer.failure)
    run.seconds = time.monotonic() - started
    reviewed = len(run.reviewed)
    gatherer.say(
        f"{reviewed} records reviewed in {run.seconds:.1f} s over {len(threads)} shards "
        f"({len(run.retries())} resubmitted after a lost worker): "
        f"{reviewed * 60.0 / max(run.seconds, 1e-9):.2f} records a minute"
    )
    missing = [
        name
        for index, name in enumerate(gatherer.pending)
        if index not in gatherer.received and index not in gatherer.failed
    ]
    problems = [f"{name}: {reason}" for name, reason in run.failures.items()]
    problems += [f"{name}: no review came back and tengen gave no reason" for name in missing]
    if problems:
        raise DriverError(
            f"{len(problems)} of {len(pending)} records could not be reviewed:\n  "
            + "\n  ".join(problems)
        )
    return run


def parse_review_arguments(argv: List[str]):
    """`tengen-ray review`'s arguments: the driver's and the records before
    `--`, tengen review's after it."""
    import argparse

    if "--" in argv:
        split = argv.index("--")
        own, review_args = argv[:split], argv[split + 1:]
    else:
        own, review_args = argv, []
    parser = argparse.ArgumentParser(
        prog="tengen-ray review",
        usage="tengen-ray review [options] --out DIR RECORD... -- --model PATH [tengen review's options]",
        description="Review game records with tengen as shards on a Ray cluster. "
        "Records (files, or folders of .sgf files) before --, arguments of "
        "`tengen review` after it (--model PATH required, the same path on every worker).",
    )
    parser.add_argument(
        "--address",
        help="the Ray cluster: an address such as 10.0.0.5:6379, 'auto', or "
        "ray://HOST:10001 for a Ray client (default: RAY_ADDRESS, else the "
        "cluster `ray start --head` started on this machine, else a new local one)",
    )
    parser.add_argument("--shards", type=int, default=4, help="Ray tasks to split the records into")
    parser.add_argument(
        "--binary", default="tengen", help="the tengen binary on the workers (the same path on each)"
    )
    parser.add_argument(
        "--out", required=True, type=Path,
        help="the folder for the reviews, each under its record's name; records "
        "whose review is there already are skipped",
    )
    parser.add_argument(
        "--retries", type=int, default=3, help="resubmissions of a shard whose worker is lost"
    )
    parser.add_argument(
        "--cpus-per-shard",
        type=float,
        default=1.0,
        help="CPUs Ray reserves for each shard; tengen gets as many --threads unless given",
    )
    parser.add_argument("records", nargs="+", type=Path, help="SGF records, or folders of them")
    args = parser.parse_args(own)
    args.review_args = review_args
    return args


def main(argv: List[str]) -> int:
    args = parse_review_arguments(argv)
    try:
        check_review_arguments(args.shards, args.review_args)
        collection(args.records)
        ray.init(address=args.address, log_to_driver=False, ignore_reinit_error=True)
        run_review(
            args.binary,
            args.records,
            args.review_args,
            args.shards,
            args.out,
            retries=args.retries,
            cpus_per_shard=args.cpus_per_shard,
        )
    except DriverError as error:
        print(f"tengen-ray: {error}", file=sys.stderr)
        return 1
    return 0
