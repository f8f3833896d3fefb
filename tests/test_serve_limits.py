"""What a web client may ask of `cardzoo serve` (docs/serve.md, Limits): rule options within the
web's ranges, a cap on moves per match and on live matches, matches nobody has open paused; and
what it is told: never a server path (a model seat that does not fit, a hint, a record)."""

from __future__ import annotations

import json
import shutil
import time
import warnings
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
warnings.filterwarnings("ignore", message=".*httpx.*", category=DeprecationWarning)
from starlette.testclient import TestClient  # noqa: E402

from cardzoo.scripts.serve.app import create_app, without_paths  # noqa: E402
from cardzoo.scripts.serve.limits import WEB_OPTION_RANGES, Limits  # noqa: E402
from cardzoo.scripts.serve.match import Match  # noqa: E402
from cardzoo.training.agents.shipped import package_models_dir  # noqa: E402
from tests.deals import dealt_by  # noqa: E402

HANG_GUARD = 120.0  # seconds: a wait that never ends fails the test instead of blocking the suite
# as found (issue 57): one request started a match that played 619,269 moves in 90 s and grew
RUNAWAY: dict[str, Any] = {
    "game": "samsip",
    "seats": ["random", "random"],
    "pace": 0,
    "options": {"bankroll": 1000000000, "max_hands": 1000000, "stake_progression": "linear", "stall_turns": 1000000},
}
# the same match at the top of the web's ranges
LONGEST = {**RUNAWAY, "options": {"bankroll": 1000, "max_hands": 300, "stake_progression": "linear", "stall_turns": 60}}
PLAYERS = {"siantappo": ["rules"] * 4, "suipi": ["rules"] * 2, "samsip": ["rules"] * 3}


@pytest.fixture
def client():
    with TestClient(create_app()) as c:
        yield c


def wait_until(predicate, what: str) -> None:
    deadline = time.monotonic() + HANG_GUARD
    while not predicate():
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.01)


# ---------------------------------------------------------------------------- rule options
def test_the_reported_runaway_request_is_refused_naming_the_option_and_its_range(client):
    r = client.post("/api/games", json=RUNAWAY)
    assert r.status_code == 400
    assert r.json()["error"] == (
        "option bankroll: 1000000000 is outside what this server allows (1..1000; the command line takes more)"
    )
    assert not client.app.state.store.matches
    # the Python API (and so the command line) keeps the full range
    match = Match.create("samsip", ["random", "random"], RUNAWAY["options"], 1)
    assert match.env.config.bankroll == 10**9 and match.max_moves is None


@pytest.mark.parametrize(
    "game, option, low, high",
    [(game, option, low, high) for game, ranges in WEB_OPTION_RANGES.items() for option, (low, high) in ranges.items()],
)
def test_each_bounded_option_is_refused_outside_its_web_range(client, game, option, low, high):
    seats = PLAYERS[game]
    for bad in (high + 1, low - 1, str(high + 1), float(high) + 0.5, 10**30):
        r = client.post("/api/games", json={"game": game, "seats": seats, "options": {option: bad}})
        assert r.status_code == 400, (option, bad)
        msg = r.json()["error"]
        assert msg.startswith(f"option {option}: ") and f"({low}..{high};" in msg and "\n" not in msg
    options = {option: high, **({"bankroll": high} if option == "special_multiplier" else {})}
    r = client.post("/api/games", json={"game": game, "seats": seats, "options": options})
    assert r.status_code == 200, r.text
    form = next(g for g in client.get("/api/catalog").json()["games"] if g["name"] == game)
    shown = {o["name"]: o for o in form["options"]}
    assert (shown[option]["min"], shown[option]["max"]) == (low, high)  # the form says so too


