"""Adapters for other RL libraries: RLlib (Ray) and Tianshou.

The ``*_view`` modules hold the pure logic (no third-party RL library needed, tested in the
default suite); ``rllib_env``, ``tianshou_env`` and ``rllib_train`` import their library at the
top and are imported only when you use them — the envs never import any of this.

* ``rllib_view.RLlibView`` — a cardzoo game as RLlib's multi-agent protocol: observations under
  the keys RLlib's action-masking module wants, rewards an agent earns before its first move
  held back and paid with its first move's reward (RLlib would log them nowhere).
* ``tianshou_view.TianshouView`` — a cardzoo game as Tianshou's PettingZoo protocol, skipping
  PettingZoo's dead steps so an elimination does not end the episode.
* ``rllib_train`` — multi-agent PPO on Ray, exported to a cardzoo checkpoint
  (``cardzoo train GAME --algo rllib ...``).

See docs/integrations.md.
"""
