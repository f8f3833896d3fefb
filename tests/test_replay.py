"""Game records: every recorded game replays to the same rewards; bad files fail in one line."""

from __future__ import annotations

import json

import pytest

from cardzoo.scripts.cli import main
from cardzoo.training.evaluation.records import read_records, replay_record
from cardzoo.training.evaluation.tournament import run_tournament

# (game, players, rule options that keep the matches short)
CASES = [
    ("siantappo", 3, {"rounds": 1}),
    ("siantappo", 5, {"rounds": 2}),
    ("suipi", 2, {}),
    ("suipi", 4, {}),
    ("samsip", 2, {}),
    ("samsip", 5, {}),
]


@pytest.fixture(scope="module")
def siantappo_records(tmp_path_factory):
    path = tmp_path_factory.mktemp("rec") / "games.jsonl"
    run_tournament(
        "siantappo", ["rules", "random"], players=4, games=4, seed=9, options={"rounds": 1}, records=str(path)
    )
    return path


@pytest.mark.parametrize("game, players, options", CASES, ids=[f"{g}-{n}p" for g, n, _ in CASES])
def test_records_replay_to_the_same_rewards(game, players, options, tmp_path):
    path = tmp_path / "g.jsonl"
    res = run_tournament(
        game, ["rules", "random"], players=players, games=4, seed=5, options=options, records=str(path)
    )
    records = read_records(str(path))
    assert len(records) == len(res.games)
    for rec, g in zip(records, res.games):
        assert rec["game"] == f"{game}_v0" and rec["config"]["num_players"] == players
        assert {"seed", "deck", "moves", "rewards", "agents"} <= set(rec)
        assert all({"seat", "action", "text"} <= set(m) for m in rec["moves"])
        assert replay_record(rec) == pytest.approx(g.seat_rewards, abs=1e-12)


def test_record_is_the_env_header(siantappo_records):
    rec = read_records(str(siantappo_records))[0]
    from cardzoo.envs import siantappo_v0

    env = siantappo_v0.raw_env(num_players=4, rounds=1)
    env.reset(seed=123)
    assert set(env.record_header()) <= set(rec)


def test_replay_command(siantappo_records, capsys):
    assert main(["replay", str(siantappo_records), "--game", "2"]) == 0
    out = capsys.readouterr().out
    assert "matches the recorded rewards" in out and "plays:" in out and "Siantappo" in out
    assert main(["replay", str(siantappo_records), "--quiet"]) == 0
    assert "plays:" not in capsys.readouterr().out


def _bad(tmp_path, text):
    p = tmp_path / "bad.jsonl"
    p.write_text(text, encoding="utf-8")
    return str(p)


def _bad_bytes(tmp_path, data: bytes):
    p = tmp_path / "bad.jsonl"
    p.write_bytes(data)
    return str(p)


def _tampered(records_path, tmp_path, change):
    rec = read_records(str(records_path))[0]
    change(rec)
    return _bad(tmp_path, json.dumps(rec) + "\n")


@pytest.mark.parametrize(
    "make, needle",
    [
        (lambda p, t: str(t / "missing.jsonl"), "not found"),
        (lambda p, t: _bad(t, "not json\n"), "not valid JSON"),
        (lambda p, t: _bad(t, '{"game": "siantappo_v0"}\n'), "not a game record"),
        (lambda p, t: _bad(t, "\n"), "no game records"),
        (lambda p, t: str(p), "--game must be 1..4"),
        (lambda p, t: _tampered(p, t, lambda r: r["rewards"].__setitem__(0, 99.0)), "differ from the recorded"),
        (lambda p, t: _tampered(p, t, lambda r: r["moves"].pop()), "not over"),
        (lambda p, t: _tampered(p, t, lambda r: r["moves"][0].__setitem__("action", 10_000)), "move 1"),
        (lambda p, t: _tampered(p, t, lambda r: r.__setitem__("game", "chess_v0")), "unknown game"),
        (lambda p, t: _tampered(p, t, lambda r: r["config"].__setitem__("rounds", -1)), "rounds"),
        (lambda p, t: _tampered(p, t, lambda r: r.__setitem__("agents", 5)), "'agents' must be a list"),
        (lambda p, t: _tampered(p, t, lambda r: r.__setitem__("agents", {"a": 1})), "'agents' must be a list"),
        (
            lambda p, t: _tampered(p, t, lambda r: r.__setitem__("rewards", [None] * 4)),
            "'rewards' must be a list of numbers",
        ),
        (lambda p, t: _tampered(p, t, lambda r: r.__setitem__("rewards", "x")), "'rewards' must be a list of numbers"),
        (lambda p, t: _tampered(p, t, lambda r: r.__setitem__("deck", 5)), "'deck' must be a list"),
        (lambda p, t: _tampered(p, t, lambda r: r["moves"][0].__setitem__("seat", "x")), "'seat' must be an integer"),
        (lambda p, t: _bad_bytes(t, b'{"game": "\x83"}\n'), "not UTF-8"),
    ],
    ids=[
        "missing",
        "json",
        "keys",
        "empty",
        "range",
        "rewards",
        "short",
        "illegal",
        "game",
        "config",
        "agents-int",
        "agents-dict",
        "rewards-null",
        "rewards-text",
        "deck",
        "seat",
        "bytes",
    ],
)
def test_bad_records_one_line_exit_2(make, needle, siantappo_records, tmp_path, capsys):
    path = make(siantappo_records, tmp_path)
    argv = ["replay", path, "--quiet"] + (["--game", "9"] if needle.startswith("--game") else [])
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith("cardzoo replay: error:") and needle in err, err


