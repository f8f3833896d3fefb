"""The default training route of each game: what ``cardzoo train GAME`` runs when no ``--algo`` is
given, and what ``cardzoo demo`` runs in miniature.

Each recipe names a trainer and the settings it starts from; flags given on the command line win
over them. They are chosen to give, on 2 cores within 15 minutes of wall clock (warm start and
evaluations included), a checkpoint that beats the game's rule bot at its default player count;
docs/training.md ("Your first model") says why each is what it is and what it measured.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Recipe:
    algo: str  # "dmc" or "ppo"
    settings: dict = field(default_factory=dict)  # the trainer's settings fields
    why: str = ""


# Bounded by wall clock, not by samples: 13 minutes of training (warm start included) leave room for
# the process start and the final evaluation within 15. The sample count therefore depends on the
# machine; give --steps N --max-minutes 0 for a run that reproduces sample for sample.
_DMC_FIRST = {
    "steps": 50_000_000,
    "max_minutes": 13.0,
    "imitate": 400,
    "selfplay": 0.4,
    "reuse": 1.0,
    "eval_every": 1_000_000,
    "eval_games": 100,
}

RECIPES: dict[str, Recipe] = {
    "siantappo": Recipe(
        "dmc",
        {**_DMC_FIRST, "eval_every": 2_000_000},
        "a move ranker warm-started on the rule bot's choices, then Deep Monte-Carlo: "
        "every move is one action described by what it does to the hand",
    ),
    "suipi": Recipe(
        "dmc",
        dict(_DMC_FIRST),
        "a move ranker over complete moves: a policy over Suipi's sub-steps must get several choices right in a row",
    ),
    "samsip": Recipe(
        "dmc",
        {**_DMC_FIRST, "imitate": 800, "imitate_from": "teacher", "returns": "deal", "lr": 3e-5, "epsilon": 0.03},
        "warm-started on the lookahead teacher (the rule bot guesses where it counts the "
        "odds), returns to the end of each hand, small steps that keep close to the teacher",
    ),
}


def recipe(game: str) -> Recipe:
    return RECIPES.get(game, Recipe("ppo", {}, "the batched PPO trainer (no recipe of its own)"))
