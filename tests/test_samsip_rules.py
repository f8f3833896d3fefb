"""Sam Sip rules: worked examples of docs/rules/samsip.md 2.4, the P9 matcher, every variant flag."""

from __future__ import annotations

import dataclasses
import itertools
import random

import pytest

from cardzoo.envs.cards import JOKERS, parse_card, parse_cards
from cardzoo.envs.config import ConfigError
from cardzoo.envs.samsip import engine as E
from cardzoo.envs.samsip.actions import DECLARE, DRAW_STOCK, TAKE_DISCARD
from cardzoo.envs.samsip.config import SamSipConfig
from cardzoo.envs.samsip.engine import WIN_ACES, WIN_FLUSH, WIN_NONE, WIN_PAIRS, SamSipEngine, classify, wild_sets


def cards(text):
    return parse_cards(text, allow_jokers=True)


def kind(hand_text, indicator="6♦", **kw):
    wild, dead = wild_sets(parse_card(indicator), kw.pop("wild_scheme", "indicator"))
    return classify(cards(hand_text), wild, dead, **kw)


def stacked(n, hands, indicator, stock_top=(), dealer=0):
    """A 55-card deck (ids) dealing ``hands[seat]`` (5 cards each, by seat), then ``indicator``,
    then ``stock_top`` (drawn first); the other cards fill the missing hands and the stock."""
    used = [c for h in hands.values() for c in cards(h)] + cards(indicator) + cards(" ".join(stock_top))
    jokers_used = sum(1 for c in used if c >= 52)
    used = [c for c in used if c < 52]
    rest = [c for c in range(52) if c not in used] + list(JOKERS[jokers_used:])
    # filler hands get cards unlikely to pair with anything: take from the end (kings, queens...)
    rest.sort(key=lambda c: (c >= 52, -c))
    full = {}
    for s in range(n):
        if s in hands:
            full[s] = cards(hands[s])
        else:
            full[s] = [rest.pop(0) for _ in range(5)]
    order = [(dealer + i) % n for i in range(n)]
    deck = [full[s][i] for i in range(5) for s in order]
    deck += cards(indicator) + cards(" ".join(stock_top)) + rest
    # renumber jokers in order of appearance (ids 52..54 each once)
    it = iter(JOKERS)
    deck = [next(it) if c >= 52 else c for c in deck]
    assert sorted(deck) == list(range(55))
    return deck


def game(n=4, deck=None, **kw):
    kw.setdefault("first_dealer", 0)
    return SamSipEngine(SamSipConfig(num_players=n, **kw), random.Random(0), deck)


# ------------------------------------------------------------------------- 2.4 pairs
@pytest.mark.parametrize(
    "hand,wins",
    [
        ("3♣ 7♦ K♠ K♥ 4♦ Jk", True),  # 3+7, K+K, 4+Jk
        ("A♠ 9♥ 5♣ 5♦ 10♠ J♥", False),  # 10 and J do not pair
        ("A♠ 9♥ 5♣ 5♦ 10♠ 6♠", True),  # 6♠ is wild and pairs with the 10♠
        ("2♣ 2♦ 8♥ 8♠ Q♣ 6♥", True),  # 2+8, 2+8, Q+6♥ (wild)
    ],
)
def test_worked_pairs(hand, wins):
    assert (kind(hand) == WIN_PAIRS) is wins
    assert kind(hand) in ((WIN_PAIRS,) if wins else (WIN_NONE,))


def test_worked_specials():
    assert kind("A♣ A♦ A♥ 8♣ 8♦ 8♥") == WIN_ACES
    assert kind("2♥ 5♥ 9♥ J♥ Q♥ K♥") == WIN_FLUSH
    # not three pairs: A pairs only with 9, 8 only with 2
    _wild, _dead = wild_sets(parse_card("6♦"))
    c = [0] * 13
    for x in cards("A♣ A♦ A♥ 8♣ 8♦ 8♥"):
        c[x >> 2] += 1
    assert not E.is_three_pairs(c, 0)