# ---------------------------------------------------------------------------- moves and matches
def test_a_match_nobody_has_open_is_paused_until_somebody_looks(client):
    """The reported request at the top of the web's ranges, its watch socket opened and closed:
    the bots stop (the driver ends with the match unfinished) and go on when a browser is back."""
    data = client.post("/api/games", json=LONGEST).json()
    match, _ = client.app.state.store.lookup(data["watch"])
    with client.websocket_connect(f"/ws/{data['watch']}") as ws:
        ws.receive_json()
    wait_until(lambda: match.driver.done(), "the bots paused")
    paused = match.version
    assert not match.over and not match.failed and not match.sockets
    with client.websocket_connect(f"/ws/{data['watch']}") as ws:
        assert ws.receive_json()["view"]["version"] == paused  # nothing moved meanwhile
        assert ws.receive_json()["view"]["version"] == paused + 1  # and the bots go on
    wait_until(lambda: match.driver.done(), "the bots paused again")


def test_a_match_stops_at_the_move_limit_and_is_let_go():
    limits = Limits(max_moves=30, finished_ttl=10)
    with TestClient(create_app(limits=limits)) as client:
        store = client.app.state.store
        data = client.post("/api/games", json={**LONGEST, "seed": 3}).json()
        match, _ = store.lookup(data["watch"])
        with client.websocket_connect(f"/ws/{data['watch']}") as ws:
            while not (view := ws.receive_json()["view"])["prompt"].startswith("The match stopped"):
                pass
        assert view["prompt"] == "The match stopped: it reached this server's limit of 30 moves a match"
        assert len(match.log) == 30 and match.driver.done() and not match.over
        assert store.sweep(match.finished_at + 11) == [match] and not store.matches
        # a person's move after the limit is refused in one line
        person = client.post(
            "/api/games", json={"game": "suipi", "seats": ["human", "rules"], "seed": dealt_by(1)}
        ).json()
        match, _ = store.lookup(person["you"]["key"])
        match.max_moves = len(match.log) + 1
        with client.websocket_connect(f"/ws/{person['you']['key']}") as ws:
            view = ws.receive_json()["view"]
            while not view["your_turn"]:
                view = ws.receive_json()["view"]
            ws.send_text(json.dumps({"type": "move", "ids": view["moves"][0]["ids"], "version": view["version"]}))
            view = ws.receive_json()["view"]
            assert view["moves"] == [] and "limit of" in view["prompt"]
            ws.send_text(json.dumps({"type": "move", "ids": [0], "version": view["version"]}))
            assert ws.receive_json()["message"].startswith("the match stopped: it reached this server's limit")


def test_live_matches_are_capped_before_any_bot_is_loaded(monkeypatch):
    with TestClient(create_app(limits=Limits(max_matches=1))) as client:
        assert client.post("/api/games", json={"game": "suipi", "seats": ["human", "rules"]}).status_code == 200
        monkeypatch.setattr(Match, "create", lambda *a: pytest.fail("loaded a match the server cannot keep"))
        r = client.post("/api/games", json={"game": "suipi", "seats": ["human", "model"]})
        assert r.status_code == 503 and "try again later" in r.json()["error"]


# ---------------------------------------------------------------------------- no server paths
def assert_no_path(text: str) -> None:
    assert "/" not in text.replace(" / ", "") and str(package_models_dir()) not in text, text


def test_errors_sent_to_a_browser_name_no_server_path(client):
    """As found: a model seat with trick_history=true (the shipped model reads the shorter
    observation) answered "/…/models/siantappo.safetensors expects observation 633 …"; a hint too."""
    body = {"game": "siantappo", "seats": ["human", "model", "rules", "rules"], "options": {"trick_history": True}}
    r = client.post("/api/games", json=body)
    assert r.status_code == 400 and "siantappo.safetensors expects observation" in r.json()["error"]
    assert_no_path(r.json()["error"])
    data = client.post("/api/games", json={**body, "seats": ["human", "rules", "rules", "rules"], "seed": 1}).json()
    with client.websocket_connect(f"/ws/{data['you']['key']}") as ws:
        while not (view := ws.receive_json()["view"])["your_turn"]:
            pass
        ws.send_text(json.dumps({"type": "hint", "version": view["version"]}))
        msg = ws.receive_json()["message"]
    assert msg.startswith("no hint: siantappo.safetensors expects observation")
    assert_no_path(msg)


