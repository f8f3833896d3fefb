"""Sam Sip engine: random-match invariants, clone, random_match."""

from __future__ import annotations

import random
from typing import Any

import pytest

from cardzoo.envs.samsip.actions import NUM_ACTIONS
from cardzoo.envs.samsip.config import SamSipConfig
from cardzoo.envs.samsip.engine import PHASE_DISCARD, SamSipEngine, random_match

VARIANTS: list[dict[str, Any]] = [
    {},
    {"stake_progression": "linear", "bankroll": 20, "base_stake": 2},
    {"joker_indicator": "redraw", "wild_scheme": "khi"},
    {"wild_in_specials": True, "special_multiplier": 3},
    {"on_stock_empty": "reshuffle", "elimination_tiebreak": "balance"},
    {"auto_declare": False, "max_hands": 5},
]


def check_match(config: SamSipConfig, rng: random.Random) -> SamSipEngine:
    """Play a random match, checking the invariants after every move."""
    n = config.num_players
    total = n * config.bankroll
    g = SamSipEngine(config, rng)
    all_cards = list(range(55))
    while not g.done:
        moves = g.legal()
        assert moves and len(set(moves)) == len(moves)
        assert all(0 <= m < NUM_ACTIONS for m in moves)
        stake_before = g.stake
        active_before = list(g.active)
        res = g.step(rng.choice(moves))
        assert sorted(g.accounted_cards()) == all_cards
        assert sum(g.chips) == total
        for s in range(n):
            if g.active[s]:
                assert g.chips[s] > 0
                want = 6 if (s == g.turn and g.phase == PHASE_DISCARD and not g.done) else 5
                assert len(g.hands[s]) == want or (g.done and len(g.hands[s]) in (5, 6))
            else:
                assert g.chips[s] == 0
                if not g.done:  # the final table keeps the last hand as it ended
                    assert g.hands[s] == [] and g.known[s] == []
        if res is not None:
            assert sum(res.deltas) == 0
            assert res.stake == stake_before
            assert [s for s in range(n) if active_before[s] and not g.active[s]] == sorted(res.eliminated)
            if res.winner is None:
                assert g.stake == stake_before and not any(res.deltas)
            elif res.eliminated:
                assert g.stake == config.base_stake  # the stake resets on elimination
            elif config.stake_progression == "double":
                assert g.stake == 2 * stake_before
            else:
                assert g.stake == stake_before + config.base_stake
            if res.winner is not None:
                assert g.dealer == res.winner
    assert g.n_active == 1 or g.hand_no == config.max_hands
    ranks = g.ranking()
    assert all(1 <= r <= n for r in ranks) and abs(sum(ranks) - n * (n + 1) / 2) < 1e-9
    check_ranks(g, ranks)
    if g.n_active == 1:
        assert ranks[g.active.index(True)] == 1.0
    return g


def check_ranks(g, ranks) -> None:
    """P13: survivors by chips ahead of the eliminated; the eliminated by the hand they went out in
    (later is better), then by their balance before it where the tie-break says so; equals share."""

    def key(s):  # bigger is better
        if g.active[s]:
            return (1, g.chips[s], 0)
        balance = g.elim_balance[s] if g.config.elimination_tiebreak == "balance" else 0
        return (0, g.elim_hand[s], balance)

    for a in range(g.n):
        for b in range(g.n):
            if key(a) > key(b):
                assert ranks[a] < ranks[b], (a, b, key(a), key(b), ranks)
            elif key(a) == key(b):
                assert ranks[a] == ranks[b], (a, b, key(a), ranks)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_random_matches_invariants(n):
    rng = random.Random(100 + n)
    for i in range(120):
        check_match(SamSipConfig(num_players=n, **VARIANTS[i % len(VARIANTS)]), rng)


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_random_matches_invariants_2000(n):
    rng = random.Random(1000 + n)
    for i in range(2000):
        check_match(SamSipConfig(num_players=n, **VARIANTS[i % len(VARIANTS)]), rng)


def test_cap_reached_with_survivors():
    g = check_match(SamSipConfig(num_players=4, max_hands=2), random.Random(5))
    assert g.done and g.hand_no == 2 and g.n_active >= 2


def test_random_match_counts_moves_and_is_deterministic():
    cfg = SamSipConfig(num_players=4)
    a = random_match(cfg, random.Random(7))
    b = random_match(cfg, random.Random(7))
    assert a == b and a > 10


def test_clone_is_independent_and_equal():
    rng = random.Random(3)
    g = SamSipEngine(SamSipConfig(num_players=5), rng)
    for _ in range(30):
        g.step(rng.choice(g.legal()))
    c = g.clone()
    assert c.hands == g.hands and c.stock == g.stock and c.events == g.events
    # same moves -> same states (the RNG is cloned too)
    for _ in range(300):
        if g.done:
            break
        m = g.legal()[0]
        g.step(m)
        c.step(m)
        assert c.hands == g.hands and c.chips == g.chips and c.hand_no == g.hand_no
    c2 = g.clone()
    if not c2.done:
        c2.step(c2.legal()[0])
        assert c2.moves == g.moves + 1
        assert c2.events != g.events or c2.hands != g.hands or c2.phase != g.phase
