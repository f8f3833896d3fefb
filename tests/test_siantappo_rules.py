"""Siantappo rule scenarios: the worked examples of rules 3.4 and the core rules T1-T12."""

import random

import pytest

from cardzoo.envs import siantappo_v0
from cardzoo.envs.base import IllegalMoveError
from cardzoo.envs.cards import parse_card
from cardzoo.envs.siantappo.actions import CARD_TO_KEY, PASS_ID, classify, keys_str
from cardzoo.envs.siantappo.config import SiantappoConfig
from cardzoo.envs.siantappo.engine import SiantappoEngine, hand_keys
from tests.siantappo_helpers import deck_from_hands


def keys(text):
    return sorted(CARD_TO_KEY[parse_card(t)] for t in text.split())


def hand_text(env, seat):
    return keys_str(hand_keys(env.engine.hands[seat]))


def make(hands, n=4, **variants):
    env = siantappo_v0.raw_env(num_players=n, **variants)
    env.reset(seed=0, options={"deck": deck_from_hands(hands, n)})
    return env


def test_deal_sizes_and_order():
    for n, sizes in ((3, [18, 17, 17]), (4, [13] * 4), (5, [11, 11, 10, 10, 10]), (6, [9, 9, 9, 9, 8, 8])):
        env = siantappo_v0.raw_env(num_players=n)
        env.reset(seed=n)
        eng = env.engine
        # earlier recipients (from the dealer's left) get the extra cards
        got = [eng.counts[(eng.dealer + 1 + i) % n] for i in range(n)]
        assert got == sizes


def test_stacked_deck_deals_card_i_to_seat_i_mod_n():
    deck = deck_from_hands(["3♣ 9♠"], 4)
    env = siantappo_v0.raw_env(num_players=4)
    env.reset(options={"deck": deck})
    for seat in range(4):
        assert sorted(hand_keys(env.engine.hands[seat])) == sorted(CARD_TO_KEY[parse_card(c)] for c in deck[seat::4])
    assert env.agent_selection == "player_0"  # holder of 3♣ leads round 1


def test_worked_example_trick_with_bombs():
    # A=0, B=1, C=2, D=3 in play order
    env = make(["3♣ 9♠ 5♠ 5♣ 6♠ 6♣ 7♠ 7♣", "K♦ 4♦", "2♣ 8♠ 8♣ 9♣ 9♦ 10♠ 10♣", "4♣"])
    env.play("9♠")
    env.play("K♦")
    env.play("2♣")
    env.play("pass")  # D
    assert env.agent_selection == "player_0"
    # A, who has not passed, bombs the 2 with three consecutive pairs
    legal = dict(env.legal_moves())
    bomb = env.move_to_action("5s 5c 6s 6c 7s 7c")
    assert env.is_squeal(bomb) and bomb in legal
    env.step(bomb)
    env.play("pass")  # B
    assert env.agent_selection == "player_2"
    # C answers with a higher siantappo; a lower one would not be legal
    env.play("8♠ 8♣ 9♣ 9♦ 10♠ 10♣")
    assert env.agent_selection == "player_0"  # D passed earlier and stays out of this trick
    env.play("pass")  # A
    # all others passed: C wins the trick and leads
    assert env.agent_selection == "player_2"
    assert env.engine.current == -1
    assert PASS_ID not in env.legal_moves()[0]


def test_lead_passes_to_next_holder_when_trick_winner_is_out():
    # n=3 so that C can go out with its last card while two others still hold cards
    eng = SiantappoEngine(SiantappoConfig(num_players=3), random.Random(0))
    eng.hands = [[0] * 13 for _ in range(3)]
    for seat, text in enumerate(["4♠ 5♠", "9♦ 10♦", "2♥"]):
        for k in keys(text):
            eng.hands[seat][k >> 2] |= 1 << (k & 3)
    eng.counts = [2, 2, 1]
    eng.turn = 0
    eng.step(keys("4♠")[0])
    eng.step(keys("9♦")[0])
    eng.step(keys("2♥")[0])  # C goes out with the 2♥
    assert eng.finish_top == [2]
    eng.step(PASS_ID)  # A
    eng.step(PASS_ID)  # B: trick over, C is out, so the lead goes to A (next clockwise)
    assert eng.current == -1 and eng.turn == 0


