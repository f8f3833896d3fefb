"""What one Siantappo seat sees, as a JSON-safe dict (the shape is described in envs/seatview.py).

Read from public state and the viewer's own hand only: cards left per player, who passed, who is
out, placement points and pig counts, the combination on the table, the viewer's hand in game
order, the cards of the viewer's own swap, and the viewer's legal moves.
"""

from __future__ import annotations

import re

from cardzoo.envs.seatview import (
    SPECTATOR,
    Reader,
    base_view,
    grid,
    legal_moves_for,
    line_start,
    move,
    ordinal,
    place_names,
    waiting_prompt,
    worded,
)
from cardzoo.envs.siantappo.actions import (
    ACTION_TOP_RANK,
    ACTION_TOP_SUIT,
    ACTION_TYPE,
    PASS_ID,
    QUAD,
    RUN4,
    RUN5,
    SIANTAPPO,
    SINGLE,
    TRIPLE,
    TYPE_NAMES,
    key_str,
)
from cardzoo.envs.siantappo.engine import OVER, SWAP, hand_keys
from cardzoo.envs.siantappo.words import SQUEAL, banner, word  # noqa: F401  (the view's facts in words: log_line, the terminal)

TITLE = "Siantappo"
BOMBS_OF_PAIRS = (SIANTAPPO, RUN4, RUN5)  # the pig squeals
_GIVE_RE = re.compile(r"give (\S+) to player_(\d+)")


def seat_view(env, seat: int, watcher: bool = False) -> dict:
    """What ``seat`` sees, worded for the seat itself ("you"), or for a ``watcher`` shown that
    seat (a bots-only match, a replay: every seat is player_N)."""
    eng = env.engine
    cfg = env.config
    r = Reader(None if watcher else seat)
    v = base_view(env, seat, TITLE)
    over = eng.phase == OVER
    v["status_fact"] = {
        "what": "round",
        "round": min(eng.round_index + 1, cfg.rounds),
        "of": cfg.rounds,
        "phase": "over" if over else "swap" if eng.phase == SWAP else "play",
    }
    v["facts"] = [["trick", str(eng.trick + 1)]] if not over else []
    v["players"] = [_player(eng, s, r) for s in range(eng.n)]
    v["table"] = [_table(eng)]
    if not over and seat is not SPECTATOR:
        keys = hand_keys(eng.hands[seat])
        v["hand"] = {
            "label": f"{r.title(seat)} hand ({len(keys)})",
            "cards": [{"id": key_str(k), "card": key_str(k), "mark": ""} for k in keys],
        }
        if eng.swap_given[seat] or eng.swap_received[seat]:
            v["notes"].append(
                f"Swap this round: {r.said(seat, 'gave', 'gave')} {_keys(eng.swap_given[seat]) or '-'}, "
                f"received {_keys(eng.swap_received[seat]) or '-'}"
            )
    v["moves"] = [_move(eng, ids, text) for ids, text in legal_moves_for(env, seat)]
    task = "give back" if eng.phase == SWAP else "lead" if eng.current < 0 else "beat"
    v["prompt_fact"] = waiting_prompt(v["turn"], seat, {"what": "your_move", "task": task})
    v["scores"] = grid(
        "Scores",
        ["player", "placement points", "pig (times last)"],
        [[r.name(s), eng.match_points[s], eng.pig_counts[s]] for s in range(eng.n)],
    )
    v["last"] = _last_trick(eng)
    if eng.round_places:
        v["summary"] = _round_summary(eng, len(eng.round_places) - 1, r)
    if over:
        v["result"] = _result(eng, r)
    elif seat is not SPECTATOR and eng.phase != SWAP and place_now(eng, seat):
        v["sitting_out"] = "round"  # gone out: the others play the round on
    return worded(v, word, r)


def _last_trick(eng) -> dict | None:
    """The plays of this round's last finished trick, in order (passes are not kept), or None."""
    done = [entry for entry in eng.log if entry[1] < eng.trick]
    if not done:
        return None
    trick = done[-1][1]
    return {
        "label": "Last trick",
        "items": [
            {
                "cards": [key_str(k) for k in sorted(keys)],
                "about": {"what": "played", "who": s, "combo": TYPE_NAMES[ACTION_TYPE[a]]},
            }
            for s, t, a, keys in done
            if t == trick
        ],
    }


def _keys(keys) -> str:
    return " ".join(key_str(k) for k in sorted(keys))


def _player(eng, s: int, r: Reader) -> dict:
    status: list[dict] = []
    if place_now(eng, s):
        status.append({"what": "gone_out", "who": s, "place": place_now(eng, s)})
    elif eng.phase != OVER and eng.passed[s]:
        status.append({"what": "passed", "who": s})
    if s == eng.current_player and eng.current >= 0 and eng.phase != OVER:  # no trick once the match is over
        status.append({"what": "on_top", "who": s})
    return {
        "seat": s,
        "name": r.name(s),
        "cards": eng.counts[s],
        "status_facts": status,
        "facts": [["points", str(eng.match_points[s])], ["pig", str(eng.pig_counts[s])]],
        "team": None,
        "out": s in eng.finish_top,
    }


