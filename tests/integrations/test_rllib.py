"""A few RLlib PPO iterations on local Ray; the export loads, matches RLlib, and plays legally."""

import json

import numpy as np
import pytest

from cardzoo.envs import samsip_v0

pytestmark = pytest.mark.integrations

ray = pytest.importorskip("ray")

from cardzoo.training.agents.checkpoint import load_agent  # noqa: E402
from cardzoo.training.integrations.rllib_export import greedy_actions, rllib_logits  # noqa: E402
from cardzoo.training.integrations.rllib_train import RLlibSettings, rllib_train_speed, train_rllib  # noqa: E402


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def run(local_ray, tmp_path_factory):
    # Sam Sip 5p: eliminations, and hands lost before a seat's first move (RLlib's hanging rewards).
    settings = RLlibSettings(
        game="samsip",
        players=5,
        env_runners=1,
        iterations=2,
        batch=1500,
        minibatch=250,
        epochs=2,
        hidden=(64, 64),
        eval_games=2,
        verify_matches=1,
        out=str(tmp_path_factory.mktemp("rllib") / "samsip"),
    )
    final = train_rllib(settings, log=lambda *_: None)
    return settings, final


def test_run_directory_and_zero_sum_returns(run):
    _settings, final = run
    out = final.parent
    assert (out / "settings.json").is_file() and (out / "rllib_checkpoint").is_dir()
    assert list((out / "tb").rglob("events.out.tfevents*"))
    lines = [json.loads(line) for line in (out / "progress.jsonl").read_text().splitlines()]
    assert [line["iteration"] for line in lines] == [1, 2] and lines[-1]["decisions"] >= 3000
    finished = [line for line in lines if "rollout/episode_return_sum_mean" in line]
    assert finished, "no match finished in 3000 decisions"
    for line in finished:  # every seat's whole return reached RLlib: the sum over seats is 0
        assert line["rollout/episode_return_sum_mean"] == pytest.approx(0.0, abs=1e-6)
    meta = json.loads(final.with_suffix(".json").read_text())
    assert meta["game"] == "samsip" and meta["player_counts"] == [5] and meta["hidden"] == [64, 64]
    assert meta["training_steps"] >= 3000 and set(meta["evaluation"]) == {"rules", "random"}


def test_export_matches_the_rllib_module(run):
    # RLlib's own saved module, loaded independently of the trainer, against the checkpoint.
    from ray.rllib.core.rl_module.rl_module import RLModule

    _settings, final = run
    module_dir = final.parent / "rllib_checkpoint" / "learner_group" / "learner" / "rl_module" / "shared"
    module = RLModule.from_checkpoint(str(module_dir))
    agent = load_agent(final, config=samsip_v0.Config(num_players=5))
    env = samsip_v0.raw_env(num_players=5)
    rng = np.random.default_rng(0)
    observed: list[np.ndarray] = []
    masked: list[np.ndarray] = []
    for seed in range(3):
        env.reset(seed=seed)
        for _ in range(150):  # random play, to see many different states
            obs = env.observe(env.agent_selection)
            observed.append(obs["observation"])
            masked.append(obs["action_mask"])
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    observations, masks = np.array(observed), np.array(masked)
    theirs = greedy_actions(rllib_logits(module, observations, masks), masks)
    ours = [agent.act(o, m) for o, m in zip(observations, masks)]
    assert list(ours) == list(theirs)
    assert all(masks[i, a] for i, a in enumerate(ours))


def test_export_plays_a_legal_match_in_cardzoo_eval(run, capsys):
    from cardzoo.scripts.cli import main

    _, final = run
    rc = main(["eval", "samsip", "--agents", f"{final},random", "--players", "5", "--games", "2"])
    assert rc == 0 and "final.safetensors" in capsys.readouterr().out


def test_train_speed_is_measured(local_ray):
    assert rllib_train_speed("siantappo", 4, decisions=500, env_runners=1) > 0
