"""The move ranker in torch, for training: a network that scores complete moves.

For games whose move is composed in sub-steps (Suipi: hand card, floor items, finish), a policy
over action ids must get several choices right in a row. The move ranker sees every complete legal
move as a feature row (the game's ``WHOLE_MOVES`` reader, ``cardzoo.envs.registry.GameSpec.whole_moves``)
and estimates Q(observation, move): the seat's return from here to the end of the match if it plays
that move (Deep Monte-Carlo, as DouZero does). ``net_agents.RankerAgent`` plays it; a checkpoint of
it plays through ``numpy_nets.RankerMLP``, the same function in numpy.

The first layer is split into an observation part and a move part: the observation's share is
computed once per decision and added to every candidate's.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import torch
from torch import nn

from cardzoo.envs.errors import UserError
from cardzoo.training.agents.net_agents import RankerAgent, whole_moves_reader
from cardzoo.training.agents.numpy_nets import RankerMLP
from cardzoo.training.agents.policy import ACTIVATIONS


def sparse_csr(dense: torch.Tensor | None = None, *, parts: tuple = (), size: tuple = ()) -> torch.Tensor:
    """A sparse CSR matrix of a dense one, or of its ``parts`` (row starts, columns, values) and
    ``size``, for ``MoveRankerNet``'s first layer; without torch's once-a-process warning that
    these tensors are "in beta" (what they do here is tested: tests/test_move_ranker.py)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Sparse CSR tensor support is in beta", UserWarning)
        if dense is not None:
            return dense.to_sparse_csr()
        crow, col, values = parts
        # callers build them well formed
        return torch.sparse_csr_tensor(crow, col, values, size=size, check_invariants=False)


class MoveRankerNet(nn.Module):
    """Q of each complete move from the observation and the move's feature row; the checkpoint
    architecture ``"move_ranker"``."""

    architecture = RankerMLP.architecture

    def __init__(
        self, obs_size: int, move_features: int, hidden: list[int], activation: str = "relu", num_actions: int = 0
    ):
        super().__init__()
        if activation not in ACTIVATIONS:
            raise UserError(f"activation must be one of {', '.join(ACTIVATIONS)}, got {activation!r}")
        self.obs_in = nn.Linear(obs_size, hidden[0])
        self.move_in = nn.Linear(move_features, hidden[0], bias=False)
        layers: list[nn.Module] = [ACTIVATIONS[activation]()]
        for a, b in itertools.pairwise(hidden):
            layers += [nn.Linear(a, b), ACTIVATIONS[activation]()]  # RankerMLP.parameter_shapes names this layout
        self.trunk: nn.Sequential = nn.Sequential(*layers)
        self.q_out = nn.Linear(hidden[-1], 1)
        self.obs_size, self.move_features = obs_size, move_features
        self.num_actions = num_actions  # the env's action count, kept so a checkpoint can be matched to it
        self.hidden, self.activation = [int(h) for h in hidden], activation

    # ---------------------------------------------------------------- as a checkpoint (numpy_nets.RankerMLP: the rest)
    @classmethod
    def from_meta(cls, meta: dict) -> MoveRankerNet:
        return cls(meta["obs_size"], meta["move_features"], meta["hidden"], meta["activation"], meta["num_actions"])

    sidecar_fields = RankerMLP.sidecar_fields  # the same fields, from the same attributes

    def agent(self, meta: dict, config=None, seed: int | None = None):
        """The agent that plays this network as it trains (a frozen opponent of the DMC collector)."""
        return RankerAgent(
            self, whole_moves_reader(meta["game"], config), meta, seed, trust=float(meta.get("trust", 0.0))
        )

    def forward(self, obs: torch.Tensor, moves: torch.Tensor) -> torch.Tensor:
        """Q of each (observation row, move row) pair: [B, O], [B, F] -> [B]. ``obs`` dense or a
        sparse CSR matrix (the DMC learner's minibatches: a seat sees few of its observation's
        entries, and the first layer's product skips the zeros; the same function, rounded
        differently in the last bits)."""
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
        obs = torch.as_tensor(observations, dtype=torch.float32, device=device)
        obs_part = self.obs_in(obs).index_select(0, rows_of)
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
        for layer in self.trunk[1::2]:  # type: ignore[attr-defined]  # a slice of a Sequential is one
            hidden = torch.addmm(layer.bias, hidden, layer.weight.t()).relu_()
        return torch.addmv(self.q_out.bias, hidden, self.q_out.weight[0])

    def best_scores(self, observations: np.ndarray, moves: list[np.ndarray]) -> np.ndarray:
        """The highest Q of each of several decisions in one pass: [D, O], D x [K_d, F] -> [D]."""
        q, starts = self.batch_scores(observations, moves)
        return np.maximum.reduceat(q, starts)
