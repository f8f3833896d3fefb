"""`cardzoo serve`: a local web app to play against the bots and models in a browser.

    cardzoo serve                      # http://127.0.0.1:8000/
    cardzoo serve --port 8080

Needs the `web` extra (pip install -e ".[web]", included in ".[dev]"). See docs/serve.md.
"""

from __future__ import annotations

import argparse
import ipaddress

from cardzoo.envs.errors import UserError
from cardzoo.training.parallel.threads import keep_one_thread

LOCAL_NAMES = ("127.0.0.1", "localhost", "::1", "[::1]")


def register(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "serve",
        help="play in the browser: a local web app (pick a game, seats, rules; replay records)",
        description="Start a local web app to play Siantappo, Suipi and Sam Sip against rule bots, "
        "random players, the shipped model or your checkpoints, to watch bots play, and "
        "to replay saved .jsonl records. Binds to localhost unless --host says otherwise.",
    )
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: only this machine; 0.0.0.0 opens it to your network)",
    )
    p.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    p.add_argument(
        "--ladder",
        metavar="FILE",
        default=None,
        help="the ladder file the page /ladder shows (default: `cardzoo ladder`'s default file)",
    )
    return p


def is_local(host: str) -> bool:
    if host in LOCAL_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def run(args) -> int:
    if not 0 <= args.port <= 65535:
        raise UserError(f"--port must be 0..65535, got {args.port}")
    try:
        import uvicorn

        from cardzoo.scripts.serve.app import create_app
        from cardzoo.scripts.serve.limits import MAX_FRAME
    except ModuleNotFoundError as e:
        raise UserError(
            f'cardzoo serve needs the web extra ({e.name} is missing): pip install "cardzoo[web]" '
            '(in a source checkout: pip install -e ".[web]")'
        ) from None
    import socket

    # Bind first, so the URL printed is the one that works (and --port 0 gets a real port).
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((args.host, args.port))
        sock.listen(128)  # connections wait in the backlog until uvicorn serves them
    except OSError as e:
        sock.close()
        raise UserError(f"cannot listen on {args.host}:{args.port} ({e.strerror or e})") from None
    port = sock.getsockname()[1]
    local = is_local(args.host)
    # A localhost server answers only to its own names (no DNS rebinding from a web page).
    allowed = sorted({"127.0.0.1", "localhost", "[::1]", args.host}) if local else None
    from cardzoo.training.evaluation.ladder_store import default_path

    app = create_app(allowed_hosts=allowed, ladder=args.ladder or default_path())
    keep_one_thread()  # the bots' networks are small: more BLAS threads only slow them down (the expert most)
    shown = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
    shown = f"[{shown}]" if ":" in shown else shown
    print(f"cardzoo serve: open http://{shown}:{port}/ in a browser (Ctrl-C stops the server)", flush=True)
    if not local:
        print("warning: listening beyond this machine: anyone who can reach this address can start games", flush=True)
    config = uvicorn.Config(
        app,
        log_level="warning",
        ws_max_size=MAX_FRAME,
        ws_ping_interval=20,
        ws_ping_timeout=20,
        timeout_graceful_shutdown=2,
    )
    uvicorn.Server(config).run(sockets=[sock])
    return 0
