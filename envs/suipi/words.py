"""Suipi in words: every fact its view returns (a move and what it caused, a caption, a status
line, the prompt), said for one reader ("you", or player_N for a watcher). The view (``view.py``)
builds no English; the browser's log and captions, the terminal and the env's pictures all word
its facts here."""

from __future__ import annotations

from cardzoo.envs.seatview import Reader


def caption(fact: dict, r: Reader) -> str | None:
    """A caption or status line of the view (see ``view.py``), or None for a move's fact."""
    what = fact["what"]
    if what == "deal":
        over = " · match over" if fact["over"] else ""
        return f"Deal {fact['deal']} of {fact['of']} · round {fact['round']} of {fact['rounds']}{over}"
    if what == "your_move":
        return f"{r.title(fact['who'])} move: a hand card, then the floor cards it takes or builds on."
    if what == "value":
        return f"value {fact['value']}"
    if what == "build":
        locked = f", locked: {fact['groups']} groups of {fact['value']}" if fact["locked"] else ""
        return f"{r.whose(fact['who'])} build of {fact['value']}{locked}"
    if what == "took":
        count = fact["count"]
        return f"{r.name(fact['who'])}: {fact['card']} took {count} card{'s' if count > 1 else ''}"
    return None


def word(fact: dict, r: Reader) -> str:
    """One fact in words for the reader ``r``: a caption or status line (``caption``), or a
    move's fact; the move itself without its subject."""
    said = caption(fact, r)
    if said is not None:
        return said
    what, who = fact["what"], fact["who"]
    if what == "move":
        return fact["text"]
    if what == "suipi":
        return f"SUIPI! {r.said(who, 'sweeps', 'sweep')} the floor"
    if what == "deal_end":
        return f"end of deal {fact['deal']}"
    if what == "round":
        return f"round {fact['round']}: new cards are dealt"
    if what == "leftover":
        cards = " ".join(fact["cards"])
        if not cards:
            return "The deal ends with an empty floor."
        if who is None:
            return f"Nobody captured this deal: the floor cards go to nobody: {cards}"
        left = "the last card" if len(fact["cards"]) == 1 else f"the {len(fact['cards'])} cards"
        return f"Last capture: {r.said(who, 'takes', 'take')} {left} left on the floor: {cards}"
    raise ValueError(f"no words for {what!r}")


def banner(facts, r: Reader) -> dict | None:
    """A suipi is announced big: ``{"text", "sound"}`` for the page."""
    for f in facts:
        if f["what"] == "suipi":
            return {"text": f"SUIPI! {r.said(f['who'], 'sweeps', 'sweep')} the floor", "sound": ""}
    return None