def test_pairs_examples_through_the_engine():
    """The dealer's first draw completes 3♣ 7♦ K♠ K♥ 4♦ + Jk: the engine declares the win."""
    deck = stacked(4, {0: "3♣ 7♦ K♠ K♥ 4♦"}, "6♦", ["Jk"])
    g = game(4, deck)
    assert g.indicator == parse_card("6♦")
    assert g.wild == frozenset(cards("6♣ 6♥ 6♠")) | set(JOKERS)
    res = g.play(DRAW_STOCK)
    assert res is not None and res.winner == 0 and res.kind == WIN_PAIRS
    assert g.chips == [103, 99, 99, 99]


def test_win_only_on_six_cards_after_draw():
    # seat 1 holds a hand that a 6th card would complete; it cannot win out of turn.
    deck = stacked(3, {0: "2♣ 3♣ 4♣ 5♣ 7♦", 1: "K♠ K♥ Q♠ Q♥ J♣"}, "9♦", ["10♣", "J♦"])
    g = game(3, deck)
    assert g.play(DRAW_STOCK) is None  # 2♣ 3♣ 4♣ 5♣ 7♦ 10♣ does not win
    g.play(parse_card("10♣"))  # 10♣ lies in front of seat 1; it does not complete K K Q Q J
    assert g.turn == 1 and g.legal() == [DRAW_STOCK, TAKE_DISCARD]
    res = g.play(DRAW_STOCK)  # J♦ completes J+J
    assert res.winner == 1 and res.kind == WIN_PAIRS


# ------------------------------------------------------------------------- 2.4 stakes
def _win_hand(g, winner, win_cards="K♠ K♥ Q♠ Q♥ J♣", last="J♦"):
    """Re-deal the current hand so that ``winner`` wins: the dealer draws a card that does not
    help and discards it; play passes until ``winner`` draws ``last``."""
    n = g.n
    order = g.play_order(g.dealer)
    if winner == g.dealer:
        g.deal(stacked(n, {winner: win_cards}, "2♦", [last], dealer=g.dealer))
        return g.play(DRAW_STOCK)
    steps = order.index(winner)
    fillers = ["3♣", "3♠", "3♥", "4♣", "4♠"][:steps]
    g.deal(stacked(n, {winner: win_cards}, "2♦", fillers + [last], dealer=g.dealer))
    res = None
    for _ in range(steps):
        s = g.turn
        assert g.play(DRAW_STOCK) is None
        res = g.play(g.hands[s][-1])  # discard the card just drawn
        assert res is None
    return g.play(DRAW_STOCK)


def test_worked_stakes_doubling_with_elimination():
    g = game(4, bankroll=10, base_stake=1)
    A, B, C, D = 0, 1, 2, 3
    r = _win_hand(g, A)
    assert (r.winner, r.stake, g.chips, g.stake) == (A, 1, [13, 9, 9, 9], 2)
    r = _win_hand(g, B)
    assert (r.winner, r.stake, g.chips, g.stake) == (B, 2, [11, 15, 7, 7], 4)
    r = _win_hand(g, A)
    assert (r.winner, r.stake, g.chips, g.stake) == (A, 4, [23, 11, 3, 3], 8)
    assert g.dealer == A
    r = _win_hand(g, C)
    assert r.stake == 8 and r.eliminated == [D]
    assert g.chips == [15, 3, 22, 0] and sum(g.chips) == 40
    assert g.active == [True, True, True, False]
    assert g.stake == 1 and g.dealer == C  # the stake resets to 1 and C deals
    assert not g.done and g.n_active == 3
    assert len(g.hands[D]) == 0 and all(len(g.hands[s]) == 5 for s in (A, B, C))


def test_linear_stakes():
    g = game(4, bankroll=10, stake_progression="linear")
    stakes = []
    for w in (0, 1, 0, 2):
        stakes.append(_win_hand(g, w).stake)
    assert stakes == [1, 2, 3, 4]
    assert g.chips == [10 + 3 - 2 + 9 - 4, 9 + 6 - 3 - 4, 9 - 2 - 3 + 12, 9 - 2 - 3 - 4]


