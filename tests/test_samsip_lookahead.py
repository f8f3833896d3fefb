"""Sam Sip completion chances (envs/samsip/outs.py), the lookahead teacher and its move features."""

from __future__ import annotations

import random

import numpy as np
import pytest

from cardzoo.envs import samsip_v0
from cardzoo.envs.cards import card_str
from cardzoo.envs.errors import UserError
from cardzoo.envs.samsip.actions import DISCARD_JOKER, DRAW_STOCK, TAKE_DISCARD
from cardzoo.envs.samsip.bot import RuleBot
from cardzoo.envs.samsip.encoding import decode
from cardzoo.envs.samsip.engine import is_three_pairs, wild_sets
from cardzoo.envs.samsip.lookahead import LookaheadBot
from cardzoo.envs.samsip.outs import NUM_TYPES, Chances, card_type, tables
from cardzoo.envs.samsip.whole_moves import WholeMoves
from cardzoo.envs.samsip_v0 import raw_env
from cardzoo.training.agents.specs import make_agent
from tests.test_samsip_rules import _brute_three_pairs, cards, stacked


def _index5(types):
    return tables().index5[tables().key(types)]


def test_draw_table_and_win_table_agree_with_brute_force_pairing():
    rng = random.Random(3)
    for _ in range(3000):
        indicator = rng.randrange(55)
        wild, dead = wild_sets(indicator, rng.choice(["indicator", "khi"]))
        hand = rng.sample([c for c in range(55) if c != indicator], 6)
        kinds = [min(c, 52) for c in hand]
        types = [card_type(k, wild, dead) for k in kinds]
        six = tables().draw[_index5(types[:5]), types[5]]
        assert tables().wins6[six] == _brute_three_pairs(hand, wild, dead)


def test_one_draw_chance_is_the_share_of_outs():
    p = np.random.default_rng(0).random(NUM_TYPES).astype(np.float32)
    p /= p.sum()
    # K K Q Q 3 with 3 waiting: a 7 (type 6) or a wild card (type 13) completes three pairs
    hand = _index5([12, 12, 11, 11, 2])
    assert Chances(p, 0.85).of(1, [hand])[0] == pytest.approx(p[6] + p[13])
    # two pairs and a wild card complete with any draw
    assert Chances(p, 0.85).of(1, [_index5([12, 12, 11, 11, 13])])[0] == pytest.approx(1.0)
    # A 2 3 4 10: no draw can make three pairs
    assert Chances(p, 0.85).of(1, [_index5([0, 1, 2, 3, 9])])[0] == 0.0


def _brute_chance(key5: tuple, depth: int, p, gamma, memo: dict, rounded: bool = False):
    """The definition, recursively: draw each type; a win counts 1, a miss the best 5 to keep.
    ``rounded``: with the rounding `Chances` promises (``p`` and ``gamma`` float32, so a miss is
    ``gamma`` times the best kept hand's chance in float32; the 15 draw types' terms added in
    float64 in type order; the result float32)."""
    if (key5, depth) in memo:
        return memo[key5, depth]
    total = 0.0
    for t in range(NUM_TYPES):
        six = list(key5)
        six[t] += 1
        if is_three_pairs(six[:13], six[13], six[14]):
            total += float(p[t])
        elif depth > 1:
            keep = []
            for d in range(NUM_TYPES):
                if six[d]:
                    five = list(six)
                    five[d] -= 1
                    keep.append(_brute_chance(tuple(five), depth - 1, p, gamma, memo, rounded))
            total += float(gamma * max(keep)) * float(p[t])
    memo[key5, depth] = np.float32(total + 0.0) if rounded else total
    return memo[key5, depth]


