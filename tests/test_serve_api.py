"""`cardzoo serve` through Starlette's test client: whole matches over the WebSocket, what each
message may hold, and every kind of bad message refused with the match unchanged."""

from __future__ import annotations

import json
import random
import re
import threading
import warnings

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
with warnings.catch_warnings():  # newer Starlette prefers httpx2 for its test client; httpx works
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

from cardzoo.scripts.serve.app import MAX_MESSAGE, create_app
from cardzoo.scripts.serve.match import Match, log_for
from cardzoo.scripts.serve.store import Limits
from cardzoo.training.evaluation.records import replay_record
from tests.deals import dealt_by
from tests.serve_helpers import Knowledge, card_tokens, steps_upto

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")

MATCHES = {
    # the swap_choice variant makes the Siantappo swap a move: private to its two players
    "siantappo": (["human", "rules", "rules", "random"], {"rounds": 2, "swap_choice": True}),
    "suipi": (["human", "rules", "random", "rules"], {"match_deals": 1}),
    "samsip": (["human", "rules", "random"], {"bankroll": 4}),
}


@pytest.fixture
def client():
    with TestClient(create_app()) as c:
        yield c


def new_game(client, game, seats, options=None, seed=11, **extra):
    r = client.post("/api/games", json={"game": game, "seats": seats, "options": options or {}, "seed": seed, **extra})
    assert r.status_code == 200, r.text
    return r.json()


def store_of(client):
    return client.app.state.store


def match_of(client, key):
    return store_of(client).lookup(key)[0]


def send(ws, **msg):
    ws.send_text(json.dumps(msg))


def play_to_the_end(client, key, seat, rng, check=None):
    """Play random legal moves for ``seat`` until the match ends; every message goes to
    ``check(view)``. Returns (last view, number of messages)."""
    messages = 0
    with client.websocket_connect(f"/ws/{key}") as ws:
        while True:
            msg = ws.receive_json()
            messages += 1
            assert msg["type"] == "state", msg
            view = msg["view"]
            assert view["seat"] == seat
            if check:
                check(view)
            if view["over"]:
                return view, messages
            if view["your_turn"]:
                move = rng.choice(view["moves"])
                send(ws, type="move", ids=move["ids"], version=view["version"])


# ---------------------------------------------------------------------------- whole matches
@pytest.mark.parametrize("game", sorted(MATCHES))
def test_whole_match_through_the_websocket_shows_only_what_the_seat_may_know(client, game):
    seats, options = MATCHES[game]
    data = new_game(client, game, seats, options)
    key, seat = data["you"]["key"], data["you"]["seat"]
    match = match_of(client, key)
    know = Knowledge(match.env.record_header(), seat)
    versions = []

    def check(view):
        versions.append(view["version"])
        know.advance(match.steps, steps_upto(match, view["version"]))
        leaked = know.unknown_cards_in(view)
        assert not leaked, f"message at move {view['version']} shows {sorted(leaked)} to player_{seat}"
        if view["your_turn"]:
            legal = {tuple(ids) for ids, _ in know.env.full_moves()}
            assert {tuple(m["ids"]) for m in view["moves"]} == legal

    last, messages = play_to_the_end(client, key, seat, random.Random(3), check)
    assert versions == sorted(versions) and len(set(versions)) == len(versions)  # one message per move
    assert last["result"]["lines"] and last["result"]["rows"]
    assert messages == match.version + 1 and match.over
    # the finished match downloads as a record that replays to the same rewards
    rec = client.get(f"/api/record/{key}")
    assert rec.status_code == 200
    record = json.loads(rec.text)
    assert record["agents"] == seats and record["game"].startswith(game)
    assert replay_record(record) == pytest.approx(record["rewards"])


def test_the_knowledge_check_catches_a_leak(client):
    """The check above can fail: another seat's hand in a message is found."""
    data = new_game(client, "siantappo", ["human", "rules", "rules", "rules"], {"rounds": 1})
    match = match_of(client, data["you"]["key"])
    know = Knowledge(match.env.record_header(), 0)
    view = match.view(0)
    assert not know.unknown_cards_in(view)
    view["notes"].append(" ".join(c["card"] for c in match.view_mod.seat_view(match.env, 1)["hand"]["cards"]))
    assert len(know.unknown_cards_in(view)) == 13
    assert "10♦" not in card_tokens({"scores": {"columns": ["10♦"], "rows": [["10♦ (2)", "1"]]}})


def test_swaps_are_private_to_their_two_players():
    match = Match.create("siantappo", ["rules"] * 4, {"rounds": 2, "swap_choice": True}, seed=5)
    while not match.over:
        match.play_bot_move()
    gives = [e for e in match.log if e["facts"][0]["what"] == "give"]
    assert gives, "a swap_choice match has give moves"
    for e in gives:
        receiver = e["facts"][0]["to"]
        assert log_for(match.view_mod, [e], None)[0]["text"] == f"gives a card to player_{receiver}"
        for s in range(4):
            text = log_for(match.view_mod, [e], s)[0]["text"]
            assert bool(card_tokens({"t": text})) == (s in (e["seat"], receiver)), (s, text)


# ---------------------------------------------------------------------------- bad messages
def state_of(match):
    return (match.version, len(match.steps), list(match.env.history), match.env.agent_selection)


