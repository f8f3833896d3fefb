"""Sam Sip PettingZoo AEC environment, version 0.

``env(num_players=4, render_mode=None, **variants)`` is wrapped (TerminateIllegal ->
AssertOutOfBounds -> OrderEnforcing); ``raw_env`` is unwrapped and raises IllegalMoveError.
Variants are the fields of ``Config`` (rules/samsip.md 2.5); see docs/samsip.md.
"""

from envs.base import make_env_fns
from envs.samsip.bot import RuleBot
from envs.samsip.engine import SamSipConfig, random_match
from envs.samsip.env import SamSipEnv

env, raw_env = make_env_fns(SamSipEnv)
Config = SamSipConfig
GAME = "samsip"

__all__ = ["env", "raw_env", "Config", "RuleBot", "SamSipEnv", "random_match", "GAME"]