def test_pair_of_twos_and_quads():
    env = make(["3♣ 2♠ 2♣", "2♥ 2♦ 4♣ 4♠ 4♦ 4♥", "5♠ 5♣ 5♦ 5♥", "6♠"])
    env.play("2♠ 2♣")
    texts = [t for _, t in env.legal_moves()]
    assert "2♦ 2♥" in texts  # higher pair of 2s
    assert "4♠ 4♣ 4♦ 4♥" in texts  # quad bomb
    env.play("4s 4c 4d 4h")
    moves = env.legal_moves()
    assert "5♠ 5♣ 5♦ 5♥" in [t for _, t in moves]
    # only a higher quad (or a pass) answers a quad
    assert all(t == "pass" or (len(t.split()) == 4 and len({c[:-1] for c in t.split()}) == 1) for _, t in moves)
    env.play("5♠ 5♣ 5♦ 5♥")


def test_quad_does_not_beat_single_two_and_siantappo_not_pair_of_twos_by_default():
    env = make(["3♣ 2♠", "4♣ 4♠ 4♦ 4♥ 5♠ 5♣ 6♠ 6♣ 7♠ 7♣"])
    env.play("2♠")
    texts = [t for _, t in env.legal_moves()]
    assert "4♠ 4♣ 4♦ 4♥" not in texts
    assert "5♠ 5♣ 6♠ 6♣ 7♠ 7♣" in texts


def test_siantappo_is_no_answer_to_a_pair_of_twos_but_a_quad_is():
    """T8 default: on a pair of 2s only a higher pair of 2s or a four of a kind; a siantappo (the
    bomb of a single 2) is not offered, nor a triple or any other pair."""
    env = make(["3♣ 2♠ 2♣", "4♣ 4♠ 4♦ 4♥ 5♠ 5♣ 6♠ 6♣ 7♠ 7♣ 2♥ 2♦"])
    env.play("2♠ 2♣")
    texts = [t for _, t in env.legal_moves()]
    assert "5♠ 5♣ 6♠ 6♣ 7♠ 7♣" not in texts
    assert sorted(texts) == sorted(["4♠ 4♣ 4♦ 4♥", "2♦ 2♥", "pass"])


def test_straights_compare_by_top_card_and_length():
    env = make(["3♣ 5♠ 6♠ 7♣", "5♣ 6♣ 7♥ 8♠ 5♦ 6♦ 7♦ 8♦"])
    env.play("5♠ 6♠ 7♣")
    texts = [t for _, t in env.legal_moves()]
    assert "5♣ 6♣ 7♥" in texts  # same ranks, 7♥ on top
    assert "6♣ 7♦ 8♠" in texts  # higher top
    assert not any(len(t.split()) == 4 for t in texts)  # 5-6-7-8 does not compare
    assert classify(keys("J♠ Q♠ K♠ A♠")) is not None
    assert classify(keys("Q♠ K♠ A♠ 2♠")) is None
    assert classify(keys("A♠ 2♠ 3♠")) is None


def test_pair_compares_by_higher_card():
    env = make(["3♣ 9♦ 9♣", "9♥ 9♠"])
    env.play("9♣ 9♦")
    assert "9♠ 9♥" in [t for _, t in env.legal_moves()]  # 9♥9♠ > 9♦9♣


def test_pass_locks_you_out_until_trick_end():
    env = make(["3♣ 4♠ 6♠", "5♠ 10♠", "7♠", "9♠"])
    env.play("4♠")
    env.play("pass")  # B passes
    env.play("7♠")  # C
    env.play("9♠")  # D
    env.play("pass")  # A
    # B passed earlier: skipped although its 10♠ beats the 9♠ on the table; back to C
    assert env.agent_selection == "player_2"


def test_worked_example_swap_n4():
    cfg = SiantappoConfig(num_players=4)
    eng = SiantappoEngine(cfg, random.Random(0))
    # finish order B 1st, D 2nd, A 3rd, C last -> places per seat A..D
    eng.round_places = [[3, 1, 4, 2]]
    eng.round_index = 1
    eng.dealer = 2  # the loser C deals
    deck = list(range(52))
    random.Random(5).shuffle(deck)
    # compute what each seat is dealt (dealer C: first card to D)
    dealt: list[list[int]] = [[] for _ in range(4)]
    for i, c in enumerate(deck):
        dealt[(2 + 1 + i) % 4].append(CARD_TO_KEY[c])
    eng._start_round(deck)
    A, B, C, D = (sorted(h) for h in dealt)
    assert sorted(eng.swap_given[1]) == B[:2] and sorted(eng.swap_received[2]) == B[:2]
    assert sorted(eng.swap_given[2]) == C[-2:] and sorted(eng.swap_received[1]) == C[-2:]
    assert eng.swap_given[3] == D[:1] and eng.swap_received[0] == D[:1]
    assert eng.swap_given[0] == A[-1:] and eng.swap_received[3] == A[-1:]
    assert eng.counts == [13, 13, 13, 13]
    assert eng.turn == 2  # C leads