@pytest.mark.parametrize("depth", [2, 3])
def test_deeper_chances_match_the_recursive_definition(depth):
    rng = np.random.default_rng(depth)
    for _ in range(3):
        p = rng.random(NUM_TYPES)
        p[rng.random(NUM_TYPES) < 0.3] = 0  # some types all seen
        p /= p.sum()
        hands = [
            tuple(int(x) for x in np.bincount(rng.integers(0, NUM_TYPES, 5), minlength=NUM_TYPES)) for _ in range(4)
        ]
        chances = Chances(p, 0.8)
        got = chances.of(depth, [tables().index5[h] for h in hands])
        memo: dict = {}
        want = [_brute_chance(h, depth, p, 0.8, memo) for h in hands]
        assert got == pytest.approx(want, abs=1e-5)
        memo = {}
        rounded = [_brute_chance(h, depth, chances.p, chances.gamma, memo, rounded=True) for h in hands]
        assert np.array_equal(got, np.array(rounded, dtype=np.float32))  # bit for bit
        assert np.array_equal(
            chances.levels(depth, [tables().index5[h] for h in hands])[depth - 2], [memo[h, depth - 1] for h in hands]
        )  # every depth of one solve


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_a_hands_chance_does_not_depend_on_the_hands_asked_with_it(depth):
    """Bit for bit the same alone, in any batch, at any place of it (issue 27: a float32 matrix
    product rounded by batch size, so the teacher's near-ties flipped with the other hands asked)."""
    rng = np.random.default_rng(10 + depth)
    p = rng.random(NUM_TYPES)
    p /= p.sum()
    chances = Chances(p, 0.85)
    hands = rng.integers(0, len(tables().index5), 300)
    alone = np.array([chances.of(depth, [h])[0] for h in hands[:40]])
    for size in (2, 7, 40, 300):
        batch = chances.of(depth, hands[:size])
        assert batch.dtype == np.float32
        assert np.array_equal(batch[: min(size, 40)], alone[:size])
    shuffled = rng.permutation(40)
    assert np.array_equal(chances.of(depth, hands[:40][shuffled]), alone[shuffled])
    six = tables().draw[hands[:40], rng.integers(0, NUM_TYPES, 40)]
    kept_alone = np.array([chances.best_kept(depth, [h])[0] for h in six])
    assert np.array_equal(chances.best_kept(depth, six), kept_alone)


def _undefined_is_nan(monkeypatch):
    """The tables' undefined entries NaN (``np.empty`` may hand back memory that holds the right
    numbers by chance), so that a read of one shows."""
    real = np.empty
    monkeypatch.setattr(
        np,
        "empty",
        lambda shape, dtype=float: (
            np.full(shape, np.nan, dtype=dtype) if np.dtype(dtype).kind == "f" else real(shape, dtype=dtype)
        ),
    )


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_solve_fills_each_level_where_it_promises(depth, monkeypatch):
    """``solve(depth, hands)``: level k >= 2 is filled at the hands reachable from ``hands``
    within ``depth - k`` draws, level 1 where level 2 is (at ``hands`` when depth is 1), each
    entry with the bits that hand's own ``of(k, [h])`` gives (what the take of the lookahead and
    the move features read)."""
    _undefined_is_nan(monkeypatch)
    rng = np.random.default_rng(30 + depth)
    p = rng.random(NUM_TYPES)
    p[rng.random(NUM_TYPES) < 0.3] = 0
    p /= p.sum()
    chances, t = Chances(p, 0.85), tables()
    hands = rng.integers(0, len(t.index5), 3)
    solved = chances.solve(depth, hands)
    within = [np.unique(hands)]  # within[j]: the hands reachable within j draws
    for _ in range(depth):
        within.append(np.union1d(within[-1], t.kept[t.draw[within[-1]]].reshape(-1)))
    for level in range(1, depth + 1):
        at = within[max(depth - max(level, 2), 0)]
        at = at[rng.permutation(len(at))[:60]]  # a sample: the chances alone cost a solve each
        alone = np.array([chances.of(level, [h])[0] for h in at])
        assert np.array_equal(solved[level - 1][at].view(np.uint32), alone.view(np.uint32))


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_lookahead_takes_the_discard_by_the_chances_alone(depth, monkeypatch):
    """The teacher's take-or-draw at every depth is the comparison of the chances, each asked
    alone: the take keeps the best hand after the discard (a draw later, ``gamma`` less)."""
    _undefined_is_nan(monkeypatch)
    e = raw_env(num_players=3)
    bot, rng, checked = LookaheadBot(e.config, seed=0, depth=depth), np.random.default_rng(depth), 0
    e.reset(seed=40 + depth)
    while checked < 25:
        if not e.agents:
            e.reset()
        o, _, terminated, truncated, _ = e.last()
        if terminated or truncated:
            e.step(None)
            continue
        if TAKE_DISCARD in np.flatnonzero(o["action_mask"]) and o["action_mask"][DRAW_STOCK]:
            d = decode(o["observation"])
            bot._wild, bot._dead = d["wild"], d["dead"]
            if not bot._wins(d["hand"] + [d["live"]]):
                p = bot.draw_probabilities(d)
                here = bot.hand_index(d, d["hand"])
                keeps = tables().kept[tables().draw[here, card_type(d["live"], d["wild"], d["dead"])]]
                chances = Chances(p, bot.gamma)
                take = bot.gamma * max(chances.of(depth, [k])[0] for k in keeps)
                assert bot._take_beats_stock(d, p) == (take > chances.of(depth + 1, [here])[0] + 1e-9)
                checked += 1
        e.step(int(rng.choice(np.flatnonzero(o["action_mask"]))))


def _deck(n, hands, indicator, stock_top):
    return [card_str(c) if c < 52 else "Jk" for c in stacked(n, hands, indicator, stock_top)]


