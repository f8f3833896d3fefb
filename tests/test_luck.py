"""Luck-adjusted evaluation (training/evaluation/luck.py, envs/chance.py and each game's chance.py):
unbiased exactly on the toy game (every deal of a small deck and every choice of a random player
enumerated), the corrections average to zero between identical agents in every game, every chance
slot is a true distribution holding what happened, and `cardzoo eval --adjust` reports both."""

from __future__ import annotations

import itertools
import json
import math
import random

import numpy as np
import pytest

from cardzoo.envs.registry import game_module
from cardzoo.scripts.cli import main
from cardzoo.training.agents.checkpoint import save_checkpoint
from cardzoo.training.agents.numpy_nets import ValueMLP
from cardzoo.training.agents.specs import RandomAgent
from cardzoo.training.evaluation.luck import LuckTracker, chance_model, value_name
from cardzoo.training.evaluation.tournament import run_tournament
from tests.toy_game.chance import HighCardChance
from tests.toy_game.config import HighCardConfig
from tests.toy_game.engine import HighCardEngine

GAMES = [("samsip", 4), ("suipi", 2), ("suipi", 4), ("siantappo", 4), ("siantappo", 3)]


def random_value_net(model, seed: int = 0, hidden=(24, 12)) -> ValueMLP:
    """A value network of random weights: any value function keeps the adjustment unbiased."""
    rng = np.random.default_rng(seed)
    shapes = ValueMLP.parameter_shapes(model.deck, model.codes, model.numbers, list(hidden))
    state = {k: rng.normal(0, 0.2, v).astype(np.float32) for k, v in shapes.items()}
    return ValueMLP(state, model.deck, model.codes, model.numbers, list(hidden))


# ------------------------------------------------------------------ exact, on the toy game


class Float64Value:
    """A nonlinear value function of random weights in float64 (so that the exact expectation
    shows to 1e-12): tanh of a random projection of each seat's view."""

    def __init__(self, model, seed: int):
        rng = np.random.default_rng(seed)
        self.model = model
        self.cards = rng.normal(0, 0.5, (model.deck, model.codes, 8))
        self.numbers = rng.normal(0, 0.5, (model.numbers, 8))
        self.out = rng.normal(0, 1.0, 8)

    def __call__(self, loc, ctx):
        out = np.empty((len(loc), self.model.n))
        for seat in range(self.model.n):
            codes, numbers = self.model.seat_view(loc, ctx, seat)
            hidden = self.cards[np.arange(self.model.deck), codes].sum(axis=1) + numbers @ self.numbers
            out[:, seat] = np.tanh(hidden) @ self.out
        return out


def _walk(engine, tracker, prob: float, raw: np.ndarray, random_seats, out) -> None:
    """Every continuation of a toy match: the random seats' every choice (probability 1/k), the
    rule bot's highest card; accumulates the probability-weighted raw results and corrections."""
    if engine.done:
        out["raw"] += prob * raw
        out["corrections"] += prob * tracker.corrections
        out["largest"] = max(out["largest"], float(np.abs(tracker.corrections).max()))
        return
    legal = engine.legal_actions()
    random_seat = engine.acting_seat in random_seats
    choices = legal if random_seat else [max(legal)]
    probs = None
    if random_seat:
        probs = np.zeros(52)
        probs[legal] = 1.0 / len(legal)
    for action in choices:
        nxt, t = engine.clone(), LuckTracker(tracker.model, tracker.value)
        t.corrections, t.earned = tracker.corrections.copy(), tracker.earned.copy()
        paid = nxt.apply_action(action).rewards
        t.step(engine, action, nxt, paid, probs)
        gained = np.zeros(len(raw))
        for seat, r in paid.items():
            gained[seat] = r
        _walk(nxt, t, prob / len(choices), raw + gained, random_seats, out)


@pytest.mark.parametrize("players,random_seats", [(2, {1}), (2, {0}), (3, {1})])
def test_adjusted_expectation_equals_raw_exactly_on_the_toy_game(players, random_seats):
    """Every deal of a small deck (3 cards each) and every choice of the random seats, each with its
    probability: the corrections' expectation is zero, so the adjusted expectation is the raw one."""
    model = HighCardChance(players)
    value = Float64Value(model, seed=players)
    cards = [3, 11, 20, 28, 37, 45, 50, 51, 6][: 3 * players]
    out: dict = {"raw": np.zeros(players), "corrections": np.zeros(players), "largest": 0.0}
    deals = list(itertools.permutations(cards)) if players == 2 else _sampled_orders(cards)
    weight = 1.0 / len(deals)
    for deck in deals:
        engine = HighCardEngine(HighCardConfig(num_players=players), random.Random(0), deck=list(deck))
        tracker = LuckTracker(model, value)
        tracker.start(engine)
        _walk(engine, tracker, weight, np.zeros(players), random_seats, out)
    assert np.allclose(out["corrections"], 0.0, atol=1e-12), out["corrections"]
    assert np.allclose(out["raw"] - out["corrections"], out["raw"], rtol=0, atol=1e-12)
    assert out["largest"] > 0.05  # the corrections are real: one match's is far from zero


def _sampled_orders(cards):
    """Every deal of 9 cards to 3 hands as one order per deal (hands as sets: 9!/(3!^3) = 1680):
    the uniform deal, as the orders of a shuffle are."""
    out = []
    for first in itertools.combinations(cards, 3):
        rest = [c for c in cards if c not in first]
        for second in itertools.combinations(rest, 3):
            third = [c for c in rest if c not in second]
            out.append([x for trio in zip(first, second, third) for x in trio])
    return out


# ------------------------------------------------------------------ every slot is a distribution


@pytest.mark.parametrize("game,players", GAMES)
def test_every_chance_slot_holds_what_happened(game, players):
    """In seeded random matches: every slot's weights are positive, its options distinct, what
    happened is one of them, and every card a step revealed from the unseen cards is told by a
    slot (nothing revealed by chance goes uncounted but the jokers S5 and P7 turn over)."""
    module, model = game_module(game), chance_model(game, players)
    assert model is not None
    env = module.raw_env(num_players=players)
    for seed in range(3):
        env.reset(seed=seed)
        agent = RandomAgent(seed)
        _check_events(model, model.deal_events(env.engine))
        while env.agents and not env.engine.done:
            if env.terminations[env.agent_selection]:
                env.step(None)  # a seat that is out leaves (Sam Sip)
                continue
            obs = env.observe(env.agent_selection)
            action = agent.act(None, obs["action_mask"])
            before = env.engine.clone()
            env.step(action)
            _check_events(model, model.step_events(before, action, env.engine))


def _check_events(model, events) -> None:
    for ev in events:
        assert ev.loc.shape == (model.deck,) and ev.ctx.shape == (model.numbers,)
        assert ev.loc.min() >= 0 and ev.loc.max() < model.codes
        for slot in ev.slots:
            assert len(set(slot.options)) == len(slot.options) and 0 <= slot.actual < len(slot.options)
            assert all(w > 0 for w in slot.weights)
            assert all(0 <= d < model.codes for _, d in slot.options)


# ------------------------------------------------------------------ identical agents: zero on average


@pytest.fixture
def value_dir(tmp_path, monkeypatch):
    """Value networks of random weights for every game and count, found as shipped ones are."""
    for game, players in GAMES:
        model = chance_model(game, players)
        meta = {"game": game, "env": f"{game}_v0", "player_counts": [players]}
        save_checkpoint(tmp_path / value_name(game, players), random_value_net(model, seed=7), meta)
    monkeypatch.setenv("CARDZOO_MODELS", str(tmp_path))
    return tmp_path


