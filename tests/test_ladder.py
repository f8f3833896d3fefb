"""`cardzoo ladder`: entrants and every match in one SQLite file; only missing matches are played;
concurrent writers lose nothing; a killed run loses at most the match in flight; a file that is not
a ladder is one line and exit 2."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cardzoo.scripts import cli
from cardzoo.training.evaluation import ladder_store

GAME = ["--game", "suipi", "--players", "2"]


def cz(*argv: str) -> int:
    return cli.main(list(argv))


def rows(db: Path) -> list[tuple]:
    """Every stored match without its time stamp, in a stable order."""
    with sqlite3.connect(db) as con:
        return con.execute(
            "SELECT game, players, rules, a, b, deal, seating, deal_seed, seats, rewards, scores, "
            "steps FROM matches ORDER BY a, b, deal, seating"
        ).fetchall()


def spawn(*argv: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "cardzoo.scripts.cli", *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_add_play_show_export_and_a_new_entrant_plays_only_its_new_pairs(tmp_path, capsys):
    db = str(tmp_path / "l.sqlite")
    assert cz("ladder", "--db", db, "add", "rules", "random") == 0
    assert cz("ladder", "--db", db, "play", *GAME, "--games", "8", "--workers", "1") == 0
    first = rows(Path(db))
    assert len(first) == 8 and {r[3:5] for r in first} == {(1, 2)}
    assert cz("ladder", "--db", db, "add", "random@5", "rules") == 0
    assert "already on the ladder: rules" in capsys.readouterr().out
    assert cz("ladder", "--db", db, "play", *GAME, "--games", "8", "--workers", "2") == 0
    both = rows(Path(db))
    assert both[:8] == first  # the old pair kept its matches and played none
    assert len(both) == 24 and {r[3:5] for r in both[8:]} == {(1, 3), (2, 3)}
    assert all(json.loads(r[8]) in ([a, b], [b, a]) for r in both for a, b in [r[3:5]])
    capsys.readouterr()
    assert cz("ladder", "--db", db, "show", "--plot", str(tmp_path / "l.png")) == 0
    out = capsys.readouterr().out
    assert "suipi, 2 players — 24 matches" in out and (tmp_path / "l.png").stat().st_size > 0
    assert out.index("  rules") < out.index("  random")  # the rule bot rates above random
    assert cz("ladder", "--db", db, "export", "--json", str(tmp_path / "l.json")) == 0
    data = json.loads((tmp_path / "l.json").read_text())
    assert len(data["matches"]) == 24 and data["matches"][0]["adjusted_rewards"] is None
    table = data["standings"][0]
    assert table["entrants"][0]["entrant"] == "rules" and table["anchor"] == "random"


def test_a_pair_plays_the_same_matches_in_any_ladder(tmp_path):
    for name, order in (("a", ["rules", "random"]), ("b", ["rules", "random"])):
        db = str(tmp_path / f"{name}.sqlite")
        assert cz("ladder", "--db", db, "add", *order) == 0
        assert cz("ladder", "--db", db, "play", *GAME, "--games", "6", "--workers", "1") == 0
    assert rows(tmp_path / "a.sqlite") == rows(tmp_path / "b.sqlite")


def test_a_checkpoint_is_its_hash(tmp_path, capsys):
    from cardzoo.training.agents.shipped import shipped_model_file

    model = shipped_model_file("suipi", 2)
    assert model is not None
    weights = Path(model)
    for name in ("one", "two"):
        for suffix in (".safetensors", ".json"):
            (tmp_path / (name + suffix)).write_bytes(weights.with_suffix(suffix).read_bytes())
    db = str(tmp_path / "l.sqlite")
    assert cz("ladder", "--db", db, "add", str(tmp_path / "one.safetensors")) == 0
    assert cz("ladder", "--db", db, "add", str(tmp_path / "two.safetensors")) == 0
    out = capsys.readouterr().out
    assert "already on the ladder" in out
    with sqlite3.connect(db) as con:
        ((key, spec),) = con.execute("SELECT key, spec FROM entrants").fetchall()
    assert key.startswith("sha256:") and spec.endswith("two.safetensors")


def test_sprt_stops_a_decided_pair_and_a_rerun_plays_nothing(tmp_path, capsys):
    db = str(tmp_path / "l.sqlite")
    assert cz("ladder", "--db", db, "add", "rules", "random") == 0
    argv = ["ladder", "--db", db, "play", *GAME, "--games", "2000", "--sprt", "--adv1", "0.2", "--workers", "1"]
    assert cz(*argv) == 0
    n = len(rows(Path(db)))
    assert 64 <= n < 2000 and "H1 accepted" in capsys.readouterr().out
    assert cz(*argv) == 0
    assert len(rows(Path(db))) == n


def test_two_writers_at_once_lose_nothing(tmp_path):
    db = str(tmp_path / "l.sqlite")
    assert cz("ladder", "--db", db, "add", "rules", "random", "random@1") == 0
    procs = [spawn("ladder", "--db", db, "play", *GAME, "--games", "30", "--workers", "1") for _ in range(2)]
    for p in procs:
        assert p.wait(timeout=600) == 0, p.stderr.read() if p.stderr else ""
    got = rows(Path(db))
    alone = tmp_path / "alone.sqlite"
    assert cz("ladder", "--db", str(alone), "add", "rules", "random", "random@1") == 0
    assert cz("ladder", "--db", str(alone), "play", *GAME, "--games", "30", "--workers", "1") == 0
    assert got == rows(alone) and len(got) == 90


def test_a_killed_play_loses_at_most_the_match_in_flight(tmp_path):
    db = tmp_path / "l.sqlite"
    assert cz("ladder", "--db", str(db), "add", "rules", "random") == 0
    p = spawn("ladder", "--db", str(db), "play", *GAME, "--games", "400", "--workers", "1")
    deadline = time.time() + 300
    while time.time() < deadline and (not db.exists() or len(rows(db)) < 20):
        time.sleep(0.2)
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    kept = rows(db)
    assert 20 <= len(kept) < 400
    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert cz("ladder", "--db", str(db), "play", *GAME, "--games", "400", "--workers", "2") == 0
    whole = tmp_path / "whole.sqlite"
    assert cz("ladder", "--db", str(whole), "add", "rules", "random") == 0
    assert cz("ladder", "--db", str(whole), "play", *GAME, "--games", "400", "--workers", "2") == 0
    assert rows(db) == rows(whole)


def test_ctrl_c_stops_the_whole_play_and_keeps_every_finished_match(tmp_path):
    db = tmp_path / "l.sqlite"
    assert cz("ladder", "--db", str(db), "add", "rules", "random", "random@1") == 0
    p = spawn("ladder", "--db", str(db), "play", *GAME, "--games", "400", "--workers", "1")
    deadline = time.time() + 300
    while time.time() < deadline and (not db.exists() or len(rows(db)) < 10):
        time.sleep(0.2)
    p.send_signal(signal.SIGINT)
    assert p.wait(timeout=120) == 130
    kept = rows(db)
    assert 10 <= len(kept) < 400 and {r[3:5] for r in kept} == {(1, 2)}  # no later pair was started


@pytest.mark.parametrize("content", [b"junk" * 100, b"SQLite format 3\x00" + b"\x00" * 200, "foreign", "newer"])
@pytest.mark.parametrize("step", [["show"], ["add", "rules"], ["play", *GAME], ["export", "--json", "-"]])
def test_a_file_that_is_no_ladder_is_one_line_exit_2_and_left_as_it_was(tmp_path, capsys, content, step):
    db = tmp_path / "l.sqlite"
    if content == "foreign":
        with sqlite3.connect(db) as con:
            con.execute("CREATE TABLE people (name TEXT)")
        con.close()
    elif content == "newer":
        assert cz("ladder", "--db", str(db), "add", "rules") == 0
        with sqlite3.connect(db) as con:
            con.execute("UPDATE meta SET value = '99' WHERE key = 'version'")
        con.close()
    else:
        db.write_bytes(content)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    capsys.readouterr()
    assert cz("ladder", "--db", str(db), *step) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "ladder" in err
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_show_of_no_ladder_is_one_line_and_creates_nothing(tmp_path, capsys):
    assert cz("ladder", "--db", str(tmp_path / "none.sqlite"), "show") == 2
    assert "no ladder at" in capsys.readouterr().err and not list(tmp_path.iterdir())


def test_the_default_file_is_documented_and_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("CARDZOO_LADDER", str(tmp_path / "x.sqlite"))
    assert ladder_store.default_path() == str(tmp_path / "x.sqlite")
    monkeypatch.delenv("CARDZOO_LADDER")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert ladder_store.default_path() == str(tmp_path / "cardzoo" / "ladder.sqlite")
    assert "~/.local/share/cardzoo/ladder.sqlite" in (Path(__file__).parents[1] / "docs" / "evaluation.md").read_text()