def test_every_bad_message_is_refused_and_changes_nothing(client):
    data = new_game(client, "suipi", ["human", "human"], {"match_deals": 1}, seed=4)
    me, other = data["you"], data["invites"][0]
    match = match_of(client, me["key"])
    acting = match.acting()
    mover, idle = (me, other) if acting == me["seat"] else (other, me)
    with client.websocket_connect(f"/ws/{mover['key']}") as ws, client.websocket_connect(f"/ws/{idle['key']}") as ws2:
        view = ws.receive_json()["view"]
        ws2.receive_json()
        assert view["your_turn"]
        legal = view["moves"][0]["ids"]
        illegal = next(a for a in range(200) if [a] not in [m["ids"] for m in view["moves"]])
        before = state_of(match)
        bad = [
            ("{not json", "not JSON"),
            ("[1, 2, 3]", "unknown message"),
            (json.dumps({"type": "shout"}), "unknown message"),
            (json.dumps({"type": "move", "version": view["version"]}), "needs ids"),
            (json.dumps({"type": "move", "ids": ["a"], "version": view["version"]}), "needs ids"),
            (json.dumps({"type": "move", "ids": [True], "version": view["version"]}), "needs ids"),
            (json.dumps({"type": "move", "ids": legal}), "version"),
            (json.dumps({"type": "move", "ids": [illegal], "version": view["version"]}), "not a legal move"),
            (json.dumps({"type": "move", "ids": legal, "version": view["version"] - 1}), "stale move"),
            (
                json.dumps({"type": "move", "ids": legal, "version": view["version"], "seat": idle["seat"]}),
                f"cannot move for player_{idle['seat']}",
            ),
            (json.dumps({"type": "move", "ids": (legal * 70)[:70], "version": view["version"]}), "needs ids"),
            ("x" * (MAX_MESSAGE + 1), "too large"),
            (json.dumps({"type": "move", "ids": legal, "version": view["version"], "pad": "y" * 500_000}), "too large"),
            (json.dumps({"type": "look", "seat": 1}), "only a watcher"),
        ]
        for text, reason in bad:
            ws.send_text(text)
            reply = ws.receive_json()
            assert reply["type"] == "error" and reason in reply["message"], (text[:60], reply)
            assert state_of(match) == before
        ws.send_bytes(b"\x00\x01")
        assert "binary" in ws.receive_json()["message"]
        # another seat's move: the idle seat sends the acting seat's move
        send(ws2, type="move", ids=legal, version=view["version"])
        reply = ws2.receive_json()
        assert reply["type"] == "error" and "not yours" in reply["message"]
        assert state_of(match) == before
        # and the right move from the right seat still works
        send(ws, type="move", ids=legal, version=view["version"])
        after = ws.receive_json()
        assert after["type"] == "state" and after["view"]["version"] == view["version"] + 1
        assert ws2.receive_json()["view"]["version"] == view["version"] + 1
        # the same move again is stale now
        send(ws, type="move", ids=legal, version=view["version"])
        assert "stale" in ws.receive_json()["message"]


def test_unknown_key_is_refused(client):
    with client.websocket_connect("/ws/not-a-key") as ws:
        reply = ws.receive_json()
        assert reply["type"] == "error" and "unknown or expired" in reply["message"]
    assert client.get("/api/record/not-a-key").status_code == 404
    assert client.get("/api/replays/not-a-key").status_code == 404


def test_keys_are_unguessable_and_distinct(client):
    data = new_game(client, "samsip", ["human", "human", "human", "rules"])
    keys = [data["you"]["key"]] + [i["key"] for i in data["invites"]]
    assert len(set(keys)) == 3 and all(len(k) >= 32 for k in keys)
    assert [i["seat"] for i in data["invites"]] == [1, 2] and data["watch"] is None
    for s, k in enumerate(keys):
        match, seat = store_of(client).lookup(k)
        assert seat == s and match.id not in keys


def test_record_only_once_the_match_is_over(client):
    data = new_game(client, "siantappo", ["human", "rules", "rules", "rules"], {"rounds": 1})
    r = client.get(f"/api/record/{data['you']['key']}")
    assert r.status_code == 409 and "once the match is over" in r.json()["error"]


@pytest.mark.parametrize(
    "body, reason",
    [
        ({"game": "poker", "seats": ["human", "rules"]}, "unknown game"),
        ({"game": "suipi", "seats": ["human", "rules", "rules"]}, "played by 2, 4 players, not 3"),
        ({"game": "suipi", "seats": ["human", "wizard"]}, "not an agent this server offers"),
        ({"game": "suipi", "seats": ["human", "teacher"]}, "suipi has no teacher agent"),
        ({"game": "suipi", "seats": ["human", "runs/none/x.safetensors"]}, "checkpoint paths are refused"),
        ({"game": "suipi", "seats": "human,rules"}, "seats must be a list"),
        ({"game": "suipi", "seats": ["human", "rules"], "options": {"colour": "red"}}, "unknown option 'colour'"),
        ({"game": "suipi", "seats": ["human", "rules"], "options": {"point_game": "12"}}, "point_game"),
        ({"game": "suipi", "seats": ["human", "rules"], "seed": "abc"}, "seed must be"),
        ({"game": "suipi", "seats": ["human", "rules"], "seed": -5}, "seed must be a whole number from 0"),
        ({"game": "suipi", "seats": ["human", "rules"], "pace": 99}, "pace must be"),
        ([1, 2], "send {"),
    ],
)
def test_bad_new_game_requests_get_one_line(client, body, reason):
    r = client.post("/api/games", json=body)
    assert r.status_code == 400
    msg = r.json()["error"]
    assert reason in msg and "\n" not in msg
    assert not store_of(client).matches


