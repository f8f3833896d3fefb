"""The numpy forward passes that play the checkpoints (``numpy_nets``) choose what the torch modules
that trained them choose: on every position of seeded matches, for each shipped model, and for the
policy architecture (PPO's and SB3's checkpoints).

The default suite plays ``MATCHES`` matches per shipped model; ``pytest -m slow`` plays
``SLOW_MATCHES`` (docs/ARCHITECTURE.md says which)."""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from cardzoo.envs.registry import game_spec
from cardzoo.training.agents.checkpoint import load_agent, load_network, save_checkpoint
from cardzoo.training.agents.networks import NETWORKS, load_checkpoint, torch_module
from cardzoo.training.agents.numpy_nets import ACTIVATIONS, ARCHITECTURES, PolicyMLP, RankerMLP, ValueMLP
from cardzoo.training.agents.policy import ACTIVATIONS as TORCH_ACTIVATIONS
from cardzoo.training.agents.policy import MaskedPolicyNet
from cardzoo.training.agents.ranker import MoveRankerNet
from cardzoo.training.agents.shipped import shipped_models
from cardzoo.training.agents.value import ValueNet
from cardzoo.training.parallel.threads import one_thread

MODELS = shipped_models()
MATCHES, SLOW_MATCHES = 20, 1000  # per shipped model


@pytest.fixture(autouse=True)
def _one_thread():
    """Torch and numpy's BLAS side by side, each on one thread (as evaluation runs them)."""
    with one_thread():
        yield


def _compare_matches(weights: str, game: str, counts: list[int], matches: int, positions: list | None = None) -> int:
    """Play ``matches`` seeded matches with the checkpoint in every seat (its player counts in
    turn): at every decision that asks the network, the complete move chosen on numpy's Q (what
    `cardzoo play` and `eval` use) must be the one chosen on torch's. Returns the decisions
    compared; when ``positions`` is a list, appends each one's (observation, candidate rows)."""
    torch_net, _ = load_checkpoint(weights)
    spec, compared = game_spec(game), 0
    for m in range(matches):
        env = spec.raw_env(num_players=counts[m % len(counts)])
        seats = [load_agent(weights, env.config, seed=100 * m + s) for s in range(env.num_players)]
        env.begin(m)
        done = False
        while not done:
            agent, obs, mask = seats[env.acting_seat], env.encode_seat(env.acting_seat), env.mask_now()
            action, pending = agent.prepare(obs, mask)
            if pending is not None:  # the network's turn: the same move on either side's Q
                twin = copy.copy(agent)
                action = agent.finish(pending, agent.net.scores(pending[0], pending[1]))
                theirs = twin.finish(pending, torch_net.scores(pending[0], pending[1]))
                assert (theirs, twin.pending_steps()) == (action, agent.pending_steps()), (
                    f"{Path(weights).stem}: match {m}, decision {compared}: numpy and torch differ"
                )
                if positions is not None:
                    positions.append(pending[:2])
                compared += 1
            done = env.advance(action).done
    return compared


@pytest.mark.parametrize("weights,game,counts", MODELS, ids=[Path(w).stem for w, _, _ in MODELS])
def test_numpy_and_torch_choose_the_same_moves_of_a_shipped_model(weights, game, counts):
    assert _compare_matches(weights, game, counts, MATCHES) > 10 * MATCHES


@pytest.mark.slow
@pytest.mark.parametrize("weights,game,counts", MODELS, ids=[Path(w).stem for w, _, _ in MODELS])
def test_numpy_and_torch_choose_the_same_moves_of_a_shipped_model_in_1000_matches(weights, game, counts):
    assert _compare_matches(weights, game, counts, SLOW_MATCHES) > 10 * SLOW_MATCHES


def test_the_comparison_sees_a_different_network(tmp_path, monkeypatch):
    """With the numpy side's weights changed a little, the comparison fails: it can."""
    weights, game, counts = next(m for m in MODELS if m[1] == "siantappo")
    net, meta = load_network(weights)
    state = net.state_dict()
    state["q_out.weight"] = state["q_out.weight"] * np.float32(1.5) + np.float32(0.01)
    save_checkpoint(tmp_path / "changed", RankerMLP.from_state(meta, state), meta)
    real = load_agent
    monkeypatch.setattr(
        sys.modules[__name__], "load_agent", lambda _, config, seed: real(tmp_path / "changed", config, seed=seed)
    )
    with pytest.raises(AssertionError, match="numpy and torch differ"):
        _compare_matches(weights, game, counts, 20)


