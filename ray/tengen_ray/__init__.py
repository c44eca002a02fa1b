"""Runs tengen matches and reviews over a Ray cluster: each shard
(`tengen match --shard I/N`, `tengen review --shard I/N`) is a Ray task
running the tengen binary on a worker; finished games and reviews stream
back to the driver as they are written, and a shard whose worker dies is
resubmitted and resumes from what it had finished."""

from .driver import DriverError, MatchRun, run_match
from .review import ReviewRun, run_review
from .shard import ShardFailed

__all__ = ["DriverError", "MatchRun", "ReviewRun", "ShardFailed", "run_match", "run_review"]
