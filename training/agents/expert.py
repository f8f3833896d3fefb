"""The expert: determinized search over the deals a seat could be facing (PIMC), over the moves
the shipped model ranks highest, with the model's own estimate at the leaves.

At a real decision (more than one complete move) the expert

1. asks the game's shipped model (a ``RankerAgent``) for its complete moves and their Q, and keeps
   the ``width`` best;
2. deals ``samples`` determinizations: the engine protocol's ``resample_hidden(seat, rng)`` — every
   card the seat has not seen dealt anew (and the future shuffles), so a determinization depends
   only on what the seat knows and on the expert's own random stream;
3. in each, plays every kept move, then the other seats (``answer``) by the game's strongest
   scripted player (its teacher where it declares one, else the rule bot) or, in Siantappo and
   Suipi by default, by the model itself (forced moves play themselves) up to the seat's next real decision
   or the end of the match, and values the leaf as the reward the seat
   earned on the way plus the model's best Q there (its return to come). A game settled deal by
   deal (Sam Sip: it declares ``deal_index``) is played on by the scripted player at every seat to
   the end of the deal instead, and the leaf is worth what the deal paid;
4. plays the move of highest mean value where it is clearly better than the model's own first
   choice (its highest Q; a checkpoint's ``trust`` margin toward the rule bot's move is not
   applied): by more than twice the standard error of their paired difference over the
   determinizations (and more than ``margin``); else the model's move.

Honest by construction: the true engine is only ever asked for ``resample_hidden(seat)``; no other
field is read (a test permutes the unseen cards among the other seats and sees the same choices).
Budget: ``samples`` x ``width`` leaves per decision (``expert:SAMPLES``, default 8).

Device: the leaves' batched valuation runs where ``device`` says (the constructor's argument, else
the ``CARDZOO_EXPERT_DEVICE`` variable: auto, cpu or cuda; default cpu, as evaluation's worker
processes each hold their own expert): on the CPU through the model's own network (for the shipped
model its numpy forward pass: no torch), elsewhere through its torch module there; the model's
per-decision advice stays on the CPU.
"""

from __future__ import annotations

import copy
import os
import random

import numpy as np

from cardzoo.envs.base import action_mask
from cardzoo.envs.errors import UserError
from cardzoo.envs.registry import game_spec
from cardzoo.envs.whole_moves import read_state
from cardzoo.training.agents.belief import DEFAULT_CANDIDATES, check_supported, weighted_worlds
from cardzoo.training.agents.net_agents import RankerAgent

DEFAULT_SAMPLES = 8
DEVICE_ENV = "CARDZOO_EXPERT_DEVICE"  # where the leaves are valued when the constructor does not say
DEFAULT_WIDTH = 5
SAMPLERS = ("uniform", "belief")  # how the determinizations are dealt (training/agents/belief.py)
ANSWERS = ("scripted", "model")  # who plays the other seats in the leaves' play
# The game's default answer, the one that made the stronger expert in Siantappo and Suipi (the
# figures and their commands: docs/evaluation.md); in Sam Sip the scripted player (its lookahead
# teacher) answers.
DEFAULT_ANSWER = {"siantappo": "model", "suipi": "model"}


def default_answer(game: str) -> str:
    """Who answers for the other seats in a game's expert when nobody says."""
    return DEFAULT_ANSWER.get(game, "scripted")


def _on_device(net, name: str):
    """``net`` where the leaves are valued: the model's own forward pass on the CPU (numpy for the
    shipped model: no torch, the core install), else its torch module on the device. That is the
    one way from the expert to torch (``networks.on_device``), taken only when a GPU is asked for."""
    if name == "cpu":
        return net
    from cardzoo.training.agents.networks import on_device

    return on_device(net, name, f"the expert's device ({DEVICE_ENV})")


def standard_error(x: np.ndarray, weights: list[int]) -> float:
    """The standard error of the mean of ``x`` over worlds drawn ``weights`` times each (with
    every weight 1, the sample standard deviation over the square root of the count): a world
    drawn twice is one observation, not two."""
    if len(x) < 2:
        return 0.0
    w = np.asarray(weights, dtype=float)
    mean = np.average(x, weights=w)
    return float(np.sqrt((w**2 * (x - mean) ** 2).sum() / w.sum() ** 2 * len(x) / (len(x) - 1)))


