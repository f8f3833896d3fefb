"""Batched self-play PPO with action masking: ``cardzoo train --algo ppo``.

Read top to bottom, like CleanRL's ``ppo.py``:

1. settings (``cardzoo.training.ppo.settings``: every hyper-parameter, recorded in the run directory
   and in each checkpoint);
2. generalized advantage estimation over per-seat streams;
3. the clipped PPO update (value loss, entropy bonus, KL early stop, gradient clipping);
4. the loop: collect whole matches in worker processes (``cardzoo.training.ppo.collector``), learn, snapshot
   into the opponent pool, evaluate against the baselines, save resumable state.

Per-seat returns: every seat the learner controls is its own stream of decisions; a decision's
reward is everything that seat earns from its move up to its next decision (rewards that arrive
during other seats' moves included), so in a zero-sum match each seat learns from its own result.
4-player Suipi partners each get their side's reward.
"""

from __future__ import annotations

import math
import os
import time
from pathlib import Path

import numpy as np
import torch

from cardzoo.training.common.evaluator import Evaluator
from cardzoo.training.common.opponents import OpponentMix
from cardzoo.training.common.progress import Progress
from cardzoo.training.common.run_dir import RunState, load_run_state, save_run_state
from cardzoo.training.common.run_log import RunLog
from cardzoo.training.parallel.workers import log_traffic, worker_group
from cardzoo.training.ppo.actor_critic import ActorCritic
from cardzoo.training.ppo.collector import Collector, CollectRequest, Rollout
from cardzoo.training.ppo.run import PPORun
from cardzoo.training.ppo.settings import PPOSettings


# ------------------------------------------------------------------------------- 2. advantages
def stream_advantages(rollout: Rollout, gamma: float, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """GAE along each stream (one seat in one match), walking the rows backwards.

    Every stream ends with ``done`` inside the rollout (whole matches are collected), so nothing
    is bootstrapped; with ``gamma = lam = 1`` the returns are plain Monte Carlo returns.
    """
    n = len(rollout.rewards)
    adv = [0.0] * n
    next_value: dict[int, float] = {}
    next_adv: dict[int, float] = {}
    # plain lists: numpy scalar reads and writes are slow in a Python loop
    values, rewards = rollout.values.tolist(), rollout.rewards.tolist()
    dones, streams = rollout.dones.tolist(), rollout.streams.tolist()
    for t in range(n - 1, -1, -1):
        s = streams[t]
        if dones[t] or s not in next_value:
            nv, na = 0.0, 0.0
        else:
            nv, na = next_value[s], next_adv[s]
        delta = rewards[t] + gamma * nv - values[t]
        adv[t] = a = delta + gamma * lam * na
        next_value[s], next_adv[s] = values[t], a
    advantages = np.asarray(adv, np.float32)
    return advantages, advantages + rollout.values


# ------------------------------------------------------------------------------- 3. the update
def ppo_update(net: ActorCritic, optimizer, batch: dict, s: PPOSettings, rng: np.random.Generator) -> dict:
    """Clipped-objective PPO epochs over one iteration's samples; returns the logged statistics."""
    n = len(batch["actions"])
    device = next(net.parameters()).device  # the samples go where the network is

    def tensor(key):
        return torch.from_numpy(batch[key]).to(device)

    obs = tensor("obs")
    critic_obs = None if batch.get("critic_obs") is None else tensor("critic_obs")
    masks, actions, old_logp = tensor("masks"), tensor("actions"), tensor("logprobs")
    adv_all, returns = tensor("advantages"), tensor("returns")
    stats: dict[str, list[float]] = {
        "policy_loss": [],
        "value_loss": [],
        "entropy": [],
        "approx_kl": [],
        "clip_fraction": [],
    }
    epochs_run = 0
    for _ in range(s.epochs):
        order = rng.permutation(n)
        kls = []
        for start in range(0, n, s.minibatch):
            idx = torch.from_numpy(order[start : start + s.minibatch]).to(device)
            logits, value = net(obs[idx], None if critic_obs is None else critic_obs[idx])
            logits = logits.masked_fill(~masks[idx], -1e9)
            logp_all = torch.log_softmax(logits, dim=1)
            logp = logp_all.gather(1, actions[idx, None]).squeeze(1)
            # softmax, not logp_all.exp(): exp of the ~-1e9 masked entries takes a slow path in torch
            probs = torch.softmax(logits, dim=1)
            entropy = -(probs * logp_all).sum(1).mean()  # masked actions have p = 0 exactly
            log_ratio = logp - old_logp[idx]
            ratio = log_ratio.exp()
            adv = adv_all[idx]
            adv = (adv - adv.mean()) / (
                adv.std(correction=0) + 1e-8
            )  # population std: a 1-sample minibatch gives 0, not NaN
            policy_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - s.clip, 1 + s.clip)).mean()
            value_loss = 0.5 * (value - returns[idx]).pow(2).mean()
            loss = policy_loss + s.vf_coef * value_loss - s.ent_coef * entropy
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), s.max_grad_norm)
            optimizer.step()
            with torch.no_grad():
                approx_kl = ((ratio - 1) - log_ratio).mean().item()  # k3 estimator (Schulman)
                kls.append(approx_kl)
                stats["approx_kl"].append(approx_kl)
                stats["clip_fraction"].append(((ratio - 1).abs() > s.clip).float().mean().item())
                stats["policy_loss"].append(policy_loss.item())
                stats["value_loss"].append(value_loss.item())
                stats["entropy"].append(entropy.item())
        epochs_run += 1
        if s.target_kl and np.mean(kls) > s.target_kl:
            break
    out = {k: float(np.mean(v)) for k, v in stats.items()}
    var = float(np.var(batch["returns"]))
    out["explained_variance"] = (
        float("nan") if var == 0 else 1 - float(np.var(batch["returns"] - batch["values"])) / var
    )
    out["epochs"] = epochs_run
    return out


