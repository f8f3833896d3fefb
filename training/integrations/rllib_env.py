"""cardzoo games as RLlib multi-agent envs (imports Ray; ``pip install -e ".[rllib]"``).

    from cardzoo.training.integrations.rllib_env import register_env
    name = register_env("samsip")      # -> "cardzoo-samsip", usable as PPOConfig().environment(name)

The logic lives in ``rllib_view.RLlibView`` (tested without Ray); this module adds RLlib's
``MultiAgentEnv`` base class and the registration.
"""

from __future__ import annotations

from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.tune.registry import register_env as _ray_register_env

from cardzoo.envs.registry import game_module
from cardzoo.training.integrations.rllib_view import RLlibView


class CardzooRLlibEnv(RLlibView, MultiAgentEnv):  # type: ignore[misc]  # str agent ids: narrower than RLlib's
    """A cardzoo game for RLlib. ``config``: ``{"game": NAME, "players": N, **rule variants}``."""

    def __init__(self, config: dict | None = None):
        MultiAgentEnv.__init__(self)
        RLlibView.__init__(self, dict(config or {}))


def env_name(game: str) -> str:
    """The name a game's env is registered under with Ray Tune (``cardzoo-<game>``)."""
    return f"cardzoo-{game_module(game).GAME}"


def register_env(game: str) -> str:
    """Register ``game`` with Ray Tune (in this process); returns the name to give RLlib.

    The env config RLlib passes (``PPOConfig().environment(name, env_config={...})``) holds
    ``players`` and any rule variants; the game itself comes from the name.
    """
    name = env_name(game)
    module_game = game_module(game).GAME
    _ray_register_env(name, lambda cfg: CardzooRLlibEnv({**dict(cfg), "game": module_game}))
    return name