def _record_with_typed_suits(seed: int) -> dict:
    """A Siantappo match of random legal moves in which every pair whose player holds a third card
    of the rank is played with that third card typed in (the action id alone plays the lowest
    suits), recorded as `cardzoo play --save` records a person's typed cards."""
    import random

    from cardzoo.envs import siantappo_v0
    from cardzoo.envs.seatview import match_over, skip_dead_steps
    from cardzoo.envs.siantappo.actions import key_str
    from cardzoo.envs.siantappo.engine import hand_keys

    env = siantappo_v0.raw_env(num_players=4, rounds=1)
    env.reset(seed=seed)
    rec, moves, totals, rng = dict(env.record_header()), [], [0.0] * 4, random.Random(seed)
    while True:
        skip_dead_steps(env)
        if match_over(env):
            break
        seat = env.agent_seat[env.agent_selection]
        action = rng.choice([a for a, ok in enumerate(env.observe(env.agent_selection)["action_mask"]) if ok])
        canon = env.engine.action_cards(action)
        third = [k for k in hand_keys(env.engine.hands[seat]) if canon and k >> 2 == canon[0] >> 2 and k not in canon]
        move = {"seat": seat}
        if len(canon) == 2 and canon[0] >> 2 == canon[1] >> 2 and third:
            move["cards"] = f"{key_str(third[0])} {key_str(canon[1])}"
            env.play(move["cards"])
        else:
            env.step(action)
        move["action"] = env.history[-1]
        moves.append(move)
        for agent, r in env.rewards.items():
            totals[env.agent_seat[agent]] += r
    return {**rec, "moves": moves, "rewards": totals}


def test_typed_suits_replay_in_the_terminal_and_the_browser(tmp_path, capsys):
    """As found: the browser's replay stepped the action ids alone, so a saved game in which a person
    typed other suits than the lowest showed the wrong cards or was refused as illegal."""
    from cardzoo.scripts.serve.replay import Replay

    rec = _record_with_typed_suits(17)
    typed = [i for i, m in enumerate(rec["moves"]) if "cards" in m]
    assert typed, "the seeded match should type some suits"
    assert replay_record(rec) == pytest.approx(rec["rewards"])
    replay = Replay(rec)
    assert replay.view(len(replay.moves), 0)["over"]
    shown = 0
    for i in typed:  # one step is one whole move in Siantappo: the table after move i + 1
        view = replay.view(i + 1, 0)
        played = view["table"][0]["items"][0]["cards"]
        if view["log"][-1]["text"].startswith(rec["moves"][i]["cards"]):  # not a trick just taken
            assert sorted(played) == sorted(rec["moves"][i]["cards"].split()), (i, played)
            shown += 1
    assert shown
    path = tmp_path / "typed.jsonl"
    path.write_text(json.dumps(rec, ensure_ascii=False) + "\n", encoding="utf-8")
    assert main(["replay", str(path), "--quiet"]) == 0
    assert "the replay matches the recorded rewards" in capsys.readouterr().out


def test_a_record_naming_fewer_agents_than_seats_replays(siantappo_records, tmp_path, capsys):
    path = _tampered(siantappo_records, tmp_path, lambda r: r.__setitem__("agents", ["rules"]))
    assert main(["replay", path]) == 0
    assert "player_0 (rules)" in capsys.readouterr().out
