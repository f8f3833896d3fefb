"""What one Suipi seat sees, as a JSON-safe dict (the shape is described in envs/seatview.py).

Read from public state and the viewer's own hand only: the floor (loose cards with their value,
builds with value, owner and lock), cards in every hand, per side the captured cards and the
counts that score, the viewer's hand, and the viewer's complete legal moves. Floor items are
selectable: a move lists the hand card and the floor items it takes or builds on.
"""

from __future__ import annotations

from cardzoo.envs.cards import card_str
from cardzoo.envs.seatview import (
    SPECTATOR,
    Reader,
    base_view,
    grid,
    legal_moves_for,
    move,
    place_names,
    waiting_prompt,
    worded,
)
from cardzoo.envs.suipi.actions import CAPTURE_ACTION, CARDS, ITEM0, LOCKED, NVAL, OWNER, REP, build_groups
from cardzoo.envs.suipi.engine import IS_SPADE, JACK_D, KING_D, QUEEN_D, TEN_D, TWO_S
from cardzoo.envs.suipi.words import banner, word  # noqa: F401  (the view's facts in words: log_line, the terminal)

TITLE = "Suipi"
SIDE_NAMES = "ABC"
ACES = range(4)  # card ids of the four aces


def item_id(item) -> str:
    """A floor item's id: the card for a loose card, ``build:<lowest card>`` for a build."""
    rep = card_str(item[REP])
    return rep if item[OWNER] < 0 else f"build:{rep}"


def seat_view(env, seat: int, watcher: bool = False) -> dict:
    """What ``seat`` sees, worded for the seat itself ("you"), or for a ``watcher`` shown that
    seat (a bots-only match, a replay: every seat is player_N)."""
    e = env.engine
    cfg = env.config
    n = env.num_players
    r = Reader(None if watcher else seat)
    v = base_view(env, seat, TITLE)
    v["status_fact"] = {
        "what": "deal",
        "deal": min(e.deal_index + 1, cfg.num_deals),
        "of": cfg.num_deals,
        "round": e.round + 1,
        "rounds": len(cfg.deal_sizes),
        "over": e.done,
    }
    v["facts"] = [["stock", str(e.stock_size)], ["dealer", r.name(e.dealer)], ["game", f"{cfg.point_game} points"]]
    if e.last_capturer >= 0:
        v["facts"].append(["last capture", r.name(e.last_capturer)])
    v["players"] = [
        {
            "seat": s,
            "name": r.name(s),
            "cards": len(e.hands[s]),
            "status_facts": [],
            "facts": [["partner", r.name((s + 2) % 4)]] if n == 4 else [],
            "team": SIDE_NAMES[e.side[s]],
            "out": False,
        }
        for s in range(n)
    ]
    floor = sorted(e.floor, key=lambda it: (it[NVAL] or 100 + it[0], it[REP]))
    v["table"] = [{"label": "Floor", "items": [_item(it) for it in floor]}]
    if not e.done and seat is not SPECTATOR:
        hand = sorted(e.hands[seat], key=lambda c: (c >> 2, c & 3))
        v["hand"] = {
            "label": f"{r.title(seat)} hand ({len(hand)})",
            "cards": [{"id": card_str(c), "card": card_str(c), "mark": ""} for c in hand],
        }
        owned = [str(it[NVAL]) for it in e.floor if it[OWNER] == seat]
        if owned:
            v["notes"].append(
                f"{'You own' if r.you == seat else r.name(seat) + ' owns'} a build of "
                f"{', '.join(owned)}: keep a card of that value to take it."
            )
    by_rep = {it[REP]: it for it in e.floor}
    v["moves"] = [_move(ids, text, by_rep) for ids, text in legal_moves_for(env, seat)]
    v["prompt_fact"] = waiting_prompt(v["turn"], seat, {"what": "your_move"})
    v["scores"] = grid(
        "Sides",
        ["side", "captured", "spades", "aces", "10♦", "2♠", "suipis", "match score"],
        [_side_row(e, side, r, n) for side in range(e.ns)],
    )
    who, cards = e.last_capture
    if cards:  # this deal's last capture, for a look back: the card played first, then what it took
        about = {"what": "took", "who": who, "card": card_str(cards[0]), "count": len(cards) - 1}
        v["last"] = {"label": "Last capture", "items": [{"cards": [card_str(c) for c in cards], "about": about}]}
    if e.deal_results:
        v["summary"] = _deal_summary(env, len(e.deal_results) - 1, r)
    if e.done:
        v["result"] = _result(env, r)
    return worded(v, word, r)


