"""What one Siantappo seat sees, as a JSON-safe dict (the shape is described in envs/seatview.py).

Read from public state and the viewer's own hand only: cards left per player, who passed, who is
out, placement points and pig counts, the combination on the table, the viewer's hand in game
order, the cards of the viewer's own swap, and the viewer's legal moves.
"""

from __future__ import annotations

import re

from cardzoo.envs.seatview import (
    SPECTATOR, base_view, grid, legal_moves_for, move, ordinal, said, seat_name, waiting_prompt,
)
from cardzoo.envs.siantappo.actions import (
    ACTION_TOP_RANK, ACTION_TOP_SUIT, ACTION_TYPE, PASS_ID, QUAD, RUN4, RUN5, SIANTAPPO, SINGLE,
    TRIPLE, TYPE_NAMES, key_str,
)
from cardzoo.envs.siantappo.engine import OVER, SWAP, hand_keys

TITLE = "Siantappo"
SQUEAL = "🐷 SQUEEEEAL!"
BOMBS_OF_PAIRS = (SIANTAPPO, RUN4, RUN5)  # the pig squeals
_GIVE_RE = re.compile(r"give (\S+) to player_(\d+)")


def seat_view(env, seat: int) -> dict:
    eng = env.engine
    cfg = env.config
    v = base_view(env, seat, TITLE)
    over = eng.phase == OVER
    v["status"] = f"Round {min(eng.round_index + 1, cfg.rounds)} of {cfg.rounds}" + (
        " · swap" if eng.phase == SWAP else "") + (" · match over" if over else "")
    v["facts"] = [["trick", str(eng.trick + 1)]] if not over else []
    v["players"] = [_player(eng, s, seat) for s in range(eng.n)]
    v["table"] = [_table(eng, seat)]
    if not over and seat is not SPECTATOR:
        keys = hand_keys(eng.hands[seat])
        v["hand"] = {"label": f"Your hand ({len(keys)})", "cards": [
            {"id": key_str(k), "card": key_str(k), "mark": ""} for k in keys]}
        if eng.swap_given[seat] or eng.swap_received[seat]:
            v["notes"].append(f"Swap this round: you gave {_keys(eng.swap_given[seat]) or '-'}, "
                              f"received {_keys(eng.swap_received[seat]) or '-'}")
    v["moves"] = [_move(eng, ids, text) for ids, text in legal_moves_for(env, seat)]
    what = ("Give a card back" if eng.phase == SWAP else
            "Lead any combination" if eng.current < 0 else "Beat the table or pass")
    v["prompt"] = waiting_prompt(v["turn"], seat, f"Your move: {what.lower()}.")
    v["scores"] = grid("Scores", ["player", "placement points", "pig (times last)"],
                       [[seat_name(s, seat), eng.match_points[s], eng.pig_counts[s]] for s in range(eng.n)])
    v["last"] = _last_trick(eng, seat)
    if eng.round_places:
        v["summary"] = _round_summary(eng, len(eng.round_places) - 1, seat)
    if over:
        v["result"] = _result(eng, seat)
    return v


def _last_trick(eng, viewer: int) -> dict | None:
    """The plays of this round's last finished trick, in order (passes are not kept), or None."""
    done = [entry for entry in eng.log if entry[1] < eng.trick]
    if not done:
        return None
    trick = done[-1][1]
    return {"label": "Last trick", "items": [
        {"cards": [key_str(k) for k in sorted(keys)],
         "caption": f"{seat_name(s, viewer)}: {TYPE_NAMES[ACTION_TYPE[a]]}"} for s, t, a, keys in done if t == trick]}


def _keys(keys) -> str:
    return " ".join(key_str(k) for k in sorted(keys))


def _player(eng, s: int, viewer: int) -> dict:
    status = []
    if s in eng.finish_top:
        status.append(f"out #{eng.finish_top.index(s) + 1}")
    elif eng.phase != OVER and eng.passed[s]:
        status.append("passed")
    if s == eng.current_player and eng.current >= 0:
        status.append("on top")
    return {"seat": s, "name": seat_name(s, viewer), "cards": eng.counts[s], "status": ", ".join(status),
            "facts": [["points", str(eng.match_points[s])], ["pig", str(eng.pig_counts[s])]],
            "team": None, "out": s in eng.finish_top}


