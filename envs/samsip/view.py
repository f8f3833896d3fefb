"""What one Sam Sip seat sees, as a JSON-safe dict (the shape is described in envs/seatview.py).

Read from public state and the viewer's own hand only: the indicator and the wild cards, the
stake, chips, each player's cards in hand, last draw and this hand's discards (and who took
them), the taken discards each player still holds, the discard lying in front of a player, the
viewer's hand with wild cards marked, and the viewer's legal moves (draw / take, then discard).
"""

from __future__ import annotations

from cardzoo.envs.cards import NUM_STANDARD, RANK_NAMES, card_str
from cardzoo.envs.samsip.actions import DECLARE, DISCARD_JOKER, DRAW_STOCK, TAKE_DISCARD
from cardzoo.envs.samsip.engine import PARTNER, PHASE_DRAW, VOID_STALL, WIN_NAMES, WIN_PAIRS
from cardzoo.envs.samsip.words import word
from cardzoo.envs.seatview import (
    SPECTATOR,
    Reader,
    article,
    base_view,
    grid,
    legal_moves_for,
    line_start,
    move,
    ordinal,
    waiting_prompt,
    worded,
)

TITLE = "Sam Sip"
JOKER = "Jk"


def _engine(env):
    """The match's engine (``env.engine``; ``env.game`` is its older name)."""
    return getattr(env, "engine", None) or env.game


def seat_view(env, seat: int, watcher: bool = False) -> dict:
    """What ``seat`` sees, worded for the seat itself ("you"), or for a ``watcher`` shown that
    seat (a bots-only match, a replay: every seat is player_N)."""
    g = _engine(env)
    r = Reader(None if watcher else seat)
    v = base_view(env, seat, TITLE)
    v["direction"] = "anticlockwise"  # P1: the next player sits on the right
    v["status_fact"] = {"what": "hand_no", "hand": g.hand_no, "over": g.done}
    v["facts"] = [["stake", str(g.stake)], ["stock", str(len(g.stock))], ["dealer", r.name(g.dealer)]]
    v["players"] = [_player(g, s, r) for s in range(g.n)]
    v["table"] = _table(g)
    hand_ids: list[str] = []
    if not g.done and seat is not SPECTATOR and g.active[seat]:
        cards = []
        jokers = 0
        for c in sorted(g.hands[seat]):
            if c >= NUM_STANDARD:
                jokers += 1
                cid = JOKER if jokers == 1 else f"{JOKER}#{jokers}"  # jokers are alike: ids only tell them apart
            else:
                cid = card_str(c)
            hand_ids.append(cid)
            cards.append({"id": cid, "card": card_str(c), "mark": "wild" if c in g.wild else ""})
        v["hand"] = {"label": f"{r.title(seat)} hand ({len(cards)})", "cards": cards}
        v["notes"].append(pairs_line(g.hands[seat], g.wild, g.dead, r.title(seat)))
    v["moves"] = [_move(ids, text, hand_ids) for ids, text in legal_moves_for(env, seat)]
    task = {"what": "your_move", "draw": g.phase == PHASE_DRAW, "can_take": g.live >= 0}
    v["prompt_fact"] = waiting_prompt(v["turn"], seat, task)
    v["scores"] = grid(
        "Chips", ["player", "chips"], [[r.name(s) + ("" if g.active[s] else " (out)"), g.chips[s]] for s in range(g.n)]
    )
    if g.results:
        v["summary"] = _hand_summary(g, g.results[-1], r)
    if g.done:
        v["result"] = _result(g, r)
    return worded(v, word, r)


def _player(g, s: int, r: Reader) -> dict:
    discards = [
        (card_str(k) if k < NUM_STANDARD else JOKER) + (f"→{r.name(t)}" if t >= 0 else "")
        for seat, k, t in g.events
        if seat == s
    ]
    facts = [["chips", str(g.chips[s])]]
    if g.active[s]:
        facts.append(["last draw", {0: "stock", 1: "took discard"}.get(g.last_draw[s], "-")])
        facts.append(["discards", " ".join(discards[-6:]) or "-"])
    return {
        "seat": s,
        "name": r.name(s),
        "cards": len(g.hands[s]) if g.active[s] else 0,
        "status_facts": [] if g.active[s] else [{"what": "out_since", "who": s, "hand": g.elim_hand[s]}],
        "facts": facts,
        "team": None,
        "out": not g.active[s],
        "known": [card_str(k) for k in sorted(g.known[s])] if g.active[s] else [],
    }


