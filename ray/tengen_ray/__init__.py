"""Runs tengen matches over a Ray cluster: each shard of the match
(`tengen match --shard I/N`) is a Ray task running the tengen binary on a
worker; finished games stream back to the driver as they end, and a shard
whose worker dies is resubmitted and resumes from its finished games."""

from .driver import DriverError, MatchRun, run_match
from .shard import ShardFailed

__all__ = ["DriverError", "MatchRun", "ShardFailed", "run_match"]
