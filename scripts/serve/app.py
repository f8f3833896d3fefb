"""The `cardzoo serve` web app (Starlette): the page, a small JSON API and one WebSocket per seat.

    GET  /                       the page (static/index.html; styles and script under /static)
    GET  /api/catalog            games, player counts, rule options, agents
    POST /api/games              start a match -> the keys of its seats (a finished match's
                                 socket may ask for a rematch: the same settings, a new seed)
    WS   /ws/{key}               a seat's live table: views in, moves out
    GET  /api/record/{key}       the finished match as a .jsonl record
    POST /api/replays            load a saved record -> a replay key
    GET  /api/replays/{key}      the replay's table after move k, as seat s sees it
    GET  /ladder, /api/ladder    the standings of the ladder file (``cardzoo ladder``), as a page / JSON

Messages from a browser are at most MAX_MESSAGE characters of JSON; anything else gets an
``{"type": "error", "message": ...}`` answer and changes nothing. See docs/serve.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import re
import secrets
from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import ClientDisconnect, HTTPConnection, Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from cardzoo.envs.seatview import MAX_SEED
from cardzoo.scripts.serve.catalog import catalog, read_options, read_seat
from cardzoo.scripts.serve.jsoncheck import json_depth_ok
from cardzoo.scripts.serve.ladder_page import page, standings_of
from cardzoo.scripts.serve.limits import (
    MAX_DEPTH,
    MAX_IDS,
    MAX_MESSAGE,
    MAX_NEW_GAME,
    MAX_PACE,
    MAX_RECORD_UPLOAD,
    MAX_SPEC,
    Limits,
)
from cardzoo.scripts.serve.match import Match, MoveRefused
from cardzoo.scripts.serve.replay import Replay, parse_records
from cardzoo.scripts.serve.store import WATCH, Full, Store
from cardzoo.training.agents.shipped import MODELS_ENV, package_models_dir

STATIC_DIR = Path(__file__).parent / "static"
WATCH_PACE = 0.6  # default seconds between moves when only bots play (so a person can follow)
SEND_TIMEOUT = 10.0  # a browser that does not take a message in this long is dropped

log = logging.getLogger("cardzoo.serve")

SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; connect-src 'self'; img-src 'self' data:; "
    "style-src 'self'; script-src 'self'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


class BadRequest(ValueError):
    """A request the server refuses, with the one line that says why."""


def create_app(
    limits: Limits | None = None, allowed_hosts: list[str] | None = None, ladder: str | None = None
) -> Starlette:
    """The app. ``allowed_hosts`` (Host header names) guards a localhost server against DNS
    rebinding; None allows any (tests). A bots-only match spaces its moves by the request's
    ``pace`` (default ``WATCH_PACE``).

    Its one piece of state is ``app.state.store`` (the matches and replays); every handler
    below finds it through its request or socket."""
    middleware = [Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts)] if allowed_hosts else []
    app = Starlette(
        routes=routes(), middleware=middleware, lifespan=lifespan, exception_handlers={404: http_error, 405: http_error}
    )
    app.state.store = Store(limits)
    app.state.ladder = ladder  # the ladder file GET /ladder shows (cardzoo ladder), or None
    return app


def routes() -> list:
    """Every URL the app answers (the module docstring says what each one does)."""
    return [
        Route("/", index),
        Route("/api/catalog", get_catalog),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/record/{key}", get_record),
        Route("/api/replays", new_replay, methods=["POST"]),
        Route("/api/replays/{key}", get_replay),
        WebSocketRoute("/ws/{key}", play_socket),
        Route("/ladder", get_ladder_page),
        Route("/api/ladder", get_ladder),
        Mount("/static", app=StaticFiles(directory=STATIC_DIR), name="static"),
    ]


# ------------------------------------------------------------------ requests and responses
def store_of(connection: HTTPConnection) -> Store:
    return connection.app.state.store


def error(message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": without_paths(message)}, status_code=status, headers=SECURITY_HEADERS)


# the folders of an absolute path (/a/b/, ~/a/, C:\a\): what is left of the path is its file's name
_PATH_FOLDERS = re.compile(r"(?<![\w.~-])(?:~|[A-Za-z]:)?[/\\](?:[^\s/\\:'\"(),;]+[/\\])+")


def without_paths(text: str) -> str:
    """``text`` with the folders of every path taken out (a checkpoint by its file name): what is
    sent to a browser never says where the server keeps its files (docs/serve.md, Security).
    The model folders go first, as they may be given relative to where the server started."""
    folders = {str(package_models_dir()), *os.environ.get(MODELS_ENV, "").split(os.pathsep)}
    for folder in sorted((f.rstrip("/\\") for f in folders), key=len, reverse=True):
        if folder:
            text = re.sub(r"(?<![\w.~-])" + re.escape(folder) + r"[/\\]", "", text)
    return _PATH_FOLDERS.sub("", text)


async def client_gone(request: Request) -> Response:
    """A client that closed its connection in the middle of its request: one quiet log line (no
    traceback), and an answer nobody reads."""
    log.info("%s %s: the client went away before sending its whole request", request.method, request.url.path)
    return error("the request ended before its body did")


async def http_error(request: Request, exc) -> JSONResponse:
    """An unknown address or method: the one-line error shape of every refusal."""
    status = getattr(exc, "status_code", 404)
    return error("no such address" if status == 404 else "method not allowed here", status)


def ok(data) -> JSONResponse:
    return JSONResponse(data, headers=SECURITY_HEADERS)


def same_origin(headers) -> bool:
    """A browser sends Origin with POSTs and WebSockets: it must be this server's own page."""
    origin = headers.get("origin")
    if not origin:
        return True  # not a browser (curl, a test client)
    host = headers.get("host", "")
    return origin.split("://", 1)[-1].rstrip("/") == host