def test_model_without_a_shipped_model_is_one_line(client, tmp_path, monkeypatch):
    # a checkout with no models/
    monkeypatch.setattr("cardzoo.training.agents.shipped.package_models_dir", lambda: tmp_path)
    r = client.post("/api/games", json={"game": "suipi", "seats": ["human", "model"]})
    assert r.status_code == 400
    msg = r.json()["error"]
    assert "no shipped model for suipi" in msg and "\n" not in msg
    assert not store_of(client).matches


def _real_checkpoint_elsewhere(tmp_path):
    """A loadable checkpoint outside every model folder (a copy of a shipped one)."""
    import shutil

    from cardzoo.training.agents.shipped import package_models_dir

    for suffix in (".safetensors", ".json"):
        shutil.copy(package_models_dir() / f"suipi-2p{suffix}", tmp_path / f"mine{suffix}")
    return tmp_path / "mine.safetensors"


def test_seats_name_only_agents_the_server_offers_and_never_a_file(client, tmp_path):
    """A browser cannot make the server open a path: /etc/passwd, a real checkpoint elsewhere on the
    disk, relative paths — each refused in one line that names no file, nothing loaded."""
    real = _real_checkpoint_elsewhere(tmp_path)
    probes = [
        "/etc/passwd",
        "/etc/passwd@3",
        str(real),
        str(real)[: -len(".safetensors")],
        "../x",
        "..",
        "..\\x",
        "./models/suipi-2p.safetensors",
        "models/suipi-2p",
        "suipi-2p.safetensors",
        "suipi-2p.json",
        "~/x",
        "C:\\x.safetensors",
        "rules/../../etc/passwd",
        "mine",
        "%2e%2e/x",
    ]
    for probe in probes:
        r = client.post("/api/games", json={"game": "suipi", "seats": ["human", probe]})
        assert r.status_code == 400, probe
        msg = r.json()["error"]
        assert "\n" not in msg and "not an agent this server offers" in msg, (probe, msg)
        for word in ("passwd", "safetensors", str(tmp_path), "mine", "/"):
            assert word not in msg, (probe, msg)
    assert not store_of(client).matches


def test_seats_may_name_the_bots_and_the_offered_models(client, tmp_path, monkeypatch):
    for seat in ["rules", "random@3", "model", "suipi-2p", "suipi-2p@7", "Rules@2"]:
        data = new_game(client, "suipi", ["human", seat])
        assert data["you"]["seat"] == 0, seat
    r = client.post("/api/games", json={"game": "suipi", "seats": ["human", "siantappo"]})
    assert r.status_code == 400 and "model siantappo plays siantappo" in r.json()["error"]
    # a folder given to `cardzoo --models DIR serve` (CARDZOO_MODELS) offers its models by name
    _real_checkpoint_elsewhere(tmp_path)
    r = client.post("/api/games", json={"game": "suipi", "seats": ["human", "mine"]})
    assert r.status_code == 400
    monkeypatch.setenv("CARDZOO_MODELS", str(tmp_path))
    games = {g["name"]: g for g in client.get("/api/catalog").json()["games"]}
    assert {"name": "mine", "players": [2]} in games["suipi"]["named_models"]
    data = new_game(client, "suipi", ["human", "mine@4"])
    match, _ = store_of(client).lookup(data["you"]["key"])
    assert match.seat_kinds()[1]["kind"] == "mine.safetensors@4"
    r = client.post("/api/games", json={"game": "suipi", "seats": ["human", str(tmp_path / "mine.safetensors")]})
    msg = r.json()["error"]  # the path is refused; the model is offered by its name only
    assert r.status_code == 400 and "mine, suipi-2p" in msg and "/" not in msg and "safetensors" not in msg


def test_oversized_malformed_and_cross_site_requests_are_refused(client):
    r = client.post("/api/games", content=b"{" + b" " * 20000 + b"}", headers={"content-type": "application/json"})
    assert r.status_code == 400 and "too large" in r.json()["error"]
    r = client.post("/api/games", content=b"not json", headers={"content-type": "application/json"})
    assert r.status_code == 400 and "must be JSON" in r.json()["error"]
    r = client.post(
        "/api/games", json={"game": "suipi", "seats": ["human", "rules"]}, headers={"origin": "http://evil.example"}
    )
    assert r.status_code == 400 and "own page" in r.json()["error"]
    assert not store_of(client).matches


def test_websockets_from_another_sites_page_are_refused(client):
    data = new_game(client, "suipi", ["human", "rules"])
    from starlette.websockets import WebSocketDisconnect

    with (
        pytest.raises(WebSocketDisconnect),
        client.websocket_connect(f"/ws/{data['you']['key']}", headers={"origin": "http://evil.example"}) as ws,
    ):
        ws.receive_json()
    assert not match_of(client, data["you"]["key"]).sockets