def test_a_downloaded_record_names_a_model_by_its_file_name(client):
    data = client.post(
        "/api/games", json={"game": "suipi", "seats": ["rules", "suipi-2p@3"], "seed": 2, "options": {"match_deals": 1}}
    ).json()
    match, _ = client.app.state.store.lookup(data["watch"])
    while not match.over:
        match.play_bot_move()
    record = json.loads(client.get(f"/api/record/{data['watch']}").text)
    assert record["agents"] == ["rules", "suipi-2p.safetensors@3"]


def test_paths_are_cut_to_their_file_names(monkeypatch, tmp_path):
    monkeypatch.setenv("CARDZOO_MODELS", "mine")  # a folder given relative to where the server started
    assert without_paths("mine/x.safetensors expects 5") == "x.safetensors expects 5"
    assert without_paths(f"cannot read {tmp_path}/a b.json (no)") == "cannot read a b.json (no)"
    assert without_paths("~/m/x.json, C:\\m\\y.json") == "x.json, y.json"
    for text in ("observation 633 / actions 368", "true/false", 'send {"ids": [1, 2]}', "1/2 of 9♠ 9♦", "determine/x"):
        assert without_paths(text) == text


# ---------------------------------------------------------------------------- model folders
@pytest.fixture
def models_with_bad_files(tmp_path, monkeypatch):
    """A model folder: a real model (``mine``) and sidecars that are no model at all, as found
    (100,000 nested lists), too large, a 5,000-digit number, not JSON."""
    for suffix in (".safetensors", ".json"):
        shutil.copy(package_models_dir() / f"suipi-2p{suffix}", tmp_path / f"mine{suffix}")
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    (tmp_path / "huge.json").write_text('{"game": "suipi", "x": "' + "a" * (2 << 20) + '"}')
    (tmp_path / "digits.json").write_text('{"game": "suipi", "player_counts": [' + "9" * 5000 + "]}")
    (tmp_path / "broken.json").write_text('{"game": "suipi", "player_counts": [2')
    (tmp_path / "notes.json").write_text('{"what": "not a sidecar: passed over in silence"}')
    monkeypatch.setenv("CARDZOO_MODELS", str(tmp_path))
    monkeypatch.setattr("cardzoo.training.agents.shipped._WARNED", set(), raising=False)  # warn afresh
    return tmp_path


def test_a_bad_sidecar_in_a_model_folder_is_skipped_with_one_warning(client, models_with_bad_files, capsys):
    cat = client.get("/api/catalog")
    assert cat.status_code == 200
    suipi = next(g for g in cat.json()["games"] if g["name"] == "suipi")
    assert {"name": "mine", "players": [2]} in suipi["named_models"]
    r = client.post("/api/games", json={"game": "suipi", "seats": ["human", "mine"]})
    assert r.status_code == 200, r.text
    client.get("/api/catalog")
    warned = capsys.readouterr().err.splitlines()
    assert sorted(line.split()[3].rsplit("/", 1)[1] for line in warned) == [
        "broken.json",
        "deep.json",
        "digits.json",
        "huge.json",
    ]  # once each, however often scanned
    assert all(line.startswith("cardzoo: warning: skipping ") for line in warned)
    assert "nested 100000 levels deep, at most 32 allowed" in next(w for w in warned if "deep.json" in w)


def test_eval_with_such_a_folder_plays_and_prints_no_traceback(models_with_bad_files, capsys):
    from cardzoo.scripts.cli import main

    code = main(
        [
            "--models",
            str(models_with_bad_files),
            "eval",
            "suipi",
            "--agents",
            "model,rules",
            "--games",
            "2",
            "--no-progress",
        ]
    )
    err = capsys.readouterr().err
    assert code == 0, err
    assert "RecursionError" not in err and "Traceback" not in err and err.count("warning: skipping") == 4
