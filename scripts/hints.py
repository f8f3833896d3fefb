"""A hint as a card player reads it, at the terminal (`hint`) and in the browser (*Hint*).

The game's model ranks every complete move from the seat's own observation (its hand and the
public table); a hint shows that ranking with words, never the model's numbers (a move ranker's
estimated reward, a policy's probability: RL quantities that mean nothing at the table, and
whose small differences are noise between moves a player would call alike). The model's first
choice is *best*; a move close to it is *about as good*; further down *fine*, then *risky*. Moves
the rules treat alike share one entry and one label (``ranked``'s ``alike``).
"""

from __future__ import annotations

from collections.abc import Sequence

from cardzoo.training.agents.specs import HINTS_SHOWN

# How far below the best move a move may be and keep each label: a move ranker's estimates are
# rewards to the end of the match (a match is worth -1..+1 per round), a policy's probabilities
# are compared as a fraction of the best one's.
CLOSE_REWARD, FINE_REWARD = 0.05, 0.3
CLOSE_SHARE, FINE_SHARE = 0.8, 0.3
LABELS = ("best", "about as good", "fine", "risky")


def label(unit: str, best: float, value: float) -> str:
    """The word for a move estimated ``value`` where the best is ``best`` (``unit`` "Q": rewards
    to the end of the match; else probabilities)."""
    if unit == "Q":
        gap = best - value
        return LABELS[1] if gap <= CLOSE_REWARD else LABELS[2] if gap <= FINE_REWARD else LABELS[3]
    share = value / best if best > 0 else 0.0
    return LABELS[1] if share >= CLOSE_SHARE else LABELS[2] if share >= FINE_SHARE else LABELS[3]


def ranked(advice: Sequence, unit: str, texts: dict, alike=tuple, shown: int = HINTS_SHOWN) -> list[dict]:
    """The first ``shown`` moves of an adviser's ``advise`` (``[(ids, value)]``, best first), each
    ``{"ids", "text", "rank", "label", "alike"}``: rank 1 is the model's choice.

    Moves the rules treat alike (``alike(ids)``, the env's ``rule_class``: Suipi's 4♦ and 4♣ when
    neither is a spade nor a point card) are one entry, worth the best of them: the model's
    estimates of two such moves differ only by noise, and a player would call them one move.
    ``alike`` lists the others, ``[{"ids", "text"}]``, so both are marked the same."""
    classes: dict = {}  # rule class -> its entry, in the order of its best member
    for ids, value in advice:
        key = alike(tuple(ids))
        move = {"ids": [int(a) for a in ids], "text": texts.get(tuple(ids), "")}
        if key in classes:
            classes[key]["alike"].append(move)
        else:
            classes[key] = {**move, "value": float(value), "alike": []}
    entries = list(classes.values())[:shown]
    if not entries:
        return []
    best = entries[0]["value"]
    for rank, entry in enumerate(entries, 1):
        value = entry.pop("value")
        entry["rank"] = rank
        entry["label"] = LABELS[0] if rank == 1 else label(unit, best, value)
    return entries


NOTE = "the model's ranking, from your cards and the table only"
