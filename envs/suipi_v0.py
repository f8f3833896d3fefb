"""Suipi (Samoan Casino) as a PettingZoo AEC environment: ``env()`` / ``raw_env()``.

See docs/suipi.md for the rules as implemented, the action and observation tables, the
stacked-deck order and the move notation, and docs/rules/suipi.md for the numbered rules (S1-S18).
Render modes: ``ansi`` (text, every hand), ``human`` (printed), ``rgb_array`` (the table as a
spectator sees it, a (720, 960, 3) uint8 picture).
"""

from cardzoo.envs.base import make_env_fns
from cardzoo.envs.suipi.bot import RuleBot
from cardzoo.envs.suipi.chance import SuipiChance
from cardzoo.envs.suipi.config import VARIANT_CHOICES, SuipiConfig
from cardzoo.envs.suipi.engine import random_match, teams
from cardzoo.envs.suipi.env import SuipiEnv

env, raw_env = make_env_fns(SuipiEnv)
Config = SuipiConfig
GAME = "suipi"
PLAYER_COUNTS = (2, 4)  # the engine also plays 3 individual players (num_players=3)
DEFAULT_PLAYERS = 2
WIN_RULE = "the side with the higher cumulative reward (ties split)"
WHOLE_MOVES = "cardzoo.envs.suipi.whole_moves:WholeMoves"
CHANCE = SuipiChance  # what chance does in a match, card by card (luck-adjusted evaluation)

__all__ = [
    "env",
    "raw_env",
    "Config",
    "SuipiConfig",
    "SuipiEnv",
    "RuleBot",
    "random_match",
    "GAME",
    "teams",
    "PLAYER_COUNTS",
    "DEFAULT_PLAYERS",
    "WIN_RULE",
    "WHOLE_MOVES",
    "CHANCE",
    "VARIANT_CHOICES",
]
