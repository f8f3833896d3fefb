"""The value network in torch, for training (``cardzoo model value``): ``numpy_nets.ValueMLP``'s
function with its tensors under the same names (``net.{0,2,...}``, ``out``), so a saved checkpoint
evaluates in numpy."""

from __future__ import annotations

import torch
from torch import nn

from cardzoo.training.agents.numpy_nets import ValueMLP
from cardzoo.training.agents.policy import ACTIVATIONS


class ValueNet(nn.Module):
    """What the rest of a match is worth to a seat: each card's location code seen from the seat
    (one-hot) and the state's numbers -> one value."""

    architecture = ValueMLP.architecture

    def __init__(self, deck: int, codes: int, numbers: int, hidden: list[int], activation: str = "relu"):
        super().__init__()
        layers: list[nn.Module] = []
        width = deck * codes + numbers
        for h in hidden:
            layers += [nn.Linear(width, h), ACTIVATIONS[activation]()]  # ValueMLP.parameter_shapes names this layout
            width = h
        self.net = nn.Sequential(*layers)
        self.out = nn.Linear(width, 1)
        self.deck, self.codes, self.numbers = deck, codes, numbers
        self.obs_size, self.num_actions = deck * codes + numbers, 1
        self.hidden, self.activation = [int(h) for h in hidden], activation

    def forward(self, codes: torch.Tensor, numbers: torch.Tensor) -> torch.Tensor:
        """``codes`` [B, deck] (long), ``numbers`` [B, numbers] -> [B]."""
        first = self.net[0]
        assert isinstance(first, nn.Linear)
        cards = self.deck * self.codes  # the one-hot part of the input: a sum of one row per card
        rows = codes + torch.arange(self.deck, device=codes.device) * self.codes
        hidden = nn.functional.embedding_bag(rows, first.weight[:, :cards].t().contiguous(), mode="sum")
        hidden = hidden + numbers @ first.weight[:, cards:].t() + first.bias
        return self.out(self.net[1:](hidden)).squeeze(1)

    @classmethod
    def from_meta(cls, meta: dict) -> ValueNet:
        return cls(meta["deck"], meta["codes"], meta["numbers"], meta["hidden"], meta["activation"])

    def sidecar_fields(self) -> dict:
        return {"architecture": self.architecture, "deck": self.deck, "codes": self.codes, "numbers": self.numbers}
