"""The players of the seats that are not the learner's, at every table.

An opponent is an agent spec, as ``--agents`` takes them (``random``, ``rules``, ``teacher``,
``model``, ``expert``, a checkpoint path, each optionally ``@SEED``), or a callable
``(observation, action_mask) -> action``. One opponent is given for every seat the learner does
not hold, or a list of one per such seat (in seat order); a comma-separated text is such a list.

Each table's seat gets its own agent, built by ``make_agent`` as ``cardzoo eval`` builds them and
seeded with ``opponent_seed(table_seed, seat)`` from its table's seed; a network (``model``, a checkpoint, ``expert``)
loads once per seat and each table plays a shallow copy of it, so every table keeps its own random
stream and move plan while the weights are shared. A seeded ``reset`` builds them anew from its seed;
every agent's ``reset()`` is called when its table starts a match. A callable is shared by every
table and seat as it is, and never reseeded.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence

import numpy as np

from cardzoo.envs.base import action_mask
from cardzoo.envs.config import ConfigError, integer
from cardzoo.envs.errors import UserError
from cardzoo.training.agents.specs import AgentSpec, RandomAgent, agent_move, make_agent, parse_agent_spec
from cardzoo.vector.tables import short

NETWORK_KINDS = ("model", "checkpoint", "expert")  # agents whose weights load once and are shared


def opponent_seed(table_seed: int | None, seat: int, spec_seed: int | None = None) -> int | None:
    """The seed of the agent at ``seat`` of a table reset with ``table_seed`` (and the spec's own
    ``@SEED``, when it has one); None (fresh entropy) when neither is given."""
    if table_seed is None and spec_seed is None:
        return None
    words = [seat] + [int(w) & (2**64 - 1) for w in (table_seed, spec_seed) if w is not None]
    return int(np.random.SeedSequence(words).generate_state(1, np.uint64)[0] >> 1)


class CallableAgent:
    """A function ``(observation, action_mask) -> action`` behind the agent protocol."""

    def __init__(self, fn: Callable):
        self.fn = fn
        self.name = getattr(fn, "__name__", "callable")

    def reset(self) -> None:
        pass

    def act(self, observation, action_mask) -> int:
        return self.fn(observation, action_mask)


def parse_opponents(opponents, seats: Sequence[int]) -> dict[int, AgentSpec | Callable]:
    """Seat -> its opponent (a parsed spec or a callable), for every seat in ``seats``."""
    if isinstance(opponents, str) and "," in opponents:
        opponents = [p.strip() for p in opponents.split(",")]
    if isinstance(opponents, (str, AgentSpec)) or callable(opponents):
        given = [opponents] * len(seats)
    elif isinstance(opponents, Sequence):
        given = list(opponents)
        if len(given) != len(seats):
            raise ConfigError(
                f"opponents: {len(given)} given for the {len(seats)} seats the learner does not hold "
                f"({', '.join(map(str, seats))}); give one for all of them or one per seat"
            )
    else:
        raise ConfigError(
            f"opponents must be an agent spec (random, rules, model, a checkpoint path...), a callable "
            f"(observation, action_mask) -> action, or a list of those, got {type(opponents).__name__}"
        )
    out = {}
    for seat, g in zip(seats, given):
        if isinstance(g, AgentSpec) or callable(g):
            out[seat] = g
        elif isinstance(g, str):
            out[seat] = parse_agent_spec(g)
        else:
            raise ConfigError(f"opponent of seat {seat} must be an agent spec or a callable, got {type(g).__name__}")
    return out


class Opponents:
    """The agents of the opponent seats of every table (see the module docstring)."""

    def __init__(self, opponents, tables, seats: Sequence[int], seeds: Sequence[int | None]):
        self.tables = tables
        self.given = parse_opponents(opponents, seats)
        self.seats = tuple(seats)
        self._loaded: dict[int, object] = {}  # seat -> the network agent its tables copy
        self.agents: list[dict[int, object]] = []
        self.build(seeds)

    def label(self, seat: int) -> str:
        g = self.given[seat]
        return g.label if isinstance(g, AgentSpec) else getattr(g, "__name__", "callable")

    def build(self, seeds: Sequence[int | None]) -> None:
        """Every table's agents, seeded from the table's seed (``seeds[table]``)."""
        self.agents = [{seat: self._agent(seat, seed) for seat in self.seats} for seed in seeds]

    def _agent(self, seat: int, table_seed: int | None):
        g = self.given[seat]
        if callable(g) and not isinstance(g, AgentSpec):
            return CallableAgent(g)
        spec = AgentSpec(g.kind, g.path, None, g.text, g.budget)  # its own @SEED becomes the base seed
        agent_seed = opponent_seed(table_seed, seat, g.seed)
        module, config = self.tables.spec.module, self.tables.config
        if spec.kind not in NETWORK_KINDS:
            return make_agent(spec, module, config, seed=agent_seed)
        if seat not in self._loaded:
            self._loaded[seat] = make_agent(spec, module, config, seed=agent_seed)
        agent = copy.copy(self._loaded[seat])
        _reseed(agent, agent_seed)
        return agent

    def reset(self, table: int) -> None:
        """The start of a match at ``table``: each agent's ``reset()``."""
        for agent in self.agents[table].values():
            reset = getattr(agent, "reset", None)
            if reset is not None:
                reset()

    def move(self, table: int, seat: int) -> int:
        """The move of ``seat``'s agent at ``table``. A callable's answer is checked (an illegal one
        is a UserError naming the table and seat); the agents of specs are ours, and trusted."""
        env = self.tables.envs[table]
        legal = env.legal_now()
        agent = self.agents[table][seat]
        if type(agent) is RandomAgent:
            # RandomAgent.act's own draw (the k-th of the legal ids in ascending order, k from its
            # rng), without building the mask it would read them from
            return sorted(legal)[int(agent.rng.integers(len(legal)))]
        mask = action_mask(self.tables.num_actions, legal)
        if hasattr(agent, "act_seat"):  # a scripted player's own read of the seat's view: the same move
            return int(agent.act_seat(env.engine, seat, mask))
        if not isinstance(agent, CallableAgent):
            return agent_move(agent, env, seat, None if hasattr(agent, "act_in") else env.encode_seat(seat), mask)
        action = agent.act(env.encode_seat(seat), mask)
        a = integer(action)
        if a is None or a not in legal:
            raise UserError(
                f"table {table}: the opponent at seat {seat} ({self.label(seat)}) chose "
                f"{short(action)}, not a legal action id; legal: {sorted(legal)[:20]}"
            )
        return a


def _reseed(agent, seed: int | None) -> None:
    """A copied network agent's own random stream: its ``seed(seed)`` method, else a fresh numpy ``rng``."""
    if callable(getattr(agent, "seed", None)):
        agent.seed(seed)
    elif isinstance(getattr(agent, "rng", None), np.random.Generator):
        agent.rng = np.random.default_rng(seed)
