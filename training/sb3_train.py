"""Self-play training with sb3-contrib's MaskablePPO (`cardzoo train --algo sb3`), exporting safe checkpoints.

    from training.sb3_train import TrainSettings, train
    train(TrainSettings(game="siantappo", players=4, steps=200_000, out="runs/siantappo"))

A run directory holds ``settings.json``, ``model.zip`` (the SB3 state, to resume), ``pool/``
(opponent snapshots as safetensors), ``tb/`` (TensorBoard logs: losses, mean reward and win rate
against each baseline), ``checkpoints/step_N.*`` and ``final.*`` (safetensors + JSON sidecar).
"""

from __future__ import annotations

from envs.errors import UserError

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch

from envs.config import config_dict
from envs.registry import PLAYER_COUNTS, game_module
from training.checkpoint import atomic_write_text, load_checkpoint, save_checkpoint
from training.policy import MaskedPolicyNet, from_sb3_state_dict
from training.selfplay import OpponentPool, SelfPlayEnv


@dataclass
class TrainSettings:
    game: str
    players: int | None = None
    steps: int = 200_000  # learner decisions (environment steps of the single-agent view)
    out: str = "runs/run"
    seed: int = 0
    envs: int = 4  # parallel episodes (DummyVecEnv)
    hidden: tuple[int, ...] = (256, 256)
    learning_rate: float = 3e-4
    ent_coef: float = 0.01
    opponents: dict = field(default_factory=lambda: {"rules": 0.4, "random": 0.1, "snapshot": 0.5})
    n_steps: int = 512  # per env per PPO update
    batch_size: int = 256
    snapshot_every: int = 25_000
    eval_every: int = 25_000
    eval_games: int = 60
    imitation_matches: int = 0  # warm start: clone the rule bot on this many bot-vs-bot matches
    value_warmup: int = 0  # steps at the start during which only the value net learns (actor frozen)
    variants: dict = field(default_factory=dict)

    def __post_init__(self):
        module = game_module(self.game)
        self.game = module.GAME
        if self.players is None:
            from envs.registry import DEFAULT_PLAYERS
            self.players = DEFAULT_PLAYERS[self.game]
        if self.players not in PLAYER_COUNTS[self.game]:
            raise UserError(f"players must be one of {PLAYER_COUNTS[self.game]} for {self.game}, got {self.players}")
        for name in ("steps", "envs", "n_steps", "batch_size", "snapshot_every", "eval_every"):
            if int(getattr(self, name)) < 1:
                raise UserError(f"{name} must be >= 1, got {getattr(self, name)}")
        if not self.opponents or set(self.opponents) - {"rules", "random", "snapshot"} or \
                any(float(w) < 0 for w in self.opponents.values()) or not sum(self.opponents.values()):
            raise UserError(f"opponents must weight rules, random and/or snapshot (>= 0, not all 0), "
                             f"got {self.opponents}")
        if self.opponents.get("snapshot", 0) and not (self.opponents.get("rules") or self.opponents.get("random")):
            raise UserError("opponents need rules or random besides snapshot (there is no snapshot at first)")
        for name in ("learning_rate", "ent_coef"):
            if float(getattr(self, name)) < 0:
                raise UserError(f"{name} must be >= 0, got {getattr(self, name)}")
        for name in ("eval_games", "imitation_matches", "value_warmup"):
            if int(getattr(self, name)) < 0:
                raise UserError(f"{name} must be >= 0, got {getattr(self, name)}")
        self.hidden = tuple(int(h) for h in self.hidden)
        # validates the variants (ValueError naming the field)
        module.raw_env(num_players=self.players, **self.variants)

    def env_kwargs(self) -> dict:
        return {"num_players": self.players, **self.variants}


def _actor(model, obs_size: int, num_actions: int, hidden) -> MaskedPolicyNet:
    net = MaskedPolicyNet(obs_size, num_actions, list(hidden))
    net.load_state_dict(from_sb3_state_dict(model.policy.state_dict()))
    net.eval()
    return net


