"""Each Siantappo variant flag (rules 3.5) changes the outcome it should."""

import random

import pytest

from cardzoo.envs import siantappo_v0
from cardzoo.envs.cards import parse_card
from cardzoo.envs.siantappo.actions import BASE_ACTIONS, CARD_TO_KEY, EXTENDED_ACTIONS
from cardzoo.envs.siantappo.config import SiantappoConfig
from cardzoo.envs.siantappo.engine import SiantappoEngine, hand_keys
from tests.siantappo_helpers import deck_from_hands


def make(hands, n=4, **variants):
    env = siantappo_v0.raw_env(num_players=n, **variants)
    env.reset(seed=0, options={"deck": deck_from_hands(hands, n)})
    return env


def texts(env):
    return [t for _, t in env.legal_moves()]


def test_first_lead_must_include_3c():
    hands = ["3♣ 3♥ 4♦ 5♠ 9♠"]
    free = make(hands)
    forced = make(hands, first_lead_must_include_3c=True)
    assert "9♠" in texts(free) and "9♠" not in texts(forced)
    assert all("3♣" in t for t in texts(forced))
    assert "3♣ 3♥" in texts(forced)  # the starter replaces the lowest filler
    assert "3♣ 4♦ 5♠" in texts(forced)
    forced.play("3♣ 4♦ 5♠")
    assert "3♠" not in texts(forced)  # the constraint applies to the first lead only


def test_starter_card_3s():
    hands = ["3♣", "3♠"]
    assert make(hands).agent_selection == "player_0"
    assert make(hands, starter_card="3♠").agent_selection == "player_1"


def test_deal_13_each():
    env = siantappo_v0.raw_env(num_players=3, deal="13each")
    env.reset(seed=2)
    assert env.engine.counts == [13, 13, 13] and len(env.engine.aside) == 13
    default = siantappo_v0.raw_env(num_players=3)
    default.reset(seed=2)
    assert sorted(default.engine.counts) == [17, 17, 18]


def test_deal_13_each_without_starter_dealt_lowest_card_leads():
    env = siantappo_v0.raw_env(num_players=3, deal="13each")
    for seed in range(40):
        env.reset(seed=seed)
        eng = env.engine
        if CARD_TO_KEY[parse_card("3c")] in eng.aside:
            lowest = min(range(3), key=lambda s: min(hand_keys(eng.hands[s])))
            assert env.agent_selection == f"player_{lowest}"
            return
    pytest.fail("no deal with 3♣ set aside in 40 seeds")


def test_quad_beats_single_2():
    hands = ["3♣ 2♠", "4♣ 4♠ 4♦ 4♥"]
    off, on = make(hands), make(hands, quad_beats_single_2=True)
    for env in (off, on):
        env.play("2♠")
    assert "4♠ 4♣ 4♦ 4♥" not in texts(off)
    assert "4♠ 4♣ 4♦ 4♥" in texts(on)


def test_long_pair_runs():
    hands = ["3♣ 2♠ 2♣", "4♣ 4♠ 5♠ 5♣ 6♠ 6♣ 7♠ 7♣"]
    off, on = make(hands), make(hands, long_pair_runs=True)
    assert off.num_actions == BASE_ACTIONS and on.num_actions == EXTENDED_ACTIONS
    for env in (off, on):
        env.play("2♠ 2♣")
    run = "4♠ 4♣ 5♠ 5♣ 6♠ 6♣ 7♠ 7♣"
    assert run not in texts(off)
    assert run in texts(on)
    on.play(run)
    assert on.is_squeal(on.engine.current)


def test_siantappo_as_lead():
    hands = ["3♣ 3♠ 4♣ 4♠ 5♣ 5♠"]
    assert "3♠ 3♣ 4♠ 4♣ 5♠ 5♣" not in texts(make(hands))
    assert "3♠ 3♣ 4♠ 4♣ 5♠ 5♣" in texts(make(hands, siantappo_as_lead=True))


def test_bomb_after_pass():
    hands = ["3♣ 4♠", "9♠ 5♠ 5♣ 6♠ 6♣ 7♠ 7♣ 2♥", "2♣", "8♠"]
    results = {}
    for flag in (False, True):
        env = make(hands, bomb_after_pass=flag)
        env.play("4♠")
        env.play("pass")  # B passes while holding a siantappo
        env.play("2♣")
        env.play("pass")  # D
        env.play("pass")  # A
        results[flag] = env.agent_selection
    assert results[False] == "player_2"  # trick over, C leads
    assert results[True] == "player_1"  # B may still bomb the 2
    env = make(hands, bomb_after_pass=True)
    for move in ("4♠", "pass", "2♣", "pass", "pass"):
        env.play(move)
    # B passed: only bombs or another pass, not the 2♥ that would beat the 2♣ normally
    moves = env.legal_moves()
    assert "5♠ 5♣ 6♠ 6♣ 7♠ 7♣" in [t for _, t in moves]
    assert "2♥" not in [t for _, t in moves]
    assert all(t == "pass" or env.is_squeal(a) for a, t in moves)


