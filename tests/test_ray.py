"""Our trainers and tournaments on Ray (``--ray``): a two-node Ray cluster on this machine gives the
same checkpoints and the same games as multiprocessing, replaces a lost node's workers, and stops
in one line when it cannot. Ray's processes are stopped after the module, whatever happens."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

ray = pytest.importorskip("ray")  # in the dev install (Makefile); a plain install without the extra skips

from ray.cluster_utils import Cluster  # noqa: E402

from cardzoo.envs.errors import UserError  # noqa: E402
from cardzoo.scripts.cli import main as cli  # noqa: E402
from cardzoo.training.parallel import ray_actors  # noqa: E402
from cardzoo.training.parallel.ray_actors import RayWorkerGroup  # noqa: E402
from tests.run_helpers import kill_once_saved  # noqa: E402

NODE = {"num_cpus": 2, "object_store_memory": 120 * 2**20}
ON_NODES = [{f"node_{k}": 1} for k in range(3)]  # RayWorkerGroup(resources=...): actor k on node k
WAIT = 300  # seconds a step of a Ray test may take on a busy machine before it fails


def _node(k: int) -> dict:
    """Node k: 2 CPUs and a custom resource of its own, ``node_k``, that pins an actor to it."""
    return {**NODE, "resources": {f"node_{k}": 1}}


@pytest.fixture(scope="module")
def cluster():
    """A head and one more node (nodes 0 and 1), 2 CPUs each; this process is the driver."""
    c = Cluster(initialize_head=True, head_node_args={**_node(0), "include_dashboard": False})
    try:
        c.add_node(**_node(1))
        c.wait_for_nodes()
        ray.init(address=c.address, logging_level="ERROR", log_to_driver=False)
        yield c
    finally:
        ray.shutdown()
        c.shutdown()


def _weights(path):
    from safetensors.numpy import load_file

    return load_file(str(path))


def _same(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)


PPO = [
    "--algo",
    "ppo",
    "--players",
    "4",
    "--steps",
    "3000",
    "--workers",
    "2",
    "--matches",
    "4",
    "--batch",
    "400",
    "--minibatch",
    "200",
    "--hidden",
    "32,16",
    "--eval-games",
    "0",
    "--no-progress",
]
DMC = [
    "--algo",
    "dmc",
    "--players",
    "2",
    "--steps",
    "900",
    "--workers",
    "2",
    "--matches",
    "3",
    "--batch",
    "150",
    "--minibatch",
    "64",
    "--replay",
    "1000",
    "--hidden",
    "32,16",
    "--eval-games",
    "0",
    "--imitate",
    "3",
    "--no-progress",
]


@pytest.mark.parametrize("game,argv", [("siantappo", PPO), ("suipi", DMC)], ids=["ppo", "dmc"])
def test_a_run_on_ray_gives_the_checkpoint_of_a_run_with_processes(cluster, tmp_path, game, argv):
    assert cli(["train", game, *argv, "--out", str(tmp_path / "mp")]) == 0
    assert cli(["train", game, *argv, "--out", str(tmp_path / "ray"), "--ray", cluster.address]) == 0
    _same(_weights(tmp_path / "mp" / "final.safetensors"), _weights(tmp_path / "ray" / "final.safetensors"))
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    tb = EventAccumulator(str(tmp_path / "ray" / "tb"))
    tb.Reload()
    sent = [e.value for e in tb.Scalars("network/bytes_to_workers")]
    received = [e.value for e in tb.Scalars("network/bytes_from_workers")]
    assert len(sent) >= 2 and all(sent[:-1]) and sent[-1] == 0  # weights go out while collections go on
    assert all(received)  # and a rollout comes back every iteration
    assert "network/bytes_to_workers" not in EventAccumulator(str(tmp_path / "mp" / "tb")).Reload().Tags()["scalars"]


def test_an_evaluation_on_ray_plays_the_games_of_one_without(cluster, tmp_path):
    """40 games with a checkpoint entrant: the file is shipped to the actors, the games are the same."""
    out = tmp_path / "run"
    assert cli(["train", "suipi", *DMC, "--steps", "150", "--workers", "1", "--out", str(out)]) == 0
    agents = f"{out / 'final'},rules"
    here, there = tmp_path / "here.json", tmp_path / "there.json"
    assert (
        cli(
            ["eval", "suipi", "--agents", agents, "--games", "40", "--seed", "5", "--workers", "2", "--json", str(here)]
        )
        == 0
    )
    assert (
        cli(
            [
                "eval",
                "suipi",
                "--agents",
                agents,
                "--games",
                "40",
                "--seed",
                "5",
                "--workers",
                "2",
                "--json",
                str(there),
                "--ray",
                cluster.address,
            ]
        )
        == 0
    )
    a, b = (json.loads(p.read_text()) for p in (here, there))
    for doc in (a, b):
        doc.pop("seconds", None)
    assert a == b and a["games_played"] == 40


def _requests(n: int, samples: int):
    import torch

    from cardzoo.envs.suipi_v0 import raw_env
    from cardzoo.training.agents.net_agents import whole_moves_reader
    from cardzoo.training.agents.ranker import MoveRankerNet
    from cardzoo.training.dmc.collector import DMCRequest

    probe = raw_env(num_players=2)
    args = (probe.obs_size, whole_moves_reader("suipi", probe.config).feature_size, [32, 16], "relu", probe.num_actions)
    torch.manual_seed(0)
    weights = {k: v.numpy().copy() for k, v in MoveRankerNet(*args).state_dict().items()}
    collector: tuple[Any, ...] = ("suipi", (2,), {}, 8, tuple(args))
    return collector, [DMCRequest(weights, (3, 0, w), samples, 0.05, 0.5) for w in range(n)]


def _held_collector(marks: Path):
    """A DMCCollector whose collections, once started, mark their node (a file named after its id
    in ``marks``) and wait for ``marks/go``: a node lost in that wait is lost mid-collection."""
    from cardzoo.training.dmc.collector import DMCCollector

    class Held(DMCCollector):  # made here, so Ray ships the class itself to the actors
        def collect(self, request):
            import time

            import ray

            (marks / ray.get_runtime_context().get_node_id()).touch()
            while not (marks / "go").exists():
                time.sleep(0.05)
            return super().collect(request)

    return Held


def _until(done, what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not done():
        assert time.monotonic() < deadline, f"{what}: not within {WAIT} s"
        time.sleep(0.05)


@contextlib.contextmanager
def _a_node_lost_mid_collection(cluster, marks: Path, args, requests, replace: bool):
    """Three actors, actor k on node k (node 2 added for this test); node 2 is lost while its
    actor's collection is under way, and with ``replace`` a new node 2 (its resource) is added.
    Yields the group, whose collections then go on, and the lost node's id."""
    added = [cluster.add_node(**_node(2))]
    cluster.wait_for_nodes()
    try:
        with RayWorkerGroup(3, _held_collector(marks), args, address=cluster.address, resources=ON_NODES) as group:
            doomed = added[0].node_id
            assert group.nodes()[2] == doomed
            group.submit(requests)
            _until((marks / doomed).exists, "the collection on the node to lose did not start")
            cluster.remove_node(added.pop())
            if replace:
                added.append(cluster.add_node(**_node(2)))
            (marks / "go").touch()
            yield group, doomed
    finally:
        for node in added:
            cluster.remove_node(node)


