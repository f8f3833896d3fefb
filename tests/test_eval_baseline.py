"""Baseline sanity: in every game and player count the rule bot beats random.

Rules vs random as a field (duplicate deals, seats rotated), fixed seeds; the 95% interval of the
rule bot's reward advantage over random must exclude 0, and its win rate interval must lie above
50%. The measured numbers for more games are in docs/evaluation.md.
"""

from __future__ import annotations

import pytest

from cardzoo.envs.registry import PLAYER_COUNTS
from cardzoo.training.evaluation.schedule import duplicate_set, sides_for
from cardzoo.training.evaluation.tournament import run_tournament

CASES = [(g, n) for g, counts in PLAYER_COUNTS.items() for n in counts]
DEALS = 8  # duplicate deals per case (each played in every seating of the field)


@pytest.mark.parametrize("game, players", CASES, ids=[f"{g}-{n}p" for g, n in CASES])
def test_rule_bot_beats_random(game, players):
    games = DEALS * len(duplicate_set(0, 2, len(sides_for(game, players))))
    rep = run_tournament(game, ["rules", "random"], players=players, games=games, seed=2024).report()
    pair = rep["pairs"][0]
    assert (pair["a"], pair["b"]) == ("rules", "random")
    lo, hi = pair["advantage_ci"]
    assert lo > 0, f"{game} {players}p: rules - random reward {pair['advantage']:+.3f} [{lo:+.3f}, {hi:+.3f}]"
    rules = rep["entrants"][0]
    assert rules["win_ci"][0] > 0.5, f"{game} {players}p: rules win rate {rules['win_rate']:.2f} {rules['win_ci']}"
