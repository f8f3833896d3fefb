"""Siantappo env: invariants over random matches (engine state), variant checks, move text, errors.
The contract every game shares (PettingZoo tests, spaces, hidden information, ...) is in
tests/test_contract.py."""

import os

import pytest

from cardzoo.envs import siantappo_v0
from cardzoo.envs.base import IllegalMoveError
from cardzoo.envs.siantappo.engine import hand_keys
from cardzoo.training.agents.specs import RandomAgent

VARIANTS = dict(
    first_lead_must_include_3c=True,
    quad_beats_single_2=True,
    long_pair_runs=True,
    siantappo_as_lead=True,
    bomb_after_pass=True,
    swap_choice=True,
    no_finish_on_2=True,
)


def play_checked(n, seed, variants=None):
    """One random match through raw_env, checking the invariants after every step."""
    env = siantappo_v0.raw_env(num_players=n, **(variants or {}))
    env.reset(seed=seed)
    agent = RandomAgent(seed)
    eng = env.engine
    totals = dict.fromkeys(env.possible_agents, 0.0)
    rounds_seen = 0
    for name in env.agent_iter():
        obs, _reward, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        mask = obs["action_mask"]
        assert mask.any(), "acting seat has an empty mask"
        assert not env.observe(env.possible_agents[(env.agent_seat[name] + 1) % n])["action_mask"].any()
        env.step(agent.act(obs["observation"], mask))
        step_sum = sum(env.rewards.values())
        assert abs(step_sum) < 1e-9, "rewards are not zero-sum"
        for a, r in env.rewards.items():
            totals[a] += r
        eng = env.engine
        # every card in exactly one place: a hand, played this round, or set aside
        seen = []
        for s in range(n):
            seen += hand_keys(eng.hands[s])
            seen += [k for k in range(52) if eng.played[s] >> k & 1]
        seen += eng.aside
        if eng.phase != "over":
            assert sorted(seen) == list(range(52))
        if len(eng.round_places) > rounds_seen:
            rounds_seen = len(eng.round_places)
            assert sorted(eng.round_places[-1]) == list(range(1, n + 1))  # exactly one loser
    assert rounds_seen == env.config.rounds
    assert abs(sum(totals.values())) < 1e-9
    assert sum(eng.pig_counts) == env.config.rounds


MATCHES = int(os.environ.get("CARDZOO_INVARIANT_MATCHES", "40"))


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_invariants_random_matches(n):
    for seed in range(MATCHES):
        play_checked(n, seed)


@pytest.mark.parametrize("n", [3, 6])
def test_invariants_random_matches_variants(n):
    for seed in range(MATCHES // 2):
        play_checked(n, seed, VARIANTS)


@pytest.mark.slow
@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_invariants_2000_matches(n):
    for seed in range(2000):
        play_checked(n, 10_000 + seed)


def test_bad_config_names_the_field():
    with pytest.raises(ValueError, match=r"num_players must be 3\.\.6"):
        siantappo_v0.env(num_players=2)
    with pytest.raises(ValueError, match="rounds"):
        siantappo_v0.env(rounds=0)
    with pytest.raises(ValueError, match="deal must be one of"):
        siantappo_v0.env(deal="half")
    with pytest.raises(ValueError, match="deal='13each' needs num_players <= 4"):
        siantappo_v0.env(num_players=5, deal="13each")
    with pytest.raises(ValueError, match="unknown option 'bombs'"):
        siantappo_v0.env(bombs=True)
    with pytest.raises(ValueError, match="quad_beats_single_2 must be true or false"):
        siantappo_v0.env(quad_beats_single_2="yes")
    with pytest.raises(ValueError, match="starter_card"):
        siantappo_v0.env(starter_card="4♣")
    with pytest.raises(ValueError, match="render_mode"):
        siantappo_v0.env(render_mode="rgb")


def test_illegal_action_raw_env_names_move_and_legal_ones():
    env = siantappo_v0.raw_env(num_players=4)
    env.reset(seed=0)
    with pytest.raises(IllegalMoveError, match=r"illegal action 367 \(pass\).*legal moves: "):
        env.step(367)
    with pytest.raises(IllegalMoveError, match="out of range"):
        env.step(9999)
    with pytest.raises(IllegalMoveError, match="must be an integer action id"):
        env.step("3c")
    with pytest.raises(IllegalMoveError, match="not a Siantappo combination"):
        env.move_to_action("3s 5h")
    with pytest.raises(IllegalMoveError, match="is not a card"):
        env.move_to_action("3x")
    # nothing was lost: the game goes on
    env.step(env.legal_moves()[0][0])


def test_legal_moves_text_roundtrip_and_render():
    env = siantappo_v0.raw_env(num_players=4, render_mode="ansi")
    env.reset(seed=5)
    for action, text in env.legal_moves():
        assert env.move_to_action(text) == action
    out = env.render()
    assert "player_0" in out and "Table" in out and ("♠" in out or "♥" in out)


def test_trick_index_is_no_rules_state_and_trick_history_shows_it():
    """Rules 3.7 lists the trick of every card played; the default observation leaves it out.
    Claim: no rule depends on it. Two positions that differ only in how the earlier plays of the
    round fall into tricks have the same legal moves, rewards and default observations for the
    rest of the match; only the trick_history block tells them apart."""
    import random

    import numpy as np

    from cardzoo.envs.siantappo.encoding import OBS_SIZE, TRICKS, encode

    differed = 0
    for seed in range(12):
        env = siantappo_v0.raw_env(num_players=4, trick_history=True)
        env.reset(seed=seed)
        rng = random.Random(seed)
        eng = env.engine
        while eng.trick < 3 and not eng.done:
            eng.apply_action(rng.choice(eng.legal_actions()))
        other = eng.clone()
        other.log = [(who, 0 if trick < eng.trick else trick, a, keys) for who, trick, a, keys in eng.log]
        for seat in range(4):
            mine, theirs = encode(eng, seat), encode(other, seat)
            assert np.array_equal(mine[:OBS_SIZE], theirs[:OBS_SIZE])
            differed += not np.array_equal(mine[TRICKS:], theirs[TRICKS:])
        for _ in range(400):
            if eng.done:
                break
            assert eng.legal_actions() == other.legal_actions() and eng.acting_seat == other.acting_seat
            action = rng.choice(eng.legal_actions())
            assert eng.apply_action(action).rewards == other.apply_action(action).rewards
            seat = rng.randrange(4)
            assert np.array_equal(encode(eng, seat)[:OBS_SIZE], encode(other, seat)[:OBS_SIZE])
    assert differed > 0


def test_trick_history_block():
    env = siantappo_v0.raw_env(num_players=3, trick_history=True, rounds=1)
    assert env.obs_size == 685 and siantappo_v0.raw_env(num_players=3).obs_size == 633
    env.reset(seed=3)
    while env.engine.trick < 2:
        env.step(env.legal_moves()[0][0])
    obs = env.observe("player_0")["observation"]
    eng = env.engine
    for _who, trick, _a, keys in eng.log:
        for k in keys:
            assert obs[633 + k] == pytest.approx((trick + 1) / (eng.trick + 1))
    played = {k for *_, keys in eng.log for k in keys}
    assert all(obs[633 + k] == 0 for k in range(52) if k not in played)
