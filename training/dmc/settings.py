"""The Deep Monte-Carlo trainer's settings (``--algo dmc``, and the games' recipes), the one
declaration of its flags (``cardzoo.training.common.settings``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from cardzoo.envs.errors import UserError
from cardzoo.envs.registry import game_spec
from cardzoo.training.common.opponents import (
    OPPONENTS_HELP,
    OPPONENTS_METAVAR,
    SELFPLAY_HELP,
    check_opponents,
    parse_opponents,
)
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
class DMCSettings(DeviceSettings):
    game: str
    players: tuple = setting((), PLAYERS_HELP, metavar="N[,N...]", unset="the game's usual")
    steps: int = setting(2_000_000, "learner samples (real choices) to train on, " + STEPS_HELP)
    out: str = "runs/dmc"
    seed: int = setting(0, "seed of the whole run")
    workers: int = setting(2, WORKERS_HELP)
    matches_per_worker: int = setting(32, "matches played at once per worker", flag="matches")
    batch: int = setting(8192, BATCH_HELP)
    hidden: tuple = setting((256, 256), "hidden layer widths", metavar="W,W")
    activation: str = setting("relu", "relu or tanh")
    lr: float = setting(1e-4, "learning rate")
    minibatch: int = setting(1024, "minibatch size")
    replay: int = setting(100_000, "recent samples kept for learning")
    reuse: float = setting(2.0, "times each sample is learned on, on average")
    epsilon: float = setting(0.05, "exploration: share of random complete moves")
    selfplay: float = setting(0.5, SELFPLAY_HELP)
    opponents: dict | str = setting("rules", OPPONENTS_HELP, metavar=OPPONENTS_METAVAR, parse=parse_opponents)
    returns: str = setting(
        "match",
        "a choice's return runs to the match's end (match) or to its deal's end "
        "(deal: games settled deal by deal, samsip)",
        choices=("match", "deal"),
    )
    imitate: int = setting(
        400, "warm start: bot-only matches whose moves the network learns first (0: none)", metavar="MATCHES"
    )
    imitate_from: str = setting(
        "rules",
        "whose moves the --imitate warm start copies: the rule bot, the game's "
        "stronger teacher player (samsip: its lookahead player), or the expert "
        "(search over the --init checkpoint, else the shipped model: expert "
        "iteration)",
        choices=("rules", "teacher", "expert"),
    )
    imitate_targets: str = setting(
        "choice",
        "what the warm start fits: the imitated player's choice, or with "
        "--imitate-from expert the search's value of every move it searched",
        choices=("choice", "values"),
    )
    init: str = setting(
        "",
        "start the network from this checkpoint's weights (same --hidden/--activation; the "
        "expert searches with it), e.g. a shipped model to improve on",
        metavar="CKPT",
    )
    expert_answer: str = setting(
        "",
        "with --imitate-from expert, who plays the other seats in the search's "
        "sampled deals: the game's scripted player or the model searched with",
        choices=("scripted", "model"),
        unset="the game's own",
    )
    imitate_epochs: int = 6
    trust: float = setting(
        0.0,
        "trust margin written into the checkpoints: keep to the rule bot's move unless "
        "another move's Q is higher by more than this (0: none; as `cardzoo model trust`)",
    )
    eval_every: int = setting(500_000, "samples between evaluations (and checkpoints)")
    eval_games: int = setting(200, "games per baseline at each evaluation, split over the player counts (0: none)")
    save_every: float = setting(120.0, "seconds between resumable saves")
    max_minutes: float = setting(0.0, MAX_MINUTES_HELP)
    threads: int = setting(1, "torch threads of the learner")
    variants: dict = field(default_factory=dict)

    NAME: ClassVar[str] = "DMC"
    TITLE: ClassVar[str] = "Deep Monte-Carlo move ranker (--algo dmc, the recipes' trainer; DouZero-style)"
    RESUMABLE: ClassVar[tuple] = (
        "steps",
        "workers",
        "eval_every",
        "eval_games",
        "save_every",
        "max_minutes",
        "threads",
    )
    RENAMED: ClassVar[dict] = {  # the flags and fields before the trainers shared --selfplay and --opponents
        "vs_rules": ("selfplay", lambda share: 1 - float(share), "--vs-rules X is --selfplay 1-X"),
        "opponent": ("opponents", str, "--opponent AGENT is --opponents AGENT"),
    }
    RANGES: ClassVar[dict] = {
        **dict.fromkeys(
            ("steps", "matches_per_worker", "batch", "minibatch", "eval_every", "threads"), (1, None, "int")
        ),
        **dict.fromkeys(("workers", "imitate", "eval_games"), (0, None, "int")),
        "lr": (1e-12, 1, "num"),
        "reuse": (1e-9, None, "num"),
        "epsilon": (0, 1, "num"),
        "selfplay": (0, 1, "num"),
        "save_every": (1e-9, None, "num"),
        "max_minutes": (0, None, "num"),
        "trust": (0, 100, "num"),
        "seed": SEED_RANGE,
    }

    def __post_init__(self):
        from cardzoo.training.agents.checkpoint import checkpoint_paths
        from cardzoo.training.agents.net_agents import whole_moves_reader
        from cardzoo.training.common.imitation import IMITATED

        self.players = self.check_game()
        spec = game_spec(self.game)
        whole_moves_reader(self.game)  # a one-line error for games without complete-move features
        if self.returns not in ("match", "deal"):
            raise UserError(f"--returns must be match or deal, not {self.returns!r}")
        if self.imitate_from not in IMITATED:
            raise UserError(f"--imitate-from must be one of {', '.join(IMITATED)}, not {self.imitate_from!r}")
        if self.imitate_from == "teacher" and spec.teacher is None:
            raise UserError(
                f"--imitate-from teacher: {self.game} has no teacher (no scripted player stronger than "
                f"its rule bot); imitate rules or expert"
            )
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
        if self.returns == "deal" and spec.deal_index is None:
            raise UserError(f"--returns deal: {self.game} is not settled deal by deal (it declares no deal_index)")
        self.check_ranges()
        self.check_device()
        check_opponents(self.opponents, self.selfplay, self.game, self.players, self.variants, snapshots=False)
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
