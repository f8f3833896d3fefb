"""A user's training runs are never lost: `cardzoo demo` deletes nothing it did not make, a copied
run resumes in the copy, and a damaged saved state is one line that names the file, with nothing
in the run directory written over."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from cardzoo.scripts import demo_cmd
from cardzoo.scripts.cli import main as cli
from cardzoo.training.agents.networks import load_checkpoint

TINY = [
    "--algo",
    "dmc",
    "--players",
    "2",
    "--workers",
    "0",
    "--matches",
    "2",
    "--batch",
    "32",
    "--minibatch",
    "32",
    "--replay",
    "500",
    "--hidden",
    "16",
    "--eval-games",
    "0",
    "--imitate",
    "0",
    "--no-progress",
]


def _files(folder: Path) -> dict:
    """Every file under ``folder`` -> a hash of its bytes."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    """A finished tiny Suipi run with a saved state, to copy and damage."""
    out = tmp_path_factory.mktemp("runs") / "full"
    assert cli(["train", "suipi", *TINY, "--steps", "60", "--out", str(out)]) == 0
    assert (out / "state" / "state.json").is_file() and (out / "final.safetensors").is_file()
    return out


# ---------------------------------------------------------------------------- 1. the demo's --out
def test_the_demo_refuses_a_folder_holding_a_training_run(run, tmp_path, capsys):
    """The probe: `cardzoo demo --out DIR` on a real run removed it whole, the user's own files too."""
    folder = tmp_path / "mine"
    shutil.copytree(run, folder)
    (folder / "notes.txt").write_text("my own notes")
    before = _files(folder)
    assert cli(["demo", "--steps", "10", "--games", "2", "--quiet", "--out", str(folder)]) == 2
    err = capsys.readouterr().err.strip()
    assert "not made by `cardzoo demo`" in err and len(err.splitlines()) == 1
    assert _files(folder) == before


def test_the_demo_refuses_any_folder_it_did_not_make(tmp_path, capsys):
    folder = tmp_path / "photos"
    folder.mkdir()
    (folder / "a.jpg").write_bytes(b"\xff\xd8")
    assert cli(["demo", "--steps", "10", "--games", "2", "--quiet", "--out", str(folder)]) == 2
    assert "is not empty" in capsys.readouterr().err
    assert [p.name for p in folder.iterdir()] == ["a.jpg"]
    (tmp_path / "file").write_text("x")
    assert cli(["demo", "--out", str(tmp_path / "file")]) == 2
    assert "is a file, not a folder" in capsys.readouterr().err
    assert (tmp_path / "file").read_text() == "x"


def test_an_earlier_demos_folder_loses_its_run_and_nothing_else(run, tmp_path):
    folder = tmp_path / "demo"
    shutil.copytree(run, folder)
    (folder / demo_cmd.DEMO_MARK).write_text("made by the demo")
    (folder / "notes.txt").write_text("kept")
    demo_cmd._fresh_out(folder)
    assert sorted(p.name for p in folder.iterdir()) == sorted([demo_cmd.DEMO_MARK, "notes.txt"])
    assert (folder / "notes.txt").read_text() == "kept"
    empty = tmp_path / "new" / "demo"
    demo_cmd._fresh_out(empty)
    assert [p.name for p in empty.iterdir()] == [demo_cmd.DEMO_MARK]


def test_every_file_a_demo_run_writes_is_one_the_next_demo_may_replace(run):
    """DEMO_WRITES names all that a training run puts in its folder (else a second demo would
    refuse its own folder as holding a run)."""
    assert {p.name for p in run.iterdir()} <= set(demo_cmd.DEMO_WRITES)


# ---------------------------------------------------------------------------- 2. resuming a copy
def test_a_copied_run_resumes_in_the_copy_and_leaves_the_original_alone(run, tmp_path, capsys):
    original = tmp_path / "full"
    shutil.copytree(run, original)
    copy = tmp_path / "copy"
    shutil.copytree(original, copy)
    before = _files(original)
    steps = load_checkpoint(copy / "final")[1]["training_steps"]
    capsys.readouterr()
    assert cli(["train", "suipi", "--resume", "--steps", str(steps + 40), "--out", str(copy), "--no-progress"]) == 0
    log = capsys.readouterr().out
    assert f"resuming {copy} at" in log and str(original) not in log
    assert _files(original) == before
    assert load_checkpoint(copy / "final")[1]["training_steps"] >= steps + 40
    assert json.loads((copy / "settings.json").read_text())["out"] == str(copy)


# ---------------------------------------------------------------------------- 3. damaged saved state
def _truncate_weights(out: Path) -> str:
    name = json.loads((out / "state" / "state.json").read_text())["weights"]
    weights = out / "state" / name
    weights.write_bytes(weights.read_bytes()[:-100])
    return name


def _edit_state(out: Path, text_of) -> str:
    path = out / "state" / "state.json"
    path.write_text(text_of(path.read_text()))
    return "state.json"


