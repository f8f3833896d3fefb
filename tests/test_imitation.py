"""Imitation (``cardzoo.training.common.imitation``): the bot-only matches every warm start learns
from, checked against the PettingZoo env played on its own, and PPO's warm start on them."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

from cardzoo.envs.registry import game_spec
from cardzoo.training.common.imitation import action_samples, drawn_matches, numbered_matches


def _aec_decisions(game: str, n: int, variants: dict, matches: int, seed: int) -> list[tuple]:
    """(observation, mask, action, return, legal count) of every decision of rule-bot-only matches
    played through the checked PettingZoo API (``reset(seed=...)``, ``last``, ``step``); a
    decision's return is what its seat earned from it to the end of the match."""
    module = game_spec(game).module
    env = module.raw_env(num_players=n, **variants)
    out = []
    for m in range(matches):
        env.reset(seed=seed * 100_003 + m)
        bots = [module.RuleBot(env.config, seed=seed + 31 * m + s) for s in range(n)]
        totals = dict.fromkeys(env.possible_agents, 0.0)
        rows = []  # (agent, the agent's total then, observation, mask, action)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            action = bots[env.agent_seat[agent]].act(obs["observation"], obs["action_mask"])
            rows.append((agent, totals[agent], obs["observation"], obs["action_mask"], action))
            env.step(action)
            for a, r in env.rewards.items():  # this step's rewards, every seat's
                totals[a] += r
        out += [
            (o, mask.astype(bool), a, totals[agent] - before, int(mask.sum())) for agent, before, o, mask, a in rows
        ]
    return out


@pytest.mark.parametrize(
    "game,players,variants", [("siantappo", 3, {"rounds": 1}), ("suipi", 4, {}), ("samsip", 3, {})]
)
def test_recorded_decisions_are_the_rule_bots_in_the_pettingzoo_env(game, players, variants):
    expected = _aec_decisions(game, players, variants, matches=3, seed=5)
    plans = list(numbered_matches((players,), 3, 5, reset_seeds=True))
    obs, masks, actions, returns = action_samples(game, variants, plans, every=True)
    assert len(actions) == len(expected) > 30
    for k, (o, mask, a, ret, _) in enumerate(expected):
        assert np.array_equal(obs[k], o) and np.array_equal(masks[k], mask) and actions[k] == a
        assert returns[k] == pytest.approx(ret, abs=1e-5)
    choices = [e for e in expected if e[4] > 1]  # without ``every``: the real choices only
    obs, masks, actions, returns = action_samples(game, variants, plans)
    assert 0 < len(choices) == len(actions) < len(expected)
    assert np.array_equal(actions, [e[2] for e in choices]) and masks[np.arange(len(actions)), actions].all()


def test_match_plans_mix_player_counts_and_are_seeded():
    numbered = list(numbered_matches((2, 4), 4, seed=3))
    assert [p.players for p in numbered] == [2, 4, 2, 4]
    assert numbered[1].bot_seeds == (3 + 31, 3 + 32, 3 + 33, 3 + 34) and numbered[1].episode_seed == 3 * 100_003 + 1
    drawn = list(drawn_matches((2, 4), 30, seed=3))
    assert drawn == list(drawn_matches((2, 4), 30, seed=3)) != list(drawn_matches((2, 4), 30, seed=4))
    assert {p.players for p in drawn} == {2, 4} and all(len(p.bot_seeds) == p.players for p in drawn)


def test_ppo_warm_start_fits_the_actor_to_the_bot_and_the_critic_to_the_returns():
    from cardzoo.training.ppo.actor_critic import ActorCritic
    from cardzoo.training.ppo.warm_start import clone_rule_bot

    env = game_spec("siantappo").raw_env(num_players=3, rounds=1)
    torch.manual_seed(0)
    net = ActorCritic(env.obs_size, env.num_actions, (64,))
    obs, _, _, returns = action_samples("siantappo", {"rounds": 1}, numbered_matches((3,), 40, 2))

    def value_error() -> float:
        with torch.no_grad():
            return float((net(torch.from_numpy(obs))[1] - torch.from_numpy(returns)).pow(2).mean())

    lines: list[str] = []
    kwargs: dict[str, Any] = dict(
        game="siantappo", players=(3,), variants={"rounds": 1}, matches=40, seed=2, log=lines.append
    )
    before, error_before = clone_rule_bot(net, epochs=0, **kwargs), value_error()
    after = clone_rule_bot(net, epochs=30, **kwargs)
    assert after > max(before, 0.6) and value_error() < error_before / 2
    assert len(lines) == 30 and lines[-1].startswith("warm start epoch 30/30: picks the rule bot's move")
