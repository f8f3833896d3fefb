"""Suipi as typed: the hand card, then any card of each floor item (`5c 3d 2s`); a verb (take,
build, drop) only where it is needed; ranks alone (`8 8`, `q`) where they fit one move."""

from __future__ import annotations

import itertools
import re

from cardzoo.envs.base import IllegalMoveError
from cardzoo.envs.cards import RANK_NAMES, card_str, parse_card
from cardzoo.envs.seatview import article
from cardzoo.envs.suipi import actions
from cardzoo.envs.suipi.actions import CARDS, NVAL, OWNER, REP
from cardzoo.scripts.typed_moves import RANK_WORDS, Move

TAKE, BUILD, DROP = "take", "build", "drop"
VERBS = {
    "take": TAKE,
    "takes": TAKE,
    "capture": TAKE,
    "captures": TAKE,
    "x": TAKE,
    "build": BUILD,
    "builds": BUILD,
    "drop": DROP,
    "drops": DROP,
    "trail": DROP,
    "trails": DROP,
}
FILLERS = {"on", "with", "and", "to", "locked", "the", "onto", "of"}


def _move_parts(ids) -> tuple[int, tuple[int, ...], str, int]:
    """(hand card, floor item representatives, take/build/drop, build value) of a move's ids."""
    last = ids[-1]
    kind = TAKE if last == actions.CAPTURE_ACTION else DROP if last == actions.DROP_ACTION else BUILD
    return ids[0], tuple(a - actions.ITEM0 for a in ids[1:-1]), kind, last - actions.BUILD0 if kind == BUILD else 0


def read(env, text: str, seat: int) -> Move:
    """Forgiving input: the hand card, then any card of each floor item; a verb (take, build,
    drop) only where it is needed. A capture is the default; a build needs `build`; input that
    names exactly one legal move is accepted. A rank without a suit (`8 8`, `q`, `5 3 2`) stands
    for a card of that rank (the first in your hand, the others on the floor) when exactly one
    legal move fits; a number right after `build` is the build's value."""
    verb, value, pats = _read_words(text)
    if not pats:
        raise IllegalMoveError("type the card you play, then the floor cards it takes (e.g. 5c 3d 2s, or 8 8)")
    heads = _hand_cards(env, pats[0], seat)
    readings = _floor_readings(env, pats[1:], seat)
    named = bool(pats[1:])
    if verb == DROP and named:
        raise IllegalMoveError("a drop lays the card down alone: name no floor cards")
    mine = [(tuple(ids), t, _move_parts(ids)) for ids, t in env.full_moves() if ids[0] in heads]

    def fits(parts, kinds):
        _, items, kind, v = parts
        return (
            kind in kinds
            and (not named or frozenset(items) in readings)
            and (kind != BUILD or value is None or v == value)
        )

    cands = [(ids, t) for ids, t, parts in mine if fits(parts, {verb} if verb else {TAKE, DROP})]
    if len(cands) == 1:
        return Move(*cands[0])
    what = " ".join(card_str(x) if k == "card" else RANK_NAMES[x] for k, x in pats[1:])
    what = (card_str(pats[0][1]) if pats[0][0] == "card" else article(RANK_NAMES[pats[0][1]])) + (
        f" with {what}" if named else ""
    )
    if cands:
        raise IllegalMoveError(
            "that could mean " + " or ".join(f"`{t}`" for _, t in cands) + " — type one of them (or #N from the list)"
        )
    builds = [t for ids, t, parts in mine if fits(parts, {BUILD})]
    if verb is None and builds:
        raise IllegalMoveError(
            f"{what} can only build ({'; '.join(builds)}): a build needs the word "
            f"build, e.g. `{_ascii(heads[0])} build {builds[0].split(' build ')[1]}`"
        )
    wider = [
        t
        for ids, t, parts in mine
        if (verb is None or parts[2] == verb)
        and named
        and any(reading <= frozenset(parts[1]) for reading in readings)
        and (parts[2] != BUILD or value is None or parts[3] == value)
    ]
    if len(wider) == 1:  # what was named is part of one legal move: said, not played (a value to make up, S12)
        raise IllegalMoveError(f"no legal move plays {what} alone: `{wider[0]}` does — type it, or #N from the list")
    if verb == BUILD and value is not None:  # `build N` is a value: say which values this card can build
        made = [
            (t, parts)
            for ids, t, parts in mine
            if parts[2] == BUILD and (not named or any(reading <= frozenset(parts[1]) for reading in readings))
        ]
        if not made:
            raise IllegalMoveError(
                f"{what} cannot build {value}: it builds nothing now (rules S9: a build needs "
                "floor cards to make its value and a card of that value left in your hand)"
            )
        values = sorted({parts[3] for _, parts in made})
        example = next(t for t, parts in made if parts[3] == values[0])
        raise IllegalMoveError(
            f"{what} cannot build {value} (a number after `build` is the build's value); it "
            f"can build {' or '.join(map(str, values))}: "
            + "; ".join(f"`{t}`" for t, _ in made)
            + f" — e.g. `{_typed(example)}`"
        )
    options = "; ".join(t for _, t, _ in mine)
    played = card_str(heads[0]) if len(heads) == 1 else " or ".join(card_str(h) for h in heads)
    raise IllegalMoveError(
        f"no legal move plays {what}{_rule(env, heads[0], verb, named, seat)}"
        + (f"; {played} can: {options}" if options else f"; {played} cannot be played now")
    )


