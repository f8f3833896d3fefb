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


def match_scores(env, totals) -> list[float]:
    """A match is won by its final ranking (P13: last seat standing, then chips), not by rewards."""
    return [-float(r) for r in env.game.ranking()]

__all__ = ["env", "raw_env", "Config", "RuleBot", "SamSipEnv", "random_match", "GAME", "match_scores"]
