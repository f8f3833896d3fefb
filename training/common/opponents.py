"""Who the learner plays when it does not play itself: one setting, one draw per match, the agents.

In a share ``--selfplay`` of the matches the learner plays every seat; in the others it plays one
side (a team) and every other seat is played by the opponent drawn for the match from
``--opponents``, a setting that means the same to every trainer:

    snapshot=0.5,rules=0.4,random=0.1   the kinds, weighted: frozen snapshots of the learner (a
                                        trainer that keeps them: PPO, SB3), the rule bot, random
                                        moves. PPO and DMC move each weight by the learner's
                                        results (``OpponentMix``).
    AGENT                               one frozen agent at every other seat: any agent spec
                                        (rules, model, teacher, expert:N, a checkpoint). With
                                        ``--selfplay 0`` the run is an exploiter of that agent
                                        (``cardzoo model probe``, ``cardzoo.training.dmc.exploit``).

``parse_opponents`` reads the flag and ``check_opponents`` checks it for a trainer.
``OpponentMix`` is the learner's side: the weights moved by results, the snapshots, what a
collection request carries (``drawn``). A collector draws each match with ``OpponentDraw`` (self-play
or which opponent, and the learner's seats) and builds the opponents' agents with
``OpponentAgents``. ``OpponentPool`` is the SB3 path's: the same kinds, one opponent per episode of
its single-seat view.

``OpponentMix``: each opponent's base weight is scaled by how the learner fares against it
(prioritized fictitious self-play): an opponent the learner beats by a wide margin fades towards
5% of its weight, one it loses to rises to twice its weight. The statistics are moving averages
over finished matches, and are saved with the run.
"""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from cardzoo.envs.errors import UserError
from cardzoo.envs.registry import game_module, game_spec
from cardzoo.training.agents.specs import RandomAgent, make_agent, parse_agent_spec

if TYPE_CHECKING:
    from cardzoo.training.agents.policy import MaskedPolicyNet

KINDS = ("snapshot", "rules", "random")
EMA = 0.02  # weight of one finished match in an opponent's moving averages
SELFPLAY_HELP = "share of matches where the learner plays every seat (in the others: --opponents)"
OPPONENTS_HELP = (
    "who plays the other seats when the learner does not play every seat: KIND=WEIGHT,... of snapshot "
    "(the learner's frozen snapshots), rules, random, weighted by results too; or one frozen AGENT "
    "(rules, model, teacher, expert, a checkpoint; with --selfplay 0 an exploiter of it)"
)
OPPONENTS_METAVAR = "KIND=W,...|AGENT"


# ------------------------------------------------------------------------------ the setting
def parse_opponents(text, flag: str = "--opponents") -> dict | str:
    """``snapshot=0.5,rules=0.4`` -> {"snapshot": 0.5, "rules": 0.4}; a text without ``=`` is one
    agent spec (``model``, a checkpoint path), kept as it is."""
    text = str(text).strip()
    if "=" not in text:
        if not text:
            raise UserError(f"{flag} wants KIND=WEIGHT,... (kinds {', '.join(KINDS)}) or one AGENT, got nothing")
        return text
    weights = {}
    for part in text.split(","):
        key, sep, value = part.partition("=")
        try:
            weights[key.strip()] = float(value)
        except ValueError:
            sep = ""
        if not sep:
            raise UserError(f"{flag} wants KIND=WEIGHT,... (kinds {', '.join(KINDS)}) or one AGENT, got {part!r}")
    return weights


def check_opponents(
    opponents, selfplay: float, game: str, players, variants: dict, snapshots: bool = True, agents: bool = True
) -> None:
    """One line unless ``opponents`` (weights or one agent spec) suits a trainer that keeps
    ``snapshots`` of its learner and can seat one frozen agent (``agents``)."""
    if isinstance(opponents, str):
        if not agents:
            raise UserError(
                f"--opponents {opponents}: this trainer weighs the kinds {', '.join(KINDS)} "
                f"(KIND=WEIGHT,...), it seats no frozen agent"
            )
        check_agent(opponents, game, players, variants)
        return
    check_weights(opponents)
    if opponents.get("snapshot") and not snapshots:
        raise UserError(
            "--opponents snapshot: this trainer keeps no snapshots of its learner; weigh rules and "
            "random, or name one frozen AGENT"
        )
    if selfplay < 1 and not any(opponents.get(k) for k in ("rules", "random")):
        raise UserError("opponents need rules or random besides snapshot (there is no snapshot at first)")


