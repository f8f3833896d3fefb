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
4. Evaluation against the rule bot and random runs in a process of its own (duplicate deals,
   greedy), so it stalls neither learning nor collection (the warm-started network is evaluated
   too, at 0 samples). The state (network, Adam, the replay buffer, the collection in flight) is
   saved atomically every ``save_every`` seconds at an iteration boundary, and ``--resume``
   continues exactly where the save left off.

Run directory layout as every trainer's (``cardzoo.training.common.run_dir``).
"""

from __future__ import annotations

import math
from contextlib import nullcontext
import multiprocessing as mp
import time
from dataclasses import dataclass, field
from typing import ClassVar
from pathlib import Path

import numpy as np
import torch

from cardzoo.envs.errors import UserError
from cardzoo.envs.registry import game_spec
from cardzoo.training.agents.checkpoint import checkpoint_paths, load_checkpoint
from cardzoo.training.agents.ranker import MoveRankerNet, whole_moves_reader
from cardzoo.training.common.imitation import IMITATED
from cardzoo.training.common.progress import Progress
from cardzoo.training.common.run_dir import RunDir, RunState, load_run_state, save_run_state
from cardzoo.training.common.settings import SEED_RANGE, TrainerSettings
from cardzoo.training.parallel.workers import _die_with_parent, log_traffic, worker_group
from cardzoo.training.dmc.collector import DMCCollector, DMCRequest
from cardzoo.training.dmc.replay import Replay
from cardzoo.training.dmc.warm_start import warm_start


@dataclass
class DMCSettings(TrainerSettings):
    game: str
    players: tuple = ()
    steps: int = 2_000_000  # learner samples (real choices) to train on
    out: str = "runs/dmc"
    seed: int = 0
    workers: int = 2  # collector processes (0: collect in the main process)
    matches_per_worker: int = 32  # matches each worker plays side by side
    batch: int = 8192  # samples per iteration, all workers together (whole matches: a bit more)
    hidden: tuple = (256, 256)
    activation: str = "relu"
    lr: float = 1e-4
    minibatch: int = 1024
    replay: int = 100_000  # samples kept for learning
    reuse: float = 2.0  # times each sample is learned on, on average
    epsilon: float = 0.05
    vs_rules: float = 0.5  # share of matches against --opponent (the rest: self-play)
    opponent: str = "rules"  # agent spec of the other seats in those matches, frozen (an exploiter: a checkpoint)
    returns: str = "match"  # "deal": a choice's return ends with its deal (games settled deal by deal)
    imitate: int = 400  # bot-only matches of the warm start (0: none)
    imitate_from: str = "rules"  # whose moves the warm start imitates: "rules", the game's "teacher" or "expert"
    imitate_targets: str = "choice"  # or "values": the expert's searched values of the candidates
    init: str = ""  # a checkpoint whose weights the network starts from (and the expert searches with)
    expert_answer: str = ""  # who answers in the expert's sampled deals: "scripted" or "model" (default: the game's)
    imitate_epochs: int = 6
    trust: float = 0.0  # the checkpoints' trust margin over the rule bot's move (``RankerAgent``; 0: none)
    eval_every: int = 500_000
    eval_games: int = 200
    save_every: float = 120.0
    max_minutes: float = 0.0  # 0 = no limit
    threads: int = 1
    variants: dict = field(default_factory=dict)

    NAME: ClassVar[str] = "DMC"
    RESUMABLE: ClassVar[tuple] = ("steps", "workers", "eval_every", "eval_games", "save_every", "max_minutes",
                                  "threads")
    RANGES: ClassVar[dict] = {
        **{name: (1, None, "int") for name in ("steps", "matches_per_worker", "batch", "minibatch", "eval_every",
                                               "threads")},
        **{name: (0, None, "int") for name in ("workers", "imitate", "eval_games")},
        "lr": (1e-12, 1, "num"), "reuse": (1e-9, None, "num"), "epsilon": (0, 1, "num"),
        "vs_rules": (0, 1, "num"), "save_every": (1e-9, None, "num"), "max_minutes": (0, None, "num"),
        "trust": (0, 100, "num"), "seed": SEED_RANGE,
    }

    def __post_init__(self):
        self.players = self.check_game()
        spec = game_spec(self.game)
        whole_moves_reader(self.game)  # a one-line error for games without complete-move features
        if self.returns not in ("match", "deal"):
            raise UserError(f"--returns must be match or deal, not {self.returns!r}")
        if self.imitate_from not in IMITATED:
            raise UserError(f"--imitate-from must be one of {', '.join(IMITATED)}, not {self.imitate_from!r}")
        if self.imitate_from == "teacher" and spec.teacher is None:
            raise UserError(f"--imitate-from teacher: {self.game} has no teacher (no scripted player stronger than "
                            f"its rule bot); imitate rules or expert")
        if self.imitate_targets not in ("choice", "values"):
            raise UserError(f"--imitate-targets must be choice or values, not {self.imitate_targets!r}")
        if self.imitate_targets == "values" and self.imitate_from != "expert":
            raise UserError("--imitate-targets values needs --imitate-from expert (only a search values its moves)")
        self._check_expert_answer()
        if self.init and not checkpoint_paths(self.init)[0].is_file():
            raise UserError(f"--init: checkpoint file not found: {self.init}")
        if self.imitate_from == "expert" and not self.init:
            from cardzoo.training.agents.shipped import shipped_model_path

            for n in self.players:  # the expert searches with the shipped model: a one-line error where none is
                shipped_model_path(self.game, n)
        if self.opponent != "rules":
            check_opponent(self.opponent, self.game, self.players, self.variants)
        if self.returns == "deal" and spec.deal_index is None:
            raise UserError(f"--returns deal: {self.game} is not settled deal by deal (it declares no deal_index)")
        self.check_ranges()
        if self.replay < self.minibatch:
            raise UserError(f"--replay {self.replay} is out of range: replay must be >= minibatch ({self.minibatch})")
        self.check_hidden()

    def _check_expert_answer(self) -> None:
        """The expert's answering player, written out (the game's default where none is given) so
        that the run's settings say which teacher it had."""
        from cardzoo.training.agents.expert import ANSWERS, default_answer

        if self.imitate_from != "expert":
            if self.expert_answer:
                raise UserError("--expert-answer needs --imitate-from expert")
            return
        self.expert_answer = self.expert_answer or default_answer(self.game)
        if self.expert_answer not in ANSWERS:
            raise UserError(f"--expert-answer must be one of {', '.join(ANSWERS)}, not {self.expert_answer!r}")


