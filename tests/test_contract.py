"""The environment contract, checked the same way for every registered game and player count."""

from __future__ import annotations

import math

import numpy as np
import pytest

from envs.base import IllegalMoveError
from envs.registry import PLAYER_COUNTS, game_module

GAMES = ["siantappo", "suipi", "samsip"]
GAME_COUNTS = [(g, n) for g in GAMES for n in PLAYER_COUNTS[g]]


def first_legal(obs) -> int:
    return int(np.flatnonzero(obs["action_mask"])[0])


@pytest.mark.parametrize("game", GAMES)
def test_step_cap_truncates_every_seat(game):
    env = game_module(game).raw_env(max_steps=30)
    env.reset(seed=3)
    steps, truncated = 0, False
    for agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            truncated |= trunc
            assert not obs["action_mask"].any()
            env.step(None)
            continue
        env.step(first_legal(obs))
        steps += 1
        assert steps <= 30
    assert steps == 30 and truncated and env.agents == []
    assert env.step_count == 30


@pytest.mark.parametrize("game", GAMES)
def test_fast_path_reports_truncation(game):
    env = game_module(game).raw_env(max_steps=25)
    env.begin(7)
    for step in range(1, 26):
        out = env.advance(env.legal_now()[0])
        if out.done:
            break
    assert step == 25 and out.done and out.truncated
    env.begin(7)
    assert env.step_count == 0


@pytest.mark.parametrize("game", GAMES)
def test_default_step_cap_is_the_rules_bound(game):
    module = game_module(game)
    env = module.raw_env()
    assert env.max_steps == env._step_bound() > 100
    for bad in (0, -5, 2.5, True, "10"):
        with pytest.raises(ValueError, match="max_steps"):
            module.raw_env(max_steps=bad)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("bad", [1.7, 1.0, "1", True, np.bool_(True), float("inf"), float("nan"), None, [1],
                                 np.float32(2.0), "x" * 5000])
def test_only_integers_are_actions(game, bad):
    env = game_module(game).raw_env()
    env.reset(seed=0)
    before = (env.agent_selection, list(env.history))
    with pytest.raises(IllegalMoveError, match="must be an integer action id") as err:
        env.step(bad)
    assert len(str(err.value)) < 300
    if isinstance(bad, float) and math.isinf(bad):
        assert "inf" in str(err.value)
    assert (env.agent_selection, env.history) == before
    legal = first_legal(env.observe(env.agent_selection))
    for ok in (legal, np.int64(legal), np.int8(legal), np.array(legal)):
        env.reset(seed=0)
        env.step(ok)
        assert env.history == [legal]


@pytest.mark.parametrize("sizes", [[24], [20, 4], [16, 8], [1] * 24, [12, 12]])
def test_suipi_long_deals_stay_inside_the_box(sizes):
    """Issue 10: hand size / 12 reached 2.0 with deal_sizes_2p=[24]; scales follow the config."""
    env = game_module("suipi").raw_env(deal_sizes_2p=sizes)
    space = env.observation_space("player_0")
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    biggest = 0.0
    while env.agents:
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        for agent in env.agents:
            seen = env.observe(agent)
            assert space.contains(seen)
            biggest = max(biggest, float(seen["observation"].max()))
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert biggest == 1.0


@pytest.mark.parametrize("game", GAMES)
def test_error_messages_stay_short(game):
    """Issue 10: illegal-move messages ran to 2.4k characters; reasons and listings are capped."""
    env = game_module(game).raw_env()
    env.reset(seed=2)
    for text in ("x" * 5000, "7h " * 2000, "pass"):
        try:
            env.play(text)
        except IllegalMoveError as err:
            assert len(str(err)) < 1500 and len(err.reason) <= 300
            assert err.legal == [t for _, t in env.full_moves()] or err.legal == [t for _, t in env.legal_moves()] \
                or err.legal == []
    illegal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0])
    with pytest.raises(IllegalMoveError) as err:
        env.step(illegal)
    assert len(str(err.value)) < 1500 and err.value.legal
