"""Suipi AEC env: PettingZoo API, seeding, sub-step masks, move text, hidden information, bad input."""

from __future__ import annotations

import numpy as np
import pytest

from cardzoo.envs.base import IllegalMoveError
from cardzoo.envs.cards import card_str, parse_cards
from cardzoo.envs.suipi import actions
from cardzoo.envs.suipi import encoding as enc
from cardzoo.envs.suipi.config import SuipiConfig
from cardzoo.envs.suipi_v0 import RuleBot, raw_env
from cardzoo.training.agents.specs import RandomAgent

GAMES = [{}, {"num_players": 4}, {"point_game": 23}, {"num_players": 4, "point_game": 23}]


def play_random(e, seed, steps=None, check=None):
    rng = np.random.default_rng(seed)
    n = 0
    while e.agents and (steps is None or n < steps):
        obs, _r, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        if check:
            check(e, obs)
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        n += 1
    return n


def test_rewards_shared_by_partners_zero_sum_and_per_deal():
    for kw in GAMES:
        e = raw_env(**kw)
        e.reset(seed=4)
        totals = dict.fromkeys(e.possible_agents, 0.0)
        nonzero_steps = 0
        while e.agents:
            obs, _r, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            e.step(int(np.flatnonzero(obs["action_mask"])[0]))
            step_r = dict(e.rewards)
            assert abs(sum(step_r.values())) < 1e-9
            if any(step_r.values()):
                nonzero_steps += 1
            for a, v in step_r.items():
                totals[a] += v
            if e.unwrapped.num_players == 4:
                assert step_r["player_0"] == step_r["player_2"] and step_r["player_1"] == step_r["player_3"]
        eng = e.engine
        assert nonzero_steps <= len(eng.deal_results)
        pg = eng.config.point_game
        expected = sum(r.deltas[0] for r in eng.deal_results) / pg
        assert totals["player_0"] == pytest.approx(expected)


def test_every_legal_move_reachable_and_nothing_else():
    for kw in GAMES[:2]:
        e = raw_env(**kw)
        e.reset(seed=11)
        for _ in range(60):
            if not e.agents:
                break
            eng = e.engine
            want = {actions.move_actions(eng.floor, m) for m in eng.legal_moves()}
            # walk every path the masks allow (on the trie the env uses)
            trie, _full = e._build_trie()
            seen: set[tuple[int, ...]] = set()
            stack: list[tuple[int, ...]] = [()]
            while stack:
                pre = stack.pop()
                for a in trie[pre]:
                    seq = pre + (a,)
                    if a >= actions.CAPTURE_ACTION:
                        seen.add(seq)
                    else:
                        stack.append(seq)
            assert seen == want
            _ids, text = e.full_moves()[-1]
            e.play(text)


def test_mask_prefix_and_same_seat_substeps():
    e = raw_env()
    e.reset(seed=2)
    agent = e.agent_selection
    obs = e.observe(agent)
    first = np.flatnonzero(obs["action_mask"])
    assert all(a < 52 for a in first)
    e.step(int(first[0]))
    assert e.agent_selection == agent  # still composing
    obs = e.observe(agent)
    assert obs["observation"][enc.P_PART_HAND * 52 + first[0]] == 1.0
    assert all(a >= 52 for a in np.flatnonzero(obs["action_mask"]))
    other = next(a for a in e.possible_agents if a != agent)
    assert not e.observe(other)["action_mask"].any()
    assert not e.observe(other)["observation"][enc.P_PART_HAND * 52 : (enc.P_PART_HAND + 1) * 52].any()


