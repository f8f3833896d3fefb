"""The batched PPO trainer: collector = AEC env, PPO learns, runs resume exactly, bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from safetensors.torch import load_file

from cardzoo.envs.registry import game_spec
from cardzoo.scripts.cli import main as cli
from cardzoo.training.agents.checkpoint import load_agent
from cardzoo.training.agents.policy import MaskedPolicyNet
from cardzoo.training.ppo.actor_critic import ActorCritic, critic_input
from cardzoo.training.ppo.collector import Collector, CollectRequest
from cardzoo.training.ppo.trainer import PPOSettings, ppo_update, stream_advantages
from tests.run_helpers import kill_once_saved

CLI = [sys.executable, "-m", "cardzoo.scripts.cli"]
ROOT = Path(__file__).resolve().parents[1]
SMALL = [
    "--algo",
    "ppo",
    "--workers",
    "0",
    "--matches",
    "4",
    "--batch",
    "256",
    "--minibatch",
    "128",
    "--eval-games",
    "0",
    "--no-progress",
]
GAMES = [("siantappo", 4), ("suipi", 2), ("suipi", 4), ("samsip", 3)]


def _collector(game, players, matches=3, opponents=None):
    s = PPOSettings(game=game, players=(players,), matches_per_worker=matches, workers=0)
    c = Collector(*s.collector_args())
    weights = {k: v.numpy() for k, v in c.learner.state_dict().items()}
    return c, weights


@pytest.mark.parametrize("game,players", GAMES)
def test_collector_matches_the_aec_env_bit_for_bit(game, players):
    """Replaying the collector's matches through the checked AEC path gives the same
    observations, masks, rewards and episode ends for every learner sample."""
    c, weights = _collector(game, players, matches=1)
    module = game_spec(game).module
    for k in range(2):
        rollout = c.collect(CollectRequest(weights, (5, k, 0), 1, 1.0, {}))  # one whole match
        assert len(rollout.matches) == 1 and len(rollout.actions) > 20
        # the match's seed comes from the same stream, as in Collector._new_match
        rng = np.random.default_rng(np.random.SeedSequence([5, k, 0]))
        n = int(rng.choice([players]))
        env = module.raw_env(num_players=n)
        env.reset(options={"episode_seed": int(rng.integers(2**63 - 1))})
        pending: dict[str, int] = {}
        rewards = np.zeros(len(rollout.rewards), np.float32)
        row = 0
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            if len(legal) == 1:  # forced: played without a sample
                action = int(legal[0])
            else:
                assert np.array_equal(obs["observation"], rollout.obs[row])
                assert np.array_equal(obs["action_mask"].astype(bool), rollout.masks[row])
                action = int(rollout.actions[row])
                pending[agent] = row
                row += 1
            env.step(action)
            for a, r in env.rewards.items():
                if r and a in pending:
                    rewards[pending[a]] += r
        assert row == len(rollout.actions)
        assert sorted(np.flatnonzero(rollout.dones).tolist()) == sorted(pending.values())
        np.testing.assert_allclose(rewards, rollout.rewards, atol=1e-6)


def test_collector_is_reproducible_and_plays_opponents():
    c, weights = _collector("siantappo", 4, matches=4)
    req = CollectRequest(weights, (1, 2, 3), 200, 0.0, {"rules": 1.0, "random": 1.0})
    a, b = c.collect(req), c.collect(req)
    assert np.array_equal(a.actions, b.actions) and np.array_equal(a.rewards, b.rewards)
    assert {m["opponent"] for m in a.matches} <= {"rules", "random"}
    assert all("learner_won" in m for m in a.matches)
    # only the learner's seat is sampled: far fewer samples per match than in self-play
    selfplay = c.collect(CollectRequest(weights, (1, 2, 3), 200, 1.0, {}))
    assert len(selfplay.actions) / len(selfplay.matches) > 2.5 * len(a.actions) / len(a.matches)


@pytest.mark.parametrize("game,counts", [("siantappo", (3, 6)), ("suipi", (2, 4)), ("samsip", (2, 5))])
def test_the_perfect_critic_reads_every_seat_and_the_actor_its_own(game, counts):
    """--critic perfect: a sample's critic input is every seat's observation, the deciding seat's
    first, then the others in turn order, zeros for the seats a smaller match lacks; the actor's
    input is the seat's own observation, and the exported weights are a plain MaskedPolicyNet's."""
    s = PPOSettings(game=game, players=counts, matches_per_worker=4, workers=0, critic="perfect")
    c = Collector(*s.collector_args())
    weights = {k: v.numpy() for k, v in c.learner.state_dict().items()}
    rollout = c.collect(CollectRequest(weights, (3, 0, 0), 200, 1.0, {}))
    size, most = c.obs_size, max(counts)
    assert rollout.critic_obs is not None
    assert rollout.critic_obs.shape == (len(rollout.actions), most * size)
    assert np.array_equal(rollout.critic_obs[:, :size], rollout.obs)
    seats = (rollout.critic_obs.reshape(len(rollout.actions), most, size) != 0).any(axis=2).sum(axis=1)
    assert set(seats.tolist()) == set(counts)  # both counts were played, each with its own seats filled
    for n in counts:
        env = game_spec(game).module.raw_env(num_players=n)
        env.begin(11)
        env.advance(env.legal_now()[0])
        seat = env.acting_seat
        out = np.full(most * size, np.nan, np.float32)
        critic_input(env, seat, out)
        expected = np.concatenate([env.encode_seat((seat + k) % n) for k in range(n)])
        assert np.array_equal(out[: n * size], expected) and not out[n * size :].any()
    actor = ActorCritic(size, c.num_actions, (16,), "relu", critic_size=most * size).actor_state()
    assert set(actor) == set(MaskedPolicyNet(size, c.num_actions, [16], "relu").state_dict())


def test_a_perfect_critic_run_trains_and_exports_the_actor(tmp_path):
    out = tmp_path / "perfect"
    assert (
        cli(
            ["train", "siantappo", "--players", "4", "--steps", "600", "--critic", "perfect", "--out", str(out)] + SMALL
        )
        == 0
    )
    agent = load_agent(out / "final.safetensors", game_spec("siantappo").module.raw_env(num_players=4).config)
    assert agent.meta["settings"]["critic"] == "perfect"
    assert not any(k.startswith("value_net.") for k in load_file(out / "final.safetensors"))


def test_stream_advantages_are_monte_carlo_returns_with_gamma_one():
    from cardzoo.training.ppo.collector import Rollout

    z = np.zeros
    r = Rollout(
        obs=z((5, 1), np.float32),
        masks=z((5, 2), bool),
        actions=z(5, np.int64),
        logprobs=z(5, np.float32),
        values=np.array([0.5, 0.1, 0.2, 0.3, 0.0], np.float32),
        rewards=np.array([1, 2, 0, 3, -1], np.float32),
        dones=np.array([0, 0, 1, 0, 1], bool),
        streams=np.array([0, 1, 0, 1, 0]),
        decisions=5,
        moves=5,
        matches=[],
    )
    # stream 0: rows 0, 2 (done), 4 (done, a new episode); stream 1: rows 1, 3 (not done: no next)
    _, returns = stream_advantages(r, 1.0, 1.0)
    np.testing.assert_allclose(returns, [1 + 0, 2 + 3, 0, 3, -1], atol=1e-6)


def test_ppo_update_learns_the_best_action_of_a_bandit():
    """One state, five actions, action 3 pays 1 and the others 0: a few PPO iterations make
    action 3 the clear favourite, and a masked action never gets probability."""
    torch.manual_seed(0)
    s = PPOSettings(game="siantappo", minibatch=64, epochs=4, lr=3e-3, ent_coef=0.0)
    net = ActorCritic(4, 5, (16,))
    opt = torch.optim.Adam(net.parameters(), lr=s.lr)
    rng = np.random.default_rng(0)
    obs = np.ones((256, 4), np.float32)
    masks = np.ones((256, 5), bool)
    masks[:, 4] = False  # action 4 is never legal
    for _it in range(15):
        with torch.no_grad():
            logits, values = net(torch.from_numpy(obs))
            logp = torch.log_softmax(logits.masked_fill(~torch.from_numpy(masks), -1e9), 1)
            actions = torch.multinomial(logp.exp(), 1).squeeze(1)
        assert not (actions == 4).any()
        rewards = (actions == 3).float().numpy()
        batch = {
            "obs": obs,
            "masks": masks,
            "actions": actions.numpy(),
            "logprobs": logp.gather(1, actions[:, None]).squeeze(1).numpy(),
            "values": values.numpy(),
            "advantages": rewards - values.numpy(),
            "returns": rewards,
        }
        ppo_update(net, opt, batch, s, rng)
    with torch.no_grad():
        probs = torch.softmax(net(torch.ones(1, 4))[0].masked_fill(~torch.from_numpy(masks[:1]), -1e9), 1)[0]
    assert probs.argmax().item() == 3 and probs[3] > 0.8 and probs[4] == 0


@pytest.mark.parametrize("game,players", [("siantappo", 3), ("suipi", 4), ("samsip", 5)])
def test_cardzoo_train_writes_a_loadable_checkpoint(tmp_path, game, players):
    out = tmp_path / "run"
    assert cli(["train", game, "--players", str(players), "--steps", "600", "--out", str(out)] + SMALL) == 0
    agent = load_agent(out / "final.safetensors", game_spec(game).module.raw_env(num_players=players).config)
    assert agent.meta["training_steps"] >= 600 and agent.meta["player_counts"] == [players]
    assert agent.meta["settings"]["game"] == game and (out / "state" / "state.json").is_file()
    assert list((out / "tb").iterdir())


def test_one_network_for_several_player_counts(tmp_path):
    out = tmp_path / "mix"
    assert cli(["train", "siantappo", "--players", "3,6", "--steps", "1500", "--out", str(out)] + SMALL) == 0
    meta = json.loads((out / "final.json").read_text())
    assert meta["player_counts"] == [3, 6]
    for n in (3, 6):
        load_agent(out / "final.safetensors", game_spec("siantappo").module.raw_env(num_players=n).config)


def _train_cmd(out, steps=6000):
    return CLI + [
        "train",
        "siantappo",
        "--algo",
        "ppo",
        "--steps",
        str(steps),
        "--out",
        str(out),
        "--workers",
        "1",
        "--matches",
        "3",
        "--batch",
        "256",
        "--minibatch",
        "128",
        "--eval-every",
        "4000",
        "--eval-games",
        "0",
        "--snapshot-every",
        "1500",
        "--save-every",
        "0",
        "--no-progress",
    ]


def test_a_killed_run_resumes_exactly(tmp_path):
    """SIGKILL mid-run (its worker collecting), --resume, and the result equals an uninterrupted run's."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run(_train_cmd(tmp_path / "a"), check=True, cwd=ROOT, env=env, capture_output=True)
    b = tmp_path / "b"
    killed_at = kill_once_saved(_train_cmd(b)[len(CLI) :], b, 2000)  # saves at every iteration (--save-every 0)
    assert 2000 <= killed_at < 6000 and not (b / "final.safetensors").exists()
    done = subprocess.run(_train_cmd(b) + ["--resume"], cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert f"resuming {b} at {killed_at:,} decisions" in done.stdout
    wa, wb = load_file(str(tmp_path / "a" / "final.safetensors")), load_file(str(b / "final.safetensors"))
    assert wa.keys() == wb.keys() and all(torch.equal(wa[k], wb[k]) for k in wa)
    ja, jb = (json.loads((d / "final.json").read_text()) for d in (tmp_path / "a", b))
    assert ja["training_steps"] == jb["training_steps"] and ja["training_matches"] == jb["training_matches"]


def test_ctrl_c_saves_a_run_at_its_iteration_boundary(tmp_path, monkeypatch, capsys):
    """Ctrl-C between iterations saves the run, and --resume ends with the uninterrupted weights."""
    from cardzoo.training.ppo import trainer

    argv = _train_cmd(tmp_path / "a", steps=6000)[len(CLI) :] + ["--save-every", "1e6"]  # no periodic save
    assert cli(argv) == 0
    logged, log_iteration = [], trainer._log_iteration

    def interrupt_on_the_second(*args, **kwargs):
        log_iteration(*args, **kwargs)
        logged.append(1)
        if len(logged) == 2:
            raise KeyboardInterrupt

    monkeypatch.setattr(trainer, "_log_iteration", interrupt_on_the_second)
    b = tmp_path / "b"
    assert cli(_train_cmd(b, steps=6000)[len(CLI) :] + ["--save-every", "1e6"]) == 130
    assert "saved; continue with --resume" in capsys.readouterr().out
    saved = json.loads((b / "state" / "state.json").read_text())["state"]["decisions"]
    assert 2 * 256 <= saved < 6000 and not (b / "final.safetensors").exists()
    monkeypatch.setattr(trainer, "_log_iteration", log_iteration)
    assert cli(_train_cmd(b, steps=6000)[len(CLI) :] + ["--save-every", "1e6", "--resume"]) == 0
    wa, wb = load_file(str(tmp_path / "a" / "final.safetensors")), load_file(str(b / "final.safetensors"))
    assert all(torch.equal(wa[k], wb[k]) for k in wa)


def test_bad_input_is_one_line_and_overwrites_nothing(tmp_path, capsys):
    out = tmp_path / "run"
    assert cli(["train", "siantappo", "--steps", "300", "--out", str(out)] + SMALL) == 0
    settings_before = (out / "settings.json").read_text()
    cases = [
        (["train", "siantappo", "--steps", "300", "--out", str(out)] + SMALL, "already holds a run"),
        (
            ["train", "siantappo", "--steps", "900", "--out", str(out), "--resume", "--lr", "0.1"] + SMALL,
            "--lr 0.1 differs",
        ),
        (["train", "siantappo", "--out", str(out), "--resume", "--hidden", "64"] + SMALL, "--hidden"),
        (["train", "suipi", "--out", str(out), "--resume"] + SMALL, "holds a siantappo run"),
        (["train", "siantappo", "--players", "7", "--out", str(tmp_path / "x")] + SMALL, "players must be"),
        (["train", "siantappo", "--steps", "0", "--out", str(tmp_path / "x")] + SMALL, "steps must be"),
        (["train", "siantappo", "--hidden", "a,b", "--out", str(tmp_path / "x")] + SMALL, "--hidden wants"),
        (["train", "siantappo", "--opponents", "rules=x", "--out", str(tmp_path / "x")] + SMALL, "--opponents"),
        (["train", "siantappo", "--out", str(tmp_path / "y"), "--resume"] + SMALL, "nothing to resume"),
        (["train", "siantappo", "--envs", "3", "--out", str(tmp_path / "x")] + SMALL, "--algo sb3"),
        (["train", "siantappo", "--out", "/proc/cardzoo-run"] + SMALL, "cannot write the run directory"),
        (
            ["train", "siantappo", "--critic", "perfect", "--imitate", "5", "--out", str(tmp_path / "x")] + SMALL,
            "--imitate fits the seat critic",
        ),
    ]
    for argv, expected in cases:
        assert cli(argv) == 2, argv
        err = capsys.readouterr().err.strip()
        assert expected in err and len(err.splitlines()) == 1, (argv, err)
    assert (out / "settings.json").read_text() == settings_before
    # a damaged resume state is refused in one line, and left as it was
    state = out / "state" / "state.json"
    state.write_text(state.read_text()[:40])
    assert cli(["train", "siantappo", "--steps", "900", "--out", str(out), "--resume"] + SMALL) == 2
    assert "cannot read" in capsys.readouterr().err


def test_a_one_sample_minibatch_leaves_the_weights_finite():
    """The last minibatch of an epoch may hold a single sample (a NaN std once poisoned the net)."""
    s = PPOSettings(game="siantappo", minibatch=4, epochs=1)
    net = ActorCritic(3, 2, (4,))
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    batch = {
        "obs": np.ones((5, 3), np.float32),
        "masks": np.ones((5, 2), bool),
        "actions": np.zeros(5, np.int64),
        "logprobs": np.full(5, -0.7, np.float32),
        "values": np.zeros(5, np.float32),
        "advantages": np.arange(5, dtype=np.float32),
        "returns": np.ones(5, np.float32),
    }
    ppo_update(net, opt, batch, s, np.random.default_rng(0))
    assert all(torch.isfinite(p).all() for p in net.parameters())


def test_a_worker_that_cannot_start_reports_why():
    """Workers start without being waited for; a failure in one surfaces with its cause, no hang."""
    from cardzoo.training.parallel.workers import WorkerGroup
    from cardzoo.training.ppo.collector import Collector

    s = PPOSettings(game="siantappo", players=(4,), workers=1)
    bad_args = ("no-such-game",) + s.collector_args()[1:]
    with WorkerGroup(1, Collector, bad_args) as workers, pytest.raises(RuntimeError, match="rollout worker") as failure:  # noqa: PT012 - from either call
        workers.submit([CollectRequest({}, (0, 0, 0), 1, 1.0, {}, {})])
        workers.receive()
    assert "no-such-game" in str(failure.value)
