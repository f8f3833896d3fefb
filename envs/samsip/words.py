"""Sam Sip in words: every fact its view returns (a move and what it caused, a caption, a status
line, the prompt), said for one reader ("you", or player_N for a watcher). The view (``view.py``)
builds no English; the browser's log and captions, the terminal and the env's pictures all word
its facts here."""

from __future__ import annotations

from cardzoo.envs.seatview import Reader


def caption(fact: dict, r: Reader) -> str | None:
    """A caption or status line of the view (see ``view.py``), or None for a move's fact."""
    what = fact["what"]
    if what == "hand_no":
        return f"Hand {fact['hand']}" + (" · match over" if fact["over"] else "")
    if what == "your_move":
        if fact["draw"]:
            return f"{r.title(fact['who'])} move: draw from the stock" + (
                " or take the discard." if fact["can_take"] else "."
            )
        return f"{r.title(fact['who'])} move: discard a card."
    if what == "out_since":
        return f"out (hand {fact['hand']})"
    if what == "turned_up":
        return "turned up"
    if what == "jokers":
        return f"× {fact['count']} jokers"
    if what == "lies_before":
        frm = "?" if fact["who"] is None else r.name(fact["who"])
        return f"from {frm}, in front of {r.name(fact['to'])}"
    return None


def word(fact: dict, r: Reader) -> str:
    """One fact in words for the reader ``r``: a caption or status line (``caption``), or a
    move's fact; the move itself without its subject."""
    said = caption(fact, r)
    if said is not None:
        return said
    what, who = fact["what"], fact["who"]
    if what == "draw":
        return f"draws {fact['cards'][0]} from the stock" if "cards" in fact else "draws from the stock"
    if what == "take":
        return f"takes {fact['cards'][0]}"
    if what == "discard":
        return f"discards {fact['cards'][0]}"
    if what == "declare":
        return "declares a win"
    if what == "hand":
        if who is None:
            return f"hand {fact['hand']} is void"
        return f"{r.said(who, 'wins', 'win')} hand {fact['hand']} with {fact['kind']}"
    if what == "knocked_out":
        return f"{r.said(who, 'is', 'are')} knocked out"
    raise ValueError(f"no words for {what!r}")