def loads_checked(text: str, what: str = "the request body"):
    """``json.loads`` after the depth check; ValueError (one line) for too deep or not JSON."""
    if not json_depth_ok(text):
        raise BadRequest(f"{what} is nested too deeply (at most {MAX_DEPTH} levels of [ ] and {{ }})")
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise BadRequest(f"{what} must be JSON") from None
    except RecursionError:  # not reached after the check; kept so no input can drop a handler
        raise BadRequest(f"{what} is nested too deeply") from None


async def read_json(request: Request, limit: int):
    """The JSON body of a request from this server's page, at most ``limit`` bytes; BadRequest if not."""
    if not same_origin(request.headers):
        raise BadRequest("requests must come from this server's own page")
    size = request.headers.get("content-length")
    if size is not None and (not size.isdigit() or int(size) > limit):
        raise BadRequest(f"request too large (at most {limit} bytes)")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise BadRequest(f"request too large (at most {limit} bytes)")
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise BadRequest("the request body must be JSON (UTF-8)") from None
    if len(text) > 64 * 1024:  # an uploaded record: checked and parsed off the event loop
        return await asyncio.to_thread(loads_checked, text)
    return loads_checked(text)


# ------------------------------------------------------------------ the page and the JSON API
async def index(request: Request) -> Response:
    return FileResponse(STATIC_DIR / "index.html", headers=SECURITY_HEADERS)


async def get_ladder(request: Request) -> Response:
    return ok(await asyncio.to_thread(standings_of, request.app.state.ladder))


async def get_ladder_page(request: Request) -> Response:
    text = page(await asyncio.to_thread(standings_of, request.app.state.ladder))
    return HTMLResponse(text, headers=SECURITY_HEADERS)  # names only: ladder_page shows no paths


async def get_catalog(request: Request) -> Response:
    return ok(catalog())


async def new_game(request: Request) -> Response:
    """POST /api/games: start a match; the keys of its seats (yours, invites, watch)."""
    try:
        body = await read_json(request, MAX_NEW_GAME)
        game, specs, options, seed, pace = read_new_game(body)
        return ok(keys_of(await start_match(store_of(request), game, specs, options, seed, pace)))
    except ClientDisconnect:
        return await client_gone(request)
    except (BadRequest, ValueError, FileNotFoundError) as e:
        return error(_one_line(e))
    except Full as e:
        return error(str(e), 503)


