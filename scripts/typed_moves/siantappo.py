"""Siantappo as typed: the cards of a combination (`7h 7s`, `q q`), `pass`; the cards typed are
the cards played (the action keeps only the top card's suit)."""

from __future__ import annotations

from cardzoo.envs.siantappo.actions import keys_str
from cardzoo.envs.siantappo.engine import SWAP
from cardzoo.scripts.typed_moves import Move


def read(env, text: str, seat: int) -> Move:
    action, keys = env.typed_move(text.strip())
    if not keys or env.engine.phase == SWAP:
        return Move((action,), env.action_text(action))
    shown = keys_str(keys)
    return Move((action,), shown, cards=env.chosen_cards((action,), shown))
