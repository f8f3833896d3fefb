"""The checkpoint architectures as numpy forward passes: what plays a checkpoint without torch.

Each class is one architecture's face as a checkpoint (``architecture``: the sidecar's name for it;
"policy", the oldest, is also what a sidecar without the field means; ``META_FIELDS``: sidecar
fields it needs beyond the common ones; ``shapes_of(meta)``: its tensors' names and shapes, checked
before anything is built; ``describe(meta)``: one line for model cards) and its inference: built
``from_state(meta, state)`` out of the checked float32 arrays, played by ``agent(meta, config,
seed)``. The torch modules that train them (``policy.MaskedPolicyNet``, ``ranker.MoveRankerNet``)
hold the same tensors under the same names and compute the same function; tests/test_numpy_nets.py
checks that both choose the same moves. A new architecture is a new class in ``ARCHITECTURES``
(and its torch module in ``networks.NETWORKS``); nothing else branches on it.
"""

from __future__ import annotations

import itertools

import numpy as np

from cardzoo.envs.errors import UserError
from cardzoo.training.agents.net_agents import PolicyAgent, RankerAgent, whole_moves_reader


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0, out=x)


def _tanh(x: np.ndarray) -> np.ndarray:
    return np.tanh(x, out=x)


def _linear(x: np.ndarray) -> np.ndarray:
    return x


# The activations a checkpoint may name (in place on a fresh float32 array); "linear" is none (a
# value network linear in every card's place: its expectation over a deal is exact card by card).
ACTIVATIONS = {"tanh": _tanh, "relu": _relu, "linear": _linear}


class _Arrays:
    """What both architectures share: their float32 weights by name, as a checkpoint holds them."""

    META_FIELDS: tuple = ()

    def __init__(self, state: dict[str, np.ndarray], activation: str):
        if activation not in ACTIVATIONS:
            raise UserError(f"activation must be one of {', '.join(ACTIVATIONS)}, got {activation!r}")
        self._state = {k: np.ascontiguousarray(v, dtype=np.float32) for k, v in state.items()}
        self.activation, self._act = activation, ACTIVATIONS[activation]

    def state_dict(self) -> dict[str, np.ndarray]:
        """The weights by name (what ``checkpoint.save_checkpoint`` writes)."""
        return dict(self._state)

    @classmethod
    def shapes_of(cls, meta: dict) -> dict[str, tuple[int, ...]]:
        raise NotImplementedError


class PolicyMLP(_Arrays):
    """Action logits from the observation (``MaskedPolicyNet``'s function); the checkpoint
    architecture ``"policy"`` (the default: its sidecars carry no ``architecture`` field)."""

    architecture = "policy"

    def __init__(
        self, state: dict[str, np.ndarray], obs_size: int, num_actions: int, hidden: list[int], activation: str = "tanh"
    ):
        super().__init__(state, activation)
        self.obs_size, self.num_actions, self.hidden = obs_size, num_actions, [int(h) for h in hidden]
        self._layers = [
            (self._state[f"policy_net.{2 * i}.weight"].T, self._state[f"policy_net.{2 * i}.bias"])
            for i in range(len(self.hidden))
        ]
        self._out = (self._state["action_net.weight"].T, self._state["action_net.bias"])

    @staticmethod
    def parameter_shapes(obs_size: int, num_actions: int, hidden: list[int]) -> dict[str, tuple[int, ...]]:
        """The tensors' names and shapes (``MaskedPolicyNet``'s ``state_dict``: each Linear of
        ``policy_net`` is followed by its activation, hence the even indices)."""
        shapes: dict[str, tuple[int, ...]] = {}
        width = obs_size
        for i, h in enumerate(hidden):
            shapes[f"policy_net.{2 * i}.weight"] = (h, width)
            shapes[f"policy_net.{2 * i}.bias"] = (h,)
            width = h
        shapes["action_net.weight"] = (num_actions, width)
        shapes["action_net.bias"] = (num_actions,)
        return shapes

    @classmethod
    def shapes_of(cls, meta: dict) -> dict[str, tuple[int, ...]]:
        return cls.parameter_shapes(meta["obs_size"], meta["num_actions"], meta["hidden"])

    @classmethod
    def from_state(cls, meta: dict, state: dict[str, np.ndarray]) -> PolicyMLP:
        return cls(state, meta["obs_size"], meta["num_actions"], meta["hidden"], meta["activation"])

    def sidecar_fields(self) -> dict:
        return {}

    @staticmethod
    def describe(meta: dict) -> str:
        shape = f"observation {meta['obs_size']}, {meta['num_actions']} actions"
        return f"MLP {meta['hidden']} ({meta['activation']}), {shape}"

    def agent(self, meta: dict, config=None, seed: int | None = None) -> PolicyAgent:
        return PolicyAgent(self, meta, seed)

    def logits(self, observation: np.ndarray) -> np.ndarray:
        """The action logits of one observation: [O] -> [A]."""
        hidden = np.asarray(observation, dtype=np.float32)
        for weight_t, bias in self._layers:
            hidden = self._act(hidden @ weight_t + bias)
        weight_t, bias = self._out
        return hidden @ weight_t + bias

    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator | None = None) -> int:
        """Best legal action (or a sample from the masked softmax when ``rng`` is given)."""
        if rng is None:
            return int(np.argmax(self._masked(observation, action_mask)))
        probs = self.probabilities(observation, action_mask)
        return int(rng.choice(len(probs), p=probs / probs.sum()))

    def probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """The masked softmax of the logits (float64), 0 at illegal actions."""
        logits = self._masked(observation, action_mask).astype(np.float64)
        exp = np.exp(logits - logits.max())
        return exp / exp.sum()

    def _masked(self, observation, action_mask) -> np.ndarray:
        mask = np.asarray(action_mask) > 0
        if not mask.any():
            raise UserError("empty action mask: this seat is not acting")
        return np.where(mask, self.logits(observation), np.float32(-np.inf))


