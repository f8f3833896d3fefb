"""A network that scores complete moves, and the agent that plays the best-scored one.

For games whose move is composed in sub-steps (Suipi: hand card, floor items, finish), a policy
over action ids must get several choices right in a row. The move ranker sees every complete legal
move as a feature row (the game's ``WHOLE_MOVES`` reader, ``cardzoo.envs.registry.GameSpec.whole_moves``)
and estimates Q(observation, move): the seat's return from here to the end of the match if it plays
that move (Deep Monte-Carlo, as DouZero does). The agent then emits the chosen move's sub-steps one
call at a time, so it plays through the ordinary ``act(observation, action_mask)`` protocol.

The first layer is split into an observation part and a move part: the observation's share is
computed once per decision and added to every candidate's.
"""

from __future__ import annotations

import importlib
import warnings

import numpy as np
import torch
from torch import nn

from cardzoo.envs.errors import UserError
from cardzoo.envs.registry import game_spec
from cardzoo.training.agents.policy import ACTIVATIONS

def sparse_csr(dense: torch.Tensor | None = None, *, parts: tuple = (), size: tuple = ()) -> torch.Tensor:
    """A sparse CSR matrix of a dense one, or of its ``parts`` (row starts, columns, values) and
    ``size``, for ``MoveRankerNet``'s first layer; without torch's once-a-process warning that
    these tensors are "in beta" (what they do here is tested: tests/test_move_ranker.py)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Sparse CSR tensor support is in beta", UserWarning)
        if dense is not None:
            return dense.to_sparse_csr()
        return torch.sparse_csr_tensor(*parts, size=size, check_invariants=False)  # callers build them well formed


class MoveRankerNet(nn.Module):
    """Q of each complete move from the observation and the move's feature row; the checkpoint
    architecture ``"move_ranker"``."""

    architecture = "move_ranker"
    META_FIELDS: tuple = ("move_features",)

    def __init__(self, obs_size: int, move_features: int, hidden: list[int], activation: str = "relu",
                 num_actions: int = 0):
        super().__init__()
        if activation not in ACTIVATIONS:
            raise UserError(f"activation must be one of {', '.join(ACTIVATIONS)}, got {activation!r}")
        self.obs_in = nn.Linear(obs_size, hidden[0])
        self.move_in = nn.Linear(move_features, hidden[0], bias=False)
        layers: list[nn.Module] = [ACTIVATIONS[activation]()]
        for a, b in zip(hidden, hidden[1:]):
            layers += [nn.Linear(a, b), ACTIVATIONS[activation]()]  # parameter_shapes relies on this layout
        self.trunk = nn.Sequential(*layers)
        self.q_out = nn.Linear(hidden[-1], 1)
        self.obs_size, self.move_features = obs_size, move_features
        self.num_actions = num_actions  # the env's action count, kept so a checkpoint can be matched to it
        self.hidden, self.activation = [int(h) for h in hidden], activation

    @staticmethod
    def parameter_shapes(obs_size: int, move_features: int, hidden: list[int]) -> dict[str, tuple[int, ...]]:
        shapes = {"obs_in.weight": (hidden[0], obs_size), "obs_in.bias": (hidden[0],),
                  "move_in.weight": (hidden[0], move_features)}
        for i, (a, b) in enumerate(zip(hidden, hidden[1:])):
            shapes[f"trunk.{2 * i + 1}.weight"] = (b, a)  # 2*i+1: each Linear follows an activation
            shapes[f"trunk.{2 * i + 1}.bias"] = (b,)
        shapes["q_out.weight"] = (1, hidden[-1])
        shapes["q_out.bias"] = (1,)
        return shapes

    # ---------------------------------------------------------------- as a checkpoint architecture
    @classmethod
    def shapes_of(cls, meta: dict) -> dict[str, tuple[int, ...]]:
        return cls.parameter_shapes(meta["obs_size"], meta["move_features"], meta["hidden"])

    @classmethod
    def from_meta(cls, meta: dict) -> "MoveRankerNet":
        return cls(meta["obs_size"], meta["move_features"], meta["hidden"], meta["activation"], meta["num_actions"])

    def sidecar_fields(self) -> dict:
        return {"architecture": self.architecture, "move_features": self.move_features}

    @staticmethod
    def describe(meta: dict) -> str:
        return (f"a Q network {meta['hidden']} ({meta['activation']}) over the observation ({meta['obs_size']}) "
                f"and each complete legal move's {meta['move_features']} features")

    def agent(self, meta: dict, config=None, seed: int | None = None):
        return RankerAgent(self, whole_moves_reader(meta["game"], config), meta, seed,
                           trust=float(meta.get("trust", 0.0)))

    def forward(self, obs: torch.Tensor, moves: torch.Tensor) -> torch.Tensor:
        """Q of each (observation row, move row) pair: [B, O], [B, F] -> [B]. ``obs`` dense or a
        sparse CSR matrix (the DMC learner's minibatches: a seat sees ~50 of its 633-1333 entries,
        and the first layer's product over them is a fraction of the dense one; the same function,
        rounded differently in the last bits)."""
        return self.q_out(self.trunk(self._obs_part(obs) + self.move_in(moves))).squeeze(-1)

    def candidates_q(self, obs: torch.Tensor, moves: torch.Tensor, sizes: torch.Tensor) -> torch.Tensor:
        """``forward`` of every candidate of several decisions, the observation's share computed
        once per decision: [D, O] (dense or sparse CSR), [sum K_d, F], the K_d [D] -> [sum K_d]."""
        obs_part = self._obs_part(obs).repeat_interleave(sizes, dim=0)
        return self.q_out(self.trunk(obs_part + self.move_in(moves))).squeeze(-1)

    def _obs_part(self, obs: torch.Tensor) -> torch.Tensor:
        if obs.layout == torch.sparse_csr:
            return torch.sparse.mm(obs, self.obs_in.weight.t()) + self.obs_in.bias
        return self.obs_in(obs)

    @torch.no_grad()
    def scores(self, observation: np.ndarray, moves: np.ndarray) -> np.ndarray:
        """Q of every candidate move of one decision: [O], [K, F] -> [K]."""
        obs_part = self.obs_in(torch.as_tensor(observation, dtype=torch.float32))
        hidden = self.trunk(obs_part + self.move_in(torch.as_tensor(moves)))
        return self.q_out(hidden).squeeze(-1).numpy()

    @torch.no_grad()
    def batch_scores(self, observations: np.ndarray, moves: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """Q of every candidate of several decisions in one pass: [D, O], D x [K_d, F] -> (the Qs
        of all candidates in order, [sum K_d]; where each decision's start, [D])."""
        device = self.obs_in.weight.device  # the inputs go where the network is (the expert's ``device``)
        sizes = np.fromiter((len(m) for m in moves), np.int64, len(moves))
        rows_of = torch.from_numpy(np.repeat(np.arange(len(moves)), sizes)).to(device)
        observations = torch.as_tensor(observations, dtype=torch.float32, device=device)
        obs_part = self.obs_in(observations).index_select(0, rows_of)
        q = self._q(obs_part, torch.as_tensor(np.concatenate(moves), device=device))
        return q.cpu().numpy(), np.concatenate([[0], np.cumsum(sizes)[:-1]])

    def _q(self, obs_part: torch.Tensor, moves: torch.Tensor) -> torch.Tensor:
        """``forward`` from each candidate's observation share, for the batched passes (the move
        share added inside its product, ReLUs in place: the same function, rounded differently in
        the last bits)."""
        hidden = torch.addmm(obs_part, moves, self.move_in.weight.t())
        if self.activation != "relu":
            return self.q_out(self.trunk(hidden)).squeeze(-1)
        hidden.relu_()
        for layer in self.trunk[1::2]:
            hidden = torch.addmm(layer.bias, hidden, layer.weight.t()).relu_()
        return torch.addmv(self.q_out.bias, hidden, self.q_out.weight[0])

    def best_scores(self, observations: np.ndarray, moves: list[np.ndarray]) -> np.ndarray:
        """The highest Q of each of several decisions in one pass: [D, O], D x [K_d, F] -> [D]."""
        q, starts = self.batch_scores(observations, moves)
        return np.maximum.reduceat(q, starts)


def whole_moves_reader(game: str, config=None):
    """The game's complete-move reader for ``config``; a one-line error for games without one."""
    target = game_spec(game).whole_moves
    if target is None:
        raise UserError(f"{game} declares no WHOLE_MOVES reader: it cannot be played by a move ranker, "
                        f"train it with the PPO trainer instead")
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

    def __init__(self, net: MoveRankerNet, reader, meta: dict | None = None, seed: int | None = None,
                 epsilon: float = 0.0, record: list | None = None, trust: float = 0.0):
        self.net, self.reader = net, reader
        self.trust = trust
        self.meta = meta or {}
        self.name = self.meta.get("name", "checkpoint")
        self.rng = np.random.default_rng(seed)
        self.epsilon, self.record = epsilon, record
        self._plan = None  # (seat-state signature, action ids of the chosen move)
        self._rest = ()  # the sub-steps of the plan after the one last returned

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
                self._rest = tuple(int(a) for a in seq[k + 1:])
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
        self._rest = tuple(int(a) for a in seqs[best][k + 1:])
        return int(seqs[best][k])
