"""Each flag of the variants table (docs/rules/suipi.md 1.5) changes what it should."""

from __future__ import annotations

import random

from cardzoo.envs.suipi.actions import BUILD, CAPTURE, DROP
from cardzoo.envs.suipi.config import SuipiConfig
from cardzoo.envs.suipi.engine import SuipiEngine, random_match
from tests.test_suipi_helpers import build, find_move, moves_of, position


def test_point_game_23_courts_are_numeric():
    e = position(["K♦ J♣ Q♥", "2♦"], ["6♠", "7♥", "J♦"], point_game=23)
    assert (CAPTURE, frozenset({"6♠", "7♥"}), 0) in moves_of(e, "K♦", CAPTURE)  # 13 = 6 + 7
    # J on J♦ in the 11-point game is a rank match; here it is value 11 (also J takes J)
    assert (CAPTURE, frozenset({"J♦"}), 0) in moves_of(e, "J♣", CAPTURE)
    e11 = position(["K♦ J♣ Q♥", "2♦"], ["6♠", "7♥", "J♦"])
    assert not moves_of(e11, "K♦", CAPTURE)
    # builds up to 13 with a court card held
    e = position(["6♣ K♦", "2♦"], ["7♥"], point_game=23)
    assert (BUILD, frozenset({"7♥"}), 13) in moves_of(e, "6♣", BUILD)


def test_deal_sizes():
    for cfg, sizes in (
        (SuipiConfig(deal_sizes_2p=(10, 10, 4)), 10),
        (SuipiConfig(num_players=4, deal_sizes_4p=(6, 6)), 6),
        (SuipiConfig(num_players=4, deal_sizes_4p=(4, 4, 4)), 4),
        (SuipiConfig(num_players=3), 8),
    ):
        e = SuipiEngine(cfg, random.Random(1))
        e.start_match()
        assert all(len(h) == sizes for h in e.hands)
        assert e.stock_size == 52 - 4 - sizes * cfg.num_players


def test_unique_floor_during_play_off():
    on = position(["5♣ 9♦", "2♦"], ["5♠", "3♥", "2♥"])
    assert (DROP, frozenset(), 0) not in moves_of(on, "5♣")
    off = position(["5♣ 9♦", "2♦"], ["5♠", "3♥", "2♥", "5♥"], unique_floor_during_play=False)
    assert (DROP, frozenset(), 0) in moves_of(off, "5♣")
    caps = {m[1] for m in moves_of(off, "5♣", CAPTURE)}
    assert frozenset({"5♠", "3♥", "2♥", "5♥"}) in caps  # all items of value 5 at once
    # a build need not absorb the existing item of its value
    off2 = position(["2♣ 7♣", "2♦"], ["5♠", "7♦"], unique_floor_during_play=False)
    assert (BUILD, frozenset({"5♠"}), 7) in moves_of(off2, "2♣", BUILD)
    # courts take one same-rank card
    off3 = position(["K♣", "2♦"], ["K♠", "K♥"], unique_floor_during_play=False)
    assert {m[1] for m in moves_of(off3, "K♣", CAPTURE)} == {frozenset({"K♠"}), frozenset({"K♥"})}


def test_forced_capture():
    base = position(["5♣ 9♦", "2♦"], ["3♥", "2♥"])
    assert (DROP, frozenset(), 0) in moves_of(base, "5♣")
    forced = position(["5♣ 9♦", "2♦"], ["3♥", "2♥"], forced_capture=True)
    assert (DROP, frozenset(), 0) not in moves_of(forced, "5♣")
    assert (DROP, frozenset(), 0) in moves_of(forced, "9♦")


def test_maximal_capture():
    floor = ["3♦", "2♥", "4♣", "A♥", "K♣"]
    base = position(["5♣", "2♦"], floor)
    assert len(moves_of(base, "5♣", CAPTURE)) == 3
    maxi = position(["5♣", "2♦"], floor, maximal_capture=True)
    assert {m[1] for m in moves_of(maxi, "5♣", CAPTURE)} == {frozenset({"3♦", "2♥", "4♣", "A♥"})}


