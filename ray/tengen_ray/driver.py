"""The driver: splits a `tengen match` into shards, runs each as a Ray task,
and gathers the games into one results file and one folder of SGF records
as they end.

    tengen-ray --shards 4 --binary /usr/local/bin/tengen --results out.jsonl \\
        --sgf-dir out/ -- --engine "..." --engine "..." --games 100 --size 9

Everything after `--` is given to `tengen match` unchanged (the driver adds
`--shard`, `--results` and `--sgf-dir`). Each finished game is appended to
the results file at once, so nothing already played is lost when the driver
or a worker stops. A shard whose worker or node dies is submitted again with
the games it had finished, and tengen resumes after them; a shard that fails
for any other reason (the binary missing on a worker, arguments tengen
refuses, an engine that cannot start) stops the run with tengen's message.
At the end the driver prints `tengen match merge`'s report of the results
file (Elo with its interval).

`tengen-ray match ...` is the same command; `tengen-ray review ...` reviews
a collection of records instead (review.py).
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, TextIO

import ray

from .shard import FinishedGame, ShardFailed, ShardFinished, ShardStarted, play_shard

# Options of `tengen match` that the driver sets itself for each shard.
DRIVER_OPTIONS = ("--shard", "--results", "--sgf-dir")

# `tengen match`'s default number of games.
DEFAULT_GAMES = 10


class DriverError(Exception):
    """The match could not be run or finished; the message says why."""


@dataclass
class Attempt:
    """One submission of one shard."""

    shard: int
    number: int
    resumed: int
    node: Optional[str] = None
    games: int = 0
    lost_because: Optional[str] = None
    cpu_seconds: Optional[float] = None


@dataclass
class MatchRun:
    """What a run did: the games gathered and every attempt of every shard."""

    total: int
    games: Dict[int, dict] = field(default_factory=dict)
    attempts: List[Attempt] = field(default_factory=list)
    duplicates: int = 0
    report: str = ""
    seconds: float = 0.0

    def worker_cpu_seconds(self) -> float:
        """Processor time of tengen and its engines on the workers, over the
        attempts that finished (a lost worker's is lost with it)."""
        return sum(a.cpu_seconds or 0.0 for a in self.attempts)

    def retries(self) -> List[Attempt]:
        """The attempts that replaced one whose worker was lost."""
        return [a for a in self.attempts if a.number > 0]


def _comparable(record: dict) -> dict:
    """A results line without what depends on speed or folder, for telling
    a repeated game from a different one."""
    return {
        k: v
        for k, v in record.items()
        if k not in ("sgf", "engine_seconds", "engine_max_seconds", "move_seconds")
    }


def games_option(match_args: List[str]) -> int:
    """The number of games `tengen match` will play with these arguments."""
    games = DEFAULT_GAMES
    for position, argument in enumerate(match_args):
        value = None
        if argument == "--games" and position + 1 < len(match_args):
            value = match_args[position + 1]
        elif argument.startswith("--games="):
            value = argument.split("=", 1)[1]
        if value is not None:
            try:
                games = int(value)
            except ValueError as error:
                raise DriverError(f"--games {value!r} is not a number") from error
    return games


def check_arguments(shards: int, match_args: List[str]) -> None:
    """Refuses what would make the shards wrong before anything starts."""
    if shards < 1:
        raise DriverError(f"--shards must be at least 1, not {shards}")
    for argument in match_args:
        for option in DRIVER_OPTIONS:
            if argument == option or argument.startswith(option + "="):
                raise DriverError(
                    f"leave {option} out of the match arguments: the driver sets it for each shard"
                )
        if argument == "--watch":
            # The boards would go to a file on the worker that nobody reads.
            raise DriverError("--watch cannot be used through the driver: nobody sees the workers")
    if games_option(match_args) < 1:
        raise DriverError("--games must be at least 1")


def engine0_score(records: List[dict]) -> tuple[float, float]:
    """Engine 0's score rate (draws half) and the Elo difference it means;
    for the progress lines (the final report comes from tengen)."""
    points = sum(1.0 if r["winner"] == 0 else 0.5 if r["winner"] is None else 0.0 for r in records)
    rate = points / len(records)
    if rate <= 0.0:
        return rate, -math.inf
    if rate >= 1.0:
        return rate, math.inf
    # Adding zero turns -0.0 (an even score) into 0.0.
    return rate, -400.0 * math.log10(1.0 / rate - 1.0) + 0.0


class _Gatherer:
    """Receives the games of every shard (from one thread per shard), writes
    them to the results file and the SGF folder, and prints progress."""

    def __init__(self, run: MatchRun, results: Path, sgf_dir: Optional[Path], out: TextIO):
        self.run = run
        self.results = results
        self.sgf_dir = sgf_dir
        self.out = out
        self.lock = threading.Lock()
        self.key: Optional[str] = None
        self.lines: Dict[int, str] = {}
        self.failure: Optional[str] = None
        # The task under way for each shard, so that a failure can stop all.
        self.running: Dict[int, object] = {}

    def say(self, text: str) -> None:
        with self.lock:
            print(text, file=self.out, flush=True)

    def load_existing(self) -> None:
        """Games already in the results file (a rerun of the driver) count as
        played and are given to the shards to resume from."""
        if not self.results.exists():
            return
        for number, text in enumerate(self.results.read_text().splitlines(), 1):
            if not text.strip():
                continue
            try:
                record = json.loads(text)
                index = int(record["game"])
                key = record["match"]
            except (ValueError, KeyError, TypeError):
                print(f"{self.results}:{number}: skipping an unreadable line", file=self.out)
                continue
            if self.key is None:
                self.key = key
            elif key != self.key:
                raise DriverError(
                    f"{self.results} holds lines of two matches (line {number}); "
                    "give the driver a results file of its own"
                )
            if index not in self.run.games and index < self.run.total:
                self.run.games[index] = record
                self.lines[index] = text

    def finished_lines(self, shard: int, count: int) -> List[str]:
        with self.lock:
            return [line for index, line in sorted(self.lines.items()) if index % count == shard]

    def add(self, shard: int, count: int, attempt: Attempt, game: FinishedGame) -> None:
        record = json.loads(game.line)
        with self.lock:
            attempt.games += 1
            if self.key is None:
                self.key = record["match"]
            elif record["match"] != self.key:
                self.failure = (
                    f"shard {shard}/{count} played another match than the results file holds:\n"
                    f"  '{record['match']}'\n  '{self.key}'"
                )
                return
            if game.index in self.run.games:
                # Only possible when a game reached the driver twice; the
                # first copy stays, a contradicting one is an error.
                if _comparable(self.run.games[game.index]) != _comparable(record):
                    self.failure = f"game {game.index} came back twice with different results"
                self.run.duplicates += 1
                return
            if self.sgf_dir is not None and game.sgf is not None:
                path = self.sgf_dir / f"game-{game.index:04d}.sgf"
                path.write_text(game.sgf, encoding="utf-8")
                record["sgf"] = str(path)
            else:
                record["sgf"] = None
            line = json.dumps(record, separators=(",", ":"), ensure_ascii=False)
            with open(self.results, "a", encoding="utf-8") as file:
                file.write(line + "\n")
            self.run.games[game.index] = record
            self.lines[game.index] = line
            rate, elo = engine0_score(list(self.run.games.values()))
            print(
                f"[{len(self.run.games)}/{self.run.total}] game {game.index} {record['result']} "
                f"(shard {shard}/{count}); engine 0 score {rate:.1%}, Elo {elo:+.0f}",
                file=self.out,
                flush=True,
            )

    def fail(self, text: str) -> None:
        with self.lock:
            if self.failure is None:
                self.failure = text

    def stop_all(self) -> None:
        """Cancels every shard still running (after a failure). Not forced:
        the task's clean-up kills tengen and removes its scratch folder."""
        with self.lock:
            running = list(self.running.values())
        for generator in running:
            try:
                ray.cancel(generator)
            except Exception:  # noqa: BLE001 - already finished or gone
                pass


def drive_shard(
    gatherer,
    shard: int,
    count: int,
    retries: int,
    resumed: Callable[[], list],
    new_attempt: Callable[[int, int], object],
    submit: Callable[[list], object],
    finished: Callable[[object], None],
    resubmitted: Callable[[int], str],
) -> None:
    """Runs one shard to its end, submitting it again each time its worker
    is lost, at most `retries` times: what the gatherer already has of it
    (`resumed()`) goes to each new task (`submit`), so nothing finished is
    done again. `new_attempt(number, resumed)` records each submission;
    `finished` takes the shard's closing `ShardFinished`; `resubmitted(n)`
    says what a resubmission keeps. Shared by matches and reviews."""
    number = 0
    while True:
        if gatherer.failure is not None:
            return
        given = resumed()
        attempt = new_attempt(number, len(given))
        with gatherer.lock:
            gatherer.run.attempts.append(attempt)
        generator = submit(given)
        with gatherer.lock:
            gatherer.running[shard] = generator
        try:
            for reference in generator:
                item = ray.get(reference)
                if isinstance(item, ShardStarted):
                    attempt.node = item.node
                elif isinstance(item, ShardFinished):
                    attempt.cpu_seconds = item.cpu_seconds
                    finished(item)
                else:
                    gatherer.add(shard, count, attempt, item)
                if gatherer.failure is not None:
                    return
            return
        except ray.exceptions.RayTaskError as error:
            # The task itself raised: tengen's own reason for a ShardFailed,
            # the exception with its type for anything unforeseen.
            cause = error.cause
            if isinstance(cause, ShardFailed):
                reason = str(cause)
            elif cause is not None:
                reason = f"{type(cause).__name__}: {cause}"
            else:
                reason = str(error)
            gatherer.fail(f"shard {shard}/{count} failed: {reason}")
            return
        except ray.exceptions.RayError as error:
            if gatherer.failure is not None:
                # Cancelled because another shard failed.
                return
            # The worker, its node or the task's results were lost: what is
            # already here is safe; do the rest elsewhere.
            reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            attempt.lost_because = f"{type(error).__name__}: {reason}"
            if number >= retries:
                gatherer.fail(
                    f"shard {shard}/{count} lost its worker {number + 1} times, giving up: {reason}"
                )
                return
            number += 1
            gatherer.say(
                f"shard {shard}/{count} lost its worker on {attempt.node or 'an unknown node'} "
                f"({type(error).__name__}); resubmitting it {resubmitted(len(resumed()))}"
            )


def _run_shard(
    gatherer: _Gatherer,
    task: Callable,
    binary: str,
    match_args: List[str],
    shard: int,
    count: int,
    retries: int,
) -> None:
    """Runs one shard of a match to its end, submitting it again with its
    finished games each time its worker is lost."""
    drive_shard(
        gatherer,
        shard,
        count,
        retries,
        resumed=lambda: gatherer.finished_lines(shard, count),
        new_attempt=lambda number, resumed: Attempt(shard=shard, number=number, resumed=resumed),
        submit=lambda lines: task.remote(binary, match_args, shard, count, lines),
        finished=lambda item: None,
        resubmitted=lambda n: f"with its {n} finished games",
    )


def run_match(
    binary: str,
    match_args: List[str],
    shards: int,
    results: Path,
    sgf_dir: Optional[Path] = None,
    retries: int = 3,
    cpus_per_shard: float = 1.0,
    local_binary: Optional[str] = None,
    out: TextIO = sys.stdout,
    run: Optional[MatchRun] = None,
) -> MatchRun:
    """Plays the match `tengen match MATCH_ARGS` would, split into `shards`
    Ray tasks that run the tengen at `binary` on the workers (Ray must be
    initialised). Returns the run (filled in as it goes into `run` when
    given, which another thread may watch); raises `DriverError` with the
    reason when the match could not be finished (the games gathered stay in
    `results`)."""
    check_arguments(shards, match_args)
    total = games_option(match_args)
    results = Path(results)
    results.parent.mkdir(parents=True, exist_ok=True)
    if sgf_dir is not None:
        sgf_dir = Path(sgf_dir)
        sgf_dir.mkdir(parents=True, exist_ok=True)
    if run is None:
        run = MatchRun(total=total)
    run.total = total
    gatherer = _Gatherer(run, results, sgf_dir, out)
    gatherer.load_existing()
    if run.games:
        gatherer.say(f"{len(run.games)} of {total} games already in {results}")
    # Retries are the driver's: Ray's own would replay the shard from its
    # start instead of from its finished games.
    task = ray.remote(num_returns="streaming", max_retries=0, num_cpus=cpus_per_shard)(play_shard)
    started = time.monotonic()
    threads = [
        threading.Thread(
            target=_run_shard,
            args=(gatherer, task, binary, match_args, shard, shards, retries),
            name=f"shard-{shard}",
            daemon=True,
        )
        for shard in range(shards)
    ]
    for thread in threads:
        thread.start()
    # The first failure stops the shards still playing rather than waiting
    # for them to finish games nobody will count.
    while any(thread.is_alive() for thread in threads):
        if gatherer.failure is not None:
            gatherer.stop_all()
            break
        time.sleep(0.2)
    if gatherer.failure is not None:
        for thread in threads:
            thread.join(timeout=10)
        raise DriverError(gatherer.failure)
    missing = sorted(set(range(total)) - set(run.games))
    if missing:
        raise DriverError(f"games missing after every shard ended: {missing}")
    run.seconds = time.monotonic() - started
    played = sum(a.games for a in run.attempts)
    cpu = (
        f"; {run.worker_cpu_seconds() / played:.3f} s of CPU per game on the workers"
        if played and all(a.cpu_seconds is not None for a in run.attempts)
        else ""
    )
    gatherer.say(
        f"{played} games played in {run.seconds:.1f} s over {shards} shards "
        f"({len(run.retries())} resubmitted after a lost worker){cpu}"
    )
    merger = local_binary or binary
    if shutil.which(merger) or Path(merger).is_file():
        merged = subprocess.run(
            [merger, "match", "merge", str(results)], capture_output=True, text=True
        )
        if merged.returncode != 0:
            raise DriverError(f"tengen match merge failed: {merged.stderr.strip()}")
        run.report = merged.stdout
        print(run.report, end="", file=out, flush=True)
    else:
        gatherer.say(f"no tengen at {merger} here for the report: run `tengen match merge {results}`")
    return run


def parse_arguments(argv: Optional[List[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="tengen-ray",
        description="Run a tengen match as shards on a Ray cluster. "
        "Arguments after -- go to `tengen match`. "
        "(`tengen-ray review --help`: review game records on the cluster.)",
    )
    parser.add_argument(
        "--address",
        help="the Ray cluster: an address such as 10.0.0.5:6379, 'auto', or "
        "ray://HOST:10001 for a Ray client (default: RAY_ADDRESS, else the "
        "cluster `ray start --head` started on this machine, else a new local one)",
    )
    parser.add_argument("--shards", type=int, default=4, help="Ray tasks to split the games into")
    parser.add_argument(
        "--binary", default="tengen", help="the tengen binary on the workers (the same path on each)"
    )
    parser.add_argument(
        "--local-binary",
        help="the tengen binary on this machine for the final report (default: --binary)",
    )
    parser.add_argument("--results", required=True, type=Path, help="the results file to write")
    parser.add_argument("--sgf-dir", type=Path, help="a folder for one SGF record per game")
    parser.add_argument(
        "--retries", type=int, default=3, help="resubmissions of a shard whose worker is lost"
    )
    parser.add_argument(
        "--cpus-per-shard",
        type=float,
        default=1.0,
        help="CPUs Ray reserves for each shard (match it to --concurrency and the engines' threads)",
    )
    parser.add_argument("match_args", nargs=argparse.REMAINDER, help="-- then tengen match's arguments")
    args = parser.parse_args(argv)
    if args.match_args and args.match_args[0] == "--":
        args.match_args = args.match_args[1:]
    return args


def main(argv: Optional[List[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] == "review":
        from . import review

        return review.main(argv[1:])
    if argv and argv[0] == "match":
        argv = argv[1:]
    args = parse_arguments(argv)
    try:
        check_arguments(args.shards, args.match_args)
        ray.init(address=args.address, log_to_driver=False, ignore_reinit_error=True)
        run_match(
            args.binary,
            args.match_args,
            args.shards,
            args.results,
            sgf_dir=args.sgf_dir,
            retries=args.retries,
            cpus_per_shard=args.cpus_per_shard,
            local_binary=args.local_binary,
        )
    except DriverError as error:
        print(f"tengen-ray: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