def export(model, settings: TrainSettings, path, probe, evaluation: dict | None = None) -> Path:
    net = _actor(model, probe.obs_size, probe.num_actions, settings.hidden)
    meta = {
        "name": Path(path).stem,
        "game": settings.game,
        "env": probe.metadata["name"],
        "config": config_dict(probe.config),
        "player_counts": [settings.players],
        "hidden": list(settings.hidden),
        "activation": "tanh",
        "training_steps": int(model.num_timesteps),
        "algorithm": "MaskablePPO self-play (sb3-contrib)",
        "opponent_pool": "rule bot, random, frozen snapshots",
        "seed": settings.seed,
        "evaluation": evaluation or {},
    }
    return save_checkpoint(path, net, meta)


def _rng_json(rng) -> list:
    version, internal, gauss = rng.getstate()
    return [version, list(internal), gauss]


def _rng_state(data) -> tuple:
    return (data[0], tuple(data[1]), data[2])


def evaluate_checkpoint(path, settings: TrainSettings, games: int, seed: int) -> dict:
    """Mean reward and win rate (with 95% intervals) of a checkpoint against rules and random."""
    from training.evaluation.tournament import versus_baselines

    return versus_baselines(str(path), settings.game, settings.players, games, seed,
                            options=settings.variants or None)


def check_run_dir(out: Path, settings: TrainSettings, resume: bool) -> None:
    """A new run needs an empty --out; a resumed one the same game and every setting that shapes it."""
    model_path = out / "model.zip"
    if resume and not model_path.is_file():
        raise UserError(f"nothing to resume: {model_path} does not exist")
    if not resume and model_path.exists():
        raise UserError(f"{out} already holds a run; use --resume to continue it or another --out")
    if not resume:
        return
    saved = json.loads((out / "settings.json").read_text())
    if saved["game"] != settings.game or saved["players"] != settings.players:
        raise UserError(f"{out} holds a {saved['game']} {saved['players']}-player run")
    mine = asdict(settings)
    for key in ("hidden", "variants", "learning_rate", "ent_coef", "seed", "envs", "n_steps", "batch_size",
                "opponents", "imitation_matches", "value_warmup"):
        want, had = mine[key], saved.get(key)
        if key == "hidden":
            want, had = list(want), list(had or [])
        if want != had:
            flag = {"learning_rate": "lr", "ent_coef": "ent", "imitation_matches": "imitate",
                    "variants": "option"}.get(key, key).replace("_", "-")
            raise UserError(f"--{flag} {want} differs from the run's {had}: it cannot change on --resume "
                            f"(drop the flag, or start a new run with another --out)")


def reload_pool(pool: OpponentPool, pool_dir: Path) -> None:
    """The run's snapshots, oldest first by step number (text order would put snapshot_9836 after
    snapshot_30316), so the pool keeps the same newest ones as before the resume."""
    for f in sorted(pool_dir.glob("snapshot_*.safetensors"), key=lambda f: int(f.stem.split("_")[1])):
        pool.add_snapshot(load_checkpoint(f)[0])


