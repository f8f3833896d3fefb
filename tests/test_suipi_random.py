"""Random-match invariants (docs/rules/README.md section 4) at engine level."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from cardzoo.envs.suipi.config import SuipiConfig
from cardzoo.envs.suipi.engine import SuipiEngine, legal_moves

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = {
    "2p": SuipiConfig(),
    "4p": SuipiConfig(num_players=4),
    "2p-23": SuipiConfig(point_game=23),
    "4p-23": SuipiConfig(num_players=4, point_game=23),
}
VARIANTS = [
    SuipiConfig(num_players=3),
    SuipiConfig(unique_floor_during_play=False, forced_capture=True),
    SuipiConfig(num_players=4, maximal_capture=True, sum_group_size="exactly_2", deal_sizes_4p=(12,)),
    SuipiConfig(multi_builds=False, max_owned_builds=1, final_capture_is_suipi=True, deal_sizes_2p=(10, 10, 4)),
    SuipiConfig(builds_enabled=False, floor_dup_rule="no_point_cards", deal_sizes_2p=(24,)),
    SuipiConfig(num_players=4, floor_dup_rule="lower_value", deal_sizes_4p=(4, 4, 4), point_game=23),
    SuipiConfig(floor_dup_rule="point_card", unique_floor_during_play=False, maximal_capture=True),
]


def check_state(e: SuipiEngine) -> None:
    cards = [c for h in e.hands for c in h] + [c for it in e.floor for c in it[2]]
    cards += e.stock[e.top :] + [c for p in e.captured for c in p] + e.lost
    assert sorted(cards) == list(range(52)), "52 cards must be accounted for"
    if e.config.unique_floor_during_play:
        keys = [it[0] for it in e.floor]
        assert len(keys) == len(set(keys)), "S12: unique floor values"
    sizes = [len(h) for h in e.hands]  # seats play in turn: the one to move holds the most
    assert max(sizes) - min(sizes) <= 1 and sizes[e.turn] == max(sizes) > 0, (sizes, e.turn)
    for it in e.floor:
        if it[3] >= 0:
            # the owner still holds a card of the build's value (S11)
            assert any(e.nv[c] == it[1] for c in e.hands[it[3]])


def _check_round_ends(e: SuipiEngine) -> None:
    """Wrap the engine's round/deal transitions: no build may survive the end of a round."""
    deal_round, end_deal = e._deal_round, e._end_deal

    def checked_round():
        assert all(it[3] < 0 for it in e.floor), "a build survived the round"
        assert not any(e.hands)
        return deal_round()

    def checked_end():
        assert all(it[3] < 0 for it in e.floor), "a build survived the last round"
        return end_deal()

    e._deal_round, e._end_deal = checked_round, checked_end  # type: ignore[method-assign]  # checked wrappers


def stable_seed(name: str) -> int:
    """A seed from a test's name, the same in every process (``hash`` of a str is not: PYTHONHASHSEED)."""
    return zlib.crc32(name.encode()) & 0xFFFF


def run_matches(cfg: SuipiConfig, count: int, seed: int) -> int:
    """``count`` random matches from ``seed``; a failure names the seed and the match, so it reproduces."""
    rng = random.Random(seed)
    total_moves = 0
    for k in range(count):
        try:
            total_moves += _random_match(cfg, rng)
        except Exception as e:
            raise AssertionError(f"run_matches(seed={seed}), match {k} of {count}: {type(e).__name__}: {e}") from e
    return total_moves


def _random_match(cfg: SuipiConfig, rng: random.Random) -> int:
    """One match of random moves from ``rng``, every invariant checked on the way; its moves."""
    total_moves = 0
    point_total = cfg.point_game
    e = SuipiEngine(cfg, random.Random(rng.getrandbits(32)))
    _check_round_ends(e)
    e.start_match()
    check_state(e)
    while not e.done:
        moves = e.legal_moves()
        assert len(set(moves)) == len(moves), "moves are deduplicated"
        res = e.play_move(moves[rng.randrange(len(moves))])
        total_moves += 1
        if res is not None:
            expected = point_total - (3 if res.cards.count(max(res.cards)) > 1 else 0)
            expected -= 1 if res.spades.count(max(res.spades)) > 1 else 0
            if e.ns == 2 and sum(res.cards) == 52:
                assert sum(res.points) in (point_total, point_total - 3)  # 11 or 8 / 23 or 20
            if sum(res.cards) == 52:
                assert sum(res.points) == expected
            assert abs(sum(res.deltas)) < 1e-9, "zero-sum"
            assert min(res.scores) == 0
        if not e.done:
            check_state(e)
    assert len(e.deal_results) >= 1
    assert sum(sum(r.scores) for r in e.deal_results) == sum(e.match_scores)
    return total_moves


