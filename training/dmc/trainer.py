"""Deep Monte-Carlo training of a move ranker (DouZero's method), for every game with a move reader.

Read top to bottom:

1. Warm start (``cardzoo.training.dmc.warm_start``): rule bots (or the game's teacher,
   ``--imitate-from teacher``, or the expert) play every seat; the ranker learns to put the bot's
   complete move first among the candidates (cross-entropy over the candidates' Q) while the
   chosen move's Q is fitted to the seat's Monte-Carlo return. Its finished parts are kept, so a
   run stopped before its first save resumes from them.
2. Worker processes (``cardzoo.training.dmc.collector``) play many matches at once with the
   current weights, epsilon-greedy over complete moves, part against rule bots and part in
   self-play; every real choice of a learner seat is a sample (observation, move row, return).
3. The learner regresses Q(observation, move) on those returns (mean squared error) from a replay
   buffer of recent samples (``cardzoo.training.dmc.replay``: observations kept sparse, and a
   minibatch's a sparse matrix for the first layer). Collection runs one iteration ahead of learning, as in the PPO
   trainer: while the learner trains on iteration k, the workers collect k+1 with the weights
   from before that update. Each collection is a pure function of (weights, seed, iteration,
   worker), and learning takes a fixed number of steps per iteration, so a seeded run reproduces.
4. Evaluation against the rule bot and random (every trainer's, ``cardzoo.training.common.evaluator``:
   duplicate deals, greedy) runs in a process of its own, so it stalls neither learning nor
   collection (the warm-started network is evaluated too, at 0 samples). The state (network, Adam,
   the replay buffer, the collection in flight) is saved atomically every ``save_every`` seconds
   at an iteration boundary, and ``--resume`` continues exactly where the save left off.

Run directory layout as every trainer's (``cardzoo.training.common.run_dir``).
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np
import torch

from cardzoo.envs.errors import UserError
from cardzoo.envs.registry import game_spec
from cardzoo.training.agents.net_agents import whole_moves_reader
from cardzoo.training.agents.networks import load_checkpoint
from cardzoo.training.agents.ranker import MoveRankerNet
from cardzoo.training.common.evaluator import Evaluator
from cardzoo.training.common.opponents import OpponentMix, describe
from cardzoo.training.common.progress import Progress
from cardzoo.training.common.run_dir import RunDir, RunState, load_run_state, save_run_state
from cardzoo.training.common.run_log import RunLog
from cardzoo.training.dmc.collector import DMCCollector, DMCRequest
from cardzoo.training.dmc.replay import Replay
from cardzoo.training.dmc.settings import DMCSettings
from cardzoo.training.dmc.warm_start import warm_start
from cardzoo.training.parallel.workers import log_traffic, worker_group


class DMCRun(RunDir):
    ALGORITHM = "Deep Monte-Carlo move ranker (cardzoo; DouZero's method over complete moves)"
    RESUMES_UNSAVED = True  # OUT/warm_start keeps the warm start's finished parts

    def meta(self, name: str, state: RunState, evaluation: dict) -> dict:
        s = self.s
        trust = {"trust": s.trust} if s.trust else {}
        earlier = {"started_from": state.learner["started_from"]} if state.learner.get("started_from") else {}
        return {
            **super().meta(name, state, evaluation),
            **trust,
            **earlier,
            "opponent_pool": f"{describe(s.selfplay, s.opponents)}; epsilon-greedy {s.epsilon}",
        }


def started_from(path: str) -> dict:
    """What a checkpoint's sidecar says of the ``--init`` checkpoint it continued from: its name,
    weights digest and training, with the totals of everything before it (a chain of ``--init``
    runs), so that a model card can state the training in all."""
    _, meta = load_checkpoint(path)
    before = meta.get("started_from") or {}
    own = {k: meta.get(k, 0) for k in ("training_steps", "training_matches", "training_minutes")}
    return {
        "path": str(path),
        "name": meta.get("name", ""),
        "weights_sha256": meta.get("weights_sha256", ""),
        **own,
        **{
            f"total_{k}": round(own[k] + before.get(f"total_{k}", 0), 1 if k == "training_minutes" else None)
            for k in own
        },
    }


def start_from(net: MoveRankerNet, path: str, game: str) -> None:
    """Load the weights of the checkpoint ``path`` (``--init``) into ``net``; a one-line error when it
    is not a move ranker of this game with the same layers."""
    loaded, meta = load_checkpoint(path)
    theirs, mine = loaded.state_dict(), net.state_dict()
    if meta.get("game") != game:
        raise UserError(f"--init {path}: a {meta.get('game')} checkpoint, not a {game} one")
    if not isinstance(loaded, MoveRankerNet):
        raise UserError(
            f"--init {path}: a {meta.get('architecture', 'policy')} network (PPO's or SB3's "
            f"trainer), not a move ranker; Deep Monte-Carlo starts from a DMC checkpoint"
        )
    if {k: v.shape for k, v in theirs.items()} != {k: v.shape for k, v in mine.items()}:
        raise UserError(
            f"--init {path}: its layers differ from this run's (it has hidden layers "
            f"{meta.get('settings', {}).get('hidden')}); give its --hidden and --activation"
        )
    net.load_state_dict(theirs)


def absorb(state: RunState, replay: Replay, rollouts: list) -> None:
    """An iteration's rollouts into the replay buffer and the run's counters (and the running mean
    of the learner's reward in its matches against its opponents)."""
    for r in rollouts:
        replay.add(r.obs, r.rows, r.returns)
    n = sum(len(r.returns) for r in rollouts)
    state.decisions += n
    state.samples += n
    state.moves += sum(r.moves for r in rollouts)
    state.matches += sum(r.played for r in rollouts)
    ema = state.learner["rules_ema"]
    for m in (m for r in rollouts for m in r.matches):
        ema = m["learner_reward"] if ema is None else 0.98 * ema + 0.02 * m["learner_reward"]
    state.learner["rules_ema"] = ema


def learn_iteration(net, optimizer, replay: Replay, state: RunState, s: DMCSettings, n: int) -> tuple[float, int]:
    """One iteration's learning after ``n`` new samples: a fixed number of updates, so that each
    sample is learned on ``reuse`` times on average (the remainder is credited to the next), from
    a random stream of (seed, iteration) alone; (the last loss, updates made)."""
    credit = state.learner["credit"] + n * s.reuse
    steps = int(credit // s.minibatch) if replay.size >= s.minibatch else 0
    state.learner["credit"] = credit - steps * s.minibatch
    rng = np.random.default_rng(np.random.SeedSequence([s.seed, state.iteration, 1 << 20]))
    loss = learn(net, optimizer, replay, steps, s.minibatch, rng)
    state.iteration += 1
    return loss, steps


def learn(net, optimizer, replay: Replay, steps: int, minibatch: int, rng) -> float:
    """``steps`` minibatch updates of Q towards the sampled returns; the last loss."""
    loss = torch.zeros(())
    device = next(net.parameters()).device  # the minibatches go where the network is
    for _ in range(steps):
        obs, rows, returns = (x.to(device) for x in replay.sample(minibatch, rng))
        loss = torch.nn.functional.mse_loss(net(obs, rows), returns)
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
        optimizer.step()
    return float(loss.detach())


class Learner:
    """The learner's side of a run (DouZero's boundary: the workers get requests — the weights, a
    seed — and send rollouts back; everything else is here): the network, Adam, the replay buffer,
    the run directory, what it reports (TensorBoard, the learning curve) and its evaluator, whose
    process evaluates one checkpoint at a time while learning goes on."""

    def __init__(self, s: DMCSettings, net: MoveRankerNet, run: DMCRun, workers, evaluator: Evaluator, log):
        self.s, self.net, self.run, self.workers, self.evaluator, self.log = s, net, run, workers, evaluator, log
        self.optimizer = torch.optim.Adam(net.parameters(), lr=s.lr)
        self.replay = Replay(s.replay, net.obs_size, net.move_features)
        self.runlog = RunLog(run.out, s.game, s.players, log)
        self.mix = OpponentMix(s.opponents)  # the opponents' weights, moved by results (no snapshots)
        self.versus = "rules" if s.opponents == "rules" else "opponent"  # whose matches rules_ema follows

    # ------------------------------------------------------------------ the run's state
    def start(self, resume: bool) -> RunState:
        """The saved state (``--resume``), or a new one after the warm start (a run stopped in its
        warm start continues from the parts it finished)."""
        s, run = self.s, self.run
        if resume and run.saved():
            self.net.to(s.torch_device())  # Adam's saved moments follow its parameters there
            state = load_run_state(run.state_dir, self.net, self.optimizer, self.mix)
            self.replay.from_state(state)
            self.log(f"resuming {run.out} at {state.decisions:,} samples")
            return state
        if resume:
            self.log(f"resuming {run.out} from its start: it stopped before its first save")
            if s.init:
                start_from(self.net, s.init, s.game)
        state = RunState(next_eval=s.eval_every, learner={"credit": 0.0, "rules_ema": None})
        if s.init:  # read once: the file may be replaced (a model published over it) before a resume
            state.learner["started_from"] = started_from(s.init)
        if s.imitate:
            state.elapsed += warm_start(self.net, s, self.workers, self.log, run.out / "warm_start")
            path = run.write_checkpoint(self.net, "imitation", state, {})
            if s.eval_games:  # the learning curve starts where the warm start left the network
                self.evaluate_async(path, 0, s.seed * 1_000_003)
        self.net.to(s.torch_device())  # the warm start's imitation runs on the CPU, the learner on the device
        return state

    def save(self, state: RunState) -> None:
        """At an iteration boundary: the network, Adam, the replay and the collection in flight."""
        self.replay.to_state(state)
        save_run_state(self.run.state_dir, self.net, self.optimizer, self.mix, state)
        state.arrays = {}

    # ------------------------------------------------------------------ collection
    def collection(self, iteration: int) -> dict:
        """What a collection needs: the weights as they are now, and the opponents' weights."""
        return {
            "iteration": iteration,
            "opponents": self.mix.drawn(),
            "weights": {k: v.detach().cpu().numpy().copy() for k, v in self.net.state_dict().items()},
        }

    def submit(self, c: dict) -> None:
        s, count = self.s, self.workers.count
        per_worker = -(-s.batch // max(s.workers, 1))
        opponents = c.get("opponents", s.opponents)  # a collection saved before they were part of it: the setting
        self.workers.submit(
            [
                DMCRequest(
                    c["weights"], (s.seed, c["iteration"], w), per_worker, s.epsilon, s.selfplay, s.returns, opponents
                )
                for w in range(count)
            ]
        )

    # ------------------------------------------------------------------ the loop
    def loop(self, state: RunState, limit: float, bar: Progress) -> None:
        """Collection one iteration ahead of learning, up to ``--steps`` or the time limit; saved
        every ``save_every`` seconds and on Ctrl-C, at an iteration boundary."""
        s = self.s
        if state.decisions >= s.steps:
            return
        self.submit(state.inflight or self.collection(state.iteration))
        last_save = time.monotonic()
        at_boundary = True  # the state is consistent (between iterations): safe to save
        try:
            t0 = time.perf_counter()
            while True:
                rollouts = self.workers.receive()
                t1 = time.perf_counter()
                at_boundary = False
                self.mix.record([m for r in rollouts for m in r.matches])
                n = sum(len(r.returns) for r in rollouts)
                more = state.decisions + n < s.steps and state.wall() < limit
                state.inflight = ahead = self.collection(state.iteration + 1) if more else None
                if ahead is not None:
                    self.submit(ahead)
                else:
                    self.workers.stop()
                absorb(state, self.replay, rollouts)
                loss, steps = learn_iteration(self.net, self.optimizer, self.replay, state, s, n)
                at_boundary = True
                t2 = time.perf_counter()
                self._report(state, rollouts, loss, steps, t1 - t0, t2 - t1, n / max(t2 - t0, 1e-9), bar)
                t0 = t2
                self._evaluate_on_the_way(state, more)
                if time.monotonic() - last_save > s.save_every and more:
                    self.save(state)
                    last_save = time.monotonic()
                if not more:  # out of steps or of time: the workers have been told to stop
                    return
        except KeyboardInterrupt:
            if at_boundary:
                self.save(state)
                self.log(f"\ninterrupted at {state.decisions:,} samples: saved; continue with --resume")
            else:
                self.log("\ninterrupted in the middle of an update: the last save resumes with --resume")
            raise

    def _report(self, state, rollouts, loss, steps, t_wait, t_learn, rate, bar) -> None:
        ema = state.learner["rules_ema"]
        decisions = sum(r.decisions for r in rollouts)
        _log_iteration(self.runlog.writer, state, rate, loss, steps, t_wait, t_learn, decisions, self.versus)
        log_traffic(self.runlog.writer, self.workers, state.decisions)
        bar.update(
            state.decisions, loss=f"{loss:.3f}", **{f"vs_{self.versus}": f"{ema or 0:+.2f}"}, samples_s=f"{rate:,.0f}"
        )

    # ------------------------------------------------------------------ evaluation
    def evaluate_async(self, path: Path, samples: int, seed: int) -> None:
        self.evaluator.start(path, {n: seed + n for n in self.s.players}, samples)

    def _evaluate_on_the_way(self, state: RunState, more: bool) -> None:
        """Every ``eval_every`` samples a checkpoint is evaluated in the evaluator's process, one at
        a time; a finished evaluation goes on the learning curve."""
        s = self.s
        if not self.evaluator.busy() and state.decisions >= state.next_eval and s.eval_games and more:
            state.next_eval += s.eval_every
            path = self.run.write_checkpoint(self.net, f"step_{state.decisions}", state, {})
            self.evaluate_async(path, state.decisions, s.seed * 1_000_003 + state.decisions)
        self._record_evaluation(state, self.evaluator.finished())

    def _record_evaluation(self, state: RunState, finished: tuple | None) -> None:
        if finished is not None:
            samples, result = finished
            self.runlog.evaluation(state, samples, result, unit="samples")

    def finish(self, state: RunState, limit: float) -> Path:
        """The final checkpoint, evaluated (its card's figures) when evaluations are on; the state saved."""
        s, run = self.s, self.run
        self._record_evaluation(state, self.evaluator.wait())  # one still running: its point belongs on the curve
        if state.wall() >= limit:
            self.log(f"--max-minutes {s.max_minutes:g} reached at {state.decisions:,} samples")
        final = run.write_checkpoint(self.net, "final", state, {})
        if s.eval_games:
            result = self.evaluator(final, {n: s.seed * 1_000_003 + (1 << 30) + n for n in s.players})
            self.runlog.evaluation(state, state.decisions, result, unit="samples")
            final = run.write_checkpoint(self.net, "final", state, {f"{n}p": r for n, r in result.items()})
        self.save(state)
        self.runlog.close()
        return final


def train(
    settings: DMCSettings, resume: bool = False, progress: bool = True, log=print, ray: str | None = None
) -> Path:
    """Train (or continue) the run in ``settings.out``; returns the final checkpoint's path.
    ``ray``: collect on the Ray cluster at that address ("" for this machine's) instead of here."""
    s = settings
    torch.manual_seed(s.seed)
    torch.set_num_threads(s.threads)
    probe = game_spec(s.game).module.raw_env(num_players=s.players[0], **s.variants)
    reader = whole_moves_reader(s.game, probe.config)
    net_args = (probe.obs_size, reader.feature_size, list(s.hidden), s.activation, probe.num_actions)
    net = MoveRankerNet(*net_args)
    if s.init and not resume:  # before the run directory is made: a wrong --init leaves nothing behind
        start_from(net, s.init, s.game)
    run = DMCRun(Path(s.out), s, resume)
    collector_args = (s.game, s.players, s.variants, s.matches_per_worker, tuple(net_args))
    with (
        worker_group(s.workers, DMCCollector, collector_args, ray) as workers,
        Evaluator(
            s.game, max(s.eval_games // len(s.players), 10), s.variants, background=s.eval_games > 0
        ) as evaluator,
    ):  # its process only when used
        learner = Learner(s, net, run, workers, evaluator, log)
        state = learner.start(resume)
        limit = 60 * s.max_minutes if s.max_minutes else math.inf  # total wall clock, warm start and resumes included
        bar = Progress(s.steps, state.decisions, limit, state.wall, progress, f"dmc {s.game}", "sample")
        try:
            learner.loop(state, limit, bar)
        finally:
            bar.close()
        final = learner.finish(state, limit)
    log(
        f"final checkpoint: {final}  ({state.decisions:,} samples, {state.matches:,} matches, "
        f"{state.wall() / 60:.1f} min of training)"
    )
    return final


def _log_iteration(
    writer,
    state: RunState,
    rate: float,
    loss: float,
    steps: int,
    t_wait: float,
    t_learn: float,
    decisions: int,
    versus: str,
) -> None:
    step = state.decisions
    if steps:
        writer.add_scalar("loss/q_mse", loss, step)
    if state.learner["rules_ema"] is not None:
        writer.add_scalar(f"train/reward_vs_{versus}_ema", state.learner["rules_ema"], step)
    writer.add_scalar("speed/samples_per_s", rate, step)
    writer.add_scalar("speed/learner_decisions_per_iteration", decisions, step)
    writer.add_scalar("speed/wait_s", t_wait, step)
    writer.add_scalar("speed/learn_s", t_learn, step)
