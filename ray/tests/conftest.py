"""The simulated cluster the tests run on: a head that runs no shard and
four worker nodes of one CPU each, all on this machine
(`ray.cluster_utils.Cluster`); one per test module.

Every wait in these tests only guards against a hang: it is generous and
scales with TENGEN_TEST_TIME_SCALE (a positive number, 1 when unset), see
`scaled`. The tests assert on what happened, never on how fast."""

import math
import os

import pytest
import ray
from ray.cluster_utils import Cluster

WORKER_NODES = 4
# How long the nodes may take to start and register (Ray's default, 30 s, is
# short for five nodes starting on a busy machine).
NODES_TIMEOUT_S = 300

TIME_SCALE_VARIABLE = "TENGEN_TEST_TIME_SCALE"


def time_scale():
    """The factor every hang guard is multiplied by: TENGEN_TEST_TIME_SCALE,
    a positive number, 1 when unset. A mistyped setting must not silently
    mean 1: it stops the run (see pytest_configure)."""
    text = os.environ.get(TIME_SCALE_VARIABLE)
    if text is None:
        return 1.0
    try:
        scale = float(text)
    except ValueError:
        scale = math.nan
    if not (math.isfinite(scale) and scale > 0):
        raise pytest.UsageError(f"{TIME_SCALE_VARIABLE}={text!r}: expected a positive number, such as 2 or 0.5")
    return scale


def scaled(seconds):
    """`seconds` multiplied by the time scale: how long a test waits before
    it calls a wait a hang."""
    return seconds * time_scale()


def pytest_configure(config):
    time_scale()  # an invalid scale fails the run before any test starts


def wait_for_nodes(cluster):
    """Waits until every node of the cluster has registered."""
    cluster.wait_for_nodes(timeout=scaled(NODES_TIMEOUT_S))


@pytest.fixture(scope="module")
def cluster():
    cluster = Cluster(
        initialize_head=True,
        head_node_args={
            # The head runs no shard, so that every shard lands on a worker node.
            "num_cpus": 0,
            "object_store_memory": 80 * 1024 * 1024,
            # Notice lost nodes within seconds rather than half a minute: a
            # node whose processes are killed fails its checks at once. A
            # live node on a busy machine may be slow to answer one, so the
            # wait for each answer is longer, and scaled.
            "_system_config": {
                "health_check_initial_delay_ms": 0,
                "health_check_period_ms": 500,
                "health_check_timeout_ms": round(scaled(5) * 1000),
                "health_check_failure_threshold": 3,
            },
        },
    )
    for _ in range(WORKER_NODES):
        cluster.add_node(num_cpus=1, object_store_memory=80 * 1024 * 1024)
    wait_for_nodes(cluster)
    ray.init(address=cluster.address, log_to_driver=False)
    yield cluster
    ray.shutdown()
    cluster.shutdown()
