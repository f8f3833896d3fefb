"""The PPO trainer's settings (``--algo ppo``): every hyper-parameter, recorded in the run directory
and in each checkpoint, and the one declaration of its flags (``cardzoo.training.common.settings``)."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import ClassVar

from cardzoo.envs.errors import UserError
from cardzoo.envs.registry import game_spec
from cardzoo.training.common.opponents import OPPONENTS_HELP, OPPONENTS_METAVAR, SELFPLAY_HELP, parse_opponents
from cardzoo.training.common.settings import (
    BATCH_HELP,
    MAX_MINUTES_HELP,
    PLAYERS_HELP,
    SEED_RANGE,
    STEPS_HELP,
    WORKERS_HELP,
    DeviceSettings,
    setting,
)


@dataclass
class PPOSettings(DeviceSettings):
    game: str
    players: tuple[int, ...] = setting((), PLAYERS_HELP, metavar="N[,N...]", unset="the game's usual")
    steps: int = setting(1_000_000, "learner decisions (forced moves included) to train for, " + STEPS_HELP)
    out: str = "runs/run"
    seed: int = setting(0, "seed of the whole run")
    workers: int = setting(2, WORKERS_HELP)
    # more matches per worker hold more samples at once: every started match is finished
    matches_per_worker: int = setting(64, "matches played at once per worker", flag="matches")
    batch: int = setting(16_384, BATCH_HELP)
    minibatch: int = setting(4_096, "minibatch size")
    epochs: int = setting(2, "epochs per iteration")
    hidden: tuple[int, ...] = setting((256, 256), "hidden layer widths", metavar="W,W")
    activation: str = setting("relu", "relu or tanh")
    lr: float = setting(3e-4, "learning rate")
    lr_schedule: str = setting("linear", "linear (to 0 at --steps) or constant")
    gamma: float = setting(1.0, "discount (matches are short and rewards zero-sum)")
    gae_lambda: float = setting(0.95, "GAE lambda")
    clip: float = setting(0.2, "PPO clip range")
    ent_coef: float = setting(0.01, "entropy coefficient", flag="ent")
    vf_coef: float = setting(0.5, "value loss weight")
    max_grad_norm: float = setting(0.5, "gradient clipping")
    target_kl: float = setting(0.05, "stop an iteration's epochs early past this approximate KL (0: off)")
    selfplay: float = setting(0.7, SELFPLAY_HELP)
    opponents: dict | str = setting(
        {"snapshot": 0.5, "rules": 0.4, "random": 0.1}, OPPONENTS_HELP, metavar=OPPONENTS_METAVAR, parse=parse_opponents
    )
    snapshot_every: int = setting(200_000, "decisions between frozen snapshots added to the pool")
    max_snapshots: int = setting(8, "snapshots kept in the pool")
    eval_every: int = setting(250_000, "decisions between evaluations (and checkpoints)")
    eval_games: int = setting(100, "games per baseline at each evaluation, split over the player counts (0: none)")
    save_every: float = setting(120.0, "seconds between resumable saves")
    max_minutes: float = setting(0.0, MAX_MINUTES_HELP)
    imitate: int = setting(0, "warm start: clone the rule bot on this many bot-only matches first", metavar="MATCHES")
    critic: str = setting(
        "seat",
        "the value's input: seat (its own observation) or perfect (every seat's, during "
        "training only: PerfectDou's critic; the exported actor sees its seat alone)",
        choices=("seat", "perfect"),
    )
    threads: int = setting(1, "torch threads of the learner")  # more only fight the rollout workers for cores
    variants: dict = field(default_factory=dict)

    NAME: ClassVar[str] = "PPO"
    TITLE: ClassVar[str] = "PPO trainer (--algo ppo): batched self-play PPO"
    # Settings that may differ when a run is resumed (everything else must match).
    RESUMABLE: ClassVar[tuple] = (
        "steps",
        "workers",
        "eval_every",
        "eval_games",
        "save_every",
        "threads",
        "max_minutes",
    )
    RANGES: ClassVar[dict] = {
        **dict.fromkeys(
            (
                "steps",
                "matches_per_worker",
                "batch",
                "minibatch",
                "epochs",
                "snapshot_every",
                "eval_every",
                "max_snapshots",
            ),
            (1, None, "int"),
        ),
        **dict.fromkeys(("workers", "eval_games", "imitate", "threads"), (0, None, "int")),
        "lr": (0, 1, "num"),
        "gamma": (0, 1, "num"),
        "gae_lambda": (0, 1, "num"),
        "clip": (0, 10, "num"),
        "ent_coef": (0, 10, "num"),
        "vf_coef": (0, 100, "num"),
        "max_grad_norm": (0, 1e6, "num"),
        "target_kl": (0, 1e6, "num"),
        "selfplay": (0, 1, "num"),
        "save_every": (0, 1e7, "num"),
        "max_minutes": (0, 1e7, "num"),
        "seed": SEED_RANGE,
    }

    def __post_init__(self):
        from cardzoo.training.agents.policy import ACTIVATIONS
        from cardzoo.training.common.opponents import check_opponents
        from cardzoo.training.ppo.actor_critic import CRITICS

        self.players = self.check_game()
        self.check_ranges()
        self.check_device()
        self.check_hidden()
        if self.lr_schedule not in ("linear", "constant"):
            raise UserError(f"lr_schedule must be linear or constant, got {self.lr_schedule!r}")
        if self.activation not in ACTIVATIONS:
            raise UserError(f"activation must be one of {', '.join(ACTIVATIONS)}, got {self.activation!r}")
        if self.critic not in CRITICS:
            raise UserError(f"critic must be one of {', '.join(CRITICS)}, got {self.critic!r}")
        if self.critic == "perfect" and self.imitate:
            raise UserError("--imitate fits the seat critic: with --critic perfect, start without it (--imitate 0)")
        self.check_variants(self.players)
        check_opponents(self.opponents, self.selfplay, self.game, self.players, self.variants)

    def net_factory(self) -> functools.partial:
        """() -> a fresh ``ActorCritic`` for this run (the perfect critic sized for its most players)."""
        from cardzoo.training.ppo.actor_critic import ActorCritic

        probe = game_spec(self.game).module.raw_env(num_players=self.players[0], **self.variants)
        critic_size = max(self.players) * probe.obs_size if self.critic == "perfect" else 0
        return functools.partial(
            ActorCritic, probe.obs_size, probe.num_actions, self.hidden, self.activation, critic_size
        )

    def collector_args(self) -> tuple:
        return (self.game, self.players, self.variants, self.matches_per_worker, self.net_factory())
