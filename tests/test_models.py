"""Every model shipped in models/: loads, plays legal matches at each of its player counts, and its
card says exactly what its measurements (models/NAME.eval.json) say."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cardzoo.envs.registry import game_spec
from cardzoo.training.agents.shipped import package_models_dir, shipped_model_file, shipped_models
from cardzoo.training.agents.specs import make_agent
from cardzoo.training.evaluation.model_card import rerender

MODELS_DIR = package_models_dir()

MODELS = shipped_models()


def test_models_are_shipped_and_model_plays_one_of_them_at_each_count():
    """Where two shipped models list a count, the one listing fewer counts (a specialist) plays it:
    two of the same width would leave the choice to their names."""
    assert MODELS, "models/ ships no model"
    seen = set()
    for _, game, counts in MODELS:
        for n in counts:
            assert (game, n, len(counts)) not in seen, f"two shipped models of {len(counts)} counts for {game} {n}p"
            seen.add((game, n, len(counts)))


@pytest.mark.parametrize("weights,game,counts", MODELS, ids=[Path(w).stem for w, _, _ in MODELS])
def test_a_shipped_model_plays_a_legal_match_at_each_player_count(weights, game, counts):
    meta = json.loads(Path(weights).with_suffix(".json").read_text())
    spec = game_spec(game)
    assert meta["player_counts"] == counts and set(counts) <= set(spec.player_counts)
    assert isinstance(meta["config"], dict) and meta["env"] == spec.module.raw_env().metadata["name"]
    assert Path(weights).stat().st_size <= 10 * 2**20
    for n in counts:
        played = shipped_model_file(game, n)  # `model` finds it, or a specialist for n players
        assert played is not None
        if played != weights:  # a specialist plays fewer counts
            assert len(json.loads(Path(played).with_suffix(".json").read_text())["player_counts"]) < len(counts)
        env = spec.module.raw_env(num_players=n)
        env.reset(seed=n)
        agent = make_agent("model", spec.module, env.config, seed=0)
        steps, total = 0, 0.0
        for _name in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            action = agent.act(obs["observation"], obs["action_mask"])
            assert obs["action_mask"][action] == 1
            env.step(action)
            total += sum(env.rewards.values())
            steps += 1
        assert steps > 10 and abs(total) < 1e-6  # a whole match, zero-sum


@pytest.mark.parametrize("name", sorted(p.name[: -len(".eval.json")] for p in Path(MODELS_DIR).glob("*.eval.json")))
def test_the_card_is_generated_from_its_measurements(name):
    card = (Path(MODELS_DIR) / f"{name}.md").read_text()
    assert card == rerender(name), f"models/{name}.md differs from what models/{name}.eval.json says"
    ev = json.loads((Path(MODELS_DIR) / f"{name}.eval.json").read_text())
    for _n, per in ev["per_players"].items():
        pair = per["vs_rules"]["pairs"][0]
        assert per["vs_rules"]["games_played"] >= 1000 and f"{pair['advantage']:+.3f}" in card
    command = next(line for line in card.splitlines() if line.startswith("* Command: "))
    assert command.startswith("* Command: `") and command.count("`") % 2 == 0, command  # code spans close


def test_every_model_has_a_card_and_measurements():
    for weights, _, _ in MODELS:
        assert Path(weights).with_suffix(".md").is_file()
        assert Path(weights).with_suffix(".eval.json").is_file(), f"{weights}: no measurements"


def test_the_readme_lists_every_model_as_measured():
    from cardzoo.training.evaluation.model_card import readme_table

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    assert readme_table() in readme, (
        "README's trained-models table differs from models/*.eval.json (cardzoo model card --readme-table prints it)"
    )


def test_model_finds_a_shipped_model_for_every_game_and_player_count():
    from cardzoo.envs.registry import game_names

    for game in game_names():
        for n in game_spec(game).player_counts:
            played = shipped_model_file(game, n)
            assert played is not None and Path(played).is_file(), f"`model` has nothing to play {game} {n}p"


def test_a_card_takes_the_learning_curve_of_the_checkpoints_run(tmp_path):
    from cardzoo.training.evaluation.model_card import learning_curve_of

    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    assert learning_curve_of(run / "final.safetensors") is None
    (run / "learning_curve.png").write_bytes(b"png")
    assert learning_curve_of(run / "final.safetensors") == run / "learning_curve.png"
    assert learning_curve_of(run / "checkpoints" / "imitation.safetensors") == run / "learning_curve.png"
