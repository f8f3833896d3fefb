"""Siantappo, the "pig slaughter" climbing game, as a PettingZoo AEC environment.

    from envs import siantappo_v0
    env = siantappo_v0.env(num_players=4, rounds=5, render_mode="ansi")

See docs/siantappo.md for rules as implemented, the action table and the observation table.
"""

from envs.base import make_env_fns
from envs.siantappo.bot import RuleBot
from envs.siantappo.config import SiantappoConfig as Config
from envs.siantappo.env import SiantappoEnv

GAME = "siantappo"
env, raw_env = make_env_fns(SiantappoEnv)

__all__ = ["env", "raw_env", "Config", "RuleBot", "SiantappoEnv", "GAME"]
