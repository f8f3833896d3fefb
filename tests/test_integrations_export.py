"""RLlib weights -> cardzoo checkpoint, and the RLlib trainer's command line (`cardzoo train --algo rllib`),
without Ray.

The state dicts below carry RLlib's own key names (PPO module, new API stack), so the renaming is
checked against a network built here: same weights, same logits, same greedy legal action.
"""

import importlib.util
import sys
import types

import numpy as np
import pytest
import torch
from torch import nn

from cardzoo.envs.errors import UserError
from cardzoo.scripts.cli import main as cli
from cardzoo.training.integrations import rllib_train
from cardzoo.training.integrations.rllib_export import (
    ExportError,
    actor_state_dict,
    greedy_actions,
    policy_net_from_rllib,
)
from cardzoo.training.integrations.rllib_train import RLlibSettings


def rllib_like_state(obs=12, hidden=(8, 6), actions=5, shared=False, seed=0):
    """An RLlib PPO module state dict (actor/critic encoders, pi and vf heads) and its actor."""
    torch.manual_seed(seed)
    layers, width = [], obs
    for h in hidden:
        layers += [nn.Linear(width, h), nn.Tanh()]
        width = h
    actor, pi = nn.Sequential(*layers), nn.Linear(width, actions)
    prefix = "encoder.encoder.net.mlp." if shared else "encoder.actor_encoder.net.mlp."
    state = {prefix + k: v for k, v in actor.state_dict().items()}
    state.update({"pi.net.mlp.0." + k: v for k, v in pi.state_dict().items()})
    state["pi.log_std_clip_param_const"] = torch.tensor([20.0])
    if not shared:
        critic = {"encoder.critic_encoder.net.mlp." + k: torch.randn_like(v) for k, v in actor.state_dict().items()}
        state.update(critic)
    state["vf.net.mlp.0.weight"], state["vf.net.mlp.0.bias"] = torch.randn(1, width), torch.randn(1)
    return state, (lambda x: pi(actor(x)))


@pytest.mark.parametrize("shared", [False, True])
def test_export_reproduces_the_actor_logits(shared):
    state, actor = rllib_like_state(shared=shared)
    net = policy_net_from_rllib(state, "tanh")
    assert (net.obs_size, net.num_actions) == (12, 5)
    x = torch.randn(32, 12)
    with torch.no_grad():
        assert torch.allclose(net(x), actor(x), atol=1e-6)
        logits = actor(x).numpy()
    masks = (np.random.default_rng(0).random((32, 5)) < 0.5).astype(np.int8)
    masks[:, 4] = 1  # at least one legal action per row
    expected = greedy_actions(logits, masks)
    assert all(masks[i, expected[i]] for i in range(32))
    assert [net.act(x[i].numpy(), masks[i]) for i in range(32)] == list(expected)


def test_export_takes_only_the_actor():
    state, _ = rllib_like_state(hidden=(7,))
    ours, hidden = actor_state_dict(state)
    assert hidden == [7]
    assert sorted(ours) == ["action_net.bias", "action_net.weight", "policy_net.0.bias", "policy_net.0.weight"]
    assert torch.equal(ours["policy_net.0.weight"], state["encoder.actor_encoder.net.mlp.0.weight"])


def test_export_refuses_what_a_checkpoint_cannot_hold():
    state, _ = rllib_like_state()
    head = dict(state)
    head["pi.net.mlp.2.weight"], head["pi.net.mlp.2.bias"] = torch.zeros(5, 5), torch.zeros(5)
    with pytest.raises(ExportError, match="head_fcnet_hiddens"):
        actor_state_dict(head)
    norm = dict(state)
    norm["encoder.actor_encoder.net.mlp.1.weight"] = torch.ones(8)
    norm["encoder.actor_encoder.net.mlp.1.bias"] = torch.zeros(8)
    with pytest.raises(ExportError, match="layernorm"):
        actor_state_dict(norm)
    with pytest.raises(ExportError, match="no MLP actor encoder"):
        actor_state_dict({"pi.net.mlp.0.weight": torch.zeros(5, 8)})


def test_settings_check_their_input():
    s = RLlibSettings(game="Sam Sip", players=5)
    assert (s.game, s.out, s.env_config()) == ("samsip", "runs/rllib-samsip-5p", {"players": 5})
    with pytest.raises(ValueError, match="players must be one of"):
        RLlibSettings(game="suipi", players=3)
    with pytest.raises(ValueError, match="env_runners must be >= 0"):
        RLlibSettings(game="suipi", env_runners=-1)
    with pytest.raises(ValueError, match="rounds"):
        RLlibSettings(game="siantappo", variants={"rounds": 0})


def rllib(*args) -> int:
    return cli(["train", *args, "--algo", "rllib"])


