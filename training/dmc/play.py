"""Bot-only matches for the Deep Monte-Carlo warm start (``cardzoo.training.dmc.trainer``).

``imitation_task`` lets rule bots (or the game's teacher, or the expert: search over the model,
``cardzoo.training.agents.expert``, the teacher of expert iteration) play every seat and keeps, per real
choice, all the candidates' feature rows, which one the bot chose and the seat's return from that
choice to the end of the match — or, with ``returns="deal"`` in a game settled deal by deal
(``deal_index``), to the end of that choice's deal (rewards are summed as they arrive, also during
the other seats' moves; partners in a team get the same rewards, so a seat's return is its team's).
The learner's own matches are played batched by ``cardzoo.training.dmc.collector``.
"""

from __future__ import annotations

import numpy as np

from cardzoo.envs.registry import game_spec
from cardzoo.envs.whole_moves import read_state
from cardzoo.training.agents.ranker import whole_moves_reader
from cardzoo.training.agents.specs import agent_move


def _deal_of(game: str, returns: str):
    """env -> the index of the deal whose end a choice's return stops at (one deal: the match)."""
    return game_spec(game).deal_index if returns == "deal" else (lambda env: 0)


def _run_match(env, agents: list, seed: int, deal_of) -> dict[int, list[float]]:
    """Play one match to its end; returns each deal's end totals: {deal: every seat's total reward
    when that deal ended} (the last one is the match's). ``agents[s].before_act(total, deal)`` is
    called before each of that seat's choices, and ``agents[s].move(env, s)`` gives its move."""
    env.begin(seed)
    totals = [0.0] * len(agents)
    ends: dict[int, list[float]] = {}
    for agent in agents:
        agent.reset()
    deal = deal_of(env)
    while True:
        seat = env.acting_seat
        agent = agents[seat]
        agent.before_act(totals[seat], deal)
        action = agent.move(env, seat)
        outcome = env.advance(action)
        for s, r in outcome.rewards.items():
            totals[s] += r
        now = deal_of(env)
        if outcome.done or now != deal:
            ends[deal] = list(totals)
        if outcome.done:
            return ends
        deal = now


class _Tracked:
    """An agent plus the seat's total reward and the deal at each recorded choice (for returns-to-go)."""

    def __init__(self, agent):
        self.agent = agent
        self.reward_at: list[tuple[float, int]] = []  # (the seat's total reward, deal) at each choice
        self._now = (0.0, 0)

    def reset(self) -> None:
        self.agent.reset()

    def before_act(self, total: float, deal: int) -> None:
        self._now = (total, deal)

    def move(self, env, seat: int) -> int:
        return self.act(env.encode_seat(seat), env.mask_now())

    def returns(self, seat: int, ends: dict[int, list[float]]) -> list[float]:
        """The seat's return from each recorded choice to the end of that choice's deal."""
        return [ends[deal][seat] - total for total, deal in self.reward_at]


class _BotChoices(_Tracked):
    """A bot (rule bot, teacher or expert) that also records, at each real choice, every candidate
    and the one it chose."""

    def __init__(self, bot, reader, out: list):
        super().__init__(bot)
        self.reader, self.out = reader, out

    def move(self, env, seat: int) -> int:
        observation, mask = env.encode_seat(seat), env.mask_now()
        planned = getattr(self.agent, "planned_move", None)  # players of composed moves say their whole plan
        before = planned() if planned else None
        action = agent_move(self.agent, env, seat, observation, mask)
        chosen = planned() if planned else (action,)
        if chosen is not None and chosen is not before:  # the bot made a fresh choice
            state = read_state(self.reader, env.engine, seat, observation)
            seqs, rows = self.reader.candidates(state, mask)
            if len(seqs) > 1 and chosen in seqs:
                self.out.append((np.asarray(observation, np.float32), rows, seqs.index(chosen), self._values(seqs)))
                self.reward_at.append(self._now)
        return action

    def _values(self, seqs: list) -> np.ndarray | None:
        """The search's value of each candidate (NaN where it did not search it); None for a bot
        that does not search."""
        searched = getattr(self.agent, "searched", None)
        if searched is None:
            return None
        return np.asarray([searched.get(tuple(seq), np.nan) for seq in seqs], np.float32)


IMITATED = ("rules", "teacher", "expert")  # whose moves a warm start can copy


class _Players:
    """Builds the imitated player of a seat: a rule bot, the game's teacher, or the expert searching
    with the checkpoint ``model`` (default: the game's shipped model for the player count)."""

    def __init__(self, game: str, imitate_from: str, model: str = "", answer: str = ""):
        self.spec, self.kind, self.model, self.answer = game_spec(game), imitate_from, model, answer
        self.rankers: dict = {}  # (player count, seat) -> the expert's model, loaded once per task

    def make(self, config, seat: int, seed: int):
        if self.kind == "rules":
            return self.spec.rule_bot(config, seed=seed)
        if self.kind == "teacher":
            return self.spec.teacher(config, seed=seed)
        from cardzoo.training.agents.expert import ExpertAgent
        from cardzoo.training.agents.shipped import shipped_model_path
        from cardzoo.training.agents.specs import load_checkpoint_agent

        key = (config.num_players, seat)
        if key not in self.rankers:
            path = self.model or shipped_model_path(self.spec.name, config.num_players)
            self.rankers[key] = load_checkpoint_agent(str(path), config=config, seed=seed)
        return ExpertAgent(self.spec.module, config, self.rankers[key], seed=seed, answer=self.answer or None)


def imitation_task(game: str, players: tuple[int, ...], variants: dict, matches: int, seed: int,
                   returns: str = "match", imitate_from: str = "rules", model: str = "", answer: str = "") -> list:
    """[(observation, candidate rows [K, F], index the bot chose, return-to-go, the expert's value of
    each candidate [K] (NaN where it did not search it; None for the other bots))] of bot-only matches;
    the bots are rule bots, the game's teacher with ``imitate_from="teacher"``, or the expert over
    the checkpoint ``model`` (default: the shipped model) with ``imitate_from="expert"``, the
    other seats of its sampled deals played by ``answer`` (default: the game's)."""
    made = _Players(game, imitate_from, model, answer)
    rng = np.random.default_rng(seed)
    deal_of = _deal_of(game, returns)
    samples = []
    for _ in range(matches):
        n = int(rng.choice(players))
        env = made.spec.raw_env(num_players=n, **variants)
        reader = whole_moves_reader(game, env.config)
        seats = [_BotChoices(made.make(env.config, s, int(rng.integers(2**31))), reader, []) for s in range(n)]
        ends = _run_match(env, seats, int(rng.integers(2**63 - 1)), deal_of)
        for s, seat in enumerate(seats):
            for (o, rows, chosen, values), ret in zip(seat.out, seat.returns(s, ends)):
                samples.append((o, rows, chosen, ret, values))
    return samples
