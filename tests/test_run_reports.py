"""A run's evaluations (one evaluator for every trainer, here or in a process of its own) and what
the run reports of them (TensorBoard, a log line per player count, the learning curve)."""

from __future__ import annotations

from cardzoo.training.agents.shipped import shipped_model_file
from cardzoo.training.common.evaluator import Evaluator
from cardzoo.training.common.run_dir import RunState
from cardzoo.training.common.run_log import RunLog


def test_an_evaluation_in_the_background_is_the_one_made_here():
    model = shipped_model_file("suipi", 2)
    assert model is not None
    with Evaluator("suipi", 4, {}, background=True) as evaluator:
        assert not evaluator.busy() and evaluator.wait() is None
        evaluator.start(model, {2: 11}, at=500)
        assert evaluator.busy()
        waited = evaluator.wait()
        assert waited is not None
        at, result = waited
        assert at == 500 and not evaluator.busy() and evaluator.finished() is None
        assert result == evaluator(model, {2: 11})
    assert set(result[2]) == {"rules", "random"} and result[2]["rules"]["games"] == 4
    other = Evaluator("suipi", 4, {})(model, {2: 12})
    assert other != result  # the seed says which deals are played


def test_an_evaluation_is_recorded_for_each_player_count(tmp_path):
    lines: list[str] = []
    runlog = RunLog(tmp_path, "siantappo", (3, 4), lines.append)
    state = RunState()
    figures = {"games": 10, "mean_reward": 0.25, "win_rate": 0.5}
    runlog.evaluation(
        state,
        1000,
        {3: {"rules": figures, "random": figures}, 4: {"rules": {**figures, "mean_reward": -0.5}, "random": figures}},
        unit="samples",
    )
    runlog.close()
    assert [(e["decisions"], e["players"], e["rules"]["mean_reward"]) for e in state.evals] == [
        (1000, 3, 0.25),
        (1000, 4, -0.5),
    ]
    assert len(lines) == 2 and lines[1].split() == [
        "1,000",
        "samples,",
        "4p:",
        "vs",
        "rules",
        "-0.500",
        "(wins",
        "50%),",
        "vs",
        "random",
        "+0.250",
        "(wins",
        "50%)",
        "[model's",
        "mean",
        "reward",
        "per",
        "match]",
    ]
    assert (tmp_path / "learning_curve.png").stat().st_size > 1000
    assert list((tmp_path / "tb").glob("events.out.tfevents*"))
