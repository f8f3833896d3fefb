"""Siantappo, the "pig slaughter" climbing game, as a PettingZoo AEC environment.

    from cardzoo.envs import siantappo_v0
    env = siantappo_v0.env(num_players=4, rounds=5, render_mode="ansi")

Render modes: ``ansi`` (text, every hand), ``human`` (printed), ``rgb_array`` (the table as a
spectator sees it, a (720, 960, 3) uint8 picture).

See docs/siantappo.md for rules as implemented, the action table and the observation table, and
docs/rules/siantappo.md for the numbered rules (T1-T12).
"""

from cardzoo.envs.base import make_env_fns
from cardzoo.envs.siantappo.bot import RuleBot
from cardzoo.envs.siantappo.chance import SiantappoChance
from cardzoo.envs.siantappo.config import VARIANT_CHOICES
from cardzoo.envs.siantappo.config import SiantappoConfig as Config
from cardzoo.envs.siantappo.engine import random_match
from cardzoo.envs.siantappo.env import SiantappoEnv

GAME = "siantappo"
PLAYER_COUNTS = (3, 4, 5, 6)
DEFAULT_PLAYERS = 4
WIN_RULE = "highest total reward in the match (ties split)"
WHOLE_MOVES = "cardzoo.envs.siantappo.whole_moves:WholeMoves"
CHANCE = SiantappoChance  # what chance does in a match, card by card (luck-adjusted evaluation)
env, raw_env = make_env_fns(SiantappoEnv)

__all__ = [
    "env",
    "raw_env",
    "Config",
    "RuleBot",
    "SiantappoEnv",
    "GAME",
    "PLAYER_COUNTS",
    "DEFAULT_PLAYERS",
    "WIN_RULE",
    "WHOLE_MOVES",
    "CHANCE",
    "VARIANT_CHOICES",
    "random_match",
]
