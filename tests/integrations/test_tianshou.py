"""Tianshou's collector runs full Sam Sip 5-player matches through CardzooTianshouEnv."""

import numpy as np
import pytest

from cardzoo.envs import samsip_v0

pytestmark = pytest.mark.integrations

tianshou = pytest.importorskip("tianshou")
from tianshou.algorithm.multiagent.marl import MultiAgentPolicy  # noqa: E402
from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm  # noqa: E402
from tianshou.data import Collector, VectorReplayBuffer  # noqa: E402
from tianshou.env import DummyVectorEnv, PettingZooEnv  # noqa: E402

from cardzoo.training.integrations.tianshou_env import CardzooTianshouEnv  # noqa: E402

CONFIG = {"game": "samsip", "players": 5}


class RecordingEnv(CardzooTianshouEnv):
    """Remembers each episode's seed so the test can replay it on the plain AEC env."""

    def __init__(self, config):
        super().__init__(config)
        self.episode_seeds = []

    def reset(self, *args, **kwargs):
        out = super().reset(*args, **kwargs)
        self.episode_seeds.append(self.aec.episode_seed)
        return out


def replay(seed, agent_ids, actions):
    """Play the recorded actions on raw_env: (decisions until the end, totals, eliminations
    before the end)."""
    env = samsip_v0.raw_env(num_players=5)
    env.reset(options={"episode_seed": seed})
    totals, eliminated, i = dict.fromkeys(env.possible_agents, 0.0), 0, 0
    for agent in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        if term or trunc:
            eliminated += not all(env.terminations.values())
            env.step(None)
            continue
        assert agent == agent_ids[i]
        env.step(int(actions[i]))
        i += 1
        for a, r in env.rewards.items():
            totals[a] += r
    return i, totals, eliminated


def test_collector_runs_samsip_5p_matches_to_the_end():
    np.random.seed(0)  # the random policy draws from NumPy's global stream
    env = RecordingEnv(CONFIG)
    assert isinstance(env, PettingZooEnv)
    policy = MultiAgentPolicy(
        {a: MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space).policy for a in env.agents}
    )
    envs = DummyVectorEnv([lambda: env])
    envs.seed(7)
    collector = Collector(policy, envs, VectorReplayBuffer(20_000, 1))
    env.episode_seeds.clear()
    stats = collector.collect(n_episode=2, reset_before_collect=True)
    assert stats.n_collected_episodes == 2

    buffer = collector.buffer
    done_at = np.flatnonzero(buffer.done[: len(buffer)])
    assert len(done_at) == 2
    start, total_eliminated = 0, 0
    for episode, end in enumerate(done_at):
        ids, acts = buffer.obs.agent_id[start : end + 1], buffer.act[start : end + 1]
        decisions, totals, eliminated = replay(env.episode_seeds[episode], list(ids), acts)
        # The episode is the whole match: the replay ends exactly where Tianshou's episode did.
        assert decisions == end + 1 - start == stats.lens[episode]
        assert list(stats.returns[episode]) == pytest.approx([totals[a] for a in env.agents])
        assert stats.returns[episode].sum() == pytest.approx(0.0, abs=1e-9)
        total_eliminated += eliminated
        start = end + 1
    # Tianshou's own PettingZooEnv would have ended each match at its first elimination.
    assert total_eliminated >= 2, "these matches had eliminations before their end"