def test_base_stake_and_bankroll():
    g = game(3, bankroll=50, base_stake=5)
    assert g.chips == [50, 50, 50] and g.stake == 5
    _win_hand(g, 1)
    assert g.chips == [45, 60, 45] and g.stake == 10


def test_payer_with_balance_equal_to_stake_is_eliminated():
    g = game(3, bankroll=10)
    g.chips = [10, 2, 18]
    g.stake = 2
    r = _win_hand(g, 0)
    assert r.eliminated == [1] and g.chips == [14, 0, 16] and g.stake == 1


def test_match_ends_with_one_survivor_and_ranking():
    g = game(2, bankroll=3)
    r = _win_hand(g, 0)  # stake 1
    r = _win_hand(g, 0)  # stake 2: seat 1 has 2 <= 2 and is out
    assert r.eliminated == [1] and r.done and g.done
    assert g.ranking() == [1.0, 2.0]
    assert g.legal() == []


# ------------------------------------------------------------------------- P9 matcher
def _pairable(a, b, wild, dead):
    if a in wild or b in wild:
        return True
    if a in dead or b in dead:
        return False
    ra, rb = a >> 2, b >> 2
    if ra <= 8 and rb <= 8:
        return ra + rb + 2 == 10
    return ra == rb


def _brute_three_pairs(hand, wild, dead):
    """Reference: try every split of the 6 cards into 3 pairs."""
    first, rest = hand[0], hand[1:]
    for i, partner in enumerate(rest):
        if not _pairable(first, partner, wild, dead):
            continue
        others = rest[:i] + rest[i + 1 :]
        a = others[0]
        for j in range(1, 4):
            b = others[j]
            c, d = [x for k, x in enumerate(others[1:], 1) if k != j]
            if _pairable(a, b, wild, dead) and _pairable(c, d, wild, dead):
                return True
    return False


def _brute_aces(hand, wild, wild_in_specials):
    """Reference: try every assignment of the wild cards to ranks."""
    fixed = [c for c in hand if not (wild_in_specials and c in wild)]
    if any(c >= 52 for c in fixed):
        return False
    nw = len(hand) - len(fixed)
    for r in range(1, 13):
        for wa in range(nw + 1):
            ranks = [c >> 2 for c in fixed] + [0] * wa + [r] * (nw - wa)
            if ranks.count(0) == 3 and ranks.count(r) == 3:
                return True
    return False


def _brute_flush(hand, wild, wild_in_specials):
    fixed = [c for c in hand if not (wild_in_specials and c in wild)]
    return all(c < 52 for c in fixed) and len({c & 3 for c in fixed}) <= 1


def _brute_kind(hand, wild, dead, wis, mult):
    special = WIN_ACES if _brute_aces(hand, wild, wis) else WIN_FLUSH if _brute_flush(hand, wild, wis) else 0
    pairs = _brute_three_pairs(hand, wild, dead)
    if special and (mult > 1 or not pairs):
        return special
    return WIN_PAIRS if pairs else WIN_NONE


def _check_matcher(samples, seed):
    rng = random.Random(seed)
    deck = list(range(55))
    wins = 0
    for i in range(samples):
        scheme = "khi" if i % 3 == 2 else "indicator"
        wis = i % 4 == 3
        mult = 1 + (i % 5 == 4)
        picked = rng.sample(deck, 7)
        indicator, hand = picked[0], picked[1:]
        if i % 7 == 0:  # bias towards many wild cards / dead cards
            wild, dead = wild_sets(indicator, scheme)
            pool = list(wild | dead) + rng.sample(deck, 12)
            pool = [c for c in dict.fromkeys(pool) if c != indicator]
            hand = rng.sample(pool, 6)
        wild, dead = wild_sets(indicator, scheme)
        got = classify(hand, wild, dead, wis, mult)
        assert got == _brute_kind(hand, wild, dead, wis, mult), (hand, indicator, scheme, wis, mult)
        # the engine's incremental key + memo table agrees too
        key = 0
        for c in hand:
            tok = E.TOK_WILD if c in wild else E.TOK_DEAD if c in dead else c >> 2
            key += 1 << (3 * tok)
        assert E._tp_lookup(key) == _brute_three_pairs(hand, wild, dead)
        wins += got != WIN_NONE
    assert 0 < wins < samples