async def start_match(store: Store, game: str, specs, options: dict, seed, pace: float) -> Match:
    """Create a match and keep it. ValueError / FileNotFoundError for a bad game, seat or option;
    Full when the server holds too many."""
    if len(store.matches) >= store.limits.max_matches:  # refused before any model is loaded
        raise Full(f"the server already holds {len(store.matches)} matches; try again later")
    # bots and models load off the event loop (a model takes seconds)
    match = await asyncio.to_thread(Match.create, game, specs, options, seed)
    match.pace = pace if match.watch_key else 0.0
    match.max_moves = store.limits.max_moves
    store.add_match(match)
    return match


def keys_of(match: Match, you: int | None = None) -> dict:
    """A new match's keys as ``POST /api/games`` answers: yours (seat ``you``, else the first
    human seat), an invitation per other human seat, the watch key of a bots-only match."""
    humans = match.humans
    mine = you if you in match.keys else (humans[0] if humans else None)
    return {
        "game": match.game,
        "seed": match.seed,
        "players": len(match.specs),
        "you": {"seat": mine, "key": match.keys[mine]} if mine is not None else None,
        "invites": [{"seat": s, "key": match.keys[s]} for s in humans if s != mine],
        "watch": match.watch_key,
    }


async def get_record(request: Request) -> Response:
    """GET /api/record/{key}: the finished match as a .jsonl download."""
    found = store_of(request).lookup(request.path_params["key"])
    if found is None:
        return error("unknown or expired game", 404)
    match, _ = found
    async with match.lock:
        if not match.over:
            return error("the record is available once the match is over (it holds every deal)", 409)
        text = json.dumps(match.record(), ensure_ascii=False) + "\n"
    name = f"cardzoo-{match.game}-{match.seed}.jsonl"
    return Response(
        text,
        media_type="application/x-ndjson",
        headers={**SECURITY_HEADERS, "Content-Disposition": f'attachment; filename="{name}"'},
    )


async def new_replay(request: Request) -> Response:
    """POST /api/replays: load one game of an uploaded record file; its replay key."""
    try:
        body = await read_json(request, MAX_RECORD_UPLOAD)
        records, replay = await read_replay(body)
    except ClientDisconnect:
        return await client_gone(request)
    except (BadRequest, ValueError) as e:
        return error(_one_line(e))
    key = secrets.token_urlsafe(24)
    try:
        store_of(request).add_replay(key, replay)
    except Full as e:
        return error(str(e), 503)
    return ok({"key": key, "games": len(records), "game": replay.game, "moves": len(replay.moves)})


async def read_replay(body) -> tuple[list, Replay]:
    """(every record of the file, the replay of the chosen game) from a new-replay request."""
    if not isinstance(body, dict) or not isinstance(body.get("text"), str):
        raise BadRequest('send {"text": <the .jsonl file>, "game": N}')
    index = body.get("game", 1)
    if isinstance(index, bool) or not isinstance(index, int):
        raise BadRequest("game must be a number, from 1")
    records = await asyncio.to_thread(parse_records, body["text"])
    if not 1 <= index <= len(records):
        raise BadRequest(f"game must be 1..{len(records)} (the file holds {len(records)} game(s))")
    return records, await asyncio.to_thread(Replay, records[index - 1])


async def get_replay(request: Request) -> Response:
    """GET /api/replays/{key}?move=K&seat=S: the replay's table after move K, as seat S sees it."""
    replay = store_of(request).replay(request.path_params["key"])
    if replay is None:
        return error("unknown or expired replay", 404)
    try:
        k = int(request.query_params.get("move", "0"))
        seat = int(request.query_params.get("seat", "0"))
    except ValueError:
        return error("move and seat must be numbers")
    wrong = replay.out_of_range(k, seat)
    if wrong:
        return error(wrong)
    return ok(await asyncio.to_thread(replay.view, k, seat))


