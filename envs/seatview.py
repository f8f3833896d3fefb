"""The shape every game's seat view shares (``envs/<game>/view.py``), for tables drawn elsewhere.

A seat view is a plain JSON-safe dict of what one seat may know, so a front end (the browser
table of ``cardzoo serve``) draws any game with no per-game code::

    game, title, seat, num_players
    status       headline: round / deal / hand and what is going on (worded from ``status_fact``)
    facts        [[label, value], ...]  short public facts (stake, stock, dealer, ...)
    turn         acting seat (None when the match is over); your_turn, over
    prompt       one line saying what the viewer may do now (worded from ``prompt_fact``)
    players      [{seat, name, cards, status, status_facts, facts: [[label, value]], team, out, known?}]
                 (``known``: cards everybody knows are in that hand, Sam Sip's taken discards)
    table        [{label, items: [{id?, cards: [text], caption, about?, groups?}]}]   what lies on the
                 table (``groups``: the cards in their groups, a Suipi locked build's)

The captions and status lines are facts (``status_fact``, ``prompt_fact``, a player's
``status_facts``, an item's ``about``: ``{"what", "who", ...}``), worded for the reader by
``worded`` with the game's ``words.word``: "you" for the seat itself, ``player_N`` for a watcher.
    hand         {label, cards: [{id, card, mark}]}  the viewer's own cards, sorted
    notes        [str]  private reminders (your swap, your build, ...)
    moves        [{ids, text, cards, choose?, exact?}]  the viewer's complete legal moves (see move())
    last         {label, items: [{cards, caption}]}: a look back (Siantappo's last trick, Suipi's
                 last capture), or None
    scores       {title, columns, rows}
    summary      {key, title, columns, rows, lines} of the last finished round/deal/hand, or None
    result       {title, lines, columns, rows} once the match is over, else None
    direction    "clockwise" (the next player sits on the left) or "anticlockwise" (Sam Sip, P1)
    sitting_out  "round" while the seat has no part in the rest of the round (Siantappo: gone out),
                 "match" once it is out of the match (a table sets it: Sam Sip's knocked out), else None

Cards are always written as text (``7♥``, ``10♦``, ``Jk``); an ``id`` names something the viewer
can select (a hand card, a Suipi floor item). Nothing here imports gymnasium or pettingzoo.

The view of ``SPECTATOR`` (seat ``None``) is the seat-independent public view: what someone
watching the table may see, with no hand, notes or moves, every seat named ``player_N`` (the
env's ``rgb_array`` pictures are drawn from it, ``public_view``).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Sequence
from importlib import resources
from typing import Any

SPECTATOR = None  # the "seat" of the public view


def public_view(env) -> dict:
    """What a spectator of ``env``'s match may see: its game's ``seat_view(env, SPECTATOR)``."""
    return importlib.import_module(f"cardzoo.envs.{env.game_name}.view").seat_view(env, SPECTATOR)


def section_label(env) -> str:
    """The round / deal / hand the table stands in: the first part of the public view's status
    (``Round 2 of 5``, ``Deal 1 of 4``, ``Hand 3``); a replay jumps to where one begins."""
    return public_view(env)["status"].split(" · ")[0]


def rules_summary(game: str) -> str:
    """The game's rules in a few lines (``envs/<game>/rules.txt``, package data): the terminal's
    ``?`` and the browser's *Rules* panel show them. "" for a game without the file."""
    try:
        return (resources.files(f"cardzoo.envs.{game}") / "rules.txt").read_text(encoding="utf-8").rstrip()
    except (ModuleNotFoundError, FileNotFoundError):
        return ""


def seat_name(seat: int, viewer: int | None) -> str:
    return "you" if seat == viewer else f"player_{seat}"


def said(name: str, third_person: str, second_person: str) -> str:
    """``"player_2 leads"`` / ``"you lead"``: a name with its verb in agreement."""
    return f"{name} {second_person if name == 'you' else third_person}"


