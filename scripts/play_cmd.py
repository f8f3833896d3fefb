"""`cardzoo play GAME`: play Siantappo, Suipi or Sam Sip against bots (or friends) in the terminal.

    cardzoo play siantappo                               # you at seat 0, rule bots elsewhere
    cardzoo play siantappo --seats human,model,model,model
    cardzoo play suipi --seats human,human               # hot-seat
    cardzoo play samsip --players 3 -o bankroll=10 --save game.jsonl

See docs/play.md.
"""

from __future__ import annotations

import argparse
import math
import random
import sys

from rich.console import Console
from rich.text import Text

from cardzoo.envs.errors import UserError
from cardzoo.envs.registry import DEFAULT_PLAYERS, PLAYER_COUNTS, game_module, game_spec
from cardzoo.envs.seatview import MAX_SEED
from cardzoo.scripts.options import add_option_flag, check_output_file, parse_options
from cardzoo.scripts.play.common import Seats
from cardzoo.scripts.play.seats import SEATS_HELP, load_agents, parse_seats
from cardzoo.scripts.play.session import PlaySession
from cardzoo.scripts.play.views import view_class
from cardzoo.training.parallel.threads import keep_one_thread

MIN_WIDTH, MAX_WIDTH = 40, 1000
MAX_DELAY = 60.0


def register(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "play",
        help="play a game against bots (or hot-seat) in the terminal",
        description="Play a game against bots in the terminal. Type ? during the game for "
        "the legal moves, rules for a rules summary, quit to leave. " + SEATS_HELP,
        epilog="examples: cardzoo play siantappo --seats human,model,model,model; "
        "cardzoo play suipi --seats human,runs/s4/final.safetensors",
    )
    p.add_argument("game", help="siantappo, suipi or samsip")
    p.add_argument(
        "--seats",
        default=None,
        help="comma-separated seat kinds in seat order: human, rules, random, model, expert[:N], "
        "teacher (Sam Sip) or a checkpoint path, each optionally @SEED (default: human at "
        "seat 0, rules elsewhere; several humans play hot-seat)",
    )
    p.add_argument("--players", type=int, default=None, help="number of players (default: the game's usual)")
    p.add_argument("--seed", type=int, default=None, help="seed for reproducible deals (default: random, printed)")
    p.add_argument(
        "--save",
        metavar="FILE",
        default=None,
        help="write the finished game as a JSON-lines record (checked before the first deal)",
    )
    add_option_flag(p, "rounds=1 for Siantappo, match_deals=1 for Suipi, bankroll=10 for Sam Sip")
    p.add_argument(
        "--auto-pass",
        action="store_true",
        help="play your move for you when it is the only legal one (a forced pass), with a line saying so",
    )
    p.add_argument(
        "--show-rewards",
        action="store_true",
        help="also show the RL rewards (the summaries show points, scores and chips)",
    )
    p.add_argument(
        "--delay", type=float, default=0.0, help=f"seconds to pause after each bot move, 0..{MAX_DELAY:g} (default 0)"
    )
    p.add_argument("--no-color", action="store_true", help="plain text, no colours")
    p.add_argument(
        "--width",
        type=int,
        default=None,
        help=f"terminal width for the view, {MIN_WIDTH}..{MAX_WIDTH} (default: detected)",
    )
    return p


def make_view(game: str, env, seats: Seats, show_rewards: bool = False, reveal: bool = False):
    """The game's terminal view (``cardzoo.scripts.play.views``)."""
    view = view_class(game_spec(game).name)
    if view is None:
        raise UserError(f"{game} has no terminal view")
    return view(env, seats, show_rewards=show_rewards, reveal=reveal)


def run(args, stdin=None, console: Console | None = None) -> int:
    keep_one_thread()  # the bots' networks are small: more BLAS threads only slow them down
    return build_session(args, stdin=stdin, console=console).run()


def build_session(args, stdin=None, console: Console | None = None) -> PlaySession:
    """Everything `cardzoo play` sets up before the first deal: the command line is checked, the
    output file too, and every model is loaded, so nothing fails after the game has started."""
    module = game_module(args.game)
    game = module.GAME
    check_numbers(args)
    counts = PLAYER_COUNTS[game]
    if args.players is not None and args.players not in counts:  # 0 is refused, not taken for the default
        raise UserError(
            f"{game} is played by {', '.join(map(str, counts[:-1]))} or {counts[-1]} players, not {args.players}"
        )
    specs, players = parse_seats(args.seats, args.players, DEFAULT_PLAYERS[game], PLAYER_COUNTS[game])
    options = parse_options(args.option, args.game)
    env = module.raw_env(num_players=players, **options)
    if args.save:
        check_output_file(args.save, "--save")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1_000_000)
    if console is None:
        console = Console(
            no_color=args.no_color or None, width=args.width, highlight=False, emoji=False, soft_wrap=False
        )
    seats = Seats(specs)

    def loading(text: str) -> None:
        console.print(Text(text, style="dim"))

    agents = load_agents(specs, module, env.config, seed, say=loading)
    view = make_view(game, env, seats, show_rewards=args.show_rewards)
    return PlaySession(
        env,
        view,
        seats,
        agents,
        console,
        stdin=stdin if stdin is not None else sys.stdin,
        seed=seed,
        save=args.save,
        delay=args.delay,
        auto_pass=args.auto_pass,
    )


def check_numbers(args) -> None:
    if args.width is not None and not MIN_WIDTH <= args.width <= MAX_WIDTH:
        raise UserError(f"--width must be {MIN_WIDTH}..{MAX_WIDTH} columns, got {args.width}")
    if args.seed is not None and not 0 <= args.seed <= MAX_SEED:
        raise UserError(f"--seed must be a whole number from 0 to 2**63 - 1, got {args.seed}")
    if not math.isfinite(args.delay) or not 0 <= args.delay <= MAX_DELAY:
        raise UserError(f"--delay must be 0..{MAX_DELAY:g} seconds, got {args.delay:g}")
