"""Suipi rules: worked examples of docs/rules/suipi.md 1.4, S5, scoring, config validation."""

from __future__ import annotations

import dataclasses
import random

import pytest

from cardzoo.envs.cards import card_str, parse_cards
from cardzoo.envs.config import ConfigError
from cardzoo.envs.suipi.actions import BUILD, CAPTURE, DROP
from cardzoo.envs.suipi.config import SuipiConfig
from cardzoo.envs.suipi.engine import IS_SPADE, SuipiEngine, score_deal
from tests.test_suipi_helpers import C, build, find_move, moves_of, position

POINT_CARDS_11 = set(parse_cards("A♠ A♣ A♦ A♥ 10♦ 2♠"))


def piles(a_cards: int, a_spades: int, a_points: str, b_points: str, point_cards=POINT_CARDS_11):
    """Two captured piles: side A gets ``a_points`` and enough spades / other cards to reach the
    given counts, side B gets ``b_points`` and the rest."""
    a, b = set(parse_cards(a_points)), set(parse_cards(b_points))
    assert a | b == set(point_cards)
    for c in range(52):
        if c in a or c in b or c in point_cards or not IS_SPADE[c]:
            continue
        (a if sum(IS_SPADE[x] for x in a) < a_spades else b).add(c)
    for c in range(52):
        if c in a or c in b:
            continue
        (a if len(a) < a_cards else b).add(c)
    assert len(a) == a_cards and sum(IS_SPADE[x] for x in a) == a_spades
    return [sorted(a), sorted(b)]


CFG = SuipiConfig()


# ----------------------------------------------------------------- scoring (1.4)
def test_full_deal_table():
    a, b = piles(29, 8, "10♦ A♣ A♥", "2♠ A♠ A♦")
    assert len(b) == 23 and sum(IS_SPADE[c] for c in b) == 5
    r = score_deal(CFG, [a, b], [1, 3])
    assert r.points == [8, 3]
    assert r.totals == [9, 6]
    assert r.deltas == [3, -3] and r.scores == [3, 0]


@pytest.mark.parametrize(
    "a_cards,a_spades,a_pts,b_pts,points",
    [
        (27, 6, "10♦ A♣", "2♠ A♠ A♦ A♥", (6, 5)),  # 5-6-1
        (27, 6, "10♦ A♣ A♥", "2♠ A♠ A♦", (7, 4)),  # 4-7-3
        (27, 7, "10♦ A♣ A♥", "2♠ A♠ A♦", (8, 3)),  # 3-8-5
        (27, 8, "10♦ A♣ A♥ 2♠", "A♠ A♦", (9, 2)),  # 2-9-7
    ],
)
def test_seed_counting_lines(a_cards, a_spades, a_pts, b_pts, points):
    r = score_deal(CFG, piles(a_cards, a_spades, a_pts, b_pts), [0, 0])
    assert tuple(r.points) == points and sum(r.points) == 11
    assert r.scores == [points[0] - points[1], 0]


def test_seed_rule_12a_cards_tie_plus_suipis():
    # 26-26 cards tie, A 5 points (spades, 10♦, 2♠, one ace), B 3 (three aces); A 2 net suipis
    r = score_deal(CFG, piles(26, 8, "10♦ 2♠ A♣", "A♠ A♦ A♥"), [2, 0])
    assert r.points == [5, 3] and sum(r.points) == 8
    assert r.scores == [4, 0] and r.deltas == [4, -4]


def test_seed_rule_12b_suipis_reduce_the_lead():
    r = score_deal(CFG, piles(27, 5, "10♦ 2♠ A♣", "A♠ A♦ A♥"), [0, 2])
    assert r.points == [7, 4]
    assert r.scores == [1, 0]


def test_sign_flip():
    r = score_deal(CFG, piles(27, 5, "10♦ A♣", "2♠ A♠ A♦ A♥"), [0, 3])
    assert r.points == [6, 5]
    assert r.deltas == [-2, 2] and r.scores == [0, 2]


def test_cards_tie_example():
    r = score_deal(CFG, piles(26, 7, "10♦ A♣", "2♠ A♠ A♦ A♥"), [1, 0])
    assert r.points == [4, 4] and r.cards == [26, 26]
    assert r.scores == [1, 0]


def test_suipis_cancel_one_for_one():
    p = piles(27, 6, "10♦ A♣", "2♠ A♠ A♦ A♥")
    assert score_deal(CFG, p, [3, 1]).scores == score_deal(CFG, p, [2, 0]).scores == [3, 0]
    assert score_deal(CFG, p, [1, 2]).scores == [0, 0]  # 6-5 points, B one net suipi