def test_matcher_against_brute_force_100k():
    _check_matcher(100_000, seed=1)


@pytest.mark.slow
def test_matcher_against_brute_force_1m():
    _check_matcher(1_000_000, seed=2)


def test_matcher_exhaustive_on_rank_multisets():
    """Every multiset of 6 tokens (13 ranks, wild, dead): matching method == brute force."""
    reps = {r: [4 * r + s for s in range(4)] for r in range(13)}
    wild_cards = [52, 53, 54, 0, 1, 2]  # any 6 ids, declared wild below
    dead_cards = [5, 6, 7, 9, 10, 11]
    for combo in itertools.combinations_with_replacement(range(15), 6):
        used = dict.fromkeys(range(13), 0)
        hand, ok = [], True
        nw = nd = 0
        for t in combo:
            if t == 13:
                hand.append(wild_cards[nw])
                nw += 1
            elif t == 14:
                hand.append(dead_cards[nd])
                nd += 1
            else:
                if used[t] >= 4:
                    ok = False
                    break
                hand.append(reps[t][used[t]])
                used[t] += 1
        if not ok or len(set(hand)) < 6:
            continue
        wild = set(wild_cards[:nw])
        dead = set(dead_cards[:nd])
        counts = [combo.count(r) for r in range(13)]
        assert E.is_three_pairs(counts, nw, nd) == _brute_three_pairs(hand, wild, dead), combo


# ------------------------------------------------------------------------- variants
def test_joker_indicator_two_jokers():
    deck = stacked(4, {}, "Jk", [])
    g = game(4, deck)
    assert g.indicator >= 52
    assert g.wild == frozenset(JOKERS) - {g.indicator} and len(g.wild) == 2
    assert len(g.stock) == 54 - 20


def test_joker_indicator_redraw():
    deck = stacked(4, {}, "Jk", ["Jk", "7♣"])
    g = game(4, deck, joker_indicator="redraw")
    assert g.indicator == parse_card("7♣")
    assert g.wild == frozenset(JOKERS) | frozenset(cards("7♠ 7♦ 7♥"))
    assert g.stock[0] >= 52 and g.stock[1] >= 52  # both jokers buried at the bottom
    assert len(g.stock) == 54 - 20 and len(set(g.accounted_cards())) == 55


def test_wild_in_specials():
    hand = "A♣ A♦ 6♠ 8♣ 8♦ 8♥"  # 6♠ wild (indicator 6♦)
    assert kind(hand) == WIN_NONE
    assert kind(hand, wild_in_specials=True) == WIN_ACES
    flush = "2♥ 5♥ 9♥ J♥ Q♥ Jk"
    assert kind(flush) == WIN_NONE
    assert kind(flush, wild_in_specials=True) == WIN_FLUSH
    # natural self of a wild-rank card still counts by default
    assert kind("A♣ A♦ A♥ 6♣ 6♠ 6♥") == WIN_PAIRS  # also special: paid as pairs when k = 1
    assert kind("A♣ A♦ A♥ 6♣ 6♠ 6♥", special_multiplier=2) == WIN_ACES


@pytest.mark.parametrize(
    "dealt,drawn,special",
    [
        ("A♣ A♦ 6♠ 8♣ 8♦", "8♥", WIN_ACES),  # 6♠ (wild) stands for the third ace
        ("2♥ 5♥ 9♥ J♥ Q♥", "Jk", WIN_FLUSH),  # the joker stands for a sixth heart
    ],
)
def test_wild_in_specials_through_the_engine(dealt, drawn, special):
    """P9/P10 with wild_in_specials: the dealer's first draw wins the special hand only under
    the flag (by default a wild card is its natural self and a joker has no rank or suit)."""
    for flag in (False, True):
        g = game(3, stacked(3, {0: dealt}, "6♦", [drawn]), bankroll=20, wild_in_specials=flag)
        res = g.play(DRAW_STOCK)
        if flag:
            assert res is not None and res.winner == 0 and res.kind == special
        else:
            assert res is None and g.hand_no == 1 and len(g.hands[0]) == 6