def check_weights(weights: dict) -> None:
    if not isinstance(weights, dict) or set(weights) - set(KINDS) or not weights:
        raise UserError(f"opponents must weight {', '.join(KINDS)}, got {weights!r}")
    for k, w in weights.items():
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not (0 <= w < math.inf):
            raise UserError(f"opponent weight {k}={w!r} must be a number >= 0")
    if not sum(weights.values()):
        raise UserError("opponent weights must not all be 0")


def check_agent(text: str, game: str, players, variants: dict) -> None:
    """A one-line error unless ``text`` names an agent that plays ``game`` at every count."""
    spec = game_spec(game)
    try:
        agent = parse_agent_spec(text)
        for n in players:
            make_agent(agent, spec.module, spec.raw_env(num_players=n, **variants).config, seed=0)
    except UserError as e:
        raise UserError(f"--opponents {text}: {str(e).splitlines()[0]}") from None


def describe(selfplay: float, opponents) -> str:
    """The opponents of a run in words (a checkpoint's ``opponent_pool``)."""
    if isinstance(opponents, str):
        who = "rule bots" if opponents == "rules" else f"{opponents} (frozen)"
        return f"{who} in {1 - selfplay:.0%} of matches, self-play otherwise"
    return f"self-play {selfplay:.0%}; otherwise {opponents} weighted by results"


# ------------------------------------------------------------------------------ the learner's side
class OpponentMix:
    """The opponents a learner's collections draw from: the kinds' weights moved by results and
    the newest ``max_snapshots`` snapshots (ids of checkpoints in the run's ``pool/``), or the one
    frozen agent (``base`` a spec: drawn in every opponent match, its results only recorded)."""

    def __init__(self, base: dict | str, max_snapshots: int = 8):
        self.agent = base if isinstance(base, str) else ""
        weights = {} if isinstance(base, str) else base
        if not self.agent:
            check_weights(weights)
        self.base = {k: float(weights.get(k, 0.0)) for k in KINDS}
        self.max_snapshots = max_snapshots
        self.snapshots: list[str] = []  # ids, oldest first
        self.stats: dict[str, list[float]] = {}  # label -> [reward ema, win ema, |reward| ema, count]
        self._cache: dict[str, dict] = {}  # id -> actor weights (numpy), loaded once

    # ------------------------------------------------------------------ pool
    def add_snapshot(self, snapshot_id: str) -> None:
        self.snapshots.append(snapshot_id)
        for old in self.snapshots[: -self.max_snapshots]:
            self._cache.pop(old, None)
            self.stats.pop(f"snapshot:{old}", None)
        del self.snapshots[: -self.max_snapshots]

    def labels(self) -> list[str]:
        if self.agent:
            return [self.agent]
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
        if self.agent:
            return {self.agent: 1.0}
        out = {}
        for label in self.labels():
            kind = label.split(":", 1)[0]
            share = self.base[kind] / (len(self.snapshots) if kind == "snapshot" else 1)
            out[label] = share * self._strength_factor(label)
        return out

    def drawn(self) -> dict | str:
        """What a collection draws its opponents from (``OpponentDraw``): label -> weight, or the
        one agent's spec."""
        return self.agent or self.weights()

    def request_parts(self, pool_dir: Path) -> tuple[dict | str, dict]:
        """(``drawn()``, snapshot id -> actor weights) for a collection request."""
        from cardzoo.training.agents.networks import load_checkpoint

        snapshots = {}
        for sid in self.snapshots:
            if sid not in self._cache:
                net, _ = load_checkpoint(pool_dir / f"{sid}.safetensors")
                self._cache[sid] = {k: v.numpy() for k, v in net.state_dict().items()}
            snapshots[sid] = self._cache[sid]
        return self.drawn(), snapshots

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
            isinstance(v, list) and len(v) == 4 and all(isinstance(x, (int, float)) for x in v) for v in stats.values()
        ):
            raise UserError("resume state: bad opponent statistics")
        self.snapshots = snapshots[-self.max_snapshots :]
        self.stats = {str(k): [float(x) for x in v] for k, v in stats.items()}
        self._cache = {}


