"""cardzoo games as Tianshou multi-agent envs (imports Tianshou; ``pip install -e ".[tianshou]"``).

    from tianshou.env import DummyVectorEnv
    from cardzoo.training.integrations.tianshou_env import CardzooTianshouEnv
    envs = DummyVectorEnv([lambda: CardzooTianshouEnv({"game": "samsip", "players": 5})] * 4)

Use it where Tianshou's examples use ``PettingZooEnv(env)``: same observation dict (``agent_id``,
``obs``, ``mask``), same reward vector, same ``agents`` / ``agent_idx`` for
``MultiAgentOnPolicyAlgorithm`` and friends — but an elimination does not end the episode. The
logic is ``tianshou_view.TianshouView`` (tested without Tianshou).
"""

from __future__ import annotations

from tianshou.env.pettingzoo_env import PettingZooEnv

from cardzoo.training.integrations.tianshou_view import TianshouView


class CardzooTianshouEnv(TianshouView, PettingZooEnv):
    """A cardzoo game for Tianshou. ``config``: ``{"game": NAME, "players": N, **rule variants}``.

    A ``PettingZooEnv`` for Tianshou's type checks, but its constructor is not run: that wrapper
    would read ``env.last()`` and end the episode at the first elimination.
    """

    def __init__(self, config: dict | None = None):
        TianshouView.__init__(self, config)
        self.env = self.aec  # what PettingZooEnv's seed() / close() reach for

    @property
    def unwrapped(self):
        return self
