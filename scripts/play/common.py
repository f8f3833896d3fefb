"""Shared pieces of the terminal views: card colouring, seat labels, places, the GameView base."""

from __future__ import annotations

import re
from collections.abc import Sequence
from types import ModuleType

from rich.console import Group
from rich.table import Table
from rich.text import Text

from cardzoo.envs.seatview import Reader, known_facts, ordinal, place_names, said  # noqa: F401  (views import them)
from cardzoo.scripts.typed_moves import Move, read_move

CARD_RE = re.compile(r"(10|[2-9AJQK])([♠♣♦♥])|\bJk\b")
RED_SUITS = "♦♥"


def card_text(text: str, base_style: str = "") -> Text:
    """A rich Text of ``text`` with every card token coloured (♥♦ red, ♠♣ bold, jokers magenta)."""
    out = Text(style=base_style)
    pos = 0
    for m in CARD_RE.finditer(text):
        out.append(text[pos : m.start()])
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


class Seats:
    """Who sits where: specs ('human', 'rules', 'random', 'model', a checkpoint) and labels.

    ``you``: a single person is "you" (play); False shows people as "human" (replay).
    """

    def __init__(self, specs: Sequence[str], you: bool = True):
        self.specs = list(specs)
        self.humans = [i for i, s in enumerate(self.specs) if s == "human"]
        self.you = you and len(self.humans) == 1

    def __len__(self) -> int:
        return len(self.specs)

    def label(self, seat: int) -> str:
        kind = self.specs[seat]
        if kind == "human":
            return f"player_{seat} (you)" if self.you else f"player_{seat} (human)"
        from cardzoo.training.agents.specs import seat_label

        return f"player_{seat} ({seat_label(kind)})"

    def short(self, seat: int) -> str:
        return "you" if self.you and self.specs[seat] == "human" else f"player_{seat}"

    def verb(self, seat: int, third_person: str, second_person: str) -> str:
        """``"player_2 leads"`` / ``"you lead"``."""
        return said(self.short(seat), third_person, second_person)


class GameView:
    """What one game shows and how it reads a person's moves.

    A view reads only public state plus the viewer's own hand; ``viewer`` is the seat whose
    cards may be shown (None: nobody's, e.g. when only bots play). ``reveal`` (replays of a
    finished game) shows every hand and every private event. ``show_rewards`` adds the RL
    rewards to the summaries.
    """

    title = ""
    rules_text = ""
    facts: ModuleType | None = None  # the game's envs view module: ``move_facts`` and ``word``, the browser log's own
    move_hint = "type a move; ? for help"  # shown in the prompt: keep the prompt within 70 columns
    show_deal = False  # draw the table when a deal begins and bots move before any person

    def __init__(self, env, seats: Seats, show_rewards: bool = False, reveal: bool = False):
        self.env = env
        self.seats = seats
        self.show_rewards = show_rewards
        self.reveal = reveal
        self._before: dict = {}  # the table before the move being shown (``snapshot``)

    # ---------------------------------------------------------------- display
    def table(self, viewer: int | None):
        """The table as the viewer may see it (public state + the viewer's hand)."""
        raise NotImplementedError

    def describe(self, seat: int, ids: tuple[int, ...], text: str, viewer: int | None = None, sep: str = ": ") -> Text:
        """One line telling what a seat just did (``text`` is the complete move's text), as
        ``viewer`` may see it (None: only what everybody may see)."""
        return Text.assemble((self.seats.label(seat) + sep, "cyan"), card_text(text))

    def snapshot(self) -> dict:
        """Public state before a move, handed to ``after_move`` and ``section_ended`` (and kept for
        ``describe``: a move's facts are read against the table before it)."""
        self._before = self.facts.snapshot(self.env) if self.facts else {}
        return self._before

    @property
    def reader(self) -> Reader:
        """Who reads the screen: the one person ("you"), else a watcher (every seat player_N)."""
        return Reader(self.seats.humans[0] if self.seats.you else None)

    def move_facts(self, before, seat: int, ids: tuple[int, ...], text: str, viewer: int | None) -> list[dict]:
        """The move's facts (the game's ``move_facts``: what the browser's log words too) as
        ``viewer`` may know them (all of them in a replay that reveals every hand)."""
        facts = self._facts().move_facts(self.env, before, seat, ids, text)
        return facts if self.reveal else known_facts(facts, viewer)

    def words(self, fact: dict) -> str:
        """One fact in the game's words (``word``), for this screen's reader."""
        return self._facts().word(fact, self.reader)

    def _facts(self) -> ModuleType:
        if self.facts is None:
            raise NotImplementedError(f"{type(self).__name__} has no facts module (envs/<game>/view.py)")
        return self.facts

    def after_move(
        self, before, seat: int, ids: tuple[int, ...], rewards: dict[int, float], viewer: int | None = None
    ) -> list:
        """What else happened with the move: a trick won, a player out, a sweep, the card drawn
        (to ``viewer`` only), the end-of-round summary."""
        return []

    def section_ended(self, before) -> bool:
        """True when the move ended a round / deal / hand (the session pauses for people)."""
        return False

    def standings(self) -> list:
        """The match result in the game's own terms (points, match score, chips, places)."""
        return []

    def legend(self, move_texts: Sequence[str]) -> str | None:
        """A line explaining notation used in the listed moves (e.g. Suipi's locked builds)."""
        return None

    def forced_word(self, text: str) -> str:
        """How the prompt names a forced move ("Enter = pass")."""
        return text

    # ------------------------------------------------------------------ input
    def parse(self, text: str, seat: int) -> Move:
        """Turn what a person typed into one complete legal move (``cardzoo.scripts.typed_moves``,
        which the browser's "why not?" reads too).

        Raises ValueError (IllegalMoveError is one) with a message for the person.
        """
        return read_move(self.env, text, seat)

    # ---------------------------------------------------------------- helpers
    def rewards_table(self, totals: Sequence[float], title: str = "Rewards (RL)") -> Table:
        t = Table(title=title, title_justify="left", box=None, header_style="dim")
        t.add_column("player")
        t.add_column("total reward", justify="right")
        for s, v in enumerate(totals):
            t.add_row(self.seats.label(s), f"{v:+.2f}")
        return t


def group(*items) -> Group:
    return Group(*[i for i in items if i is not None])


def compact_table() -> Table:
    """The summaries' table style: no box, a dim header, narrow enough for 80 columns."""
    from rich import box

    return Table(box=box.SIMPLE_HEAD, header_style="dim", pad_edge=False, show_edge=False)


def titled(title: str, table: Table, *notes) -> Group:
    """A summary: a bold title line, the table, then note lines (a title above a rich table
    would wrap to the table's width)."""
    return group(Text(title, style="bold"), table, *notes)
