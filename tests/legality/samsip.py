"""Sam Sip legality from docs/rules/samsip.md (P7 wild cards, P8 turn, P9 winning hands, P10, P11).

Card ids: 0..51 are 4*rank + suit (rank A=0 .. K=12), 52..54 jokers. Action ids (docs/samsip.md):
discard card id (a joker: 52), 53 draw the stock, 54 take the discard, 55 declare.
"""

from __future__ import annotations

from functools import cache

DISCARD_JOKER, DRAW_STOCK, TAKE_DISCARD, DECLARE = 52, 53, 54, 55
JOKER_IDS = (52, 53, 54)


def wild_and_dead(indicator: int, wild_scheme: str) -> tuple[frozenset, frozenset]:
    """P7 (and the Khi variant of 2.5): the wild cards and the cards that cannot pair."""
    if indicator in JOKER_IDS:  # only the 2 other jokers are wild
        return frozenset(j for j in JOKER_IDS if j != indicator), frozenset()
    rank = indicator // 4
    same_rank = frozenset(rank * 4 + s for s in range(4) if rank * 4 + s != indicator)
    if wild_scheme == "indicator":
        return frozenset(JOKER_IDS) | same_rank, frozenset()
    # Khi: the indicator's rank is dead; the complement 10 - x (A..9, value = rank + 1) is wild
    wild = set(JOKER_IDS)
    value = rank + 1
    if value <= 9 and 10 - value != value:
        comp = 10 - value - 1
        wild |= {comp * 4 + s for s in range(4)}
    return frozenset(wild), same_rank


def natural_pair(a: int, b: int) -> bool:
    """P9(a): A..9 summing to 10, or 10+10, J+J, Q+Q, K+K."""
    ra, rb = a // 4, b // 4
    if ra <= 8 and rb <= 8:
        return (ra + 1) + (rb + 1) == 10
    return ra == rb


def three_pairs(cards, wild, dead) -> bool:
    """Brute force: can the 6 cards be split into 3 disjoint pairs?"""
    cards = list(cards)
    if not cards:
        return True
    a, rest = cards[0], cards[1:]
    for i, b in enumerate(rest):
        if a in wild or b in wild:
            ok = True
        elif a in dead or b in dead or a in JOKER_IDS or b in JOKER_IDS:
            ok = False
        else:
            ok = natural_pair(a, b)
        if ok and three_pairs(rest[:i] + rest[i + 1 :], wild, dead):
            return True
    return False


def special_hand(cards, wild, wild_in_specials: bool) -> bool:
    """P9(b) three aces + three of another rank; P9(c) six of one suit. By default wild cards are
    their natural selves (jokers have no rank or suit); with wild_in_specials they stand for any."""
    subs = [c for c in cards if wild_in_specials and c in wild]
    fixed = [c for c in cards if c not in subs]
    if any(c in JOKER_IDS for c in fixed):
        return False
    ranks = [c // 4 for c in fixed]
    for other in range(1, 13):
        if all(r in (0, other) for r in ranks) and ranks.count(0) <= 3 and ranks.count(other) <= 3:
            return True  # the substitutes make up the rest (3 - aces, 3 - others)
    return len({c % 4 for c in fixed}) <= 1


@cache
def _wins(hand: tuple, wild: frozenset, dead: frozenset, wild_in_specials: bool) -> bool:
    return three_pairs(hand, wild, dead) or special_hand(hand, wild, wild_in_specials)


def wins(hand, indicator: int, config) -> bool:
    if len(hand) != 6:
        return False
    wild, dead = wild_and_dead(indicator, config.wild_scheme)
    return _wins(tuple(sorted(hand)), wild, dead, config.wild_in_specials)


def legal_moves(engine) -> set[int]:
    """The acting player's legal moves, from the public record of the hand."""
    cfg = engine.config
    seat = engine.turn
    hand = list(engine.hands[seat])
    drawing = len(hand) == 5  # P8: 5 cards between turns, 6 during a turn
    if drawing:
        assert engine.stock, "P11: an empty stock is settled without a decision"
        moves = {DRAW_STOCK}
        last = engine.events[-1] if engine.events else None
        # P8: the face-up card the previous player discarded, not yet taken (the dealer's first
        # turn of a hand has none)
        if last is not None and last[2] == -1:
            previous = (seat - 1) % engine.n
            while not engine.active[previous]:
                previous = (previous - 1) % engine.n
            assert last[0] == previous, "P8: the discard in front of you is the previous player's"
            moves.add(TAKE_DISCARD)
        return moves
    assert len(hand) == 6
    moves = {c if c < 52 else DISCARD_JOKER for c in hand}
    won = wins(hand, engine.indicator, cfg)
    if cfg.auto_declare:
        assert not won, "P10: a winning 6-card hand is declared at once"
    elif won:
        moves.add(DECLARE)
    return moves
