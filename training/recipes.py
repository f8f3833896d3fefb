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


_DMC_FIRST = {"imitate": 400, "vs_rules": 0.6, "reuse": 1.0, "max_minutes": 14.0, "eval_every": 2_000_000,
              "eval_games": 100}

RECIPES: dict[str, Recipe] = {
    "siantappo": Recipe("dmc", {**_DMC_FIRST, "steps": 5_000_000},
                        "a move ranker warm-started on the rule bot's choices, then Deep Monte-Carlo"),
    "suipi": Recipe("dmc", {**_DMC_FIRST, "steps": 3_000_000},
                    "a move ranker over complete moves: a policy over Suipi's sub-steps must get several "
                    "choices right in a row"),
    "samsip": Recipe("dmc", {**_DMC_FIRST, "steps": 2_000_000, "imitate": 800, "imitate_from": "teacher",
                             "returns": "deal"},
                     "warm-started on the lookahead teacher (the rule bot guesses where it counts the "
                     "odds), returns to the end of each hand"),
}


def recipe(game: str) -> Recipe:
    return RECIPES.get(game, Recipe("ppo", {}, "the batched PPO trainer (no recipe of its own)"))
