"""The games cardzoo ships, by name, imported on demand."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType

GAME_MODULES = {
    "siantappo": "envs.siantappo_v0",
    "suipi": "envs.suipi_v0",
    "samsip": "envs.samsip_v0",
}
# Player counts each game supports, and the default
PLAYER_COUNTS = {"siantappo": (3, 4, 5, 6), "suipi": (2, 4), "samsip": (2, 3, 4, 5, 6)}
DEFAULT_PLAYERS = {"siantappo": 4, "suipi": 2, "samsip": 4}


def game_module(name: str) -> ModuleType:
    """The ``envs.<game>_v0`` module; ValueError naming the known games otherwise."""
    key = name.lower().replace("-", "").replace("_", "").replace(" ", "")
    key = {"samsip": "samsip", "suipi": "suipi", "siantappo": "siantappo"}.get(key.removesuffix("v0"), key)
    if key not in GAME_MODULES:
        raise ValueError(f"unknown game {name!r}; games are: {', '.join(GAME_MODULES)}")
    return importlib.import_module(GAME_MODULES[key])


@dataclass(frozen=True)
class GameSpec:
    """A game's facts, as its ``envs.<game>_v0`` module declares them.

    A module may define ``teams(num_players) -> list[list[int]]`` (default: every seat alone) and
    ``match_scores(env, totals) -> list[float]`` (higher is better; default: the match's summed
    rewards per seat); tools use these instead of branching on the game's name.
    """

    name: str
    module: ModuleType

    @property
    def player_counts(self) -> tuple[int, ...]:
        return PLAYER_COUNTS[self.name]

    @property
    def default_players(self) -> int:
        return DEFAULT_PLAYERS[self.name]

    def teams(self, num_players: int) -> list[list[int]]:
        """Seats that share their results (they win or lose together)."""
        declared = getattr(self.module, "teams", None)
        return declared(num_players) if declared else [[s] for s in range(num_players)]

    def match_scores(self, env, totals) -> list[float]:
        """Per seat, how well the finished match went (higher is better; equal = tied)."""
        declared = getattr(self.module, "match_scores", None)
        return declared(env, totals) if declared else [float(t) for t in totals]

    def final_ranking(self, env, totals) -> list[float]:
        """1 = best; tied seats share the average of their places."""
        scores = self.match_scores(env, totals)
        return [1 + sum(o > x for o in scores) + (sum(o == x for o in scores) - 1) / 2 for x in scores]


def game_spec(name: str) -> GameSpec:
    module = game_module(name)
    return GameSpec(module.GAME, module)
