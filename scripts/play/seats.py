"""Seat specs for `cardzoo play`: 'human', or an agent spec ('rules', 'random', a checkpoint).

Agent specs are resolved by the shared parser in training/agents.py when it exists, so every
seat kind `cardzoo eval` understands (checkpoints included) also plays here.
"""

from __future__ import annotations

from typing import Sequence

HUMAN_ALIASES = {"human", "h", "me", "you", "person"}


def parse_seats(text: str | None, players: int | None, default_players: int, counts: Sequence[int]) -> tuple[list[str], int]:
    """The seat specs and the player count from --seats / --players.

    Defaults: one human at seat 0, rule bots elsewhere. Raises ValueError on a mismatch.
    """
    if text:
        specs = [s.strip() for s in text.split(",")]
        if any(not s for s in specs):
            raise ValueError(f"--seats {text!r} has an empty entry; use e.g. human,rules,rules,random")
        specs = ["human" if s.lower() in HUMAN_ALIASES else s for s in specs]
        from training.agents import parse_agent_spec

        for s in specs:
            if s != "human":
                parse_agent_spec(s)  # ValueError / FileNotFoundError with a one-line reason
        if players is not None and players != len(specs):
            raise ValueError(f"--players {players} but --seats names {len(specs)} seats")
        players = len(specs)
    else:
        players = players or default_players
        specs = ["human"] + ["rules"] * (players - 1)
    if players not in counts:
        allowed = ", ".join(map(str, counts[:-1])) + f" or {counts[-1]}" if len(counts) > 1 else str(counts[0])
        raise ValueError(f"this game is played by {allowed} players, not {players}")
    return specs, players


def make_agent(spec: str, module, config, seed: int | None):
    """An Agent for one bot seat (act(observation, action_mask) -> int), built by the shared
    agent-spec parser of `cardzoo eval` (random, rules, a checkpoint path, SPEC@SEED)."""
    from training.agents import make_agent as shared_make_agent

    return shared_make_agent(spec, module, config=config, seed=seed)


def seat_label(spec: str) -> str:
    """Short display name of a seat spec (checkpoints by file name)."""
    if spec == "human":
        return spec
    try:
        from training.agents import parse_agent_spec

        return parse_agent_spec(spec).label
    except (ValueError, OSError):
        return spec
