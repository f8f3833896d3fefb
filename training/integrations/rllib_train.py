"""Multi-agent PPO on Ray RLlib, exported to a cardzoo checkpoint.

    cardzoo train siantappo --algo rllib --players 4 --iterations 50 --out runs/rllib-s4
    cardzoo train samsip --algo rllib --players 5 --address ray://head:10001 --env-runners 16

One policy (``shared``) plays every seat, with RLlib's action-masking PPO module (so it never
picks an illegal action). A run directory holds ``settings.json``, ``tb/`` (TensorBoard: returns,
losses, throughput, final evaluation), ``progress.jsonl`` (the same numbers, one line per
iteration), ``rllib_checkpoint/`` (RLlib's own state, to continue with
RLlib) and ``final.safetensors`` + ``final.json`` — a cardzoo checkpoint that ``cardzoo eval``
and ``cardzoo play`` take as an agent. Before it is written, the exported network is played
against RLlib's own greedy choice on full matches and must agree on every decision.

Needs ``pip install -e ".[rllib]"`` (see docs/integrations.md: Ray pins its own gymnasium, so
``make integrations-venv`` builds a separate ``.venv-integrations``). Ray is imported only when a
run starts, so ``--help`` and bad input work without it.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import ClassVar

from cardzoo.envs.errors import UserError
from cardzoo.envs.registry import game_module
from cardzoo.training.common.flags import one_count
from cardzoo.training.common.settings import SEED_RANGE, TrainerSettings, setting

POLICY_ID = "shared"
ACTIVATION = "tanh"
INSTALL_HINT = (
    'RLlib is not installed: pip install -e ".[rllib]" (or `make integrations-venv` and use '
    ".venv-integrations/bin/python); see docs/integrations.md"
)


@dataclass
class RLlibSettings(TrainerSettings):
    game: str
    players: int | None = setting(None, "player count", metavar="N", parse=one_count, unset="the game's usual")
    address: str = setting("local", "local (start Ray here) or a Ray address (ray://host:10001, auto)")
    env_runners: int = setting(1, "RLlib env runners collecting episodes (0: sample in the driver)")
    iterations: int = setting(20, "RLlib PPO iterations")
    out: str | None = None
    seed: int = setting(0, "seed of the whole run")
    hidden: tuple[int, ...] = (256, 256)
    learning_rate: float = setting(3e-4, "learning rate", flag="lr")
    gamma: float = 0.995
    entropy: float = setting(0.01, "entropy coefficient", flag="ent")
    batch: int = setting(4000, "decisions per PPO iteration (minibatches of 256, fewer when the batch is smaller)")
    minibatch: int = 256
    epochs: int = 4
    eval_games: int = setting(60, "games per baseline (rules, random) at the end (0: none)")
    verify_matches: int = 2  # full matches on which the export must match RLlib's choice
    num_cpus: int | None = setting(None, "CPUs of a local Ray", unset="env runners + 1")
    variants: dict = field(default_factory=dict)

    NAME: ClassVar[str] = "RLlib"
    TITLE: ClassVar[str] = (
        "RLlib on Ray (--algo rllib): multi-agent PPO; pip install -e '.[rllib]', see docs/integrations.md"
    )
    RANGES: ClassVar[dict] = {
        **dict.fromkeys(("env_runners", "eval_games", "verify_matches"), (0, None, "int")),
        **dict.fromkeys(("iterations", "batch", "minibatch", "epochs"), (1, None, "int")),
        "seed": SEED_RANGE,
    }

    def __post_init__(self):
        (self.players,) = self.check_game()[:1]
        self.check_ranges()
        if self.minibatch > self.batch:
            raise UserError(f"minibatch ({self.minibatch}) must not exceed batch ({self.batch})")
        if self.num_cpus is not None and self.num_cpus < 1:
            raise UserError(f"num_cpus must be >= 1, got {self.num_cpus}")
        if not self.address:
            raise UserError("address must be 'local' or a Ray address such as ray://host:10001")
        self.check_hidden()
        if self.out is None:
            self.out = f"runs/rllib-{self.game}-{self.players}p"
        self.check_variants([self.players])

    @classmethod
    def from_flags(cls, values: dict) -> dict:
        """``--batch`` sizes the minibatches too: 256, fewer when the batch is smaller."""
        if "batch" in values:
            values = {**values, "minibatch": min(256, values["batch"]) if values["batch"] > 0 else 256}
        return values

    def env_config(self) -> dict:
        """What RLlib passes to the env constructor (the game comes from the registered name)."""
        return {"players": self.players, **self.variants}


def _shared_policy(agent_id, episode, **kwargs) -> str:
    return POLICY_ID


# RLlib drops an env runner's sample that takes longer than this (its default, 60 s, lets an iteration
# on a busy machine sample nothing at all); ours wait for it.
SAMPLE_TIMEOUT_S = 600.0


def ppo_config(settings: RLlibSettings):
    """The RLlib ``PPOConfig``: one shared action-masking policy for every seat."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    from cardzoo.training.integrations.rllib_env import register_env

    model = {
        "fcnet_hiddens": list(settings.hidden),
        "fcnet_activation": ACTIVATION,
        "head_fcnet_hiddens": [],
        "vf_share_layers": False,
    }  # export needs exactly this shape
    return (
        PPOConfig()
        .api_stack(enable_rl_module_and_learner=True, enable_env_runner_and_connector_v2=True)
        .environment(register_env(settings.game), env_config=settings.env_config())
        .multi_agent(policies={POLICY_ID}, policy_mapping_fn=_shared_policy)
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={POLICY_ID: RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config=model)}
            )
        )
        .env_runners(num_env_runners=settings.env_runners, num_envs_per_env_runner=1, sample_timeout_s=SAMPLE_TIMEOUT_S)
        .training(
            lr=settings.learning_rate,
            gamma=settings.gamma,
            entropy_coeff=settings.entropy,
            train_batch_size_per_learner=settings.batch,
            minibatch_size=settings.minibatch,
            num_epochs=settings.epochs,
        )
        .debugging(seed=settings.seed, log_level="ERROR")
    )


