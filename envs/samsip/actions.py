"""Sam Sip's action ids: the id table and ids <-> move text.

Action ids (56)
---------------
=========  ===============================================================
id         move
=========  ===============================================================
0..51      ``discard <card>``: card id = 4*rank + suit (A..K x ♠ ♣ ♦ ♥)
52         ``discard Jk``: discard a joker (the lowest-id joker held; jokers are interchangeable)
53         ``draw stock``: draw the top card of the stock
54         ``take <card>``: take the discard lying in front of you
55         ``declare``: declare a winning 6-card hand (``auto_declare=False`` only)
=========  ===============================================================

The draw phase allows 53 (and 54 when a discard lies in front of the seat); the discard phase,
taken by the same seat, allows the held cards (and 55 when the 6-card hand wins and the win is not
declared automatically). The engine's moves are these same numbers.
"""

from __future__ import annotations

from cardzoo.envs.cards import NUM_STANDARD, card_str, parse_card
from cardzoo.envs.samsip.config import JOKER_KIND

DISCARD_JOKER = 52
DRAW_STOCK = 53
TAKE_DISCARD = 54
DECLARE = 55
NUM_ACTIONS = 56


def num_actions(config=None) -> int:
    """Action ids of every configuration."""
    return NUM_ACTIONS


def action_text(action: int, live: int = -1) -> str:
    """Text of an action id. ``live`` is the takeable discard (for ``take <card>``)."""
    if 0 <= action < NUM_STANDARD:
        return "discard " + card_str(action)
    if action == DISCARD_JOKER:
        return "discard Jk"
    if action == DRAW_STOCK:
        return "draw stock"
    if action == TAKE_DISCARD:
        return "take " + card_str(live) if live >= 0 else "take discard"
    if action == DECLARE:
        return "declare"
    raise ValueError(f"action must be 0..{NUM_ACTIONS - 1}, got {action}")


_DRAW_WORDS = {"draw", "stock", "draw stock", "d", "s", "draw from stock"}
_DECLARE_WORDS = {"declare", "win", "declare win"}


def text_to_action(text: str, live: int = -1) -> int:
    """Parse a move text (``draw stock``, ``take 7♥``, ``take``, ``discard 7h``, ``7h``, ``Jk``,
    ``declare``) to an action id, without checking legality. ValueError if unreadable."""
    t = " ".join(str(text).replace(",", " ").split()).lower()
    if not t:
        raise ValueError("empty move text")
    if t in _DRAW_WORDS:
        return DRAW_STOCK
    if t in _DECLARE_WORDS:
        return DECLARE
    if t in ("take", "take discard", "t", "pick", "pick up"):
        return TAKE_DISCARD
    words = t.split()
    if words[0] in ("take", "pick"):
        card = parse_card(words[-1])
        if live < 0 or min(card, JOKER_KIND) != min(live, JOKER_KIND):
            shown = card_str(live) if live >= 0 else "nothing"
            raise ValueError(f"cannot take {card_str(card)}: the discard in front of you is {shown}")
        return TAKE_DISCARD
    if words[0] in ("discard", "throw", "drop") and len(words) == 2:
        t = words[1]
    elif len(words) != 1:
        raise ValueError(f"{text!r} is not a move: say 'draw stock', 'take', 'discard 7h' or 'declare'")
    card = parse_card(t)
    return card if card < NUM_STANDARD else DISCARD_JOKER