def test_a_ladder_on_ray_stores_the_matches_of_one_without(cluster, tmp_path):
    """`cardzoo ladder play --ray`: the actors play, this process stores; the same matches, and an
    SPRT that decides stops the actors' work."""
    import sqlite3

    stored = []
    for name, extra in (("here", []), ("there", ["--ray", cluster.address])):
        db = str(tmp_path / f"{name}.sqlite")
        assert cli(["ladder", "--db", db, "add", "rules", "random", "random@1"]) == 0
        assert cli(["ladder", "--db", db, "play", "--game", "suipi", "--games", "10", "--workers", "2", *extra]) == 0
        assert (
            cli(
                [
                    "ladder",
                    "--db",
                    db,
                    "play",
                    "--game",
                    "suipi",
                    "--games",
                    "400",
                    "--workers",
                    "2",
                    "--sprt",
                    "--adv1",
                    "0.2",
                    *extra,
                ]
            )
            == 0
        )
        with contextlib.closing(sqlite3.connect(db)) as con:
            stored.append(
                con.execute(
                    "SELECT a, b, deal, seating, deal_seed, seats, rewards FROM matches ORDER BY a, b, deal, seating"
                ).fetchall()
            )
    assert stored[0] == stored[1] and 30 < len(stored[0]) < 1200


