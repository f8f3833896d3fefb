"""The agents that play a network: ``PolicyAgent`` (a policy's best action) and ``RankerAgent``
(the complete move of highest Q, one sub-step per call), with ``whole_moves_reader``, the game's
complete-move reader a ranker plays through. Pure numpy: the network is any object with the
architecture's methods (``act``/``probabilities`` of a policy, ``scores`` of a ranker), the numpy
forward passes of ``numpy_nets`` that play the checkpoints or the torch modules being trained.
"""

from __future__ import annotations

import importlib

import numpy as np

from cardzoo.envs.errors import UserError
from cardzoo.envs.registry import game_spec


class PolicyAgent:
    """A trained policy behind the agent protocol (greedy; ``sample=True`` samples)."""

    advice_unit = "p"  # ``advise`` gives probabilities

    def __init__(self, net, meta: dict, seed: int | None = None, sample: bool = False):
        self.net, self.meta = net, meta
        self.name = meta.get("name", "checkpoint")
        self.rng = np.random.default_rng(seed) if sample else None

    def reset(self) -> None:
        pass

    def act(self, observation, action_mask) -> int:
        return self.net.act(observation, action_mask, self.rng)

    def advise(self, observation, action_mask) -> list[tuple[tuple[int, ...], float]]:
        """Each legal action with the policy's probability of it, most likely first."""
        probs = self.net.probabilities(observation, action_mask)
        legal = np.flatnonzero(np.asarray(action_mask))
        return sorted((((int(a),), float(probs[a])) for a in legal), key=lambda m: -m[1])


def whole_moves_reader(game: str, config=None):
    """The game's complete-move reader for ``config``; a one-line error for games without one."""
    target = game_spec(game).whole_moves
    if target is None:
        raise UserError(
            f"{game} declares no WHOLE_MOVES reader: it cannot be played by a move ranker, "
            f"train it with the PPO trainer instead"
        )
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)(config)


class RankerAgent:
    """Plays the complete move of highest Q, one sub-step per call.

    With ``epsilon`` > 0 it explores (a uniformly random complete move with that probability).
    With ``trust`` > 0 it keeps to the rule bot's move (the reader's ``rule_bot_moves``) unless
    another move's Q is higher by more than ``trust``: small Q differences are mostly estimation
    noise, and the bot's move is the safe default there (a checkpoint's ``"trust"`` field).
    When ``record`` is a list, each real choice (more than one candidate) appends
    ``(observation, chosen feature row)`` to it: the training samples of Deep Monte-Carlo.
    """

    advice_unit = "Q"  # ``advise`` gives Q estimates (reward to the end of the match)

    def __init__(
        self,
        net,
        reader,
        meta: dict | None = None,
        seed: int | None = None,
        epsilon: float = 0.0,
        record: list | None = None,
        trust: float = 0.0,
    ):
        self.net, self.reader = net, reader
        self.trust = trust
        self.meta = meta or {}
        self.name = self.meta.get("name", "checkpoint")
        self.rng = np.random.default_rng(seed)
        self.epsilon, self.record = epsilon, record
        self._plan: tuple | None = None  # (seat-state signature, action ids of the chosen move)
        self._rest: tuple[int, ...] = ()  # the sub-steps of the plan after the one last returned

    def reset(self) -> None:
        self._plan = None
        self._rest = ()

    def pending_steps(self) -> tuple:
        """The sub-steps this agent will play next, in order, whatever it is shown (the rest of the
        complete move its last ``act``/``finish`` began or continued); () when it must be asked."""
        return self._rest

    def advise(self, observation, action_mask) -> list[tuple[tuple[int, ...], float]]:
        """Every complete move from here with its Q estimate (the seat's return to the end of the
        match), best first — what ``act`` weighs, from this observation alone. Changes no plan."""
        mask = np.asarray(action_mask)
        state = self.reader.read(observation)
        seqs, rows = self.reader.candidates(state, mask)
        if not seqs:
            return []
        q = self.net.scores(np.asarray(observation, dtype=np.float32), rows)
        k = len(state.prefix)
        out = [(tuple(int(a) for a in seq[k:]), float(v)) for seq, v in zip(seqs, q)]
        return sorted(out, key=lambda m: -m[1])

    def act(self, observation, action_mask) -> int:
        move, pending = self.prepare(observation, action_mask)
        if pending is None:
            assert move is not None  # prepare's contract: a move, or what it needs
            return move
        return self.finish(pending, self.net.scores(pending[0], pending[1]))

    def prepare(self, observation, action_mask) -> tuple[int | None, tuple | None]:
        """``act`` up to the network: (the move, None) when it needs no Q, else (None, pending), to
        be ended by ``finish(pending, Q of pending's candidates)`` — so a caller can score the
        decisions of many agents of one network in one pass (the DMC collector's frozen opponents)."""
        mask = np.asarray(action_mask)
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise UserError("empty action mask: this seat is not acting")
        self._rest = ()
        state = self.reader.read(observation)
        k = len(state.prefix)
        if self._plan is not None and k:  # part-way through a composed move: keep to the plan
            signature, seq = self._plan
            if signature == state.signature and seq[:k] == state.prefix and len(seq) > k and mask[seq[k]]:
                self._rest = tuple(int(a) for a in seq[k + 1 :])
                return int(seq[k]), None
        if legal.size == 1:
            return int(legal[0]), None
        seqs, rows = self.reader.candidates(state, mask)
        if not seqs:  # cannot happen with a consistent mask; stay legal
            return int(legal[self.rng.integers(legal.size)]), None
        observation = np.asarray(observation, dtype=np.float32)
        if len(seqs) == 1:
            return self._play(observation, rows, seqs, state, 0), None
        if self.epsilon and self.rng.random() < self.epsilon:
            return self._play(observation, rows, seqs, state, int(self.rng.integers(len(seqs)))), None
        return None, (observation, rows, seqs, state)

    def finish(self, pending: tuple, q: np.ndarray) -> int:
        """The move of a ``prepare``d decision, given its candidates' Q (the trust margin applied)."""
        observation, rows, seqs, state = pending
        best = int(np.argmax(q))
        if self.trust > 0:
            bots = np.flatnonzero(self.reader.rule_bot_moves(rows))
            if bots.size:
                bot = int(bots[np.argmax(q[bots])])
                if q[best] - q[bot] <= self.trust:
                    best = bot
        return self._play(observation, rows, seqs, state, best)

    def _play(self, observation, rows, seqs, state, best: int) -> int:
        if self.record is not None and len(seqs) > 1:
            self.record.append((observation, rows[best]))
        self._plan = (state.signature, seqs[best])
        k = len(state.prefix)
        self._rest = tuple(int(a) for a in seqs[best][k + 1 :])
        return int(seqs[best][k])