def test_special_multiplier_pays_k_times():
    # a flush that is also three pairs (2+8, 3+7, K+K): paid as pairs unless k > 1
    hand = "2♥ 8♥ 3♥ 7♥ K♥"
    for mult, amount in ((1, 1), (3, 3)):
        deck = stacked(3, {0: hand}, "9♦", ["10♥"])
        g = game(3, deck, special_multiplier=mult)
        res = g.play(DRAW_STOCK)  # 10♥: flush, not three pairs
        assert res.kind == WIN_FLUSH and res.amount == amount
        assert g.chips == [100 + 2 * amount, 100 - amount, 100 - amount]
    assert kind("2♥ 8♥ 3♥ 7♥ K♥ K♠") == WIN_PAIRS
    assert kind("2♥ 8♥ 3♥ 7♥ Q♥ 5♥") == WIN_FLUSH
    assert kind("2♥ 8♥ 3♥ 7♥ 4♥ 6♥", indicator="9♦") == WIN_PAIRS
    assert kind("2♥ 8♥ 3♥ 7♥ 4♥ 6♥", indicator="9♦", special_multiplier=2) == WIN_FLUSH


def test_khi_scheme():
    # indicator 3♦: the other 3s are dead, the 7s (10 - 3) are wild
    wild, dead = wild_sets(parse_card("3♦"), "khi")
    assert dead == frozenset(cards("3♣ 3♥ 3♠"))
    assert wild == frozenset(JOKERS) | frozenset(cards("7♣ 7♦ 7♥ 7♠"))
    assert kind("3♣ 3♥ K♠ K♥ 4♦ 6♦", indicator="3♦") == WIN_PAIRS  # 3s wild under the default
    assert kind("3♣ 3♥ K♠ K♥ 4♦ 6♦", indicator="3♦", wild_scheme="khi") == WIN_NONE  # dead 3s
    assert kind("3♣ 7♠ K♠ K♥ 4♦ 6♦", indicator="3♦", wild_scheme="khi") == WIN_PAIRS  # 7♠ wild
    assert kind("3♣ 3♥ K♠ K♥ 7♦ 7♠", indicator="3♦", wild_scheme="khi") == WIN_PAIRS  # dead+wild
    # self-complementary ranks: dead, and only the jokers are wild
    for ind in ("5♦", "10♦", "K♦"):
        wild, dead = wild_sets(parse_card(ind), "khi")
        assert wild == frozenset(JOKERS) and len(dead) == 3
    assert kind("5♣ 5♥ K♠ K♥ 4♦ 6♦", indicator="5♦", wild_scheme="khi") == WIN_NONE
    assert kind("5♣ 5♥ K♠ K♥ 4♦ 6♦", indicator="9♦", wild_scheme="khi") == WIN_PAIRS
    g = game(4, stacked(4, {}, "3♦"), wild_scheme="khi")
    assert g.dead == frozenset(cards("3♣ 3♥ 3♠"))


def _drain_stock(g, keep):
    """Move all but ``keep`` stock cards to the dead discards (as if passed over)."""
    while len(g.stock) > keep:
        g.dead_cards.append(g.stock.pop(0))


def test_stock_empty_void_hand():
    deck = stacked(3, {0: "2♣ 3♣ 4♣ 5♣ 7♦", 1: "K♠ Q♥ J♣ 10♣ 9♦"}, "6♦", ["10♠"])
    g = game(3, deck, bankroll=20)
    g.stake = 4
    _drain_stock(g, 1)
    assert g.play(DRAW_STOCK) is None
    res = g.play(parse_card("10♠"))  # stock now empty; 10♠ does not win for seat 1
    assert res is not None and res.winner is None and res.kind == WIN_NONE
    assert g.chips == [20, 20, 20] and g.stake == 4 and g.dealer == 0 and g.hand_no == 2
    assert len(g.stock) == 54 - 15


