"""``--device``: the learners' torch device is of one invocation, not of the run (never in
settings.json or a checkpoint, free to change on a resume); a device this machine lacks is one
line before anything is written. Tested on the CPU side: what a machine without CUDA can check."""

from __future__ import annotations

import json

import pytest
import torch
from safetensors.torch import load_file

from cardzoo.envs.registry import game_spec
from cardzoo.scripts.cli import main as cli
from cardzoo.training.agents.device import DEVICES
from cardzoo.training.agents.specs import make_agent
from cardzoo.training.common.settings import DeviceSettings, resume_settings

no_cuda = pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")

PPO = [
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
    "--save-every",
    "0",
    "--no-progress",
    "--seed",
    "3",
]
TRAIN_ARGS = {
    "ppo": PPO,
    "dmc": ["--algo", "dmc", "--workers", "0", "--matches", "4", "--eval-games", "0", "--no-progress"],
    "sb3": ["--algo", "sb3", "--eval-games", "0", "--no-progress"],
}


@no_cuda
@pytest.mark.parametrize("algo", list(TRAIN_ARGS))
def test_cuda_on_a_machine_without_it_is_one_line_and_writes_nothing(algo, tmp_path, capsys):
    out = tmp_path / "run"
    argv = ["train", "siantappo", "--steps", "300", "--out", str(out), "--device", "cuda", *TRAIN_ARGS[algo]]
    assert cli(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "--device cuda" in err and "no CUDA device" in err and len(err.splitlines()) == 1, err
    assert not out.exists()


def test_an_unknown_device_is_refused_by_the_flag(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        cli(["train", "siantappo", "--device", "tpu", "--out", str(tmp_path / "run"), *PPO])
    assert e.value.code == 2 and "invalid choice: 'tpu'" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_a_run_resumes_on_another_device_and_ends_as_an_uninterrupted_one(tmp_path):
    """A run started with --device auto, resumed with --device cpu, equals one trained on the CPU
    throughout; the device is nowhere in the run directory or its checkpoints."""
    a, b = tmp_path / "a", tmp_path / "b"
    assert cli(["train", "siantappo", "--steps", "1024", "--out", str(a), "--device", "cpu", *PPO]) == 0
    assert cli(["train", "siantappo", "--steps", "512", "--out", str(b), "--device", "auto", *PPO]) == 0
    assert cli(["train", "siantappo", "--steps", "1024", "--out", str(b), "--device", "cpu", "--resume", *PPO]) == 0
    wa, wb = load_file(str(a / "final.safetensors")), load_file(str(b / "final.safetensors"))
    assert wa.keys() == wb.keys() and all(torch.equal(wa[k], wb[k]) for k in wa)
    assert "device" not in json.loads((b / "settings.json").read_text())
    assert "device" not in json.loads((b / "final.json").read_text())["settings"]
    state = load_file(str(next((b / "state").glob("state-*.safetensors"))))
    assert {t.device.type for t in state.values()} == {"cpu"}


@pytest.mark.parametrize("algo", list(TRAIN_ARGS))
def test_each_trainer_takes_the_device_on_a_resume(algo, tmp_path):
    from cardzoo.scripts.train_cmd import TRAINERS

    cls = TRAINERS[algo]
    s = cls(game="siantappo", out=str(tmp_path), device="cpu")
    assert isinstance(s, DeviceSettings)
    assert "device" not in s.to_json() and s.torch_device() == torch.device("cpu")
    (tmp_path / "settings.json").write_text(json.dumps(s.to_json()))
    resumed = resume_settings(cls, tmp_path, {"device": "auto"})
    assert resumed.device == "auto"
    assert resumed.torch_device().type == ("cuda" if torch.cuda.is_available() else "cpu")


def _expert(monkeypatch, device_env: str | None, **kwargs):
    if device_env is None:
        monkeypatch.delenv("CARDZOO_EXPERT_DEVICE", raising=False)
    else:
        monkeypatch.setenv("CARDZOO_EXPERT_DEVICE", device_env)
    module = game_spec("suipi").module
    config = module.raw_env(num_players=2).config
    model = make_agent("model", module, config, seed=1)
    from cardzoo.training.agents.expert import ExpertAgent

    return ExpertAgent(module, config, model, seed=1, samples=2, **kwargs)


def test_the_expert_values_its_leaves_on_the_cpu_unless_told(monkeypatch):
    expert = _expert(monkeypatch, None)
    assert expert._leaf_net is expert.model.net  # no copy on the CPU
    expert = _expert(monkeypatch, "cuda", device="cpu")  # the constructor's argument before the variable
    assert expert._leaf_net is expert.model.net


@no_cuda
@pytest.mark.parametrize("value, expected", [("cuda", "no CUDA device"), ("gpu", "must be one of auto, cpu, cuda")])
def test_a_device_the_expert_cannot_use_is_one_line(monkeypatch, value, expected):
    from cardzoo.envs.errors import UserError

    with pytest.raises(UserError, match=expected) as e:
        _expert(monkeypatch, value)
    assert "CARDZOO_EXPERT_DEVICE" in str(e.value) and len(str(e.value).splitlines()) == 1


@no_cuda
def test_bench_train_refuses_cuda_here_before_measuring(tmp_path, capsys):
    argv = ["bench", "--train", "siantappo", "--quick", "--device", "cuda", "--json", str(tmp_path / "b.json")]
    assert cli(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "--device cuda" in err and len(err.splitlines()) == 1 and not (tmp_path / "b.json").exists()
    assert cli(["bench", "siantappo", "--device", "cpu"]) == 2
    assert "--device works with --train only" in capsys.readouterr().err


def test_bench_train_passes_the_device_to_every_trainer(monkeypatch, tmp_path):
    from cardzoo.benchmarks import training_speed

    seen = []

    def measure(algo):
        def row(game, players, *args, device="auto", **kwargs):
            seen.append((algo, device))
            return {
                "game": game,
                "players": players,
                "algo": algo,
                "workers": 0,
                "decisions": 10,
                "seconds": 1.0,
                "decisions_per_s": 10.0,
                **({"samples": 5, "samples_per_s": 5.0, "wait_s": 0.5, "learn_s": 0.5} if algo == "dmc" else {}),
            }

        return row

    for algo in ("ppo", "dmc", "sb3"):
        monkeypatch.setattr(training_speed, f"bench_{algo}", measure(algo))
    out = tmp_path / "b.json"
    assert cli(["bench", "--train", "siantappo", "--quick", "--device", "cpu", "--json", str(out)]) == 0
    assert sorted(seen) == [("dmc", "cpu"), ("ppo", "cpu"), ("sb3", "cpu")]
    doc = json.loads(out.read_text())
    assert doc["device"] == "cpu" and "--device cpu" in doc["command"]


def test_the_device_choices_are_the_ones_the_trainers_accept():
    from cardzoo.scripts.train_cmd import TRAINERS
    from cardzoo.training.common.flags import flag_fields

    for algo in ("ppo", "dmc", "sb3"):
        assert flag_fields(TRAINERS[algo])["device"].metadata["choices"] == DEVICES