def merge(rollouts: list[Rollout]) -> Rollout:
    """One rollout from several workers' (stream ids made unique per worker)."""
    offset = 0
    streams = []
    for r in rollouts:
        streams.append(r.streams + offset)
        offset += int(r.streams.max()) + 1 if len(r.streams) else 0
    return Rollout(
        obs=np.concatenate([r.obs for r in rollouts]),
        masks=np.concatenate([r.masks for r in rollouts]),
        actions=np.concatenate([r.actions for r in rollouts]),
        logprobs=np.concatenate([r.logprobs for r in rollouts]),
        values=np.concatenate([r.values for r in rollouts]),
        rewards=np.concatenate([r.rewards for r in rollouts]),
        dones=np.concatenate([r.dones for r in rollouts]),
        streams=np.concatenate(streams),
        decisions=sum(r.decisions for r in rollouts),
        moves=sum(r.moves for r in rollouts),
        matches=[m for r in rollouts for m in r.matches],
        critic_obs=None if rollouts[0].critic_obs is None else np.concatenate([r.critic_obs for r in rollouts]),
    )


# ------------------------------------------------------------------------------- 4. the loop
def _adam(net: ActorCritic, s: PPOSettings) -> torch.optim.Adam:
    return torch.optim.Adam(net.parameters(), lr=s.lr, eps=1e-5)