def _table(eng, viewer: int) -> dict:
    if eng.phase == SWAP:
        giver, receiver, left = eng.swap_queue[0]
        return {"label": "Swap", "items": [{"cards": [], "caption": (
            f"{seat_name(giver, viewer)} give{'' if giver == viewer else 's'} {left} card(s) back "
            f"to {seat_name(receiver, viewer)}")}]}
    if eng.current >= 0:
        kind = TYPE_NAMES[ACTION_TYPE[eng.current]]
        return {"label": "On the table", "items": [{"cards": [key_str(k) for k in sorted(eng.current_keys)],
                                                    "caption": f"{kind} by {seat_name(eng.current_player, viewer)}"}]}
    if eng.phase == OVER:
        return {"label": "On the table", "items": []}
    who = seat_name(eng.acting, viewer)
    return {"label": "On the table", "items": [{"cards": [], "caption": f"empty: {who} lead{'' if who == 'you' else 's'}"}]}


def _move(eng, ids, text: str) -> dict:
    action = ids[-1]
    if eng.phase == SWAP:
        return move(ids, text, [key_str(action)])
    if action == PASS_ID:
        return move(ids, text)
    keys = eng.fill(action, eng.hands[eng.turn])
    return move(ids, text, [key_str(k) for k in keys], _choices(eng, action, keys), exact=len(keys) > 1)


def _choices(eng, action: int, keys) -> list:
    """The card selections that make this action: any cards of the right ranks (below the top
    within its rank) under the top card; the selected ones are played (``env.play_whole``)."""
    t = ACTION_TYPE[action]
    if t == SINGLE:
        return [([key_str(action)], 1)]
    hand = hand_keys(eng.hands[eng.turn])
    by_rank: dict[int, list[int]] = {}
    for k in hand:
        by_rank.setdefault(k >> 2, []).append(k)
    if t in (TRIPLE, QUAD):
        r = ACTION_TOP_RANK[action]
        groups = [(by_rank[r], len(keys))]
    else:
        top = 4 * ACTION_TOP_RANK[action] + ACTION_TOP_SUIT[action]
        groups = [([top], 1)]
        need: dict[int, int] = {}
        for k in keys:
            if k != top:
                need[k >> 2] = need.get(k >> 2, 0) + 1
        for r, count in sorted(need.items()):
            pool = [k for k in by_rank[r] if k < top] if r == top >> 2 else by_rank[r]
            groups.append((pool, count))
    req = eng.required_key
    if req >= 0 and req in keys and not any(g == [req] for g, _ in groups):
        # the first lead must contain the starter card: it is not interchangeable
        groups = [([k for k in g if k != req], c - (req in g)) for g, c in groups] + [([req], 1)]
        groups = [(g, c) for g, c in groups if c > 0]
    return [([key_str(k) for k in g], c) for g, c in groups]


def _round_summary(eng, index: int, viewer: int) -> dict:
    places = eng.round_places[index]
    n = eng.n
    order = sorted(range(n), key=lambda s: places[s])
    rows = [[places[s], seat_name(s, viewer) + (" (pig)" if places[s] == n else ""), f"+{n - places[s]}"]
            for s in order]
    loser = order[-1]
    lines = [f"{seat_name(loser, viewer)} {'are' if loser == viewer else 'is'} the pig of round {index + 1}."]
    return {"key": f"round-{index + 1}", "title": f"End of round {index + 1}",
            "columns": ["place", "player", "placement points"], "rows": [[str(c) for c in r] for r in rows],
            "lines": lines}


