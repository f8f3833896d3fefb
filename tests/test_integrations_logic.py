"""The RLlib and Tianshou adapters' own logic, checked against the plain AEC loop.

No RL library needed: ``RLlibView`` and ``TianshouView`` hold everything but the base classes.
Every game and player count: the same seeded random policy plays the plain PettingZoo loop and
each view; episode length (decisions) and each seat's total reward must match, and sum to zero.
"""

import subprocess
import sys

import numpy as np
import pytest

from cardzoo.envs.base import IllegalMoveError
from cardzoo.envs.registry import PLAYER_COUNTS, game_module
from cardzoo.training.integrations.rllib_view import RLlibView, rllib_observation
from cardzoo.training.integrations.tianshou_view import TianshouView

CASES = [(g, n) for g, counts in PLAYER_COUNTS.items() for n in counts]


def plain_loop(game, players, seed, **variants):
    """The reference: PettingZoo's own loop. Returns decisions, totals, first-move step per seat,
    reward earned before a seat's first move, and the decision index of each elimination."""
    env = game_module(game).raw_env(num_players=players, **variants)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    before_first = dict.fromkeys(env.possible_agents, 0.0)
    moved: set[str] = set()
    eliminations: list = []
    decisions = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        moved.add(agent)
        decisions += 1
        for a, r in env.rewards.items():
            totals[a] += r
            if a not in moved:
                before_first[a] += r
        if any(env.terminations.values()) and not all(env.terminations.values()):
            eliminations += [decisions] * (sum(env.terminations.values()) - len(eliminations))
    return decisions, totals, before_first, eliminations


def run_rllib(view, seed):
    """Drive the RLlib view with the plain loop's policy; checks the protocol at every step."""
    rng = np.random.default_rng(seed)
    obs, infos = view.reset(seed=seed)
    steps, paid, acted, last_infos = 0, dict.fromkeys(view.possible_agents, 0.0), set(), infos
    while True:
        assert len(obs) == 1, "exactly one seat moves at a time"
        ((agent, o),) = obs.items()
        assert set(o) == {"observations", "action_mask"} and o["action_mask"].dtype == np.float32
        assert view.observation_spaces[agent].contains(o)
        obs, rewards, terms, truncs, last_infos = view.step({agent: int(rng.choice(np.flatnonzero(o["action_mask"])))})
        acted.add(agent)
        steps += 1
        assert agent in rewards, "RLlib needs a reward for every agent that acted this step"
        assert set(rewards) <= acted, "no reward reaches RLlib before the agent's first move"
        for a, r in rewards.items():
            paid[a] += r
        assert truncs == {"__all__": False}
        if terms["__all__"]:
            assert obs == {}
            return steps, paid, last_infos


def run_tianshou(view, seed):
    rng = np.random.default_rng(seed)
    obs, _ = view.reset(seed=seed)
    steps, totals = 0, np.zeros(len(view.agents))
    while True:
        assert obs["agent_id"] in view.agents and obs["mask"].dtype == bool and obs["mask"].any()
        obs, rewards, terminated, truncated, _ = view.step(int(rng.choice(np.flatnonzero(obs["mask"]))))
        steps += 1
        totals += rewards
        assert not truncated
        if terminated:
            assert not obs["mask"].any()
            return steps, totals


@pytest.mark.parametrize("game,players", CASES)
def test_views_match_the_plain_aec_loop(game, players):
    for seed in (1, 2):
        decisions, totals, _, _ = plain_loop(game, players, seed)
        expected = [totals[a] for a in sorted(totals)]
        assert sum(expected) == pytest.approx(0.0, abs=1e-9)

        rl = RLlibView({"game": game, "players": players})
        steps, paid, _ = run_rllib(rl, seed)
        assert steps == decisions
        assert [paid[a] for a in sorted(paid)] == pytest.approx(expected)
        assert rl.returns == pytest.approx(totals) and rl.unattributed == {}

        ts = TianshouView({"game": game, "players": players})
        steps, vector = run_tianshou(ts, seed)
        assert steps == decisions
        assert [vector[ts.agent_idx[a]] for a in sorted(totals)] == pytest.approx(expected)


def _seed_where(predicate, game, players, **variants):
    for seed in range(200):
        result = plain_loop(game, players, seed, **variants)
        if predicate(result):
            return seed, result
    raise AssertionError("no such episode in 200 seeds")