def _decisions(value: str):
    def edit(text: str) -> str:
        doc = json.loads(text)
        doc["state"]["decisions"] = "__X__"
        return json.dumps(doc).replace('"__X__"', value)

    return edit


def _edit_settings(out: Path, key: str, value: str) -> str:
    path = out / "settings.json"
    doc = json.loads(path.read_text())
    doc[key] = "__X__"
    path.write_text(json.dumps(doc).replace('"__X__"', value))
    return "settings.json"


DAMAGE = {
    "truncated weights": _truncate_weights,
    "decisions a string": lambda out: _edit_state(out, _decisions('"x"')),
    "decisions of 5,000 digits": lambda out: _edit_state(out, _decisions("9" * 5000)),
    "decisions negative": lambda out: _edit_state(out, _decisions("-3")),
    "generation a list": lambda out: _edit_state(
        out, lambda t: t.replace('"generation": ', '"generation": [1], "x": ', 1)
    ),
    "state.json cut short": lambda out: _edit_state(out, lambda t: t[: len(t) // 2]),
    "settings lr a string": lambda out: _edit_settings(out, "lr", '"x"'),
    "settings seed of 5,000 digits": lambda out: _edit_settings(out, "seed", "1" * 5000),
    "settings hidden not numbers": lambda out: _edit_settings(out, "hidden", '["a"]'),
    "settings unknown key": lambda out: _edit_settings(out, "colour", '"blue"'),
}


@pytest.mark.parametrize("damage", DAMAGE)
def test_a_damaged_saved_state_is_one_line_naming_the_file_and_nothing_is_overwritten(run, tmp_path, damage, capsys):
    out = tmp_path / "run"
    shutil.copytree(run, out)
    named = DAMAGE[damage](out)
    before = _files(out)
    capsys.readouterr()
    assert cli(["train", "suipi", "--resume", "--steps", "100000", "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and named in err, err
    assert "Traceback" not in err
    assert _files(out) == before


# ---------------------------------------------------------------------------- 4. --resume without --algo
SMALL_RUNS = {  # a trainer -> a game whose recipe is another trainer's, and a small run of it
    "ppo": [
        "siantappo",
        "--algo",
        "ppo",
        "--players",
        "3",
        "--workers",
        "0",
        "--matches",
        "2",
        "--batch",
        "64",
        "--minibatch",
        "32",
        "--hidden",
        "16",
        "--eval-games",
        "0",
        "-o",
        "rounds=1",
    ],
    "dmc": ["suipi", *TINY],
    "sb3": ["siantappo", "--algo", "sb3", "--players", "3", "--envs", "1", "--eval-games", "0", "-o", "rounds=1"],
}


@pytest.mark.parametrize("algo", SMALL_RUNS)
def test_a_run_resumed_without_algo_continues_with_its_own_trainer(algo, tmp_path, capsys):
    """As found: an SB3 run resumed without --algo went to the game's recipe (DMC) and failed."""
    game, *flags = SMALL_RUNS[algo]
    out = tmp_path / algo
    assert cli(["train", game, *flags, "--steps", "60", "--out", str(out), "--no-progress"]) == 0
    first = load_checkpoint(out / "final")[1]
    capsys.readouterr()
    later = first["training_steps"] + 60
    assert cli(["train", game, "--resume", "--steps", str(later), "--out", str(out), "--no-progress"]) == 0
    assert f"resuming {out}" in capsys.readouterr().out
    meta = load_checkpoint(out / "final")[1]
    assert meta["algorithm"] == first["algorithm"] and meta["training_steps"] >= later


def test_a_resumed_sb3_run_refuses_a_changed_setting_and_an_oversized_settings_file(tmp_path, capsys):
    game, *flags = SMALL_RUNS["sb3"]
    out = tmp_path / "sb3"
    assert cli(["train", game, *flags, "--steps", "60", "--out", str(out), "--no-progress"]) == 0
    before = _files(out)
    capsys.readouterr()
    for argv, said in (
        (["--lr", "0.1"], "--lr 0.1 differs from the run's 0.0003"),
        (["--envs", "2"], "--envs 2 differs from the run's 1"),
        (["--players", "4"], "--players 4 differs from the run's 3"),
    ):
        assert cli(["train", game, "--resume", "--out", str(out), "--no-progress", *argv]) == 2
        err = capsys.readouterr().err.strip()
        assert said in err and len(err.splitlines()) == 1, err
    assert _files(out) == before
    settings = out / "settings.json"
    settings.write_text(settings.read_text()[:-2] + ", " + " " * (1 << 20) + "}\n")  # still JSON, over 1 MiB
    before = _files(out)
    for algo in ([], ["--algo", "sb3"]):
        assert cli(["train", game, *algo, "--resume", "--out", str(out), "--no-progress"]) == 2
        assert "settings.json is larger than" in capsys.readouterr().err
    assert _files(out) == before
