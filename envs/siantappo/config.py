"""Siantappo rule configuration (docs/rules/siantappo.md, variants table 3.5)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from cardzoo.envs.cards import parse_card
from cardzoo.envs.config import ConfigError, check_bool, check_choices, check_int, plain_fields


@dataclass(frozen=True)
class SiantappoConfig:
    num_players: int = 4
    rounds: int = 5  # K rounds per match (T12)
    first_lead_must_include_3c: bool = False  # the first lead of the match must contain the starter card
    starter_card: str = "3♣"  # T6: its holder leads round 1 ("3♣" seed, "3♠" Tiến lên)
    deal: str = "all"  # "all" 52 cards (T3) or "13each" (Tiến lên, n <= 4, remainder aside)
    quad_beats_single_2: bool = False
    long_pair_runs: bool = False  # 4 consecutive pairs beat a 2 or a pair of 2s; 5 also beat three 2s
    siantappo_as_lead: bool = False  # three consecutive pairs also a normal (leading) combination
    bomb_after_pass: bool = False  # a player who passed may still bomb
    swap_second_with: str = "n-1"  # "n-1" (default fix) or "third" (the seed's literal wording)
    swap_choice: bool = False  # the winner (and 2nd) choose which cards to give back (President)
    no_finish_on_2: bool = False  # going out with a play containing a 2 ranks you last
    reward: str = "place"  # "place": (n+1-2*place)/(n-1); "pig": loser -1, others +1/(n-1)
    trick_history: bool = False  # observation: also the trick of every card played this round (3.7)

    # the options that take one of a few values (the command line reads them against these)
    CHOICES: ClassVar[dict[str, tuple]] = {
        "deal": ("all", "13each"),
        "swap_second_with": ("n-1", "third"),
        "reward": ("place", "pig"),
    }

    def __post_init__(self):
        plain_fields(self)  # numpy integers are integers (envs/config.py)
        check_int("num_players", self.num_players, 3, 6)
        check_int("rounds", self.rounds, 1, 1000)
        for flag in (
            "first_lead_must_include_3c",
            "quad_beats_single_2",
            "long_pair_runs",
            "siantappo_as_lead",
            "bomb_after_pass",
            "swap_choice",
            "no_finish_on_2",
            "trick_history",
        ):
            check_bool(flag, getattr(self, flag))
        check_choices(self)
        if self.deal == "13each" and self.num_players > 4:
            raise ConfigError(f"deal='13each' needs num_players <= 4, got {self.num_players}")
        try:
            starter = parse_card(str(self.starter_card))
        except ValueError:
            raise ConfigError(f"starter_card must be one of '3♣', '3♠', got {self.starter_card!r}") from None
        if starter not in (parse_card("3c"), parse_card("3s")):
            raise ConfigError(f"starter_card must be one of '3♣', '3♠', got {self.starter_card!r}")


# Sample values of every variant (the variants table of docs/siantappo.md), for fuzzing and tools.
VARIANT_CHOICES = {
    "rounds": (1, 2, 3),
    "first_lead_must_include_3c": (False, True),
    "starter_card": ("3♣", "3♠"),
    "deal": ("all", "13each"),
    "quad_beats_single_2": (False, True),
    "long_pair_runs": (False, True),
    "siantappo_as_lead": (False, True),
    "bomb_after_pass": (False, True),
    "swap_second_with": ("n-1", "third"),
    "swap_choice": (False, True),
    "no_finish_on_2": (False, True),
    "reward": ("place", "pig"),
    "trick_history": (False, True),
}
