"""A bounded soak of `cardzoo serve` (issue 57, "Done when" b): Hypothesis draws new-game requests
(good ones within the web's ranges, and bad option values) and, for each match it gets, a session
of client actions — legal moves, stale and repeated moves, undo, reconnecting, looking, garbage —
against one server. Nothing may give a 500, a traceback or a log line at ERROR; every refusal is one
line naming no server path; the versions a seat sees never go back (an undo gives a new one); and
after the sweep no match is left in memory and the process's RSS is flat (printed, and checked with
a generous bound: the same workload twice must not grow it).

The default run plays a few dozen matches; ``-m slow`` plays hundreds.
"""

from __future__ import annotations

import gc
import json
import logging
import time
import warnings
import weakref

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
pytest.importorskip("hypothesis")

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

warnings.filterwarnings("ignore", message=".*httpx.*", category=DeprecationWarning)
from starlette.testclient import TestClient  # noqa: E402

from cardzoo.scripts.serve.app import create_app  # noqa: E402
from cardzoo.scripts.serve.limits import WEB_OPTION_RANGES, Limits  # noqa: E402

COUNTS = {"siantappo": [3, 4, 5, 6], "suipi": [2, 4], "samsip": [2, 3, 4, 5, 6]}
SMALL = {"siantappo": {"rounds": 1}, "suipi": {"match_deals": 1}, "samsip": {"bankroll": 3}}
MAX_STATES = 300  # states read while bots move before the client stops waiting (and leaves)
RSS_GROWTH = 300 * 2**20  # bytes: generous; a leak of matches grows far beyond it in the slow run
ACTIONS = ["move", "move", "move", "stale", "repeat", "undo", "reconnect", "garbage", "look", "ping"]
GARBAGE = [
    "not json",
    "[1, 2]",
    '{"type": "fly"}',
    '{"type": "move"}',
    '{"type": "move", "ids": [true], "version": 0}',
    '{"type": "move", "ids": [1], "version": 1.5}',
    '{"type": "look", "seat": 99}',
    "[" * 40 + "]" * 40,
    '{"type": "move", "ids": ' + json.dumps(list(range(100))) + ', "version": 0}',
    '{"type": "rematch"}',
]


def in_range_options(game: str):
    """Rule options a web client may ask for: the small defaults of the tests, or any value in
    the web's ranges (bots then play long matches, which a closed socket pauses)."""
    ranges = WEB_OPTION_RANGES[game]
    any_in_range = st.fixed_dictionaries({}, optional={k: st.integers(lo, hi) for k, (lo, hi) in ranges.items()})
    return st.one_of(
        st.just(SMALL[game]), any_in_range.filter(lambda o: o.get("special_multiplier", 1) <= o.get("bankroll", 100))
    )


def bad_options(game: str):
    """One option the server must refuse: out of the web's range, the wrong type, or unknown."""
    ranges = WEB_OPTION_RANGES[game]
    key = st.sampled_from(sorted(ranges))
    out_of_range = key.flatmap(
        lambda k: st.one_of(st.integers(ranges[k][1] + 1, 10**12), st.integers(-(10**12), ranges[k][0] - 1)).map(
            lambda v: {k: v}
        )
    )
    wrong = key.flatmap(lambda k: st.sampled_from([[1, "x"], {"a": 1}, "1e999", "abc", None]).map(lambda v: {k: v}))
    unknown = st.sampled_from([{"no_such_option": 1}, {"num_players": 4}])
    return st.one_of(out_of_range, wrong, unknown)


@st.composite
def scenarios(draw):
    """(new-game body, whether it must be refused, the client's actions)."""
    game = draw(st.sampled_from(sorted(COUNTS)))
    n = draw(st.sampled_from(COUNTS[game]))
    kind = draw(st.sampled_from(["one person", "one person", "two people", "bots only"]))
    bots = draw(st.lists(st.sampled_from(["rules", "random"]), min_size=n, max_size=n))
    seats = bots if kind == "bots only" else ["human"] + bots[1:]
    if kind == "two people":
        seats[-1] = "human"
    bad = draw(st.booleans()) and draw(st.booleans())
    options = draw(bad_options(game) if bad else in_range_options(game))
    body = {"game": game, "seats": seats, "options": options, "seed": draw(st.integers(0, 10**6)), "pace": 0}
    actions = draw(st.lists(st.tuples(st.sampled_from(ACTIONS), st.integers(0, 10**6)), min_size=6, max_size=16))
    return body, bad, actions


def rss() -> int | None:
    """This process's resident memory in bytes (None where /proc is missing)."""
    try:
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmRSS:"))
    except (OSError, StopIteration):
        return None