# ------------------------------------------------------------------ live play: one WebSocket per seat
async def play_socket(ws: WebSocket) -> None:
    """WS /ws/{key}: send the seat's table after every move, take its moves."""
    if not same_origin(ws.headers):
        await ws.close(code=1008)
        return
    await ws.accept()
    found = store_of(ws).lookup(ws.path_params["key"])
    if found is None:
        await send(ws, {"type": "error", "message": "unknown or expired game: start a new one"})
        await ws.close(code=4404)
        return
    match, seat = found
    shown = 0 if seat == WATCH else seat
    async with match.lock:
        match.sockets[ws] = shown
        match.touch()
        await send(ws, {"type": "state", "view": match.view(shown)})
    start_driver(match)
    try:
        while True:
            msg = await ws.receive()
            if msg["type"] == "websocket.disconnect":
                break
            text = msg.get("text")
            if text is None:
                await send(ws, {"type": "error", "message": "send JSON text, not binary"})
                continue
            reply = await handle_message(match, ws, seat, text)
            if reply is not None:
                await send(ws, reply)
    except WebSocketDisconnect:
        pass
    finally:
        match.sockets.pop(ws, None)


async def handle_message(match: Match, ws: WebSocket, seat: int, text: str) -> dict | None:
    """Apply one message; returns an answer for the sender (an error, a pong, a view), or None."""
    if len(text) > MAX_MESSAGE:
        return _refusal(match, f"message too large ({len(text)} characters; at most {MAX_MESSAGE})")
    if not json_depth_ok(text):
        return _refusal(match, f"malformed message: nested too deeply (at most {MAX_DEPTH} levels)")
    try:
        msg = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return _refusal(match, "malformed message: not JSON")
    if not isinstance(msg, dict) or msg.get("type") not in ("move", "look", "ping", "hint", "why", "undo", "rematch"):
        return _refusal(match, 'unknown message: send {"type": "move", "ids": [...], "version": N}')
    if msg["type"] == "ping":
        return {"type": "pong", "version": match.version}
    if msg["type"] == "look":
        return await look(match, ws, seat, msg)
    if msg["type"] == "hint":
        return await hint(match, seat, msg)
    if msg["type"] == "why":
        return await why(match, seat, msg)
    if msg["type"] == "undo":
        return await undo(match, seat)
    if msg["type"] == "rematch":
        return await rematch(match, ws, seat)
    return await move(match, seat, msg)


async def undo(match: Match, seat: int) -> dict | None:
    """Take back this seat's last move and the bot moves after it (every other seat a bot)."""
    if seat == WATCH:
        return _refusal(match, "you are watching: bots play every seat")
    async with match.lock:
        try:
            await asyncio.to_thread(match.undo, seat)  # plays the match again from its seed
        except MoveRefused as e:
            return _refusal(match, str(e))
        await broadcast(match)
    return None


async def rematch(match: Match, ws: WebSocket, seat: int) -> dict:
    """A new match with the same game, seats and rule options (a new seed), once this one is
    over: ``{"type": "rematch", ...}`` with the keys as ``POST /api/games`` answers (the asker
    keeps its seat; the other people's seats are invitations)."""
    if not match.over:
        return _refusal(match, "a rematch is for a match that is over")
    try:
        new = await start_match(store_of(ws), match.game, match.specs, match.options, None, match.pace)
    except (ValueError, FileNotFoundError, Full) as e:
        return _refusal(match, _one_line(e))
    return {"type": "rematch", **keys_of(new, seat)}


async def hint(match: Match, seat: int, msg: dict) -> dict:
    """What the game's model would play for this seat now (``{"type": "hint", "version": N}``)."""
    if seat == WATCH:
        return _refusal(match, "you are watching: hints are for a seat on its turn")
    version = msg.get("version")
    if isinstance(version, bool) or not isinstance(version, int):
        return _refusal(match, "a hint needs the version of the table it is for")
    async with match.lock:
        try:
            return await asyncio.to_thread(match.hint, seat, version)  # loading the model may take a moment
        except MoveRefused as e:
            return _refusal(match, str(e))


