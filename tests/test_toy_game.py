"""The toy game (tests/toy_game/), registered here, plays in `cardzoo eval` and trains with
`cardzoo train`'s PPO, with no line of training/ or scripts/ knowing about it. Its environment
contract is checked with the shipped games' in tests/test_contract.py."""

from __future__ import annotations

import json

import pytest

from cardzoo.envs.registry import GAME_MODULES, game_spec, register, unregister
from cardzoo.scripts.cli import main


@pytest.fixture(scope="module", autouse=True)
def toy_game():
    register("tests.toy_game")
    yield
    unregister("highcard")


def test_registration_declares_the_facts():
    spec = game_spec("High Card")
    assert spec.name == "highcard" and "highcard" in GAME_MODULES
    assert spec.player_counts == (2, 3, 4) and spec.default_players == 2
    assert spec.teams(3) == [[0], [1], [2]]
    with pytest.raises(ValueError, match="already registered"):
        register_clash()


def register_clash():
    import sys
    import types

    fake = types.ModuleType("tests._fake_highcard")
    for name in ("env", "raw_env", "Config", "RuleBot", "PLAYER_COUNTS", "DEFAULT_PLAYERS"):
        setattr(fake, name, None)
    fake.GAME = "highcard"  # type: ignore[attr-defined]  # a module made up here
    sys.modules["tests._fake_highcard"] = fake
    try:
        register("tests._fake_highcard")
    finally:
        del sys.modules["tests._fake_highcard"]


def test_plays_in_cardzoo_eval(tmp_path, capsys):
    out = tmp_path / "r.json"
    rc = main(
        [
            "eval",
            "highcard",
            "--agents",
            "rules,random",
            "--players",
            "3",
            "--games",
            "60",
            "--seed",
            "1",
            "--json",
            str(out),
        ]
    )
    assert rc == 0, capsys.readouterr().err
    report = json.loads(out.read_text())
    assert report["game"] == "highcard" and report["games_played"] >= 60
    assert [e["name"] for e in report["entrants"]] == ["rules", "random"]
    assert sum(e["wins"] for e in report["entrants"]) == pytest.approx(report["games_played"])  # one per game
    assert "highcard" in capsys.readouterr().out


def test_trains_a_few_steps(tmp_path):
    from cardzoo.training.ppo.trainer import PPOSettings, train

    settings = PPOSettings(
        game="highcard",
        players=(2, 3),
        steps=200,
        out=str(tmp_path / "run"),
        workers=0,
        matches_per_worker=8,
        batch=100,
        minibatch=100,
        hidden=(16,),
        eval_every=10**6,
        eval_games=2,
        snapshot_every=10**6,
        save_every=0.0,
    )
    final = train(settings, progress=False, log=lambda *_: None)
    meta = json.loads(final.with_suffix(".json").read_text())
    assert meta["game"] == "highcard" and sorted(meta["player_counts"]) == [2, 3]
    assert meta["training_steps"] >= 200
    rc = main(["eval", "highcard", "--agents", f"{final},random", "--games", "8"])
    assert rc == 0
