"""Before/after one change to the Deep Monte-Carlo collector: samples per CPU second of one
``DMCCollector`` process, this checkout against a git revision, alternated in fresh processes on
the same seeds, with a check that both sides collected the very same rollout.

    python -m cardzoo.benchmarks.collector_ab suipi 2 HEAD~1 --runs 4

Each run is one process per side: it builds a 32-match collector with a seeded 256-256 ranker,
warms it up on one small collection, then times ``collect`` of 3,000+ samples (epsilon 0.05, half
the matches against rule bots) with ``time.process_time`` (CPU seconds, so a busy machine slows
both sides alike more than it skews them). The old side runs from a ``git worktree`` of REV with
its own ``cardzoo/`` folder (see ``cardzoo bench-compare --help`` for why). Needs a git checkout.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ONE_RUN = r"""
import hashlib, sys, time
import torch
from cardzoo.envs.registry import game_spec
from cardzoo.training.agents.net_agents import whole_moves_reader
from cardzoo.training.agents.ranker import MoveRankerNet
from cardzoo.training.dmc.collector import DMCCollector, DMCRequest
torch.set_num_threads(1)
game, players, run = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
env = game_spec(game).raw_env(num_players=players)
reader = whole_moves_reader(game, env.config)
args = (env.obs_size, reader.feature_size, [256, 256], "relu", env.num_actions)
torch.manual_seed(0)
weights = {k: v.numpy() for k, v in MoveRankerNet(*args).state_dict().items()}
collector = DMCCollector(game, (players,), {}, 32, args)
collector.collect(DMCRequest(weights, (1,), 300, 0.05, 0.5))
start = time.process_time()
out = collector.collect(DMCRequest(weights, (2, run), 3000, 0.05, 0.5))
seconds = time.process_time() - start
print(len(out.rows) / seconds, hashlib.sha256(out.rows.tobytes() + out.returns.tobytes()).hexdigest())
"""


def _old_tree(rev: str, work: Path) -> Path:
    """A cardzoo/ folder of revision ``rev`` (linked to a worktree of it) to put on PYTHONPATH."""
    tree = work / "tree"
    subprocess.run(["git", "worktree", "add", "-q", "--detach", str(tree), rev], check=True)
    package = work / "pkg" / "cardzoo"
    package.mkdir(parents=True)
    for f in (tree / "cardzoo").glob("*.py"):
        (package / f.name).write_bytes(f.read_bytes())
    for part in ("envs", "training", "benchmarks", "scripts", "models"):
        if (tree / part).is_dir():  # benchmarks/ was training/benchmarks/ before 2026-12-05
            (package / part).symlink_to(tree / part)
    return work / "pkg"


def _run(python: str, env: dict, game: str, players: int, run: int) -> tuple[float, str]:
    out = subprocess.run(
        [python, "-c", ONE_RUN, game, str(players), str(run)],
        cwd=tempfile.gettempdir(),
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    rate, digest = out.stdout.split()
    return float(rate), digest


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="collector_ab", description=__doc__.split("\n\n")[0])
    p.add_argument("game")
    p.add_argument("players", type=int)
    p.add_argument("rev", help="the git revision to compare this checkout with")
    p.add_argument("--runs", type=int, default=4, help="timed runs of each side, alternated (default 4)")
    a = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        old_path = _old_tree(a.rev, Path(tmp))
        try:
            old_env = {**os.environ, "PYTHONPATH": str(old_path)}
            where = subprocess.run(
                [sys.executable, "-c", "import cardzoo.envs; print(cardzoo.envs.__file__)"],
                env=old_env,
                cwd=tempfile.gettempdir(),
                capture_output=True,
                text=True,
                check=True,
            )
            if not where.stdout.startswith(str(old_path)):
                raise SystemExit(f"the old side would import {where.stdout.strip()}, not {a.rev}'s code")
            new_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
            rates: dict[str, list[float]] = {"before": [], "after": []}
            same = True
            for run in range(a.runs):
                before = _run(sys.executable, old_env, a.game, a.players, run)
                after = _run(sys.executable, new_env, a.game, a.players, run)
                rates["before"].append(before[0])
                rates["after"].append(after[0])
                same &= before[1] == after[1]
                print(
                    f"run {run + 1}: before {before[0]:,.0f}  after {after[0]:,.0f} samples per CPU second", flush=True
                )
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(Path(tmp) / "tree")], check=False)
    ratio = statistics.median(rates["after"]) / statistics.median(rates["before"])
    print(
        f"{a.game} {a.players}p: median after / before {ratio:.2f}x; "
        f"the same rollouts on both sides: {'yes' if same else 'NO'}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
