"""The oracle of experiments/oracle.py (an evaluation tool: the expert searching the true deal):
it sees every hand but not the stock's order, and no agent spec can seat it."""

from __future__ import annotations

import random

import pytest

from cardzoo.envs.errors import UserError
from cardzoo.envs.registry import game_spec
from cardzoo.training.agents.specs import parse_agent_spec
from experiments.oracle import measure, true_world


def _midgame(game: str, seed: int):
    env = game_spec(game).module.raw_env()
    env.begin(seed)
    rng = random.Random(seed)
    for _ in range(rng.randrange(5, 60)):
        if env.engine.done:
            break
        env.advance(rng.choice(env.legal_now()))
    return env.engine


@pytest.mark.parametrize("game", ["siantappo", "suipi", "samsip"])
def test_the_oracle_sees_every_hand_and_draws_only_the_stock_order(game):
    reordered = 0
    for seed in range(8):
        engine = _midgame(game, seed)
        world = true_world(engine, random.Random(seed))
        assert world.hands == engine.hands and world is not engine
        stock = getattr(engine, "stock", None)
        if stock is None:
            continue
        top = getattr(engine, "top", 0)
        assert world.stock[:top] == stock[:top] and sorted(world.stock) == sorted(stock)
        for _, pos in getattr(engine, "rejected", ()):
            assert world.stock[pos] == stock[pos]  # sent to the bottom face up: public
        reordered += world.stock != stock
        assert engine.stock is stock and engine.stock == stock  # the real match is untouched
    assert reordered >= 6 or game == "siantappo"


def test_no_agent_spec_names_the_oracle():
    with pytest.raises(UserError, match="unknown agent 'oracle'"):
        parse_agent_spec("oracle")


def test_the_oracle_plays_a_duplicate_match_against_the_rule_bot():
    report = measure("suipi", 2, games=2, seed=3)
    assert report["games_played"] == 2
    assert [row["name"] for row in report["entrants"]] == ["oracle", "rules"]
    assert report["pairs"][0]["games"] == 2
    from cardzoo.training.evaluation import runner

    assert runner.make_agent.__module__ == "cardzoo.training.agents.specs"  # restored after the run
