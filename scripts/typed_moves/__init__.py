"""What a person types, read as one legal move: `7h 7s`, `5c 3d 2s`, `2h build 10 on 8s`, `q`.

The terminal's prompt (`cardzoo play`) and the browser's "why not?" answer (`cardzoo serve`)
read moves here, so a refusal names the same rule in both. A game's reader is
``read(env, text, seat) -> Move`` in ``cardzoo.scripts.typed_moves.<game>``; a game without
one is read by its env's ``parse_move``. Every reader raises ValueError (``IllegalMoveError``
carries the reason, with its rule) for text that is no legal move now.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from cardzoo.envs.cards import RANK_NAMES

# a rank without a suit, as typed: `8`, `10`, `t`, `q`, `a` / `1` (ace) — a bare number is a rank
RANK_WORDS = {name.lower(): r for r, name in enumerate(RANK_NAMES)}
RANK_WORDS.update({"t": 9, "1": 0, "ace": 0, "jack": 10, "queen": 11, "king": 12})
RANK_WORDS.update(
    {w: r for r, w in enumerate(("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"), start=1)}
)  # the words a player says: `ten`, `seven`

READERS = {game: f"cardzoo.scripts.typed_moves.{game}" for game in ("siantappo", "suipi", "samsip")}


@dataclass(frozen=True)
class Move:
    """One complete move chosen by a person: its action ids, the text shown and recorded, and
    ``cards``: the exact cards for ``env.play`` where the ids alone do not fix them (Siantappo
    suits), else None."""

    ids: tuple[int, ...]
    text: str
    cards: str | None = None


def read_move(env, text: str, seat: int) -> Move:
    """The one legal move ``text`` names for ``seat`` (the game's reader, else ``env.parse_move``);
    ValueError saying why not."""
    module = READERS.get(env.game_name)
    if module is not None:
        return importlib.import_module(module).read(env, text, seat)
    ids = tuple(env.parse_move(text))
    return Move(ids, full_text(env, ids))


def full_text(env, ids: tuple[int, ...]) -> str:
    """The text of the complete move ``ids`` as the game lists it."""
    for move_ids, text in env.full_moves():
        if tuple(move_ids) == ids:
            return text
    return " ".join(env.action_text(a) for a in ids)