async def why(match: Match, seat: int, msg: dict) -> dict:
    """Why no legal move uses a selection (``{"type": "why", "cards": [ids], "version": N}``):
    answered ``{"type": "why", "version", "cards", "reason"}``, the rule named."""
    if seat == WATCH:
        return _refusal(match, "you are watching: bots play every seat")
    things, version = msg.get("cards"), msg.get("version")
    if (
        not isinstance(things, list)
        or not 0 < len(things) <= MAX_IDS
        or any(not isinstance(t, str) or not 0 < len(t) <= 12 for t in things)
    ):
        return _refusal(match, "a question needs cards: the ids of the selected cards")
    if isinstance(version, bool) or not isinstance(version, int):
        return _refusal(match, "a question needs the version of the table it is about")
    async with match.lock:
        try:
            reason = match.why(seat, version, things)
        except MoveRefused as e:
            return _refusal(match, str(e))
    return {"type": "why", "version": version, "cards": things, "reason": without_paths(reason)}


async def look(match: Match, ws: WebSocket, seat: int, msg: dict) -> dict:
    """A watcher picks the seat whose hand it is shown."""
    if seat != WATCH:
        return _refusal(match, "only a watcher of a bots-only match may look at other seats")
    target = msg.get("seat")
    if isinstance(target, bool) or not isinstance(target, int) or not 0 <= target < len(match.specs):
        return _refusal(match, f"seat must be 0..{len(match.specs) - 1}")
    async with match.lock:
        match.sockets[ws] = target
        return {"type": "state", "view": match.view(target)}


async def move(match: Match, seat: int, msg: dict) -> dict | None:
    """A person's move: checked against the table it was chosen on, applied, shown to every seat."""
    if seat == WATCH:
        return _refusal(match, "you are watching: bots play every seat")
    ids, version = msg.get("ids"), msg.get("version")
    if (
        not isinstance(ids, list)
        or not 0 < len(ids) <= MAX_IDS
        or any(isinstance(a, bool) or not isinstance(a, int) for a in ids)
    ):
        return _refusal(match, "a move needs ids: the list of action ids of one legal move")
    if isinstance(version, bool) or not isinstance(version, int):
        return _refusal(match, "a move needs the version of the table it was chosen on")
    claimed = msg.get("seat", seat)
    if claimed != seat:
        return _refusal(match, f"you play player_{seat}: you cannot move for player_{claimed}"[:200])
    cards = msg.get("cards")  # the cards the person selected, where the game lets them choose
    if cards is not None and (
        not isinstance(cards, list)
        or not 0 < len(cards) <= MAX_IDS
        or any(not isinstance(c, str) or not 0 < len(c) <= 4 for c in cards)
    ):
        return _refusal(match, 'a move\'s cards must be the list of its cards as text, e.g. ["9♦", "9♥"]')
    async with match.lock:
        try:
            checked, chosen = match.check_move(seat, ids, version, " ".join(cards) if cards else None)
        except MoveRefused as e:
            return _refusal(match, str(e))
        match.apply(seat, checked, chosen)
        await broadcast(match)
    start_driver(match)
    return None


def _refusal(match: Match, message: str) -> dict:
    """The answer to a message that changes nothing, with the version of the table as it is."""
    return {"type": "error", "message": without_paths(message), "version": match.version}


async def send(ws: WebSocket, data: dict) -> bool:
    """Send one message; False when the browser is gone or too slow to take it."""
    try:
        await asyncio.wait_for(ws.send_text(json.dumps(data, ensure_ascii=False)), SEND_TIMEOUT)
        return True
    except (asyncio.TimeoutError, RuntimeError, WebSocketDisconnect, OSError):
        return False


