"""The driver's checks and figures that need no cluster."""

import math

import pytest

from tengen_ray.driver import DriverError, check_arguments, engine0_score, games_option


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
