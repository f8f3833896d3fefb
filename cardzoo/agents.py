"""Agents to play in your own loop: ``cardzoo.agents.load(spec, game, num_players)``.

    import cardzoo.agents
    agent = cardzoo.agents.load("model", "siantappo", 4)   # the shipped model, numpy only
    agent.reset()                                          # at the start of every match
    action = agent.act(obs)                                # PettingZoo's observation dict ...
    action = agent.act(obs["observation"], obs["action_mask"])   # ... or its two arrays

``spec`` is any agent spec ``cardzoo eval --agents`` takes (``random``, ``rules``, ``teacher``,
``model``, ``expert[:N]``, a checkpoint path, each optionally ``@SEED``), built by the same
``make_agent`` as evaluation, play and the vector API's opponents build it: the same moves. The
shipped models and checkpoints play through numpy forward passes, so this needs no torch.

The expert searches the match it plays in: its ``act`` needs ``env=``, the AEC env at the
decision (the others ignore it). docs/own-trainer.md has a whole loop.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from cardzoo.envs.errors import UserError
from cardzoo.envs.registry import game_spec
from cardzoo.training.agents.specs import agent_move, make_agent, parse_agent_spec

__all__ = ["Agent", "load"]


class Agent:
    """One seat's player for a game and player count: ``act`` and ``reset`` (see the module docstring).

    ``label`` is the spec as ``cardzoo eval`` shows it; ``obs_size`` and ``num_actions`` the sizes
    ``act`` checks its arrays against."""

    def __init__(self, agent, label: str, obs_size: int, num_actions: int):
        self.agent, self.label = agent, label
        self.obs_size, self.num_actions = obs_size, num_actions
        self.searches = hasattr(agent, "act_in")  # the expert: it needs the match (env=)

    def __repr__(self) -> str:
        return f"<cardzoo agent {self.label}>"

    def reset(self) -> None:
        """Forget the match played so far (a move plan, a search's state): call it at every new match."""
        reset = getattr(self.agent, "reset", None)
        if reset is not None:
            reset()

    def act(self, observation, action_mask=None, *, env=None) -> int:
        """The action id to play: ``observation`` is the seat's observation array (with
        ``action_mask`` its legal actions) or the PettingZoo observation dict (its own mask is used
        when ``action_mask`` is omitted). ``env``: the AEC env at this decision, which only the
        expert reads (it searches the match from the seat's point of view)."""
        obs, mask = self._arrays(observation, action_mask)
        if not self.searches:
            return int(self.agent.act(obs, mask))
        if env is None:
            raise UserError(
                f"{self.label} searches the match it plays in: call act(observation, env=env) with the "
                f"AEC env at this decision"
            )
        table = getattr(env, "unwrapped", env)
        seat = table.agent_seat[table.agent_selection]
        return agent_move(self.agent, table, seat, obs, mask)

    def _arrays(self, observation, action_mask) -> tuple[np.ndarray, np.ndarray]:
        """The observation and mask as checked arrays of this game's sizes (a UserError otherwise)."""
        if isinstance(observation, Mapping):
            if "observation" not in observation or (action_mask is None and "action_mask" not in observation):
                keys = sorted(map(str, observation))
                raise UserError(f"act: an observation dict needs the keys 'observation' and 'action_mask', got {keys}")
            if action_mask is None:
                action_mask = observation["action_mask"]
            observation = observation["observation"]
        if action_mask is None:
            raise UserError("act: no action_mask; pass it, or the whole observation dict")
        obs = _vector(observation, self.obs_size, np.float32, "observation")
        mask = _vector(action_mask, self.num_actions, np.int8, "action_mask")
        if not mask.any():
            raise UserError("act: the action mask has no legal action (this seat is not to act)")
        return obs, mask


def _vector(value, size: int, dtype, what: str) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=dtype)
    except (TypeError, ValueError) as e:
        raise UserError(f"act: {what} must be an array of {size} numbers: {e}") from None
    if arr.shape != (size,):
        raise UserError(f"act: {what} must have shape ({size},) for this game and player count, got {arr.shape}")
    return arr


def load(spec: str, game: str, num_players: int | None = None, *, seed: int | None = None, **config) -> Agent:
    """An agent for ``spec`` (as ``--agents`` takes it) at a table of ``game`` with ``num_players``
    seats (the game's usual count when None) and the rule options ``config`` (the keyword
    arguments of the game's ``env()``). ``seed`` seeds its random stream (a spec's ``@SEED`` wins).
    A one-line ``UserError`` (a ``ValueError``) for an unknown game, spec or count, a missing
    checkpoint, or a model that does not fit the table."""
    game_env = game_spec(game)
    n = game_env.default_players if num_players is None else num_players
    table = game_env.raw_env(num_players=n, **config)
    parsed = parse_agent_spec(spec)
    agent = make_agent(parsed, game_env.module, table.config, seed=seed)
    return Agent(agent, parsed.label, table.obs_size, table.num_actions)