def test_23_point_game_totals():
    cfg = SuipiConfig(point_game=23)
    pts = POINT_CARDS_11 | set(parse_cards("J♦ Q♦ K♦"))
    r = score_deal(cfg, piles(27, 7, "10♦ A♣ K♦", "2♠ A♠ A♦ A♥ J♦ Q♦", pts), [0, 0])
    assert sum(r.points) == 23 and r.points == [3 + 1 + 2 + 1 + 5, 1 + 3 + 3 + 4]
    r = score_deal(cfg, piles(26, 7, "10♦ A♣ K♦", "2♠ A♠ A♦ A♥ J♦ Q♦", pts), [0, 0])
    assert sum(r.points) == 20


# ----------------------------------------------------------------- moves (1.4)
def test_capture_example():
    e = position(["5♣ K♦ J♣", "9♥ 9♣ 9♦"], ["3♦", "2♥", "4♣", "A♥", "K♣"])
    five = moves_of(e, "5♣", CAPTURE)
    assert {m[1] for m in five} == {
        frozenset({"3♦", "2♥"}),
        frozenset({"4♣", "A♥"}),
        frozenset({"3♦", "2♥", "4♣", "A♥"}),
    }
    assert {m[1] for m in moves_of(e, "K♦")} == {frozenset({"K♣"})}
    assert moves_of(e, "J♣") == {(DROP, frozenset(), 0)}


def test_build_example():
    e = position(["2♥ 10♣ 7♣", "4♥ Q♠ 9♦"], ["8♠", "6♦"])
    mv = find_move(e, "2♥", ["8♠"], BUILD, 10)
    e.play_move(mv)
    (b,) = [it for it in e.floor if it[3] >= 0]
    assert b[1] == 10 and b[3] == 0 and not b[4] and set(b[2]) == {C("8♠"), C("2♥")}
    # the opponent can neither increase (10 + 4 > 10) nor capture it
    assert e.turn == 1
    for _h, mask, _k, _v in e.legal_moves():
        assert not mask >> e.floor.index(b) & 1
    e.play_move(find_move(e, "4♥", [], DROP))
    # P owns the build: may not drop, and must keep the 10 unless it takes the build
    got = {e.move_text(m) for m in e.legal_moves()}
    assert got == {"10♣ take [2♥+8♠=10]", "10♣ take [2♥+8♠=10]+4♥+6♦"}
    e.play_move(find_move(e, "10♣", ["8♠"], CAPTURE))
    assert not e.floor[0][3] >= 0 and len(e.floor) == 2
    assert e.last_capturer == 0


def test_build_taken_by_opponent_holding_the_value():
    e = position(["2♥ 10♣ 7♣", "10♥ Q♠ 9♦"], ["8♠", "6♦"])
    e.play_move(find_move(e, "2♥", ["8♠"], BUILD, 10))
    e.play_move(find_move(e, "10♥", ["8♠"], CAPTURE))
    assert e.last_capturer == 1 and set(e.captured[1]) >= {C("10♥"), C("8♠"), C("2♥")}
    assert [it[2] for it in e.floor] == [(C("6♦"),)]
    # P no longer owns anything: it may drop again
    assert (C("7♣"), 0, DROP, 0) in e.legal_moves()


def test_build_taken_or_increased_by_partner_and_opponent_4p():
    e = position(["A♥ 9♣ K♠", "A♦ 10♥ K♦", "9♠ 4♣ Q♥", "2♣ 3♣ J♣"], ["8♠", "6♦"], num_players=4)
    e.play_move(find_move(e, "A♥", ["8♠"], BUILD, 9))  # seat 0 builds 9 (unlocked)
    e.play_move(find_move(e, "A♦", ["8♠"], BUILD, 10))  # opponent increases it to 10: owns it now
    b = next(it for it in e.floor if it[3] >= 0)
    assert b[1] == 10 and b[3] == 1 and len(b[2]) == 3
    e.play_move(find_move(e, "Q♥", [], DROP))
    e.play_move(find_move(e, "J♣", [], DROP))
    # seat 0 no longer has to keep a 9 and may not take the 10-build with a 9
    assert all(not (m[1] and m[2] == CAPTURE and m[0] == C("9♣")) for m in e.legal_moves())
    e.play_move(find_move(e, "9♣", [], DROP))
    e.play_move(find_move(e, "10♥", ["8♠"], CAPTURE))
    assert e.last_capturer == 1


