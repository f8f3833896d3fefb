"""`cardzoo serve` under load: 50 matches played at once over real WebSockets against a uvicorn
server on localhost finish with no error, and each match ends exactly as the same match played
alone (so no match affected another)."""

from __future__ import annotations

import asyncio
import json
import logging
import random
import urllib.request

import pytest

websockets = pytest.importorskip("websockets", reason="the web extra is not installed (pip install -e '.[web]')")
pytest.importorskip("uvicorn", reason="the web extra is not installed (pip install -e '.[web]')")

from cardzoo.scripts.serve.match import Match  # noqa: E402
from cardzoo.scripts.serve.store import Limits  # noqa: E402
from cardzoo.training.evaluation.records import replay_record  # noqa: E402
from tests.serve_helpers import LiveServer  # noqa: E402

GAMES = 50
KINDS = [  # small matches of every game, a person at seat 0
    ("siantappo", ["human", "rules", "rules", "rules"], {"rounds": 1}),
    ("suipi", ["human", "rules"], {"match_deals": 1}),
    ("samsip", ["human", "rules", "random"], {"bankroll": 3}),
]
HANG_GUARD = 300  # seconds: a hung client fails the test instead of blocking the suite


def post(url: str, body: dict) -> dict:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.loads(r.read())


def get_text(url: str) -> str:
    with urllib.request.urlopen(url, timeout=60) as r:
        return r.read().decode()


def choose(rng: random.Random, moves: list) -> list:
    """The person's policy: a seeded random legal move (the same alone or under load)."""
    return rng.choice(moves)["ids"]


async def play(ws_url: str, index: int) -> dict:
    """One client: random legal moves until the match is over; checks every message."""
    rng = random.Random(index)
    last_version = -1
    errors = []
    async with websockets.connect(ws_url, max_size=2**20) as ws:
        while True:
            msg = json.loads(await ws.recv())
            if msg["type"] != "state":
                errors.append(msg)
                break
            view = msg["view"]
            assert view["seat"] == 0 and view["version"] > last_version
            last_version = view["version"]
            if view["over"]:
                return {"version": view["version"], "errors": errors, "result": view["result"]}
            if view["your_turn"]:
                move = {"type": "move", "ids": choose(rng, view["moves"]), "version": view["version"]}
                await ws.send(json.dumps(move))
    return {"version": last_version, "errors": errors, "result": None}


def alone(game: str, specs: list, options: dict, seed: int, index: int) -> dict:
    """The same match played alone, in this process, with the same seeds and choices."""
    rng = random.Random(index)
    match = Match.create(game, specs, options, seed)
    while not match.over:
        if match.acting() == 0:
            match.apply(0, choose(rng, match.view(0)["moves"]))
        else:
            match.play_bot_move()
    return match.record()


def test_fifty_matches_at_once(caplog):
    caplog.set_level(logging.WARNING)
    with LiveServer(limits=Limits(max_matches=GAMES + 10)) as server:
        games = []
        for i in range(GAMES):
            game, specs, options = KINDS[i % len(KINDS)]
            data = post(server.url + "/api/games", {"game": game, "seats": specs, "options": options, "seed": 500 + i})
            games.append((game, specs, options, 500 + i, data["you"]["key"]))
        ws_base = server.url.replace("http://", "ws://")

        async def all_clients():
            return await asyncio.gather(*[play(f"{ws_base}/ws/{g[4]}", i) for i, g in enumerate(games)])

        results = asyncio.run(asyncio.wait_for(all_clients(), HANG_GUARD))
        records = [json.loads(get_text(f"{server.url}/api/record/{g[4]}")) for g in games]
        assert len(server.app.state.store.matches) == GAMES

    assert all(not r["errors"] for r in results), [r["errors"] for r in results if r["errors"]][:3]
    assert all(r["result"] for r in results)
    bad_logs = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not bad_logs, [r.getMessage() for r in bad_logs]
    for i, ((game, specs, options, seed, _), rec) in enumerate(zip(games, records)):
        assert replay_record(rec) == pytest.approx(rec["rewards"])
        assert rec["moves"] == alone(game, specs, options, seed, i)["moves"], f"match {i} ({game}) differs"