@pytest.mark.parametrize("weights,game,counts", MODELS, ids=[Path(w).stem for w, _, _ in MODELS])
def test_the_batched_q_of_numpy_and_torch_agree(weights, game, counts):
    """The expert's leaves are valued in one batched pass (``best_scores``): the same values."""
    positions: list = []
    _compare_matches(weights, game, counts, 3, positions)
    numpy_net, _ = load_network(weights)
    torch_net, _ = load_checkpoint(weights)
    observations, rows = np.stack([p[0] for p in positions]), [p[1] for p in positions]
    q_numpy, starts = numpy_net.batch_scores(observations, rows)
    q_torch, starts_torch = torch_net.batch_scores(observations, rows)
    assert np.array_equal(starts, starts_torch) and len(q_numpy) == sum(len(r) for r in rows)
    np.testing.assert_allclose(q_numpy, q_torch, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(
        numpy_net.best_scores(observations, rows), torch_net.best_scores(observations, rows), rtol=1e-5, atol=1e-5
    )
    # what the expert's leaves run on a GPU (``networks.on_device``): the numpy net's torch module
    module = torch_module(numpy_net)
    assert isinstance(module, MoveRankerNet) and np.array_equal(module.batch_scores(observations, rows)[0], q_torch)
    single = [numpy_net.scores(o, r) for o, r in positions[:20]]
    np.testing.assert_allclose(np.concatenate(single), q_numpy[: sum(len(s) for s in single)], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("activation", sorted(ACTIVATIONS))
def test_a_policy_checkpoint_plays_the_same_moves_in_numpy(tmp_path, activation):
    """PPO's and SB3's checkpoints (architecture "policy"): greedy moves and advice as torch's."""
    env = game_spec("siantappo").raw_env(num_players=4)
    torch.manual_seed(3)
    net = MaskedPolicyNet(env.obs_size, env.num_actions, [64, 32], activation)
    save_checkpoint(tmp_path / "p", net, {"game": "siantappo", "env": "siantappo_v0", "player_counts": [4]})
    numpy_net, meta = load_network(tmp_path / "p")
    assert isinstance(numpy_net, PolicyMLP) and meta["activation"] == activation
    agent = load_agent(tmp_path / "p", env.config)
    bots = [game_spec("siantappo").rule_bot(env.config, seed=s) for s in range(4)]
    compared = 0
    for m in range(10):
        env.begin(m)
        done = False
        while not done:
            seat, obs, mask = env.acting_seat, env.encode_seat(env.acting_seat), env.mask_now()
            assert agent.act(obs, mask) == net.act(obs, mask)
            with torch.no_grad():
                logits = net(torch.as_tensor(obs).unsqueeze(0))[0].masked_fill(~torch.as_tensor(mask > 0), -torch.inf)
            np.testing.assert_allclose(
                numpy_net.probabilities(obs, mask), torch.softmax(logits, 0).numpy(), rtol=1e-5, atol=1e-6
            )
            advice = agent.advise(obs, mask)
            assert advice[0][0] == (agent.act(obs, mask),) and abs(sum(p for _, p in advice) - 1) < 1e-6
            compared += 1
            done = env.advance(bots[seat].act(obs, mask)).done
    assert compared > 100


def test_the_numpy_and_torch_sides_name_the_same_architectures_and_tensors():
    assert set(ARCHITECTURES) == set(NETWORKS) and set(ACTIVATIONS) == set(TORCH_ACTIVATIONS)
    for hidden in ([5], [6, 4], [3, 4, 5]):
        policy, ranker = MaskedPolicyNet(11, 7, hidden).state_dict(), MoveRankerNet(11, 9, hidden).state_dict()
        assert {k: tuple(v.shape) for k, v in policy.items()} == PolicyMLP.parameter_shapes(11, 7, hidden)
        assert {k: tuple(v.shape) for k, v in ranker.items()} == RankerMLP.parameter_shapes(11, 9, hidden)
        value = ValueNet(6, 4, 3, hidden).state_dict()
        assert {k: tuple(v.shape) for k, v in value.items()} == ValueMLP.parameter_shapes(6, 4, 3, hidden)


def test_a_value_network_is_the_same_function_in_numpy_and_torch():
    """The numpy ValueMLP (what evaluates) computes what the torch ValueNet (what trains) does."""
    torch.manual_seed(3)
    net = ValueNet(7, 5, 4, [9, 6])
    meta = {"deck": 7, "codes": 5, "numbers": 4, "hidden": [9, 6], "activation": "relu"}
    numpy_net = ValueMLP.from_state(meta, {k: v.detach().numpy() for k, v in net.state_dict().items()})
    rng = np.random.default_rng(0)
    codes, numbers = rng.integers(0, 5, (20, 7)), rng.normal(size=(20, 4)).astype(np.float32)
    with torch.no_grad():
        want = net(torch.as_tensor(codes), torch.as_tensor(numbers)).numpy()
    assert np.allclose(numpy_net.values(codes, numbers), want, atol=1e-5)