def test_partner_takes_build():
    e = position(["A♥ 9♣", "2♦ 3♦", "9♠ 4♣", "2♣ 3♣"], ["8♠", "6♦"], num_players=4)
    e.play_move(find_move(e, "A♥", ["8♠"], BUILD, 9))
    e.play_move(find_move(e, "2♦", [], DROP))
    e.play_move(find_move(e, "9♠", ["8♠"], CAPTURE))  # partner (seat 2) takes seat 0's build
    assert set(e.captured[0]) >= {C("9♠"), C("8♠"), C("A♥")} and e.last_capturer == 2


def test_forced_lock_under_s12():
    e = position(["2♣ 7♣ 7♥", "K♦ Q♦ 3♠"], ["7♦", "5♠"])
    builds = moves_of(e, "2♣", BUILD)
    assert builds == {(BUILD, frozenset({"5♠", "7♦"}), 7)}  # must absorb the loose 7
    e.play_move(find_move(e, "2♣", ["5♠", "7♦"], BUILD, 7))
    (b,) = e.floor
    assert b[1] == 7 and b[4] is True and b[3] == 0
    e.play_move(find_move(e, "K♦", [], DROP))
    # locked: cannot be increased; Q takes it with a 7 next turn (and may not drop)
    assert all(m[2] != DROP for m in e.legal_moves())
    e.play_move(find_move(e, "7♣", ["7♦"], CAPTURE))
    assert [it[2] for it in e.floor] == [(C("K♦"),)]


def test_locked_build_cannot_be_increased_but_accepts_groups():
    e2 = position(["2♣ 7♣ 7♥", "A♦ 8♣ 3♠"], [build("5♠ 2♥ 7♦", 7, 0, True), "6♥"], turn=1)
    assert all(not m[1] & 1 for m in e2.legal_moves() if m[2] == BUILD)  # build index 0 untouched
    e3 = position(["3♣ 7♣ 9♥"], [build("5♠ 2♥ 7♦", 7, 0, True), "4♦"])
    # adding a 3+4 group to the locked 7 keeps it locked and owned by the player
    assert (BUILD, frozenset({"5♠", "2♥", "7♦", "4♦"}), 7) in moves_of(e3, "3♣", BUILD)


def test_orphan_rule_and_drop_ban_for_owner():
    e = position(["7♣ 3♦ 9♥", "K♦"], [build("5♠ 2♥", 7, 0), "4♣"])
    texts = {e.move_text(m) for m in e.legal_moves()}
    assert not any(t.endswith("drop") for t in texts)  # owner may not drop
    assert "7♣ take [2♥+5♠=7]" in texts
    # 3♦ + 4♣ = 7 would be a second item of value 7: it must absorb the 7-build (S12)
    assert "3♦ build 7 on 4♣" not in texts
    assert "3♦ build 7 on [2♥+5♠=7]+4♣" in texts


def test_suipi_and_final_card():
    e = position(["5♣ 9♥", "K♦ Q♦"], ["3♦", "2♥"], stock="")
    e.play_move(find_move(e, "5♣", ["3♦", "2♥"], CAPTURE))
    assert e.suipis == [1, 0] and e.floor == []
    # final card of the deal: no suipi (default) ...
    for flag, expected in ((False, 0), (True, 1)):
        e = position(["5♣", ""], ["3♦", "2♥"], stock="", final_capture_is_suipi=flag)
        e.dealer = 0
        res = e.play_move(find_move(e, "5♣", ["3♦", "2♥"], CAPTURE))
        assert res is not None and res.suipis[0] == expected


def test_last_capturer_takes_the_floor_and_nobody_case():
    e = position(
        [
            "9♥",
            "",
        ],
        ["3♦", "2♥"],
        stock="",
    )
    e.dealer = 0
    e.last_capturer = 1
    e.captured = [[], [c for c in range(52) if c not in (C("9♥"), C("3♦"), C("2♥"))]]
    res = e.play_move(find_move(e, "9♥", [], DROP))
    assert res is not None and res.cards == [0, 52]
    e = position(["9♥", ""], ["3♦", "2♥"], stock="")
    e.dealer = 0
    e.captured = [[], []]
    e.play_move(find_move(e, "9♥", [], DROP))
    assert e.deal_results[-1].cards == [0, 0]


def test_court_cards_11_point_game():
    e = position(["K♦ J♣ 5♥", "2♦"], ["K♣", "6♠", "7♠"])
    assert moves_of(e, "K♦") == {(CAPTURE, frozenset({"K♣"}), 0)}  # rank match only, no drop (S12)
    assert moves_of(e, "J♣") == {(DROP, frozenset(), 0)}


