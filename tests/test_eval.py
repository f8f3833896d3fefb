"""Evaluation: agent specs, bad input, schedules, statistics, reproducibility, reports."""

from __future__ import annotations

import csv
import json
import math
from typing import Any

import numpy as np
import pytest

from cardzoo.envs.errors import UserError
from cardzoo.scripts.cli import main
from cardzoo.training.agents.specs import AgentSpec, RandomAgent, make_agent, parse_agent_list, parse_agent_spec
from cardzoo.training.evaluation import tournament as evaluate
from cardzoo.training.evaluation.ratings import bradley_terry, clustered_mean_ci, elo_ratings, wilson_ci
from cardzoo.training.evaluation.runner import Runner
from cardzoo.training.evaluation.schedule import duplicate_set, sides_for
from cardzoo.training.evaluation.tournament import run_tournament

FAST = ["--rule", "rounds=1"]  # one-round Siantappo matches keep CLI tests quick


def one_error_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err, err
    return err


# ---------------------------------------------------------------- agent specs
def test_parse_specs():
    assert parse_agent_spec("rules") == AgentSpec("rules", text="rules")
    assert parse_agent_spec(" Random@7 ").seed == 7
    assert parse_agent_spec("random@7").label == "random@7"
    assert [s.kind for s in parse_agent_list("rules, random,rule")] == ["rules", "random", "rules"]
    assert isinstance(make_agent("random", None), RandomAgent)


@pytest.mark.parametrize("bad", ["alphazero", "", "rules@x", "random,,rules"])
def test_unknown_agent_names(bad):
    with pytest.raises(UserError, match="agent"):
        parse_agent_list(bad)


def test_checkpoint_specs(tmp_path):
    with pytest.raises(UserError, match="not found"):
        parse_agent_spec(str(tmp_path / "model.safetensors"))
    with pytest.raises(UserError):
        parse_agent_spec("models/none.json@3")
    ck = tmp_path / "model.json"
    ck.write_text("{}")
    spec = parse_agent_spec(f"{ck}@3")
    assert spec.kind == "checkpoint" and spec.path == str(ck) and spec.seed == 3 and spec.label == "model.json@3"
    with pytest.raises(ValueError, match=r"checkpoint file not found: .*model.safetensors"):  # the sidecar alone
        make_agent(spec, None)


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["eval", "siantappo", "--agents", "rules,alphago"], "unknown agent 'alphago'"),
        (["eval", "siantappo", "--seats", "rules,random", "--players", "4"], "4 seats"),
        (["eval", "suipi", "--seats", "rules,random,rules,random", "--players", "4"], "2 seats"),
        (["eval", "siantappo", "--agents", "rules,random", "--players", "2"], "3, 4, 5, 6 players"),
        (["eval", "siantappo", "--agents", "rules,nowhere/model.safetensors"], "not found"),
        (["eval", "chess", "--agents", "rules,random"], "unknown game"),
        (["eval", "siantappo", "--agents", "rules,random", "--rule", "rounds=0"], "rounds"),
        (["eval", "siantappo", "--agents", "rules,random", "--rule", "colour=red"], "unknown option"),
        (["eval", "siantappo", "--agents", "rules,random", "--games", "0"], "games"),
        (["eval", "siantappo", "--agents", "rules,random", "--json", "/no/such/dir/x.json"], "does not exist"),
        (["eval", "suipi", "--agents", "rules"], "names one entrant (rules)"),  # as found: it "won" 100% of its games
        (["eval", "suipi", "--seats", "rules,rules"], "names one entrant (rules)"),
    ],
)
def test_bad_input_is_one_line_exit_2(argv, needle, capsys):
    assert main(argv) == 2
    err = one_error_line(capsys)
    assert err.startswith("cardzoo eval: error:") and needle in err


def test_unusable_checkpoint_is_one_line_exit_2(tmp_path, capsys):
    import shutil

    from cardzoo.training.agents.shipped import shipped_model_path

    ck = tmp_path / "net.safetensors"  # a shipped model's sidecar beside weights that are not safetensors
    shutil.copy(str(shipped_model_path("siantappo", 3))[: -len(".safetensors")] + ".json", tmp_path / "net.json")
    ck.write_bytes(b"\0")
    assert main(["eval", "siantappo", "--agents", f"rules,{ck}", "--no-progress"]) == 2
    assert f"{ck} is not a readable safetensors file" in one_error_line(capsys)