def _table(g) -> list:
    wild = sorted(g.wild)
    standard = [card_str(c) for c in wild if c < NUM_STANDARD and c != g.indicator]
    jokers = sum(1 for c in wild if c >= NUM_STANDARD)
    zones = [
        {"label": "Indicator", "items": [{"cards": [card_str(g.indicator)], "about": {"what": "turned_up"}}]},
        {
            "label": "Wild cards",
            "items": [{"cards": standard}]
            + ([{"cards": [JOKER], "about": {"what": "jokers", "count": jokers}}] if jokers else []),
        },
    ]
    if g.dead:
        zones.append({"label": "Dead cards", "items": [{"cards": [card_str(c) for c in sorted(g.dead)]}]})
    if g.live >= 0 and not g.done:
        about = {"what": "lies_before", "who": g.events[-1][0] if g.events else None, "to": g.live_for}
        zones.append({"label": "Discard", "items": [{"cards": [card_str(g.live)], "about": about}]})
    return zones


def _move(ids, text: str, hand_ids: list[str]) -> dict:
    action = ids[-1]
    if action < NUM_STANDARD:
        return move(ids, text, [card_str(action)])
    if action == DISCARD_JOKER:  # any joker: the engine discards one of them
        jokers = [c for c in hand_ids if c.startswith(JOKER)]
        return move(ids, text, jokers[:1], [(jokers, 1)])
    return move(ids, text)  # draw, take, declare: no card to select


def _hand_summary(g, res, r: Reader) -> dict:
    key = f"hand-{res.hand_no}"
    if res.winner is None:
        why = (
            "nobody drew from the stock for too long"
            if getattr(res, "void_reason", "") == VOID_STALL
            else "the stock ran out"
        )
        return {
            "key": key,
            "title": f"Hand {res.hand_no} is void",
            "columns": [],
            "rows": [],
            "lines": [f"{why[0].upper()}{why[1:]}; the stake stays {res.stake}."],
        }
    rows = []
    for s in range(g.n):
        if not g.active[s] and s not in res.eliminated:
            continue
        rows.append(
            [r.name(s) + (" (knocked out)" if s in res.eliminated else ""), str(g.chips[s]), f"{res.deltas[s]:+d}"]
        )
    wins = r.said(res.winner, "wins", "win")
    lines = [
        line_start(f"{wins} with {WIN_NAMES[res.kind]}: {winning_cards(res)}"),
        f"Stake was {res.stake}" + ("" if g.done else f", now {g.stake}") + ".",
    ]
    return {
        "key": key,
        "title": f"Hand {res.hand_no}: {wins}",
        "columns": ["player", "chips", "change"],
        "rows": rows,
        "lines": lines,
    }


def _result(g, r: Reader) -> dict:
    ranks = g.ranking()
    order = sorted(range(g.n), key=lambda s: ranks[s])
    rows = [[_place(ranks[s], ranks), r.name(s), str(g.chips[s])] for s in order]
    best = [r.name(s) for s in order if ranks[s] == ranks[order[0]]]
    return {
        "title": "Match over",
        "lines": [f"Winner: {', '.join(best)}"],
        "columns": ["place", "player", "chips"],
        "rows": rows,
    }


def _place(rank: float, ranks) -> str:
    """1st, 2nd, …; a shared place reads 'tied 2nd' (ranks of tied seats are averaged)."""
    tied = sum(1 for r in ranks if r == rank)
    place = int(rank - (tied - 1) / 2)
    return ("tied " if tied > 1 else "") + ordinal(place)


def snapshot(env) -> dict:
    """Public state before a move, handed back to ``move_facts``."""
    return {"results": len(_engine(env).results)}


