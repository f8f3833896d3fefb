"""One table as a ``gymnasium.Env``: what ``gymnasium.make("cardzoo/Siantappo-v0", opponents="rules")`` builds.

The learner's view of one match against opponents, exactly a ``TablesEnv`` of one table without
autoreset: ``reset`` deals a match and plays the opponents up to the learner's first decision,
``step(action)`` plays the learner's action and the opponents up to its next one. The observation
is the AEC env's ``{"observation", "action_mask"}``; the reward everything the learner earned
since its previous decision; when the match is over (or every learner seat is knocked out) the
observation is the learner's last one, with no legal action, ``info["ranks"]`` every seat's place
(1 = best), and ``reset()`` starts the next match.
Seeding: ``reset(seed=s)`` plays the deals of ``raw_env(...).reset(seed=s)`` and then ``reset()``.
"""

from __future__ import annotations

import gymnasium
import numpy as np

from cardzoo.envs.base import action_id
from cardzoo.envs.config import integer
from cardzoo.vector.env import TablesEnv


class TableEnv(gymnasium.Env):
    """One table of ``game``: the learner at ``learner_seats`` against ``opponents`` (see ``TablesEnv``)."""

    # Gymnasium declares metadata an instance attribute of its base class, so no ClassVar here
    metadata = {"render_modes": TablesEnv.metadata["render_modes"], "render_fps": 1}  # noqa: RUF012

    def __init__(
        self,
        game: str,
        *,
        num_players: int | None = None,
        opponents="rules",
        learner_seats=(0,),
        illegal: str = "raise",
        illegal_reward: float = -1.0,
        play_forced: bool = False,
        render_mode: str | None = None,
        **config,
    ):
        self.table = TablesEnv(
            game,
            1,
            num_players=num_players,
            opponents=opponents,
            learner_seats=learner_seats,
            illegal=illegal,
            illegal_reward=illegal_reward,
            play_forced=play_forced,
            render_mode=render_mode,
            autoreset=False,
            **config,
        )
        self.observation_space = self.table.single_observation_space
        self.action_space = self.table.single_action_space
        self.render_mode = render_mode

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        obs, info = self.table.reset(seed=seed)
        return _first(obs), {"seat": int(info["seat"][0])}

    def step(self, action):
        a = integer(action)
        if a is None:
            action_id(action)  # the one-line error of a value that is no action id
        obs, reward, terminated, truncated, info = self.table.step(np.array([a], np.int64))
        out = {"seat": int(info["seat"][0])}
        if terminated[0] or truncated[0]:
            out["ranks"] = info["ranks"][0]
            if info.get("_illegal_action", [False])[0]:
                out["illegal_action"] = True
        return _first(obs), float(reward[0]), bool(terminated[0]), bool(truncated[0]), out

    def action_mask(self) -> np.ndarray:
        """The legal actions of the observation last returned (1 = legal; none once the match is
        over): what sb3-contrib's ``ActionMasker`` asks for."""
        return self.table._mask[0].copy()

    def render(self):
        frames = self.table.render()
        return None if frames is None else frames[0]


def _first(obs: dict) -> dict:
    return {key: value[0] for key, value in obs.items()}