def _table(eng) -> dict:
    if eng.phase == SWAP:
        giver, receiver, left = eng.swap_queue[0]
        return {
            "label": "Swap",
            "items": [{"cards": [], "about": {"what": "giving_back", "who": giver, "to": receiver, "left": left}}],
        }
    if eng.current >= 0:
        kind = TYPE_NAMES[ACTION_TYPE[eng.current]]
        return {
            "label": "On the table",
            "items": [
                {
                    "cards": [key_str(k) for k in sorted(eng.current_keys)],
                    "about": {"what": "on_table", "who": eng.current_player, "combo": kind},
                }
            ],
        }
    if eng.phase == OVER:
        return {"label": "On the table", "items": []}
    return {"label": "On the table", "items": [{"cards": [], "about": {"what": "to_lead", "who": eng.acting}}]}


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


def _round_summary(eng, index: int, r: Reader) -> dict:
    places = eng.round_places[index]
    n = eng.n
    order = sorted(range(n), key=lambda s: places[s])
    rows = [
        [ordinal(places[s]), r.name(s) + (" (pig)" if places[s] == n else ""), f"+{n - places[s]}", eng.match_points[s]]
        for s in order
    ]
    loser = order[-1]
    lines = [line_start(f"{r.said(loser, 'is', 'are')} the pig of round {index + 1}.")]
    return {
        "key": f"round-{index + 1}",
        "title": f"End of round {index + 1}",
        "columns": ["place", "player", "this round", "match points"],
        "rows": [[str(c) for c in r] for r in rows],
        "lines": lines,
    }


def _result(eng, r: Reader) -> dict:
    order = sorted(range(eng.n), key=lambda s: (-eng.match_points[s], eng.pig_counts[s]))
    best = eng.match_points[order[0]]
    winners = [r.name(s) for s in order if eng.match_points[s] == best]
    places = place_names(eng.match_points)
    table = grid(
        "Final standings",
        ["place", "player", "placement points", "pig (times last)"],
        [[places[s], r.name(s), eng.match_points[s], eng.pig_counts[s]] for s in order],
    )
    return {
        "title": "Match over",
        "lines": [f"Most placement points ({best}): {', '.join(winners)}"],
        "columns": table["columns"],
        "rows": table["rows"],
    }


def snapshot(env) -> dict:
    """Public state before a move, handed back to ``move_facts``."""
    eng = env.engine
    return {
        "round": eng.round_index,
        "phase": eng.phase,
        "trick": eng.trick,
        "on_top": eng.current_player,
        "out": len(eng.finish_top) + len(eng.finish_bottom),
    }


def place_now(eng, seat: int) -> int:
    """The place a seat took by going out this round (0 while it holds cards)."""
    if seat in eng.finish_top:
        return eng.finish_top.index(seat) + 1
    if seat in eng.finish_bottom:  # no_finish_on_2: went out on a 2, placed from the bottom
        return eng.n - eng.finish_bottom.index(seat)
    return 0


def move_facts(env, before: dict, seat: int, ids, text: str) -> list[dict]:
    """What a complete move did, as facts (who, what, which cards), in order: the move itself
    (``play`` with its cards and combination, ``pass``, or a swap's ``give``, secret to its two
    players), then what it caused: ``out`` (a seat's place), ``trick`` (its winner and who leads),
    ``pig`` (the round's last). ``text`` is the move's cards as played. ``word`` says them."""
    eng = env.engine
    if before.get("phase") == SWAP:
        m = _GIVE_RE.match(text)
        receiver = int(m.group(2)) if m else -1
        return [
            {
                "what": "give",
                "who": seat,
                "to": receiver,
                "cards": [m.group(1)] if m else [],
                "secret": [seat, receiver],
            }
        ]
    action = ids[-1]
    if action == PASS_ID:
        facts = [{"what": "pass", "who": seat}]
    else:
        combo = TYPE_NAMES[ACTION_TYPE[action]]
        facts = [
            {
                "what": "play",
                "who": seat,
                "cards": text.split(),
                "combo": combo,
                "squeal": ACTION_TYPE[action] in BOMBS_OF_PAIRS,
            }
        ]
    if eng.round_index > before["round"]:  # the round ended with this move: who went out, the pig
        places = eng.round_places[before["round"]]
        if action != PASS_ID:
            facts.append({"what": "out", "who": seat, "place": places[seat], "on_two": False})
        facts.append({"what": "pig", "who": places.index(eng.n), "round": before["round"] + 1})
        return facts
    if len(eng.finish_top) + len(eng.finish_bottom) > before["out"]:
        facts.append({"what": "out", "who": seat, "place": place_now(eng, seat), "on_two": seat in eng.finish_bottom})
    if eng.trick > before["trick"]:
        winner = seat if action != PASS_ID else before["on_top"]
        facts.append({"what": "trick", "who": winner, "leads": eng.turn})
    return facts