def test_the_page_and_its_assets_are_served_with_no_outside_links(client):
    page = client.get("/")
    assert page.status_code == 200 and "/static/app.js" in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]
    for asset in ("app.js", "style.css", "favicon.svg"):
        r = client.get(f"/static/{asset}")
        assert r.status_code == 200
        text = r.text.replace('xmlns="http://www.w3.org/2000/svg"', "")  # a name, not a link
        assert "http://" not in text and "https://" not in text  # no CDN: works offline
    games = {g["name"]: g for g in client.get("/api/catalog").json()["games"]}
    assert set(games) == {"siantappo", "suipi", "samsip"}
    assert games["suipi"]["players"] == [2, 4]
    rounds = next(o for o in games["siantappo"]["options"] if o["name"] == "rounds")
    want = {"name": "rounds", "default": 5, "kind": "int", "min": 1, "max": 20, "label": "Rounds"}
    assert want.items() <= rounds.items()
    # the seat menu: a shipped model for every count here, and Sam Sip's lookahead player
    assert all(games[g]["model_players"] == games[g]["players"] for g in games)
    assert "teacher" in games["samsip"]["agents"] and "teacher" not in games["suipi"]["agents"]
    # the Rules panel's text: the terminal's rules, without its typing help
    assert games["suipi"]["rules"].startswith("Suipi (Samoan Casino) for 2 players")
    assert all("Input:" not in g["rules"] and "\n- " in g["rules"] for g in games.values())


# ---------------------------------------------------------------------------- watch, replay
def test_a_bots_only_match_can_be_watched_from_any_seat(client):
    data = new_game(client, "siantappo", ["rules", "random", "rules"], {"rounds": 1}, pace=0)
    assert data["you"] is None and data["watch"]
    with client.websocket_connect(f"/ws/{data['watch']}") as ws:
        view = ws.receive_json()["view"]
        assert view["seat"] == 0 and not view["your_turn"]
        send(ws, type="move", ids=[0], version=view["version"])
        send(ws, type="look", seat=2)
        send(ws, type="look", seat=7)
        seen_seats, errors = set(), []
        while True:
            msg = ws.receive_json()
            if msg["type"] == "error":
                errors.append(msg["message"])
                continue
            seen_seats.add(msg["view"]["seat"])
            if msg["view"]["over"] and len(errors) == 2:
                break
    assert any("you are watching" in e for e in errors) and any("seat must be 0..2" in e for e in errors)
    assert 2 in seen_seats


SECOND_PERSON = re.compile(r"\b(you|your)\b", re.I)


def texts(x):
    if isinstance(x, str):
        yield x
    elif isinstance(x, list):
        for i in x:
            yield from texts(i)
    elif isinstance(x, dict):
        for i in x.values():
            yield from texts(i)


@pytest.mark.parametrize(
    "game, seats, options",
    [
        ("siantappo", ["rules", "random", "rules", "random"], {"rounds": 2}),
        ("suipi", ["rules", "random", "rules", "random"], {"match_deals": 1}),
        ("samsip", ["rules", "random", "rules"], {"bankroll": 4}),
    ],
)
def test_watching_and_replaying_name_the_seats_never_you(client, game, seats, options):
    """A watcher or a replay shows a seat that is not the person looking: no "you", "your"."""
    match = Match.create(game, seats, options, seed=5)
    assert match.watch_key
    n = len(seats)
    while True:
        for seat in range(n):
            said = [t for t in texts(match.view(seat)) if SECOND_PERSON.search(t)]
            assert not said, (seat, said)
        if match.over:
            break
        match.play_bot_move()
    r = client.post("/api/replays", json={"text": json.dumps(match.record(), ensure_ascii=False)})
    key = r.json()["key"]
    for k in range(0, match.version + 1, 7):
        view = client.get(f"/api/replays/{key}?move={k}&seat={k % n}").json()
        said = [t for t in texts(view) if SECOND_PERSON.search(t)]
        assert not said, (k, said)
    # a person's own seat still reads "you"
    played = Match.create(game, ["human"] + seats[1:], options, seed=5)
    assert any(SECOND_PERSON.search(t) for t in texts(played.view(0)))


def test_an_uploaded_records_seat_names_do_not_probe_the_disk(client):
    """A recorded seat kind that is a path reads as its file name, whether or not it exists here."""
    match = Match.create("suipi", ["rules", "random"], {"match_deals": 1}, seed=9)
    while not match.over:
        match.play_bot_move()
    rec = {**match.record(), "agents": ["/etc/passwd", "/no/such/dir/passwd@3"]}
    r = client.post("/api/replays", json={"text": json.dumps(rec)})
    assert r.status_code == 200, r.text
    view = client.get(f"/api/replays/{r.json()['key']}?move=0&seat=0").json()
    assert [s["kind"] for s in view["seats"]] == ["passwd", "passwd@3"]