@pytest.mark.parametrize("name", list(CONFIGS))
def test_random_matches_invariants(name):
    run_matches(CONFIGS[name], 50 if name.endswith("23") else 100, seed=stable_seed(name))


def test_a_tests_seed_is_the_same_in_every_process():
    """The invariants test's seeds do not depend on PYTHONHASHSEED, so a failure reproduces."""
    code = "from tests.test_suipi_random import CONFIGS, stable_seed; print([stable_seed(n) for n in CONFIGS])"
    seen = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": h},
            cwd=ROOT,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        for h in ("1", "2")
    }
    assert seen == {f"{[stable_seed(n) for n in CONFIGS]}\n"}


def test_a_failing_random_match_names_its_seed_and_match(monkeypatch):
    calls = []

    def fails_in_the_third_match(e):
        calls.append(e)
        assert len({id(c) for c in calls}) < 3, "planted"

    monkeypatch.setattr(sys.modules[__name__], "check_state", fails_in_the_third_match)
    with pytest.raises(AssertionError, match=r"run_matches\(seed=4321\), match 2 of 5: AssertionError: planted"):
        run_matches(CONFIGS["2p"], 5, seed=4321)


@pytest.mark.parametrize("i", range(len(VARIANTS)))
def test_random_matches_variants(i):
    run_matches(VARIANTS[i], 30, seed=i)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["2p", "4p", "2p-23", "4p-23"])
def test_random_matches_invariants_many(name):
    run_matches(CONFIGS[name], 2000, seed=12345)


@pytest.mark.slow
@pytest.mark.parametrize("i", range(len(VARIANTS)))
def test_random_matches_variants_many(i):
    run_matches(VARIANTS[i], 300, seed=1000 + i)


def test_legal_moves_pure_function_matches_engine():
    e = SuipiEngine(CONFIGS["2p"], random.Random(5))
    e.start_match()
    for _ in range(30):
        assert legal_moves(e.config, e.hands[e.turn], e.floor, e.turn) == e.legal_moves()
        e.play_move(e.legal_moves()[0])


def test_clone_is_independent():
    e = SuipiEngine(CONFIGS["4p"], random.Random(9))
    e.start_match()
    for _ in range(10):
        e.play_move(e.legal_moves()[-1])
    c = e.clone()
    snapshot = (repr(e.hands), repr(e.floor), e.top, repr(e.captured))
    while not c.done:
        c.play_move(c.legal_moves()[0])
    assert (repr(e.hands), repr(e.floor), e.top, repr(e.captured)) == snapshot


@pytest.mark.parametrize("cfg", [CONFIGS["2p"], CONFIGS["4p-23"], *VARIANTS], ids=lambda c: f"{c.num_players}p")
def test_sub_steps_play_the_move_they_spell(cfg):
    """Composing a random legal move sub-step by sub-step (``apply_action``, which writes the
    finished move out without the card's trie) plays the move ``finishing_move`` names, every
    move of random matches: the same engine afterwards as ``play_move`` of that move."""
    rng = random.Random(cfg.num_players * 31 + len(cfg.deal_sizes))
    for _ in range(3):
        e = SuipiEngine(cfg, random.Random(rng.getrandbits(32)))
        e.start_match()
        while not e.done:
            twin = e.clone()
            while True:
                action = rng.choice(e.legal_actions())
                if action >= 104:  # a finishing id
                    move = e.finishing_move(action)
                    assert e._composed_move(action) == move
                    break
                e.apply_action(action)
            e.apply_action(action)
            twin.play_move(move)
            assert (e.hands, e.floor, e.captured, e.turn, e.deal_index) == (
                twin.hands,
                twin.floor,
                twin.captured,
                twin.turn,
                twin.deal_index,
            )
