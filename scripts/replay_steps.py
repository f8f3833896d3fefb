"""`cardzoo replay --step`: a recorded game, one whole move at a time, forwards and back.

Enter shows the next move (its line, what it caused, the table after it); ``b`` goes back one
move, ``g N`` to the table after move N, ``j N`` to the start of round / deal / hand N (the
sections of the game: its public status), ``q`` quits. Going back deals the record again and
plays it to the chosen move unseen (a record is a function of its seed and its moves).
"""

from __future__ import annotations

import re

from rich.text import Text

from cardzoo.envs.seatview import section_label
from cardzoo.scripts.play.lines import Leave
from cardzoo.training.evaluation.records import WholeMoveWalker, play_moves, reset_to_header

COMMAND = re.compile(r"^(b|back|g|go|j|jump|q|quit|exit|:q)?\s*(\d+)?$")


class Steps:
    """A record's whole moves (seat, ids, text, recorded steps after it) and where each section
    starts, read once; then the table at any move."""

    def __init__(self, env, rec: dict):
        self.env, self.rec = env, rec
        self.moves: list[tuple[int, tuple[int, ...], str, int]] = []
        self.sections: list[tuple[str, int]] = [(section_label(env), 0)]  # (label, moves before it)

        def whole(k, seat, ids, text, before):
            self.moves.append((seat, tuple(ids), text, walker.steps))
            label = section_label(env)
            if label != self.sections[-1][0]:
                self.sections.append((label, k))

        walker = WholeMoveWalker(env, whole)
        play_moves(env, rec["moves"], on_move=walker)
        self.goto(0)

    def goto(self, k: int) -> None:
        """The env after ``k`` whole moves (dealt again, the moves played unseen)."""
        reset_to_header(self.env, self.rec)
        if k:
            play_moves(self.env, self.rec["moves"][: self.moves[k - 1][3]], to_the_end=False)

    def play(self, k: int) -> None:
        """Play whole move ``k`` (0-based) on the env standing after ``k`` moves."""
        start = self.moves[k - 1][3] if k else 0
        play_moves(self.env, self.rec["moves"][start : self.moves[k][3]], to_the_end=False)


def step_through(view, steps: Steps, console, reader, rewards_of) -> None:
    """The interactive loop of ``--step`` (Leave when the person quits)."""
    n = len(steps.moves)
    word = steps.sections[-1][0].split()[0].lower() if steps.sections else "round"
    pos = 0
    console.print(view.table(None))
    while True:
        if pos >= n:
            return
        answer = (
            reader.read(f"-- [{pos}/{n}] Enter: next, b: back, g N: move N, j N: {word} N, q: quit -- ", style="bold")
            .strip()
            .lower()
        )
        m = COMMAND.match(answer)
        verb, number = (m.group(1), m.group(2)) if m else ("?", None)
        if verb in ("q", "quit", "exit", ":q"):
            raise Leave(f"stopped after move {pos} of {n}")
        if verb is None and number is None:  # Enter: the next move, as it happened
            before = view.snapshot()
            seat, ids, text, _ = steps.moves[pos]
            steps.play(pos)
            pos += 1
            line = Text(f"[{pos}/{n}] ", style="dim")
            line.append_text(view.describe(seat, ids, text, None, sep=" plays: "))
            console.print(line)
            for item in view.after_move(before, seat, ids, rewards_of(steps.env), None):
                console.print(item)
            console.print(view.table(None))
            continue
        target = _target(verb, number, pos, n, steps.sections, word, console)
        if target is None:
            continue
        pos = target
        steps.goto(pos)
        view.snapshot()
        console.print(Text(f"[{pos}/{n}] the table after move {pos}", style="bold"))
        console.print(view.table(None))


def _target(verb, number, pos: int, n: int, sections, word: str, console) -> int | None:
    """The move a command goes to, or None after saying what was wrong."""
    if verb in ("b", "back"):
        return max(0, pos - (int(number) if number else 1))
    if verb in ("g", "go") and number is not None and 0 <= int(number) <= n:
        return int(number)
    if verb in ("j", "jump") and number is not None and 1 <= int(number) <= len(sections):
        return sections[int(number) - 1][1]
    console.print(
        Text(
            f"type Enter (next move), b (back), g N (the table after move N, 0..{n}), j N (the start "
            f"of {word} N, 1..{len(sections)}) or q",
            style="yellow",
        )
    )
    return None