def test_checkpoint_agent_plays(tmp_path):
    """A checkpoint path is an entrant like any other."""
    from cardzoo.envs import siantappo_v0
    from cardzoo.training.agents.checkpoint import save_checkpoint
    from cardzoo.training.agents.policy import MaskedPolicyNet

    env = siantappo_v0.raw_env(num_players=3, rounds=1)
    net = MaskedPolicyNet(env.obs_size, env.num_actions, [8])
    meta = {
        "game": "siantappo",
        "env": "siantappo_v0",
        "hidden": [8],
        "activation": "tanh",
        "player_counts": [3, 4, 5, 6],
    }
    path = save_checkpoint(tmp_path / "tiny", net, meta)
    kw: dict[str, Any] = dict(players=3, games=6, seed=2, options={"rounds": 1})
    a = run_tournament("siantappo", ["rules", str(path)], workers=1, **kw)
    b = run_tournament("siantappo", ["rules", str(path)], workers=2, **kw)
    assert a.names == ["rules", "tiny.safetensors"] and _key(a) == _key(b)


# ---------------------------------------------------------------- schedules
def test_duplicate_sets_balance_seats():
    # field smaller than the table: each entrant holds every seat equally often
    for e, s in [(2, 3), (2, 4), (3, 4), (2, 5), (2, 6), (3, 3)]:
        lineups = duplicate_set(0, e, s)
        assert len(set(lineups)) == len(lineups)
        for seat in range(s):
            counts = np.bincount([lu[seat] for lu in lineups], minlength=e)
            assert counts.min() == counts.max(), (e, s, lineups)
        assert all(set(lu) == set(range(e)) for lu in lineups)
    assert duplicate_set(0, 2, 3) == [(0, 1, 0), (1, 0, 0), (0, 0, 1), (1, 0, 1), (0, 1, 1), (1, 1, 0)]
    # field larger than the table: deals walk through the subsets, each in all rotations
    subsets = {frozenset(duplicate_set(d, 4, 2)[0]) for d in range(6)}
    assert len(subsets) == 6 and duplicate_set(0, 4, 2) == [(0, 1), (1, 0)]
    # explicit seats
    assert duplicate_set(5, 2, 4, base=(0, 1, 1, 1)) == [(0, 1, 1, 1), (1, 1, 1, 0), (1, 1, 0, 1), (1, 0, 1, 1)]
    assert duplicate_set(5, 2, 4, base=(0, 1, 1, 1), rotate=False) == [(0, 1, 1, 1)]


def test_team_sides():
    assert sides_for("suipi", 4) == ((0, 2), (1, 3))
    assert sides_for("siantappo", 3) == ((0,), (1,), (2,))
    try:
        from cardzoo.envs.suipi.engine import side_of
    except ImportError:
        return
    for side_idx, side in enumerate(sides_for("suipi", 4)):
        assert {side_of(s, 4) for s in side} == {side_idx}


# ---------------------------------------------------------------- statistics
def test_statistics():
    lo, hi = wilson_ci(8, 10)
    assert math.isclose(lo, 0.4902, abs_tol=1e-3) and math.isclose(hi, 0.9433, abs_tol=1e-3)
    assert wilson_ci(0, 20)[0] == 0.0
    x = np.array([1.0, 3.0, 2.0, 6.0, 4.0])
    m, lo, hi = clustered_mean_ci(x, np.arange(5))  # one game per cluster = the plain t interval
    half = 2.776 * x.std(ddof=1) / math.sqrt(5)
    assert math.isclose(m, 3.2)
    assert math.isclose(hi - m, half, rel_tol=1e-3) and math.isclose(m - lo, half, rel_tol=1e-3)
    w = np.array([[0, 3], [1, 0]], dtype=float)
    r = elo_ratings(w, anchor=1, prior=0.0)
    assert math.isclose(r[0], 400 * math.log10(3), rel_tol=1e-6) and r[1] == 0
    # a transitive field keeps its order; perfect separation stays finite with the prior
    w3 = np.array([[0, 9, 10], [1, 0, 8], [0, 2, 0]], dtype=float)
    p = bradley_terry(w3)
    assert p[0] > p[1] > p[2] and np.all(np.isfinite(p))


# ---------------------------------------------------------------- tournaments
def _key(res):
    return [(g.deal, g.index, g.lineup, [round(x, 12) for x in g.seat_rewards]) for g in res.games]


