"""`cardzoo play GAME`: play Siantappo, Suipi or Sam Sip against bots (or friends) in the terminal.

    cardzoo play siantappo                               # you at seat 0, rule bots elsewhere
    cardzoo play siantappo --seats human,rules,rules,random --seed 7
    cardzoo play suipi --seats human,human               # hot-seat
    cardzoo play samsip --players 3 -o bankroll=10 --save game.jsonl

See docs/play.md.
"""

from __future__ import annotations

import argparse
import random
import sys

from rich.console import Console

from envs.registry import DEFAULT_PLAYERS, PLAYER_COUNTS, game_module
from scripts.options import add_option_flag, parse_options
from scripts.play.common import Seats
from scripts.play.seats import make_agent, parse_seats
from scripts.play.session import PlaySession


def register(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("play", help="play a game against bots (or hot-seat) in the terminal",
                       description="Play a game against bots in the terminal. Type ? during the game for "
                                   "the legal moves, rules for a rules summary, quit to leave.")
    p.add_argument("game", help="siantappo, suipi or samsip")
    p.add_argument("--seats", default=None,
                   help="comma-separated seat kinds in seat order: human, rules, random or a checkpoint "
                        "(default: human at seat 0, rules elsewhere; several humans play hot-seat)")
    p.add_argument("--players", type=int, default=None, help="number of players (default: the game's usual)")
    p.add_argument("--seed", type=int, default=None, help="seed for reproducible deals (default: random, printed)")
    p.add_argument("--save", metavar="FILE", default=None, help="write the finished game as a JSON-lines record")
    add_option_flag(p, "rounds=1 for Siantappo, match_deals=1 for Suipi, bankroll=10 for Sam Sip")
    p.add_argument("--delay", type=float, default=0.0, help="seconds to pause after each bot move (default 0)")
    p.add_argument("--no-color", action="store_true", help="plain text, no colours")
    p.add_argument("--width", type=int, default=None, help="terminal width for the view (default: detected)")
    return p


def make_view(game: str, env, seats: Seats):
    if game == "siantappo":
        from scripts.play.siantappo import SiantappoView
        return SiantappoView(env, seats)
    if game == "suipi":
        from scripts.play.suipi import SuipiView
        return SuipiView(env, seats)
    if game == "samsip":
        from scripts.play.samsip import SamSipView
        return SamSipView(env, seats)
    raise ValueError(f"no terminal view for {game!r}")


def run(args, stdin=None, console: Console | None = None) -> int:
    return build_session(args, stdin=stdin, console=console).run()


def build_session(args, stdin=None, console: Console | None = None) -> PlaySession:
    """Everything `cardzoo play` sets up before the first move (env, seats, agents, view)."""
    module = game_module(args.game)
    game = module.GAME
    specs, players = parse_seats(args.seats, args.players, DEFAULT_PLAYERS[game], PLAYER_COUNTS[game])
    options = parse_options(args.option)
    env = module.raw_env(num_players=players, **options)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1_000_000)
    seats = Seats(specs)
    agents = [None if seats.is_human(s) else make_agent(spec, module, env.config, seed + 1000 + s)
              for s, spec in enumerate(specs)]
    if console is None:
        console = Console(no_color=args.no_color or None, width=args.width, highlight=False,
                          emoji=False, soft_wrap=False)
    view = make_view(game, env, seats)
    return PlaySession(env, view, seats, agents, console, stdin=stdin if stdin is not None else sys.stdin,
                       seed=seed, save=args.save, delay=args.delay)