# ----------------------------------------------------------------- S5 initial floor
def _stacked(floor_part, n=2):
    first = parse_cards(floor_part)
    rest = [c for c in range(52) if c not in first]
    hands = rest[: 8 * n]
    return hands + first + rest[8 * n :]


def test_s5_spade_rule_and_bottom_of_stock():
    deck = _stacked("5♥ 5♠ 9♦ 9♣ K♥ Q♦")
    e = SuipiEngine(CFG, random.Random(0))
    e.start_match(deck)
    assert sorted(card_str(it[2][0]) for it in e.floor) == sorted(["5♠", "9♦", "K♥", "Q♦"])
    assert [card_str(c) for c in e.stock[-2:]] == ["5♥", "9♣"]  # rejected to the bottom, in order
    assert e.stock_size == 32 and e.rejected_in_stock() == parse_cards("5♥ 9♣")
    assert e.hands[0] == deck[0:16:2] and e.hands[1] == deck[1:16:2] and e.turn == 0


@pytest.mark.parametrize(
    "rule,first,kept",
    [
        ("spade", "10♣ 10♦ 3♥ 4♥ 6♥", "10♣ 3♥ 4♥ 6♥"),
        ("lower_value", "10♣ 10♦ 3♥ 4♥ 6♥", "10♦ 3♥ 4♥ 6♥"),
        ("point_card", "10♣ 10♦ 3♥ 4♥ 6♥", "10♦ 3♥ 4♥ 6♥"),
        ("point_card", "10♣ 10♠ 3♥ 4♥ 6♥", "10♣ 3♥ 4♥ 6♥"),
        ("spade", "10♣ 10♠ 3♥ 4♥ 6♥", "10♠ 3♥ 4♥ 6♥"),
        ("no_point_cards", "A♣ 10♦ 3♥ 4♥ 6♥ 7♥", "3♥ 4♥ 6♥ 7♥"),
        ("no_point_cards", "5♣ 5♠ 3♥ 4♥ 6♥", "5♣ 3♥ 4♥ 6♥"),
    ],
)
def test_floor_dup_rule_variants(rule, first, kept):
    e = SuipiEngine(SuipiConfig(floor_dup_rule=rule), random.Random(0))
    e.start_match(_stacked(first))
    assert sorted(it[2][0] for it in e.floor) == sorted(parse_cards(kept))


def test_whole_deck_single_round_lays_floor_first():
    cfg = SuipiConfig(deal_sizes_2p=(24,))
    deck = parse_cards("5♥ 5♦ 9♦ 9♣ K♥ Q♦") + [c for c in range(52) if c not in parse_cards("5♥ 5♦ 9♦ 9♣ K♥ Q♦")]
    e = SuipiEngine(cfg, random.Random(0))
    e.start_match(deck)
    assert sorted(card_str(it[2][0]) for it in e.floor) == sorted(["5♥", "9♦", "K♥", "Q♦"])
    assert len(e.hands[0]) == len(e.hands[1]) == 24 and e.stock_size == 0
    assert C("5♦") in e.hands[0] + e.hands[1]


# ----------------------------------------------------------------- config validation
@pytest.mark.parametrize(
    "kw,field",
    [
        ({"num_players": 5}, "num_players"),
        ({"point_game": 13}, "point_game"),
        ({"deal_sizes_2p": (8, 8)}, "deal_sizes_2p"),
        ({"deal_sizes_4p": (8, 0, 4)}, "deal_sizes_4p"),
        ({"deal_sizes_3p": "8,8"}, "deal_sizes_3p"),
        ({"floor_dup_rule": "random"}, "floor_dup_rule"),
        ({"unique_floor_during_play": 1}, "unique_floor_during_play"),
        ({"sum_group_size": 3}, "sum_group_size"),
        ({"max_owned_builds": -1}, "max_owned_builds"),
        ({"match_deals": "4"}, "match_deals"),
        ({"target_score": -5}, "target_score"),
        ({"break_ties": "yes"}, "break_ties"),
    ],
)
def test_bad_config_names_field(kw, field):
    with pytest.raises(ValueError, match=field):
        SuipiConfig(**kw)


def test_config_lists_become_tuples_and_frozen():
    cfg = SuipiConfig(deal_sizes_4p=[6, 6], num_players=4)  # type: ignore[arg-type]  # the point: a list is taken
    assert cfg.deal_sizes == (6, 6)
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.num_players = 2  # type: ignore[misc]
    assert issubclass(ConfigError, ValueError)