class Reader:
    """Who reads a text about the table, so that facts are worded for them: ``you`` is the seat
    that reads (written "you", "your"); None is a watcher (a bots-only match, a replay, a
    spectator), for whom every seat is ``player_N``. The views word their facts through one
    reader; the terminal and the browser choose it (docs/serve.md, "Words")."""

    __slots__ = ("you",)

    def __init__(self, you: int | None):
        self.you = you

    def name(self, seat: int) -> str:
        return seat_name(seat, self.you)

    def said(self, seat: int, third_person: str, second_person: str) -> str:
        """``"player_2 leads"`` / ``"you lead"``."""
        return said(self.name(seat), third_person, second_person)

    def whose(self, seat: int) -> str:
        """``"your"`` / ``"player_2's"``."""
        return "your" if seat == self.you else f"player_{seat}'s"

    def title(self, seat: int) -> str:
        """``"Your"`` / ``"player_2's"``: the possessive at the start of a line."""
        return "Your" if seat == self.you else f"player_{seat}'s"


def line_start(text: str) -> str:
    """``text`` opening a line: "You are …" for "you are …"; a seat's name ``player_N`` stays as it is."""
    return "Y" + text[1:] if text.startswith("you ") else text


def place_names(scores, higher_is_better: bool = True) -> list[str]:
    """Competition places of every entry: ``1st``, ``tied 2nd``, ``tied 2nd``, ``4th``."""
    sign = -1 if higher_is_better else 1
    keys = [sign * s for s in scores]
    out = []
    for k in keys:
        place = 1 + sum(1 for other in keys if other < k)
        tied = sum(1 for other in keys if other == k) > 1
        out.append(("tied " if tied else "") + ordinal(place))
    return out


def article(word: str) -> str:
    """``"an 8"``, ``"an A"``, ``"a 7"``, ``"an ace"``: the indefinite article a card player says."""
    spoken = {"8": "eight", "A": "ace", "11": "eleven", "18": "eighteen"}.get(word, word)
    return ("an " if spoken[:1].lower() in "aeiou" else "a ") + word


def known_facts(facts, seat: int | None) -> list[dict]:
    """A move's facts as ``seat`` may know them: a fact with ``secret`` seats keeps its ``cards``
    for those seats only (a card drawn from the stock, a card given in a swap)."""
    out = []
    for f in facts:
        secret = f.get("secret")
        if secret is not None and seat not in secret:
            f = {k: v for k, v in f.items() if k not in ("cards", "secret")}
        out.append(f)
    return out


def log_line(view_module, facts, seat: int | None, watcher: bool = False) -> dict:
    """A move's facts (``view_module.move_facts``) as ``seat`` may know them, worded by the game's
    ``word`` for that seat ("you") or for a ``watcher`` shown it (every seat player_N; seat None:
    only what everybody knows): ``{"text", "banner"}`` (``banner``: the game's ``banner``, a big
    announcement such as Siantappo's squeal, or None)."""
    r = Reader(None if watcher else seat)
    known = known_facts(facts, seat)
    announce = getattr(view_module, "banner", None)
    return {
        "text": " — ".join(view_module.word(f, r) for f in known),
        "banner": announce(known, r) if announce else None,
    }


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th ... 11th, 12th, 13th, 21st."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def grid(title: str, columns: Sequence[str], rows: Iterable[Sequence]) -> dict:
    """A small table: every cell as text."""
    return {"title": title, "columns": list(columns), "rows": [[str(c) for c in row] for row in rows]}


