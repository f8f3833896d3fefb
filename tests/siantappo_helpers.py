"""Helpers for Siantappo tests: stacked decks from hands, random play with invariant checks."""

from __future__ import annotations

from cardzoo.envs.cards import card_str, parse_cards


def deck_from_hands(hands: list[str], n: int) -> list[str]:
    """A 52-card stacked deck that deals the given (partial) hands to seats 0..n-1.

    The listed cards go to their seat; the remaining cards fill the hands in deck order so that
    every seat gets its share (18/17/17, 13 each, ...). deck[i] goes to seat i mod n.
    """
    wanted = [parse_cards(h) for h in hands] + [[] for _ in range(n - len(hands))]
    used = {c for h in wanted for c in h}
    rest = [c for c in range(52) if c not in used]
    sizes = [52 // n + (1 if i < 52 % n else 0) for i in range(n)]
    full = []
    for seat in range(n):
        h = list(wanted[seat])
        while len(h) < sizes[seat]:
            h.append(rest.pop(0))
        assert len(h) == sizes[seat], f"seat {seat} has too many cards"
        full.append(h)
    deck = []
    for i in range(52):
        deck.append(card_str(full[i % n][i // n]))
    return deck
