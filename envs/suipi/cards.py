"""Suipi's card tables: S12 keys, numeric values (S2) and points (S16) by card id."""

from __future__ import annotations

from cardzoo.envs.suipi.config import SuipiConfig

CARD_KEY = tuple((c >> 2) + 1 for c in range(52))  # S12 key: A=1 .. K=13
NVAL_11 = tuple(((c >> 2) + 1) if (c >> 2) <= 9 else 0 for c in range(52))
NVAL_23 = CARD_KEY
IS_SPADE = tuple(1 if (c & 3) == 0 else 0 for c in range(52))
ACES = (0, 1, 2, 3)
TEN_D = 4 * 9 + 2
TWO_S = 4 * 1 + 0
JACK_D, QUEEN_D, KING_D = 4 * 10 + 2, 4 * 11 + 2, 4 * 12 + 2
POINTS_11 = tuple(
    1 if c in ACES else 2 if c == TEN_D else 1 if c == TWO_S else 0 for c in range(52)
)
POINTS_23 = tuple(
    POINTS_11[c] + (3 if c == JACK_D else 4 if c == QUEEN_D else 5 if c == KING_D else 0)
    for c in range(52)
)


def card_values(config: SuipiConfig) -> tuple:
    """Numeric value of every card id (0 for a valueless court card in the 11-point game)."""
    return NVAL_23 if config.court_values else NVAL_11


def card_points(config: SuipiConfig) -> tuple:
    """S16 points of every card id."""
    return POINTS_23 if config.court_values else POINTS_11
