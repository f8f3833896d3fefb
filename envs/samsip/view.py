"""What one Sam Sip seat sees, as a JSON-safe dict (the shape is described in envs/seatview.py).

Read from public state and the viewer's own hand only: the indicator and the wild cards, the
stake, chips, each player's cards in hand, last draw and this hand's discards (and who took
them), the discard lying in front of a player, the viewer's hand with wild cards marked, and
the viewer's legal moves (draw / take, then discard).
"""

from __future__ import annotations

from cardzoo.envs.cards import NUM_STANDARD, card_str
from cardzoo.envs.samsip.actions import DISCARD_JOKER, DRAW_STOCK, TAKE_DISCARD
from cardzoo.envs.samsip.engine import PHASE_DRAW, VOID_STALL, WIN_NAMES
from cardzoo.envs.seatview import base_view, grid, legal_moves_for, move, seat_name, waiting_prompt

TITLE = "Sam Sip"
JOKER = "Jk"


def _engine(env):
    """The match's engine (``env.engine``; ``env.game`` is its older name)."""
    return getattr(env, "engine", None) or env.game


def seat_view(env, seat: int) -> dict:
    g = _engine(env)
    v = base_view(env, seat, TITLE)
    v["status"] = f"Hand {g.hand_no}" + (" · match over" if g.done else "")
    v["facts"] = [["stake", str(g.stake)], ["stock", str(len(g.stock))], ["dealer", seat_name(g.dealer, seat)]]
    v["players"] = [_player(g, s, seat) for s in range(g.n)]
    v["table"] = _table(g, seat)
    hand_ids: list[str] = []
    if not g.done and g.active[seat]:
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
        v["hand"] = {"label": f"Your hand ({len(cards)})", "cards": cards}
    v["moves"] = [_move(ids, text, hand_ids) for ids, text in legal_moves_for(env, seat)]
    draw = g.phase == PHASE_DRAW
    v["prompt"] = waiting_prompt(v["turn"], seat, "Your move: draw from the stock" + (
        " or take the discard." if g.live >= 0 else ".") if draw else "Your move: discard a card.")
    v["scores"] = grid("Chips", ["player", "chips"],
                       [[seat_name(s, seat) + ("" if g.active[s] else " (out)"), g.chips[s]] for s in range(g.n)])
    if g.results:
        v["summary"] = _hand_summary(g, g.results[-1], seat)
    if g.done:
        v["result"] = _result(g, seat)
    return v


def _player(g, s: int, viewer: int) -> dict:
    discards = [(card_str(k) if k < NUM_STANDARD else JOKER) + (f"→{seat_name(t, viewer)}" if t >= 0 else "")
                for seat, k, t in g.events if seat == s]
    facts = [["chips", str(g.chips[s])]]
    if g.active[s]:
        facts.append(["last draw", {0: "stock", 1: "took discard"}.get(g.last_draw[s], "-")])
        facts.append(["discards", " ".join(discards[-6:]) or "-"])
    return {"seat": s, "name": seat_name(s, viewer), "cards": len(g.hands[s]) if g.active[s] else 0,
            "status": "" if g.active[s] else f"out (hand {g.elim_hand[s]})", "facts": facts,
            "team": None, "out": not g.active[s]}


def _table(g, viewer: int) -> list:
    wild = sorted(g.wild)
    standard = [card_str(c) for c in wild if c < NUM_STANDARD and c != g.indicator]
    jokers = sum(1 for c in wild if c >= NUM_STANDARD)
    zones = [{"label": "Indicator", "items": [{"cards": [card_str(g.indicator)], "caption": "turned up"}]},
             {"label": "Wild cards", "items": [{"cards": standard, "caption": ""}] + (
                 [{"cards": [JOKER], "caption": f"× {jokers} jokers"}] if jokers else [])}]
    if g.dead:
        zones.append({"label": "Dead cards", "items": [{"cards": [card_str(c) for c in sorted(g.dead)],
                                                         "caption": ""}]})
    if g.live >= 0 and not g.done:
        frm = seat_name(g.events[-1][0], viewer) if g.events else "?"
        zones.append({"label": "Discard", "items": [{"cards": [card_str(g.live)], "caption": (
            f"from {frm}, in front of {seat_name(g.live_for, viewer)}")}]})
    return zones