def train(settings: TrainSettings, resume: bool = False, progress: bool = True, log=print) -> Path:
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import DummyVecEnv

    out = Path(settings.out)
    model_path = out / "model.zip"
    check_run_dir(out, settings, resume)
    out.mkdir(parents=True, exist_ok=True)
    (out / "settings.json").write_text(json.dumps(asdict(settings), indent=2) + "\n")
    torch.manual_seed(settings.seed)
    # Batches here are small (a few observations per step, 256 per update): one thread is
    # about 3x faster than two fighting over a 2-core machine.
    torch.set_num_threads(1)
    module = game_module(settings.game)
    probe = module.raw_env(**settings.env_kwargs())
    pool = OpponentPool(settings.game, probe.config, weights=dict(settings.opponents), seed=settings.seed)
    pool_dir = out / "pool"
    if resume:
        reload_pool(pool, pool_dir)

    def make(i):
        return lambda: SelfPlayEnv(settings.game, settings.env_kwargs(), pool, seed=settings.seed * 1000 + i)

    vec = DummyVecEnv([make(i) for i in range(settings.envs)])
    streams_path = out / "streams.json"

    def save_run() -> None:
        """model.zip and the random streams, each written to a temporary file and renamed."""
        tmp = out / "model.tmp.zip"
        model.save(tmp)
        os.replace(tmp, model_path)
        streams = {"pool": _rng_json(pool.rng), "envs": [_rng_json(e._rng) for e in vec.envs]}
        atomic_write_text(streams_path, json.dumps(streams) + "\n")

    if resume:
        # SB3's model.zip is unpickled here: --resume trusts the run directory (see --help).
        model = MaskablePPO.load(model_path, env=vec, tensorboard_log=str(out / "tb"))
        if streams_path.is_file():  # continue the episode and opponent streams where they were
            streams = json.loads(streams_path.read_text())
            pool.rng.setstate(_rng_state(streams["pool"]))
            for e, st in zip(vec.envs, streams["envs"]):
                e._rng.setstate(_rng_state(st))
        log(f"resuming {out} at step {model.num_timesteps}")
    else:
        model = MaskablePPO(
            "MlpPolicy", vec, learning_rate=settings.learning_rate, n_steps=settings.n_steps,
            batch_size=settings.batch_size, gamma=0.995, ent_coef=settings.ent_coef, seed=settings.seed, verbose=0,
            tensorboard_log=str(out / "tb"),
            policy_kwargs=dict(net_arch=dict(pi=list(settings.hidden), vf=list(settings.hidden))),
        )
        if settings.imitation_matches:
            from training.imitation import clone_rule_bot

            accuracy = clone_rule_bot(model.policy, settings.game, settings.env_kwargs(),
                                      settings.imitation_matches, seed=settings.seed, log=log)
            log(f"warm start: the policy picks the rule bot's move {accuracy:.0%} of the time")

    actor = [p for name, p in model.policy.named_parameters()
             if name.startswith(("mlp_extractor.policy_net", "action_net"))]
    frozen = model.num_timesteps < settings.value_warmup
    if frozen:
        # A cloned actor next to an untrained critic gets noisy advantages that undo the cloning;
        # let the critic learn the cloned policy's values first.
        for p in actor:
            p.requires_grad_(False)
        log(f"value warm-up: the actor stays frozen for the first {settings.value_warmup} steps")

    class Periodic(BaseCallback):
        def __init__(self):
            super().__init__()
            self.next_snapshot = model.num_timesteps + settings.snapshot_every
            self.next_eval = model.num_timesteps + settings.eval_every

        def _on_step(self) -> bool:
            nonlocal frozen
            t = self.model.num_timesteps
            if frozen and t >= settings.value_warmup:
                frozen = False
                for p in actor:
                    p.requires_grad_(True)
            if t >= self.next_snapshot:
                self.next_snapshot += settings.snapshot_every
                path = export(self.model, settings, pool_dir / f"snapshot_{t}", probe)
                pool.add_snapshot(load_checkpoint(path)[0])
            if t >= self.next_eval:
                self.next_eval += settings.eval_every
                self._evaluate(t)
                self.save_due = True
            return True

        def _on_rollout_start(self) -> None:
            # Save between rollouts: the model has then learned from every step it collected,
            # so a resume loses no rollout.
            if getattr(self, "save_due", False):
                self.save_due = False
                save_run()

        def _evaluate(self, t: int) -> None:
            path = export(self.model, settings, out / "checkpoints" / f"step_{t}", probe)
            if settings.eval_games:
                result = evaluate_checkpoint(path, settings, settings.eval_games, settings.seed + t)
                for base, r in result.items():
                    self.logger.record(f"eval/mean_reward_vs_{base}", r["mean_reward"])
                    self.logger.record(f"eval/win_rate_vs_{base}", r["win_rate"])
                log(f"step {t}: vs rules {result['rules']['mean_reward']:+.3f} "
                    f"(win {result['rules']['win_rate']:.0%}), vs random {result['random']['mean_reward']:+.3f} "
                    f"(win {result['random']['win_rate']:.0%})")

    remaining = settings.steps - model.num_timesteps
    if remaining > 0:
        try:
            model.learn(total_timesteps=remaining, callback=Periodic(), reset_num_timesteps=not resume,
                        progress_bar=progress, tb_log_name="ppo")
        except KeyboardInterrupt:
            log("interrupted: saving the run so it can be resumed with --resume")
            save_run()
            raise
    save_run()
    evaluation = {}
    final = export(model, settings, out / "final", probe)
    if settings.eval_games:
        evaluation = evaluate_checkpoint(final, settings, settings.eval_games, settings.seed + 1)
        export(model, settings, out / "final", probe, evaluation)
    log(f"final checkpoint: {final}  (steps {model.num_timesteps})")
    for base, r in evaluation.items():
        log(f"  vs {base}: mean reward {r['mean_reward']:+.3f}, win rate {r['win_rate']:.0%} over {r['games']} games")
    return final