def _item(it) -> dict:
    """A floor item: a loose card with its value, or a build with its owner, its value and whether
    it is locked, in words; a locked build's ``groups`` (each worth its value, not their sum)."""
    if it[OWNER] < 0:
        return {
            "id": item_id(it),
            "cards": [card_str(it[CARDS][0])],
            "about": {"what": "value", "value": it[NVAL]} if it[NVAL] else None,
        }
    groups = [[card_str(c) for c in g] for g in build_groups(it)]
    about = {"what": "build", "who": it[OWNER], "value": it[NVAL], "locked": bool(it[LOCKED]), "groups": len(groups)}
    out: dict = {"id": item_id(it), "cards": [c for g in groups for c in g], "about": about}
    if it[LOCKED]:
        out["groups"] = groups
    return out


def _move(ids, text: str, by_rep: dict) -> dict:
    """A full move's ids are the hand card, the floor items (ITEM0 + lowest card), then the finish."""
    cards = [card_str(ids[0])] + [item_id(by_rep[a - ITEM0]) for a in ids[1:-1]]
    return move(ids, text, cards)


def _side_name(e, side: int, r: Reader, n: int) -> str:
    seats = [s for s in range(n) if e.side[s] == side]
    return f"{SIDE_NAMES[side]} ({', '.join(r.name(s) for s in seats)})"


def _side_row(e, side: int, r: Reader, n: int) -> list:
    pile = e.captured[side]
    return [
        _side_name(e, side, r, n),
        len(pile),
        sum(IS_SPADE[c] for c in pile),
        sum(1 for c in pile if c in ACES),
        "yes" if TEN_D in pile else "",
        "yes" if TWO_S in pile else "",
        e.suipis[side],
        e.match_scores[side],
    ]


def _deal_summary(env, index: int, r: Reader) -> dict:
    e = env.engine
    res = e.deal_results[index]
    n = env.num_players
    rows = point_rows(env, index)
    rows += [
        ["points", *res.points],
        ["suipis", *res.suipis],
        ["points + suipis", *res.totals],
        ["deal score", *res.scores],
        ["match score", *e.match_scores],
    ]
    columns = [""] + [_side_name(e, side, r, n) for side in range(e.ns)]
    return {
        "key": f"deal-{index + 1}",
        "title": f"End of deal {index + 1}",
        "columns": columns,
        "rows": [[str(c) for c in r] for r in rows],
        "lines": [],
    }


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


def _result(env, r: Reader) -> dict:
    e = env.engine
    n = env.num_players
    win = e.winner_sides()
    score = " to ".join(str(x) for x in sorted(e.match_scores, reverse=True))
    if len(win) > 1:
        line = f"The match is a draw at {e.match_scores[win[0]]}."
    else:
        line = f"Side {_side_name(e, win[0], r, n)} wins the match, {score}."
    places = place_names(e.match_scores)
    order = sorted(range(e.ns), key=lambda side: -e.match_scores[side])
    table = grid(
        "Match score",
        ["place", "side", "match score"],
        [[places[side], _side_name(e, side, r, n), e.match_scores[side]] for side in order],
    )
    return {"title": "Match over", "lines": [line], "columns": table["columns"], "rows": table["rows"]}


def snapshot(env) -> dict:
    """Public state before a move, handed back to ``move_facts``."""
    e = env.engine
    return {
        "deal": e.deal_index,
        "round": e.round,
        "suipis": list(e.suipis),
        "deals": len(e.deal_results),
        "floor": list(e.floor),
        "last_capturer": e.last_capturer,
    }


def leftover_fact(before: dict, seat: int, ids) -> dict:
    """Who got the cards left on the floor when a deal ended (the last capturer; the deal's last
    move, ``ids`` by ``seat``, may itself be that capture): ``leftover`` with ``who`` (None:
    nobody captured) and ``cards``."""
    take = ids[-1] == CAPTURE_ACTION
    taken = {a - ITEM0 for a in ids[1:-1]} if take else set()
    rest = [c for it in before["floor"] if it[REP] not in taken for c in it[CARDS]] + ([] if take else [ids[0]])
    taker = seat if take else before["last_capturer"]
    return {
        "what": "leftover",
        "who": taker if taker >= 0 else None,
        "cards": [card_str(c) for c in sorted(rest, key=lambda c: (c >> 2, c & 3))],
    }


def move_facts(env, before: dict, seat: int, ids, text: str) -> list[dict]:
    """What a complete move did, as facts: the ``move`` (its text: the card played, what it
    takes or builds on), a ``suipi`` (the floor swept), the end of a deal (``deal_end`` and who
    took the ``leftover`` cards) or a new round dealt (``round``). Every Suipi move is public."""
    e = env.engine
    facts = [{"what": "move", "who": seat, "text": text}]
    if sum(e.suipis) > sum(before["suipis"]):
        facts.append({"what": "suipi", "who": seat})
    if len(e.deal_results) > before["deals"]:
        facts.append({"what": "deal_end", "who": seat, "deal": len(e.deal_results)})
        facts.append(leftover_fact(before, seat, ids))
    elif e.round > before["round"]:
        facts.append({"what": "round", "who": seat, "round": e.round + 1})
    return facts