def test_command_line_bad_input_is_one_line(capsys):
    assert rllib("chess") == 2
    err = capsys.readouterr().err
    assert err.startswith("cardzoo train: error: unknown game") and err.count("\n") == 1
    assert rllib("suipi", "--players", "3") == 2
    assert rllib("suipi", "--players", "2,4") == 2
    assert "one player count at a time" in capsys.readouterr().err
    assert rllib("siantappo", "-o", "rounds") == 2
    assert "KEY=VALUE" in capsys.readouterr().err
    assert rllib("siantappo", "--num-cpus", "0") == 2
    assert capsys.readouterr().err == "cardzoo train: error: num_cpus must be >= 1, got 0\n"
    assert rllib("siantappo", "--matches", "8") == 2
    assert capsys.readouterr().err == (
        "cardzoo train: error: --matches is not a flag of --algo rllib (it is one of --algo dmc, ppo)\n"
    )
    assert rllib("siantappo", "--resume") == 2
    assert "not resumable" in capsys.readouterr().err
    assert cli(["train", "siantappo", "--algo", "ppo", "--num-cpus", "2"]) == 2  # the PPO trainer refuses RLlib's flags
    assert capsys.readouterr().err == (
        "cardzoo train: error: --num-cpus is not a flag of --algo ppo (it is one of --algo rllib)\n"
    )


def test_command_line_refuses_to_overwrite_a_finished_run(capsys, tmp_path):
    (tmp_path / "final.json").write_text("{}")
    assert rllib("siantappo", "--out", str(tmp_path)) == 2
    assert capsys.readouterr().err == (
        f"cardzoo train: error: {tmp_path} already holds a finished run; choose another --out\n"
    )


def test_command_line_passes_every_flag_to_the_trainer(monkeypatch, tmp_path):
    """Every flag of the RLlib trainer reaches its settings (Ray replaced by a stand-in)."""
    started: list[rllib_train.RLlibSettings] = []
    monkeypatch.setitem(sys.modules, "ray", types.SimpleNamespace(is_initialized=lambda: False))
    monkeypatch.setitem(sys.modules, "ray.rllib", types.SimpleNamespace())
    monkeypatch.setattr(rllib_train, "train_rllib", started.append)
    assert (
        rllib(
            "samsip",
            "--players",
            "5",
            "--address",
            "ray://head:10001",
            "--env-runners",
            "3",
            "--iterations",
            "7",
            "--batch",
            "100",
            "--out",
            str(tmp_path / "r"),
            "--seed",
            "9",
            "--lr",
            "0.001",
            "--ent",
            "0.02",
            "--eval-games",
            "0",
            "--num-cpus",
            "4",
            "-o",
            "base_stake=2",
        )
        == 0
    )
    (s,) = started
    assert (s.game, s.players, s.address, s.env_runners, s.iterations, s.batch, s.minibatch) == (
        "samsip",
        5,
        "ray://head:10001",
        3,
        7,
        100,
        100,
    )
    assert (s.out, s.seed, s.learning_rate, s.entropy, s.eval_games, s.num_cpus) == (
        str(tmp_path / "r"),
        9,
        0.001,
        0.02,
        0,
        4,
    )
    assert s.variants == {"base_stake": 2}
    assert rllib("siantappo") == 0  # the defaults are the trainer's own
    assert (started[1].out, started[1].players, started[1].batch, started[1].minibatch) == (
        "runs/rllib-siantappo-4p",
        4,
        4000,
        256,
    )


def test_a_run_that_sampled_nothing_exports_nothing(monkeypatch, tmp_path):
    """Iterations whose env runners never answered (RLlib then reports no new decisions) are said
    as they happen, and a run that sampled nothing at all is a one-line error, not a checkpoint
    (RLlib replaced by a stand-in)."""

    class Algo:
        stopped = False

        def train(self):
            return {"env_runners": {"num_env_steps_sampled_lifetime": 0}}

        def stop(self):
            Algo.stopped = True

    monkeypatch.setattr(rllib_train, "start_ray", lambda *args: None)
    monkeypatch.setattr(rllib_train, "ppo_config", lambda s: types.SimpleNamespace(build_algo=Algo))
    said: list[str] = []
    settings = RLlibSettings(game="samsip", players=2, iterations=2, out=str(tmp_path / "r"))
    with pytest.raises(UserError, match=r"^RLlib sampled no decisions in 2 iterations .*nothing was exported$"):
        rllib_train.train_rllib(settings, log=said.append)
    assert [s for s in said if "no decisions" in s] == [
        f"iteration {i}: no decisions sampled (no env runner answered within 600 s)" for i in (1, 2)
    ]
    assert Algo.stopped and not (tmp_path / "r" / "final.json").exists()
    assert not (tmp_path / "r" / "rllib_checkpoint").exists()


@pytest.mark.skipif(all(importlib.util.find_spec(m) for m in ("ray", "tree")), reason="RLlib is installed here")
def test_command_line_without_ray_says_how_to_install(capsys, tmp_path):
    assert rllib("siantappo", "--out", str(tmp_path / "run")) == 2
    err = capsys.readouterr().err
    assert err.startswith("cardzoo train: error: --algo rllib needs Ray RLlib") and err.count("\n") == 1
    assert not (tmp_path / "run").exists()
