"""`tengen-ray review` on a simulated cluster (conftest.py): real 9×9
records reviewed with the KataGo network ($TENGEN_KATAGO_MODEL, else the one
scripts/katago-model fetches) at 2 visits a position, by three shards, against
one plain `tengen review` run of the same records. Reviewed one position at a
time, a record's review is the same bytes wherever it is reviewed, so the
two folders must hold the same files byte for byte."""

import io
import os
import re
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest
from conftest import scaled, wait_for_nodes

from tengen_ray import DriverError, ReviewRun, run_review
from tengen_ray.driver import main
from tengen_ray.shard import ReviewedRecord, ShardFinished, ShardStarted, review_shard

REPOSITORY = Path(__file__).resolve().parents[2]
TENGEN = os.environ.get("TENGEN_BIN", str(REPOSITORY / "target" / "debug" / "tengen"))
GAMES = REPOSITORY / "crates" / "gtp" / "tests" / "data" / "finished" / "mcts-vs-gnugo-level10-9x9"
# Six of the shortest records (34 to 45 moves).
RECORDS = ["game-0007.sgf", "game-0008.sgf", "game-0014.sgf",
           "game-0019.sgf", "game-0021.sgf", "game-0026.sgf"]
# A record whose second move is on the first one's point.
ILLEGAL = b"(;FF[4]GM[1]SZ[9]KM[7]RU[Chinese];B[ee];W[ee];B[cc])"
SHARDS = 3
# Hang guard for one plain `tengen review` run.
RUN_TIMEOUT_S = 600


@pytest.fixture(scope="module")
def model():
    """The KataGo network; the tests fail, saying why, without one."""
    given = os.environ.get("TENGEN_KATAGO_MODEL")
    if given:
        if not Path(given).is_file():
            pytest.fail(f"TENGEN_KATAGO_MODEL={given} is not a file")
        return given
    fetched = subprocess.run([str(REPOSITORY / "scripts" / "katago-model")],
                             capture_output=True, text=True)
    if fetched.returncode != 0 or not Path(fetched.stdout.strip()).is_file():
        pytest.fail("no KataGo network: set TENGEN_KATAGO_MODEL or let scripts/katago-model "
                    f"fetch it (it said: {fetched.stderr.strip()})")
    return fetched.stdout.strip()


@pytest.fixture(scope="module")
def tengen():
    """The binary, checked to have `tengen review`."""
    try:
        subprocess.run([TENGEN, "review", "--help"], check=True, capture_output=True,
                       timeout=scaled(RUN_TIMEOUT_S))
    except (OSError, subprocess.CalledProcessError) as error:
        pytest.fail(f"no tengen with `review` at {TENGEN} (set TENGEN_BIN): {error}")
    return TENGEN


def review_args(model):
    # One position at a time: a review's last bits can depend on which
    # positions share the network's batches (positions and records
    # searched at once), which depends on timing, and these tests compare
    # bytes.
    return ["--model", model, "--visits", "2", "--reproducible"]


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    folder = tmp_path_factory.mktemp("records")
    for name in RECORDS:
        shutil.copy(GAMES / name, folder / name)
    return folder


@pytest.fixture(scope="module")
def single_run(tengen, model, records, tmp_path_factory):
    """The reviews of one plain `tengen review` of the whole folder."""
    out = tmp_path_factory.mktemp("single")
    subprocess.run([tengen, "review", str(records), "--out", str(out), *review_args(model)],
                   check=True, capture_output=True, timeout=scaled(RUN_TIMEOUT_S))
    return out


@pytest.fixture(scope="module")
def sharded_run(cluster, tengen, model, records, tmp_path_factory):
    out = tmp_path_factory.mktemp("sharded")
    text = io.StringIO()
    run = run_review(tengen, [records], review_args(model), SHARDS, out, out=text)
    return out, run, text.getvalue()


def contents(folder: Path) -> dict:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


def test_three_shards_write_exactly_the_reviews_of_one_run(single_run, sharded_run):
    sharded, run, text = sharded_run
    expected = contents(single_run)
    assert sorted(expected) == RECORDS
    got = contents(sharded)
    # Same names (no partial file left), same bytes.
    assert sorted(got) == sorted(expected)
    for name in RECORDS:
        assert got[name] == expected[name], name
    # One attempt per shard, each on a node of its own, each review once.
    assert len(run.attempts) == SHARDS and not run.retries()
    assert len({attempt.node for attempt in run.attempts}) == SHARDS
    assert sorted(attempt.reviews for attempt in run.attempts) == [2, 2, 2]
    assert sorted(run.reviewed) == RECORDS and not run.skipped and not run.failures
    assert run.duplicates == 0
    # The progress lines name each record and its shard (index modulo 3).
    for index, name in enumerate(RECORDS):
        assert f"] {name} reviewed (shard {index % SHARDS}/{SHARDS})\n" in text, text
    assert "[6/6] " in text
    assert re.search(r"^6 records reviewed in [0-9.]+ s over 3 shards \(0 resubmitted after a "
                     r"lost worker\): [0-9.]+ records a minute$", text, re.M), text


def test_a_rerun_skips_every_review(sharded_run, tengen, model, records, capsys):
    sharded, _, _ = sharded_run
    before = {path.name: (path.read_bytes(), path.stat().st_mtime_ns) for path in sharded.iterdir()}
    run = ReviewRun()
    run_review(tengen, [records], review_args(model), SHARDS, sharded, out=io.StringIO(), run=run)
    assert run.attempts == [] and run.reviewed == [] and sorted(run.skipped) == RECORDS
    # The command line says so, and touches nothing either.
    code = main(["review", "--shards", str(SHARDS), "--binary", tengen, "--out", str(sharded),
                 str(records), "--", *review_args(model)])
    assert code == 0
    out = capsys.readouterr().out
    assert f"6 of 6 records already reviewed in {sharded}: skipped\nnothing to review\n" == out
    after = {path.name: (path.read_bytes(), path.stat().st_mtime_ns) for path in sharded.iterdir()}
    assert after == before