def test_stock_empty_winning_take():
    deck = stacked(3, {0: "2♣ 3♣ 4♣ 5♣ 7♦", 1: "K♠ K♥ Q♠ Q♥ J♣"}, "6♦", ["J♦"])
    g = game(3, deck)
    _drain_stock(g, 1)
    g.play(DRAW_STOCK)
    res = g.play(parse_card("J♦"))  # seat 1 takes J♦ automatically and wins
    assert res.winner == 1 and res.kind == WIN_PAIRS and g.dealer == 1


def test_stock_empty_reshuffle():
    deck = stacked(3, {0: "2♣ 3♣ 4♣ 5♣ 7♦", 1: "K♠ Q♥ J♣ 10♣ 9♦"}, "6♦", ["10♠"])
    g = game(3, deck, on_stock_empty="reshuffle")
    _drain_stock(g, 1)
    dead = sorted(g.dead_cards)
    g.play(DRAW_STOCK)
    res = g.play(parse_card("10♠"))
    assert res is None and g.hand_no == 1
    assert sorted(g.stock) == dead and g.dead_cards == [] and g.live == parse_card("10♠")
    assert g.legal() == [DRAW_STOCK, TAKE_DISCARD] and len(set(g.accounted_cards())) == 55


def _take_and_return(g):
    """The stalling policy of issue 10: take the discard whenever possible and throw it back."""
    if g.phase == E.PHASE_DRAW:
        return TAKE_DISCARD if TAKE_DISCARD in g.legal() else DRAW_STOCK
    c = g.hands[g.turn][-1]
    return c if c < 52 else E.DISCARD_JOKER


def _stall_deck(n, dealer, dealer_hand="2♣ 3♣ 4♣ 5♣ 7♦", next_hand="K♠ Q♥ J♣ 10♣ 9♦"):
    return stacked(n, {dealer: dealer_hand, (dealer + 1) % n: next_hand}, "6♦", ["10♠"], dealer=dealer)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_stalled_hand_is_void_at_the_3n_th_turn_without_a_stock_draw(n):
    """P11a worked example at every player count: the dealer draws 10♠ from the stock and throws
    it; then every player takes the discard and throws it back. The hand is void as soon as the
    3·n-th such turn is over (its discard), before the next player may draw: no payments, the
    stake unchanged, the same dealer deals hand 2."""
    dealer = n - 1
    g = game(n, _stall_deck(n, dealer), bankroll=20, first_dealer=dealer)
    g.stake = 4
    assert g.play(DRAW_STOCK) is None and g.play(parse_card("10♠")) is None
    stock = len(g.stock)
    assert stock == 54 - 5 * n - 1 and g.stall_limit == 3 * n
    for turn in range(1, 3 * n + 1):
        seat = (dealer + turn) % n
        assert g.turn == seat and g.hand_no == 1 and g.stalled_turns == turn - 1
        assert g.legal() == [DRAW_STOCK, TAKE_DISCARD]
        assert g.play(TAKE_DISCARD) is None  # the win test finds nothing
        assert g.stalled_turns == turn
        res = g.play(parse_card("10♠"))  # thrown back: the stock never shrinks
        assert len(g.stock) == stock or res is not None
        if turn < 3 * n:
            assert res is None
    # the 3n-th turn without a stock draw is over: the hand is void there and then
    assert res is not None and res.winner is None and res.kind == WIN_NONE
    assert res.void_reason == E.VOID_STALL and res.hand_no == 1 and res.stake == 4
    assert res.deltas == [0] * n and res.eliminated == [] and not res.done
    assert g.moves == 2 + 2 * 3 * n
    assert g.hand_no == 2 and g.chips == [20] * n and g.stake == 4 and g.dealer == dealer
    assert g.turn == dealer and g.phase == E.PHASE_DRAW and g.legal() == [DRAW_STOCK]
    assert g.stalled_turns == 0 and len(g.stock) == 54 - 5 * n and g.live == -1


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_stall_void_comes_before_the_next_player_may_draw_from_the_stock(n):
    """The old reading (issue 25) let the next player draw from the stock after the limit and go
    on; by P11a the hand is already void, so that player's draw is the new hand's first draw."""
    g = game(n, _stall_deck(n, 0), bankroll=20)
    g.play(DRAW_STOCK)
    g.play(parse_card("10♠"))
    results = []
    for _ in range(3 * n):
        g.play(TAKE_DISCARD)
        results.append(g.play(parse_card("10♠")))
    assert results[:-1] == [None] * (3 * n - 1) and results[-1].void_reason == E.VOID_STALL
    assert g.hand_no == 2 and len(g.results) == 1


