"""Property-based fuzzing of `cardzoo serve` (Hypothesis): random and malformed bodies, queries and
WebSocket messages never give a 500, a traceback or a dropped connection — every refusal is one
line of the documented shape (``{"error": ...}`` over HTTP, ``{"type": "error", "message": ...}``
on a WebSocket) and changes nothing. See docs/serve.md, Security.

Kept small (a few seconds): modest ``max_examples``, no deadline (the first request loads code).
"""

from __future__ import annotations

import json
import logging
import warnings
from urllib.parse import quote

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
hypothesis = pytest.importorskip("hypothesis")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

warnings.filterwarnings("ignore", message=".*httpx.*", category=DeprecationWarning)
from starlette.testclient import TestClient  # noqa: E402

from cardzoo.scripts.serve.app import MAX_MESSAGE, create_app  # noqa: E402
from cardzoo.scripts.serve.jsoncheck import MAX_DEPTH, json_depth_ok  # noqa: E402

FUZZ = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

# JSON values of any shape, shallow and deep, with the words the server looks for
WORDS = st.sampled_from(
    [
        "human",
        "rules",
        "random",
        "model",
        "teacher",
        "suipi",
        "siantappo",
        "samsip",
        "/etc/passwd",
        "../x",
        "rules@7",
        "suipi-2p",
        "move",
        "look",
        "ping",
        "ids",
        "version",
        "seat",
        "game",
        "seats",
        "options",
        "seed",
        "pace",
        "text",
        "",
    ]
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(-3, 70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
    WORDS,
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=6), st.dictionaries(st.one_of(WORDS, st.text(max_size=8)), inner, max_size=6)
    ),
    max_leaves=30,
)
KEYS = ["game", "seats", "options", "seed", "pace"]


def deep(depth: int, opener: str = "[") -> str:
    """``depth`` nested arrays (or objects) around a 1."""
    closer = {"[": "]", "{": "}"}[opener]
    return (opener + ('"a": ' if opener == "{" else "")) * depth + "1" + closer * depth


COUNTS = {"siantappo": [3, 4, 5, 6], "suipi": [2, 4], "samsip": [2, 3, 4, 5, 6]}


@st.composite
def valid_bodies(draw):
    """New-game requests the server must accept: a game, a seat per player of the agents it offers."""
    game = draw(st.sampled_from(sorted(COUNTS)))
    n = draw(st.sampled_from(COUNTS[game]))
    body = {
        "game": game,
        "seats": draw(st.lists(st.sampled_from(["human", "rules", "random"]), min_size=n, max_size=n)),
    }
    if draw(st.booleans()):
        body["seed"] = draw(st.integers(0, 2**62 - 1))
    return body


@st.composite
def new_game_bodies(draw):
    """Mostly well-formed new-game requests with random parts (reach the checks past the first)."""
    body = {k: draw(VALUES) for k in draw(st.lists(st.sampled_from(KEYS), unique=True))}
    if draw(st.booleans()):
        body["game"] = draw(st.sampled_from(["siantappo", "suipi", "samsip"]))
        n = draw(st.integers(0, 7))
        body["seats"] = draw(st.lists(st.one_of(WORDS, st.text(max_size=12)), min_size=n, max_size=n))
        if draw(st.booleans()):
            body["options"] = draw(
                st.dictionaries(
                    st.sampled_from(
                        [
                            "rounds",
                            "match_deals",
                            "bankroll",
                            "max_hands",
                            "point_game",
                            "colour",
                            "auto_declare",
                            "swap_choice",
                        ]
                    ),
                    VALUES,
                    max_size=3,
                )
            )
    return body


RAW = st.one_of(
    st.binary(max_size=300),
    st.text(max_size=300).map(str.encode),
    st.integers(1, 3000).map(lambda d: deep(d).encode()),
    st.integers(1, 3000).map(lambda d: deep(d, "{").encode()),
    st.integers(1, 2000).map(lambda d: ("[" * d).encode()),
    VALUES.map(lambda v: json.dumps(v).encode()),
)


def check_refusal(r):
    assert r.status_code < 500, r.text
    if r.status_code >= 400:
        msg = r.json()["error"]
        assert isinstance(msg, str) and msg and "\n" not in msg and "Traceback" not in msg


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app()) as c:  # raises any server exception in the test
        yield c


@pytest.fixture(autouse=True)
def no_tracebacks(caplog):
    yield
    bad = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert not bad, bad[0].getMessage()


def test_the_depth_check_matches_the_nesting():
    assert json_depth_ok(deep(MAX_DEPTH)) and not json_depth_ok(deep(MAX_DEPTH + 1))
    assert json_depth_ok('["' + "[" * 5000 + '"]')  # brackets inside a string do not nest
    assert json_depth_ok('"\\"' + "[" * 5000)  # nor in an unterminated one (the parser refuses it)
    assert not json_depth_ok("[" * 100_000)


@FUZZ
@given(
    body=st.one_of(
        new_game_bodies(),
        VALUES.map(lambda v: {"game": "suipi", "seats": v}),
        valid_bodies().map(lambda b: {**b, "_valid": True}),
    )
)
def test_new_game_json_never_fails_the_server(client, body):
    valid = body.pop("_valid", False)
    # encoded here, not by the client: NaN and infinities go out as the bare tokens a hostile
    # client could send (the test client's own encoder refuses them)
    r = client.post("/api/games", content=json.dumps(body), headers={"content-type": "application/json"})
    check_refusal(r)
    assert r.status_code == 200 or not valid, r.text  # a well-formed request is a new match
    if r.status_code == 200:
        assert r.json()["players"] == len(body["seats"])
    store = client.app.state.store
    for m in list(store.matches.values()):
        store.remove_match(m)


