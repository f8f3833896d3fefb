"""The sequential probability ratio test (``cardzoo eval --sprt``): its error rates hold over many
seeded runs on synthetic per-deal results, its two code paths agree, and on real games it stops
early with the right answer."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cardzoo.envs.errors import UserError
from cardzoo.scripts import cli
from cardzoo.training.evaluation.sprt import MIN_DEALS, SPRTBounds, llr, sequential, verdict
from cardzoo.training.evaluation.tournament import run_tournament

RUNS = 4000
CAP = 4000  # deals per run: far more than a test of these bounds needs


def _normal(rng, mean, n):
    return rng.normal(mean, 1.0, n)


def _stakes(rng, mean, n):
    """Sam Sip-like: mostly small differences, now and then a doubled stake, symmetric about ``mean``."""
    size = rng.choice([0.0, 0.5, 1.0, 2.0, 4.0, 8.0], p=[0.3, 0.3, 0.2, 0.12, 0.06, 0.02], size=n)
    return mean + size * rng.choice([-1.0, 1.0], size=n)


def _rates(draw, true_mean: float, bounds: SPRTBounds, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    counts = {"H0": 0, "H1": 0, None: 0}
    deals = []
    for _ in range(RUNS):
        accepted, n = sequential(draw(rng, true_mean, CAP), bounds)
        counts[accepted] += 1
        deals.append(n)
    return {k: v / RUNS for k, v in counts.items()} | {"deals": float(np.mean(deals))}


@pytest.mark.parametrize("draw", [_normal, _stakes], ids=["normal", "doubling-stakes"])
def test_identical_agents_accept_stronger_at_most_alpha_of_the_time(draw):
    scale = 1.0 if draw is _normal else 2.0
    bounds = SPRTBounds(adv0=0.0, adv1=0.2 * scale, alpha=0.05, beta=0.05)
    r = _rates(draw, 0.0, bounds, seed=1)
    assert r["H1"] <= bounds.alpha, r
    assert r[None] < 0.01, r  # and it does decide, long before the cap


@pytest.mark.parametrize("draw", [_normal, _stakes], ids=["normal", "doubling-stakes"])
def test_a_stronger_agent_is_found_weaker_at_most_beta_of_the_time(draw):
    scale = 1.0 if draw is _normal else 2.0
    bounds = SPRTBounds(adv0=0.0, adv1=0.2 * scale, alpha=0.05, beta=0.05)
    r = _rates(draw, bounds.adv1, bounds, seed=2)
    # Wald's bounds are approximate: the normal case sits at beta, within two Monte Carlo errors
    assert r["H0"] <= bounds.beta + 2 * (bounds.beta * (1 - bounds.beta) / RUNS) ** 0.5, r


def test_a_clear_difference_is_decided_in_far_fewer_deals_than_the_cap():
    bounds = SPRTBounds(adv0=0.0, adv1=0.2)
    r = _rates(_normal, 0.6, bounds, seed=3)
    assert r["H1"] > 0.99 and r["deals"] < 60, r


def test_sequential_decides_as_verdict_does_after_every_deal():
    rng = np.random.default_rng(4)
    bounds = SPRTBounds(adv0=0.0, adv1=0.3)
    for mean in (0.0, 0.15, 0.3):
        x = rng.normal(mean, 1.0, 400)
        accepted, n = sequential(x, bounds)
        step = next(
            ((verdict(x[:k], bounds), k) for k in range(1, x.size + 1) if verdict(x[:k], bounds)), (None, x.size)
        )
        assert (accepted, n) == step


def test_no_decision_before_the_variance_is_estimated_and_constant_results_decide_at_once():
    bounds = SPRTBounds()
    assert verdict([1.0] * (MIN_DEALS - 1), bounds) is None
    assert verdict([0.25] * MIN_DEALS, bounds) == "H1"
    assert verdict([1.0] * MIN_DEALS, bounds) == "H1"
    assert verdict([0.0] * MIN_DEALS, bounds) == "H0"
    assert llr([0.1, -0.1] * 20, bounds) < 0 < llr([0.3, 0.2] * 20, bounds)


@pytest.mark.parametrize("bad", [dict(adv0=0.3, adv1=0.1), dict(alpha=0.0), dict(beta=0.7), dict(adv1=float("nan"))])
def test_bounds_out_of_range_are_refused(bad):
    with pytest.raises(UserError):
        SPRTBounds(**bad).check()


def test_real_games_identical_agents_accept_not_stronger():
    res = run_tournament(
        "suipi", ["random", "random@1"], players=2, games=2000, seed=5, sprt=SPRTBounds(adv0=0.0, adv1=0.5)
    )
    s = res.report()["sprt"]
    assert s["accepted"] == "H0" and s["games"] == len(res.games) < 2000, s


def test_eval_sprt_command_stops_when_the_rule_bot_is_clearly_stronger(tmp_path, capsys):
    out = tmp_path / "s.json"
    assert (
        cli.main(
            [
                "eval",
                "suipi",
                "--agents",
                "rules,random",
                "--sprt",
                "--adv1",
                "0.2",
                "--workers",
                "2",
                "--seed",
                "3",
                "--no-progress",
                "--json",
                str(out),
            ]
        )
        == 0
    )
    s = json.loads(out.read_text())["sprt"]
    assert s["accepted"] == "H1" and s["deals"] >= MIN_DEALS and s["games"] == 2 * s["deals"] < 500, s
    assert "H1 accepted" in capsys.readouterr().out
    # the same seed on one worker stops at the same game
    assert (
        cli.main(
            [
                "eval",
                "suipi",
                "--agents",
                "rules,random",
                "--sprt",
                "--adv1",
                "0.2",
                "--workers",
                "1",
                "--seed",
                "3",
                "--no-progress",
                "--json",
                str(out),
            ]
        )
        == 0
    )
    assert json.loads(out.read_text())["sprt"] == s


@pytest.mark.parametrize(
    "argv",
    [
        ["--agents", "rules,random,random@1", "--sprt"],
        ["--agents", "rules,random", "--sprt", "--adv0", "1", "--adv1", "0"],
        ["--agents", "rules,random", "--sprt", "--log", "x.jsonl"],
    ],
)
def test_eval_sprt_bad_input_is_one_line_exit_2(argv, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["eval", "suipi", *argv, "--no-progress"]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
    assert not list(tmp_path.iterdir())
