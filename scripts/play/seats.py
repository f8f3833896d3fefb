"""Seat specs for `cardzoo play`: 'human', or an agent spec ('rules', 'random', 'model', a checkpoint).

Agent specs are read and built by the shared parser in training/agents/specs.py, so every seat kind
`cardzoo eval` understands (checkpoints included) also plays here.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable, Sequence
from typing import Any

from cardzoo.envs.errors import UserError

HUMAN_ALIASES = {"human", "h", "me", "you", "person"}
SEATS_HELP = (
    "Seats: human; rules (the game's rule bot: easy); random; model (the trained model shipped in "
    "models/ for this game and player count, e.g. models/siantappo: medium); expert or expert:N "
    "(a search over N sampled deals with the model, default 8: hard; in Sam Sip not yet stronger than "
    "the model); teacher (Sam Sip's lookahead "
    "player); or a checkpoint path (NAME.safetensors with its NAME.json sidecar next to it, as "
    "written by cardzoo train). Add @SEED to fix a bot's seed."
)


def parse_seats(
    text: str | None, players: int | None, default_players: int, counts: Sequence[int]
) -> tuple[list[str], int]:
    """The seat specs and the player count from --seats / --players.

    Defaults: one human at seat 0, rule bots elsewhere. Raises ValueError on a mismatch.
    """
    if text is not None:
        if not text.strip():
            raise UserError("--seats is empty; use e.g. human,rules,rules,rules")
        specs = [s.strip() for s in text.split(",")]
        if any(not s for s in specs):
            raise UserError(f"--seats {text!r} has an empty entry; use e.g. human,rules,rules,random")
        specs = ["human" if s.lower() in HUMAN_ALIASES else s for s in specs]
        from cardzoo.training.agents.specs import parse_agent_spec

        for s in specs:
            if s != "human":
                try:
                    spec = parse_agent_spec(s)
                except UserError as e:
                    raise UserError(did_you_mean(str(e), s)) from None
                check_checkpoint_files(spec)
        if players is not None and players != len(specs):
            raise UserError(f"--players {players} but --seats names {len(specs)} seats")
        players = len(specs)
    else:
        players = players or default_players
        specs = ["human"] + ["rules"] * (players - 1)
    if players not in counts:
        allowed = ", ".join(map(str, counts[:-1])) + f" or {counts[-1]}" if len(counts) > 1 else str(counts[0])
        raise UserError(f"this game is played by {allowed} players, not {players}")
    return specs, players


SEAT_KINDS = ("human", "rules", "random", "model", "expert", "belief", "teacher")


def closest_kind(typed: str, kinds=SEAT_KINDS) -> str | None:
    """The seat kind ``typed`` (its name before any ``@SEED`` or ``:N``) was probably meant to be
    (`modle`, `rule`, `exprt`), or None."""
    name = typed.split("@")[0].split(":")[0].strip().lower()
    close = difflib.get_close_matches(name, kinds, n=1, cutoff=0.6)
    return close[0] if close and close[0] != name else None


def did_you_mean(message: str, typed: str, kinds=SEAT_KINDS) -> str:
    """``message`` with ``(did you mean `model`?)`` after its first clause where ``typed`` is close
    to a seat kind."""
    close = closest_kind(typed, kinds)
    if close is None:
        return message
    head, sep, rest = message.partition(";")
    return f"{head} (did you mean `{close}`?){sep}{rest}"


def check_checkpoint_files(spec) -> None:
    """A checkpoint is two files; say which one is missing, naming the path the user gave."""
    if spec.kind != "checkpoint":
        return
    from cardzoo.training.agents.checkpoint import checkpoint_paths

    weights, sidecar = checkpoint_paths(spec.path)
    for f, what in ((weights, "weights"), (sidecar, "sidecar")):
        if not f.is_file():
            raise UserError(
                f"checkpoint {spec.path}: its {what} file {f} is missing "
                f"(a checkpoint is NAME.safetensors + NAME.json, as cardzoo train writes them)"
            )


def load_agents(specs: Sequence[str], module, config, seed: int, say: Callable[[str], None] = print) -> list:
    """An Agent per bot seat (None for people), built before the first deal. Models are announced
    with ``say`` ("loading model …") since loading one takes a moment; a seat that cannot be
    built is a one-line error naming the seat and the spec."""
    from cardzoo.training.agents.shipped import shipped_model_path
    from cardzoo.training.agents.specs import make_agent, parse_agent_spec

    announced: set[str] = set()
    agents: list[Any] = []
    for s, spec in enumerate(specs):
        if spec == "human":
            agents.append(None)
            continue
        parsed = parse_agent_spec(spec)
        if parsed.kind in ("model", "checkpoint") and spec not in announced:
            announced.add(spec)
            try:
                path = (
                    parsed.path
                    if parsed.kind == "checkpoint"
                    else _short_path(shipped_model_path(module.GAME, config.num_players))
                )
            except ValueError as e:
                raise UserError(f"player_{s} ({spec}): {e}") from None
            seats = ", ".join(f"player_{t}" for t, other in enumerate(specs) if other == spec)
            say(f"loading model {path} for {seats} …")
        try:
            agents.append(make_agent(spec, module, config=config, seed=seed + 1000 + s))
        except (ValueError, FileNotFoundError) as e:  # CheckpointError is a ValueError
            raise UserError(f"player_{s} ({spec}): {e}") from None
    return agents


def _short_path(path: str) -> str:
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel
