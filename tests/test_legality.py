"""The env's action mask against an independent legality checker (tests/legality/), at every
decision of random and adversarial matches, at every player count and a spread of variants.

For every decision: the mask's legal ids == the checker's legal moves (nothing illegal offered,
nothing legal missing); for Siantappo also every offered id plays cards of its claimed type that
beat the table. The default run is a fixed step budget per game and count; ``-m slow`` is longer.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from cardzoo.envs.registry import game_spec
from tests.legality import samsip as samsip_check
from tests.legality import siantappo as siantappo_check
from tests.legality import suipi as suipi_check

CHECKERS = {"samsip": samsip_check, "siantappo": siantappo_check, "suipi": suipi_check}
GAMES = sorted(CHECKERS)


def _random(legal, rng, env):
    return legal[rng.randrange(len(legal))]


def _first(legal, rng, env):
    return legal[0]


def _last(legal, rng, env):  # Siantappo: the longest / bomb ids come last; Sam Sip: take, declare
    return legal[-1]


def _take_and_return(legal, rng, env):
    """Sam Sip's stall: take the discard whenever possible and throw the same card back."""
    g = env.unwrapped.engine
    if samsip_check.TAKE_DISCARD in legal:
        return samsip_check.TAKE_DISCARD
    if len(g.hands[g.turn]) == 6 and g.events and g.events[-1][2] == g.turn:
        c = g.hands[g.turn][-1]
        return c if c < 52 else samsip_check.DISCARD_JOKER
    return _random(legal, rng, env)


def _no_pass(legal, rng, env):
    """Siantappo: never pass when anything else is legal (keeps tricks and bombs going)."""
    plays = [a for a in legal if a != 367]
    return (plays or legal)[rng.randrange(len(plays or legal))]


def _builder(legal, rng, env):
    """Suipi: build whenever a build finish is offered, else add items before finishing."""
    builds = [a for a in legal if 105 <= a <= 117]
    if builds:
        return builds[rng.randrange(len(builds))]
    items = [a for a in legal if 52 <= a < 104]
    if items and rng.random() < 0.8:
        return items[rng.randrange(len(items))]
    return legal[rng.randrange(len(legal))]


def _dropper(legal, rng, env):
    """Suipi: drop whenever possible (the floor grows)."""
    return 118 if 118 in legal else legal[rng.randrange(len(legal))]


POLICIES = {
    "samsip": [_random, _first, _last, _take_and_return],
    "siantappo": [_random, _first, _last, _no_pass],
    "suipi": [_random, _first, _last, _builder, _dropper],
}
COUNTS = {"samsip": (2, 3, 4, 5, 6), "siantappo": (3, 4, 5, 6), "suipi": (2, 3, 4)}
FIXED_VARIANTS: dict[str, list[dict[str, Any]]] = {
    "samsip": [
        {},
        {"auto_declare": False},
        {"wild_scheme": "khi", "wild_in_specials": True},
        {"joker_indicator": "redraw", "on_stock_empty": "reshuffle", "stall_turns": 20},
    ],
    "siantappo": [
        {},
        {"quad_beats_single_2": True, "long_pair_runs": True},
        {"siantappo_as_lead": True, "bomb_after_pass": True},
        {"first_lead_must_include_3c": True, "starter_card": "3♠", "swap_choice": True},
        {"deal": "13each", "no_finish_on_2": True, "swap_second_with": "third"},
    ],
    "suipi": [
        {},
        {"point_game": 23, "sum_group_size": "exactly_2"},
        {"forced_capture": True, "maximal_capture": True},
        {"multi_builds": False, "max_owned_builds": 1},
        {"unique_floor_during_play": False, "max_owned_builds": 2, "_policies": ("_builder",)},
        {"builds_enabled": False, "floor_dup_rule": "lower_value"},
    ],
}
KNOWN_SLOW = {"suipi": {"unique_floor_during_play": True}}  # as in tests/test_fuzz.py
SPEED = {"samsip": {"bankroll": 10, "max_hands": 40}, "siantappo": {"rounds": 3}, "suipi": {"match_deals": 1}}


def run_checked(game, n, options, policy, seed, max_steps):
    """Play one match (or ``max_steps`` decisions) comparing mask and checker; returns steps."""
    spec = game_spec(game)
    checker = CHECKERS[game]
    env = spec.raw_env(num_players=n, **options)
    env.reset(seed=seed)
    rng = random.Random(seed)
    steps = 0
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        engine = env.unwrapped.engine
        legal = [int(a) for a in np.flatnonzero(obs["action_mask"])]
        expected = (checker.legal_actions if hasattr(checker, "legal_actions") else checker.legal_moves)(engine)
        assert set(legal) == expected, (
            f"{game} n={n} {options} step {steps}: mask-only {sorted(set(legal) - expected)}, "
            f"checker-only {sorted(expected - set(legal))}"
        )
        if hasattr(checker, "check_offered"):
            for a in legal:
                checker.check_offered(engine, a)
        env.step(policy(legal, rng, env))
        steps += 1
        if steps >= max_steps:
            break
    return steps


def _cases(game, slow):
    out = []
    for n in COUNTS[game]:
        for i, variant in enumerate(FIXED_VARIANTS[game]):
            if game == "siantappo" and variant.get("deal") == "13each" and n > 4:
                continue
            out.append((n, i, variant))
    return out


@pytest.mark.parametrize("game", GAMES)
def test_mask_equals_checker(game):
    total = 0
    for n, i, variant in _cases(game, False):
        only = variant.get("_policies")
        variant = {k: v for k, v in variant.items() if k != "_policies"}
        for j, policy in enumerate(POLICIES[game]):
            if only and policy.__name__ not in only:
                continue  # docs/suipi.md: without S12 a dropping agent makes the mask exponential
            options = {**SPEED[game], **variant}
            total += run_checked(game, n, options, policy, seed=1000 * n + 10 * i + j, max_steps=400)
    rng = random.Random(7)
    for n in COUNTS[game]:  # random variants as the fuzz draws them
        options = {**SPEED[game], **game_spec(game).random_variant(n, rng), **KNOWN_SLOW.get(game, {})}
        total += run_checked(game, n, options, _random, seed=n, max_steps=400)
    assert total > 1000


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_mask_equals_checker_long(game):
    rng = random.Random(11)
    for k in range(200):
        n = rng.choice(COUNTS[game])
        options = {**game_spec(game).random_variant(n, rng), **KNOWN_SLOW.get(game, {})}
        policy = rng.choice(POLICIES[game])
        run_checked(game, n, options, policy, seed=k, max_steps=20_000)
