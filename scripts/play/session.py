"""The `cardzoo play` loop: bots move, people type moves, the view shows what each may see."""

from __future__ import annotations

import json
import sys
import time
from typing import Sequence

from rich.columns import Columns
from rich.console import Console
from rich.text import Text

from scripts.play.common import GameView, Seats, card_text

QUIT_WORDS = {"quit", "exit", "q", ":q", "bye"}
HELP_WORDS = {"?", "help", "h", "moves", "legal"}
SHOW_WORDS = {"show", "table", "look", "hand", "board", "status"}
AUTO_LIST = 12  # list the legal moves with every prompt when there are at most this many


class Quit(Exception):
    """The person left (quit, end of input or Ctrl-C)."""

    def __init__(self, why: str):
        super().__init__(why)
        self.why = why


class PlaySession:
    def __init__(self, env, view: GameView, seats: Seats, agents: Sequence, console: Console,
                 stdin=None, seed: int | None = None, save: str | None = None, delay: float = 0.0):
        self.env = env
        self.view = view
        self.seats = seats
        self.agents = agents  # per seat: an Agent, or None for a person
        self.console = console
        self.stdin = stdin if stdin is not None else sys.stdin
        self.seed = seed
        self.save = save
        self.delay = delay
        self.totals = [0.0] * len(seats)
        self.steps: list[dict] = []  # the record: one entry per action id
        self.last_human: int | None = None
        self.viewer: int | None = seats.humans[0] if seats.humans else None

    # ---------------------------------------------------------------- main loop
    def run(self) -> int:
        env, con = self.env, self.console
        env.reset(seed=self.seed)
        for a in self.agents:
            if a is not None and hasattr(a, "reset"):
                a.reset()
        who = ", ".join(self.seats.label(s) for s in range(len(self.seats)))
        con.print(Text(f"{self.view.title}: {who}", style="bold"))
        con.print(Text(f"seed {self.seed} (play the same deals again with --seed {self.seed}); "
                       "type ? for moves, rules for the rules, quit to leave", style="dim"))
        try:
            while not self._over():
                agent = env.agent_selection
                if env.terminations[agent] or env.truncations[agent]:
                    env.step(None)  # a seat that left (Sam Sip elimination): PettingZoo's dead step
                    continue
                seat = env.agent_seat[agent]
                if self.agents[seat] is None:
                    self._human_turn(seat)
                else:
                    try:
                        self._bot_turn(seat)
                    except KeyboardInterrupt:
                        raise Quit("interrupted") from None
        except Quit as q:
            con.print(Text(f"\n{q.why} — leaving the game after {len(self.steps)} moves. Bye!", style="bold"))
            if self.save:
                con.print(Text(f"(the unfinished game was not saved to {self.save})", style="dim"))
            return 0
        self._finish()
        return 0

    def _over(self) -> bool:
        env = self.env
        return not env.agents or all(env.terminations[a] or env.truncations[a] for a in env.agents)

    # ------------------------------------------------------------------- moves
    def _step(self, seat: int, action: int) -> dict[int, float]:
        env = self.env
        text = env.action_text(action)
        env.step(action)
        rewards = {env.agent_seat[a]: float(r) for a, r in env.rewards.items() if r}
        for s, r in rewards.items():
            self.totals[s] += r
        entry = {"seat": seat, "action": int(action), "text": text}
        if rewards:
            entry["rewards"] = {str(s): r for s, r in sorted(rewards.items())}
        self.steps.append(entry)
        return rewards

    def _play_ids(self, seat: int, ids: Sequence[int], text: str) -> None:
        before = self.view.snapshot()
        rewards: dict[int, float] = {}
        for a in ids:
            for s, r in self._step(seat, a).items():
                rewards[s] = rewards.get(s, 0.0) + r
        self.console.print(self.view.describe(seat, tuple(ids), text, self._private_viewer()))
        for item in self.view.after_move(before, seat, tuple(ids), rewards):
            self.console.print(item)

    def _private_viewer(self) -> int | None:
        """The seat whose private events (e.g. a swap it takes part in) the screen may show:
        the one person at the table; None with no person or several (hot-seat)."""
        return self.seats.humans[0] if len(self.seats.humans) == 1 else None

    def _bot_turn(self, seat: int) -> None:
        env = self.env
        agent_name = env.agent_selection
        full = {tuple(ids): text for ids, text in env.full_moves()}
        texts = []
        ids: list[int] = []
        bot = self.agents[seat]
        before = self.view.snapshot()
        rewards: dict[int, float] = {}
        while True:
            obs = env.observe(agent_name)
            action = int(bot.act(obs["observation"], obs["action_mask"]))
            texts.append(env.action_text(action))
            ids.append(action)
            for s, r in self._step(seat, action).items():
                rewards[s] = rewards.get(s, 0.0) + r
            if tuple(ids) in full or self._over() or env.agent_selection != agent_name:
                break
        text = full.get(tuple(ids), " ".join(texts))
        self.console.print(self.view.describe(seat, tuple(ids), text, self._private_viewer()))
        for item in self.view.after_move(before, seat, tuple(ids), rewards):
            self.console.print(item)
        if self.delay:
            time.sleep(self.delay)

    def _human_turn(self, seat: int) -> None:
        con = self.console
        if len(self.seats.humans) > 1 and seat != self.last_human:
            # hot-seat: hide the previous person's hand before the next one looks
            if con.is_terminal:
                con.clear()
            con.rule(f"player_{seat}'s turn")
            self._read(f"player_{seat}: press Enter when only you can see the screen ")
            if con.is_terminal:
                con.clear()
        self.last_human = seat
        self.viewer = seat
        con.print(self.view.table(seat))
        moves = self.env.full_moves()
        if len(moves) <= AUTO_LIST:
            self._list_moves(moves)
        while True:
            line = self._read(f"player_{seat}, your move ({self.view.move_hint}) > ").strip()
            if not line:
                continue
            low = line.lower()
            if low in QUIT_WORDS:
                raise Quit("you quit")
            if low in HELP_WORDS:
                self._help(moves)
                continue
            if low == "rules":
                con.print(reflow(self.view.rules_text), markup=False, highlight=False)
                continue
            if low in SHOW_WORDS:
                con.print(self.view.table(seat))
                continue
            choice = self._pick(line, moves, seat)
            if choice is None:
                continue
            ids, text, note = choice
            if note:
                con.print(Text(note, style="dim"))
            self._play_ids(seat, ids, text)
            return

    def _pick(self, line: str, moves, seat: int):
        """(ids, text, note) of the move the person meant, or None after saying what was wrong."""
        con = self.console
        token = line.strip().rstrip(".)")
        if token.isdigit():
            k = int(token)
            if 1 <= k <= len(moves):
                ids, text = moves[k - 1]
                return tuple(ids), text, None
            con.print(Text(f"there is no move {k}: pick 1..{len(moves)} — try again (? lists them)", style="red"))
            return None
        try:
            ids = tuple(int(a) for a in self.view.parse(line, seat))
        except ValueError as e:  # IllegalMoveError is a ValueError
            con.print(Text(f"{e} — try again (? lists the legal moves)", style="red"))
            return None
        except Exception as e:  # never lose a game to a parser bug
            con.print(Text(f"could not read {line!r} ({type(e).__name__}: {e}) — try again", style="red"))
            return None
        by_ids = {tuple(i): t for i, t in moves}
        if ids not in by_ids:
            con.print(Text(f"{line!r} is not a legal move now — try again (? lists them)", style="red"))
            return None
        return ids, by_ids[ids], self.view.note_for(line, ids, seat)

    def _list_moves(self, moves) -> None:
        items = [Text.assemble((f"{i:>2}) ", "dim"), card_text(t)) for i, (_, t) in enumerate(moves, 1)]
        self.console.print(Text("Legal moves:", style="bold"))
        self.console.print(Columns(items, padding=(0, 3)))

    def _help(self, moves) -> None:
        self._list_moves(moves)
        self.console.print(Text(
            "Type a move as you would say it (cards like 7h 7s, 10d, Q♠ — see `rules`), or its number. "
            "Commands: ? / help (this list), show (the table again), rules, quit.", style="dim"))

    def _read(self, prompt: str) -> str:
        self.console.print(Text(prompt, style="bold green"), end="")
        try:
            if self.stdin is sys.stdin and sys.stdin.isatty():
                return input()
            line = self.stdin.readline()
        except KeyboardInterrupt:
            raise Quit("interrupted") from None
        except EOFError:
            raise Quit("end of input") from None
        if line == "":
            self.console.print()
            raise Quit("end of input")
        if not (self.stdin is sys.stdin and sys.stdin.isatty()):
            # echo piped input, so a transcript reads like a session
            self.console.print(Text(line.rstrip("\n"), style="dim"), highlight=False)
        return line.rstrip("\r\n")

    # ------------------------------------------------------------------- finish
    def _finish(self) -> None:
        con = self.console
        con.print(self.view.table(None))
        con.print(self.view.rewards_table(self.totals))
        for item in self.view.final(self.totals):
            con.print(item)
        if self.save:
            write_record(self.save, self.env, self.seats.specs, self.steps, self.totals)
            con.print(Text(f"game saved to {self.save}", style="dim"))


def write_record(path: str, env, specs: Sequence[str], steps: Sequence[dict], totals: Sequence[float]) -> None:
    """Write the finished game as one JSON line in the format of training/records.py:
    record_header() + moves [{seat, action, text[, rewards]}] + rewards (total per seat) + agents,
    so `cardzoo replay` shows it and ``training.records.replay_record`` checks it."""
    rec = {**env.record_header(), "moves": list(steps), "rewards": [float(t) for t in totals],
           "agents": list(specs), "source": "cardzoo play"}
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(rec, ensure_ascii=False) + "\n")


def reflow(text: str) -> str:
    """Join indented continuation lines to their bullet, so the console wraps to its own width."""
    lines: list[str] = []
    for line in text.splitlines():
        if line.startswith("  ") and lines and line.strip() and line.strip()[0] not in "*-•":
            lines[-1] += " " + line.strip()
        else:
            lines.append(line)
    return "\n".join(lines)