def test_a_saved_record_replays_move_by_move(client):
    match = Match.create("suipi", ["rules", "random"], {"match_deals": 1}, seed=9)
    while not match.over:
        match.play_bot_move()
    text = json.dumps(match.record(), ensure_ascii=False) + "\n"
    r = client.post("/api/replays", json={"text": "\n" + text + text, "game": 2})
    assert r.status_code == 200, r.text
    info = r.json()
    assert info["games"] == 2 and info["moves"] == match.version == 48  # whole moves, not sub-steps
    key = info["key"]
    first = client.get(f"/api/replays/{key}?move=0&seat=1").json()
    assert first["seat"] == 1 and first["replay"] == {
        "move": 0,
        "moves": 48,
        "next_seat": match.log[0]["seat"],
        "sections": [["Deal 1 of 1", 0]],
    }
    mid = client.get(f"/api/replays/{key}?move=10&seat=0").json()
    assert len(mid["log"]) == 10 and mid["moves"] == [] and not mid["over"]
    end = client.get(f"/api/replays/{key}?move=48&seat=0").json()
    assert end["over"] and end["result"]["lines"]
    for query, message in (
        ("move=49&seat=0", "move must be 0..48 (this game has 48 whole moves), not 49"),
        ("move=-1&seat=0", "move must be 0..48 (this game has 48 whole moves), not -1"),
        ("move=0&seat=2", "seat must be 0..1 (this game has 2 players), not 2"),
    ):
        r = client.get(f"/api/replays/{key}?{query}")  # refused, not clamped to a table not asked for
        assert (r.status_code, r.json()["error"]) == (400, message)
    again = client.get(f"/api/replays/{key}?move=10&seat=0").json()  # going back rebuilds the same table
    assert again == mid
    assert client.get(f"/api/replays/{key}?move=x").status_code == 400


@pytest.mark.parametrize(
    "text, game, reason",
    [
        ("not json\n", 1, "line 1: not JSON"),
        ('{"game": "suipi"}\n', 1, "not a game record"),
        ("", 1, "no game records"),
        (None, 1, 'send {"text"'),
    ],
)
def test_bad_record_uploads_get_one_line(client, text, game, reason):
    r = client.post("/api/replays", json={"text": text, "game": game})
    assert r.status_code == 400 and reason in r.json()["error"]


def test_a_record_with_wrong_rewards_or_game_number_is_refused(client):
    match = Match.create("samsip", ["rules", "rules"], {"bankroll": 3}, seed=2)
    while not match.over:
        match.play_bot_move()
    rec = match.record()
    r = client.post("/api/replays", json={"text": json.dumps(rec), "game": 2})
    assert r.status_code == 400 and "game must be 1..1" in r.json()["error"]
    rec["rewards"] = [5.0, -5.0]
    r = client.post("/api/replays", json={"text": json.dumps(rec), "game": 1})
    assert r.status_code == 400 and "differ from the recorded" in r.json()["error"]
    for field, value, reason in [
        ("rewards", [None, None], "'rewards' must be a list of numbers"),
        ("agents", 5, "'agents' must be a list"),
        ("agents", {"a": 1}, "'agents' must be a list"),
    ]:
        r = client.post("/api/replays", json={"text": json.dumps({**rec, field: value}), "game": 1})
        assert r.status_code == 400 and reason in r.json()["error"], (field, value)  # as found: a 500
    rec["moves"][0]["seat"] = 99
    r = client.post("/api/replays", json={"text": json.dumps(rec), "game": 1})
    assert r.status_code == 400 and "the record says player_99 moves" in r.json()["error"]


# ---------------------------------------------------------------------------- cleanup, threads
def test_finished_and_abandoned_matches_are_cleaned_up():
    limits = Limits(finished_ttl=10, abandoned_ttl=100, idle_ttl=1000, replay_ttl=50)
    with TestClient(create_app(limits=limits)) as client:
        store = store_of(client)
        done = new_game(client, "siantappo", ["human", "rules", "rules", "rules"], {"rounds": 1})
        left = new_game(client, "suipi", ["human", "rules"], seed=3)
        play_to_the_end(client, done["you"]["key"], 0, random.Random(1))
        finished, abandoned = match_of(client, done["you"]["key"]), match_of(client, left["you"]["key"])
        t = finished.finished_at
        abandoned.last_active = t
        assert store.expired(t + 5) == ([], [])
        assert store.sweep(t + 11) == [finished]
        assert store.lookup(done["you"]["key"]) is None and store.lookup(left["you"]["key"])
        assert store.sweep(t + 101) == [abandoned] and not store.matches and not store.keys
        with client.websocket_connect(f"/ws/{left['you']['key']}") as ws:
            assert "unknown or expired" in ws.receive_json()["message"]


def test_the_server_refuses_new_matches_when_full():
    with TestClient(create_app(limits=Limits(max_matches=2))) as client:
        for _ in range(2):
            new_game(client, "suipi", ["human", "rules"])
        r = client.post("/api/games", json={"game": "suipi", "seats": ["human", "rules"]})
        assert r.status_code == 503 and "try again later" in r.json()["error"]


class BlockingBot:
    """A bot that answers only once another match has answered its player. The test releases it
    on every path (its wait's limit only stops a hung test, whatever the machine's load)."""

    def __init__(self, inner, release: threading.Event):
        self.inner, self.release = inner, release
        self.waited: bool | None = None

    def act(self, observation, action_mask):
        if self.waited is None:
            self.waited = self.release.wait(timeout=600)
        return self.inner.act(observation, action_mask)


