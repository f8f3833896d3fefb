"""High card: a toy game that proves the engine protocol and the game skeleton are all a game needs.

2-4 players get 3 cards each; in every trick each player in turn plays a card, the highest card id
takes the trick (+1, the others -1/(n-1) each). Registered by the tests (``register("tests.toy_game")``),
it passes the whole contract and plays in ``cardzoo eval``. docs/CONTRIBUTING-games.md walks
through it.

This package is laid out like every game package (``envs/<game>/``): ``config``, ``actions``,
``engine``, ``encoding``, ``env`` and ``bot``; this ``__init__`` plays the part of the public
module ``envs/<game>_v0.py``, declaring the game's facts.
"""

from cardzoo.envs.base import make_env_fns
from tests.toy_game.bot import RuleBot
from tests.toy_game.chance import HighCardChance
from tests.toy_game.config import HighCardConfig
from tests.toy_game.env import HighCardEnv

GAME, Config, PLAYER_COUNTS, DEFAULT_PLAYERS = "highcard", HighCardConfig, (2, 3, 4), 2
CHANCE = HighCardChance  # what chance does in a match (luck-adjusted evaluation)
env, raw_env = make_env_fns(HighCardEnv)

__all__ = ["CHANCE", "GAME", "Config", "RuleBot", "PLAYER_COUNTS", "DEFAULT_PLAYERS", "env", "raw_env", "HighCardEnv"]