class Learner:
    """The learner's side of a PPO run (the workers get requests — the weights, the opponent mix,
    a seed — and send rollouts back): the actor-critic, Adam, the opponent pool, the run directory,
    its evaluator and what it reports (TensorBoard, the learning curve)."""

    def __init__(self, s: PPOSettings, run: PPORun, workers, log):
        self.s, self.run, self.workers, self.log = s, run, workers, log
        self.net = s.net_factory()()
        self.optimizer: torch.optim.Optimizer  # made by ``start`` on resume, else while the first collection runs
        self.runlog: RunLog  # made while the first collection runs (see ``begin``)
        self.mix = OpponentMix(s.opponents, s.max_snapshots)
        self.evaluator = Evaluator(s.game, max(s.eval_games // len(s.players), 10), s.variants)

    def start(self, resume: bool) -> RunState:
        """The saved state (``--resume``), or a new one after the warm start (``--imitate``)."""
        s = self.s
        if resume:
            self.net.to(s.torch_device())
            self.optimizer = _adam(self.net, s)
            state = load_run_state(self.run.state_dir, self.net, self.optimizer, self.mix)
            self.log(f"resuming {self.run.out} at {state.decisions:,} decisions (iteration {state.iteration})")
            return state
        state = RunState(next_snapshot=s.snapshot_every, next_eval=s.eval_every)
        if s.imitate:
            from cardzoo.training.ppo.warm_start import clone_rule_bot

            accuracy = clone_rule_bot(self.net, s.game, s.players, s.variants, s.imitate, seed=s.seed, log=self.log)
            self.log(f"warm start: the policy picks the rule bot's move {accuracy:.0%} of the time")
            self.run.write_checkpoint(self.net, "imitation", state, {})
        self.net.to(s.torch_device())  # the warm start's imitation runs on the CPU, the learner on the device
        return state

    def begin(self, state: RunState, resume: bool) -> None:
        """The rest of the set-up, made while the first collection runs (the optimizer's
        construction imports torch._dynamo, tensorboard's writer its own stack: both slow)."""
        if not resume:  # ``start`` made it from the saved state
            self.optimizer = _adam(self.net, self.s)
        self.runlog = RunLog(
            self.run.out, self.s.game, self.s.players, self.log, purge_step=state.decisions if resume else None
        )

    # ------------------------------------------------------------------ collection
    def collection(self, iteration: int) -> dict:
        """What a collection needs: the weights as they are now, and the opponent mix."""
        opponents, snapshots = self.mix.request_parts(self.run.pool_dir)
        return {
            "iteration": iteration,
            "opponents": opponents,
            "snapshots": sorted(snapshots),
            "weights": {k: v.detach().cpu().numpy().copy() for k, v in self.net.state_dict().items()},
        }

    def submit(self, c: dict) -> None:
        s = self.s
        per_worker = -(-s.batch // max(s.workers, 1))
        _, snapshots = self.mix.request_parts(self.run.pool_dir)
        snaps = {sid: snapshots[sid] for sid in c["snapshots"]}
        self.workers.submit(
            [
                CollectRequest(c["weights"], (s.seed, c["iteration"], w), per_worker, s.selfplay, c["opponents"], snaps)
                for w in range(self.workers.count)
            ]
        )

    # ------------------------------------------------------------------ the loop
    def loop(self, state: RunState, limit: float, bar: Progress) -> None:
        """Collection runs one iteration ahead of learning: while the learner trains on iteration k,
        the workers collect k+1 with the weights from before that update (PPO's ratio uses the
        logged behaviour probabilities, so the lag is accounted for). Saved every ``save_every``
        seconds, at the end and on Ctrl-C, at an iteration boundary."""
        s = self.s
        last_save = time.monotonic()
        at_boundary = True  # the state is consistent (between iterations): safe to save
        try:
            t0 = time.perf_counter()
            while state.decisions < s.steps:
                rollout = merge(self.workers.receive())
                out_of_time = state.wall() >= limit
                t1 = time.perf_counter()
                at_boundary = False
                self.mix.record(rollout.matches)
                more = state.decisions + rollout.decisions < s.steps and not out_of_time
                state.inflight = ahead = self.collection(state.iteration + 1) if more else None
                if ahead is not None:
                    self.submit(ahead)
                else:  # no more rollouts: the workers exit, and the last update takes their cores
                    self.workers.stop()
                    torch.set_num_threads(min(os.cpu_count() or 1, max(s.threads, 1) + s.workers))
                stats = self.update(state, rollout)
                at_boundary = True
                t2 = time.perf_counter()
                self._report(state, stats, rollout, t1 - t0, t2 - t1, rollout.decisions / (t2 - t0), bar)
                t0 = t2
                self._on_the_way(state)
                if time.monotonic() - last_save >= s.save_every or not more:
                    self.save(state)
                    last_save = time.monotonic()
                if out_of_time:
                    self.log(f"\n--max-minutes {s.max_minutes:g} reached at {state.decisions:,} decisions")
                    return
        except KeyboardInterrupt:
            if at_boundary:
                self.save(state)
                self.log(f"\ninterrupted at {state.decisions:,} decisions: saved; continue with --resume")
            else:
                self.log("\ninterrupted in the middle of an update: the last save resumes with --resume")
            raise

    def update(self, state: RunState, rollout: Rollout) -> dict:
        """One PPO update on an iteration's rollout (the learning rate decayed first, the minibatch
        order from (seed, iteration) alone); the run's counters advanced."""
        s = self.s
        if s.lr_schedule == "linear":
            for g in self.optimizer.param_groups:
                g["lr"] = s.lr * max(0.0, 1 - state.decisions / s.steps)
        adv, ret = stream_advantages(rollout, s.gamma, s.gae_lambda)
        batch = {
            "obs": rollout.obs,
            "critic_obs": rollout.critic_obs,
            "masks": rollout.masks,
            "actions": rollout.actions,
            "logprobs": rollout.logprobs,
            "values": rollout.values,
            "advantages": adv,
            "returns": ret,
        }
        rng = np.random.default_rng(np.random.SeedSequence([s.seed, state.iteration, 1 << 20]))
        stats = ppo_update(self.net, self.optimizer, batch, s, rng) if len(adv) else {}
        state.iteration += 1
        state.decisions += rollout.decisions
        state.samples += len(adv)
        state.moves += rollout.moves
        state.matches += len(rollout.matches)
        return stats

    def _report(self, state, stats, rollout, t_collect, t_learn, rate, bar) -> None:
        writer = self.runlog.writer
        _log_iteration(writer, state, stats, rollout, self.mix, rate, t_collect, t_learn, self.optimizer)
        log_traffic(writer, self.workers, state.decisions)
        bar.update(
            state.decisions,
            dec_s=f"{rate:,.0f}",
            kl=f"{stats.get('approx_kl', 0):.3f}",
            ent=f"{stats.get('entropy', 0):.2f}",
        )

    def _on_the_way(self, state: RunState) -> None:
        """A snapshot into the opponent pool every ``snapshot_every`` decisions, an evaluation
        against the baselines every ``eval_every``."""
        s, run = self.s, self.run
        if state.decisions >= state.next_snapshot:
            state.next_snapshot += s.snapshot_every
            self.mix.add_snapshot(run.save_snapshot(self.net, state))
        if state.decisions >= state.next_eval and state.decisions < s.steps:
            state.next_eval += s.eval_every
            path = run.write_checkpoint(self.net, f"step_{state.decisions}", state, {})
            self.evaluate(path, state)

    def evaluate(self, path: Path, state: RunState, final: bool = False) -> dict:
        """The checkpoint against the rule bot and random at each player count, recorded; its
        results (by count, or the one count's). Each count's seed follows the evaluations before it."""
        s = self.s
        if not s.eval_games:
            return {}
        base = s.seed * 1_000_003 + (1 << 30 if final else 0)
        seeds = {n: base + (len(state.evals) + i) * 7919 + n for i, n in enumerate(s.players)}
        result = self.evaluator(path, seeds)
        self.runlog.evaluation(
            state,
            state.decisions,
            result,
            unit="decisions",
            note=f"model's mean reward per match, {self.evaluator.games} games",
        )
        return {f"{n}p": r for n, r in result.items()} if len(s.players) > 1 else result[s.players[0]]

    def save(self, state: RunState) -> None:
        save_run_state(self.run.state_dir, self.net, self.optimizer, self.mix, state)

    def finish(self, state: RunState) -> Path:
        """The final checkpoint, evaluated against the baselines (its card's figures)."""
        run = self.run
        final = run.write_checkpoint(self.net, "final", state, {})
        evaluation = self.evaluate(final, state, final=True)
        final = run.write_checkpoint(self.net, "final", state, evaluation)
        self.runlog.close()
        return final


def train(
    settings: PPOSettings, resume: bool = False, progress: bool = True, log=print, ray: str | None = None
) -> Path:
    """Train (or continue) the run in ``settings.out``; returns the final checkpoint's path.
    ``ray``: collect on the Ray cluster at that address ("" for this machine's) instead of here."""
    s = settings
    run = PPORun(Path(s.out), s, resume)  # checks the directory; refuses conflicting settings
    torch.set_num_threads(max(s.threads, 1))
    torch.manual_seed(s.seed)
    # The workers start first, so that their start-up (importing torch, building collectors) overlaps
    # the learner's.
    with worker_group(s.workers, Collector, s.collector_args(), ray) as workers:
        learner = Learner(s, run, workers, log)
        state = learner.start(resume)
        if state.decisions < s.steps:
            learner.submit(state.inflight or learner.collection(state.iteration))
        learner.begin(state, resume)
        limit = 60 * s.max_minutes if s.max_minutes else math.inf
        bar = Progress(s.steps, state.decisions, limit, state.wall, progress, f"train {s.game}", "dec")
        try:
            learner.loop(state, limit, bar)
        finally:
            bar.close()
    final = learner.finish(state)
    log(
        f"final checkpoint: {final}  ({state.decisions:,} decisions, {state.matches:,} matches, "
        f"{state.elapsed_hint(run)})"
    )
    return final


def _log_iteration(writer, state, stats, rollout, mix, rate, t_collect, t_learn, optimizer) -> None:
    step = state.decisions
    for k, v in stats.items():
        writer.add_scalar(f"train/{k}", v, step)
    writer.add_scalar("train/learning_rate", optimizer.param_groups[0]["lr"], step)
    writer.add_scalar("speed/decisions_per_s", rate, step)
    writer.add_scalar("speed/collect_s", t_collect, step)
    writer.add_scalar("speed/learn_s", t_learn, step)
    writer.add_scalar("train/samples_per_iteration", len(rollout.actions), step)
    for label, (reward, won, _count) in mix.summary().items():
        writer.add_scalar(f"pool/{label}/learner_reward", reward, step)
        writer.add_scalar(f"pool/{label}/learner_win_rate", won, step)
        writer.add_scalar(f"pool/{label}/weight", mix.weights().get(label, 0.0), step)