def start_ray(address: str, env_runners: int, num_cpus: int | None = None) -> None:
    """Local Ray sized for the run, or a connection to a cluster that gets our code shipped."""
    import ray

    if ray.is_initialized():
        return
    if address == "local":  # a Ray of its own, whatever cluster RAY_ADDRESS or `ray start` left on this machine
        ray.init(
            address="local",
            num_cpus=num_cpus or env_runners + 1,
            include_dashboard=False,
            log_to_driver=False,
            logging_level=logging.ERROR,
        )
        return
    import os

    import cardzoo
    import cardzoo.envs

    # The cluster's Python has the libraries (pip install cardzoo[rllib] there) but maybe not this
    # version of cardzoo: ship the package with the job so workers build the same envs. An
    # editable checkout maps the repository's folders into the package, so there the cluster
    # needs the same checkout installed (pip install -e .) and nothing is shipped.
    whole = os.path.dirname(cardzoo.envs.__file__) == os.path.join(os.path.dirname(cardzoo.__file__), "envs")
    ray.init(address=address, runtime_env={"py_modules": [cardzoo]} if whole else None, log_to_driver=False)


def scalars(result: dict) -> dict[str, float]:
    """The numbers from one ``algo.train()`` result that go to TensorBoard, by tag."""
    runners, learner = result.get("env_runners", {}), result.get("learners", {}).get(POLICY_ID, {})
    out = {
        "rollout/episode_return_sum_mean": runners.get("episode_return_mean"),  # 0 for a zero-sum game
        "rollout/episode_len_mean": runners.get("episode_len_mean"),
        "rollout/episodes": runners.get("num_episodes_lifetime"),
        "train/policy_loss": learner.get("policy_loss"),
        "train/vf_loss": learner.get("vf_loss"),
        "train/entropy": learner.get("entropy"),
        "train/kl": learner.get("mean_kl_loss"),
        "train/vf_explained_var": learner.get("vf_explained_var"),
        "time/iteration_s": result.get("time_this_iter_s"),
    }
    for agent, value in runners.get("agent_episode_returns_mean", {}).items():
        out[f"rollout/return_mean/{agent}"] = value
    return {k: float(v) for k, v in out.items() if isinstance(v, (int, float))}


def env_steps(result: dict) -> int:
    return int(
        result.get("env_runners", {}).get("num_env_steps_sampled_lifetime")
        or result.get("num_env_steps_sampled_lifetime")
        or 0
    )


def export(algo, settings: RLlibSettings, path: Path, steps: int, evaluation: dict | None = None) -> Path:
    """Write the shared policy as a cardzoo checkpoint (safetensors + JSON sidecar)."""
    from cardzoo.envs.config import config_dict
    from cardzoo.training.agents.checkpoint import save_checkpoint
    from cardzoo.training.integrations.rllib_export import policy_net_from_rllib

    net = policy_net_from_rllib(algo.get_module(POLICY_ID).state_dict(), ACTIVATION)
    probe = game_module(settings.game).raw_env(num_players=settings.players, **settings.variants)
    meta = {
        "name": path.stem,
        "game": settings.game,
        "env": probe.metadata["name"],
        "config": config_dict(probe.config),
        "player_counts": [settings.players],
        "hidden": list(settings.hidden),
        "activation": ACTIVATION,
        "training_steps": steps,
        "algorithm": "RLlib multi-agent PPO, one shared policy with action masking (Ray RLlib)",
        "opponent_pool": "self-play: the shared policy plays every seat",
        "seed": settings.seed,
        "evaluation": evaluation or {},
    }
    return save_checkpoint(path, net, meta)