async def broadcast(match: Match) -> None:
    for ws, seat in list(match.sockets.items()):
        if not await send(ws, {"type": "state", "view": match.view(seat)}):
            match.sockets.pop(ws, None)


def start_driver(match: Match) -> None:
    if match.driver is None or match.driver.done():
        match.driver = asyncio.create_task(drive(match))


async def drive(match: Match) -> None:
    """Let the bots move until a person is to move (or the match ends, or stops at the server's
    move limit). A match nobody has open is paused: the bots wait for the next browser that
    connects (``play_socket`` starts the driver again), so nobody's match plays on unseen."""
    while True:
        async with match.lock:
            if not match.sockets or not match.bot_to_move():
                return
            try:
                await asyncio.to_thread(match.play_bot_move)
            except Exception as e:  # a broken model must not take the server down
                log.exception("bot failed in %s match %s", match.game, match.id[:6])
                why = f"{type(e).__name__}: {e}"
                match.failed = without_paths(f"the bot at player_{match.acting()} failed ({why})")
            await broadcast(match)
        if match.pace:
            await asyncio.sleep(match.pace)


# ------------------------------------------------------------------ lifecycle
@contextlib.asynccontextmanager
async def lifespan(app: Starlette):
    """The sweeper runs while the app does; at shutdown every match is closed."""
    store = app.state.store
    task = asyncio.create_task(sweep(store))
    try:
        yield
    finally:
        task.cancel()
        for match in list(store.matches.values()):
            store.remove_match(match)


async def sweep(store: Store) -> None:
    """Every ``sweep_every`` seconds, close finished and idle matches and tell their sockets."""
    while True:
        await asyncio.sleep(store.limits.sweep_every)
        for match in store.sweep():
            for ws in list(match.sockets):
                await send(ws, {"type": "error", "message": "this game was closed (finished or idle)"})
                with contextlib.suppress(Exception):
                    await ws.close(code=4410)


# ------------------------------------------------------------------ request checks
def read_new_game(body) -> tuple[str, list[str], dict, int | None, float]:
    """(game, seat specs, options, seed, watch pace) from a new-game request; BadRequest if bad."""
    from cardzoo.envs.registry import game_spec

    if not isinstance(body, dict):
        raise BadRequest('send {"game": "siantappo", "seats": ["human", "rules", ...], "options": {...}}')
    game = body.get("game")
    if not isinstance(game, str) or len(game) > 40:
        raise BadRequest("game must be the name of a game: siantappo, suipi or samsip")
    spec = game_spec(game)  # ValueError names the games
    seats = body.get("seats")
    if not isinstance(seats, list) or not all(isinstance(s, str) for s in seats):
        raise BadRequest("seats must be a list of seat kinds: human, rules, random, model, teacher, a model's name")
    if len(seats) not in spec.player_counts:
        counts = ", ".join(map(str, spec.player_counts))
        raise BadRequest(f"{spec.name} is played by {counts} players, not {len(seats)}")
    if any(len(s) > MAX_SPEC for s in seats):
        raise BadRequest("a seat spec is too long")
    # only agents this server offers: never a path (docs/serve.md, Security)
    specs = [read_seat(spec.name, len(seats), s, text) for s, text in enumerate(seats)]
    options = read_options(spec.name, body.get("options"))
    seed = body.get("seed")
    if isinstance(seed, str) and seed.isascii() and seed.isdigit() and len(seed) <= 19:
        seed = int(seed)  # a seed as text: a browser's numbers lose digits past 2**53
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED):
        raise BadRequest("seed must be a whole number from 0 to 2**63 - 1 (or left empty for a random one)")
    pace = body.get("pace", WATCH_PACE)
    if isinstance(pace, bool) or not isinstance(pace, (int, float)) or not 0 <= pace <= MAX_PACE:
        raise BadRequest(f"pace must be 0..{MAX_PACE:g} seconds")
    return spec.name, specs, options, seed, float(pace)


def _one_line(e: Exception) -> str:
    text = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    return text[:300]