def test_full_moves_and_parse_move_roundtrip():
    e = raw_env(num_players=4)
    e.reset(seed=7)
    for _ in range(80):
        if not e.agents:
            break
        moves = e.full_moves()
        for ids, text in moves:
            assert e.parse_move(text) == ids
        e.play(moves[len(moves) // 2][1])


def _deck_2p(hand0, hand1, floor, rest_first=""):
    h0, h1, fl = parse_cards(hand0), parse_cards(hand1), parse_cards(floor)
    first = parse_cards(rest_first) if rest_first else []
    used = set(h0) | set(h1) | set(fl) | set(first)
    rest = [c for c in range(52) if c not in used]
    deal = [c for pair in zip(h0, h1) for c in pair]
    return [card_str(c) for c in deal + fl + first + rest]


def test_stacked_deck_and_move_text_notation():
    deck = _deck_2p("5♣ 2♥ 10♣ K♦ J♣ 9♥ 9♣ 3♣", "4♥ Q♠ 6♥ 6♣ 7♣ 7♦ 8♦ 8♥", "3♦ 2♠ 8♠ K♣")
    e = raw_env(render_mode="ansi")
    e.reset(options={"deck": deck})
    eng = e.engine
    assert eng.dealer == 1 and e.agent_selection == "player_0"
    assert sorted(card_str(c) for c in eng.hands[0]) == sorted(["5♣", "2♥", "10♣", "K♦", "J♣", "9♥", "9♣", "3♣"])
    texts = [t for _, t in e.full_moves()]
    assert "5♣ take 2♠+3♦" in texts and "2♥ build 10 on 8♠" in texts and "J♣ drop" in texts
    # ASCII aliases and item order do not matter
    assert e.parse_move("5c take 3d+2s") == e.parse_move("5♣ take 2♠+3♦")
    assert e.parse_move("2h build 10 on 8s") == (parse_cards("2♥")[0], 52 + parse_cards("8♠")[0], 114)
    e.play("2h build 10 on 8s")
    assert "[2♥+8♠=10]" in e.render()
    e.play("Qs drop")
    # the build can be named by any of its cards
    assert e.parse_move("Tc take 2h") == e.parse_move("10♣ take [2♥+8♠=10]")
    e.play("10c take [2♥+8♠=10]")
    assert e.engine.last_capturer == 0


@pytest.mark.parametrize(
    "text,why",
    [
        ("", "empty"),
        ("Zz take 3d", "hand card"),
        ("5c grab 3d", "take, build or drop"),
        ("5c take", "at least one floor item"),
        ("5c take 4h", "not on the floor"),
        ("4h drop", "not in player_0's hand"),
        ("5c take 3d", "not a legal move"),
        ("2h build on 8s", "build <value>"),
        ("J♣ drop 3d", "no floor items"),
    ],
)
def test_parse_move_errors(text, why):
    deck = _deck_2p("5♣ 2♥ 10♣ K♦ J♣ 9♥ 9♣ 3♣", "4♥ Q♠ 6♥ 6♣ 7♣ 7♦ 8♦ 8♥", "3♦ 2♠ 8♠ K♣")
    e = raw_env()
    e.reset(options={"deck": deck})
    with pytest.raises(IllegalMoveError) as err:
        e.parse_move(text)
    msg = str(err.value)
    assert why in msg and "legal moves:" in msg and "J♣ drop" in msg


def test_observation_bounds_and_decode_roundtrip():
    e = raw_env(num_players=4, point_game=23)
    e.reset(seed=8)

    def check(env_, obs):
        o = obs["observation"]
        assert o.dtype == np.float32 and o.min() >= -1 and o.max() <= 1
        v = enc.decode(o)
        eng = env_.engine
        seat = eng.turn
        assert np.array_equal(o, enc.encode(eng, seat))
        assert v.hand == sorted(eng.hands[seat])
        floor = sorted(eng.floor, key=lambda it: it[5])
        assert [(it[2], it[1], it[4], it[5]) for it in v.floor] == [
            (tuple(sorted(it[2])), it[1], it[4], it[5]) for it in floor
        ]
        assert [it[3] for it in v.floor] == [(it[3] - seat) % 4 if it[3] >= 0 else -1 for it in floor]

    play_random(e, 3, check=check)


def test_render_and_reset_replays():
    e = raw_env(render_mode="ansi")
    e.reset(seed=9)
    text = e.render()
    assert "Floor:" in text and "player_0" in text and "suipis" in text and "match score" in text
    h1 = (e.history, e.engine.floor)
    play_random(e, 1)
    hist = list(e.history)
    e.reset(seed=9)
    play_random(e, 1)
    assert e.history == hist and "Match over" in e.render()
    assert h1


def test_rulebot_plans_consistently_and_beats_random():
    for n, games in ((2, 40), (4, 16)):
        e = raw_env(num_players=n)
        score = 0.0
        for g in range(games):
            bot, rnd = RuleBot(SuipiConfig(num_players=n), seed=g), RandomAgent(seed=g)
            mine = {0, 2} if g % 2 == 0 else {1, 3}
            e.reset(seed=100 + g)
            ret = 0.0
            while e.agents:
                obs, _r, term, trunc, _ = e.last()
                if term or trunc:
                    e.step(None)
                    continue
                seat = e.agent_seat[e.agent_selection]
                agent = bot if seat in mine else rnd
                a = agent.act(obs["observation"], obs["action_mask"])
                assert obs["action_mask"][a]
                e.step(a)
                ret += sum(v for k, v in e.rewards.items() if e.agent_seat[k] in mine) / (n // 2 if n == 4 else 1)
            score += ret
        assert score / games > 0.5, (n, score / games)


@pytest.mark.slow
def test_rulebot_beats_random_many_games():
    for n, games in ((2, 300), (4, 100)):
        e = raw_env(num_players=n)
        wins = 0
        for g in range(games):
            bot, rnd = RuleBot(SuipiConfig(num_players=n), seed=g), RandomAgent(seed=g)
            mine = {0, 2} if g % 2 == 0 else {1, 3}
            e.reset(seed=1000 + g)
            while e.agents:
                obs, _r, term, trunc, _ = e.last()
                if term or trunc:
                    e.step(None)
                    continue
                agent = bot if e.agent_seat[e.agent_selection] in mine else rnd
                e.step(agent.act(obs["observation"], obs["action_mask"]))
            ms = e.engine.match_scores
            my_side = 0 if g % 2 == 0 else 1
            wins += ms[my_side] > ms[1 - my_side]
        assert wins / games > 0.9, (n, wins / games)
