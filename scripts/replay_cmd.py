"""`cardzoo replay`: show a recorded game move by move and check it replays to the same rewards.

    cardzoo eval siantappo --agents rules,random --games 8 --records games.jsonl
    cardzoo replay games.jsonl --game 3 --step

Records are JSON lines as written by `cardzoo eval --records` and `cardzoo play --save` (see
training/evaluation/records.py). The replay walks whole moves (Suipi's sub-steps are one move) and shows
them with the view of `cardzoo play`, every hand revealed. ``--gif OUT`` writes the match as an
animated GIF instead (scripts/replay_gif.py): the env's pictures, hidden hands face down.
"""

from __future__ import annotations

import argparse
import os
import time

from rich.console import Console
from rich.text import Text

from cardzoo.envs.errors import UserError
from cardzoo.scripts.play.common import Seats
from cardzoo.scripts.play.lines import Leave, LineReader
from cardzoo.scripts.replay_steps import Steps, step_through
from cardzoo.training.evaluation.records import (
    WholeMoveWalker,
    check_rewards,
    env_from_header,
    play_moves,
    read_records,
    reset_to_header,
)


def register(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "replay",
        help="replay a recorded game in the terminal and check its rewards",
        description="Replay one game of a JSON-lines record file (cardzoo eval --records, "
        "cardzoo play --save) through the environment, showing the table after "
        "every move with every hand revealed, and check that it ends with the "
        "recorded rewards.",
    )
    p.add_argument("file", help="a JSON-lines file of game records")
    p.add_argument("--game", type=int, default=1, metavar="N", help="which game of the file, from 1 (default 1)")
    pace = p.add_mutually_exclusive_group()
    pace.add_argument(
        "--step",
        action="store_true",
        help="one move at a time: Enter next, b back, g N move N, j N round (deal, hand) N, q quit",
    )
    pace.add_argument("--delay", type=float, default=0.0, metavar="SECONDS", help="pause after every move")
    p.add_argument("--quiet", action="store_true", help="show only the result")
    p.add_argument(
        "--gif",
        metavar="OUT",
        help="write the match as an animated GIF instead (one frame per "
        "move, the table as a spectator sees it: no hidden hand)",
    )
    p.add_argument("--fps", type=float, default=2.0, help="GIF frames per second (default 2)")
    return p


def run(args, stdin=None, console: Console | None = None) -> int:
    rec, where = _chosen_record(args)
    console = console or Console(highlight=False, emoji=False, soft_wrap=False)
    n = _checked_moves(rec, where)  # the first pass: the record replays to its rewards
    if args.gif:
        from cardzoo.scripts.replay_gif import write_gif

        frames = write_gif(_fresh_env(rec, where), rec, n, args.gif, args.fps)
        console.print(f"wrote {args.gif}: {where}, {frames} frames ({n} moves) at {args.fps:g} per second")
        return 0
    return _show(args, rec, where, n, console, LineReader(console, stdin))


def _chosen_record(args) -> tuple[dict, str]:
    """The record ``--game`` picks from the file, and how to name it; one-line errors for bad flags."""
    if os.path.isdir(args.file):
        raise UserError(
            f"{args.file} is a folder: give a record file in it (.jsonl, from cardzoo play --save "
            "or cardzoo eval --records)"
        )
    if not os.path.isfile(args.file):
        raise UserError(f"record file not found: {args.file}")
    if args.delay < 0 or args.delay > 60:
        raise UserError(f"--delay must be 0..60 seconds, got {args.delay:g}")
    if not 0.1 <= args.fps <= 50:
        raise UserError(f"--fps must be 0.1..50 frames per second, got {args.fps:g}")
    records = read_records(args.file)
    if not records:
        raise UserError(f"{args.file}: no game records in the file")
    if not 1 <= args.game <= len(records):
        raise UserError(f"--game must be 1..{len(records)} ({args.file} holds {len(records)} game(s)), got {args.game}")
    return records[args.game - 1], f"{args.file} game {args.game}"


def _fresh_env(rec: dict, where: str):
    try:
        env = env_from_header(rec)
        reset_to_header(env, rec)
    except (ValueError, TypeError, KeyError) as e:
        raise UserError(f"{where}: cannot rebuild the game ({e})") from None
    return env


def _checked_moves(rec: dict, where: str) -> int:
    """The record's number of whole moves, once it has replayed to its recorded rewards."""
    env = _fresh_env(rec, where)
    counter = WholeMoveWalker(env)
    try:
        check_rewards(play_moves(env, rec["moves"], on_move=counter), rec["rewards"])
    except ValueError as e:
        raise UserError(f"{where}: {e}") from None
    return counter.count


def _show(args, rec: dict, where: str, n: int, console: Console, reader: LineReader) -> int:
    """The second pass: every whole move with the table after it (``--step``: Enter for the next)."""
    from cardzoo.scripts.play_cmd import make_view

    env = _fresh_env(rec, where)
    named = rec.get("agents") or []  # a list (check_record); as long as the seats
    seats = Seats([(named[s] if s < len(named) else None) or "unknown" for s in range(env.num_players)], you=False)
    view = make_view(env.game_name, env, seats, show_rewards=True, reveal=True)
    head = f"{view.title} — {where}: seed {rec['seed']}, {n} moves"
    if named:
        head += "; " + ", ".join(seats.label(i) for i in range(env.num_players))
    console.print(Text(head, style="bold"))
    if args.step:
        return _step(view, env, rec, console, reader)
    if not args.quiet:
        console.print(view.table(None))

    def show(k, seat, ids, text, before):
        if args.quiet:
            return
        line = Text(f"[{k}/{n}] ", style="dim")
        line.append_text(view.describe(seat, ids, text, None, sep=" plays: "))
        console.print(line)
        for item in view.after_move(before, seat, ids, _rewards_of(env), None):
            console.print(item)
        console.print(view.table(None))
        if args.delay > 0:
            time.sleep(args.delay)

    walker = WholeMoveWalker(env, show)
    walker.begin(view.snapshot)
    try:
        totals = play_moves(env, rec["moves"], on_move=walker)
    except Leave as stop:
        console.print(Text(stop.why, style="bold"))
        return 0
    for item in view.standings():
        console.print(item)
    console.print("rewards: " + ", ".join(f"player_{i} {r:+.3f}" for i, r in enumerate(totals)))
    console.print("the replay matches the recorded rewards")
    return 0


def _step(view, env, rec: dict, console: Console, reader: LineReader) -> int:
    """``--step``: move by move, forwards and back, jumping to a move or a round / deal / hand
    (scripts/replay_steps.py); the result once the last move is shown."""
    steps = Steps(env, rec)
    view.snapshot()
    try:
        step_through(view, steps, console, reader, _rewards_of)
    except Leave as stop:
        console.print(Text(stop.why, style="bold"))
        return 0
    for item in view.standings():
        console.print(item)
    console.print("rewards: " + ", ".join(f"player_{i} {r:+.3f}" for i, r in enumerate(rec["rewards"])))
    console.print("the replay matches the recorded rewards")
    return 0


def _rewards_of(env) -> dict[int, float]:
    return {env.agent_seat[a]: float(r) for a, r in env.rewards.items() if r}