def _move(ids, text: str, hand_ids: list[str]) -> dict:
    action = ids[-1]
    if action < NUM_STANDARD:
        return move(ids, text, [card_str(action)])
    if action == DISCARD_JOKER:  # any joker: the engine discards one of them
        jokers = [c for c in hand_ids if c.startswith(JOKER)]
        return move(ids, text, jokers[:1], [(jokers, 1)])
    return move(ids, text)  # draw, take, declare: no card to select


def _hand_summary(g, res, viewer: int) -> dict:
    key = f"hand-{res.hand_no}"
    if res.winner is None:
        why = ("nobody drew from the stock for too long" if getattr(res, "void_reason", "") == VOID_STALL
               else "the stock ran out")
        return {"key": key, "title": f"Hand {res.hand_no} is void", "columns": [], "rows": [],
                "lines": [f"{why[0].upper()}{why[1:]}; the stake stays {res.stake}."]}
    rows = []
    for s in range(g.n):
        if not g.active[s] and s not in res.eliminated:
            continue
        rows.append([seat_name(s, viewer) + (" (knocked out)" if s in res.eliminated else ""),
                     str(g.chips[s]), f"{res.deltas[s]:+d}"])
    who = seat_name(res.winner, viewer)
    lines = [f"{who} win{'' if who == 'you' else 's'} with {WIN_NAMES[res.kind]}: "
             + " ".join(card_str(c) for c in res.winning_hand),
             f"Stake was {res.stake}" + ("" if g.done else f", now {g.stake}") + "."]
    return {"key": key, "title": f"Hand {res.hand_no}: {who} win{'' if who == 'you' else 's'}",
            "columns": ["player", "chips", "change"], "rows": rows, "lines": lines}


def _result(g, viewer: int) -> dict:
    ranks = g.ranking()
    order = sorted(range(g.n), key=lambda s: ranks[s])
    rows = [[_place(ranks[s], ranks), seat_name(s, viewer), str(g.chips[s])] for s in order]
    best = [seat_name(s, viewer) for s in order if ranks[s] == ranks[order[0]]]
    return {"title": "Match over", "lines": [f"Winner: {', '.join(best)}"],
            "columns": ["place", "player", "chips"], "rows": rows}


def _place(rank: float, ranks) -> str:
    """1st, 2nd, …; a shared place reads 'tied 2nd' (ranks of tied seats are averaged)."""
    tied = sum(1 for r in ranks if r == rank)
    place = int(rank - (tied - 1) / 2)
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(place if place < 20 else place % 10, "th")
    return ("tied " if tied > 1 else "") + f"{place}{suffix}"


def snapshot(env) -> dict:
    """Public state before a move, handed back to ``move_lines``."""
    return {"results": len(_engine(env).results)}


def move_lines(env, before: dict, seat: int, ids, text: str) -> dict:
    """How a complete move reads in the log: the card drawn from the stock is the drawer's alone."""
    g = _engine(env)
    action = ids[-1]
    private = {}
    public = text
    if action == DRAW_STOCK:
        public = "draws from the stock"
        if len(g.results) == before["results"] and g.turn == seat and g.hands[seat]:
            private[seat] = f"draws {card_str(g.hands[seat][-1])} from the stock"
    elif action == TAKE_DISCARD:
        public = text.replace("take ", "takes ", 1)
    elif text.startswith("discard "):
        public = text.replace("discard ", "discards ", 1)
    if len(g.results) > before["results"]:
        res = g.results[-1]
        end = (f"hand {res.hand_no} is void" if res.winner is None
               else f"player_{res.winner} wins hand {res.hand_no} with {WIN_NAMES[res.kind]}")
        public += f" — {end}"
        private = {s: f"{t} — {end}" for s, t in private.items()}
    return {"public": public, "private": private}