def test_swap_n5_third_is_neutral_and_n3_has_no_second_swap():
    for n, neutral in ((5, [2]), (3, [1])):
        eng = SiantappoEngine(SiantappoConfig(num_players=n), random.Random(1))
        eng.round_places = [list(range(1, n + 1))]  # seat i finished place i+1
        eng.round_index = 1
        eng.dealer = n - 1
        eng._start_round(None)
        for s in neutral:
            assert eng.swap_given[s] == [] and eng.swap_received[s] == []
        assert len(eng.swap_given[0]) == 2 and len(eng.swap_given[n - 1]) == 2


def test_round_end_places_and_rewards():
    env = siantappo_v0.raw_env(num_players=4, rounds=1)
    env.reset(seed=3)
    bot = siantappo_v0.RuleBot(env.config)
    total = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, r, term, trunc, _ = env.last()
        total[agent] += r
        if term or trunc:
            env.step(None)
            continue
        env.step(bot.act(obs["observation"], obs["action_mask"]))
    places = env.engine.round_places[0]
    assert sorted(places) == [1, 2, 3, 4]
    expected = {f"player_{s}": (5 - 2 * places[s]) / 3 for s in range(4)}
    assert total == pytest.approx(expected)
    assert env.engine.match_points == [4 - p for p in places]
    assert env.engine.pig_counts[places.index(4)] == 1


def test_three_clubs_starts_and_leader_cannot_pass():
    env = siantappo_v0.raw_env(num_players=5)
    env.reset(seed=11)
    holder = next(s for s in range(5) if CARD_TO_KEY[parse_card("3c")] in hand_keys(env.engine.hands[s]))
    assert env.agent_selection == f"player_{holder}"
    assert "pass" not in [t for _, t in env.legal_moves()]
    with pytest.raises(IllegalMoveError, match="cannot pass"):
        env.move_to_action("pass")


def test_later_rounds_loser_deals_and_leads():
    env = siantappo_v0.raw_env(num_players=4, rounds=3)
    env.reset(seed=4)
    rng = random.Random(0)
    while env.engine.round_index == 0:
        env.step(rng.choice(env.engine.legal_actions()))
    loser = env.engine.round_places[0].index(4)
    assert env.engine.dealer == loser and env.agent_selection == f"player_{loser}"
    # swaps conserve hand sizes
    assert env.engine.counts == [13] * 4


def test_the_rule_bots_play_count_is_one_per_rank_less_what_straights_save():
    """``pieces_of`` (the bot's "plays the hand needs", also a move feature) against its definition
    counted rank by rank: each held rank one play; a maximal run of >= 3 ranks below the 2s may go
    out as one straight, keeping one play per rank held twice or more."""
    from cardzoo.envs.siantappo.bot import pieces_of

    def by_definition(counts: list[int]) -> int:
        plays, r = sum(1 for c in counts if c), 0
        while r < 12:
            start = r
            while r < 12 and counts[r]:
                r += 1
            if r - start >= 3:
                plays -= max(0, (r - start) - (1 + sum(1 for c in counts[start:r] if c > 1)))
            r += r == start
        return plays

    rng = random.Random(5)
    for _ in range(3000):
        counts = [rng.choice([0, 0, 1, 1, 2, 3, 4]) for _ in range(13)]
        present = sum(1 << r for r, c in enumerate(counts) if c)
        multi = sum(1 << r for r, c in enumerate(counts) if c > 1)
        assert pieces_of(present, multi) == by_definition(counts), counts
    assert pieces_of(0b111, 0) == 1 and pieces_of(0b111, 0b111) == 3 and pieces_of(0b11, 0) == 2
    assert pieces_of(1 << 11 | 1 << 10 | 1 << 9, 0) == 1  # Q-K-A: one straight
    assert pieces_of(1 << 12 | 1 << 11 | 1 << 10, 0) == 3  # K-A-2: 2s never join a straight