def test_reproducible_any_worker_count():
    kw: dict[str, Any] = dict(players=3, games=12, seed=11, options={"rounds": 1})
    a = run_tournament("siantappo", ["rules", "random", "random@4"], workers=1, **kw)
    b = run_tournament("siantappo", ["rules", "random", "random@4"], workers=2, **kw)
    c = run_tournament("siantappo", ["rules", "random", "random@4"], workers=1, **{**kw, "seed": 12})
    assert _key(a) == _key(b) and len(a.games) == 12
    assert _key(a) != _key(c)
    ra, rb = a.report(), b.report()
    ra.pop("seconds"), rb.pop("seconds")
    assert ra == rb


def test_duplicate_deals_share_the_deal():
    res = run_tournament(
        "siantappo", ["rules", "random"], players=4, games=4, seed=3, options={"rounds": 1}, records=None
    )
    assert [(g.deal, g.lineup) for g in res.games] == [
        (0, (0, 1, 0, 1)),
        (0, (1, 0, 1, 0)),
        (1, (0, 1, 0, 1)),
        (1, (1, 0, 1, 0)),
    ]


def test_team_game_counts_partners_as_one(tmp_path):
    pytest.importorskip("cardzoo.envs.suipi_v0")
    path = tmp_path / "g.jsonl"
    res = run_tournament("suipi", ["rules", "random"], players=4, games=2, seed=1, records=str(path))
    rep = res.report()
    assert [e["games"] for e in rep["entrants"]] == [2, 2]
    for line in path.read_text().splitlines():
        rec = json.loads(line)
        assert rec["agents"][0] == rec["agents"][2] != rec["agents"][1] == rec["agents"][3]
        assert rec["rewards"][0] == pytest.approx(rec["rewards"][2])
    # a team's reward is counted once per game, not once per step or per seat
    g = res.games[0]
    rules_side = g.lineup.index(0)
    assert rep["entrants"][0]["games"] == 2
    assert g.side_scores[rules_side] == pytest.approx(g.seat_rewards[(0, 1)[rules_side]])


def test_interrupt_keeps_finished_games(monkeypatch, capsys):
    real = Runner.play
    calls = []

    def play(self, *task):
        calls.append(task)
        if len(calls) == 4:
            raise KeyboardInterrupt
        return real(self, *task)

    monkeypatch.setattr(Runner, "play", play)
    rc = main(
        ["eval", "siantappo", "--agents", "rules,random", "--games", "10", "--workers", "1", "--no-progress", *FAST]
    )
    out = capsys.readouterr().out
    assert rc == 130 and "INTERRUPTED after 3 of 10 games" in out.replace("\n", " ")


def test_cli_writes_table_json_csv_plot(tmp_path, capsys):
    j, c, p = tmp_path / "r.json", tmp_path / "r.csv", tmp_path / "r.png"
    rc = main(
        [
            "eval",
            "siantappo",
            "--agents",
            "rules,random,random@1",
            "--games",
            "24",
            "--seed",
            "5",
            "--workers",
            "1",
            "--no-progress",
            "--bootstrap",
            "50",
            "--json",
            str(j),
            "--csv",
            str(c),
            "--plot",
            str(p),
            *FAST,
        ]
    )
    out = capsys.readouterr().out
    assert rc == 0 and "rating" in out and "0 (anchor)" in out
    rep = json.loads(j.read_text())
    assert rep["games_played"] == 24 and rep["ratings"]["anchor"] == "random"
    ents = {e["name"]: e for e in rep["entrants"]}
    assert ents["random"]["rating"] == 0 and ents["rules"]["rating"] > 0
    lo, hi = ents["rules"]["reward_ci"]
    assert lo <= ents["rules"]["mean_reward"] <= hi
    rows = list(csv.DictReader(c.open()))
    assert [r["agent"] for r in rows] == ["rules", "random", "random@1"]
    assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_seats_mode_same_agent_is_one_entrant():
    res = run_tournament(
        "siantappo",
        ["rules", "random", "Random", "random"],
        seats=True,
        players=4,
        games=4,
        seed=1,
        options={"rounds": 1},
    )
    assert res.names == ["rules", "random"] and res.set_size == 4
    rep = res.report()
    assert [e["games"] for e in rep["entrants"]] == [4, 4]
    assert evaluate._field_names([parse_agent_spec("rules"), parse_agent_spec("rules")]) == ["rules#1", "rules#2"]