def _rule(env, head: int, verb, named: bool, seat: int) -> str:
    """The rule of docs/rules/suipi.md that refuses the move asked for, in a parenthesis."""
    e = env.engine
    value = (head >> 2) + 1
    if verb == DROP or (verb is None and not named):
        if any(it[OWNER] == seat for it in e.floor):
            return " (rules S10: no drop while you own a build on the floor, S11)"
        if any(it[NVAL] == value and head >> 2 < 10 for it in e.floor):
            return (
                f" (rules S10: {article(str(value))} is already on the floor, and no two floor items share "
                "a value, S12)"
            )
        return ""
    if verb == BUILD:
        return (
            " (rules S9: a build adds the card to floor cards to make a value you still hold a card for, "
            "with no two floor items of one value after it, S12)"
        )
    return f" (rules S8: a take captures items worth {value}, or loose cards adding up to {value})"


def _hand_cards(env, pat: tuple, seat: int) -> list[int]:
    """The hand cards the first word may stand for (a card, or every card of a rank held)."""
    e = env.engine
    kind, x = pat
    if kind == "card":
        if x not in e.hands[seat]:
            on_floor = any(x in it[CARDS] for it in e.floor)
            where = "on the floor: start with the card from your hand" if on_floor else "not in your hand"
            raise IllegalMoveError(f"{card_str(x)} is {where}")
        return [x]
    heads = sorted(c for c in e.hands[seat] if c >> 2 == x)
    if not heads:
        raise IllegalMoveError(f"you hold no {RANK_NAMES[x]}: start with a card from your hand")
    return heads


def _floor_readings(env, pats: list[tuple], seat: int) -> set[frozenset]:
    """Every set of floor items the other words may name (a card names its item; a rank the
    floor's cards of that rank, else the build of that value)."""
    e = env.engine
    by_card = {c: it for it in e.floor for c in it[CARDS]}
    choices = []  # per floor pattern: the floor cards it may stand for
    for kind, x in pats:
        if kind == "card":
            if x not in by_card:
                held = " (it is in your hand: play one card at a time)" if x in e.hands[seat] else ""
                raise IllegalMoveError(f"{card_str(x)} is not on the floor{held}")
            choices.append([x])
        else:  # `9 9` takes [4♦+5♣=9]: no two floor items share a value, rules S12
            here = sorted(c for c in by_card if c >> 2 == x) or [
                it[REP] for it in e.floor if it[OWNER] >= 0 and it[NVAL] == x + 1
            ]
            if not here:
                raise IllegalMoveError(f"there is no {RANK_NAMES[x]} on the floor")
            choices.append(here)
    return {
        frozenset(by_card[c][REP] for c in combo)
        for combo in itertools.islice(itertools.product(*choices), 5000)
        if len(set(combo)) == len(combo)
    }


def _read_words(text: str) -> tuple:
    """(verb or None, a build's value or None, the card patterns: ("card", id) or ("rank", r))."""
    tokens = [w for w in re.findall(r"=\s*\w+|[^\s+,\[\]|=]+", text) if not w.startswith("=")]
    verb, value = None, None
    pats: list[tuple[str, int]] = []
    for i, w in enumerate(tokens):
        low = w.lower()
        if low in VERBS:
            if verb is not None and VERBS[low] != verb:
                raise IllegalMoveError(f"say one of take, build or drop, not both {verb} and {VERBS[low]}")
            verb = VERBS[low]
        elif low in FILLERS:
            continue
        elif low.isdigit() and i and VERBS.get(tokens[i - 1].lower()) == BUILD:
            value = int(low)  # `2c build 7`, `2h build 10 on 8s`: a number after build is the build's value
        elif low in RANK_WORDS:
            pats.append(("rank", RANK_WORDS[low]))
        else:
            try:
                pats.append(("card", parse_card(w)))
            except ValueError as err:
                raise IllegalMoveError(str(err)) from None
    return verb, value, pats


def _typed(text: str) -> str:
    """A move's text as it is typed: ``2♣ build 7 on [5♣=5]`` → ``2c build 7 on 5c``."""
    words = text.replace("[", " ").replace("]", " ").replace("+", " ").replace("|", " ").split()
    kept = [w for w in words if not w.startswith("=") and "=" not in w and w != "locked"]
    return " ".join(w.translate(str.maketrans("♠♣♦♥", "scdh")).lower() for w in kept)


def _ascii(card: int) -> str:
    return card_str(card).translate(str.maketrans("♠♣♦♥", "scdh")).lower()
