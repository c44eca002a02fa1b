"""The drivers' checks and figures that need no cluster."""

import math

import pytest

from tengen_ray.driver import DriverError, check_arguments, engine0_score, games_option, main
from tengen_ray.review import check_review_arguments, collection, shard_arguments


def test_the_number_of_games_is_read_as_tengen_reads_it():
    assert games_option([]) == 10
    assert games_option(["--engine", "a", "--games", "40"]) == 40
    assert games_option(["--games=7", "--size", "9"]) == 7
    with pytest.raises(DriverError, match="--games 'x' is not a number"):
        games_option(["--games", "x"])


def test_options_the_driver_sets_are_refused():
    check_arguments(4, ["--engine", "a --results x", "--engine", "b", "--games", "8"])
    for given in (["--shard", "0/2"], ["--results", "r.jsonl"], ["--sgf-dir=out"]):
        option = given[0].split("=")[0]
        with pytest.raises(DriverError, match=f"leave {option} out of the match arguments"):
            check_arguments(2, given)
    with pytest.raises(DriverError, match="--watch cannot be used"):
        check_arguments(2, ["--watch"])
    with pytest.raises(DriverError, match="--shards must be at least 1, not -1"):
        check_arguments(-1, [])
    with pytest.raises(DriverError, match="--games must be at least 1"):
        check_arguments(1, ["--games", "0"])


def test_the_progress_score_and_elo():
    win, loss, draw = {"winner": 0}, {"winner": 1}, {"winner": None}
    assert engine0_score([win, loss]) == (0.5, 0.0)
    rate, elo = engine0_score([win, win, win, loss])
    assert rate == 0.75 and math.isclose(elo, 190.85, abs_tol=0.01)
    assert engine0_score([win, draw]) == (0.75, pytest.approx(190.85, abs=0.01))
    assert engine0_score([loss]) == (0.0, -math.inf)
    assert engine0_score([win]) == (1.0, math.inf)


def test_review_arguments_the_driver_sets_or_needs_are_refused():
    check_review_arguments(3, ["--model", "net.bin.gz", "--visits", "2", "--threads=2"])
    for given in (["--out", "d"], ["--shard=0/2"]):
        option = given[0].split("=")[0]
        with pytest.raises(DriverError, match=f"leave {option} out of the review arguments"):
            check_review_arguments(2, ["--model", "m", *given])
    for given in (["-o", "x.sgf"], ["--output=x.sgf"]):
        with pytest.raises(DriverError, match="-o/--output names one record's review"):
            check_review_arguments(2, ["--model", "m", *given])
    with pytest.raises(DriverError, match="games/a.SGF: give the records before --"):
        check_review_arguments(2, ["--model", "m", "games/a.SGF"])
    with pytest.raises(DriverError, match="--model PATH"):
        check_review_arguments(2, ["--visits", "2"])
    with pytest.raises(DriverError, match="--shards must be at least 1, not 0"):
        check_review_arguments(0, ["--model", "m"])


def test_review_threads_follow_the_cpus_of_a_shard():
    assert shard_arguments(["--model", "m"], 1.0) == ["--model", "m", "--threads", "1"]
    assert shard_arguments(["--model", "m"], 4.0) == ["--model", "m", "--threads", "4"]
    assert shard_arguments(["--model", "m", "--threads", "2"], 4.0) == ["--model", "m", "--threads", "2"]


def test_the_collection_is_read_as_tengen_reads_it(tmp_path):
    folder = tmp_path / "games"
    (folder / "sub").mkdir(parents=True)
    for name in ("b.sgf", "a.SGF", "c.txt", "sub/d.sgf"):
        (folder / name).write_text("(;)")
    (tmp_path / "z.txt").write_text("(;)")
    # Folders: their .sgf files (any case) in name order; files as given.
    assert [p.name for p in collection([tmp_path / "z.txt", folder])] == ["z.txt", "a.SGF", "b.sgf"]
    with pytest.raises(DriverError, match="have the same name"):
        collection([folder, folder / "b.sgf"])
    with pytest.raises(DriverError, match="nowhere.sgf: no such file or folder"):
        collection([tmp_path / "nowhere.sgf"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(DriverError, match="no SGF records among the inputs"):
        collection([tmp_path / "empty"])


def test_the_command_line_refuses_bad_review_arguments_before_anything_runs(capsys, tmp_path):
    assert main(["review", "--out", str(tmp_path / "out"), str(tmp_path), "--", "--visits", "2"]) == 1
    assert capsys.readouterr().err == (
        "tengen-ray: give the KataGo network after --: --model PATH (the same path on every worker)\n"
    )
    assert main(["review", "--out", str(tmp_path / "out"), str(tmp_path / "none"),
                 "--", "--model", "m"]) == 1
    assert capsys.readouterr().err == f"tengen-ray: {tmp_path / 'none'}: no such file or folder\n"
    assert not (tmp_path / "out").exists()
    # `tengen-ray match ...` is the plain `tengen-ray ...`.
    assert main(["match", "--shards", "0", "--results", str(tmp_path / "r.jsonl"), "--"]) == 1
    assert capsys.readouterr().err == "tengen-ray: --shards must be at least 1, not 0\n"
