"""Undo at the terminal (`undo`) and in the browser (*Undo*): which moves a person may take back.

A match is a function of its seed and its actions, so taking moves back is dealing the match
again and playing the recorded actions before them. Undo never reveals information: a move after
which the person saw cards that were hidden until then (a card drawn from the stock, a new deal,
a card received in a swap) is never taken back, so undo stops there (after a Sam Sip draw from
the stock it stops at the draw: the card stays drawn). The moves of the bots are public play:
what the person saw of them stays seen, as in any practice game (docs/play.md, docs/serve.md).

Both tables keep a log of whole moves, each a dict with ``seat``, ``upto`` (recorded steps after
it) and ``reveals`` (the seats that saw hidden cards by it, ``shown_hidden``).
"""

from __future__ import annotations

import importlib
from collections import Counter

NOTHING_YET = "nothing to undo: you have not moved yet"


def cards_seen(env, seat: int) -> Counter:
    """The cards ``seat`` sees now, as text: its hand, the table, and the cards everybody knows
    are in a hand (its game's seat view, ``envs/<game>/view.py``)."""
    view = importlib.import_module(f"cardzoo.envs.{env.game_name}.view").seat_view(env, seat)
    seen = Counter(c["card"] for c in view["hand"]["cards"])
    seen.update(card for zone in view["table"] for item in zone["items"] for card in item["cards"])
    seen.update(card for p in view["players"] for card in p.get("known", ()))
    return seen


def shown_hidden(env, seat: int, before: Counter) -> bool:
    """Did ``seat``'s hand gain a card it could not see before (``before``: ``cards_seen`` then)?"""
    hand = importlib.import_module(f"cardzoo.envs.{env.game_name}.view").seat_view(env, seat)["hand"]["cards"]
    return bool(Counter(c["card"] for c in hand) - before)


def undo_point(log, seat: int, words) -> int | str:
    """The index in ``log`` to cut back to for ``seat``'s undo (its last move and everything
    after it go), or why there is none. ``words(i)`` says log entry ``i`` as the seat reads it."""
    mine = [i for i, e in enumerate(log) if e["seat"] == seat]
    if not mine:
        return NOTHING_YET
    keep = mine[-1]
    seen = [i for i in range(keep, len(log)) if seat in log[i].get("reveals", ())]
    if not seen:
        return keep
    i = seen[-1]
    whose = "your move" if log[i]["seat"] == seat else f"player_{log[i]['seat']}'s move"
    return (
        f"undo stops here: {whose} `{words(i)}` showed you cards that were hidden (a card drawn, "
        "a new deal or a swapped card), and undo never hides them again"
    )


def upto(log, keep: int) -> int:
    """The recorded steps to play again for a table cut back to ``log[:keep]``."""
    return log[keep - 1]["upto"] if keep else 0
