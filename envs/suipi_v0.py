"""Suipi (Samoan Casino) as a PettingZoo AEC environment: ``env()`` / ``raw_env()``.

See docs/suipi.md for the rules as implemented, the action and observation tables, the
stacked-deck order and the move notation.
"""

from envs.base import make_env_fns
from envs.suipi.bot import RuleBot
from envs.suipi.engine import SuipiConfig, random_match
from envs.suipi.env import SuipiEnv

env, raw_env = make_env_fns(SuipiEnv)
Config = SuipiConfig
GAME = "suipi"


def teams(num_players: int) -> list[list[int]]:
    """4 players play as two sides of partners sitting opposite (seats 0+2 and 1+3)."""
    sides = SuipiConfig(num_players=num_players).num_sides
    return [list(range(side, num_players, sides)) for side in range(sides)]

__all__ = ["env", "raw_env", "Config", "SuipiConfig", "SuipiEnv", "RuleBot", "random_match", "GAME", "teams"]
