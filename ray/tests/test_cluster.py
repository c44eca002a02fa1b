"""The driver on a simulated cluster: several Ray nodes on this machine
(`ray.cluster_utils.Cluster`, conftest.py), each with one CPU, running the
tengen binary named by TENGEN_BIN (default: the debug build in target/).

The engines are tengen's random bot seeded per game (`--seed {seed}`), so a
game is the same wherever it is played and "the same games" can be checked
line by line and record by record against one plain `tengen match` run.
"""

import io
import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import ray
from conftest import scaled, wait_for_nodes

from tengen_ray import DriverError, MatchRun, run_match
from tengen_ray.driver import main

REPOSITORY = Path(__file__).resolve().parents[2]
TENGEN = os.environ.get("TENGEN_BIN", str(REPOSITORY / "target" / "debug" / "tengen"))
SLOW_GTP = str(Path(__file__).with_name("slow_gtp.py"))
GAMES = 40
# Hang guard for one plain `tengen match` or `tengen match merge` run.
RUN_TIMEOUT_S = 600


def engine(proxy_options: str = "") -> str:
    """The random bot seeded per game, behind the slowing proxy when given
    its options."""
    bot = f"{TENGEN} gtp --bot random --seed {{seed}}"
    if not proxy_options:
        return bot
    return f"{sys.executable} {SLOW_GTP} {proxy_options} -- {bot}"


def match_args(first: str, second: str, games: int = GAMES) -> list:
    return [
        "--engine", first, "--engine", second,
        "--games", str(games), "--size", "7", "--komi", "7", "--seed", "17",
    ]


def comparable(line: str) -> dict:
    """A results line without the match key (the engines' command lines
    differ with the proxy), timings and the SGF path."""
    record = json.loads(line)
    for key in ("match", "engines", "sgf", "engine_seconds", "engine_max_seconds",
                "move_seconds"):
        record.pop(key, None)
    return record


def games_of(results: Path) -> dict:
    """The results file's games by index; fails on a game found twice."""
    games = {}
    for line in results.read_text().splitlines():
        record = comparable(line)
        assert record["game"] not in games, f"game {record['game']} twice in {results}"
        games[record["game"]] = record
    return games


def moves_of(sgf: Path) -> str:
    """A record without its date."""
    return re.sub(r"DT\[[^\]]*\]", "", sgf.read_text())


@pytest.fixture(scope="module")
def plain_run(tmp_path_factory):
    """The whole match played by one plain `tengen match`."""
    folder = tmp_path_factory.mktemp("plain")
    subprocess.run(
        [TENGEN, "match", *match_args(engine(), engine()),
         "--results", str(folder / "results.jsonl"), "--sgf-dir", str(folder / "sgf")],
        check=True, capture_output=True, timeout=scaled(RUN_TIMEOUT_S),
    )
    return folder


def test_four_nodes_play_exactly_the_games_of_one_run(cluster, plain_run, tmp_path):
    out = io.StringIO()
    run = run_match(TENGEN, match_args(engine(), engine()), 4, tmp_path / "results.jsonl",
                    sgf_dir=tmp_path / "sgf", out=out)
    expected = games_of(plain_run / "results.jsonl")
    assert len(expected) == GAMES
    assert games_of(tmp_path / "results.jsonl") == expected
    for index in range(GAMES):
        name = f"game-{index:04d}.sgf"
        assert moves_of(tmp_path / "sgf" / name) == moves_of(plain_run / "sgf" / name), name
    # One attempt per shard, each on a node of its own.
    assert len(run.attempts) == 4 and not run.retries()
    assert len({attempt.node for attempt in run.attempts}) == 4
    assert run.duplicates == 0
    text = out.getvalue()
    assert f"[{GAMES}/{GAMES}] game " in text
    # The final report is tengen's, with the plain run's Elo.
    plain_report = subprocess.run([TENGEN, "match", "merge", str(plain_run / "results.jsonl")],
                                  check=True, capture_output=True, text=True,
                                  timeout=scaled(RUN_TIMEOUT_S)).stdout
    elo = [line for line in plain_report.splitlines() if line.startswith("Elo difference")]
    assert len(elo) == 1 and elo[0] in text


def test_bad_shard_arguments_are_refused_before_anything_runs(capsys, tmp_path):
    results = str(tmp_path / "results.jsonl")
    assert main(["--shards", "0", "--results", results, "--", *match_args("a", "b")]) == 1
    assert capsys.readouterr().err == "tengen-ray: --shards must be at least 1, not 0\n"
    given = [*match_args("a", "b"), "--shard", "1/2"]
    assert main(["--shards", "2", "--results", results, "--", *given]) == 1
    assert capsys.readouterr().err == (
        "tengen-ray: leave --shard out of the match arguments: the driver sets it for each shard\n"
    )
    assert main(["--results", results, "--", *match_args("a", "b", games=0)]) == 1
    assert "--games must be at least 1" in capsys.readouterr().err
    assert not (tmp_path / "results.jsonl").exists()


def test_arguments_tengen_refuses_are_reported_with_its_reason(cluster, tmp_path):
    args = ["--engine", engine(), "--engine", engine(), "--games", "4", "--size", "99"]
    with pytest.raises(DriverError) as error:
        run_match(TENGEN, args, 2, tmp_path / "results.jsonl", out=io.StringIO())
    assert re.match(r"shard [01]/2 failed: tengen exited with status 2 on node .*"
                    r"invalid value '99' for '--size", str(error.value), re.S), error.value


