"""Siantappo legality from docs/rules/siantappo.md (T2 order, T4 combinations, T5 comparison,
T6 first lead, T7 tricks, T8 bombs, T11 swap choice) and the variants of 3.5.

Cards are T2 keys: 4 * rank + suit, rank 3=0 .. A=11, 2=12, suit ♠ ♣ ♦ ♥ = 0..3.
A combination is named (type, length in cards, key): the id table of envs/siantappo/actions.py
gives one id per type and top card, the other cards being any the player holds.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet

from cardzoo.envs.cards import parse_card
from cardzoo.envs.siantappo import actions as A

TWO = 12
SINGLE, PAIR, TRIPLE, QUAD, STRAIGHT, RUN = "single", "pair", "triple", "quad", "straight", "pairs"


def combination(keys):
    """T4: (type, number of cards, comparison key) of a card set, or None. Pair runs are
    (RUN, 2k, key of the highest card): k = 3 is the siantappo."""
    keys = sorted(keys)
    n = len(keys)
    ranks = [k // 4 for k in keys]
    if n == 0:
        return None
    if n == 1:
        return (SINGLE, 1, keys[0])
    if len(set(ranks)) == 1:
        if n == 2:
            return (PAIR, 2, keys[-1])  # T5: a pair by its higher card
        if n == 3:
            return (TRIPLE, 3, ranks[0])  # T5: triple and quad by rank
        if n == 4:
            return (QUAD, 4, ranks[0])
        return None
    distinct = sorted(set(ranks))
    consecutive = distinct == list(range(distinct[0], distinct[0] + len(distinct)))
    if TWO in distinct or not consecutive:
        return None  # straights and pair runs hold no 2
    if n >= 3 and len(distinct) == n:
        return (STRAIGHT, n, keys[-1])  # T5: by its highest card, equal lengths only
    if n >= 6 and n % 2 == 0 and all(ranks.count(r) == 2 for r in distinct):
        return (RUN, n, keys[-1])  # the highest card of the top pair
    return None


def beats(play, table, cfg) -> bool:
    """T5 and T8 (with the variants quad_beats_single_2 and long_pair_runs)."""
    t, n, key = play
    tt, tn, tkey = table
    if t == tt and n == tn:
        return key > tkey
    single_2 = tt == SINGLE and tkey // 4 == TWO
    pair_2s = tt == PAIR and tkey // 4 == TWO
    triple_2s = tt == TRIPLE and tkey == TWO
    if t == RUN and n == 6:
        return single_2  # a siantappo on a single 2 (not on a pair of 2s)
    if t == QUAD:
        return pair_2s or (single_2 and cfg.quad_beats_single_2)
    if t == RUN and n == 8 and cfg.long_pair_runs:
        return single_2 or pair_2s
    if t == RUN and n == 10 and cfg.long_pair_runs:
        return single_2 or pair_2s or triple_2s
    return False  # nothing else; nothing beats three 2s by default


def is_bomb(play, table) -> bool:
    """T8: pair runs, and a quad played on anything but a quad."""
    return play[0] == RUN or (play[0] == QUAD and table[0] != QUAD)


def action_id(comb) -> int | None:
    t, n, key = comb
    r, s = key // 4, key % 4
    if t == SINGLE:
        return key
    if t == PAIR:
        return A.pair_id(r, s)
    if t == TRIPLE:
        return A.TRIPLE_BASE + key
    if t == QUAD:
        return A.QUAD_BASE + key
    if t == STRAIGHT:
        return A.STRAIGHT_ID[(n, r, s)]
    kind = {6: A.SIANTAPPO, 8: A.RUN4, 10: A.RUN5}.get(n)
    return None if kind is None else A.run_id(kind, r, s)


def hand_keys(engine, seat) -> set[int]:
    masks = engine.hands[seat]
    return {4 * r + s for r in range(13) for s in range(4) if masks[r] >> s & 1}


def combinations_in(hand: set[int], required: int = -1):
    """Every combination (type, cards, key) that can be made from ``hand`` (and, when
    ``required`` >= 0, with a card set that contains it). Built rank by rank: the top card fixes
    the key, every other rank needs any card(s) of that rank (the top rank: lower suits)."""
    by_rank = {r: sorted(k for k in hand if k // 4 == r) for r in range(13)}
    out = set()

    def fits(ranks_needed: dict, top: int | None) -> bool:
        # ranks_needed: rank -> cards needed (the top card counts toward its own rank)
        for r, need in ranks_needed.items():
            have = by_rank[r]
            if top is not None and r == top // 4:
                if top not in have or sum(1 for k in have if k < top) < need - 1:
                    return False
            elif len(have) < need:
                return False
        if required < 0:
            return True
        rr = required // 4
        if required not in hand or rr not in ranks_needed:
            return False
        if top is not None and rr == top // 4:
            return required == top or (required < top and ranks_needed[rr] >= 2)
        return True

    for k in hand:
        r = k // 4
        if fits({r: 1}, k):
            out.add((SINGLE, 1, k))
        if fits({r: 2}, k):
            out.add((PAIR, 2, k))
        for L in range(3, 13):
            if r - L + 1 >= 0 and r != TWO and fits({r - i: 1 for i in range(L)}, k):
                out.add((STRAIGHT, L, k))
        for pairs in (3, 4, 5):
            if r - pairs + 1 >= 0 and r != TWO and fits({r - i: 2 for i in range(pairs)}, k):
                out.add((RUN, 2 * pairs, k))
    for r in range(13):
        if fits({r: 3}, None):
            out.add((TRIPLE, 3, r))
        if fits({r: 4}, None):
            out.add((QUAD, 4, r))
    return out


def legal_moves(engine) -> AbstractSet[int | None]:  # None: a combination with no id (a bug)
    """The acting seat's legal action ids."""
    cfg = engine.cfg
    if engine.phase == "swap":  # swap_choice: give any card of your hand (single ids)
        return hand_keys(engine, engine.acting)
    seat = engine.turn
    hand = hand_keys(engine, seat)
    assert hand, "T7: only a player who still has cards acts"
    if not engine.current_keys:  # a lead (T6/T7): no pass
        required = -1
        starter = A.CARD_TO_KEY[parse_card(cfg.starter_card)]
        if cfg.first_lead_must_include_3c and engine.round_index == 0 and not engine.log and starter in hand:
            required = starter
        combs = combinations_in(hand, required)
        leads = {c for c in combs if c[0] != RUN or (c[1] == 6 and cfg.siantappo_as_lead)}
        return {action_id(c) for c in leads}
    table = combination(engine.current_keys)
    assert table is not None, "the table holds a combination"
    answers = {c for c in combinations_in(hand) if beats(c, table, cfg)}
    if engine.passed[seat]:  # T7: a pass lasts the trick; bomb_after_pass: bombs only
        assert cfg.bomb_after_pass, "T7: a player who passed has no turn in this trick"
        answers = {c for c in answers if is_bomb(c, table)}
        assert answers, "bomb_after_pass: a passed player gets a turn only to bomb"
    return {action_id(c) for c in answers} | {A.PASS_ID}


def check_offered(engine, action: int) -> None:
    """The cards an offered action plays really are of its type, held, and beat the table."""
    if engine.phase == "swap" or action == A.PASS_ID:
        return
    keys = engine.action_cards(action)
    hand = hand_keys(engine, engine.turn)
    assert set(keys) <= hand and len(set(keys)) == len(keys), (action, keys)
    comb = combination(keys)
    assert comb is not None and action_id(comb) == action, (action, keys, comb)
    if engine.current_keys:
        assert beats(comb, combination(engine.current_keys), engine.cfg), (keys, engine.current_keys)