def verify_export(algo, weights: Path, settings: RLlibSettings) -> int:
    """Play full matches with RLlib's choice; the exported checkpoint must agree on every decision."""
    from cardzoo.training.agents.networks import load_checkpoint
    from cardzoo.training.integrations.rllib_export import play_and_compare

    net, _ = load_checkpoint(weights)
    decisions, differ = play_and_compare(
        algo.get_module(POLICY_ID),
        net,
        {"game": settings.game, **settings.env_config()},
        settings.verify_matches,
        settings.seed,
    )
    if differ:
        raise RuntimeError(
            f"export check failed: the checkpoint differs from RLlib's choice on {differ} of {decisions} decisions"
        )
    return decisions


def check_out_dir(settings: RLlibSettings) -> None:
    """A finished run is never overwritten (ValueError naming the directory)."""
    assert settings.out is not None, "RLlibSettings.__post_init__ sets out"
    if (Path(settings.out) / "final.json").exists():
        raise UserError(f"{settings.out} already holds a finished run; choose another --out")


def train_rllib(settings: RLlibSettings, log=print) -> Path:
    """Run PPO for ``settings.iterations`` iterations; returns the final checkpoint's weights path."""
    from torch.utils.tensorboard import SummaryWriter

    check_out_dir(settings)
    assert settings.out is not None and settings.players is not None, "RLlibSettings.__post_init__ sets both"
    out = Path(settings.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "settings.json").write_text(json.dumps(asdict(settings), indent=2) + "\n")
    start_ray(settings.address, settings.env_runners, settings.num_cpus)
    algo = ppo_config(settings).build_algo()
    writer = SummaryWriter(str(out / "tb" / "rllib_ppo"))
    progress = (out / "progress.jsonl").open("a")
    try:
        steps = 0
        for i in range(1, settings.iterations + 1):
            result = algo.train()
            before, steps = steps, env_steps(result)
            if steps == before:
                log(f"iteration {i}: no decisions sampled (no env runner answered within {SAMPLE_TIMEOUT_S:.0f} s)")
            values = scalars(result)
            for tag, value in values.items():
                writer.add_scalar(tag, value, steps)
            progress.write(json.dumps({"iteration": i, "decisions": steps, **values}) + "\n")
            progress.flush()
            log(
                f"iteration {i}/{settings.iterations}: {steps} decisions, "
                f"episode length {values.get('rollout/episode_len_mean', float('nan')):.0f}, "
                f"{values.get('time/iteration_s', float('nan')):.1f} s"
            )
        if steps == 0:
            raise UserError(
                f"RLlib sampled no decisions in {settings.iterations} iterations (its env runners "
                f"never answered within {SAMPLE_TIMEOUT_S:.0f} s); nothing was exported"
            )
        algo.save_to_path(str((out / "rllib_checkpoint").resolve()))
        final = export(algo, settings, out / "final", steps)
        checked = verify_export(algo, final, settings)
        log(
            f"export checked: the checkpoint makes RLlib's choice on all {checked} decisions "
            f"of {settings.verify_matches} matches"
        )
        if settings.eval_games:
            from cardzoo.training.evaluation.tournament import versus_baselines

            evaluation = versus_baselines(
                str(final),
                settings.game,
                settings.players,
                settings.eval_games,
                settings.seed,
                options=settings.variants or None,
            )
            final = export(algo, settings, out / "final", steps, evaluation)
            for baseline, r in evaluation.items():
                writer.add_scalar(f"eval/{baseline}_mean_reward", r["mean_reward"], steps)
                writer.add_scalar(f"eval/{baseline}_win_rate", r["win_rate"], steps)
                log(
                    f"vs {baseline}: mean reward {r['mean_reward']:+.3f}, win rate {r['win_rate']:.1%} "
                    f"({r['games']} games)"
                )
        log(f"checkpoint: {final}")
        return final
    finally:
        progress.close()
        writer.close()
        algo.stop()


def rllib_train_speed(game: str, players: int, decisions: int, env_runners: int) -> float:
    """Training throughput of RLlib PPO on local Ray, in decisions (env steps) per second.

    Iterations of ``decisions`` env steps (at most 4000 each) are run until ``decisions`` steps
    are sampled and learned; start-up (Ray, actors) is not counted. Ray is started here if it is
    not running (``env_runners + 1`` CPUs) and shut down again if it was started here.
    """
    import ray

    settings = RLlibSettings(
        game=game,
        players=players,
        env_runners=env_runners,
        iterations=1,
        batch=min(int(decisions), 4000),
        minibatch=min(256, int(decisions)),
        epochs=4,
        eval_games=0,
        verify_matches=0,
        out="unused",
    )
    started = not ray.is_initialized()
    try:  # Ray is shut down even when RLlib fails to load or build (its extras not installed)
        start_ray("local", env_runners)
        algo = ppo_config(settings).build_algo()
        try:
            t0, sampled = time.perf_counter(), 0
            while sampled < decisions:
                sampled = env_steps(algo.train())
            return sampled / (time.perf_counter() - t0)
        finally:
            algo.stop()
    finally:
        if started:
            ray.shutdown()