@FUZZ
@given(raw=RAW, path=st.sampled_from(["/api/games", "/api/replays"]))
def test_malformed_bodies_never_fail_the_server(client, raw, path):
    check_refusal(client.post(path, content=raw, headers={"content-type": "application/json"}))


@FUZZ
@given(
    text=st.one_of(
        st.text(max_size=200),
        VALUES.map(json.dumps),
        st.integers(1, 3000).map(deep),
        st.lists(VALUES, max_size=4).map(lambda vs: "\n".join(json.dumps(v) for v in vs)),
    ),
    game=st.one_of(st.integers(-2, 3), VALUES),
)
def test_record_uploads_never_fail_the_server(client, text, game):
    check_refusal(client.post("/api/replays", json={"text": text, "game": game}))


@FUZZ
@given(key=st.text(max_size=40), move=st.text(max_size=12), seat=st.text(max_size=12))
def test_lookups_never_fail_the_server(client, key, move, seat):
    path = "/api/record/" + quote(key, safe="")
    check_refusal(client.get(path))
    check_refusal(client.post(path))
    check_refusal(client.get("/api/replays/x", params={"move": move, "seat": seat}))


def test_replay_queries_never_fail_the_server(client):
    import random

    from tests.test_serve_api import new_game, play_to_the_end

    data = new_game(client, "suipi", ["human", "rules"], {"match_deals": 1})
    play_to_the_end(client, data["you"]["key"], 0, random.Random(1))
    text = client.get(f"/api/record/{data['you']['key']}").text
    key = client.post("/api/replays", json={"text": text}).json()["key"]

    @FUZZ
    @given(move=st.one_of(st.integers(), st.text(max_size=8)), seat=st.one_of(st.integers(), st.text(max_size=8)))
    def query(move, seat):
        check_refusal(client.get(f"/api/replays/{key}", params={"move": move, "seat": seat}))

    query()


MESSAGES = st.one_of(
    st.text(max_size=200),
    VALUES.map(json.dumps),
    st.fixed_dictionaries(
        {"type": st.sampled_from(["move", "look", "ping"])}, optional={"ids": VALUES, "version": VALUES, "seat": VALUES}
    ).map(json.dumps),
    st.integers(1, MAX_MESSAGE // 2).map(deep),
    st.integers(1, MAX_MESSAGE).map(lambda d: "[" * d),
    st.integers(MAX_MESSAGE - 10, MAX_MESSAGE + 10).map(lambda n: "[" * n),
)


@pytest.mark.parametrize("seats", [["human", "rules"], ["rules", "rules"]], ids=["player", "watcher"])
def test_websocket_messages_never_drop_the_connection(client, seats):
    """Random messages on one connection: each is refused (or answered), and the connection and
    the match live on — a ping after each still gets its pong at the same version."""
    data = client.post("/api/games", json={"game": "suipi", "seats": seats, "seed": 5}).json()
    key = data["you"]["key"] if data["you"] else data["watch"]
    match, _ = client.app.state.store.lookup(key)
    match.pace = 1000.0  # a watched match: one bot move, then a long pause
    with client.websocket_connect(f"/ws/{key}") as ws:
        ws.receive_json()

        @FUZZ
        @given(text=MESSAGES)
        def message(text):
            ws.send_text(text)
            ws.send_text('{"type": "ping"}')
            while True:  # the answer to the message (if any), states, then the pong
                reply = ws.receive_json()
                assert set(reply) <= {"type", "message", "version", "view"}, reply
                assert reply["type"] in ("error", "pong", "state"), reply
                if reply["type"] == "error":
                    assert reply["message"] and "\n" not in reply["message"], reply
                if reply["type"] == "pong":
                    break

        message()
    assert not match.failed


def test_the_reported_nesting_is_a_one_line_refusal(client):
    """As found: a 4,000-character message of nested brackets, and nested JSON bodies."""
    data = client.post("/api/games", json={"game": "suipi", "seats": ["human", "rules"], "seed": 5}).json()
    with client.websocket_connect(f"/ws/{data['you']['key']}") as ws:
        ws.receive_json()
        for text in ["[" * 2000 + "]" * 2000, "[" * 4000, '{"type": "move", "ids": ' + deep(1500) + "}"]:
            ws.send_text(text)
            while (reply := ws.receive_json())["type"] == "state":
                pass
            assert reply["type"] == "error" and "nested too deeply" in reply["message"]
        ws.send_text('{"type": "ping"}')
        assert ws.receive_json()["type"] == "pong"
    for path, body in [
        ("/api/games", deep(3000)),
        ("/api/games", '{"game": ' + deep(1500, "{") + "}"),
        ("/api/replays", '{"text": "x", "game": ' + deep(3000) + "}"),
    ]:
        r = client.post(path, content=body.encode(), headers={"content-type": "application/json"})
        assert r.status_code == 400 and "nested too deeply" in r.json()["error"]
    line = json.dumps({"game": "suipi"})[:-1] + ', "x": ' + deep(3000) + "}"
    r = client.post("/api/replays", json={"text": line})
    assert r.status_code == 400 and r.json()["error"] == f"line 1: nested too deeply (at most {MAX_DEPTH} levels)"