def test_a_binary_missing_on_the_workers_is_named(cluster, capsys, tmp_path):
    code = main(["--address", cluster.address, "--shards", "2", "--binary", "/nowhere/tengen",
                 "--results", str(tmp_path / "results.jsonl"), "--",
                 *match_args(engine(), engine(), games=4)])
    assert code == 1
    err = capsys.readouterr().err
    assert re.match(r"tengen-ray: shard [01]/2 failed: tengen binary /nowhere/tengen not found "
                    r"\(or not executable\) on node ", err), err


def test_an_engine_that_cannot_start_stops_the_run_with_the_reason(cluster, tmp_path):
    with pytest.raises(DriverError) as error:
        run_match(TENGEN, match_args("/bin/false", engine(), games=4), 2,
                  tmp_path / "results.jsonl", out=io.StringIO())
    assert re.match(r"shard [01]/2 failed: tengen exited with status 1 on node .*"
                    r"engine 0 \('/bin/false'\) is not usable", str(error.value), re.S), error.value


def test_a_failing_shard_stops_the_others_at_once(cluster, tmp_path):
    # Engine 0 cannot start in game 0 (seed 17), so shard 0 fails at once;
    # shard 1's 20 games of about 2 s each are cancelled rather than awaited:
    # it sends fewer than its 20 games, however fast the machine plays.
    refusing = engine("--delay 0.025 --refuse-seed 17 --seed {seed}")
    started = time.monotonic()
    with pytest.raises(DriverError) as error:
        run_match(TENGEN, match_args(refusing, engine("--delay 0.025")), 2,
                  tmp_path / "results.jsonl", out=io.StringIO())
    elapsed = time.monotonic() - started
    assert str(error.value).startswith("shard 0/2 failed: tengen exited with status 1"), error.value
    assert "is not usable" in str(error.value)
    played = len(tmp_path.joinpath("results.jsonl").read_text().splitlines()) \
        if tmp_path.joinpath("results.jsonl").exists() else 0
    print(f"the run stopped {elapsed:.1f} s after it started, with {played} games played")
    assert played < GAMES // 2, f"shard 1 played all its games ({played}) instead of being stopped"


def test_an_engine_crashing_in_a_game_forfeits_it(cluster, tmp_path):
    crashing = engine("--crash-after 3")
    out = io.StringIO()
    run = run_match(TENGEN, match_args(engine(), crashing, games=4), 2,
                    tmp_path / "results.jsonl", out=out)
    games = games_of(tmp_path / "results.jsonl")
    assert len(games) == 4
    for record in games.values():
        assert record["winner"] == 0 and record["end"] == "forfeit"
        assert record["forfeit"]["engine"] == 1 and record["forfeit"]["kind"] == "crash"
    assert "Engine 0 score: 100.0%" in run.report
    assert "turn limit 0, forfeit 4" in run.report


def test_a_lost_node_loses_no_game_and_replays_none(cluster, plain_run, tmp_path):
    # About 2 s a game: the node goes while its shard is half done.
    slow = engine("--delay 0.025")
    out = io.StringIO()
    outcome = {}
    run = MatchRun(total=GAMES)

    def drive():
        try:
            run_match(TENGEN, match_args(slow, slow), 4, tmp_path / "results.jsonl",
                      sgf_dir=tmp_path / "sgf", out=out, run=run)
        except Exception as error:  # noqa: BLE001 - reported below
            outcome["error"] = error

    driver = threading.Thread(target=drive)
    driver.start()
    results = tmp_path / "results.jsonl"
    # Shard 1's node goes once the shard has sent two of its ten games: part
    # done, whatever the machine's speed.
    deadline = time.monotonic() + scaled(600)
    while time.monotonic() < deadline:
        if any(a.shard == 1 and a.games >= 2 for a in list(run.attempts)):
            break
        time.sleep(0.1)
    else:
        pytest.fail(f"shard 1 sent fewer than two games:\n{out.getvalue()}")
    # The node running shard 1.
    shard_node = next(a.node for a in started_attempts(run, out) if a.shard == 1)
    victims = [n for n in cluster.worker_nodes if n.node_id in shard_node]
    assert len(victims) == 1, (shard_node, [n.node_id for n in cluster.worker_nodes])
    games_before = len(results.read_text().splitlines())
    cluster.remove_node(victims[0], allow_graceful=False)
    driver.join(timeout=scaled(900))
    assert not driver.is_alive(), out.getvalue()
    assert "error" not in outcome, f"{outcome.get('error')}\n{out.getvalue()}"
    assert games_before < GAMES, "the node was lost after the match ended"
    # Every game once, each the plain run's.
    assert games_of(results) == games_of(plain_run / "results.jsonl")
    for index in range(GAMES):
        name = f"game-{index:04d}.sgf"
        assert moves_of(tmp_path / "sgf" / name) == moves_of(plain_run / "sgf" / name), name
    retries = run.retries()
    assert [a.shard for a in retries] == [1], run.attempts
    lost = [a for a in run.attempts if a.lost_because]
    assert [a.shard for a in lost] == [1]
    # The new attempt resumed from every game the lost one had sent ...
    assert retries[0].resumed == lost[0].games > 0
    # ... and no game came back twice: the attempts together sent each game once.
    assert sum(a.games for a in run.attempts) == GAMES
    assert run.duplicates == 0
    assert "shard 1/4 lost its worker" in out.getvalue()
    cluster.add_node(num_cpus=1, object_store_memory=80 * 1024 * 1024)
    wait_for_nodes(cluster)


def started_attempts(run, out):
    """The attempts of the run under way, once every shard has started."""
    deadline = time.monotonic() + scaled(300)
    while time.monotonic() < deadline:
        attempts = list(run.attempts)
        if len(attempts) == 4 and all(a.node for a in attempts):
            return attempts
        time.sleep(0.05)
    pytest.fail(f"shards did not start:\n{out.getvalue()}")
