"""Sam Sip PettingZoo AEC environment, version 0.

``env(num_players=4, render_mode=None, **variants)`` is wrapped (TerminateIllegal ->
AssertOutOfBounds -> OrderEnforcing); ``raw_env`` is unwrapped and raises IllegalMoveError.
Render modes: ``ansi`` (text, every hand), ``human`` (printed), ``rgb_array`` (the table as a
spectator sees it, a (720, 960, 3) uint8 picture).
Variants are the fields of ``Config`` (docs/rules/samsip.md 2.5); see docs/samsip.md.
"""

from cardzoo.envs.base import make_env_fns
from cardzoo.envs.samsip.bot import RuleBot
from cardzoo.envs.samsip.chance import SamSipChance
from cardzoo.envs.samsip.config import VARIANT_CHOICES, SamSipConfig
from cardzoo.envs.samsip.engine import random_match
from cardzoo.envs.samsip.env import SamSipEnv

env, raw_env = make_env_fns(SamSipEnv)
Config = SamSipConfig
GAME = "samsip"
PLAYER_COUNTS = (2, 3, 4, 5, 6)
DEFAULT_PLAYERS = 4
WIN_RULE = "best final rank: the survivor, or the top of the ranking when the hand cap ends the match (ties split)"
WHOLE_MOVES = "cardzoo.envs.samsip.whole_moves:WholeMoves"
CHANCE = SamSipChance  # what chance does in a match, card by card (luck-adjusted evaluation)
TEACHER = "cardzoo.envs.samsip.lookahead:LookaheadBot"


def deal_index(env) -> int:
    """The hand in progress. Rewards are paid per hand (rules 2.6) and a hand's play cannot change
    the next one's, so a move's credit may end with its hand (``cardzoo train --returns deal``)."""
    return env.unwrapped.engine.hand_no


def match_scores(env, totals) -> list[float]:
    """A match is won by its final ranking (P13: last seat standing, then chips), not by rewards."""
    return [-float(r) for r in env.unwrapped.engine.ranking()]


__all__ = [
    "env",
    "raw_env",
    "Config",
    "RuleBot",
    "SamSipEnv",
    "random_match",
    "GAME",
    "match_scores",
    "deal_index",
    "PLAYER_COUNTS",
    "DEFAULT_PLAYERS",
    "WIN_RULE",
    "WHOLE_MOVES",
    "CHANCE",
    "TEACHER",
    "VARIANT_CHOICES",
]
