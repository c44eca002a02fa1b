"""The simulated cluster the tests run on: a head that runs no shard and
four worker nodes of one CPU each, all on this machine
(`ray.cluster_utils.Cluster`); one per test module."""

import pytest
import ray
from ray.cluster_utils import Cluster

WORKER_NODES = 4


@pytest.fixture(scope="module")
def cluster():
    cluster = Cluster(
        initialize_head=True,
        head_node_args={
            # The head runs no shard, so that every shard lands on a worker node.
            "num_cpus": 0,
            "object_store_memory": 80 * 1024 * 1024,
            # Notice lost nodes within seconds rather than half a minute.
            "_system_config": {
                "health_check_initial_delay_ms": 0,
                "health_check_period_ms": 500,
                "health_check_timeout_ms": 500,
                "health_check_failure_threshold": 3,
            },
        },
    )
    for _ in range(WORKER_NODES):
        cluster.add_node(num_cpus=1, object_store_memory=80 * 1024 * 1024)
    cluster.wait_for_nodes()
    ray.init(address=cluster.address, log_to_driver=False)
    yield cluster
    ray.shutdown()
    cluster.shutdown()
