"""The resumable tournament log (``cardzoo eval --log``): a JSON-lines file whose first line names the
tournament (``log_key``) and whose other lines are its finished games. ``read_log`` returns the games
a log already holds for the same tournament, so a rerun skips them; ``open_log`` rewrites the log
with those games and keeps it open for the games still to come.
"""

from __future__ import annotations

import json

from cardzoo.envs.errors import UserError
from cardzoo.training.agents.jsontext import BadJSON, parse_json
from cardzoo.training.evaluation.results import GameResult


def log_key(
    game: str,
    players: int,
    config: dict,
    agents: list[str],
    base: list[int] | None,
    mode: str,
    seed: int,
    tasks: int,
    value: str | None = None,
) -> dict:
    """What identifies a tournament in its log: a log of other settings is refused, not resumed
    (``value``: the luck adjustment's value network, part of the key where there is one)."""
    key = {
        "game": game,
        "players": players,
        "options": config,
        "agents": agents,
        "base": base,
        "mode": mode,
        "seed": seed,
        "tasks": tasks,
    }
    if value is not None:
        key["value"] = value
    return key


def _game_to_json(g: GameResult) -> dict:
    return {
        "deal": g.deal,
        "index": g.index,
        "lineup": list(g.lineup),
        "seat_rewards": g.seat_rewards,
        "side_scores": g.side_scores,
        "steps": g.steps,
        **({} if g.adjusted_rewards is None else {"adjusted_rewards": g.adjusted_rewards}),
    }


def read_log(path: str, key: dict) -> list[GameResult]:
    """Finished games of the same tournament from a log; [] if the file does not exist yet."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as e:
        raise UserError(f"cannot read the log {path} ({getattr(e, 'strerror', None) or e})") from None
    if not lines:
        return []
    try:
        head = parse_json(lines[0])
        if head.get("tournament") != key:
            raise UserError(f"{path} logs a different tournament; use another --log file or the same settings")
        games = []
        rest = [line for line in lines[1:] if line.strip()]
        for k, line in enumerate(rest):
            try:
                d = parse_json(line)
            except BadJSON:
                if k == len(rest) - 1:
                    break  # the last line cut short by a crash: that game is played again
                raise  # a damaged line with games after it: refused, so that rewriting the log loses none
            games.append(
                GameResult(
                    int(d["deal"]),
                    int(d["index"]),
                    tuple(d["lineup"]),
                    [float(x) for x in d["seat_rewards"]],
                    [float(x) for x in d["side_scores"]],
                    int(d["steps"]),
                    adjusted_rewards=None if "adjusted_rewards" not in d else [float(x) for x in d["adjusted_rewards"]],
                )
            )
    except UserError:
        raise
    except BadJSON as e:
        raise UserError(f"{path} is not a cardzoo tournament log ({e})") from None
    except (KeyError, TypeError, AttributeError, ValueError, OverflowError) as e:
        raise UserError(f"{path} is not a cardzoo tournament log ({type(e).__name__})") from None
    return games


def open_log(path: str, key: dict, done: list[GameResult]):
    """(Re)write the log with the games kept (dropping any line cut short) and keep it open."""
    f = open(path, "w", encoding="utf-8")  # noqa: SIM115 - kept open: the caller writes each game and closes it
    f.write(json.dumps({"tournament": key}) + "\n")
    for g in done:
        write_game(f, g)
    f.flush()
    return f


def write_game(f, g: GameResult) -> None:
    """Append one finished game to an open log (one JSON line)."""
    f.write(json.dumps(_game_to_json(g)) + "\n")