def test_bots_think_off_the_event_loop(client):
    """While one match's bot is thinking, another match answers its player at once."""
    for seed in range(1, 50):  # a deal where a bot leads, so the slow match starts with a bot
        slow = new_game(client, "siantappo", ["rules", "human", "rules"], {"rounds": 1}, seed=seed)
        slow_match = match_of(client, slow["you"]["key"])
        if slow_match.acting() != 1:
            break
    fast = new_game(client, "suipi", ["human", "rules"], seed=2)
    release = threading.Event()
    blockers = [BlockingBot(slow_match.agents[s], release) for s in (0, 2)]
    slow_match.agents[0], slow_match.agents[2] = blockers
    with client.websocket_connect(f"/ws/{slow['you']['key']}") as ws_slow:
        ws_slow.receive_json()  # connecting starts the slow match's bots: they wait
        try:
            with client.websocket_connect(f"/ws/{fast['you']['key']}") as ws_fast:
                view = ws_fast.receive_json()["view"]
                if not view["your_turn"]:
                    view = ws_fast.receive_json()["view"]
                send(ws_fast, type="move", ids=view["moves"][0]["ids"], version=view["version"])
                assert ws_fast.receive_json()["view"]["version"] == view["version"] + 1
                assert slow_match.version == 0  # the slow bot is still thinking
        finally:
            release.set()  # only now may the slow bots answer
        msg = ws_slow.receive_json()
        assert msg["type"] == "state" and msg["view"]["version"] >= 1
    assert any(b.waited is True for b in blockers)


@pytest.mark.parametrize(
    "game,seats,options",
    [
        ("siantappo", ["human", "rules", "rules", "rules"], {}),
        ("suipi", ["human", "human"], {"match_deals": 1}),
        ("samsip", ["human", "rules", "rules", "rules"], {}),
    ],
)
def test_a_hint_names_legal_moves_of_the_seat_on_its_turn_and_changes_nothing(client, game, seats, options):
    data = new_game(client, game, seats, options, seed=5)
    keys = [data["you"], *data.get("invites", [])]
    match = match_of(client, keys[0]["key"])
    humans = {k["seat"]: k for k in keys}
    acting = humans.get(match.acting(), keys[0])  # when a bot moves first, the first human waits for its turn
    with client.websocket_connect(f"/ws/{acting['key']}") as ws:
        view = ws.receive_json()["view"]
        while not view["your_turn"]:
            view = ws.receive_json()["view"]
        before = state_of(match)
        send(ws, type="hint", version=view["version"])
        hint = ws.receive_json()
        assert hint["type"] == "hint" and hint["version"] == view["version"] and 1 <= len(hint["moves"]) <= 3
        legal = {tuple(m["ids"]): m["text"] for m in view["moves"]}
        assert all(tuple(m["ids"]) in legal and m["text"] == legal[tuple(m["ids"])] for m in hint["moves"])
        assert [m["rank"] for m in hint["moves"]] == list(range(1, len(hint["moves"]) + 1))
        assert hint["moves"][0]["label"] == "best" and "from your cards" in hint["note"]
        assert all(set(m) == {"ids", "text", "rank", "label", "alike"} for m in hint["moves"])  # words, no RL numbers
        assert state_of(match) == before
        for msg, reason in (
            (dict(type="hint"), "needs the version"),
            (dict(type="hint", version=view["version"] - 1), "stale hint"),
        ):
            send(ws, **msg)
            reply = ws.receive_json()
            assert reply["type"] == "error" and reason in reply["message"]
    if len(keys) > 1:  # the seat not on its turn gets no hint
        idle = next(k for k in keys if k["seat"] != acting["seat"])
        with client.websocket_connect(f"/ws/{idle['key']}") as ws:
            view = ws.receive_json()["view"]
            send(ws, type="hint", version=view["version"])
            assert "your own turn" in ws.receive_json()["message"]


def test_the_hard_level_is_the_expert_and_it_plays_a_whole_match(client):
    """The seat menu offers difficulty levels (easy rules, medium model, hard expert); an expert
    seat plays through the server's match like any bot."""
    cat = client.get("/api/catalog").json()
    assert cat["levels"] == {"random": "beginner", "rules": "easy", "model": "medium", "expert": "hard"}
    levels = {g["name"]: g["levels"] for g in cat["games"]}  # where the expert is not shown stronger, it says so
    assert levels["siantappo"] == levels["suipi"] == cat["levels"]
    assert levels["samsip"] == {**cat["levels"], "expert": "slow, not yet stronger than medium"}
    assert all("expert" in g["agents"] for g in cat["games"])
    data = new_game(client, "samsip", ["expert", "rules"], {"bankroll": 3}, pace=0)
    with client.websocket_connect(f"/ws/{data['watch']}") as ws:
        while not (msg := ws.receive_json()).get("view", {}).get("over"):
            assert msg["type"] != "error", msg
    r = client.post("/api/games", json={"game": "suipi", "seats": ["human", "expert:3"]})
    assert r.status_code == 400 and "not an agent this server offers" in r.json()["error"]


