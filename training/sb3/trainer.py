"""Self-play training with sb3-contrib's MaskablePPO (`cardzoo train --algo sb3`), exporting safe checkpoints.

    from cardzoo.training.sb3.trainer import SB3Settings, train
    train(SB3Settings(game="siantappo", players=4, steps=200_000, out="runs/siantappo"))

A run directory (``cardzoo.training.sb3.run.SB3Run``) holds ``settings.json``, ``model.zip`` (the SB3
state, to resume) and ``streams.json``, ``pool/`` (opponent snapshots as safetensors), ``tb/``
(TensorBoard logs: losses, mean reward and win rate against each baseline), ``checkpoints/step_N.*``
and ``final.*`` (safetensors + JSON sidecar).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch

from cardzoo.training.agents.checkpoint import atomic_write_text
from cardzoo.training.agents.networks import load_checkpoint
from cardzoo.training.agents.policy import MaskedPolicyNet, from_sb3_state_dict
from cardzoo.training.common.evaluator import Evaluator
from cardzoo.training.common.opponents import OpponentPool
from cardzoo.training.common.run_dir import RunState
from cardzoo.training.common.settings import read_json
from cardzoo.training.sb3.run import SB3Run
from cardzoo.training.sb3.settings import SB3Settings

if TYPE_CHECKING:
    from cardzoo.training.sb3.vec_env import PoolTables, SB3Tables


def _actor(model, probe, hidden) -> MaskedPolicyNet:
    net = MaskedPolicyNet(probe.obs_size, probe.num_actions, list(hidden))
    net.load_state_dict(from_sb3_state_dict(model.policy.state_dict()))
    net.eval()
    return net


def export(model, run: _Run, name: str, evaluation: dict | None = None) -> Path:
    """The actor as the checkpoint ``name`` of the run (``final``, ``step_N``)."""
    net = _actor(model, run.run_dir.probe, run.settings.hidden)
    return run.run_dir.write_checkpoint(net, name, RunState(decisions=model.num_timesteps), evaluation or {})


def snapshot(model, run: _Run) -> Path:
    """The actor frozen into the opponent pool (``pool/snapshot_N``)."""
    net = _actor(model, run.run_dir.probe, run.settings.hidden)
    sid = run.run_dir.save_snapshot(net, RunState(decisions=model.num_timesteps))
    return run.run_dir.pool_dir / sid


MAX_STREAM_JSON = 1 << 14  # bytes of streams.json per random stream (Python's: 625 words)


def _rng_json(rng) -> list:
    version, internal, gauss = rng.getstate()
    return [version, list(internal), gauss]


def _rng_state(data) -> tuple:
    return (data[0], tuple(data[1]), data[2])


def reload_pool(pool: OpponentPool, pool_dir: Path) -> None:
    """The run's snapshots, oldest first by step number (text order would put snapshot_9836 after
    snapshot_30316), so the pool keeps the same newest ones as before the resume."""
    for f in sorted(pool_dir.glob("snapshot_*.safetensors"), key=lambda f: int(f.stem.split("_")[1])):
        pool.add_snapshot(load_checkpoint(f)[0])


@dataclass
class _Run:
    """What the pieces of one training run share."""

    settings: SB3Settings
    run_dir: SB3Run
    pool: OpponentPool
    vec: SB3Tables  # the tables the learner plays at (cardzoo.vector), as an SB3 VecEnv
    tables: PoolTables  # the same tables: their streams of sides and deals are saved with the run
    evaluator: Evaluator
    log: Callable[[str], None]

    def evaluate(self, path: Path, seed: int) -> dict:
        """Mean reward and win rate (with 95% intervals) of a checkpoint against rules and random."""
        return self.evaluator(path, {self.settings.players: seed})[self.settings.players]

    @property
    def out(self) -> Path:
        return self.run_dir.out


def start_run(settings: SB3Settings, resume: bool, log) -> _Run:
    """Check and prepare the run directory, seed torch, and set up the opponent pool and the tables."""
    from cardzoo.training.sb3.vec_env import PoolTables, SB3Tables  # imports SB3: only when training

    run_dir = SB3Run(Path(settings.out), settings, resume)  # checks the directory; refuses changed settings
    torch.manual_seed(settings.seed)
    # Batches here are small (a few observations per step, 256 per update): more threads only
    # fight the environments for the cores.
    torch.set_num_threads(1)
    assert isinstance(settings.opponents, dict)  # SB3Settings.check refuses a single agent
    pool = OpponentPool(settings.game, run_dir.probe.config, weights=dict(settings.opponents), seed=settings.seed)
    if resume:
        reload_pool(pool, run_dir.pool_dir)
    seeds = [settings.seed * 1000 + i for i in range(settings.envs)]
    tables = PoolTables(settings.game, settings.envs, settings.env_kwargs(), pool, seeds)
    evaluator = Evaluator(settings.game, settings.eval_games, settings.variants)
    return _Run(settings, run_dir, pool, SB3Tables(tables), tables, evaluator, log)


def build_or_resume_model(run: _Run, resume: bool):
    """The run's MaskablePPO: loaded from model.zip (with its random streams) on resume, else a new one,
    warm-started by cloning the rule bot when the settings ask for it."""
    from sb3_contrib import MaskablePPO

    settings, out = run.settings, run.out
    if resume:
        # SB3's model.zip is unpickled here: --resume trusts the run directory (see --help).
        model = MaskablePPO.load(
            out / "model.zip", env=run.vec, tensorboard_log=str(out / "tb"), device=settings.torch_device()
        )
        streams_path = out / "streams.json"
        if streams_path.is_file():  # continue the episode and opponent streams where they were
            streams = read_json(streams_path, limit=(settings.envs + 1) * MAX_STREAM_JSON)
            run.pool.rng.setstate(_rng_state(streams["pool"]))
            for rng, st in zip(run.tables.rngs, streams["envs"]):
                rng.setstate(_rng_state(st))
        run.log(f"resuming {out} at step {model.num_timesteps}")
        return model
    model = MaskablePPO(
        "MlpPolicy",
        run.vec,
        learning_rate=settings.learning_rate,
        n_steps=settings.n_steps,
        batch_size=settings.batch_size,
        gamma=0.995,
        ent_coef=settings.ent_coef,
        seed=settings.seed,
        verbose=0,
        tensorboard_log=str(out / "tb"),
        device=settings.torch_device(),
        policy_kwargs=dict(net_arch=dict(pi=list(settings.hidden), vf=list(settings.hidden))),
    )
    if settings.imitation_matches:
        from cardzoo.training.sb3.warm_start import clone_rule_bot

        accuracy = clone_rule_bot(
            model.policy,
            settings.game,
            settings.env_kwargs(),
            settings.imitation_matches,
            seed=settings.seed,
            log=run.log,
        )
        run.log(f"warm start: the policy picks the rule bot's move {accuracy:.0%} of the time")
    return model


def save_run(run: _Run, model) -> None:
    """model.zip and the random streams, each written to a temporary file and renamed."""
    tmp = run.out / "model.tmp.zip"
    model.save(tmp)
    os.replace(tmp, run.out / "model.zip")
    streams = {"pool": _rng_json(run.pool.rng), "envs": [_rng_json(rng) for rng in run.tables.rngs]}
    atomic_write_text(run.out / "streams.json", json.dumps(streams) + "\n")


def set_actor_trainable(model, trainable: bool) -> None:
    """Freeze or unfreeze the policy head (its MLP and action net); the value net always learns."""
    for name, p in model.policy.named_parameters():
        if name.startswith(("mlp_extractor.policy_net", "action_net")):
            p.requires_grad_(trainable)


def start_value_warmup(run: _Run, model) -> bool:
    """Freeze the actor if the run is still inside its value warm-up; True if it did."""
    if model.num_timesteps >= run.settings.value_warmup:
        return False
    # A cloned actor next to an untrained critic gets noisy advantages that undo the cloning;
    # let the critic learn the cloned policy's values first.
    set_actor_trainable(model, False)
    run.log(f"value warm-up: the actor stays frozen for the first {run.settings.value_warmup} steps")
    return True


class _PeriodicHooks:
    """During learning: end the value warm-up, snapshot into the pool, evaluate, and save the run.

    SB3's BaseCallback is mixed in by ``periodic_callback`` on first use, so importing this module
    does not import SB3; ``self.model`` and ``self.logger`` come from it."""

    model: Any
    logger: Any

    def __init__(self, run: _Run, model, frozen: bool):
        super().__init__()
        self.run, self.frozen, self.save_due = run, frozen, False
        self.next_snapshot = model.num_timesteps + run.settings.snapshot_period()
        self.next_eval = model.num_timesteps + run.settings.eval_every

    def _on_step(self) -> bool:
        settings, t = self.run.settings, self.model.num_timesteps
        if self.frozen and t >= settings.value_warmup:
            self.frozen = False
            set_actor_trainable(self.model, True)
        if t >= self.next_snapshot:
            self.next_snapshot += settings.snapshot_period()
            self.run.pool.add_snapshot(load_checkpoint(snapshot(self.model, self.run))[0])
        if t >= self.next_eval:
            self.next_eval += settings.eval_every
            self._evaluate(t)
            self.save_due = True
        return True

    def _on_rollout_start(self) -> None:
        # Save between rollouts: the model has then learned from every step it collected,
        # so a resume loses no rollout.
        if self.save_due:
            self.save_due = False
            save_run(self.run, self.model)

    def _evaluate(self, t: int) -> None:
        settings = self.run.settings
        path = export(self.model, self.run, f"step_{t}")
        if settings.eval_games:
            result = self.run.evaluate(path, settings.seed + t)
            for base, r in result.items():
                self.logger.record(f"eval/mean_reward_vs_{base}", r["mean_reward"])
                self.logger.record(f"eval/win_rate_vs_{base}", r["win_rate"])
            self.run.log(
                f"step {t}: vs rules {result['rules']['mean_reward']:+.3f} "
                f"(win {result['rules']['win_rate']:.0%}), vs random {result['random']['mean_reward']:+.3f} "
                f"(win {result['random']['win_rate']:.0%})"
            )


@cache
def _periodic_class() -> type:
    from stable_baselines3.common.callbacks import BaseCallback

    class Periodic(_PeriodicHooks, BaseCallback):
        pass

    return Periodic


def periodic_callback(run: _Run, model, frozen: bool):
    """The BaseCallback that runs ``_PeriodicHooks`` during ``model.learn``."""
    return _periodic_class()(run, model, frozen)


def finish_run(run: _Run, model) -> Path:
    """Save the run, export final.* (with its evaluation when eval_games > 0) and log the result."""
    settings = run.settings
    save_run(run, model)
    evaluation = {}
    final = export(model, run, "final")
    if settings.eval_games:
        evaluation = run.evaluate(final, settings.seed + 1)
        export(model, run, "final", evaluation)
    run.log(f"final checkpoint: {final}  (steps {model.num_timesteps})")
    for base, r in evaluation.items():
        run.log(
            f"  vs {base}: mean reward {r['mean_reward']:+.3f}, win rate {r['win_rate']:.0%} over {r['games']} games"
        )
    return final


def train(settings: SB3Settings, resume: bool = False, progress: bool = True, log=print) -> Path:
    """Train (or, with resume, continue) the run in settings.out and return its final checkpoint.

    The run is saved after each evaluation (between rollouts), at the end, and on Ctrl-C, which
    is then re-raised."""
    run = start_run(settings, resume, log)
    model = build_or_resume_model(run, resume)
    frozen = start_value_warmup(run, model)
    remaining = settings.steps - model.num_timesteps
    if remaining > 0:
        try:
            model.learn(
                total_timesteps=remaining,
                callback=periodic_callback(run, model, frozen),
                reset_num_timesteps=not resume,
                progress_bar=progress,
                tb_log_name="ppo",
            )
        except KeyboardInterrupt:
            log("interrupted: saving the run so it can be resumed with --resume")
            save_run(run, model)
            raise
    return finish_run(run, model)