def move(ids: Sequence[int], text: str, cards: Sequence[str] = (), choose=None, exact: bool = False) -> dict:
    """One complete legal move.

    ``cards`` are the ids of the selectable things the move uses (hand cards, floor items), so
    a page can match a selection to moves. ``choose`` (optional) says which other selections
    make the same move: a list of ``[ids, count]`` groups, meaning "pick ``count`` of ``ids``"
    (9♦ 9♥ and 9♠ 9♥ are both Siantappo's pair under the 9♥). ``exact``: the selected cards are
    the ones that go down (the page sends them with the move, ``env.play_whole``); without it the
    move's own ``cards`` go (Sam Sip's jokers are alike: which one is discarded makes no difference).
    """
    out: dict[str, Any] = {"ids": [int(a) for a in ids], "text": text, "cards": list(cards)}
    if choose is not None:
        out["choose"] = [[list(group), int(count)] for group, count in choose]
    if exact:
        out["exact"] = True
    return out


MAX_SEED = 2**63 - 1  # a match's seed is an episode seed: a non-negative 63-bit number


def deal_match(env, seed: int) -> None:
    """Reset ``env`` to the match of ``seed``. The seed a person is shown is the episode seed the
    game record keeps (``record_header``), so `cardzoo play` prints, the browser shows and
    `cardzoo replay` names one number, and that number deals the same match again."""
    env.reset(seed=seed, options={"episode_seed": seed})


def match_over(env) -> bool:
    return not env.agents or all(env.terminations[a] or env.truncations[a] for a in env.agents)


def skip_dead_steps(env) -> None:
    """Take the steps of eliminated seats (Sam Sip; PettingZoo's ``step(None)``) up to a live
    seat's turn or the end of the match."""
    while not match_over(env) and (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        env.step(None)


def base_view(env, seat: int | None, title: str) -> dict:
    """The fields every game fills the same way."""
    over = match_over(env)
    turn = None if over else int(env.acting_seat)
    return {
        "game": env.game_name,
        "title": title,
        "seat": seat,
        "num_players": env.num_players,
        "turn": turn,
        "your_turn": turn == seat,
        "over": over,
        "status": "",
        "status_fact": {"what": "none"},
        "facts": [],
        "prompt": "",
        "prompt_fact": {"what": "none"},
        "players": [],
        "table": [],
        "hand": {"label": "Hand", "cards": []},
        "notes": [],
        "moves": [],
        "last": None,
        "scores": None,
        "summary": None,
        "result": None,
        "sitting_out": None,
        "direction": "clockwise",
    }


def legal_moves_for(env, seat: int | None) -> list:
    """The complete legal moves when ``seat`` acts now, else none."""
    if match_over(env) or env.acting_seat != seat:
        return []
    return env.full_moves()


def waiting_prompt(turn: int | None, seat: int | None, task: dict) -> dict:
    """The prompt as a fact: the match is over, another seat thinks, or ``task`` (the game's own
    fact of what the seat may do now, ``who`` the seat)."""
    if turn is None:
        return {"what": "match_over"}
    if turn == seat:
        return {**task, "who": seat}
    return {"what": "thinking", "who": turn}


def worded(v: dict, word, r: Reader) -> dict:
    """A seat view's captions and status lines worded for the reader ``r`` by the game's ``word``
    (``envs/<game>/words.py``) from the facts the view returns (no English is built in a view):
    ``status`` from ``status_fact``, ``prompt`` from ``prompt_fact``, each player's ``status``
    from its ``status_facts``, each table and look-back item's ``caption`` from its ``about``.
    The facts stay in the view, for a front end that words them its own way."""

    def say(fact: dict) -> str:
        common = common_words(fact, r)
        return word(fact, r) if common is None else common

    v["status"] = say(v["status_fact"])
    v["prompt"] = say(v["prompt_fact"])
    for p in v["players"]:
        p["status"] = ", ".join(say(f) for f in p["status_facts"])
    for zone in v["table"] + ([v["last"]] if v.get("last") else []):
        for item in zone["items"]:
            item["caption"] = say(item["about"]) if item.get("about") else ""
    return v


def common_words(fact: dict, r: Reader) -> str | None:
    """The words every game shares (the prompt while others move), else None."""
    what = fact["what"]
    if what == "none":
        return ""
    if what == "match_over":
        return "The match is over."
    if what == "thinking":
        return f"{r.name(fact['who'])} is thinking…"
    return None
