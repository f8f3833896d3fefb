"""What one Suipi seat sees, as a JSON-safe dict (the shape is described in envs/seatview.py).

Read from public state and the viewer's own hand only: the floor (loose cards with their value,
builds with value, owner and lock), cards in every hand, per side the captured cards and the
counts that score, the viewer's hand, and the viewer's complete legal moves. Floor items are
selectable: a move lists the hand card and the floor items it takes or builds on.
"""

from __future__ import annotations

from cardzoo.envs.cards import card_str
from cardzoo.envs.seatview import SPECTATOR, base_view, grid, legal_moves_for, move, said, seat_name, waiting_prompt
from cardzoo.envs.suipi.actions import CAPTURE_ACTION, CARDS, ITEM0, LOCKED, NVAL, OWNER, REP
from cardzoo.envs.suipi.engine import IS_SPADE, JACK_D, KING_D, QUEEN_D, TEN_D, TWO_S

TITLE = "Suipi"
SIDE_NAMES = "ABC"
ACES = range(4)  # card ids of the four aces


def item_id(item) -> str:
    """A floor item's id: the card for a loose card, ``build:<lowest card>`` for a build."""
    rep = card_str(item[REP])
    return rep if item[OWNER] < 0 else f"build:{rep}"


def seat_view(env, seat: int) -> dict:
    e = env.engine
    cfg = env.config
    n = env.num_players
    v = base_view(env, seat, TITLE)
    v["status"] = (f"Deal {min(e.deal_index + 1, cfg.num_deals)} of {cfg.num_deals} · round "
                   f"{e.round + 1} of {len(cfg.deal_sizes)}" + (" · match over" if e.done else ""))
    v["facts"] = [["stock", str(e.stock_size)], ["dealer", seat_name(e.dealer, seat)],
                  ["game", f"{cfg.point_game} points"]]
    if e.last_capturer >= 0:
        v["facts"].append(["last capture", seat_name(e.last_capturer, seat)])
    v["players"] = [{
        "seat": s, "name": seat_name(s, seat), "cards": len(e.hands[s]), "status": "",
        "facts": [["partner", seat_name((s + 2) % 4, seat)]] if n == 4 else [],
        "team": SIDE_NAMES[e.side[s]], "out": False} for s in range(n)]
    floor = sorted(e.floor, key=lambda it: (it[NVAL] or 100 + it[0], it[REP]))
    v["table"] = [{"label": "Floor", "items": [_item(it, seat) for it in floor]}]
    if not e.done and seat is not SPECTATOR:
        hand = sorted(e.hands[seat], key=lambda c: (c >> 2, c & 3))
        v["hand"] = {"label": f"Your hand ({len(hand)})",
                     "cards": [{"id": card_str(c), "card": card_str(c), "mark": ""} for c in hand]}
        owned = [str(it[NVAL]) for it in e.floor if it[OWNER] == seat]
        if owned:
            v["notes"].append(f"You own a build of {', '.join(owned)}: keep a card of that value to take it.")
    by_rep = {it[REP]: it for it in e.floor}
    v["moves"] = [_move(ids, text, by_rep) for ids, text in legal_moves_for(env, seat)]
    v["prompt"] = waiting_prompt(v["turn"], seat, "Your move: a hand card, then the floor cards "
                                                  "it takes or builds on.")
    v["scores"] = grid("Sides", ["side", "captured", "spades", "aces", "10♦", "2♠", "suipis", "match score"],
                       [_side_row(e, side, seat, n) for side in range(e.ns)])
    who, cards = e.last_capture
    if cards:  # this deal's last capture, for a look back: the card played first, then what it took
        v["last"] = {"label": "Last capture", "items": [{"cards": [card_str(c) for c in cards],
                                                          "caption": f"{seat_name(who, seat)}: {card_str(cards[0])} took "
                                                                     f"{len(cards) - 1} card{'s' if len(cards) > 2 else ''}"}]}
    if e.deal_results:
        v["summary"] = _deal_summary(env, len(e.deal_results) - 1, seat)
    if e.done:
        v["result"] = _result(env, seat)
    return v


def _item(it, viewer: int) -> dict:
    if it[OWNER] < 0:
        caption = f"value {it[NVAL]}" if it[NVAL] else ""
    else:
        caption = (f"build {it[NVAL]} · {seat_name(it[OWNER], viewer)}"
                   + (" · locked" if it[LOCKED] else ""))
    return {"id": item_id(it), "cards": [card_str(c) for c in sorted(it[CARDS])], "caption": caption}


def _move(ids, text: str, by_rep: dict) -> dict:
    """A full move's ids are the hand card, the floor items (ITEM0 + lowest card), then the finish."""
    cards = [card_str(ids[0])] + [item_id(by_rep[a - ITEM0]) for a in ids[1:-1]]
    return move(ids, text, cards)


def _side_name(e, side: int, viewer: int, n: int) -> str:
    seats = [s for s in range(n) if e.side[s] == side]
    return f"{SIDE_NAMES[side]} ({', '.join(seat_name(s, viewer) for s in seats)})"


def _side_row(e, side: int, viewer: int, n: int) -> list:
    pile = e.captured[side]
    return [_side_name(e, side, viewer, n), len(pile), sum(IS_SPADE[c] for c in pile),
            sum(1 for c in pile if c in ACES), "yes" if TEN_D in pile else "", "yes" if TWO_S in pile else "",
            e.suipis[side], e.match_scores[side]]