def test_tianshou_runs_samsip_5p_past_eliminations_to_the_end():
    # Tianshou's own wrapper stops at the first elimination; the view must not.
    seed, (decisions, totals, _, eliminations) = _seed_where(lambda r: len(r[3]) >= 2, "samsip", 5)
    assert eliminations[0] < decisions
    view = TianshouView({"game": "samsip", "players": 5})
    steps, vector = run_tianshou(view, seed)
    assert steps == decisions and steps > eliminations[-1]
    assert list(vector) == pytest.approx([totals[a] for a in view.agents])
    assert vector.sum() == pytest.approx(0.0, abs=1e-9)


def test_rllib_pays_a_reward_earned_before_the_first_move_with_that_move():
    # Sam Sip 5p: a hand can be lost before a seat has moved (RLlib would log it nowhere).
    seed, (decisions, totals, before, _) = _seed_where(lambda r: any(v != 0 for v in r[2].values()), "samsip", 5)
    early = next(a for a, v in before.items() if v != 0)
    view = RLlibView({"game": "samsip", "players": 5})
    steps, paid, _ = run_rllib(view, seed)
    assert steps == decisions
    assert paid[early] == pytest.approx(totals[early])
    assert sum(paid.values()) == pytest.approx(0.0, abs=1e-9)


def test_rllib_reports_a_seat_eliminated_before_it_ever_moved():
    # With a bankroll of 1 chip, losing the first hand before moving eliminates a seat at once.
    seed, (decisions, totals, _before, _) = _seed_where(
        lambda r: any(v != 0 for v in r[2].values()), "samsip", 5, bankroll=1
    )
    view = RLlibView({"game": "samsip", "players": 5, "bankroll": 1})
    steps, paid, infos = run_rllib(view, seed)
    assert steps == decisions and view.unattributed
    for seat, reward in view.unattributed.items():
        assert paid[seat] == 0.0 and reward == pytest.approx(totals[seat]) and reward < 0
    assert infos["__common__"]["unattributed_rewards"] == view.unattributed
    assert sum(paid.values()) + sum(view.unattributed.values()) == pytest.approx(0.0, abs=1e-9)


def test_rllib_observation_renames_the_key_and_keeps_the_values():
    env = game_module("suipi").raw_env()
    env.reset(seed=3)
    obs = env.observe(env.agent_selection)
    out = rllib_observation(obs)
    assert set(out) == {"observations", "action_mask"}
    assert out["observations"] is obs["observation"]
    assert np.array_equal(out["action_mask"], obs["action_mask"]) and out["action_mask"].dtype == np.float32


def test_suipi_sub_steps_give_the_same_seat_its_next_observation():
    view = RLlibView({"game": "suipi", "players": 2})
    obs, _ = view.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(200):
        ((agent, o),) = obs.items()
        obs, rewards, _terms, _, _ = view.step({agent: int(rng.choice(np.flatnonzero(o["action_mask"])))})
        if agent in obs:  # a move made of several actions: the same seat again
            assert agent in rewards
            return
    raise AssertionError("no multi-action Suipi move in 200 steps")


def test_bad_configs_and_actions_are_clear_errors():
    with pytest.raises(ValueError, match="needs a 'game'"):
        RLlibView({"players": 4})
    with pytest.raises(ValueError, match="players must be one of"):
        TianshouView({"game": "suipi", "players": 3})
    with pytest.raises(ValueError, match="unknown game"):
        RLlibView({"game": "chess"})
    view = RLlibView({"game": "siantappo", "players": 4})
    _obs, _ = view.reset(seed=0)
    with pytest.raises(KeyError, match="is to move"):
        view.step({"nobody": 0})


def test_rllib_illegal_action_ends_the_match_like_env_does():
    view = RLlibView({"game": "siantappo", "players": 4})
    obs, _ = view.reset(seed=0)
    ((agent, o),) = obs.items()
    illegal = int(np.flatnonzero(o["action_mask"] == 0)[0])
    obs, rewards, terms, _, infos = view.step({agent: illegal})
    assert obs == {} and terms["__all__"] and rewards == {agent: -1.0}
    assert infos["__common__"]["illegal_action"] == {"agent": agent, "action": illegal}
    strict = RLlibView({"game": "siantappo", "players": 4}, on_illegal="raise")
    strict.reset(seed=0)
    with pytest.raises(IllegalMoveError):
        strict.step({agent: illegal})


def test_envs_and_views_import_no_rl_library():
    code = (
        "import sys, cardzoo.envs.siantappo_v0, cardzoo.envs.suipi_v0, cardzoo.envs.samsip_v0; "
        "assert not any(m.startswith('cardzoo.training.integrations') for m in sys.modules); "
        "import cardzoo.training.integrations.rllib_view, cardzoo.training.integrations.tianshou_view; "
        "bad = [m for m in sys.modules if m.split('.')[0] in ('ray', 'tianshou')]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
