"""Vectorized self-play collection: many matches at once, one batched forward pass per tick.

A ``Collector`` runs ``num_matches`` matches side by side through the envs' trusted fast path
(``begin`` / ``legal_now`` / ``encode_seat`` / ``advance``: the AEC env's own encoding, without
PettingZoo's per-step dicts). Each tick every unfinished match makes one move. The seats the learner
controls (every seat in pure self-play) are answered by ONE forward pass of the learner network;
frozen snapshot opponents by one pass per snapshot; the rule bot and random by their own ``act``.

What comes back is a ``Rollout``: one row per learner decision that had a choice (forced moves —
a single legal action — are played without a sample; their rewards go to the seat's previous
decision), grouped in streams (one seat in one match), each stream a whole episode: a collection
stops starting matches once it has enough samples and finishes the ones in progress, so returns are
exact Monte Carlo returns and nothing has to be bootstrapped across a rollout boundary. That also
makes a rollout a pure function of (weights, opponents, seed): runs resume and reproduce exactly.

This module is the whole worker-side job; ``cardzoo.training.parallel.workers`` only moves requests and rollouts
between processes (so a Ray actor could host a ``Collector`` just as well).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from cardzoo.envs.base import action_mask
from cardzoo.envs.errors import UserError
from cardzoo.envs.registry import game_spec
from cardzoo.training.agents.specs import agent_move
from cardzoo.training.common.opponents import OpponentAgents, OpponentDraw
from cardzoo.training.ppo.actor_critic import critic_input

LEARNER = "learner"
MAX_MOVES_PER_MATCH = 50_000  # a last line of defence: the envs themselves end every match far sooner


@dataclass
class CollectRequest:
    """Everything a collection depends on (so it is reproducible from this alone)."""

    weights: dict  # learner state_dict as numpy arrays
    seed: tuple  # entropy for numpy's SeedSequence, e.g. (run seed, iteration, worker)
    min_samples: int  # stop starting matches once this many samples are collected
    selfplay: float  # probability that a match is pure self-play (every seat the learner)
    opponents: dict | str  # the other matches': label -> weight ("rules", "random", "snapshot:<id>"), or one agent spec
    snapshots: dict = field(default_factory=dict)  # id -> state_dict, for "snapshot:<id>" labels


@dataclass
class Rollout:
    obs: np.ndarray  # float32 [N, obs_size]
    masks: np.ndarray  # bool [N, num_actions]
    actions: np.ndarray  # int64 [N]
    logprobs: np.ndarray  # float32 [N]
    values: np.ndarray  # float32 [N]
    rewards: np.ndarray  # float32 [N]: reward from this decision up to the seat's next one
    dones: np.ndarray  # bool [N]: the seat's episode ended after this decision
    streams: np.ndarray  # int64 [N]: one id per (match, seat); rows of a stream are in order
    decisions: int  # every learner move, forced ones included
    moves: int  # every move of every seat
    matches: list  # per finished match: {"players", "opponent", "learner_reward", "learner_won"}
    critic_obs: np.ndarray | None = None  # float32 [N, critic_size]: the perfect critic's inputs (else None)


class _Match:
    __slots__ = ("env", "controllers", "agents", "pending", "totals", "opponent", "moves", "streams")
    env: Any  # the game's raw engine
    controllers: list[str | None]  # per seat: LEARNER, a snapshot's label, or None (an agent)
    agents: dict[int, Any]  # seat -> its opponent agent
    pending: dict[int, int]  # seat -> row of its last sampled decision
    totals: list[float]
    opponent: str
    moves: int
    streams: dict[int, int]


class _Collection:
    """One collection in progress: its matches and what it has recorded so far (the rows of the
    learner's decisions, their rewards, dones and streams, the finished matches)."""

    def __init__(self, collector: Collector, request: CollectRequest):
        self.request = request
        self.rng = np.random.default_rng(np.random.SeedSequence(list(request.seed)))
        self.draw = OpponentDraw(request.selfplay, request.opponents)
        self.matches = [collector._new_match(i, self.rng, self.draw) for i in range(collector.num_matches)]
        self.cols: dict[str, list] = {k: [] for k in ("obs", "masks", "actions", "logprobs", "values", "critic")}
        self.rewards: list[float] = []
        self.dones: list[bool] = []
        self.streams: list[int] = []
        self.next_stream = 0
        self.samples = self.decisions = self.moves = 0
        self.finished: list[dict] = []
        n = collector.num_matches  # a tick's inputs to one network, reused
        self.obs_buf = np.zeros((n, collector.obs_size), np.float32)
        self.mask_buf = np.zeros((n, collector.num_actions), bool)
        self.critic_buf = np.zeros((n, collector.critic_size), np.float32)

    def record(self, m: _Match, seat: int) -> None:
        """A learner decision's row in ``m``'s stream of ``seat`` (its reward filled in as it comes)."""
        if seat not in m.streams:
            m.streams[seat] = self.next_stream
            self.next_stream += 1
        m.pending[seat] = len(self.rewards)
        self.rewards.append(0.0)
        self.dones.append(False)
        self.streams.append(m.streams[seat])


class Collector:
    """Runs matches of one game (any of ``player_counts``) with the given rule variants."""

    def __init__(self, game: str, player_counts, variants: dict, num_matches: int, make_net):
        self.spec = game_spec(game)
        self.module = self.spec.module
        self.player_counts = list(player_counts)
        self.variants = dict(variants)
        self.num_matches = num_matches
        self.make_net = make_net  # () -> a fresh ActorCritic: forward(obs[, critic_obs]) -> (logits, value)
        self.learner = make_net()
        self.critic_size = self.learner.critic_size  # 0: the seat's own critic; else the perfect one's input
        self.snapshot_nets: dict[str, torch.nn.Module] = {}
        self.opponents = OpponentAgents(game)
        probe = self.module.raw_env(num_players=self.player_counts[0], **self.variants)
        self.obs_size, self.num_actions = probe.obs_size, probe.num_actions
        self.envs: dict[tuple[int, int], object] = {}  # (slot, players) -> raw env, reused

    # ------------------------------------------------------------------ setup
    def _env(self, slot: int, players: int):
        key = (slot, players)
        if key not in self.envs:
            self.envs[key] = self.module.raw_env(num_players=players, **self.variants)
        return self.envs[key]

    def _load(self, request: CollectRequest) -> None:
        self.learner.load_state_dict({k: torch.as_tensor(v) for k, v in request.weights.items()})
        self.learner.eval()
        for sid, state in request.snapshots.items():
            if sid not in self.snapshot_nets:
                net = self.make_net()  # a snapshot is an actor checkpoint: its value head stays unused
                missing, unexpected = net.load_state_dict(
                    {k: torch.as_tensor(v) for k, v in state.items()}, strict=False
                )
                if unexpected or any(not k.startswith("value_net.") for k in missing):
                    raise UserError(f"snapshot {sid} does not fit the network ({missing or unexpected})")
                net.eval()
                self.snapshot_nets[sid] = net
        wanted = set(request.snapshots)
        for sid in list(self.snapshot_nets):
            if sid not in wanted:
                del self.snapshot_nets[sid]

    def _new_match(self, slot: int, rng: np.random.Generator, draw: OpponentDraw) -> _Match:
        m = _Match()
        n = int(rng.choice(self.player_counts))
        m.env = self._env(slot, n)
        m.env.begin(int(rng.integers(2**63 - 1)))
        m.controllers = [LEARNER] * n
        m.agents = {}
        label, mine = draw.draw(rng, self.spec.teams(n))
        m.opponent = label or "self"
        for seat in range(n):
            if seat in mine:
                continue
            assert label is not None  # self-play (no label) leaves no opponent seat
            if label.startswith("snapshot:"):
                m.controllers[seat] = label  # a snapshot, answered in a batch
            else:
                m.agents[seat] = self.opponents.make(label, m.env.config, int(rng.integers(2**31)))
                m.controllers[seat] = None
        m.pending = {}  # seat -> row of its last sampled decision
        m.totals = [0.0] * n
        m.moves = 0
        m.streams = {}
        return m

    # ---------------------------------------------------------------- collect
    @torch.no_grad()
    def collect(self, request: CollectRequest) -> Rollout:
        """Every tick each unfinished match makes one move: the moves that need no network first,
        then one forward pass per network over the rest (``_forward``), then all of them played
        (``_play``); matches end, and new ones start until the request has its samples."""
        self._load(request)
        c = _Collection(self, request)
        active = list(range(self.num_matches))
        while active:
            chosen: dict[int, int] = {}
            batches: dict[str, list[int]] = {}
            for i in active:
                m = c.matches[i]
                seat = m.env.acting_seat
                legal = m.env.legal_now()
                ctrl = m.controllers[seat]
                if len(legal) == 1:  # forced, for every player (no observation to encode)
                    chosen[i] = legal[0]
                elif ctrl is None:
                    mask = action_mask(self.num_actions, legal)
                    chosen[i] = agent_move(m.agents[seat], m.env, seat, m.env.encode_seat(seat), mask)
                else:
                    batches.setdefault(ctrl, []).append(i)
            for ctrl, rows in batches.items():
                self._forward(c, ctrl, rows, chosen)
            active = self._play(c, active, chosen)
        return self._rollout(c)

    def _forward(self, c: _Collection, ctrl: str, rows: list[int], chosen: dict) -> None:
        """One forward pass of ``ctrl``'s network over the matches ``rows``, each move sampled from
        its masked policy; the learner's decisions recorded."""
        b = len(rows)
        perfect = bool(self.critic_size) and ctrl == LEARNER  # the perfect critic's inputs are the learner's
        obs_buf, mask_buf, critic_buf = c.obs_buf, c.mask_buf, c.critic_buf
        mask_buf[:b] = False
        for j, i in enumerate(rows):
            m = c.matches[i]
            seat = m.env.acting_seat
            obs_buf[j] = m.env.encode_seat(seat)
            mask_buf[j, m.env.legal_now()] = True
            if perfect:
                critic_input(m.env, seat, critic_buf[j])
        net = self.learner if ctrl == LEARNER else self.snapshot_nets[ctrl.split(":", 1)[1]]
        critic = torch.from_numpy(critic_buf[:b]) if perfect else None
        logits, value = net(torch.from_numpy(obs_buf[:b]), critic)
        logits = logits.masked_fill(~torch.from_numpy(mask_buf[:b]), -1e9)
        logp_all = torch.log_softmax(logits, dim=1).numpy()
        # exp in float32: the masked ~-1e9 entries underflow to exactly 0 on its fast path
        # (float64 exp takes a slow underflow path here)
        cum = np.cumsum(np.exp(logp_all), axis=1, dtype=np.float64)
        u = c.rng.random(b) * cum[:, -1]
        acts = np.minimum((cum > u[:, None]).argmax(axis=1), self.num_actions - 1)
        for j, i in enumerate(rows):
            chosen[i] = int(acts[j])
        if ctrl != LEARNER:
            return
        cols = c.cols
        cols["obs"].append(obs_buf[:b].copy())
        cols["masks"].append(mask_buf[:b].copy())
        cols["actions"].append(acts.astype(np.int64))
        cols["logprobs"].append(logp_all[np.arange(b), acts].astype(np.float32))
        cols["values"].append(value.reshape(-1).numpy().astype(np.float32))
        if perfect:
            cols["critic"].append(critic_buf[:b].copy())
        for i in rows:
            m = c.matches[i]
            c.record(m, m.env.acting_seat)
        c.samples += b

    def _play(self, c: _Collection, active: list[int], chosen: dict) -> list[int]:
        """Every active match plays its chosen move; the rewards go to each seat's pending row. The
        matches still running (a finished one replaced while samples are short)."""
        still = []
        for i in active:
            m = c.matches[i]
            seat = m.env.acting_seat
            if m.controllers[seat] == LEARNER:
                c.decisions += 1
            out = m.env.advance(chosen[i])
            c.moves += 1
            m.moves += 1
            for s, r in out.rewards.items():
                m.totals[s] += r
                row = m.pending.get(s)
                if row is not None:
                    c.rewards[row] += r
            for s in out.eliminated:
                row = m.pending.pop(s, None)
                if row is not None:
                    c.dones[row] = True
            if not (out.done or getattr(out, "truncated", False) or m.moves >= MAX_MOVES_PER_MATCH):
                still.append(i)
                continue
            for row in m.pending.values():
                c.dones[row] = True
            c.finished.append(self._result(m))
            if c.samples < c.request.min_samples:
                c.matches[i] = self._new_match(i, c.rng, c.draw)
                still.append(i)
        return still

    def _rollout(self, c: _Collection) -> Rollout:
        def cat(key, dtype, width=None):
            if c.cols[key]:
                return np.concatenate(c.cols[key]).astype(dtype, copy=False)
            return np.zeros((0,) if width is None else (0, width), dtype)

        return Rollout(
            obs=cat("obs", np.float32, self.obs_size),
            masks=cat("masks", bool, self.num_actions),
            actions=cat("actions", np.int64),
            logprobs=cat("logprobs", np.float32),
            values=cat("values", np.float32),
            rewards=np.asarray(c.rewards, np.float32),
            dones=np.asarray(c.dones, bool),
            streams=np.asarray(c.streams, np.int64),
            decisions=c.decisions,
            moves=c.moves,
            matches=c.finished,
            critic_obs=cat("critic", np.float32, self.critic_size) if self.critic_size else None,
        )

    def _result(self, m: _Match) -> dict:
        """How the learner fared in a finished match (against an opponent, not in self-play)."""
        n = len(m.controllers)
        mine = [s for s in range(n) if m.controllers[s] == LEARNER]
        others = [s for s in range(n) if m.controllers[s] != LEARNER]
        result = {"players": n, "opponent": m.opponent}
        if others:
            ranking = self.spec.final_ranking(m.env, m.totals)
            result["learner_reward"] = float(np.mean([m.totals[s] for s in mine]))
            result["learner_won"] = bool(min(ranking[s] for s in mine) < min(ranking[s] for s in others))
        return result