class Session:
    """One browser on one seat's (or a watcher's) socket, checking every message it gets."""

    def __init__(self, client, key: str):
        self.client, self.key = client, key
        self.sent_move: str | None = None
        self.versions: list[int] = []
        self.open()

    def open(self) -> None:
        self.ctx = self.client.websocket_connect(f"/ws/{self.key}")
        self.ws = self.ctx.__enter__()
        self.view = self.read()["view"]

    def close(self) -> None:
        self.ctx.__exit__(None, None, None)

    def read(self) -> dict:
        msg = self.ws.receive_json()
        assert msg["type"] in ("state", "error", "pong", "rematch"), msg
        if msg["type"] == "error":
            text = msg["message"]
            assert text and "\n" not in text and "Traceback" not in text and "/work" not in text, msg
        if msg["type"] == "state":
            version = msg["view"]["version"]
            assert not self.versions or version >= self.versions[-1], (self.versions[-5:], version)
            self.versions.append(version)
            self.view = msg["view"]
        return msg

    def drain(self) -> list[dict]:
        """Every message up to the answer to a ping (bots may still be moving afterwards)."""
        self.ws.send_text('{"type": "ping"}')
        got = []
        while (msg := self.read())["type"] != "pong":
            got.append(msg)
        return got

    def bots_move(self) -> bool:
        v = self.view
        kinds = {s["seat"]: s["kind"] for s in v["seats"]}
        return not v["over"] and not v["prompt"].startswith("The match stopped") and kinds.get(v["turn"]) != "human"

    def wait_for_people(self) -> None:
        """Read the bots' moves until a person is to move (or the match ends), at most MAX_STATES."""
        for _ in range(MAX_STATES):
            if not self.bots_move():
                return
            self.read()

    def act(self, action: str, pick: int) -> None:
        v = self.view
        if action == "move" and v["your_turn"] and v["moves"]:
            self.sent_move = json.dumps(
                {"type": "move", "ids": v["moves"][pick % len(v["moves"])]["ids"], "version": v["version"]}
            )
            self.ws.send_text(self.sent_move)
            self.read()
            self.wait_for_people()
        elif action in ("stale", "repeat"):
            if action == "stale" and v["moves"]:
                text = json.dumps({"type": "move", "ids": v["moves"][0]["ids"], "version": v["version"] - 1 - pick % 5})
            elif self.sent_move:
                text = self.sent_move
            else:
                return
            version = v["version"]
            self.ws.send_text(text)
            replies = self.drain()
            assert any(m["type"] == "error" for m in replies), replies  # refused, whatever else happens
            assert all(m["type"] != "state" for m in replies) or not self.bots_move() or self.view["version"] >= version
        elif action == "undo":
            before = max(self.versions)
            self.ws.send_text('{"type": "undo"}')
            msg = self.read()
            if msg["type"] == "state":
                assert msg["view"]["version"] > before  # a new version, never an old one
            self.wait_for_people()
        elif action == "reconnect":
            self.close()
            self.open()
            self.wait_for_people()
        elif action == "garbage":
            self.ws.send_text(GARBAGE[pick % len(GARBAGE)])
            self.drain()
        elif action == "look":
            self.ws.send_text(json.dumps({"type": "look", "seat": pick % v["num_players"]}))
            self.drain()
        else:
            self.drain()


def run_scenario(client, scenario, made: weakref.WeakSet) -> None:
    body, bad, actions = scenario
    r = client.post("/api/games", json=body)
    assert r.status_code < 500, r.text
    if bad:
        assert r.status_code == 400, r.text
        msg = r.json()["error"]
        assert msg and "\n" not in msg and "/" not in msg.replace("true/false", ""), msg
        return
    assert r.status_code == 200, r.text
    data = r.json()
    key = data["you"]["key"] if data["you"] else data["watch"]
    match, _ = client.app.state.store.lookup(key)
    made.add(match)
    session = Session(client, key)
    try:
        session.wait_for_people()
        for action, pick in actions:
            session.act(action, pick)
    finally:
        session.close()


def soak(examples: int, capsys) -> None:
    """The same drawn workload twice against one server, each followed by the sweep; memory after
    the second equals memory after the first, up to the bound."""
    made: weakref.WeakSet = weakref.WeakSet()
    workload = settings(
        max_examples=examples, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck)
    )
    # every match is held until the sweep; shrinking a failure replays examples, so no cap here
    with TestClient(create_app(limits=Limits(max_matches=10**6))) as client:
        store = client.app.state.store

        @workload
        @given(scenario=scenarios())
        def one(scenario):
            run_scenario(client, scenario, made)

        sizes = []
        for _ in range(2):
            one()
            held = len(store.matches)
            store.sweep(time.monotonic() + 10 * 24 * 3600)  # everything has expired by then
            assert not store.matches and not store.keys
            gc.collect()
            sizes.append((held, rss()))
        assert not list(made), f"{len(list(made))} matches still in memory after the sweep"
    with capsys.disabled():
        (held0, before), (held1, after) = sizes

        def mib(b):
            return "n/a" if b is None else f"{b / 2**20:.0f} MiB"

        print(
            f"\nserve soak: {examples} requests twice ({held0} + {held1} matches): RSS after the first "
            f"sweep {mib(before)}, after the second {mib(after)}"
        )
    if before is not None and after is not None:
        assert after - before < RSS_GROWTH


@pytest.fixture(autouse=True)
def no_errors_logged(caplog):
    caplog.set_level(logging.WARNING)
    yield
    bad = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert not bad, bad[0].getMessage()


def test_a_short_soak_gives_no_500_no_traceback_and_flat_memory(capsys):
    soak(20, capsys)


@pytest.mark.slow
def test_a_long_soak_gives_no_500_no_traceback_and_flat_memory(capsys):
    soak(200, capsys)