def _result(eng, viewer: int) -> dict:
    order = sorted(range(eng.n), key=lambda s: (-eng.match_points[s], eng.pig_counts[s]))
    best = eng.match_points[order[0]]
    winners = [seat_name(s, viewer) for s in order if eng.match_points[s] == best]
    table = grid("Final standings", ["player", "placement points", "pig (times last)"],
                 [[seat_name(s, viewer), eng.match_points[s], eng.pig_counts[s]] for s in order])
    return {"title": "Match over", "lines": [f"Most placement points ({best}): {', '.join(winners)}"],
            "columns": table["columns"], "rows": table["rows"]}


def snapshot(env) -> dict:
    """Public state before a move, handed back to ``move_lines`` and ``trick_events``."""
    eng = env.engine
    return {"round": eng.round_index, "phase": eng.phase, "trick": eng.trick,
            "on_top": eng.current_player, "out": len(eng.finish_top) + len(eng.finish_bottom)}


def place_now(eng, seat: int) -> int:
    """The place a seat took by going out this round (0 while it holds cards)."""
    if seat in eng.finish_top:
        return eng.finish_top.index(seat) + 1
    if seat in eng.finish_bottom:  # no_finish_on_2: went out on a 2, placed from the bottom
        return eng.n - eng.finish_bottom.index(seat)
    return 0


def trick_events(env, before: dict, seat: int, action: int, name) -> list[tuple[str, str]]:
    """What a move did besides its cards, as ``(kind, line)``: ``("out", "player_1 is out: 1st
    place")``, ``("trick", "player_1 wins the trick; player_2 leads.")``. ``name(seat)`` names a
    seat ("you" or "player_N"); the terminal and the browser log both read these lines. A move
    that ends the round has none (its summary says it)."""
    eng = env.engine
    if eng.round_index > before["round"]:
        return []
    out = []
    if len(eng.finish_top) + len(eng.finish_bottom) > before["out"]:
        how = " on a 2, so placed" if seat in eng.finish_bottom else ":"
        out.append(("out", f"{said(name(seat), 'is', 'are')} out{how} {ordinal(place_now(eng, seat))} place"))
    if eng.trick > before["trick"]:
        winner = seat if action != PASS_ID and before["phase"] != SWAP else before["on_top"]
        line = f"{said(name(winner), 'wins', 'win')} the trick"
        if eng.turn != winner:
            line += f"; {said(name(eng.turn), 'leads', 'lead')}"
        else:
            line += f" and {'lead' if name(winner) == 'you' else 'leads'}"
        out.append(("trick", line + "."))
    return out


def move_lines(env, before: dict, seat: int, ids, text: str) -> dict:
    """How a complete move reads in the log: ``public`` for everybody, ``private`` per seat, and
    for a bomb of pairs a ``banner`` (``{"text", "sound"}``: the page shows it big, squealing).

    A swap is private to its two players; everybody else learns only that a card was given."""
    if before.get("phase") == SWAP:
        m = _GIVE_RE.match(text)
        receiver = int(m.group(2)) if m else -1
        return {"public": f"gives a card to player_{receiver}",
                "private": {seat: text, receiver: f"gives you {m.group(1)}" if m else text}}
    action = ids[-1]
    line = "pass" if action == PASS_ID else f"{text} ({TYPE_NAMES[ACTION_TYPE[action]]})"
    if action != PASS_ID and ACTION_TYPE[action] in BOMBS_OF_PAIRS:
        line += f" — {SQUEAL}"
    events = trick_events(env, before, seat, action, lambda s: f"player_{s}")
    private = {}
    for viewer in range(env.engine.n):  # "you win the trick" for the seat it names
        mine = trick_events(env, before, seat, action, lambda s: seat_name(s, viewer))
        if mine != events:
            private[viewer] = " — ".join([line] + [e for _, e in mine])
    out = {"public": " — ".join([line] + [e for _, e in events]), "private": private}
    if action != PASS_ID and ACTION_TYPE[action] in BOMBS_OF_PAIRS:  # the pig is slaughtered
        out["banner"] = {"text": f"{SQUEAL} player_{seat} plays a {TYPE_NAMES[ACTION_TYPE[action]]}",
                         "sound": "squeal"}
    return out