def test_the_limit_th_take_may_still_win():
    """P10 before P11a: the win test follows the draw, so the 6th take in a row (2 players) wins
    when it makes a winning hand; only a turn that is over counts toward the stall."""
    # seat 0: 2+8, 3+7 and a 5 waiting for another 5; seat 1 holds the 5♠ and throws it at turn 5
    deck = _stall_deck(2, 0, dealer_hand="2♣ 8♣ 3♣ 7♣ 5♦", next_hand="K♠ Q♥ J♣ 10♣ 5♠")
    for winning in (True, False):
        g = game(2, deck, bankroll=20)
        g.stake = 4
        g.play(DRAW_STOCK)
        g.play(parse_card("10♠"))
        for turn in range(1, 6):
            assert g.play(TAKE_DISCARD) is None
            throw = "5♠" if (turn == 5 and winning) else "10♠"
            assert g.play(parse_card(throw)) is None
        assert g.stalled_turns == 5 and g.turn == 0
        res = g.play(TAKE_DISCARD)  # the 6th take in a row
        if winning:
            assert res is not None and res.winner == 0 and res.kind == WIN_PAIRS
            assert g.chips == [24, 16] and g.stake == 8 and g.dealer == 0
        else:
            assert res is None
            res = g.play(parse_card("10♠"))
            assert res.void_reason == E.VOID_STALL and g.chips == [20, 20] and g.stake == 4


def test_stall_counter_resets_on_a_stock_draw_and_stall_turns_variant():
    """A stock draw resets the count; with stall_turns=3 (3 players) the 3rd turn in a row
    without a stock draw voids the hand when it is over."""
    deck = stacked(3, {0: "2♣ 3♣ 4♣ 5♣ 7♦", 1: "K♠ Q♥ J♣ 10♣ 9♦", 2: "K♥ Q♠ J♦ 10♦ 9♠"}, "6♦", ["10♠", "8♣"])
    g = game(3, deck, stall_turns=3)
    assert g.stall_limit == 3
    g.play(DRAW_STOCK)
    g.play(parse_card("10♠"))
    g.play(TAKE_DISCARD)  # seat 1: one turn without a stock draw
    g.play(parse_card("10♠"))
    assert g.stalled_turns == 1
    g.play(DRAW_STOCK)  # seat 2 draws 8♣
    assert g.stalled_turns == 0
    g.play(parse_card("8♣"))
    for turn in range(1, 4):
        assert g.hand_no == 1
        g.play(TAKE_DISCARD)
        res = g.play(g.hands[g.turn][-1])
        assert (res is None) is (turn < 3)
    assert res.void_reason == E.VOID_STALL and g.hand_no == 2


def test_stall_limit_counts_active_players_only():
    """3·n_active: after an elimination the limit of a 4-player match drops to 9."""
    g = game(4, None, bankroll=20)
    assert g.stall_limit == 12
    g.chips[3] = 1
    g._win(0, WIN_PAIRS)  # seat 0 wins hand 1; seat 3 cannot pay and is out
    assert not g.active[3] and g.n_active == 3 and g.hand_no == 2 and g.stall_limit == 9


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("variant", [{}, {"on_stock_empty": "reshuffle"}, {"auto_declare": False}])
def test_take_and_return_matches_end(n, variant):
    """Issue 10: two seats trading one card forever used to hang evaluation; now every hand ends."""
    for seed in range(3):
        g = SamSipEngine(SamSipConfig(num_players=n, **variant), random.Random(seed))
        moves = 0
        while not g.done:
            g.step(_take_and_return(g))
            moves += 1
            assert moves < 20_000
        stalls = [r for r in g.results if r.void_reason == E.VOID_STALL]
        assert stalls and all(r.winner is None and not any(r.deltas) for r in stalls)
        assert sum(g.chips) == n * g.config.bankroll