def test_sum_group_size_exactly_2():
    floor = ["A♦", "2♥", "4♣"]  # 7 = A+2+4 (three cards), no pair sums to 7
    base = position(["7♣", "2♦"], floor)
    assert (CAPTURE, frozenset({"A♦", "2♥", "4♣"}), 0) in moves_of(base, "7♣", CAPTURE)
    two = position(["7♣", "2♦"], floor, sum_group_size="exactly_2")
    assert not moves_of(two, "7♣", CAPTURE)
    two = position(["6♣", "2♦"], floor, sum_group_size="exactly_2")
    assert (CAPTURE, frozenset({"2♥", "4♣"}), 0) in moves_of(two, "6♣", CAPTURE)


def test_builds_enabled_and_multi_builds():
    floor = ["7♦", "5♠"]
    assert moves_of(position(["2♣ 7♣ 7♥", "K♦"], floor), "2♣", BUILD)
    assert not moves_of(position(["2♣ 7♣ 7♥", "K♦"], floor, builds_enabled=False), "2♣", BUILD)
    # simple builds only: the forced lock is impossible, a plain build is fine
    assert not moves_of(position(["2♣ 7♣ 7♥", "K♦"], floor, multi_builds=False), "2♣", BUILD)
    simple = position(["2♣ 8♣", "K♦"], ["6♦", "3♠", "3♥"], multi_builds=False)
    assert moves_of(simple, "2♣", BUILD) == {(BUILD, frozenset({"6♦"}), 8)}
    multi = position(["2♣ 8♣", "K♦"], ["6♦", "5♠", "3♥"])
    assert (BUILD, frozenset({"6♦", "5♠", "3♥"}), 8) in moves_of(multi, "2♣", BUILD)


def test_max_owned_builds():
    floor = [build("5♠ 2♥", 7, 0), "6♦", "K♥"]
    base = position(["2♣ 8♣ 7♣", "K♦"], floor)
    assert (BUILD, frozenset({"6♦"}), 8) in moves_of(base, "2♣", BUILD)
    one = position(["2♣ 8♣ 7♣", "K♦"], floor, max_owned_builds=1)
    assert (BUILD, frozenset({"6♦"}), 8) not in moves_of(one, "2♣", BUILD)


def test_final_capture_is_suipi_flag():
    for flag, expected in ((False, 0), (True, 1)):
        e = position(["5♣", ""], ["3♦", "2♥"], stock="", final_capture_is_suipi=flag)
        e.dealer = 0
        res = e.play_move(find_move(e, "5♣", ["3♦", "2♥"], CAPTURE))
        assert res is not None and res.suipis[0] == expected


def _match(cfg, seed=0):
    e = SuipiEngine(cfg, random.Random(seed))
    e.start_match()
    while not e.done:
        ms = e.legal_moves()
        e.play_move(ms[e.rng.randrange(len(ms))])
    return e


def test_match_deals_target_and_ties():
    assert len(_match(SuipiConfig()).deal_results) == 2
    assert len(_match(SuipiConfig(num_players=4)).deal_results) == 4
    assert len(_match(SuipiConfig(match_deals=5)).deal_results) == 5
    for seed in range(5):
        e = _match(SuipiConfig(target_score=15), seed)
        assert max(e.match_scores) >= 15 and len(set(e.match_scores)) == 2
        if len(e.deal_results) > 1:
            prev = [sum(r.scores[s] for r in e.deal_results[:-1]) for s in range(2)]
            assert max(prev) < 15 or prev[0] == prev[1]
    tied = 0
    for seed in range(60):
        e = _match(SuipiConfig(break_ties=True), seed)
        assert e.match_scores[0] != e.match_scores[1]
        tied += len(e.deal_results) > 2
    assert tied  # some matches needed extra deals


def test_three_players():
    cfg = SuipiConfig(num_players=3)
    e = _match(cfg, 3)
    assert len(e.deal_results) == 3 and len(e.match_scores) == 3
    for r in e.deal_results:
        assert abs(sum(r.deltas)) < 1e-9
    assert random_match(cfg, random.Random(2)) == 3 * 48