# ---------------------------------------------------------------------------- undo, rematch
def next_turn(ws):
    """The views until the seat is to move again (or the match is over); the last one."""
    while True:
        msg = ws.receive_json()
        assert msg["type"] == "state", msg
        if msg["view"]["your_turn"] or msg["view"]["over"]:
            return msg["view"]


@pytest.mark.parametrize(
    "game, seats, options",
    [
        ("siantappo", ["human", "rules", "rules", "rules"], {"rounds": 1}),
        ("suipi", ["human", "rules"], {"match_deals": 1}),
        ("samsip", ["rules", "human", "rules"], {"bankroll": 4}),
    ],
)
def test_undo_takes_back_your_move_and_the_bot_moves_after_it(client, game, seats, options):
    data = new_game(client, game, seats, options, seed=5)
    match = match_of(client, data["you"]["key"])
    with client.websocket_connect(f"/ws/{data['you']['key']}") as ws:
        view = ws.receive_json()["view"]
        if not view["your_turn"]:
            view = next_turn(ws)
        send(ws, type="undo")
        assert "nothing to undo" in ws.receive_json()["message"]
        send(ws, type="move", ids=view["moves"][0]["ids"], version=view["version"])
        before = next_turn(ws)  # the table at your second move
        steps = [dict(e) for e in match.steps]
        send(ws, type="move", ids=before["moves"][-1]["ids"], version=before["version"])
        after = next_turn(ws)
        assert after["version"] > before["version"] + 1  # the bots moved after you
        send(ws, type="undo")
        back = ws.receive_json()
        assert back["type"] == "state" and back["view"]["version"] > after["version"]  # never a version again
        assert {**back["view"], "version": before["version"]} == before  # the very table, log and moves
        assert match.steps == steps and match.version == back["view"]["version"]
        # the match goes on from there, and its record still replays to its rewards
        send(ws, type="move", ids=before["moves"][-1]["ids"], version=back["view"]["version"])
        assert next_turn(ws)["version"] > back["view"]["version"]
    assert match.totals == [
        sum(float(e.get("rewards", {}).get(str(s), 0)) for e in match.steps) for s in range(len(seats))
    ]


def test_a_move_from_before_an_undo_is_stale_even_where_the_log_is_as_long(client):
    """As found: Siantappo seed 1, a person and three rule bots: play 10♥, pass (at version 6),
    undo twice, play J♥; the log is as long as when the pass was chosen, and a pass is legal
    again. The pass sent again with its old version was taken: versions must never repeat."""
    data = new_game(client, "siantappo", ["human", "rules", "rules", "rules"], {}, seed=dealt_by(1))
    match = match_of(client, data["you"]["key"])

    def play(ws, view, text):
        ids = next(m["ids"] for m in view["moves"] if m["text"] == text)
        send(ws, type="move", ids=ids, version=view["version"])
        return ids, next_turn(ws)

    with client.websocket_connect(f"/ws/{data['you']['key']}") as ws:
        view = next_turn(ws)
        _, view = play(ws, view, "10♥")
        assert view["version"] == 6
        passed, seen = play(ws, view, "pass")
        versions = {2, 6, seen["version"]}
        for _ in range(2):
            send(ws, type="undo")
            view = ws.receive_json()["view"]
            assert view["version"] not in versions
            versions.add(view["version"])
        _, view = play(ws, view, "J♥")
        assert len(view["log"]) == 6 and [m["text"] for m in view["moves"]] == ["pass"]
        assert view["version"] not in versions
        before = (match.version, list(match.steps))
        send(ws, type="move", ids=passed, version=6)
        reply = ws.receive_json()
        assert reply["type"] == "error" and reply["message"].startswith("stale move: it was chosen on table version 6,")
        assert (match.version, match.steps) == before


def test_undo_is_refused_in_one_line_unless_every_other_seat_is_a_bot(client):
    data = new_game(client, "suipi", ["human", "human"], {"match_deals": 1}, seed=4)
    with client.websocket_connect(f"/ws/{data['you']['key']}") as ws:
        ws.receive_json()
        send(ws, type="undo")
        reply = ws.receive_json()
        assert reply["type"] == "error" and reply["message"] == "undo is for a match where every other seat is a bot"
    watched = new_game(client, "suipi", ["rules", "rules"], {"match_deals": 1}, seed=4)
    with client.websocket_connect(f"/ws/{watched['watch']}") as ws:
        ws.receive_json()
        send(ws, type="undo")
        while (msg := ws.receive_json())["type"] == "state":  # the bots play on meanwhile
            pass
        assert msg["message"] == "you are watching: bots play every seat"


def test_a_rematch_has_the_same_seats_and_options_and_a_new_seed(client):
    data = new_game(client, "siantappo", ["human", "rules", "random", "rules"], {"rounds": 1}, seed=5)
    old = match_of(client, data["you"]["key"])
    with client.websocket_connect(f"/ws/{data['you']['key']}") as ws:
        send(ws, type="rematch")
        while (msg := ws.receive_json())["type"] != "error":
            pass
        assert msg["message"] == "a rematch is for a match that is over"
    play_to_the_end(client, data["you"]["key"], data["you"]["seat"], random.Random(1))
    with client.websocket_connect(f"/ws/{data['you']['key']}") as ws:
        ws.receive_json()
        send(ws, type="rematch")
        reply = ws.receive_json()
    assert reply["type"] == "rematch" and reply["game"] == "siantappo" and reply["invites"] == []
    new = match_of(client, reply["you"]["key"])
    assert new is not old and reply["you"]["seat"] == 0
    assert new.specs == old.specs and new.options == old.options == {"rounds": 1}
    assert new.version == 0 and not new.over


