"""High card's action ids: play card ``id`` (0..51)."""

from __future__ import annotations

from cardzoo.envs.cards import card_str

NUM_ACTIONS = 52


def num_actions(config=None) -> int:
    return NUM_ACTIONS


def action_text(action: int) -> str:
    return card_str(action)