def test_lookahead_does_not_keep_two_singles_that_wait_on_the_same_rank():
    # The dealer holds 2♣ 2♦ 8♣ 9♣ 9♥ and draws J♠ (jokers alone are wild): 2+8 is a pair. The rule
    # bot discards a 2 and keeps both 9s, which both wait on the same four aces; the lookahead
    # player breaks up the 9s instead (singles 2, 9, J wait on three different ranks).
    e = samsip_v0.raw_env(num_players=2, first_dealer=0)
    e.reset(seed=1, options={"deck": _deck(2, {0: "2♣ 2♦ 8♣ 9♣ 9♥"}, "Jk", ["J♠"])})
    e.step(DRAW_STOCK)
    o = e.observe("player_0")
    for seed in range(4):
        assert e.action_text(RuleBot(e.config, seed=seed).act(o["observation"], o["action_mask"]))[-2] == "2"
        assert e.action_text(LookaheadBot(e.config, seed=seed).act(o["observation"], o["action_mask"]))[-2] == "9"


def test_lookahead_takes_a_winning_discard_and_passes_a_useless_one():
    # seat 0 (dealer) draws K♦ and throws it; seat 1 holds K♠ K♥ Q♠ Q♥ 3♣: no K wins it
    e = samsip_v0.raw_env(num_players=2, first_dealer=0)
    e.reset(seed=1, options={"deck": _deck(2, {0: "A♣ 2♦ 4♣ 5♥ 10♥", 1: "K♠ K♥ Q♠ Q♥ 3♣"}, "6♦", ["K♦"])})
    e.step(DRAW_STOCK)
    e.step(cards("K♦")[0])
    o = e.observe("player_1")
    assert LookaheadBot(e.config, seed=0).act(o["observation"], o["action_mask"]) == DRAW_STOCK
    # the same seat offered a 7: three pairs at once
    e.reset(seed=1, options={"deck": _deck(2, {0: "A♣ 2♦ 4♣ 5♥ 10♥", 1: "K♠ K♥ Q♠ Q♥ 3♣"}, "6♦", ["7♦"])})
    e.step(DRAW_STOCK)
    e.step(cards("7♦")[0])
    o = e.observe("player_1")
    assert LookaheadBot(e.config, seed=0).act(o["observation"], o["action_mask"]) == TAKE_DISCARD


@pytest.mark.parametrize("n", [2, 4, 6])
def test_lookahead_plays_only_legal_moves_and_its_move_tops_the_chance_features(n):
    """Over random positions: the teacher's move is legal, and it is (one of) the best by the
    feature the move ranker sees: column 68 (within 2 draws) for discards, 69 for draws."""
    e = raw_env(num_players=n)
    e.reset(seed=n)
    teacher, reader = LookaheadBot(e.config, seed=0), WholeMoves(e.config)
    rng = np.random.default_rng(n)
    checked = 0
    for _ in range(1500):
        if not e.agents:
            e.reset(seed=int(rng.integers(1 << 30)))
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        move = teacher.act(obs["observation"], obs["action_mask"])
        legal = [int(a) for a in np.flatnonzero(obs["action_mask"])]
        assert move in legal
        rows = reader.features(obs["observation"], legal)
        assert ((rows[:, 64:70] >= 0) & (rows[:, 64:70] <= 1 + 1e-6)).all()
        if len(legal) > 1:
            column = 68 if legal[0] <= DISCARD_JOKER else 69
            assert rows[legal.index(move), column] == pytest.approx(1.0)
            checked += 1
        e.step(move if rng.random() < 0.8 else int(rng.choice(legal)))
    assert checked > 200


def test_teacher_agent_spec():
    assert isinstance(make_agent("teacher", samsip_v0, raw_env(num_players=3).config, seed=0), LookaheadBot)
    from cardzoo.envs import suipi_v0

    with pytest.raises(UserError, match="suipi has no teacher agent"):
        make_agent("teacher", suipi_v0, None, seed=0)


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_chances_of_several_distributions_solved_together_are_each_ones_alone(depth):
    """``solve_each`` (the collector's one solve for a round's decisions) fills each decision's
    tables with the very bits that decision's own ``Chances(p).solve`` gives."""
    rng = np.random.default_rng(20 + depth)
    ps = rng.random((9, NUM_TYPES))
    ps[rng.random(ps.shape) < 0.3] = 0
    ps /= ps.sum(axis=1, keepdims=True)
    asked = [rng.integers(0, len(tables().index5), rng.integers(1, 7)) for _ in range(len(ps))]
    together = Chances(ps, 0.85).solve_each(depth, asked)
    assert len(together) == depth and together[0].shape == (len(ps), len(tables().index5))
    for d, (p, hands) in enumerate(zip(ps, asked)):
        alone = Chances(p, 0.85).solve(depth, hands)
        for level in range(depth):
            assert np.array_equal(together[level][d][hands].view(np.uint32), alone[level][hands].view(np.uint32))
