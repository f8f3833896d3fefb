"""Shared pieces of the terminal views: card colouring, seat labels, the GameView base class."""

from __future__ import annotations

import re
from typing import Sequence

from rich.console import Group
from rich.table import Table
from rich.text import Text

CARD_RE = re.compile(r"(10|[2-9AJQK])([♠♣♦♥])|\bJk\b")
RED_SUITS = "♦♥"


def card_text(text: str, base_style: str = "") -> Text:
    """A rich Text of ``text`` with every card token coloured (♥♦ red, ♠♣ bold, jokers magenta)."""
    out = Text(style=base_style)
    pos = 0
    for m in CARD_RE.finditer(text):
        out.append(text[pos:m.start()])
        token = m.group(0)
        if token == "Jk":
            style = "bold magenta"
        elif m.group(2) in RED_SUITS:
            style = "bold red"
        else:
            style = "bold"
        out.append(token, style=style)
        pos = m.end()
    out.append(text[pos:])
    return out


def cards_line(cards: Sequence[str], sep: str = " ") -> Text:
    return card_text(sep.join(cards))


class Seats:
    """Who sits where: specs ('human', 'rules', 'random', a checkpoint) and display labels."""

    def __init__(self, specs: Sequence[str]):
        self.specs = list(specs)
        self.humans = [i for i, s in enumerate(self.specs) if s == "human"]

    def __len__(self) -> int:
        return len(self.specs)

    def is_human(self, seat: int) -> bool:
        return self.specs[seat] == "human"

    def label(self, seat: int, viewer: int | None = None) -> str:
        kind = self.specs[seat]
        if kind == "human":
            return f"player_{seat} (you)" if len(self.humans) == 1 else f"player_{seat} (human)"
        from scripts.play.seats import seat_label

        kind = seat_label(kind)
        return f"player_{seat} ({kind})"

    def short(self, seat: int, viewer: int | None = None) -> str:
        if self.specs[seat] == "human" and len(self.humans) == 1:
            return "you"
        return f"player_{seat}"


class GameView:
    """What one game shows and how it reads a person's moves.

    A view reads only public state plus the viewer's own hand; ``viewer`` is the seat whose
    cards may be shown (None: nobody's, e.g. when only bots play).
    """

    title = ""
    rules_text = ""
    move_hint = "type a move"

    def __init__(self, env, seats: Seats):
        self.env = env
        self.seats = seats

    # ---------------------------------------------------------------- display
    def table(self, viewer: int | None):
        """The table as the viewer may see it (public state + the viewer's hand)."""
        raise NotImplementedError

    def describe(self, seat: int, ids: tuple[int, ...], text: str, viewer: int | None = None) -> Text:
        """One line telling what a seat just did (``text`` is the complete move's text), as
        ``viewer`` may see it (None: only what everybody may see)."""
        return Text.assemble((self.seats.label(seat) + ": ", "cyan"), card_text(text))

    def snapshot(self) -> object:
        """Public state before a move, handed to ``after_move``."""
        return None

    def after_move(self, before, seat: int, ids: tuple[int, ...], rewards: dict[int, float]) -> list:
        """Extra output after a move: e.g. a squeal, the end-of-round score breakdown."""
        return []

    def final(self, totals: list[float]) -> list:
        """End-of-match output besides the reward table."""
        return []

    # ------------------------------------------------------------------ input
    def parse(self, text: str, seat: int) -> tuple[int, ...]:
        """Turn what a person typed into the action ids of one complete legal move.

        Raises ValueError (IllegalMoveError is one) with a message for the person.
        """
        return tuple(self.env.parse_move(text))

    def note_for(self, text: str, ids: tuple[int, ...], seat: int) -> str | None:
        """An optional remark on how the typed move was understood."""
        return None

    # ---------------------------------------------------------------- helpers
    def rewards_table(self, totals: Sequence[float], title: str = "Match result") -> Table:
        t = Table(title=title, title_justify="left")
        t.add_column("seat")
        t.add_column("total reward", justify="right")
        for s, v in enumerate(totals):
            t.add_row(self.seats.label(s), f"{v:+.2f}")
        return t


def group(*items) -> Group:
    return Group(*[i for i in items if i is not None])