@pytest.mark.parametrize(
    "game,players,agent,games", [("suipi", 2, "random", 48), ("siantappo", 4, "rules", 40), ("samsip", 4, "rules", 24)]
)
def test_corrections_average_zero_between_identical_agents(value_dir, game, players, agent, games):
    """The same agent on every seat: each seat's mean correction (per deal: a deal's seatings share
    its cards) is within 4 standard errors of zero, and the adjusted advantage of one copy over the
    other within its interval of zero."""
    res = run_tournament(game, [agent, agent], players=players, games=games, seed=61, adjust="luck")
    per_deal: dict[int, list] = {}
    for g in res.games:
        assert g.adjusted_rewards is not None
        per_deal.setdefault(g.deal, []).append(np.subtract(g.seat_rewards, g.adjusted_rewards))
    corrections = np.array([np.mean(c, axis=0) for c in per_deal.values()])
    assert np.abs(corrections).max() > 0.01  # the corrections are real
    mean, se = corrections.mean(axis=0), corrections.std(axis=0, ddof=1) / math.sqrt(len(corrections))
    assert np.all(np.abs(mean) <= 4 * se + 1e-12), (mean, se)
    pair = res.report()["pairs"][0]
    lo, hi = pair["adjusted_advantage_ci"]
    assert lo <= 0.0 <= hi


# ------------------------------------------------------------------ the command line


def test_eval_reports_raw_and_adjusted(value_dir, tmp_path, capsys):
    out = tmp_path / "r.json"
    args = ["eval", "suipi", "--agents", "rules,random", "--players", "2", "--games", "8", "--no-progress"]
    assert main([*args, "--json", str(out)]) == 0  # luck is the default where a value network ships
    pair = json.loads(out.read_text())["pairs"][0]
    assert {"advantage", "advantage_ci", "adjusted_advantage", "adjusted_advantage_ci"} <= set(pair)
    assert "luck-adjusted" in capsys.readouterr().out
    assert main([*args, "--adjust", "none", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert "adjusted_advantage" not in report["pairs"][0] and report["adjustment"] is None


def test_adjust_luck_without_a_value_network_is_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CARDZOO_MODELS", str(tmp_path))  # searched first; no value network anywhere
    monkeypatch.setattr("cardzoo.training.agents.shipped.package_models_dir", lambda: tmp_path)
    args = ["eval", "suipi", "--agents", "rules,random", "--games", "2", "--adjust", "luck", "--no-progress"]
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no value network for suipi at 2 players" in err[0]


def test_a_value_network_of_another_game_is_refused(value_dir):
    from cardzoo.training.evaluation.luck import load_value

    with pytest.raises(Exception, match="not a samsip value network"):
        load_value(value_dir / (value_name("suipi", 2) + ".safetensors"), "samsip", 4)


# ------------------------------------------------------------------ 10,000 matches a game (slow)


@pytest.mark.slow
@pytest.mark.parametrize("game,players", [("samsip", 4), ("suipi", 2), ("siantappo", 4)])
def test_adjusted_and_raw_means_agree_over_ten_thousand_matches(value_dir, game, players):
    """A value network of random weights (any V keeps the adjustment unbiased), the rule bot
    against random (random's choices adjusted too): over 10,000 matches the raw advantage lies
    within the adjusted one's 95% interval. `pytest -m slow tests/test_luck.py -k agree`."""
    res = run_tournament(game, ["rules", "random"], players=players, games=10_000, seed=6161, workers=2, adjust="luck")
    pair = res.report()["pairs"][0]
    lo, hi = pair["adjusted_advantage_ci"]
    assert lo <= pair["advantage"] <= hi, pair


def test_the_benchmark_table_is_the_kept_reports():
    """docs/evaluation.md's width table is docs/baselines/luck-*.json, rounded as shown."""
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    text = (root / "docs/evaluation.md").read_text(encoding="utf-8")
    table = text[text.index("| width adjusted / raw |") :].split("\n\n")[0].splitlines()
    kept = sorted((root / "docs/baselines").glob("luck-*.json"))
    assert len(kept) == 3
    for path in kept:
        r = json.loads(path.read_text(encoding="utf-8"))
        v = r["variance_per_deal"]
        cells = [r["game"], str(r["players"]), f"{r['width_ratio']:.2f}", f"{v['raw']:.2f}", f"{v['adjusted']:.2f}"]
        row = next(line for line in table if line.startswith(f"| {r['game']} | {r['players']} | "))
        assert all(f" {c} " in row for c in cells), (row, cells)
        assert f"{r['advantage']:+.2f} [{r['advantage_ci'][0]:+.2f}, {r['advantage_ci'][1]:+.2f}]" in row
