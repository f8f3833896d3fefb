"""What reading the next player's hand is worth (experiments/samsip_feeding.py): the honest reading
sees only the seat's hand and the public record, and the measurement compares like with like."""

from __future__ import annotations

import random

import pytest

from cardzoo.envs.base import action_mask
from cardzoo.envs.errors import UserError
from cardzoo.envs.samsip.actions import DISCARD_JOKER, NUM_ACTIONS
from cardzoo.envs.samsip.config import JOKER_KIND, SamSipConfig
from cardzoo.envs.samsip.engine import PHASE_DISCARD, SamSipEngine, classify
from cardzoo.envs.samsip.lookahead import LookaheadBot
from experiments.samsip_feeding import GuardedBot, measure, next_hands


def _discard_decisions(players: int, seed: int, count: int):
    """Engines at discard decisions of the teacher's play (after at least one discard by every
    seat), ``count`` of them."""
    config = SamSipConfig(num_players=players)
    engine = SamSipEngine(config, random.Random(seed))
    bots = [LookaheadBot(config, seed=seed * 10 + s) for s in range(players)]
    out: list = []
    while len(out) < count:
        legal = engine.legal_actions()
        s = engine.acting_seat
        if engine.phase == PHASE_DISCARD and len(engine.events) >= players:
            out.append(engine.clone())
        engine.step(legal[0] if len(legal) == 1 else bots[s].act_seat(engine, s, action_mask(NUM_ACTIONS, legal)))
        if engine.done:
            engine = SamSipEngine(config, random.Random(seed + len(out) + 1))
    return out


@pytest.mark.parametrize("players", [2, 4])
def test_the_honest_reading_sees_only_the_seat_and_the_record(players):
    dropped = 0
    for engine in _discard_decisions(players, seed=31 + players, count=12):
        seat = engine.acting_seat
        nxt = engine.next_active(seat)
        hands = next_hands(engine, seat, random.Random(5), 100)
        # the unseen cards dealt anew (the known ones kept): the same hands, for the same stream
        other = engine.resample_hidden(seat, random.Random(6))
        assert next_hands(other, seat, random.Random(5), 100) == hands
        last = [kind for who, kind, _ in engine.events if who == nxt][-1]
        shown = last if last < JOKER_KIND else min(c for c in engine.wild if c >= JOKER_KIND)
        for h in hands:
            assert len(h) == 5 and not set(h) & set(engine.hands[seat])
            assert not classify(h + [shown], engine.wild, engine.dead)  # the default rules: specials count
        dropped += 100 - len(hands)
    assert dropped > 0  # some dealt hands would have won on the last discard: they are not kept


def test_weight_zero_is_the_teacher_and_the_true_hand_feeds_less():
    for source in ("estimate", "true"):
        same = measure(2, 12, source, weight=0.0, seed=3)
        assert same["gain"] == 0 and same["won"] == same["teacher_won"] and same["fed"] == same["teacher_fed"]
    cheat = measure(2, 40, "true", seed=3)
    assert cheat["fed"] < cheat["teacher_fed"] / 2
    assert cheat["won"] > cheat["teacher_won"]


def test_the_guarded_player_discards_what_the_next_hand_cannot_use():
    for engine in _discard_decisions(2, seed=8, count=20):
        seat = engine.acting_seat
        legal = engine.legal_actions()
        bot = GuardedBot(engine.config, seed=1, source="true", weight=10.0)
        action = bot.act_seat(engine, seat, action_mask(NUM_ACTIONS, legal))
        discards = [a for a in legal if a <= DISCARD_JOKER]
        feeds = dict(zip(discards, bot.feeding(discards)))
        assert feeds[action] == min(feeds.values())  # a weight this large never feeds where it need not


def test_bad_source_and_observation_play_are_one_line_errors():
    with pytest.raises(UserError, match="source must be one of"):
        GuardedBot(SamSipConfig(), source="peek")
    with pytest.raises(UserError, match="act_seat"):
        GuardedBot(SamSipConfig()).act([0.0], [1])