def _second_swap_partner(n, literal):
    eng = SiantappoEngine(
        SiantappoConfig(num_players=n, swap_second_with="third" if literal else "n-1"), random.Random(0)
    )
    eng.round_places = [list(range(1, n + 1))]
    eng.round_index = 1
    eng.dealer = n - 1
    eng._start_round(None)
    return [s for s in range(2, n - 1) if eng.swap_given[s]]


def test_swap_second_with():
    assert _second_swap_partner(5, literal=False) == [3]  # 2nd <-> 4th = (n-1)th
    assert _second_swap_partner(5, literal=True) == [2]  # 2nd <-> 3rd


def test_swap_choice():
    env = siantappo_v0.raw_env(num_players=4, rounds=2, swap_choice=True)
    env.reset(seed=1)
    rng = random.Random(1)
    while env.engine.round_index == 0:
        env.step(rng.choice(env.engine.legal_actions()))
    places = env.engine.round_places[0]
    winner = places.index(1)
    assert env.engine.phase == "swap" and env.agent_selection == f"player_{winner}"
    moves = env.legal_moves()
    assert all(t.startswith("give ") for _, t in moves)
    highest = max(a for a, _ in moves)
    env.step(highest)  # the winner chooses to give a high card (forced rule would give the lowest)
    loser = places.index(4)
    assert highest in env.engine.swap_received[loser]


def test_no_finish_on_2():
    # n=3: A goes out on a 2 while B and C still hold cards
    results = {}
    for flag in (False, True):
        eng = SiantappoEngine(SiantappoConfig(num_players=3, rounds=1, no_finish_on_2=flag), random.Random(0))
        eng.hands = [[0] * 13 for _ in range(3)]
        for seat, text in enumerate(["2♥", "4♠ 6♠", "5♠ 7♠"]):
            for t in text.split():
                k = CARD_TO_KEY[parse_card(t)]
                eng.hands[seat][k >> 2] |= 1 << (k & 3)
        eng.counts = [1, 2, 2]
        eng.turn = 0
        eng.step(CARD_TO_KEY[parse_card("2h")])
        eng.step(367)
        eng.step(367)  # trick over, B leads
        eng.step(CARD_TO_KEY[parse_card("4s")])
        eng.step(CARD_TO_KEY[parse_card("5s")])
        eng.step(CARD_TO_KEY[parse_card("6s")])  # B out; C is the last holder
        results[flag] = eng.round_places[0]
    assert results[False] == [1, 2, 3]
    assert results[True] == [3, 1, 2]  # going out on a 2 ranks last


def test_pig_reward():
    env = siantappo_v0.raw_env(num_players=4, rounds=1, reward="pig")
    env.reset(seed=0)
    rng = random.Random(0)
    got = dict.fromkeys(env.possible_agents, 0.0)
    while not all(env.terminations.values()):
        env.step(rng.choice(env.engine.legal_actions()))
        for a, r in env.rewards.items():
            got[a] += r
    loser = env.engine.round_places[0].index(4)
    assert got == pytest.approx({f"player_{s}": (-1.0 if s == loser else 1 / 3) for s in range(4)})


def test_long_pair_runs_five_pairs_beat_three_twos_four_pairs_do_not():
    """long_pair_runs: on three 2s only a five-pair run (docs/siantappo.md); without the flag
    nothing beats three 2s (T8)."""
    hands = ["3♣ 2♠ 2♣ 2♦", "4♣ 4♠ 5♠ 5♣ 6♠ 6♣ 7♠ 7♣ 8♠ 8♣"]
    off, on = make(hands), make(hands, long_pair_runs=True)
    for env in (off, on):
        env.play("2♠ 2♣ 2♦")
    five, four = "4♠ 4♣ 5♠ 5♣ 6♠ 6♣ 7♠ 7♣ 8♠ 8♣", "5♠ 5♣ 6♠ 6♣ 7♠ 7♣ 8♠ 8♣"
    assert texts(off) == ["pass"]
    assert five in texts(on) and four not in texts(on)
    assert sorted(texts(on)) == sorted([five, "pass"])


def test_bomb_after_pass_a_higher_quad_on_a_quad_is_no_bomb():
    """bomb_after_pass: a player who passed comes back only with a bomb; a four of a kind on a
    four of a kind is an ordinary higher combination (T8), so the passed seat is skipped."""
    hands = ["3♣ 2♠ 2♣", "K♠ K♣ K♦ K♥", "4♠ 4♣ 4♦ 4♥"]
    env = make(hands, bomb_after_pass=True)
    env.play("2♠ 2♣")
    assert "K♠ K♣ K♦ K♥" in texts(env)  # a bomb on a pair of 2s
    env.play("pass")  # seat 1 passes
    env.play("4♠ 4♣ 4♦ 4♥")  # seat 2 bombs
    env.play("pass")  # seat 3
    env.play("pass")  # seat 0
    eng = env.engine
    assert eng.turn == 2 and eng.current < 0  # seat 2 won the trick; seat 1 was skipped
