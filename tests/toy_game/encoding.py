"""High card's observation, declared once as ``LAYOUT``."""

from __future__ import annotations

import numpy as np

from cardzoo.envs.layout import Layout, Piece
from tests.toy_game.engine import HighCardEngine

MAX_PLAYERS = 4
LAYOUT = Layout(
    [
        Piece("hand", 52, "own hand"),
        Piece("trick", 52, "cards in the current trick"),
        Piece("num_players", MAX_PLAYERS - 1, "number of players one-hot (2, 3, 4)"),
        Piece("acting", 1, "1 if this seat is the acting seat"),
    ]
)
HAND, TRICK, NUM_PLAYERS, ACTING = (LAYOUT.offset(p.name) for p in LAYOUT)


def layout(config=None) -> Layout:
    return LAYOUT


def encode(e: HighCardEngine, seat: int) -> np.ndarray:
    o = np.zeros(LAYOUT.size, dtype=np.float32)
    o[[HAND + card for card in e.hands[seat]]] = 1.0
    o[[TRICK + card for card, _ in e.trick]] = 1.0
    o[NUM_PLAYERS + e.n - 2] = 1.0
    o[ACTING] = float(e.turn == seat and not e.done)
    return o