class DMCRun(RunDir):
    ALGORITHM = "Deep Monte-Carlo move ranker (cardzoo; DouZero's method over complete moves)"
    RESUMES_UNSAVED = True  # OUT/warm_start keeps the warm start's finished parts

    def meta(self, name: str, state: RunState, evaluation: dict) -> dict:
        s = self.s
        trust = {"trust": s.trust} if s.trust else {}
        earlier = {"started_from": state.learner["started_from"]} if state.learner.get("started_from") else {}
        who = "rule bots" if s.opponent == "rules" else f"{s.opponent} (frozen)"
        return {**super().meta(name, state, evaluation), **trust, **earlier,
                "opponent_pool": f"{who} in {s.vs_rules:.0%} of matches, self-play otherwise; "
                                 f"epsilon-greedy {s.epsilon}"}


def started_from(path: str) -> dict:
    """What a checkpoint's sidecar says of the ``--init`` checkpoint it continued from: its name,
    weights digest and training, with the totals of everything before it (a chain of ``--init``
    runs), so that a model card can state the training in all."""
    _, meta = load_checkpoint(path)
    before = meta.get("started_from") or {}
    own = {k: meta.get(k, 0) for k in ("training_steps", "training_matches", "training_minutes")}
    return {"path": str(path), "name": meta.get("name", ""), "weights_sha256": meta.get("weights_sha256", ""),
            **own, **{f"total_{k}": round(own[k] + before.get(f"total_{k}", 0), 1 if k == "training_minutes" else None)
                      for k in own}}


def check_opponent(text: str, game: str, players: tuple, variants: dict) -> None:
    """A one-line error unless ``--opponent`` names an agent that plays ``game`` at every count."""
    from cardzoo.training.agents.specs import make_agent, parse_agent_spec

    spec = game_spec(game)
    try:
        agent = parse_agent_spec(text)
        for n in players:
            make_agent(agent, spec.module, spec.raw_env(num_players=n, **variants).config, seed=0)
    except UserError as e:
        raise UserError(f"--opponent {text}: {str(e).splitlines()[0]}") from None


def _eval_init() -> None:
    _die_with_parent()
    torch.set_num_threads(1)


