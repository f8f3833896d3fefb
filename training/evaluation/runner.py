"""Plays single games of a tournament: ``Setup`` is everything a worker needs to know (game, rules,
entrants, sides, seed), ``Runner`` plays one (deal, index, lineup) task to a ``GameResult``.
Everything random derives from the tournament seed (the deal's seed, each agent's seed per game),
so a game's result does not depend on which process plays it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from cardzoo.envs.chance import ChanceModel
from cardzoo.envs.registry import game_module, game_spec
from cardzoo.envs.seatview import match_over
from cardzoo.training.agents.specs import AgentSpec, agent_move, make_agent
from cardzoo.training.evaluation.luck import LuckTracker, load_value
from cardzoo.training.evaluation.results import GameResult

MAX_STEPS = 2_000_000  # safety net against a game that never ends


def _seed_int(*words: int) -> int:
    """A 63-bit seed derived from integers (numpy's SeedSequence hashing)."""
    a, b = np.random.SeedSequence([int(w) & 0xFFFFFFFFFFFFFFFF for w in words]).generate_state(2)
    return (int(a) << 31 | int(b) >> 1) & 0x7FFFFFFFFFFFFFFF


def episode_seed(tournament_seed: int, deal: int) -> int:
    """The episode seed of a tournament's deal: the cards every seating of the deal is dealt."""
    return _seed_int(tournament_seed, 1, deal)


@dataclass(frozen=True)
class Setup:
    game: str
    players: int
    options: dict
    specs: tuple[AgentSpec, ...]
    names: tuple[str, ...]
    sides: tuple[tuple[int, ...], ...]
    seed: int
    records: bool
    value: str | None = None  # a value network's path: luck-adjusted rewards too (evaluation.luck)


class Runner:
    """Plays single games of a tournament (one per worker process)."""

    def __init__(self, setup: Setup):
        self.s = setup
        self.module = game_module(setup.game)
        self.env = self.module.raw_env(num_players=setup.players, **setup.options)
        self.seat_side = {seat: i for i, side in enumerate(setup.sides) for seat in side}
        self.bare = [dataclasses.replace(sp, seed=None) for sp in setup.specs]
        self._loaded: dict[tuple[int, int], object] = {}  # (entrant, seat) -> checkpoint agent
        self.value = None if setup.value is None else load_value(setup.value, setup.game, setup.players)

    def _agent(self, entrant: int, seat: int, seed: int):
        """A fresh agent for one game; checkpoint agents are loaded once per worker and seat,
        then reseeded every game (so results do not depend on which worker plays the game)."""
        spec = self.bare[entrant]
        if spec.kind not in ("checkpoint", "model", "expert"):  # networks load once, then are reseeded
            return make_agent(spec, self.module, self.env.config, seed=seed)
        agent = self._loaded.get((entrant, seat))
        if agent is None:
            agent = self._loaded[(entrant, seat)] = make_agent(spec, self.module, self.env.config, seed=seed)
        _reseed(agent, seed)
        return agent

    def check_agents(self) -> None:
        """Build every entrant once, so bad specs fail before any game is played."""
        for sp in self.bare:
            make_agent(sp, self.module, self.env.config, seed=0)

    def play(self, deal: int, index: int, lineup: tuple[int, ...]) -> GameResult:
        luck = None if self.value is None else LuckTracker(self.value.model, self.value)
        return self._play(deal, index, lineup, luck)

    def record(self, deal: int, index: int, lineup: tuple[int, ...], model: ChanceModel) -> tuple[list, np.ndarray]:
        """Play one game; the states chance made in it (location codes, numbers) and what a value
        network learns for each (``LuckTracker.targets``)."""
        luck = LuckTracker(model, lambda loc, ctx: np.zeros((len(loc), model.n)), record=True)
        res = self._play(deal, index, lineup, luck)
        assert luck.samples is not None
        return [(loc, ctx) for loc, ctx, _, _ in luck.samples], luck.targets(res.seat_rewards)

    def _play(self, deal: int, index: int, lineup: tuple[int, ...], luck: LuckTracker | None) -> GameResult:
        s, env = self.s, self.env
        env.reset(seed=episode_seed(s.seed, deal))
        agents = self._seat_agents(deal, index, lineup)
        totals = [0.0] * s.players
        moves: list[dict] | None = [] if s.records else None
        steps = 0
        if luck is not None:
            luck.start(env.engine)
        while env.agents:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                if match_over(env):
                    break
                env.step(None)  # an eliminated seat leaves (PettingZoo dead step)
                continue
            seat = env.agent_seat[agent]
            obs = env.observe(agent)
            action = agent_move(agents[seat], env, seat, obs["observation"], obs["action_mask"])
            if moves is not None:
                moves.append({"seat": seat, "action": action, "text": env.action_text(action)})
            before = None if luck is None else env.engine.clone()
            env.step(action)
            steps += 1
            paid = {env.agent_seat[a]: r for a, r in env.rewards.items() if r}
            for seat_paid, r in paid.items():
                totals[seat_paid] += r
            if luck is not None:
                probs = getattr(agents[seat], "action_probs", None)
                luck.step(before, action, env.engine, paid, None if probs is None else probs(obs["action_mask"]))
            if steps > MAX_STEPS:
                raise RuntimeError(f"{s.game}: a game ran past {MAX_STEPS} steps")
        seat_scores = self._seat_scores(totals)
        side_scores = [float(np.mean([seat_scores[x] for x in side])) for side in s.sides]
        record = None if moves is None else self._record(deal, lineup, moves, totals, side_scores)
        adjusted = (
            None if self.value is None or luck is None else [float(t - c) for t, c in zip(totals, luck.corrections)]
        )
        sources = None if adjusted is None or luck is None else {k: v.tolist() for k, v in luck.sources.items()}
        return GameResult(deal, index, tuple(lineup), totals, side_scores, steps, record, adjusted, sources)

    def _seat_agents(self, deal: int, index: int, lineup: tuple[int, ...]) -> list:
        """The agent of every seat for this game, each with its own seed, reset."""
        s = self.s
        agents = []
        for seat in range(s.players):
            e = lineup[self.seat_side[seat]]
            own = s.specs[e].seed
            base = own if own is not None else s.seed
            agent = self._agent(e, seat, _seed_int(base, 2, deal, index, seat))
            if hasattr(agent, "reset"):
                agent.reset()
            agents.append(agent)
        return agents

    def _record(
        self, deal: int, lineup: tuple[int, ...], moves: list, totals: list[float], side_scores: list[float]
    ) -> dict:
        """The game record of the finished game (see ``cardzoo replay``)."""
        s = self.s
        best = max(side_scores)
        record = self.env.record_header()
        record.update(
            {
                "moves": moves,
                "rewards": totals,
                "agents": [s.names[lineup[self.seat_side[seat]]] for seat in range(s.players)],
                "winners": [seat for i, side in enumerate(s.sides) if side_scores[i] == best for seat in side],
                "deal": deal,
                "tournament_seed": s.seed,
            }
        )
        return record

    def _seat_scores(self, totals: list[float]) -> list[float]:
        return game_spec(self.s.game).match_scores(self.env, totals)


def _reseed(agent, seed: int) -> None:
    """Give a reused agent a new seed: its ``seed(seed)`` method, else a fresh numpy ``rng``."""
    if callable(getattr(agent, "seed", None)):
        agent.seed(seed)
    elif isinstance(getattr(agent, "rng", None), np.random.Generator):
        agent.rng = np.random.default_rng(seed)
