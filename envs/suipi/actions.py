"""Suipi's action ids: the sub-step id table, complete move <-> ids, and ids / moves as text.

Actions (119 ids). A move is composed in sub-steps by the same seat:

====================  =========================================================================
id                    meaning
====================  =========================================================================
0..51                 step 1: play hand card ``c = id`` (card id = 4*rank + suit)
52..103               step 2 (repeatable): add the floor item whose representative (lowest)
                      card is ``c = id - 52``; items are added in strictly increasing ``c``
104                   finish: capture the chosen items
105..117              finish: build to value ``v = id - 104`` (1..13) with the chosen items
118                   finish: drop (trail) the hand card (no items chosen)
====================  =========================================================================

The mask allows an action only if some legal complete move extends the current prefix, so every
distinct legal outcome is reachable and nothing illegal is (the engine's ``move_trie``).

A complete move is a tuple ``(hand_card, mask, kind, value)``: ``mask`` is a bitmask over indices
of the floor (the items used), ``kind`` is CAPTURE / BUILD / DROP and ``value`` the build value (0
otherwise). Floor items are tuples ``(key, nval, cards, owner, locked, rep)`` (fields below; the
engine's docstring says what each holds); an action names an item by its ``rep``.
"""

from __future__ import annotations

from typing import Final

from cardzoo.envs.cards import card_str

# Sub-step action ids
NUM_ACTIONS = 119
ITEM0 = 52  # 52..103: add the floor item whose lowest card is id - 52
CAPTURE_ACTION = 104  # finish: capture the chosen items
BUILD0 = 104  # 105..117: finish: build to value id - 104
DROP_ACTION = 118  # finish: drop the hand card

CAPTURE, BUILD, DROP = 0, 1, 2  # the kind of a complete move
# fields of a floor item (Final: an item indexed by one of them has that field's type)
KEY: Final = 0
NVAL: Final = 1
CARDS: Final = 2
OWNER: Final = 3
LOCKED: Final = 4
REP: Final = 5

# The shapes of a floor item (key, nval, cards, owner, locked, rep) and a complete move
# (hand_card, mask, kind, value), for annotations.
Item = tuple[int, int, tuple[int, ...], int, bool, int]
Move = tuple[int, int, int, int]


def num_actions(config=None) -> int:
    """Action ids of every configuration."""
    return NUM_ACTIONS


def finish_action(kind: int, v: int) -> int:
    return CAPTURE_ACTION if kind == CAPTURE else DROP_ACTION if kind == DROP else BUILD0 + v


def move_actions(floor, move) -> tuple:
    """The sub-step action ids that play ``move`` on ``floor``."""
    h, mask, kind, v = move
    fin = CAPTURE_ACTION if kind == CAPTURE else DROP_ACTION if kind == DROP else BUILD0 + v
    if not mask:
        return (h, fin)
    acts = []
    i = 0
    while mask:
        if mask & 1:
            acts.append(ITEM0 + floor[i][REP])
        mask >>= 1
        i += 1
    acts.sort()
    return (h, *acts, fin)


# ------------------------------------------------------------------ text
def build_groups(item) -> list[list[int]]:
    """A build's cards in its groups, each worth the build's value (rules S9: a locked build is
    several groups, an unlocked one is one): ``[[2♠, 7♣], [9♠]]`` for a locked 9. Card values are
    the ranks (A=1 .. K=13: a court card is in a build only where courts have values)."""
    cards, value = sorted(item[CARDS], key=lambda c: (c >> 2, c & 3)), item[NVAL]
    if not item[LOCKED] or value <= 0:
        return [cards]

    def split(left: list[int]) -> list[list[int]] | None:
        if not left:
            return []
        top, rest = left[-1], left[:-1]  # the highest card starts a group
        for size in range(len(rest) + 1):
            for others in _combinations(rest, size):
                if (top >> 2) + 1 + sum((c >> 2) + 1 for c in others) == value:
                    after = split([c for c in rest if c not in others])
                    if after is not None:
                        return after + [[*others, top]]
        return None

    groups = split(cards)
    return sorted(groups, key=lambda g: (-len(g), g)) if groups else [cards]


def _combinations(cards, size):
    from itertools import combinations

    return combinations(cards, size)


def item_str(item) -> str:
    """``3♦`` for a loose card, ``[8♠+2♥=10]`` for a build; a locked build shows its groups and
    says so: ``[2♠+7♣ | 9♠=9, locked]`` (two groups worth 9 each, not 18)."""
    if item[OWNER] < 0:
        return card_str(item[CARDS][0])
    if not item[LOCKED]:
        return f"[{'+'.join(card_str(c) for c in sorted(item[CARDS]))}={item[NVAL]}]"
    groups = " | ".join("+".join(card_str(c) for c in g) for g in build_groups(item))
    return f"[{groups}={item[NVAL]}, locked]"


def move_text(floor, move) -> str:
    """Canonical move text: ``5♣ take 3♦+2♠``, ``2♥ build 10 on 8♠``, ``J♣ drop``.
    Items are listed in increasing order of their representative (lowest) card."""
    h, mask, kind, v = move
    if kind == DROP:
        return f"{card_str(h)} drop"
    items = sorted((floor[i] for i in range(len(floor)) if mask >> i & 1), key=lambda it: it[REP])
    listing = "+".join(item_str(it) for it in items)
    if kind == CAPTURE:
        return f"{card_str(h)} take {listing}"
    return f"{card_str(h)} build {v} on {listing}"


def action_text(action: int, floor=None) -> str:
    """Sub-step text: ``play 5♣``, ``with 3♦`` / ``with [8♠+2♥=10]``, ``take``, ``build 10``, ``drop``."""
    if 0 <= action < 52:
        return f"play {card_str(action)}"
    if action < 104:
        c = action - ITEM0
        if floor is not None:
            for it in floor:
                if it[REP] == c:
                    return f"with {item_str(it)}"
        return f"with {card_str(c)}"
    if action == CAPTURE_ACTION:
        return "take"
    if action == DROP_ACTION:
        return "drop"
    if action < NUM_ACTIONS:
        return f"build {action - BUILD0}"
    return f"action {action}"
