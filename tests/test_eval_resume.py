"""A tournament interrupted part-way resumes from its --log to the same report as one run."""

import json

import pytest

from cardzoo.scripts.cli import main
from cardzoo.training.evaluation.tournament import run_tournament


def _report(res):
    rep = res.report()
    return [(e["name"], e["games"], e["mean_reward"], e["win_rate"]) for e in rep["entrants"]]


def test_resume_from_log_matches_an_uninterrupted_run(tmp_path):
    log = tmp_path / "t.jsonl"
    full = run_tournament("siantappo", ["rules", "random"], players=3, games=12, seed=4, options={"rounds": 1})
    run_tournament("siantappo", ["rules", "random"], players=3, games=12, seed=4, options={"rounds": 1}, log=str(log))
    lines = log.read_text().splitlines()
    assert len(lines) == 1 + 12
    # simulate a crash after 5 games, the last line cut short
    log.write_text("\n".join(lines[:6]) + "\n" + lines[6][:10])
    resumed = run_tournament(
        "siantappo", ["rules", "random"], players=3, games=12, seed=4, options={"rounds": 1}, log=str(log)
    )
    assert _report(resumed) == _report(full)
    assert len(log.read_text().splitlines()) == 13


def test_log_of_another_tournament_is_refused(tmp_path, capsys):
    log = tmp_path / "t.jsonl"
    args = [
        "eval",
        "siantappo",
        "--agents",
        "rules,random",
        "--players",
        "3",
        "--games",
        "6",
        "-o",
        "rounds=1",
        "--no-progress",
        "--log",
        str(log),
    ]
    assert main(args) == 0
    assert json.loads(log.read_text().splitlines()[0])["tournament"]["seed"] == 0
    assert main(args[:-2] + ["--seed", "9", "--log", str(log)]) == 2
    assert "different tournament" in capsys.readouterr().err
    log.write_text("not json\n")
    assert main(args) == 2
    assert "not a cardzoo tournament log" in capsys.readouterr().err


@pytest.mark.parametrize("workers", [1, 2])
def test_resume_with_workers(tmp_path, workers):
    log = tmp_path / "t.jsonl"
    first = run_tournament(
        "suipi",
        ["rules", "random"],
        players=2,
        games=4,
        seed=2,
        options={"match_deals": 1},
        log=str(log),
        workers=workers,
    )
    again = run_tournament(
        "suipi",
        ["rules", "random"],
        players=2,
        games=4,
        seed=2,
        options={"match_deals": 1},
        log=str(log),
        workers=workers,
    )
    assert _report(first) == _report(again)