def test_reshuffles_are_bounded():
    """P11a: with on_stock_empty='reshuffle', the stock is rebuilt at most max_reshuffles times."""
    deck = stacked(3, {0: "2♣ 3♣ 4♣ 5♣ 7♦", 1: "K♠ Q♥ J♣ 10♣ 9♦"}, "6♦", ["10♠"])
    for limit, void in ((1, False), (0, True)):
        g = game(3, deck, on_stock_empty="reshuffle", max_reshuffles=limit)
        _drain_stock(g, 1)
        g.play(DRAW_STOCK)
        res = g.play(parse_card("10♠"))
        assert (res is not None and res.void_reason == E.VOID_STOCK) is void
        assert g.reshuffles == (0 if void else 1)


def test_auto_declare_off():
    deck = stacked(4, {0: "3♣ 7♦ K♠ K♥ 4♦"}, "6♦", ["Jk"])
    g = game(4, deck, auto_declare=False)
    assert g.play(DRAW_STOCK) is None
    assert DECLARE in g.legal() and len(g.legal()) == 7  # 5 cards + a joker + declare
    res = g.play(DECLARE)
    assert res.winner == 0
    g = game(4, deck, auto_declare=False)
    g.play(DRAW_STOCK)
    assert g.play(parse_card("K♠")) is None  # holding back: the hand goes on
    assert DECLARE not in g.legal() and g.turn == 1


def test_max_hands_cap_and_survivor_ranking():
    g = game(3, max_hands=1)
    res = _win_hand(g, 1)
    assert res.done and g.done and g.hand_no == 1
    assert g.ranking() == [2.5, 1.0, 2.5]  # seats 0 and 2 tie on chips


def test_elimination_tiebreak():
    for tiebreak, expected in (("tie", [1.0, 2.0, 3.5, 3.5]), ("balance", [1.0, 2.0, 3.0, 4.0])):
        g = game(4, bankroll=10, elimination_tiebreak=tiebreak)
        g.chips = [10, 16, 8, 6]
        g.stake = 8
        res = _win_hand(g, 0)
        assert sorted(res.eliminated) == [2, 3]
        assert g.ranking() == expected


def test_first_dealer_and_deal_order():
    deck = list(range(55))
    g = SamSipEngine(SamSipConfig(num_players=3, first_dealer=2), random.Random(0), deck)
    assert g.dealer == 2 and g.turn == 2
    assert g.hands[2] == [0, 3, 6, 9, 12] and g.hands[0] == [1, 4, 7, 10, 13]
    assert g.hands[1] == [2, 5, 8, 11, 14]
    assert g.indicator == 15 and g.stock[-1] == 16 and g.stock[0] == 54
    dealers = {SamSipEngine(SamSipConfig(num_players=5), random.Random(s)).dealer for s in range(40)}
    assert dealers == set(range(5))


@pytest.mark.parametrize(
    "field,value",
    [
        ("num_players", 1),
        ("num_players", 7),
        ("num_players", "4"),
        ("bankroll", 0),
        ("base_stake", 0),
        ("base_stake", 101),
        ("stake_progression", "triple"),
        ("joker_indicator", "bury"),
        ("wild_in_specials", 1),
        ("special_multiplier", 0),
        ("wild_scheme", "thai"),
        ("on_stock_empty", "redeal"),
        ("auto_declare", "yes"),
        ("max_hands", 0),
        ("elimination_tiebreak", "chips"),
        ("first_dealer", 4),
        ("reward", "win"),
        ("stall_turns", 3),
        ("stall_turns", -1),
        ("stall_turns", 2.5),
        ("max_reshuffles", -1),
    ],
)
def test_bad_config(field, value):
    with pytest.raises(ConfigError, match=field) as e:
        SamSipConfig(**{field: value})
    assert isinstance(e.value, ValueError)


def test_config_is_frozen():
    cfg = SamSipConfig()
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.num_players = 3  # type: ignore[misc]  # the point: it is frozen


def test_deal_rejects_bad_deck():
    g = game(3)
    with pytest.raises(ValueError, match="55"):
        g.deal(list(range(54)))
