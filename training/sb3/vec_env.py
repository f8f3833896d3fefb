"""SB3 on ``cardzoo.vector``: a stable-baselines3 ``VecEnv`` over a ``TablesEnv``, for sb3-contrib's
MaskablePPO, and the tables of ``cardzoo train --algo sb3``.

``SB3Tables(tables)`` hands SB3 what its own ``VecEnv``s do: the observation array (a ``Box``, so
``"MlpPolicy"`` fits), float32 rewards, ``dones`` (terminated or truncated), per-table infos with
``terminal_observation`` of a finished match (the tables reset in the same step, as SB3 expects)
and ``TimeLimit.truncated``. The legal actions go to MaskablePPO as sb3-contrib reads them:
``env_method("action_masks")`` (``get_action_masks(env)``), one bool mask per table.

    import cardzoo.vector
    from sb3_contrib import MaskablePPO
    from cardzoo.training.sb3.vec_env import SB3Tables

    env = SB3Tables(cardzoo.vector.make("siantappo", 16, num_players=4, opponents="rules", seed=0))
    MaskablePPO("MlpPolicy", env, n_steps=64).learn(2_000)

``PoolTables`` is the trainer's ``TablesEnv``: each match of each table draws the learner's side
(one of the game's teams, from a seat drawn uniformly) and an opponent for every other seat from the
run's ``OpponentPool`` (rules, random, frozen snapshots of the learner, by the run's weights).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv

from cardzoo.training.common.opponents import OpponentPool
from cardzoo.vector import TablesEnv

MASKS = "action_masks"  # the method sb3-contrib's get_action_masks calls through env_method


class SB3Tables(VecEnv):
    """The tables of a ``TablesEnv`` as an SB3 ``VecEnv`` (see the module docstring)."""

    def __init__(self, tables: TablesEnv):
        self.tables = tables
        self.render_mode = None
        size, actions = tables.tables.obs_size, tables.tables.num_actions
        super().__init__(tables.num_envs, spaces.Box(-1.0, 1.0, (size,), np.float32), spaces.Discrete(actions))
        self._mask = np.zeros((tables.num_envs, actions), np.bool_)
        self._actions = np.zeros(tables.num_envs, np.int64)

    def reset(self) -> np.ndarray:
        # SB3's seed(s) asks for table i to start from s + i at the next reset (a list per table)
        seeds = None if all(s is None for s in self._seeds) else [int(s) for s in self._seeds]  # type: ignore[arg-type]
        obs, _ = self.tables.reset(seed=seeds)
        self._reset_seeds()
        return self._read(obs)

    def step_async(self, actions) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs).astype(np.int64)

    def step_wait(self):
        obs, rewards, terminated, truncated, info = self.tables.step(self._actions)
        dones = terminated | truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(dones).tolist():
            infos[i]["terminal_observation"] = info["final_obs"][i]["observation"]
            infos[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
        return self._read(obs), rewards.astype(np.float32), dones, infos

    def _read(self, obs: dict) -> np.ndarray:
        self._mask = obs["action_mask"].astype(bool)
        return obs["observation"]

    def action_masks(self) -> np.ndarray:
        """Every table's legal actions now, [num_envs, num_actions] bool."""
        return self._mask.copy()

    # ------------------------------------------------------------------ SB3's VecEnv interface
    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list:
        if method_name != MASKS:
            raise AttributeError(f"SB3Tables has no per-table method {method_name!r} (only {MASKS})")
        return [self._mask[i].copy() for i in self._get_indices(indices)]

    def get_attr(self, attr_name: str, indices=None) -> list:
        if attr_name == MASKS:
            return [self.action_masks for _ in self._get_indices(indices)]
        if attr_name == "render_mode":
            return [None for _ in self._get_indices(indices)]
        raise AttributeError(f"SB3Tables has no per-table attribute {attr_name!r}")

    def set_attr(self, attr_name: str, value, indices=None) -> None:
        raise AttributeError(f"SB3Tables: the tables' attributes are not set from outside ({attr_name!r})")

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def close(self) -> None:
        self.tables.close()


class PoolTables(TablesEnv):
    """The SB3 trainer's tables: per match, the learner's side and the opponents drawn as the
    module docstring says; ``rngs[i]`` is table i's stream of sides and deals (saved with the run)."""

    def __init__(self, game: str, num_envs: int, env_kwargs: dict, pool: OpponentPool, seeds: list[int]):
        # the opponents' agents are the pool's draws (set per match in _start); "random" only fills the slots
        super().__init__(game, num_envs, opponents="random", **env_kwargs)
        self.pool = pool
        self.rngs = [random.Random(s) for s in seeds]

    def reseed(self, seeds: list) -> None:
        """New streams of sides and deals (SB3's ``seed()``: one per table)."""
        self.rngs = [random.Random(s) for s in seeds]

    def reset(self, *, seed=None, options=None):
        if seed is not None:
            self.reseed(list(seed))
        return super().reset(options=options)

    def _start(self, i: int, seed) -> None:
        rng, n = self.rngs[i], self.tables.num_players
        side = tuple(self.tables.spec.team_of(n, rng.randrange(n)))
        self._learners[i] = side
        assert self.opponents is not None  # "random" fills the seats of every side
        self.opponents.agents[i] = {s: self.pool.draw() for s in range(n) if s not in side}
        super()._start(i, rng.getrandbits(63))