def _deal_summary(env, index: int, viewer: int) -> dict:
    e = env.engine
    res = e.deal_results[index]
    n = env.num_players
    rows = point_rows(env, index)
    rows += [["points", *res.points], ["suipis", *res.suipis], ["points + suipis", *res.totals],
             ["deal score", *res.scores], ["match score", *e.match_scores]]
    columns = [""] + [_side_name(e, side, viewer, n) for side in range(e.ns)]
    return {"key": f"deal-{index + 1}", "title": f"End of deal {index + 1}", "columns": columns,
            "rows": [[str(c) for c in r] for r in rows], "lines": []}


def majority(values, bonus: int) -> list[str]:
    """``["27 (+3)", "25"]``: the counts, the one clear majority marked with its points."""
    best = max(values)
    return [f"{v} (+{bonus})" if v == best and list(values).count(best) == 1 else str(v) for v in values]


def point_rows(env, index: int) -> list[list[str]]:
    """What deal ``index`` scored per side, one row a point: most cards, most spades, and (for the
    last deal, whose piles are still known) 10♦, 2♠, aces and the courts of the 23-point game.
    The terminal's summary and the browser's read these rows."""
    e = env.engine
    res = e.deal_results[index]
    rows = [["cards", *majority(res.cards, 3)], ["spades", *majority(res.spades, 1)]]
    if index == len(e.deal_results) - 1:
        captured = e.last_result_state[0]
        rows.append(["10♦ (2)", *["+2" if TEN_D in p else "" for p in captured]])
        rows.append(["2♠ (1)", *["+1" if TWO_S in p else "" for p in captured]])
        aces = [sum(1 for c in p if c in ACES) for p in captured]
        rows.append(["aces (1 each)", *[f"{k} (+{k})" if k else "0" for k in aces]])
        if env.config.point_game == 23:
            for card, pts in ((JACK_D, 3), (QUEEN_D, 4), (KING_D, 5)):
                rows.append([f"{card_str(card)} ({pts})", *[f"+{pts}" if card in p else "" for p in captured]])
    return rows


def _result(env, viewer: int) -> dict:
    e = env.engine
    n = env.num_players
    win = e.winner_sides()
    score = " to ".join(str(x) for x in sorted(e.match_scores, reverse=True))
    if len(win) > 1:
        line = f"The match is a draw at {e.match_scores[win[0]]}."
    else:
        line = f"Side {_side_name(e, win[0], viewer, n)} wins the match, {score}."
    table = grid("Match score", ["side", "match score"],
                 [[_side_name(e, side, viewer, n), e.match_scores[side]] for side in range(e.ns)])
    return {"title": "Match over", "lines": [line], "columns": table["columns"], "rows": table["rows"]}


def snapshot(env) -> dict:
    """Public state before a move, handed back to ``move_lines`` and ``leftover_line``."""
    e = env.engine
    return {"deal": e.deal_index, "round": e.round, "suipis": list(e.suipis), "deals": len(e.deal_results),
            "floor": list(e.floor), "last_capturer": e.last_capturer}


def leftover_line(before: dict, seat: int, ids, name) -> str:
    """Who got the cards left on the floor when a deal ended (the last capturer; the deal's last
    move, ``ids`` by ``seat``, may itself be that capture). ``name(seat)`` names a seat."""
    take = ids[-1] == CAPTURE_ACTION
    taken = {a - ITEM0 for a in ids[1:-1]} if take else set()
    rest = [c for it in before["floor"] if it[REP] not in taken for c in it[CARDS]] + ([] if take else [ids[0]])
    cards = " ".join(card_str(c) for c in sorted(rest, key=lambda c: (c >> 2, c & 3)))
    taker = seat if take else before["last_capturer"]
    if not rest:
        return "The deal ends with an empty floor."
    if taker < 0:
        return f"Nobody captured this deal: the floor cards go to nobody: {cards}"
    left = "the last card" if len(rest) == 1 else f"the {len(rest)} cards"
    return f"Last capture: {said(name(taker), 'takes', 'take')} {left} left on the floor: {cards}"


def move_lines(env, before: dict, seat: int, ids, text: str) -> dict:
    """How a complete move reads in the log (every Suipi move is public; the seat that took the
    leftover cards reads "you take"); a suipi (a swept floor) also has a ``banner``."""
    e = env.engine
    line = text
    if len(e.deal_results) > before["deals"]:
        res = e.deal_results[-1]
        swept = sum(res.suipis) > sum(before["suipis"])
        end = f"{line}{' — SUIPI!' if swept else ''} — end of deal {len(e.deal_results)} — "
        public = end + leftover_line(before, seat, ids, lambda s: f"player_{s}")
        private = {s: end + leftover_line(before, seat, ids, lambda x: seat_name(x, s)) for s in range(env.num_players)}
        return {"public": public, "private": {s: t for s, t in private.items() if t != public}}
    if sum(e.suipis) > sum(before["suipis"]):
        return {"public": line + " — SUIPI! the floor is swept", "private": {},
                "banner": {"text": f"SUIPI! player_{seat} sweeps the floor", "sound": ""}}
    return {"public": line, "private": {}}
