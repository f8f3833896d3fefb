"""Siantappo in words: every fact its view returns (a move and what it caused, a caption, a
status line, the prompt), said for one reader ("you", or player_N for a watcher). The view
(``view.py``) builds no English; the browser's log and captions, the terminal and the env's
pictures all word its facts here."""

from __future__ import annotations

from cardzoo.envs.seatview import Reader, article, ordinal

SQUEAL = "🐷 SQUEEEEAL!"
TASKS = {"give back": "give a card back", "lead": "lead any combination", "beat": "beat the table or pass"}


def caption(fact: dict, r: Reader) -> str | None:
    """A caption or status line of the view (see ``view.py``), or None for a move's fact."""
    what = fact["what"]
    if what == "round":
        extra = {"swap": " · swap", "over": " · match over"}.get(fact["phase"], "")
        return f"Round {fact['round']} of {fact['of']}{extra}"
    if what == "your_move":
        return f"{r.title(fact['who'])} move: {TASKS[fact['task']]}."
    if what == "gone_out":
        return f"out, {ordinal(fact['place'])}"
    if what == "passed":
        return "passed"
    if what == "on_top":
        return "on top"
    if what == "giving_back":
        left = fact["left"]
        return (
            f"{r.said(fact['who'], 'gives', 'give')} {left} card{'' if left == 1 else 's'} back to {r.name(fact['to'])}"
        )
    if what == "on_table":
        return f"{fact['combo']} by {r.name(fact['who'])}"
    if what == "to_lead":
        return f"empty: {r.said(fact['who'], 'leads', 'lead')}"
    if what == "played":
        return f"{r.name(fact['who'])}: {fact['combo']}"
    return None


def word(fact: dict, r: Reader) -> str:
    """One fact in words for the reader ``r``: a caption or status line (``caption``), or a
    move's fact; the move itself (``play``, ``pass``, ``give``) without its subject, as the log
    and the terminal print it after the player's name."""
    said = caption(fact, r)
    if said is not None:
        return said
    what, who = fact["what"], fact["who"]
    if what == "play":
        return f"{' '.join(fact['cards'])} ({fact['combo']})" + (f" — {SQUEAL}" if fact["squeal"] else "")
    if what == "pass":
        return "pass"
    if what == "give":
        if "cards" not in fact:
            return f"gives a card to {r.name(fact['to'])}"
        if fact["to"] == r.you:
            return f"gives you {fact['cards'][0]}"
        return f"gives {fact['cards'][0]} to {r.name(fact['to'])}"
    if what == "out":
        how = " on a 2, so placed" if fact["on_two"] else ":"
        return f"{r.said(who, 'is', 'are')} out{how} {ordinal(fact['place'])} place"
    if what == "trick":
        line = f"{r.said(who, 'wins', 'win')} the trick"
        if fact["leads"] != who:
            return f"{line}; {r.said(fact['leads'], 'leads', 'lead')}."
        return f"{line} and {'lead' if who == r.you else 'leads'}."
    if what == "pig":
        return f"{r.said(who, 'is', 'are')} the pig of round {fact['round']}"
    raise ValueError(f"no words for {what!r}")


def banner(facts, r: Reader) -> dict | None:
    """A bomb of pairs is announced big, squealing: ``{"text", "sound"}`` for the page."""
    for f in facts:
        if f["what"] == "play" and f["squeal"]:
            return {"text": f"{SQUEAL} {r.said(f['who'], 'plays', 'play')} {article(f['combo'])}", "sound": "squeal"}
    return None
