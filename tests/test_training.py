"""Self-play training, checkpoint export/load (safe, validated) and checkpoints as agents."""

import json

import pytest

from cardzoo.envs import siantappo_v0
from cardzoo.envs.errors import UserError
from cardzoo.scripts.cli import main
from cardzoo.training.agents.checkpoint import CheckpointError, load_agent, save_checkpoint
from cardzoo.training.agents.networks import load_checkpoint
from cardzoo.training.agents.policy import MaskedPolicyNet
from cardzoo.training.agents.specs import make_agent
from cardzoo.training.sb3.trainer import SB3Settings, train


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    out = tmp_path_factory.mktemp("run") / "siantappo"
    settings = SB3Settings(
        game="siantappo",
        players=3,
        steps=256,
        out=str(out),
        envs=2,
        n_steps=64,
        batch_size=64,
        hidden=(32, 32),
        eval_every=128,
        snapshot_every=128,
        eval_games=6,
        variants={"rounds": 1},
    )
    final = train(settings, progress=False, log=lambda *_: None)
    return settings, out, final


def test_training_writes_checkpoint_with_sidecar(trained):
    _settings, out, final = trained
    meta = json.loads(final.with_suffix(".json").read_text())
    assert meta["game"] == "siantappo" and meta["env"] == "siantappo_v0"
    assert meta["player_counts"] == [3] and meta["hidden"] == [32, 32]
    assert meta["training_steps"] >= 256
    assert set(meta["evaluation"]) == {"rules", "random"}
    assert (out / "model.zip").is_file() and list((out / "pool").glob("*.safetensors"))
    assert list((out / "tb").rglob("events.out.tfevents*"))


def test_checkpoint_plays_as_agent_in_eval(trained, capsys):
    _, _out, final = trained
    rc = main(["eval", "siantappo", "--agents", f"{final},random", "--players", "3", "--games", "6"])
    assert rc == 0
    assert "final.safetensors" in capsys.readouterr().out


def test_resume_continues_and_refuses_to_overwrite(trained):
    settings, out, _ = trained
    with pytest.raises(ValueError, match="already holds a run"):
        train(settings, progress=False, log=lambda *_: None)
    settings.steps = 384
    train(settings, resume=True, progress=False, log=lambda *_: None)
    meta = json.loads((out / "final.json").read_text())
    assert meta["training_steps"] >= 384


def test_checkpoint_agent_is_deterministic_and_legal(trained):
    _, _, final = trained
    cfg = siantappo_v0.Config(num_players=3)
    agent = load_agent(final, config=cfg)
    env = siantappo_v0.raw_env(num_players=3)
    env.reset(seed=1)
    obs = env.observe(env.agent_selection)
    a = agent.act(obs["observation"], obs["action_mask"])
    assert obs["action_mask"][a] == 1
    assert a == make_agent(str(final), siantappo_v0, cfg).act(obs["observation"], obs["action_mask"])


def _small_checkpoint(tmp_path, **meta):
    net = MaskedPolicyNet(siantappo_v0.raw_env().obs_size, 368, [8])
    base = {"game": "siantappo", "env": "siantappo_v0", "hidden": [8], "activation": "tanh", "player_counts": [4]}
    base.update(meta)
    return save_checkpoint(tmp_path / "ck", net, base)


def test_checkpoint_mismatches_are_one_line_errors(tmp_path):
    path = _small_checkpoint(tmp_path)
    load_agent(path, config=siantappo_v0.Config(num_players=4))
    with pytest.raises(CheckpointError, match="plays \\[4\\] players, not 3"):
        load_agent(path, config=siantappo_v0.Config(num_players=3))
    with pytest.raises(CheckpointError, match=r"expects observation .* actions 368"):
        load_agent(path, config=siantappo_v0.Config(num_players=4, long_pair_runs=True))
    from cardzoo.envs import samsip_v0

    with pytest.raises(CheckpointError, match="siantappo checkpoint, not samsip"):
        load_agent(path, config=samsip_v0.Config(num_players=4))


def test_corrupt_checkpoints_are_rejected_without_unpickling(tmp_path):
    path = _small_checkpoint(tmp_path)
    sidecar = path.with_suffix(".json")
    good = sidecar.read_text()
    sidecar.write_text("{not json")
    with pytest.raises(CheckpointError, match="not valid JSON"):
        load_checkpoint(path)
    meta = json.loads(good)
    del meta["hidden"]
    sidecar.write_text(json.dumps(meta))
    with pytest.raises(CheckpointError, match="lacks field\\(s\\): hidden"):
        load_checkpoint(path)
    meta["hidden"] = [16]
    sidecar.write_text(json.dumps(meta))
    with pytest.raises(CheckpointError, match="does not match the architecture"):
        load_checkpoint(path)
    sidecar.write_text(good)
    path.write_bytes(b"\x80\x04garbage pickle bytes")
    with pytest.raises(CheckpointError, match="not a readable safetensors file"):
        load_checkpoint(path)
    path.unlink()
    with pytest.raises(CheckpointError, match="checkpoint file not found"):
        load_checkpoint(path)


