"""Imitation: bot-only matches recorded as samples, and the one supervised loop that fits them.

Every trainer's warm start (``--imitate``) is the same two steps, whatever network it trains:

1. ``play_recorded`` plays planned matches (``numbered_matches`` or ``drawn_matches``: the seats,
   the episode's seed and each bot's) through the envs' fast path, a bot of ``Bots`` (the rule
   bot, the game's teacher or the expert) at every seat. A *record* plays each move and keeps
   what its target needs, and every kept decision gets the seat's return from it to the end of
   the match (or, with ``deal_of``, of its deal). The two records are the two kinds of target:
   ``ActionRecord``, a policy's (observation, mask, the bot's action) — PPO's and SB3's warm
   starts, through ``action_samples`` — and ``CandidateRecord``, a ranker's (observation, every
   candidate's feature row, the index of the bot's, the expert's searched values) — DMC's.
2. ``fit``: Adam over shuffled minibatches of the samples, epoch after epoch, on the target's loss
   (``loss_of``: the trainer's, beside its network); ``accuracy``: how often the net's best move
   is the bot's.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import numpy as np
import torch

from cardzoo.envs.registry import game_spec
from cardzoo.envs.whole_moves import read_state
from cardzoo.training.agents.net_agents import whole_moves_reader
from cardzoo.training.agents.specs import agent_move

IMITATED = ("rules", "teacher", "expert")  # whose moves a warm start can copy


# ------------------------------------------------------------------------------ which matches
@dataclass(frozen=True)
class PlannedMatch:
    players: int
    episode_seed: int  # the seed ``env.begin`` plays
    bot_seeds: tuple[int, ...]  # one per seat


def numbered_matches(players, count: int, seed: int, reset_seeds: bool = False) -> Iterator[PlannedMatch]:
    """Match ``m`` of ``count``: ``players[m % len(players)]`` seats, seat ``s``'s bot seeded
    ``seed + 31 m + s`` and the episode ``seed * 100_003 + m`` (PPO's and SB3's warm starts);
    ``reset_seeds``: the episode ``env.reset(seed=seed * 100_003 + m)`` draws instead (SB3's)."""
    players = list(players)
    for m in range(count):
        n = players[m % len(players)]
        episode = seed * 100_003 + m
        if reset_seeds:
            episode = random.Random(episode).getrandbits(63)  # as ``reset(seed=...)`` draws an episode
        yield PlannedMatch(n, episode, tuple(seed + 31 * m + s for s in range(n)))


def drawn_matches(players, count: int, seed: int) -> Iterator[PlannedMatch]:
    """``count`` matches from one random stream seeded ``seed``: each match's player count, then
    its bots' seeds, then its episode's (DMC's warm start)."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n = int(rng.choice(players))
        bots = tuple(int(rng.integers(2**31)) for _ in range(n))
        yield PlannedMatch(n, int(rng.integers(2**63 - 1)), bots)


# ------------------------------------------------------------------------------ who plays
class Bots:
    """Builds the imitated player of a seat: the rule bot, the game's teacher, or the expert searching
    with the checkpoint ``model`` (default: the game's shipped model for the player count), the
    other seats of its sampled deals played by ``answer`` (default: the game's)."""

    def __init__(self, game: str, kind: str = "rules", model: str = "", answer: str = ""):
        self.spec, self.kind, self.model, self.answer = game_spec(game), kind, model, answer
        self.rankers: dict = {}  # (player count, seat) -> the expert's model, loaded once

    def make(self, config, seat: int, seed: int):
        if self.kind == "rules":
            return self.spec.rule_bot(config, seed=seed)
        if self.kind == "teacher":
            teacher = self.spec.teacher
            assert teacher is not None  # the settings refuse a teacher where the game has none
            return teacher(config, seed=seed)
        from cardzoo.training.agents.expert import ExpertAgent
        from cardzoo.training.agents.networks import load_torch_agent
        from cardzoo.training.agents.shipped import shipped_model_path

        key = (config.num_players, seat)
        if key not in self.rankers:
            path = self.model or shipped_model_path(self.spec.name, config.num_players)
            self.rankers[key] = load_torch_agent(str(path), config=config, seed=seed)
        return ExpertAgent(self.spec.module, config, self.rankers[key], seed=seed, answer=self.answer or None)


# ------------------------------------------------------------------------------ what is kept
class ActionRecord:
    """A policy's target: (observation, legal mask as bool, the bot's action) of every choice (more
    than one legal action), or with ``every`` of every decision, forced ones too."""

    def __init__(self, every: bool = False):
        self.every = every

    def __call__(self, bot, env, seat: int) -> tuple[int, tuple | None]:
        observation, mask = env.encode_seat(seat), env.mask_now()
        action = agent_move(bot, env, seat, observation, mask)
        kept = self.every or len(env.legal_now()) > 1
        return action, ((observation, mask.astype(bool), action) if kept else None)


class CandidateRecord:
    """A ranker's target: at each fresh choice of a complete move with more than one candidate,
    (observation, every candidate's feature row [K, F], the index of the bot's move, the search's
    value of each candidate [K] — NaN where it did not search it, None for a bot that does not
    search). A player of composed moves says its whole plan (``planned_move``) at its first step."""

    def __init__(self, game: str):
        self.game = game
        self.readers: dict = {}  # player count -> the game's complete-move reader

    def __call__(self, bot, env, seat: int) -> tuple[int, tuple | None]:
        observation, mask = env.encode_seat(seat), env.mask_now()
        planned = getattr(bot, "planned_move", None)
        before = planned() if planned else None
        action = agent_move(bot, env, seat, observation, mask)
        chosen = planned() if planned else (action,)
        if chosen is None or chosen is before:  # no fresh choice: a later step of a plan
            return action, None
        reader = self._reader(env)
        seqs, rows = reader.candidates(read_state(reader, env.engine, seat, observation), mask)
        if len(seqs) < 2 or chosen not in seqs:
            return action, None
        return action, (np.asarray(observation, np.float32), rows, seqs.index(chosen), _searched(bot, seqs))

    def _reader(self, env):
        n = env.config.num_players
        if n not in self.readers:
            self.readers[n] = whole_moves_reader(self.game, env.config)
        return self.readers[n]


def _searched(bot, seqs: list) -> np.ndarray | None:
    searched = getattr(bot, "searched", None)
    if searched is None:
        return None
    return np.asarray([searched.get(tuple(seq), np.nan) for seq in seqs], np.float32)


# ------------------------------------------------------------------------------ the matches
def one_deal(env) -> int:
    """``deal_of`` for returns that run to the end of the match."""
    return 0


def play_match(env, bots: list, episode_seed: int, record: Callable, deal_of=one_deal) -> list[tuple]:
    """One match of ``bots`` (one per seat), ``record(bot, env, seat) -> (action, kept or None)``
    playing every move; returns [(seat, kept, the seat's return from that decision to the end of
    its deal)] in the order played. Rewards are summed as they arrive, also during the other
    seats' moves (partners get the same rewards, so a seat's return is its team's)."""
    env.begin(episode_seed)
    for bot in bots:
        bot.reset()
    totals = [0.0] * len(bots)
    ends: dict[int, list[float]] = {}  # deal -> every seat's total when it ended (the last: the match's)
    kept = []  # (seat, kept, the seat's total, deal) at each kept decision
    deal = deal_of(env)
    while True:
        seat = env.acting_seat
        action, sample = record(bots[seat], env, seat)
        if sample is not None:
            kept.append((seat, sample, totals[seat], deal))
        outcome = env.advance(action)
        for s, r in outcome.rewards.items():
            totals[s] += r
        now = deal_of(env)
        if outcome.done or now != deal:
            ends[deal] = list(totals)
        if outcome.done:
            return [(s, sample, ends[d][s] - total) for s, sample, total, d in kept]
        deal = now


def play_recorded(
    game: str, variants: dict, plans: Iterable[PlannedMatch], bots: Bots, record: Callable, deal_of=one_deal
) -> Iterator[list[tuple]]:
    """``play_match`` of each planned match in turn (one env per player count, reused)."""
    envs: dict = {}
    spec = game_spec(game)
    for plan in plans:
        if plan.players not in envs:
            envs[plan.players] = spec.raw_env(num_players=plan.players, **variants)
        env = envs[plan.players]
        seated = [bots.make(env.config, s, seed) for s, seed in enumerate(plan.bot_seeds)]
        yield play_match(env, seated, plan.episode_seed, record, deal_of)


def action_samples(game: str, variants: dict, plans: Iterable[PlannedMatch], every: bool = False) -> tuple:
    """(observations, masks, actions, returns) of the rule bots' choices (``every``: decisions) in
    the planned matches, in the order played."""
    rows = [
        kept + (ret,)
        for match in play_recorded(game, variants, plans, Bots(game), ActionRecord(every))
        for _, kept, ret in match
    ]
    obs, masks, actions, returns = zip(*rows) if rows else ((), (), (), ())
    return (
        np.asarray(obs, np.float32),
        np.asarray(masks, bool),
        np.asarray(actions, np.int64),
        np.asarray(returns, np.float32),
    )


# ------------------------------------------------------------------------------ the fit
def fit(
    params,
    n: int,
    loss_of: Callable,
    *,
    epochs: int,
    batch_size: int,
    lr: float,
    seed: int,
    clip: float = 0.0,
    who: str = "rule bot",
    log=print,
) -> None:
    """Adam at ``lr`` over ``n`` samples, ``epochs`` times in minibatches of ``batch_size`` (the
    order shuffled by a stream seeded ``seed``), gradient norms clipped to ``clip`` (0: not
    clipped). ``loss_of(indices) -> (loss, hits)``: the target's loss on those samples and how many
    of them the net's best move is ``who``'s; each epoch is logged."""
    params = list(params)
    optimizer = torch.optim.Adam(params, lr=lr)
    rng = np.random.default_rng(seed)
    for epoch in range(epochs):
        order = rng.permutation(n)
        total, hits = 0.0, 0
        for start in range(0, n, batch_size):
            idx = order[start : start + batch_size]
            loss, hit = loss_of(idx)
            optimizer.zero_grad()
            loss.backward()
            if clip:
                torch.nn.utils.clip_grad_norm_(params, clip)
            optimizer.step()
            total += float(loss.detach()) * len(idx)
            hits += hit
        log(
            f"warm start epoch {epoch + 1}/{epochs}: picks the {who}'s move {hits / max(n, 1):.0%}, "
            f"loss {total / max(n, 1):.3f}"
        )


@torch.no_grad()
def accuracy(loss_of: Callable, n: int, chunk: int = 4096) -> float:
    """How often the net's best move is the bot's over all ``n`` samples (``loss_of``'s hits)."""
    hits = sum(loss_of(np.arange(start, min(start + chunk, n)))[1] for start in range(0, n, chunk))
    return hits / max(n, 1)
