"""Deep Monte-Carlo training of a move ranker (DouZero's method), for every game with a move reader.

Read top to bottom:

1. Warm start: rule bots (or the game's teacher, ``--imitate-from teacher``) play every seat;
   the ranker learns to put the bot's complete move first
   among the candidates (cross-entropy over the candidates' Q) while the chosen move's Q is fitted
   to the seat's Monte-Carlo return.
2. Worker processes play whole matches with the current weights, epsilon-greedy over complete
   moves, part against rule bots and part in self-play; every real choice of a learner seat is a
   sample (observation, move row, return to the end of the match).
3. The learner regresses Q(observation, move) on those returns (mean squared error) from a replay
   buffer of recent samples, sending fresh weights with every new task.
4. Evaluation against the rule bot and random runs as a worker task (duplicate deals, greedy), so
   it does not stall learning (the warm-started network is evaluated too, at 0 samples); the
   state (network, Adam, counters) is saved atomically every ``save_every`` seconds and
   ``--resume`` continues from it (the replay buffer refills).

Run directory layout as every trainer's (``cardzoo.training.common.run_dir``).
"""

from __future__ import annotations

import math
import multiprocessing as mp
import time
from dataclasses import dataclass, field
from typing import ClassVar
from pathlib import Path

import numpy as np
import torch

from cardzoo.envs.errors import UserError
from cardzoo.envs.registry import game_spec
from cardzoo.training.dmc.play import PlayTask, imitation_task, play
from cardzoo.training.agents.ranker import MoveRankerNet, whole_moves_reader
from cardzoo.training.common.run_dir import RunDir, RunState, load_run_state, save_run_state
from cardzoo.training.common.settings import TrainerSettings
from cardzoo.training.common.workers import _die_with_parent


@dataclass
class DMCSettings(TrainerSettings):
    game: str
    players: tuple = ()
    steps: int = 2_000_000  # learner samples (real choices) to train on
    out: str = "runs/dmc"
    seed: int = 0
    workers: int = 2
    matches_per_task: int = 8
    hidden: tuple = (256, 256)
    activation: str = "relu"
    lr: float = 1e-4
    minibatch: int = 1024
    replay: int = 100_000  # samples kept for learning
    reuse: float = 2.0  # times each sample is learned on, on average
    epsilon: float = 0.05
    vs_rules: float = 0.5
    returns: str = "match"  # "deal": a choice's return ends with its deal (games settled deal by deal)
    imitate: int = 400  # bot-only matches of the warm start (0: none)
    imitate_from: str = "rules"  # whose moves the warm start imitates: "rules" or the game's "teacher"
    imitate_epochs: int = 6
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
        **{name: (1, None, "int") for name in ("steps", "workers", "matches_per_task", "minibatch", "eval_every",
                                               "threads")},
        **{name: (0, None, "int") for name in ("imitate", "eval_games")},
        "lr": (1e-12, 1, "num"), "reuse": (1e-9, None, "num"), "epsilon": (0, 1, "num"),
        "vs_rules": (0, 1, "num"), "save_every": (1e-9, None, "num"), "max_minutes": (0, None, "num"),
    }

    def __post_init__(self):
        self.players = self.check_game()
        spec = game_spec(self.game)
        whole_moves_reader(self.game)  # a one-line error for games without complete-move features
        if self.returns not in ("match", "deal"):
            raise UserError(f"--returns must be match or deal, not {self.returns!r}")
        if self.imitate_from not in ("rules", "teacher"):
            raise UserError(f"--imitate-from must be rules or teacher, not {self.imitate_from!r}")
        if self.imitate_from == "teacher" and spec.teacher is None:
            raise UserError(f"--imitate-from teacher: {self.game} declares no TEACHER player")
        if self.returns == "deal" and spec.deal_index is None:
            raise UserError(f"--returns deal: {self.game} is not settled deal by deal (it declares no deal_index)")
        self.check_ranges()
        if self.replay < self.minibatch:
            raise UserError(f"--replay {self.replay} is out of range: replay must be >= minibatch ({self.minibatch})")
        self.hidden = tuple(int(h) for h in self.hidden)
        if not self.hidden or min(self.hidden) < 1:
            raise UserError(f"--hidden {self.hidden} is out of range: layer widths must be >= 1")


class DMCRun(RunDir):
    ALGORITHM = "Deep Monte-Carlo move ranker (cardzoo; DouZero's method over complete moves)"

    def meta(self, name: str, state: RunState, evaluation: dict) -> dict:
        s = self.s
        return {**super().meta(name, state, evaluation),
                "opponent_pool": f"rule bots in {s.vs_rules:.0%} of matches, self-play otherwise; "
                                 f"epsilon-greedy {s.epsilon}"}