def test_cli_reports_bad_checkpoint_in_one_line(tmp_path, capsys):
    path = _small_checkpoint(tmp_path)
    path.write_bytes(b"junk")
    assert main(["eval", "siantappo", "--agents", f"{path},random", "--games", "4"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "safetensors" in err[0]


def test_bad_training_settings():
    with pytest.raises(ValueError, match="players must be one of"):
        SB3Settings(game="suipi", players=3)
    with pytest.raises(ValueError, match="unknown game"):
        SB3Settings(game="poker")
    with pytest.raises(UserError, match="--players 2,2: each player count once"):  # as found: refused when saving
        SB3Settings(game="suipi", players=(2, 2))  # type: ignore[arg-type]  # a wrong type on purpose
    with pytest.raises(ValueError, match="steps must be >= 1"):
        SB3Settings(game="siantappo", steps=0)
    with pytest.raises(ValueError, match="rounds"):
        SB3Settings(game="siantappo", variants={"rounds": -1})
    with pytest.raises(UserError, match="nothing to resume"):
        train(SB3Settings(game="siantappo", out="/nonexistent/run"), resume=True)


def test_imitation_warm_start_learns_the_rule_bot(tmp_path):
    from sb3_contrib import MaskablePPO

    import cardzoo.vector
    from cardzoo.training.sb3.vec_env import SB3Tables
    from cardzoo.training.sb3.warm_start import clone_rule_bot

    model = MaskablePPO(
        "MlpPolicy",
        SB3Tables(cardzoo.vector.make("siantappo", 1, num_players=3, opponents="random", rounds=1)),
        policy_kwargs=dict(net_arch=dict(pi=[64], vf=[64])),
        n_steps=64,
        batch_size=64,
    )
    before = clone_rule_bot(
        model.policy, "siantappo", {"num_players": 3, "rounds": 1}, matches=3, epochs=0, log=lambda *_: None
    )
    after = clone_rule_bot(
        model.policy, "siantappo", {"num_players": 3, "rounds": 1}, matches=3, epochs=8, log=lambda *_: None
    )
    assert after > max(before, 0.6)


def test_model_spec_names_what_ships_when_missing(tmp_path, monkeypatch):
    import shutil

    from cardzoo.envs import samsip_v0
    from cardzoo.training.agents.shipped import package_models_dir

    for ext in ("safetensors", "json"):  # a models/ folder that ships Siantappo only
        shutil.copy(package_models_dir() / f"siantappo.{ext}", tmp_path)
    monkeypatch.setattr("cardzoo.training.agents.shipped.package_models_dir", lambda: tmp_path)
    with pytest.raises(
        ValueError,
        match=r"no shipped model for samsip with 6 players; shipped: "
        r"siantappo \(siantappo 3,4,5,6p\)",
    ):
        make_agent("model", samsip_v0, samsip_v0.Config(num_players=6))


def test_bad_opponent_weights():
    with pytest.raises(ValueError, match="opponents must weight"):
        SB3Settings(game="siantappo", opponents={"experts": 1.0})
    with pytest.raises(ValueError, match="need rules or random besides snapshot"):
        SB3Settings(game="siantappo", opponents={"snapshot": 1.0})
    with pytest.raises(ValueError, match="learning_rate must be >= 0"):
        SB3Settings(game="siantappo", learning_rate=-1)


def test_value_warmup_keeps_the_actor_frozen(tmp_path):
    from safetensors.torch import load_file

    def run(name, steps, warmup):
        s = SB3Settings(
            game="siantappo",
            players=3,
            steps=steps,
            out=str(tmp_path / name),
            envs=2,
            n_steps=64,
            batch_size=64,
            hidden=(32,),
            eval_every=10**9,
            snapshot_every=10**9,
            eval_games=0,
            value_warmup=warmup,
            variants={"rounds": 1},
        )
        return load_file(str(train(s, progress=False, log=lambda *_: None)))

    frozen_short, frozen_long = run("a", 128, 10**6), run("b", 384, 10**6)
    learning = run("c", 384, 0)
    assert all((frozen_short[k] == frozen_long[k]).all() for k in frozen_short)
    assert any((frozen_short[k] != learning[k]).any() for k in frozen_short)


def test_shipped_siantappo_model_loads_and_beats_random():
    from cardzoo.training.evaluation.tournament import run_tournament

    cfg = siantappo_v0.Config(num_players=4)
    agent = make_agent("model", siantappo_v0, cfg)
    assert agent.meta["game"] == "siantappo" and 4 in agent.meta["player_counts"]  # measurements: test_models.py
    res = run_tournament("siantappo", ["model", "random"], players=4, games=8, seed=3).report()
    model = next(e for e in res["entrants"] if e["name"] == "model")
    assert model["reward_ci"][0] > 0  # clearly better than random even on 8 games