class ExpertAgent:
    """``act_in(env, seat)``: the move of ``seat`` in ``env``'s match, by the search above."""

    advice_unit = "reward"

    def __init__(
        self,
        game_module,
        config,
        model,
        seed: int | None = None,
        samples: int = DEFAULT_SAMPLES,
        width: int = DEFAULT_WIDTH,
        margin: float = 0.0,
        answer: str | None = None,
        device: str | None = None,
        sampler: str = "uniform",
    ):
        if samples < 1 or width < 1:
            raise UserError(f"expert: samples and width must be >= 1, got {samples} and {width}")
        answer = answer or default_answer(game_module.GAME)
        if answer not in ANSWERS:
            raise UserError(f"expert: answer must be one of {', '.join(ANSWERS)}, got {answer!r}")
        if sampler not in SAMPLERS:
            raise UserError(f"expert: sampler must be one of {', '.join(SAMPLERS)}, got {sampler!r}")
        self.model, self.samples, self.width, self.margin = model, samples, width, margin
        self.sampler = sampler
        self._scorer = game_module.RuleBot(config, seed=0)  # the belief sampler's model of the other seats
        if sampler == "belief":
            check_supported(self._scorer, game_module.GAME)
        self._leaf_net = _on_device(model.net, device or os.environ.get(DEVICE_ENV, "cpu"))
        spec = game_spec(game_module.GAME)
        self._config = config
        self._player = self._model_player if answer == "model" else spec.teacher or game_module.RuleBot
        self.deal_index = spec.deal_index  # settled deal by deal: leaves are played out to the deal's end
        # Over the agent's life (not reset between matches): the decisions it searched, and those
        # where it played another move than the model's first choice (``cardzoo bench --agents``).
        self.searches = self.departures = 0
        self.seed(seed)

    def _model_player(self, config, seed: int):
        """An answering player that plays as the model does (its network and trust margin)."""
        m = self.model
        return RankerAgent(m.net, m.reader, m.meta, seed=seed, trust=m.trust)

    def seed(self, seed: int | None) -> None:
        """New random streams (the determinizations, the answering players' tie breaks), so a game
        depends on this seed only, not on the games played before it."""
        self._seed = seed
        self.reset()

    def reset(self) -> None:
        self.rng = random.Random(self._seed)
        base = 0 if self._seed is None else self._seed
        self.bots = [self._player(self._config, seed=base * 16 + i) for i in range(self._config.num_players)]
        self.model.reset()
        self._plan: tuple[int, ...] | None = None  # (the action ids still to play of the chosen complete move)
        self._chosen: tuple[int, ...] | None = None  # the last complete move chosen afresh
        self.searched: dict = {}  # the last search's values (expert iteration's value targets)

    def planned_move(self) -> tuple | None:
        """The complete move of the last fresh choice, sub-steps played before it included (a new
        object at each choice; the warm start of expert iteration records it, as it does the Suipi
        rule bot's plan)."""
        return self._chosen

    def act(self, observation, action_mask) -> int:
        raise UserError(
            "the expert searches the match it plays in: it needs act_in(env, seat) "
            "(cardzoo eval, play and serve call it so)"
        )

    def act_in(self, env, seat: int) -> int:
        legal = env.legal_now()
        if self._plan and self._plan[0] in legal:  # part-way through a composed move
            action, self._plan = self._plan[0], self._plan[1:]
            return int(action)
        if len(legal) == 1:
            return int(legal[0])
        mask = env.mask_now()
        observation = env.encode_seat(seat)
        moves = self.model.advise(observation, mask)[: self.width]  # best first, each from here on
        done = tuple(self.model.reader.read(observation).prefix)  # sub-steps of this move already played
        self.searched = {}  # complete move -> its mean leaf value, for the moves this decision searched
        if len(moves) == 1:
            return self._play(done, moves[0][0])
        worlds, weights = self.worlds(env.engine, seat)
        values = self.leaf_values(env, seat, worlds, [seq for seq, _ in moves])  # [worlds, moves]
        means = np.average(values, axis=0, weights=weights)
        self.searched = {done + tuple(seq): float(v) for (seq, _), v in zip(moves, means)}
        best = int(np.argmax(means))  # first of equals: the model's order
        gain = values[:, best] - values[:, 0]  # paired: the same worlds for both moves
        if np.average(gain, weights=weights) <= max(self.margin, 2 * standard_error(gain, weights)):
            best = 0  # not clearly better than the model's own choice
        self.searches += 1
        self.departures += best != 0
        return self._play(done, moves[best][0])

    def _play(self, done: tuple, rest: tuple) -> int:
        """Play the first of ``rest``, the remainder of the complete move ``done + rest``."""
        chosen = self._chosen = tuple(int(a) for a in done + tuple(rest))
        self._plan = chosen[len(done) + 1 :]
        return chosen[len(done)]

    def leaf_values(self, env, seat: int, worlds: list, moves: list[tuple]) -> np.ndarray:
        """Each move's leaf value in each determinization [worlds, moves]; the model values every
        leaf that reached a decision of the seat in one batched pass."""
        scratch = copy.copy(env)  # encodes and lists moves of the determinized engines it is given
        earned = np.zeros((len(worlds), len(moves)))
        open_leaves, observations, rows = [], [], []
        for d, world in enumerate(worlds):
            for i, seq in enumerate(moves):
                earned[d, i], leaf = self._leaf(scratch, world.clone(), seat, seq)
                if leaf is not None:
                    open_leaves.append((d, i))
                    observations.append(leaf[0])
                    rows.append(leaf[1])
        if open_leaves:
            later = self._leaf_net.best_scores(np.stack(observations), rows)
            for (d, i), v in zip(open_leaves, later):
                earned[d, i] += v
        return earned

    def worlds(self, engine, seat: int) -> tuple[list, list[int]]:
        """The ``samples`` determinizations of one decision, each distinct world once with how
        many times it was drawn: dealt uniformly from the cards the seat has not seen, or
        (``sampler="belief"``) drawn by how likely each makes the others' moves."""
        if self.sampler == "belief":
            return weighted_worlds(engine, seat, self.rng, self.samples, DEFAULT_CANDIDATES, self._scorer)
        return [engine.resample_hidden(seat, self.rng) for _ in range(self.samples)], [1] * self.samples

    def _leaf(self, scratch, engine, seat: int, seq: tuple) -> tuple[float, tuple | None]:
        """Play ``seq``, then the others, to the seat's next real decision: the reward on the way,
        and there the seat's observation and candidate rows (None when the match ended first). In
        a game settled deal by deal, every seat plays on by the scripted player to the deal's end,
        and what the deal paid is the whole value (None)."""
        scratch.engine, scratch._legal_cache = engine, None
        deal = self.deal_index(scratch) if self.deal_index else None
        earned = 0.0
        for action in seq:
            earned += engine.apply_action(action).rewards.get(seat, 0.0)
        steps = 0
        while not engine.done and steps < 10_000:
            scratch._legal_cache = None
            if deal is not None and self.deal_index(scratch) != deal:
                break  # the deal is settled: what it paid is the value
            legal = engine.legal_actions()
            mover = engine.acting_seat
            if len(legal) == 1:
                action = legal[0]
            else:
                mask = action_mask(scratch.num_actions, legal)
                bot = self.bots[mover]
                fast = getattr(bot, "act_seat", None)  # a scripted player that reads the engine as the seat sees it
                if fast is not None and (mover != seat or deal is not None):
                    action = fast(engine, mover, mask)  # the move act() makes on the seat's observation
                else:
                    obs = scratch.encode_seat(mover)
                    if mover == seat and deal is None:
                        reader = self.model.reader
                        _, candidate_rows = reader.candidates(read_state(reader, engine, seat, obs), mask)
                        return earned, (obs, candidate_rows)
                    action = bot.act(obs, mask)
            earned += engine.apply_action(action).rewards.get(seat, 0.0)
            steps += 1
        return earned, None