def _worker_init() -> None:
    _die_with_parent()
    torch.set_num_threads(1)


def _evaluate(path: str, game: str, players: tuple, games: int, seed: int, variants: dict) -> dict:
    from cardzoo.training.evaluation.tournament import versus_baselines

    per = max(games // len(players), 10)
    return {n: versus_baselines(path, game, n, per, seed + n, options=variants or None) for n in players}


def warm_start(net, settings: DMCSettings, pool, log) -> None:
    """Fit the ranker to the rule bot's (or teacher's) choices (ranking) and their returns (values)."""
    s = settings
    parts = min(s.imitate, 4 * s.workers)  # exactly s.imitate matches, spread over the workers
    chunks = [(s.game, s.players, s.variants, s.imitate // parts + (i < s.imitate % parts), s.seed * 7919 + i,
               s.returns, s.imitate_from) for i in range(parts)]
    samples = [x for part in pool.starmap(imitation_task, chunks) for x in part]
    who = "rule bot" if s.imitate_from == "rules" else "teacher"
    log(f"warm start: {len(samples):,} {who.replace(' ', '-')} choices from {sum(c[3] for c in chunks)} matches")
    rng = np.random.default_rng(s.seed)
    optimizer = torch.optim.Adam(net.parameters(), lr=3e-4)
    for epoch in range(s.imitate_epochs):
        order = rng.permutation(len(samples))
        hits = 0
        for start in range(0, len(order), 256):
            batch = [samples[i] for i in order[start:start + 256]]
            sizes = torch.as_tensor([len(b[1]) for b in batch])
            obs = torch.as_tensor(np.stack([b[0] for b in batch]))
            q_flat = net(obs.repeat_interleave(sizes, dim=0), torch.as_tensor(np.concatenate([b[1] for b in batch])))
            # candidates of each decision side by side, padded with -inf: one softmax per decision
            row_of = torch.repeat_interleave(torch.arange(len(batch)), sizes)
            col_of = torch.arange(len(q_flat)) - torch.repeat_interleave(torch.cumsum(sizes, 0) - sizes, sizes)
            q = torch.full((len(batch), int(sizes.max())), float("-inf"))
            q = q.index_put((row_of, col_of), q_flat)
            chosen = torch.as_tensor([b[2] for b in batch])
            returns = torch.as_tensor([b[3] for b in batch], dtype=torch.float32)
            chosen_q = q[torch.arange(len(batch)), chosen]
            loss = (torch.nn.functional.cross_entropy(q / 0.1, chosen)
                    + torch.nn.functional.mse_loss(chosen_q, returns))
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            optimizer.step()
            hits += int((q.argmax(dim=1) == chosen).sum())
        log(f"warm start epoch {epoch + 1}/{s.imitate_epochs}: picks the {who}'s move {hits / len(samples):.0%}")


class Replay:
    """The most recent ``capacity`` samples, as preallocated arrays."""

    def __init__(self, capacity: int, obs_size: int, row_size: int):
        self.obs = np.zeros((capacity, obs_size), np.float32)
        self.rows = np.zeros((capacity, row_size), np.float32)
        self.returns = np.zeros(capacity, np.float32)
        self.size = self.next = 0

    def add(self, obs: np.ndarray, rows: np.ndarray, returns: np.ndarray) -> None:
        capacity = len(self.returns)
        obs, rows, returns = obs[-capacity:], rows[-capacity:], returns[-capacity:]  # only the newest fit
        idx = (self.next + np.arange(len(returns))) % capacity
        self.obs[idx], self.rows[idx], self.returns[idx] = obs, rows, returns
        self.next = int((self.next + len(returns)) % capacity)
        self.size = min(self.size + len(returns), capacity)

    def sample(self, n: int, rng) -> tuple:
        idx = rng.integers(self.size, size=n)
        return (torch.from_numpy(self.obs[idx]), torch.from_numpy(self.rows[idx]),
                torch.from_numpy(self.returns[idx]))


def train(settings: DMCSettings, resume: bool = False, progress: bool = True, log=print) -> Path:
    from torch.utils.tensorboard import SummaryWriter
    from tqdm import tqdm

    s = settings
    torch.manual_seed(s.seed)
    torch.set_num_threads(s.threads)
    run = DMCRun(Path(s.out), s, resume)
    run.reader = whole_moves_reader(s.game, run.probe.config)
    net_args = (run.probe.obs_size, run.reader.feature_size, list(s.hidden), s.activation, run.probe.num_actions)
    net = MoveRankerNet(*net_args)
    optimizer = torch.optim.Adam(net.parameters(), lr=s.lr)
    writer = SummaryWriter(str(run.out / "tb"))
    rng = np.random.default_rng(s.seed)
    ctx = mp.get_context("spawn")
    with ctx.Pool(s.workers, initializer=_worker_init) as pool:
        evaluation = None  # (decisions, AsyncResult)
        if resume:
            state = load_run_state(run.state_dir, net, optimizer, None)
            log(f"resuming {run.out} at {state.decisions:,} samples")
        else:
            state = RunState(next_eval=s.eval_every)
            if s.imitate:
                warm_start(net, s, pool, log)
                path = run.write_checkpoint(net, "imitation", state, {})
                if s.eval_games:  # the learning curve starts where the warm start left the network
                    evaluation = (0, pool.apply_async(
                        _evaluate, (str(path), s.game, s.players, s.eval_games, s.seed * 1_000_003, s.variants)))
        replay = Replay(s.replay, net_args[0], net_args[1])
        rules_ema = None
        pending: list = []
        last_save = time.monotonic()
        limit = 60 * s.max_minutes if s.max_minutes else math.inf  # total wall clock, warm start and resumes included
        bar = tqdm(total=s.steps, initial=state.decisions, unit="dec", disable=not progress, desc=f"dmc {s.game}")
        learned = 0.0  # samples' worth of learning owed by the arrivals so far

        def submit() -> None:
            weights = {k: v.numpy().copy() for k, v in net.state_dict().items()}
            task = PlayTask(s.game, s.players, s.variants, tuple(net_args), weights, s.matches_per_task,
                            int(rng.integers(2**63 - 1)), s.epsilon, s.vs_rules, s.returns)
            pending.append(pool.apply_async(play, (task,)))

        while len(pending) < 2 * s.workers:
            submit()
        while state.decisions < s.steps and state.wall() < limit:
            ready = [p for p in pending if p.ready()]
            if not ready and replay.size < s.minibatch:
                pending[0].wait(1.0)
                continue
            for p in ready:
                pending.remove(p)
                out = p.get()
                replay.add(out["obs"], out["rows"], out["returns"])
                n = len(out["returns"])
                state.decisions += n
                state.samples += n
                state.matches += s.matches_per_task
                learned += n * s.reuse
                bar.update(n)
                for r in out["results"]:
                    rules_ema = r["reward"] if rules_ema is None else 0.98 * rules_ema + 0.02 * r["reward"]
                submit()
            if replay.size >= s.minibatch and learned >= s.minibatch:
                obs, rows, returns = replay.sample(s.minibatch, rng)
                loss = torch.nn.functional.mse_loss(net(obs, rows), returns)
                optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
                optimizer.step()
                learned -= s.minibatch
                state.iteration += 1
                if state.iteration % 50 == 0:
                    writer.add_scalar("loss/q_mse", loss.item(), state.decisions)
                    if rules_ema is not None:
                        writer.add_scalar("train/reward_vs_rules_ema", rules_ema, state.decisions)
                    bar.set_postfix(loss=f"{loss.item():.3f}", vs_rules=f"{rules_ema or 0:+.2f}")
            elif not ready:
                pending[0].wait(0.2)
            if evaluation is None and state.decisions >= state.next_eval and s.eval_games:
                state.next_eval += s.eval_every
                path = run.write_checkpoint(net, f"step_{state.decisions}", state, {})
                evaluation = (state.decisions, pool.apply_async(
                    _evaluate, (str(path), s.game, s.players, s.eval_games, s.seed * 1_000_003 + state.decisions,
                                s.variants)))
            if evaluation is not None and evaluation[1].ready():
                run.record_evaluation(state, writer, evaluation[0], evaluation[1].get(), log, unit="samples")
                evaluation = None
            if time.monotonic() - last_save > s.save_every:
                save_run_state(run.state_dir, net, optimizer, None, state)
                last_save = time.monotonic()
        bar.close()
        if evaluation is not None:  # one still running: its point belongs on the curve
            run.record_evaluation(state, writer, evaluation[0], evaluation[1].get(), log, unit="samples")
        if state.wall() >= limit:
            log(f"--max-minutes {s.max_minutes:g} reached at {state.decisions:,} samples")
        save_run_state(run.state_dir, net, optimizer, None, state)
        final = run.write_checkpoint(net, "final", state, {})
        result = {}
        if s.eval_games:
            result = _evaluate(str(final), s.game, s.players, s.eval_games, s.seed * 1_000_003 + (1 << 30), s.variants)
            run.record_evaluation(state, writer, state.decisions, result, log, unit="samples")
            final = run.write_checkpoint(net, "final", state, {f"{n}p": r for n, r in result.items()})
    writer.close()
    log(f"final checkpoint: {final}  ({state.decisions:,} samples, {state.matches:,} matches, "
        f"{state.wall() / 60:.1f} min of training)")
    return final
