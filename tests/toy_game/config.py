"""High card's rule options."""

from __future__ import annotations

from dataclasses import dataclass

from cardzoo.envs.config import check_int

HAND = 3  # cards dealt to each player


@dataclass(frozen=True)
class HighCardConfig:
    num_players: int = 2

    def __post_init__(self):
        check_int("num_players", self.num_players, 2, 4)