class RankerMLP(_Arrays):
    """Q of each complete move from the observation and the move's feature row
    (``MoveRankerNet``'s function); the checkpoint architecture ``"move_ranker"``. The first
    layer's observation share is computed once per decision and added to every candidate's."""

    architecture = "move_ranker"
    META_FIELDS: tuple = ("move_features",)

    def __init__(
        self,
        state: dict[str, np.ndarray],
        obs_size: int,
        move_features: int,
        hidden: list[int],
        activation: str = "relu",
        num_actions: int = 0,
    ):
        super().__init__(state, activation)
        self.obs_size, self.move_features, self.num_actions = obs_size, move_features, num_actions
        self.hidden = [int(h) for h in hidden]
        s = self._state
        self._obs_in = (s["obs_in.weight"].T, s["obs_in.bias"])
        self._move_in = s["move_in.weight"].T
        self._trunk = [
            (s[f"trunk.{2 * i + 1}.weight"].T, s[f"trunk.{2 * i + 1}.bias"]) for i in range(len(self.hidden) - 1)
        ]
        self._q_out = (s["q_out.weight"][0], s["q_out.bias"][0])

    @staticmethod
    def parameter_shapes(obs_size: int, move_features: int, hidden: list[int]) -> dict[str, tuple[int, ...]]:
        """The tensors' names and shapes (``MoveRankerNet``'s ``state_dict``: the trunk starts with
        an activation and each of its Linears follows one, hence the odd indices)."""
        shapes = {
            "obs_in.weight": (hidden[0], obs_size),
            "obs_in.bias": (hidden[0],),
            "move_in.weight": (hidden[0], move_features),
        }
        for i, (a, b) in enumerate(itertools.pairwise(hidden)):
            shapes[f"trunk.{2 * i + 1}.weight"] = (b, a)
            shapes[f"trunk.{2 * i + 1}.bias"] = (b,)
        shapes["q_out.weight"] = (1, hidden[-1])
        shapes["q_out.bias"] = (1,)
        return shapes

    @classmethod
    def shapes_of(cls, meta: dict) -> dict[str, tuple[int, ...]]:
        return cls.parameter_shapes(meta["obs_size"], meta["move_features"], meta["hidden"])

    @classmethod
    def from_state(cls, meta: dict, state: dict[str, np.ndarray]) -> RankerMLP:
        return cls(
            state, meta["obs_size"], meta["move_features"], meta["hidden"], meta["activation"], meta["num_actions"]
        )

    def sidecar_fields(self) -> dict:
        return {"architecture": self.architecture, "move_features": self.move_features}

    @staticmethod
    def describe(meta: dict) -> str:
        return (
            f"a Q network {meta['hidden']} ({meta['activation']}) over the observation ({meta['obs_size']}) "
            f"and each complete legal move's {meta['move_features']} features"
        )

    def agent(self, meta: dict, config=None, seed: int | None = None) -> RankerAgent:
        return RankerAgent(
            self, whole_moves_reader(meta["game"], config), meta, seed, trust=float(meta.get("trust", 0.0))
        )

    def scores(self, observation: np.ndarray, moves: np.ndarray) -> np.ndarray:
        """Q of every candidate move of one decision: [O], [K, F] -> [K]."""
        weight_t, bias = self._obs_in
        obs_part = np.asarray(observation, dtype=np.float32) @ weight_t + bias
        return self._q(obs_part + np.asarray(moves, dtype=np.float32) @ self._move_in)

    def batch_scores(self, observations: np.ndarray, moves: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """Q of every candidate of several decisions in one pass: [D, O], D x [K_d, F] -> (the Qs
        of all candidates in order, [sum K_d]; where each decision's start, [D])."""
        sizes = np.fromiter((len(m) for m in moves), np.int64, len(moves))
        weight_t, bias = self._obs_in
        obs_part = np.asarray(observations, dtype=np.float32) @ weight_t + bias
        rows = np.concatenate(moves).astype(np.float32, copy=False)
        q = self._q(np.repeat(obs_part, sizes, axis=0) + rows @ self._move_in)
        return q, np.concatenate([[0], np.cumsum(sizes)[:-1]])

    def best_scores(self, observations: np.ndarray, moves: list[np.ndarray]) -> np.ndarray:
        """The highest Q of each of several decisions in one pass: [D, O], D x [K_d, F] -> [D]."""
        q, starts = self.batch_scores(observations, moves)
        return np.maximum.reduceat(q, starts)

    def _q(self, first: np.ndarray) -> np.ndarray:
        """Q from the first layer's pre-activation (a fresh array, changed in place): [N, H] -> [N]."""
        hidden = self._act(first)
        for weight_t, bias in self._trunk:
            hidden = self._act(hidden @ weight_t + bias)
        weight, bias = self._q_out
        return hidden @ weight + bias


class ValueMLP(_Arrays):
    """A full-information value network (the checkpoint architecture ``"value"``): what the rest of
    a match is worth to one seat, from where every card is and the state's numbers, as the game's
    ``CHANCE`` model reads them (``cardzoo.envs.chance``). It never plays; luck-adjusted
    evaluation (``cardzoo.training.evaluation.luck``) asks it about the states chance could have
    made. Input: each card's location code seen from the seat, one-hot (``deck`` x ``codes``),
    then the ``numbers``; ``obs_size`` is their total, ``num_actions`` 1 (the value)."""

    architecture = "value"
    META_FIELDS: tuple = ("deck", "codes", "numbers")

    def __init__(self, state: dict[str, np.ndarray], deck: int, codes: int, numbers: int, hidden, activation="relu"):
        super().__init__(state, activation)
        self.deck, self.codes, self.numbers = deck, codes, numbers
        self.obs_size, self.num_actions, self.hidden = deck * codes + numbers, 1, [int(h) for h in hidden]
        first = self._state["net.0.weight"].T  # [obs, h0]
        self._cards = first[: deck * codes].reshape(deck, codes, -1)
        self._numbers = first[deck * codes :]
        self._bias = self._state["net.0.bias"]
        self._layers = [
            (self._state[f"net.{2 * i}.weight"].T, self._state[f"net.{2 * i}.bias"]) for i in range(1, len(self.hidden))
        ]
        self._out = (self._state["out.weight"][0], self._state["out.bias"][0])

    @staticmethod
    def parameter_shapes(deck: int, codes: int, numbers: int, hidden: list[int]) -> dict[str, tuple[int, ...]]:
        """``ValueNet``'s ``state_dict`` (training/value/net.py): Linears with an activation between."""
        shapes: dict[str, tuple[int, ...]] = {}
        width = deck * codes + numbers
        for i, h in enumerate(hidden):
            shapes[f"net.{2 * i}.weight"] = (h, width)
            shapes[f"net.{2 * i}.bias"] = (h,)
            width = h
        shapes["out.weight"] = (1, width)
        shapes["out.bias"] = (1,)
        return shapes

    @classmethod
    def shapes_of(cls, meta: dict) -> dict[str, tuple[int, ...]]:
        return cls.parameter_shapes(meta["deck"], meta["codes"], meta["numbers"], meta["hidden"])

    @classmethod
    def from_state(cls, meta: dict, state: dict[str, np.ndarray]) -> ValueMLP:
        return cls(state, meta["deck"], meta["codes"], meta["numbers"], meta["hidden"], meta["activation"])

    def sidecar_fields(self) -> dict:
        return {"architecture": self.architecture, "deck": self.deck, "codes": self.codes, "numbers": self.numbers}

    @staticmethod
    def describe(meta: dict) -> str:
        return (
            f"a value network {meta['hidden']} ({meta['activation']}) over every card's place "
            f"and {meta['numbers']} numbers"
        )

    def agent(self, meta: dict, config=None, seed: int | None = None):
        raise UserError("a value network does not play: it is for `cardzoo eval --adjust luck`")

    def values(self, codes: np.ndarray, numbers: np.ndarray) -> np.ndarray:
        """The value of each state: ``codes`` [B, deck] location codes seen from the seat,
        ``numbers`` [B, numbers] -> [B]. The one-hot first layer is a sum of gathered rows."""
        hidden = self._cards[np.arange(self.deck), codes].sum(axis=1)
        hidden += np.asarray(numbers, dtype=np.float32) @ self._numbers + self._bias
        hidden = self._act(hidden)
        for weight_t, bias in self._layers:
            hidden = self._act(hidden @ weight_t + bias)
        weight, bias = self._out
        return hidden @ weight + bias


ARCHITECTURES = {cls.architecture: cls for cls in (PolicyMLP, RankerMLP, ValueMLP)}
DEFAULT = PolicyMLP.architecture


def architecture_of(meta: dict):
    """The numpy class of a (checked) checkpoint sidecar's architecture."""
    return ARCHITECTURES[meta.get("architecture", DEFAULT)]