# ------------------------------------------------------------------------------ a collector's side
class OpponentDraw:
    """A collection's draw of each new match from its request's ``selfplay`` share and ``opponents``
    (``OpponentMix.drawn``: label -> weight, drawn by weight; or one agent's spec, not drawn).

    ``selfplay_first``: where the uniform draw puts the self-play share, below ``selfplay`` (PPO's
    collector) or above ``1 - selfplay`` (DMC's); each collector keeps the order it has always had,
    so that seeded runs reproduce."""

    def __init__(self, selfplay: float, opponents: dict | str, selfplay_first: bool = True):
        self.selfplay, self.selfplay_first = selfplay, selfplay_first
        if isinstance(opponents, str):
            self.labels, self.p = [opponents], None
        else:
            self.labels = [k for k, w in opponents.items() if w > 0]
            total = sum(opponents[k] for k in self.labels)
            self.p = [opponents[k] / total for k in self.labels]

    def draw(self, rng: np.random.Generator, teams: list) -> tuple[str | None, set]:
        """(the match's opponent, the learner's seats) — (None, every seat) for self-play; the
        learner's side is one of ``teams`` (the game's, for the match's player count)."""
        every = {s for team in teams for s in team}
        if not self.labels:
            return None, every
        u = rng.random()
        if (u < self.selfplay) if self.selfplay_first else (u >= 1 - self.selfplay):
            return None, every
        label = self.labels[0] if self.p is None else self.labels[int(rng.choice(len(self.labels), p=self.p))]
        return label, set(teams[int(rng.integers(len(teams)))])


class OpponentAgents:
    """Fresh, seeded agents for the opponents' seats of one game (one per collector): the rule bot,
    random, or any agent spec; a checkpoint (or the shipped model) is read once per player count."""

    def __init__(self, game: str):
        self.game = game
        self.spec = game_spec(game)
        self.frozen: dict[tuple[str, int], tuple] = {}  # (spec, players) -> (net, meta)

    def make(self, text: str, config, seed: int):
        if text == "rules":
            return self.spec.rule_bot(config, seed=seed)
        spec = parse_agent_spec(text)
        if spec.kind not in ("checkpoint", "model"):
            return make_agent(spec, self.spec.module, config, seed=seed)
        from cardzoo.training.agents.checkpoint import check_fits
        from cardzoo.training.agents.networks import load_checkpoint
        from cardzoo.training.agents.shipped import shipped_model_path

        key = (text, config.num_players)
        if key not in self.frozen:
            path = spec.path if spec.kind == "checkpoint" else shipped_model_path(self.game, config.num_players)
            net, meta = load_checkpoint(path)
            check_fits(meta, config, str(path))
            net.eval()
            self.frozen[key] = net, meta
        net, meta = self.frozen[key]
        return net.agent(meta, config, seed if spec.seed is None else spec.seed)


# ------------------------------------------------------------------------------ SB3's
class OpponentPool:
    """Who sits at the learner's opponents' seats in SB3's single-seat view: an opponent drawn per
    episode from the kinds' fixed weights. Snapshots are actor weights kept in memory."""

    def __init__(
        self, game: str, config, weights: dict[str, float] | None = None, max_snapshots: int = 8, seed: int = 0
    ):
        self.module = game_module(game)
        self.config = config
        self.weights = weights or {"rules": 0.4, "random": 0.1, "snapshot": 0.5}
        self.max_snapshots = max_snapshots
        self.snapshots: list[MaskedPolicyNet] = []
        self.rng = random.Random(seed)

    def add_snapshot(self, net: MaskedPolicyNet) -> None:
        self.snapshots.append(net)
        del self.snapshots[: -self.max_snapshots]

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