def move_facts(env, before: dict, seat: int, ids, text: str) -> list[dict]:
    """What a complete move did, as facts (who, what, which cards): ``draw`` (the card drawn is
    secret to the drawer), ``take``, ``discard``; then the hand's end (``hand`` with its winner,
    or void) and who it knocked out (``knocked_out``)."""
    g = _engine(env)
    action = ids[-1]
    ended = len(g.results) > before["results"]
    if action == DRAW_STOCK:
        fact = {"what": "draw", "who": seat}
        if not ended and g.turn == seat and g.hands[seat]:
            fact.update(cards=[card_str(g.hands[seat][-1])], secret=[seat])
    elif action == TAKE_DISCARD:
        fact = {"what": "take", "who": seat, "cards": [text.removeprefix("take ")]}
    elif action == DECLARE:
        fact = {"what": "declare", "who": seat}
    else:
        fact = {"what": "discard", "who": seat, "cards": [text.removeprefix("discard ")]}
    facts = [fact]
    if ended:
        res = g.results[-1]
        facts.append(
            {
                "what": "hand",
                "who": res.winner,
                "hand": res.hand_no,
                "kind": WIN_NAMES[res.kind] if res.winner is not None else None,
            }
        )
        facts += [{"what": "knocked_out", "who": s} for s in sorted(res.eliminated)]
    return facts


def pairs_of(cards, wild, dead=frozenset()) -> tuple[list[tuple[int, int]], list[int]]:
    """The most disjoint pairs ``cards`` make (natural pairs preferred) and the cards left over.

    Natural pairs: A-9 adding up to 10, or two of 10, J, Q, K; a wild card pairs with anything;
    a dead card (the Khi variant) pairs only with a wild card.
    """

    def pairs(a, b):
        if a in wild or b in wild:
            return True
        if a in dead or b in dead or a >= NUM_STANDARD or b >= NUM_STANDARD:
            return False
        return PARTNER[a >> 2] == b >> 2

    best: tuple[int, int, list] = (-1, -1, [])

    def search(left: list[int], chosen: list[tuple[int, int]]):
        nonlocal best
        if not left:
            natural = sum(1 for a, b in chosen if a not in wild and b not in wild)
            if (len(chosen), natural) > best[:2]:
                best = (len(chosen), natural, list(chosen))
            return
        first, rest = left[0], left[1:]
        search(rest, chosen)  # leave ``first`` unpaired
        for i, other in enumerate(rest):
            if pairs(first, other):
                search(rest[:i] + rest[i + 1 :], chosen + [(first, other)])

    search(sorted(cards), [])
    chosen = best[2]
    used = {c for p in chosen for c in p}
    return chosen, [c for c in sorted(cards) if c not in used]


def pair_text(pair, wild) -> str:
    """``3♣+7♥``; a wild card last and marked ``*``: ``8♣+10♥*``."""
    a, b = sorted(pair, key=lambda c: (c in wild, c))
    return "+".join(card_str(c) + ("*" if c in wild else "") for c in (a, b))


def winning_cards(res) -> str:
    """A won hand's cards, wild ones marked ``*``: three pairs as pairs (``3♣+7♥, 8♣+10♥*,
    J♠+J♥ (* wild)``), a special hand as its six cards. The terminal and the browser show this."""
    wild = res.wild
    if res.kind == WIN_PAIRS:
        text = ", ".join(pair_text(p, wild) for p in pairs_of(res.winning_hand, wild, res.dead)[0])
    else:
        text = " ".join(card_str(c) + ("*" if c in wild else "") for c in res.winning_hand)
    return text + (" (* wild)" if any(c in wild for c in res.winning_hand) else "")


def pairs_line(hand, wild, dead, whose: str = "Your") -> str:
    """``Your pairs: J♠+J♥, Q♣+Q♦ — one more needed (a 3 for your 7♦, or a wild card)``: what a
    hand has of three pairs, and with five cards and two pairs, which card completes it."""
    pairs, left = pairs_of(hand, wild, dead)
    need = 3 - len(pairs)
    line = f"{whose} pairs: " + (", ".join(pair_text(p, wild) for p in pairs) or "none yet")
    if need <= 0:
        return line
    line += f" — {('one', 'two', 'three')[need - 1]} more needed"
    if need == 1 and len(left) == 1:  # five cards, two pairs: say which cards complete it
        c = left[0]
        if c in wild:
            line += f" (any card: {'yours' if whose == 'Your' else whose} is wild)"
        elif c in dead or c >= NUM_STANDARD:
            line += f" (a wild card for {whose.lower() if whose == 'Your' else whose} {card_str(c)})"
        else:
            line += (
                f" ({article(RANK_NAMES[PARTNER[c >> 2]])} for {whose.lower() if whose == 'Your' else whose} "
                f"{card_str(c)}, or a wild card)"
            )
    return line
