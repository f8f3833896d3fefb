"""SB3 on cardzoo.vector (``training/sb3/vec_env.py``): MaskablePPO trains on ``SB3Tables`` with the
masks sb3-contrib reads, and the SB3 trainer's ``PoolTables`` draws a side and the opponents per
match, paying the learner everything its side earned."""

from __future__ import annotations

import numpy as np
import pytest
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

import cardzoo.vector as cv
from cardzoo.envs.registry import game_spec
from cardzoo.training.agents.policy import MaskedPolicyNet
from cardzoo.training.agents.specs import RandomAgent
from cardzoo.training.common.opponents import OpponentPool
from cardzoo.training.sb3.vec_env import PoolTables, SB3Tables


def test_maskable_ppo_trains_a_few_hundred_steps_on_the_vector_env():
    tables = cv.make("siantappo", 4, num_players=3, opponents="rules", seed=0, rounds=1)  # illegal="raise"
    env = SB3Tables(tables)
    assert is_masking_supported(env)
    masks = get_action_masks(env)  # before reset: nothing legal yet
    assert masks.shape == (4, tables.tables.num_actions) and not masks.any()
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=32, batch_size=64, seed=0, policy_kwargs=dict(net_arch=[32]), verbose=0
    )
    model.learn(256)  # an illegal action would raise: every one the masks let through was legal
    assert model.num_timesteps >= 256
    obs = env.reset()
    masks = get_action_masks(env)
    assert obs.shape == (4, tables.tables.obs_size)
    np.testing.assert_array_equal(masks, tables._mask.astype(bool))
    actions, _ = model.predict(obs, action_masks=masks, deterministic=True)
    assert all(masks[i, a] for i, a in enumerate(actions))


def test_a_finished_match_hands_sb3_its_last_observation_and_the_next_first():
    env = SB3Tables(cv.make("suipi", 3, num_players=2, opponents="random", seed=5, match_deals=1))
    env.seed(11)
    obs = env.reset()
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(400):
        masks = get_action_masks(env)
        assert masks.any(axis=1).all()  # every row a real decision (same-step autoreset)
        env.step_async(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        obs, rewards, dones, infos = env.step_wait()
        assert obs.dtype == np.float32 and rewards.dtype == np.float32 and dones.shape == (3,)
        for i in np.flatnonzero(dones):
            ended += 1
            assert infos[i]["terminal_observation"].shape == obs[i].shape
            assert infos[i]["TimeLimit.truncated"] is False
        assert all(not info for i, info in enumerate(infos) if not dones[i])
    assert ended >= 3
    with pytest.raises(AttributeError, match="no per-table method 'render'"):
        env.env_method("render")


class Watched(PoolTables):
    """PoolTables that notes, as each match ends, the learner's side and what the side earned in it."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.ended: list[tuple[int, tuple, float, list]] = []

    def _finish(self, i, infos, final_info):
        side = self._learners[i]
        assert self.opponents is not None
        drawn = [type(self.opponents.agents[i][s]).__name__ for s in sorted(self.opponents.agents[i])]
        self.ended.append((i, side, sum(self.tables.totals[i][s] for s in side), drawn))
        return super()._finish(i, infos, final_info)


@pytest.mark.parametrize("game, n, config", [("suipi", 4, {"match_deals": 1}), ("samsip", 3, {"bankroll": 3})])
def test_each_match_draws_a_side_and_opponents_and_pays_the_side_what_it_earned(game, n, config):
    spec = game_spec(game)
    table = spec.raw_env(num_players=n, **config)
    pool = OpponentPool(game, table.config, weights={"random": 0.5, "rules": 0.3, "snapshot": 0.2}, seed=1)
    pool.add_snapshot(MaskedPolicyNet(table.obs_size, table.num_actions, [8]))
    tables = Watched(game, 3, {"num_players": n, **config}, pool, seeds=[7, 8, 9])
    env = SB3Tables(tables)
    env.reset()
    rng = np.random.default_rng(1)
    earned = np.zeros(3)
    paid: list[tuple[int, float]] = []
    while len(tables.ended) < 24:
        env.step_async(np.array([rng.choice(np.flatnonzero(m)) for m in get_action_masks(env)]))
        _, rewards, dones, _ = env.step_wait()
        earned += rewards
        for i in np.flatnonzero(dones):
            paid.append((int(i), float(earned[i])))
            earned[i] = 0.0
    teams = {tuple(t) for t in spec.teams(n)}
    assert [i for i, *_ in tables.ended] == [i for i, _ in paid]
    for (_, side, total, drawn), (_, reward) in zip(tables.ended, paid):
        assert side in teams and reward == pytest.approx(total, abs=1e-5)  # float32 rewards
        assert len(drawn) == n - len(side) and set(drawn) <= {
            "RandomAgent",
            "RuleBot",
            "LookaheadBot",
            "_SnapshotAgent",
        }
    assert {side for _, side, *_ in tables.ended} == teams  # every side gets played
    kinds = {d for *_, drawn in tables.ended for d in drawn}
    assert {"RandomAgent", "_SnapshotAgent"} <= kinds and len(kinds) >= 3


def test_the_pool_tables_reproduce_from_their_seeds():
    def run(seeds):
        table = game_spec("siantappo").raw_env(num_players=3, rounds=1)
        pool = OpponentPool("siantappo", table.config, weights={"random": 1.0}, seed=4)
        env = SB3Tables(PoolTables("siantappo", 2, {"num_players": 3, "rounds": 1}, pool, seeds=seeds))
        out = [env.reset()]
        rng = np.random.default_rng(2)
        for _ in range(60):
            env.step_async(np.array([rng.choice(np.flatnonzero(m)) for m in get_action_masks(env)]))
            out.append(env.step_wait()[0])
        drawn = env.tables.opponents.agents[0] if env.tables.opponents else {}
        assert drawn and all(isinstance(a, RandomAgent) for a in drawn.values())
        return np.stack(out)

    np.testing.assert_array_equal(run([1, 2]), run([1, 2]))
    assert not np.array_equal(run([1, 2]), run([3, 2]))