def test_the_cards_you_selected_are_played_kept_in_the_record_and_replayed_by_undo(client):
    """Siantappo seed 42: you lead holding 8♥ 9♦ 10♦ 10♥ J♦. ``cards`` with a move play exactly
    those cards (the id alone would play 10♦); the record keeps them, undo replays them, and cards
    that are not the move are refused in one line with nothing changed."""
    data = new_game(client, "siantappo", ["human", "rules", "rules", "rules"], {"rounds": 1}, seed=42)
    key = data["you"]["key"]
    match = match_of(client, key)
    with client.websocket_connect(f"/ws/{key}") as ws:
        view = ws.receive_json()["view"]
        straight = next(m for m in view["moves"] if m["text"] == "9♦ 10♦ J♦")
        assert straight["exact"] and any("10♥" in ids for ids, _ in straight["choose"])
        send(ws, type="move", ids=straight["ids"], version=view["version"], cards=["9♦", "10♠", "J♦"])
        assert ws.receive_json()["message"] == "you do not hold 10♠"
        send(ws, type="move", ids=straight["ids"], version=view["version"], cards=["10♦", "10♥"])
        assert ws.receive_json()["message"].startswith("10♦ 10♥ is not the move 9♦ 10♦ J♦")
        send(ws, type="move", ids=straight["ids"], version=view["version"], cards=["9♦", "10♥", "J♦"])
        view = ws.receive_json()["view"]
        assert view["log"][0]["text"].startswith("9♦ 10♥ J♦ (straight)")
        assert "10♦" in [c["card"] for c in view["hand"]["cards"]]
        assert match.steps[0]["cards"] == "9♦ 10♥ J♦"
        while not view["your_turn"]:  # the bots' answers
            view = ws.receive_json()["view"]
        send(ws, type="move", ids=view["moves"][-1]["ids"], version=view["version"])  # a second move
        view = ws.receive_json()["view"]
        while not view["your_turn"]:
            view = ws.receive_json()["view"]
        send(ws, type="undo")  # the table is rebuilt along the record: the chosen cards again
        view = ws.receive_json()["view"]
        hand = [c["card"] for c in view["hand"]["cards"]]
    assert "10♦" in hand and "10♥" not in hand and match.steps[0]["cards"] == "9♦ 10♥ J♦"


@pytest.mark.parametrize(
    "game, options", [("siantappo", {"rounds": 2}), ("suipi", {"match_deals": 1}), ("samsip", {"bankroll": 3})]
)
def test_undo_never_takes_back_a_move_that_showed_you_hidden_cards(game, options):
    """A new deal, a card drawn or received: once a move showed you cards, undo stops after it
    (scripts/takeback.py), in every game; before that it takes your last move back."""
    from cardzoo.scripts.serve.match import MoveRefused

    match = Match.create(game, ["human", "rules"] + (["rules"] if game == "siantappo" else []), options, seed=3)
    rng = random.Random(3)
    stops = 0
    while not match.over and stops < 3:
        while match.bot_to_move():
            match.play_bot_move()
        if match.over:
            break
        view = match.view(0)
        revealed = [i for i, e in enumerate(match.log) if 0 in e["reveals"]]
        mine = [i for i, e in enumerate(match.log) if e["seat"] == 0]
        if mine and revealed and revealed[-1] >= mine[-1]:
            stops += 1
            assert not view["can_undo"] and view["undo_stop"].startswith("undo stops here")
            with pytest.raises(MoveRefused, match="undo stops here"):
                match.undo(0)
        elif mine:
            assert view["can_undo"]
        move = rng.choice(view["moves"])
        checked, chosen = match.check_move(0, move["ids"], match.version)
        match.apply(0, checked, chosen)
    assert stops, "no move showed player_0 hidden cards"


def test_every_rule_option_has_a_players_name_and_a_line_of_help():
    """The new-game form's words (scripts/serve/rule_words.py) cover every field of every game's
    config; a text option lists its choices, each one the config accepts."""
    from cardzoo.envs.registry import game_module
    from cardzoo.scripts.serve.catalog import catalog
    from cardzoo.scripts.serve.rule_words import WORDS

    for g in catalog()["games"]:
        spec = game_module(g["name"])
        for o in g["options"]:
            assert o["name"] in WORDS[g["name"]], (g["name"], o["name"])
            assert o["label"] and "_" not in o["label"] and o["help"], (g["name"], o)
            for value, words in o.get("choices", []):
                spec.Config(**{o["name"]: value})  # the config takes every choice
                assert words
            if o.get("choices"):
                assert o["default"] in [v for v, _ in o["choices"]]
        assert {o["name"] for o in g["options"] if o["advanced"]} >= ({"reward"} & {o["name"] for o in g["options"]})