def test_a_lost_node_is_replaced_and_its_collection_played_again(cluster, tmp_path):
    from cardzoo.training.dmc.collector import DMCCollector

    args, requests = _requests(3, 1000)
    with _a_node_lost_mid_collection(cluster, tmp_path, args, requests, replace=True) as (group, doomed):
        got = group.receive()
        now = group.nodes()[2]
        assert now != doomed and (tmp_path / now).exists()  # its actor started again on the new node, and collected
    want = [DMCCollector(*args).collect(r) for r in requests]
    assert len(got) == len(want) == 3
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.returns, w.returns)
        np.testing.assert_array_equal(g.rows, w.rows)


def test_a_worker_that_cannot_be_replaced_stops_the_work_in_one_line(cluster, tmp_path, monkeypatch):
    monkeypatch.setattr(ray_actors, "RESTARTS", 0)
    args, requests = _requests(3, 1000)
    with (
        _a_node_lost_mid_collection(cluster, tmp_path, args, requests, replace=False) as (group, _),
        pytest.raises(UserError) as err,
    ):
        group.receive()
    message = str(err.value)
    assert "a Ray worker was lost" in message and "--resume" in message and "\n" not in message


def test_more_workers_than_the_cluster_has_cpus_is_one_line(cluster):
    from cardzoo.training.dmc.collector import DMCCollector

    args, _ = _requests(1, 10)
    with pytest.raises(UserError, match=r"the cluster has \d+ CPUs; --workers 99 needs 99"):
        RayWorkerGroup(99, DMCCollector, args, address=cluster.address)


def test_a_run_killed_on_ray_resumes_without_it_to_the_same_weights(cluster, tmp_path):
    """SIGKILL of a --ray run (saves at every iteration), then --resume with processes: the weights of
    an uninterrupted run with processes."""
    steps = ["--steps", "2400", "--workers", "1", "--matches", "4"]
    assert cli(["train", "suipi", *DMC, *steps, "--out", str(tmp_path / "whole")]) == 0
    killed = tmp_path / "killed"
    saved = kill_once_saved(
        ["train", "suipi", *DMC, *steps, "--save-every", "1e-6", "--out", str(killed), "--ray", cluster.address],
        killed,
        600,
    )
    assert 600 <= saved < 2400 and not (killed / "final.safetensors").exists()
    assert cli(["train", "suipi", "--resume", "--out", str(killed), "--no-progress"]) == 0
    _same(_weights(tmp_path / "whole" / "final.safetensors"), _weights(killed / "final.safetensors"))


def test_without_ray_ray_is_never_imported(tmp_path):
    code = (
        "import sys; from cardzoo.scripts.cli import main; "
        f"assert main(['train', 'suipi', *{DMC!r}, '--steps', '150', '--workers', '1', "
        f"'--out', {str(tmp_path / 'r')!r}]) == 0; "
        f"assert main(['eval', 'suipi', '--agents', 'rules,random', '--games', '8', '--workers', '2']) == 0; "
        "assert 'ray' not in sys.modules, 'ray was imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)


@pytest.mark.parametrize(
    "argv,message",
    [
        (["train", "suipi", "--algo", "sb3", "--ray"], "--ray is a flag of --algo ppo and dmc"),
        (["train", "suipi", "--algo", "ppo", "--workers", "0", "--ray"], "--ray needs --workers 1 or more"),
        (["bench", "--ray"], "--ray works with --train only"),
    ],
)
def test_ray_flags_in_the_wrong_place_are_one_line(tmp_path, argv, message, capsys):
    assert cli([*argv, "--out", str(tmp_path / "x")] if argv[0] == "train" else argv) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x").exists()
