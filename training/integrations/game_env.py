"""Build a cardzoo AEC env from the plain config dict the RL libraries pass around."""

from __future__ import annotations

from cardzoo.envs.errors import UserError
from cardzoo.envs.registry import DEFAULT_PLAYERS, PLAYER_COUNTS, game_module


def make_game_env(config: dict):
    """``raw_env`` for ``{"game": NAME, "players": N, **variants}`` (players: the game's default).

    ``raw_env`` (not ``env()``): the adapters always act from the mask, so PettingZoo's checking
    wrappers would only cost time, and a bug still raises ``IllegalMoveError`` loudly.
    """
    config = dict(config)
    if "game" not in config:
        raise UserError("the env config needs a 'game' (siantappo, suipi or samsip)")
    module = game_module(str(config.pop("game")))
    players = config.pop("players", None)
    players = DEFAULT_PLAYERS[module.GAME] if players is None else players
    if players not in PLAYER_COUNTS[module.GAME]:
        raise UserError(f"players must be one of {PLAYER_COUNTS[module.GAME]} for {module.GAME}, got {players!r}")
    return module.raw_env(num_players=players, **config)