def test_a_stopped_run_resumes_with_the_missing_reviews_only(
    sharded_run, single_run, tengen, model, records, tmp_path
):
    sharded, _, _ = sharded_run
    out = tmp_path / "resumed"
    shutil.copytree(sharded, out)
    (out / "game-0014.sgf").unlink()
    text = io.StringIO()
    run = run_review(tengen, [records], review_args(model), SHARDS, out, out=text, run=ReviewRun())
    assert run.reviewed == ["game-0014.sgf"] and len(run.skipped) == 5
    # Only one record was left: one shard was enough.
    assert len(run.attempts) == 1 and run.attempts[0].reviews == 1
    assert "[6/6] game-0014.sgf reviewed (shard 0/3)" in text.getvalue()
    assert contents(out) == contents(single_run)


def test_a_bad_record_is_named_and_the_others_reviewed(
    cluster, single_run, tengen, model, tmp_path, capsys
):
    folder = tmp_path / "records"
    folder.mkdir()
    # In name order: the bad record, then two good ones; with 2 shards the
    # bad record's shard also has a good one.
    (folder / "game-0007-illegal.sgf").write_bytes(ILLEGAL)
    for name in ("game-0007.sgf", "game-0008.sgf"):
        shutil.copy(GAMES / name, folder / name)
    out = tmp_path / "reviews"
    code = main(["review", "--address", cluster.address, "--shards", "2", "--binary", tengen,
                 "--out", str(out), str(folder), "--", *review_args(model)])
    assert code == 1
    captured = capsys.readouterr()
    assert captured.err == (
        "tengen-ray: 1 of 3 records could not be reviewed:\n"
        "  game-0007-illegal.sgf: node 2: illegal move [ee]: the point is occupied\n"
    ), captured.err
    assert "[1/3] " in captured.out and "[2/3] " in captured.out
    assert "game-0007-illegal.sgf could not be reviewed (shard 0/2)" in captured.out
    assert contents(out) == {name: (single_run / name).read_bytes()
                             for name in ("game-0007.sgf", "game-0008.sgf")}


def test_a_missing_network_on_the_workers_stops_the_run(cluster, tengen, records, tmp_path):
    with pytest.raises(DriverError) as error:
        run_review(tengen, [records], ["--model", "/nowhere/net.bin.gz"], 2, tmp_path / "out",
                   out=io.StringIO())
    assert re.match(r"shard [01]/2 failed: KataGo network /nowhere/net.bin.gz not found on node ",
                    str(error.value)), error.value
    assert list((tmp_path / "out").iterdir()) == []


def test_a_resubmitted_shard_skips_what_the_driver_has(tengen, model):
    # The task itself, as a resubmission after a lost worker runs it: the
    # review of record 1 is at the driver already, so tengen skips it and
    # nothing comes back for it; record 0 cannot be reviewed.
    good = (GAMES / "game-0007.sgf").read_bytes()
    items = list(review_shard(tengen, [("bad.sgf", ILLEGAL), ("good.sgf", good)],
                              [*review_args(model), "--threads", "1"], 0, 1, [1]))
    assert isinstance(items[0], ShardStarted) and items[0].resumed == 1
    assert not any(isinstance(item, ReviewedRecord) for item in items)
    assert items[-1] == ShardFinished(
        cpu_seconds=items[-1].cpu_seconds,
        failures=((0, "node 2: illegal move [ee]: the point is occupied"),),
    )


def test_a_lost_node_loses_no_review_and_redoes_none(cluster, single_run, tengen, model, records,
                                                     tmp_path):
    out = tmp_path / "reviews"
    text = io.StringIO()
    run = ReviewRun()
    outcome = {}

    def drive():
        try:
            run_review(tengen, [records], review_args(model), SHARDS, out, out=text, run=run)
        except Exception as error:  # noqa: BLE001 - reported below
            outcome["error"] = error

    driver = threading.Thread(target=drive)
    driver.start()
    # Shard 1 has two records of about ten seconds each: its node goes
    # once the first review is here.
    deadline = time.monotonic() + scaled(600)
    while time.monotonic() < deadline:
        attempts = [a for a in list(run.attempts) if a.shard == 1]
        if attempts and attempts[0].reviews >= 1:
            break
        time.sleep(0.05)
    else:
        pytest.fail(f"shard 1 sent no review:\n{text.getvalue()}")
    victims = [n for n in cluster.worker_nodes if n.node_id in attempts[0].node]
    assert len(victims) == 1, (attempts[0].node, [n.node_id for n in cluster.worker_nodes])
    cluster.remove_node(victims[0], allow_graceful=False)
    driver.join(timeout=scaled(900))
    assert not driver.is_alive(), text.getvalue()
    assert "error" not in outcome, f"{outcome.get('error')}\n{text.getvalue()}"
    assert contents(out) == contents(single_run)
    retries = run.retries()
    assert [a.shard for a in retries] == [1], run.attempts
    lost = [a for a in run.attempts if a.lost_because]
    assert [a.shard for a in lost] == [1] and lost[0].reviews == 1
    # The new attempt was given the review already here and sent only the other.
    assert retries[0].resumed == 1 and retries[0].reviews == 1
    assert sum(a.reviews for a in run.attempts) == len(RECORDS) and run.duplicates == 0
    assert "shard 1/3 lost its worker" in text.getvalue()
    cluster.add_node(num_cpus=1, object_store_memory=80 * 1024 * 1024)
    wait_for_nodes(cluster)
