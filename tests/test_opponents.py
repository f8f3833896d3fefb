"""Opponents (``cardzoo.training.common.opponents``): one ``--selfplay`` share and one ``--opponents``
setting for the PPO and DMC trainers, one draw per match, their earlier spellings, and runs saved
under the earlier names resuming."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from safetensors.numpy import load_file

from cardzoo.envs.errors import UserError
from cardzoo.scripts import train_cmd
from cardzoo.scripts.cli import main as cli
from cardzoo.training.agents.networks import load_checkpoint
from cardzoo.training.common.opponents import OpponentDraw, OpponentMix, parse_opponents
from cardzoo.training.dmc.settings import DMCSettings
from cardzoo.training.ppo.settings import PPOSettings
from cardzoo.training.sb3.settings import SB3Settings

TINY_DMC = [
    "--algo",
    "dmc",
    "--players",
    "2",
    "--workers",
    "0",
    "--matches",
    "3",
    "--batch",
    "64",
    "--minibatch",
    "64",
    "--replay",
    "2000",
    "--hidden",
    "16",
    "--eval-games",
    "0",
    "--imitate",
    "0",
    "--no-progress",
]


def test_the_flag_reads_weights_or_one_agent():
    assert parse_opponents("snapshot=0.5,rules=0.4,random=0.1") == {"snapshot": 0.5, "rules": 0.4, "random": 0.1}
    assert parse_opponents(" models/suipi-2p.safetensors ") == "models/suipi-2p.safetensors"
    assert parse_opponents("expert:2") == "expert:2"
    for bad in ("rules=x", "rules=0.5,random", ""):
        with pytest.raises(UserError, match="--opponents wants KIND=WEIGHT"):
            parse_opponents(bad)


def test_each_trainer_takes_what_it_can_seat():
    assert DMCSettings(game="suipi", opponents={"rules": 0.5, "random": 0.5}).opponents == {"rules": 0.5, "random": 0.5}
    assert PPOSettings(game="suipi", opponents="random").opponents == "random"
    with pytest.raises(UserError, match="keeps no snapshots of its learner"):
        DMCSettings(game="suipi", opponents={"snapshot": 0.5, "rules": 0.5})
    with pytest.raises(UserError, match="seats no frozen agent"):
        SB3Settings(game="suipi", opponents="rules")
    with pytest.raises(UserError, match="need rules or random besides snapshot"):
        PPOSettings(game="suipi", opponents={"snapshot": 1.0}, selfplay=0.5)
    with pytest.raises(UserError, match="--opponents nobody: unknown agent"):
        PPOSettings(game="suipi", opponents="nobody")


@pytest.mark.parametrize("selfplay_first", [True, False])
def test_the_draw_gives_each_share_and_seats_the_learner_as_one_team(selfplay_first):
    teams = [[0, 2], [1, 3]]  # 4-player Suipi's partners
    draw = OpponentDraw(0.3, {"rules": 3.0, "random": 1.0, "snapshot:d1": 0.0}, selfplay_first)
    rng = np.random.default_rng(1)
    seen = []
    for _ in range(4000):
        twin = np.random.default_rng()
        twin.bit_generator.state = rng.bit_generator.state
        u = twin.random()  # the draw's first number
        label, mine = draw.draw(rng, teams)
        assert (label is None) == ((u < 0.3) if selfplay_first else (u >= 0.7))
        assert mine == {0, 1, 2, 3} if label is None else sorted(mine) in teams
        seen.append(label)
    counts = {k: seen.count(k) for k in (None, "rules", "random")}
    assert sum(counts.values()) == 4000 and abs(counts[None] / 4000 - 0.3) < 0.03
    assert abs(counts["rules"] / (counts["rules"] + counts["random"]) - 0.75) < 0.03
    fixed = OpponentDraw(0.0, "model", selfplay_first)
    assert all(fixed.draw(rng, teams)[0] == "model" for _ in range(50))


def test_ppo_seats_one_frozen_agent():
    from cardzoo.training.ppo.collector import Collector, CollectRequest

    s = PPOSettings(game="suipi", players=(2,), matches_per_worker=3, workers=0, opponents="model", selfplay=0.0)
    c = Collector(*s.collector_args())
    weights = {k: v.numpy() for k, v in c.learner.state_dict().items()}
    out = c.collect(CollectRequest(weights, (2, 0, 0), 1, 0.0, "model"))
    assert len(out.matches) == 3 and all(m["opponent"] == "model" for m in out.matches)
    assert len(c.opponents.frozen) == 1  # the shipped model, read once for every match
    mix = OpponentMix("model")
    mix.record(out.matches)
    assert mix.drawn() == "model" and mix.summary()["model"][2] == 3


def test_dmc_draws_the_kinds_by_weight_and_keeps_their_results(tmp_path):
    out = tmp_path / "run"
    assert (
        cli(
            [
                "train",
                "suipi",
                *TINY_DMC,
                "--steps",
                "300",
                "--selfplay",
                "0",
                "--opponents",
                "rules=1,random=1",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    stats = json.loads((out / "state" / "state.json").read_text())["pool"]["stats"]
    assert set(stats) == {"rules", "random"} and all(st[3] >= 1 for st in stats.values())
    meta = load_checkpoint(out / "final")[1]
    assert meta["settings"]["opponents"] == {"rules": 1.0, "random": 1.0}
    assert "weighted by results" in meta["opponent_pool"]


@pytest.fixture
def started(monkeypatch):
    """The settings each trainer would have been started with (its train replaced)."""
    calls = []
    for module in train_cmd.TRAIN_MODULES.values():
        monkeypatch.setattr(f"{module}.train", lambda settings, **kw: calls.append(settings))
    return calls


def test_the_earlier_spellings_are_documented_aliases(started, tmp_path, capsys):
    assert (
        cli(
            [
                "train",
                "suipi",
                "--algo",
                "dmc",
                "--vs-rules",
                "0.6",
                "--opponent",
                "random",
                "--out",
                str(tmp_path / "r"),
            ]
        )
        == 0
    )
    (s,) = started
    assert s.selfplay == 0.4 and s.opponents == "random"
    for argv, message in [
        (["--algo", "dmc", "--vs-rules", "0.6", "--selfplay", "0.4"], "--vs-rules and --selfplay say the same"),
        (["--algo", "dmc", "--vs-rules", "x"], "--vs-rules 'x': --vs-rules X is --selfplay 1-X"),
        (["--algo", "ppo", "--opponent", "rules"], "--opponent is not a flag of --algo ppo (it is one of --algo dmc)"),
    ]:
        assert cli(["train", "suipi", *argv, "--out", str(tmp_path / "x")]) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1
    with pytest.raises(SystemExit):
        cli(["train", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--vs-rules X is --selfplay 1-X" in text and "--opponent AGENT is --opponents AGENT" in text


def test_a_run_saved_under_the_earlier_names_resumes(tmp_path, capsys):
    """A DMC run whose settings.json says vs_rules and opponent (as runs did before --selfplay and
    --opponents) resumes without --algo, to the same weights as the run saved under today's names."""
    today, earlier = tmp_path / "today", tmp_path / "earlier"
    assert (
        cli(
            [
                "train",
                "suipi",
                *TINY_DMC,
                "--steps",
                "100",
                "--selfplay",
                "0.25",
                "--opponents",
                "random",
                "--out",
                str(today),
            ]
        )
        == 0
    )
    shutil.copytree(today, earlier)
    doc = json.loads((earlier / "settings.json").read_text())
    doc["vs_rules"], doc["opponent"] = 1 - doc.pop("selfplay"), doc.pop("opponents")
    (earlier / "settings.json").write_text(json.dumps(doc))
    for out in (today, earlier):
        assert cli(["train", "suipi", "--resume", "--steps", "300", "--out", str(out), "--no-progress"]) == 0
    assert "resuming" in capsys.readouterr().out
    mine, theirs = (load_file(out / "final.safetensors") for out in (today, earlier))
    assert mine.keys() == theirs.keys() and all(np.array_equal(mine[k], theirs[k]) for k in mine)
    assert load_checkpoint(earlier / "final")[1]["settings"]["selfplay"] == 0.25
