"""The SB3 trainer's settings (``--algo sb3``: sb3-contrib's MaskablePPO on one seat), the one
declaration of its flags (``cardzoo.training.common.settings``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from cardzoo.training.common.flags import one_count
from cardzoo.training.common.opponents import OPPONENTS_METAVAR, check_opponents, parse_opponents
from cardzoo.training.common.settings import SEED_RANGE, DeviceSettings, setting


@dataclass
class SB3Settings(DeviceSettings):
    game: str
    players: int | None = setting(None, "player count", metavar="N", parse=one_count, unset="the game's usual")
    steps: int = setting(200_000, "learner decisions (environment steps of the one-seat view) to train for")
    out: str = "runs/run"
    seed: int = setting(0, "seed of the whole run")
    envs: int = setting(4, "tables played together (cardzoo.vector), one match each")
    hidden: tuple[int, ...] = (256, 256)
    learning_rate: float = setting(3e-4, "learning rate", flag="lr")
    ent_coef: float = setting(0.01, "entropy coefficient", flag="ent")
    opponents: dict | str = setting(
        {"rules": 0.4, "random": 0.1, "snapshot": 0.5},
        "who plays the other seats, one drawn per episode: KIND=WEIGHT,... of snapshot "
        "(the learner's frozen snapshots), rules, random (fixed weights)",
        metavar=OPPONENTS_METAVAR,
        parse=parse_opponents,
    )
    n_steps: int = 512  # per env per PPO update
    batch_size: int = 256
    snapshot_every: int = 0  # steps between snapshots into the pool; 0: at each evaluation (eval_every)
    eval_every: int = setting(25_000, "steps between evaluations, checkpoints and opponent pool snapshots")
    eval_games: int = setting(60, "games per baseline at each evaluation (0: none)")
    imitation_matches: int = setting(
        0, "warm start: clone the rule bot on this many bot-only matches first", flag="imitate", metavar="MATCHES"
    )
    value_warmup: int = setting(
        0,
        "steps at the start that train only the value net, the actor frozen (useful after --imitate)",
        metavar="STEPS",
    )
    variants: dict = field(default_factory=dict)

    NAME: ClassVar[str] = "SB3"
    TITLE: ClassVar[str] = "SB3 trainer (--algo sb3): sb3-contrib's MaskablePPO on one seat"
    RESUMABLE: ClassVar[tuple] = ("steps", "eval_every", "eval_games", "snapshot_every")
    RANGES: ClassVar[dict] = {
        **dict.fromkeys(("steps", "envs", "n_steps", "batch_size", "eval_every"), (1, None, "int")),
        **dict.fromkeys(("eval_games", "imitation_matches", "value_warmup", "snapshot_every"), (0, None, "int")),
        "learning_rate": (0, None, "num"),
        "ent_coef": (0, None, "num"),
        "seed": SEED_RANGE,
    }

    def __post_init__(self):
        (self.players,) = self.check_game()[:1]
        self.check_ranges()
        self.check_device()
        self.check_hidden()
        self.check_variants([self.players])
        check_opponents(self.opponents, 0.0, self.game, (self.players,), self.variants, agents=False)

    def env_kwargs(self) -> dict:
        return {"num_players": self.players, **self.variants}

    def snapshot_period(self) -> int:
        return self.snapshot_every or self.eval_every
