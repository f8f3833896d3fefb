"""Who the learner plays when it does not play itself: the opponent pools and how they are sampled.

``OpponentMix`` (the batched PPO trainer's):
Kinds are the rule bot, random, and frozen snapshots of the learner (kept as checkpoint files in
the run's ``pool/``, newest ``max_snapshots``). Each opponent's base weight is scaled by how the
learner fares against it (prioritized fictitious self-play): an opponent the learner beats by a
wide margin fades towards 5% of its weight, one it loses to rises to twice its weight. The
statistics are moving averages over finished matches, and are saved with the run.

``OpponentPool`` (the SB3 path's, one opponent per episode of the single-agent view): the same kinds,
snapshots kept in memory as networks, drawn by fixed weights.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

import numpy as np

from cardzoo.envs.errors import UserError
from cardzoo.envs.registry import game_module
from cardzoo.training.agents.policy import MaskedPolicyNet
from cardzoo.training.agents.specs import RandomAgent

KINDS = ("snapshot", "rules", "random")
EMA = 0.02  # weight of one finished match in an opponent's moving averages


class OpponentMix:
    def __init__(self, base: dict, max_snapshots: int = 8):
        self.check_weights(base)
        self.base = {k: float(base.get(k, 0.0)) for k in KINDS}
        self.max_snapshots = max_snapshots
        self.snapshots: list[str] = []  # ids, oldest first
        self.stats: dict[str, list[float]] = {}  # label -> [reward ema, win ema, |reward| ema, count]
        self._cache: dict[str, dict] = {}  # id -> actor weights (numpy), loaded once

    @staticmethod
    def check_weights(weights: dict) -> None:
        if not isinstance(weights, dict) or set(weights) - set(KINDS) or not weights:
            raise UserError(f"opponents must weight {', '.join(KINDS)}, got {weights!r}")
        for k, w in weights.items():
            if isinstance(w, bool) or not isinstance(w, (int, float)) or not (0 <= w < math.inf):
                raise UserError(f"opponent weight {k}={w!r} must be a number >= 0")
        if not sum(weights.values()):
            raise UserError("opponent weights must not all be 0")

    # ------------------------------------------------------------------ pool
    def add_snapshot(self, snapshot_id: str) -> None:
        self.snapshots.append(snapshot_id)
        for old in self.snapshots[:-self.max_snapshots]:
            self._cache.pop(old, None)
            self.stats.pop(f"snapshot:{old}", None)
        del self.snapshots[:-self.max_snapshots]

    def labels(self) -> list[str]:
        out = [k for k in ("rules", "random") if self.base[k] > 0]
        if self.base["snapshot"] > 0:
            out += [f"snapshot:{sid}" for sid in self.snapshots]
        return out

    # --------------------------------------------------------------- weights
    def _strength_factor(self, label: str) -> float:
        st = self.stats.get(label)
        if not st or st[3] < 1:
            return 1.0
        reward, _, scale, _ = st
        return min(2.0, max(0.05, 1.0 - math.tanh(reward / max(scale, 1e-6))))

    def weights(self) -> dict[str, float]:
        out = {}
        for label in self.labels():
            kind = label.split(":", 1)[0]
            share = self.base[kind] / (len(self.snapshots) if kind == "snapshot" else 1)
            out[label] = share * self._strength_factor(label)
        return out

    def request_parts(self, pool_dir: Path) -> tuple[dict, dict]:
        """(label -> weight, snapshot id -> actor weights) for a collection request."""
        from cardzoo.training.agents.checkpoint import load_checkpoint

        snapshots = {}
        for sid in self.snapshots:
            if sid not in self._cache:
                net, _ = load_checkpoint(pool_dir / f"{sid}.safetensors")
                self._cache[sid] = {k: v.numpy() for k, v in net.state_dict().items()}
            snapshots[sid] = self._cache[sid]
        return self.weights(), snapshots

    # ----------------------------------------------------------------- stats
    def record(self, matches: list[dict]) -> None:
        for m in matches:
            if m.get("opponent", "self") == "self" or "learner_reward" not in m:
                continue
            st = self.stats.setdefault(m["opponent"], [0.0, 0.5, 1.0, 0])
            r = float(m["learner_reward"])
            alpha = max(EMA, 1.0 / (st[3] + 1))  # plain mean over the first matches
            st[0] += alpha * (r - st[0])
            st[1] += alpha * (float(m["learner_won"]) - st[1])
            st[2] += alpha * (abs(r) - st[2])
            st[3] += 1

    def summary(self) -> dict[str, tuple[float, float, int]]:
        return {label: (st[0], st[1], int(st[3])) for label, st in self.stats.items()}

    # ---------------------------------------------------------------- resume
    def to_json(self) -> dict:
        return {"snapshots": list(self.snapshots), "stats": {k: list(v) for k, v in self.stats.items()}}

    def load_json(self, data: dict) -> None:
        snapshots = data.get("snapshots", [])
        stats = data.get("stats", {})
        if not isinstance(snapshots, list) or not all(isinstance(x, str) and x.isidentifier() for x in snapshots):
            raise UserError("resume state: bad snapshot list")
        if not isinstance(stats, dict) or not all(
                isinstance(v, list) and len(v) == 4 and all(isinstance(x, (int, float)) for x in v)
                for v in stats.values()):
            raise UserError("resume state: bad opponent statistics")
        self.snapshots = snapshots[-self.max_snapshots:]
        self.stats = {str(k): [float(x) for x in v] for k, v in stats.items()}
        self._cache = {}


class OpponentPool:
    """Who sits at the learner's opponents' seats. Snapshots are actor weights kept in memory."""

    def __init__(self, game: str, config, weights: dict[str, float] | None = None, max_snapshots: int = 8,
                 seed: int = 0):
        self.module = game_module(game)
        self.config = config
        self.weights = weights or {"rules": 0.4, "random": 0.1, "snapshot": 0.5}
        self.max_snapshots = max_snapshots
        self.snapshots: list[MaskedPolicyNet] = []
        self.rng = random.Random(seed)

    def add_snapshot(self, net: MaskedPolicyNet) -> None:
        self.snapshots.append(net)
        del self.snapshots[:-self.max_snapshots]

    def draw(self):
        kinds = [k for k in self.weights if k != "snapshot" or self.snapshots]
        kind = self.rng.choices(kinds, [self.weights[k] for k in kinds])[0]
        seed = self.rng.getrandbits(32)
        if kind == "rules":
            return self.module.RuleBot(self.config, seed=seed)
        if kind == "random":
            return RandomAgent(seed)
        net = self.rng.choice(self.snapshots)
        rng = np.random.default_rng(seed)
        return _SnapshotAgent(net, rng)


class _SnapshotAgent:
    def __init__(self, net: MaskedPolicyNet, rng):
        self.net, self.rng = net, rng

    def act(self, observation, action_mask) -> int:
        return self.net.act(observation, action_mask, self.rng)