def _evaluate(path: str, game: str, players: tuple, games: int, seed: int, variants: dict) -> dict:
    from cardzoo.training.evaluation.tournament import versus_baselines

    per = max(games // len(players), 10)
    return {n: versus_baselines(path, game, n, per, seed + n, options=variants or None) for n in players}


def start_from(net: MoveRankerNet, path: str, game: str) -> None:
    """Load the weights of the checkpoint ``path`` (``--init``) into ``net``; a one-line error when it
    is not a move ranker of this game with the same layers."""
    loaded, meta = load_checkpoint(path)
    theirs, mine = loaded.state_dict(), net.state_dict()
    if meta.get("game") != game:
        raise UserError(f"--init {path}: a {meta.get('game')} checkpoint, not a {game} one")
    if not isinstance(loaded, MoveRankerNet):
        raise UserError(f"--init {path}: a {meta.get('architecture', 'policy')} network (PPO's or SB3's "
                        f"trainer), not a move ranker; Deep Monte-Carlo starts from a DMC checkpoint")
    if {k: v.shape for k, v in theirs.items()} != {k: v.shape for k, v in mine.items()}:
        raise UserError(f"--init {path}: its layers differ from this run's (it has hidden layers "
                        f"{meta.get('settings', {}).get('hidden')}); give its --hidden and --activation")
    net.load_state_dict(theirs)


def absorb(state: RunState, replay: Replay, rollouts: list) -> None:
    """An iteration's rollouts into the replay buffer and the run's counters (and the running mean
    of the learner's reward in its matches against rule bots)."""
    for r in rollouts:
        replay.add(r.obs, r.rows, r.returns)
    n = sum(len(r.returns) for r in rollouts)
    state.decisions += n
    state.samples += n
    state.moves += sum(r.moves for r in rollouts)
    state.matches += sum(r.played for r in rollouts)
    ema = state.learner["rules_ema"]
    for m in (m for r in rollouts for m in r.matches):
        ema = m["reward"] if ema is None else 0.98 * ema + 0.02 * m["reward"]
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
    for _ in range(steps):
        obs, rows, returns = replay.sample(minibatch, rng)
        loss = torch.nn.functional.mse_loss(net(obs, rows), returns)
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
        optimizer.step()
    return float(loss.detach())


class Learner:
    """The learner's side of a run (DouZero's boundary: the workers get requests — the weights, a
    seed — and send rollouts back; everything else is here): the network, Adam, the replay buffer,
    the run directory and its TensorBoard writer, and the evaluation in flight."""

    def __init__(self, s: DMCSettings, net: MoveRankerNet, run: DMCRun, workers, evaluator, log):
        from torch.utils.tensorboard import SummaryWriter

        self.s, self.net, self.run, self.workers, self.evaluator, self.log = s, net, run, workers, evaluator, log
        self.optimizer = torch.optim.Adam(net.parameters(), lr=s.lr)
        self.replay = Replay(s.replay, net.obs_size, net.move_features)
        self.writer = SummaryWriter(str(run.out / "tb"))
        self.evaluation = None  # (samples, AsyncResult) of the evaluation in flight
        self.versus = "rules" if s.opponent == "rules" else "opponent"  # whose matches rules_ema follows

    # ------------------------------------------------------------------ the run's state
    def start(self, resume: bool) -> RunState:
        """The saved state (``--resume``), or a new one after the warm start (a run stopped in its
        warm start continues from the parts it finished)."""
        s, run = self.s, self.run
        if resume and run.saved():
            state = load_run_state(run.state_dir, self.net, self.optimizer, None)
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
        return state

    def save(self, state: RunState) -> None:
        """At an iteration boundary: the network, Adam, the replay and the collection in flight."""
        self.replay.to_state(state)
        save_run_state(self.run.state_dir, self.net, self.optimizer, None, state)
        state.arrays = {}

    # ------------------------------------------------------------------ collection
    def collection(self, iteration: int) -> dict:
        return {"iteration": iteration,
                "weights": {k: v.detach().numpy().copy() for k, v in self.net.state_dict().items()}}

    def submit(self, c: dict) -> None:
        s, count = self.s, self.workers.count
        per_worker = -(-s.batch // max(s.workers, 1))
        self.workers.submit([DMCRequest(c["weights"], (s.seed, c["iteration"], w), per_worker, s.epsilon, s.vs_rules,
                                        s.returns, s.opponent) for w in range(count)])

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
                n = sum(len(r.returns) for r in rollouts)
                more = state.decisions + n < s.steps and state.wall() < limit
                state.inflight = self.collection(state.iteration + 1) if more else None
                if more:
                    self.submit(state.inflight)
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
        _log_iteration(self.writer, state, rate, loss, steps, t_wait, t_learn, sum(r.decisions for r in rollouts),
                       self.versus)
        log_traffic(self.writer, self.workers, state.decisions)
        bar.update(state.decisions, loss=f"{loss:.3f}", **{f"vs_{self.versus}": f"{ema or 0:+.2f}"},
                   samples_s=f"{rate:,.0f}")

    # ------------------------------------------------------------------ evaluation
    def evaluate_async(self, path: Path, samples: int, seed: int) -> None:
        s = self.s
        self.evaluation = samples, self.evaluator.apply_async(
            _evaluate, (str(path), s.game, s.players, s.eval_games, seed, s.variants))

    def _evaluate_on_the_way(self, state: RunState, more: bool) -> None:
        """Every ``eval_every`` samples a checkpoint is evaluated in the evaluator's process, one at
        a time; a finished evaluation goes on the learning curve."""
        s = self.s
        if self.evaluation is None and state.decisions >= state.next_eval and s.eval_games and more:
            state.next_eval += s.eval_every
            path = self.run.write_checkpoint(self.net, f"step_{state.decisions}", state, {})
            self.evaluate_async(path, state.decisions, s.seed * 1_000_003 + state.decisions)
        if self.evaluation is not None and self.evaluation[1].ready():
            self._record_evaluation(state)

    def _record_evaluation(self, state: RunState) -> None:
        samples, result = self.evaluation
        self.run.record_evaluation(state, self.writer, samples, result.get(), self.log, unit="samples")
        self.evaluation = None

    def finish(self, state: RunState, limit: float) -> Path:
        """The final checkpoint, evaluated (its card's figures) when evaluations are on; the state saved."""
        s, run = self.s, self.run
        if self.evaluation is not None:  # one still running: its point belongs on the curve
            self._record_evaluation(state)
        if state.wall() >= limit:
            self.log(f"--max-minutes {s.max_minutes:g} reached at {state.decisions:,} samples")
        final = run.write_checkpoint(self.net, "final", state, {})
        if s.eval_games:
            result = _evaluate(str(final), s.game, s.players, s.eval_games, s.seed * 1_000_003 + (1 << 30), s.variants)
            run.record_evaluation(state, self.writer, state.decisions, result, self.log, unit="samples")
            final = run.write_checkpoint(self.net, "final", state, {f"{n}p": r for n, r in result.items()})
        self.save(state)
        self.writer.close()
        return final


def train(settings: DMCSettings, resume: bool = False, progress: bool = True, log=print,
          ray: str | None = None) -> Path:
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
    ctx = mp.get_context("spawn")
    with worker_group(s.workers, DMCCollector, collector_args, ray) as workers, \
            (ctx.Pool(1, initializer=_eval_init) if s.eval_games else nullcontext()) as evaluator:  # only when used
        learner = Learner(s, net, run, workers, evaluator, log)
        state = learner.start(resume)
        limit = 60 * s.max_minutes if s.max_minutes else math.inf  # total wall clock, warm start and resumes included
        bar = Progress(s.steps, state.decisions, limit, state.wall, progress, f"dmc {s.game}", "sample")
        try:
            learner.loop(state, limit, bar)
        finally:
            bar.close()
        final = learner.finish(state, limit)
    log(f"final checkpoint: {final}  ({state.decisions:,} samples, {state.matches:,} matches, "
        f"{state.wall() / 60:.1f} min of training)")
    return final


def _log_iteration(writer, state: RunState, rate: float, loss: float, steps: int, t_wait: float, t_learn: float,
                   decisions: int, versus: str) -> None:
    step = state.decisions
    if steps:
        writer.add_scalar("loss/q_mse", loss, step)
    if state.learner["rules_ema"] is not None:
        writer.add_scalar(f"train/reward_vs_{versus}_ema", state.learner["rules_ema"], step)
    writer.add_scalar("speed/samples_per_s", rate, step)
    writer.add_scalar("speed/learner_decisions_per_iteration", decisions, step)
    writer.add_scalar("speed/wait_s", t_wait, step)
    writer.add_scalar("speed/learn_s", t_learn, step)
