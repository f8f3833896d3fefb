"""The `cardzoo play` loop: bots move, people type moves, the view shows what each may see."""

from __future__ import annotations

import difflib
import json
import re
import time
from collections.abc import Sequence

from rich.columns import Columns
from rich.console import Console
from rich.text import Text

from cardzoo.envs.base import IllegalMoveError
from cardzoo.envs.cards import card_str
from cardzoo.envs.errors import UserError
from cardzoo.envs.seatview import deal_match, match_over, skip_dead_steps
from cardzoo.scripts import hints, takeback
from cardzoo.scripts.play.common import GameView, Seats, card_text
from cardzoo.scripts.play.lines import Leave, LineReader, clip_echo
from cardzoo.scripts.typed_moves import Move
from cardzoo.training.agents.specs import agent_move, load_adviser

QUIT_WORDS = {"quit", "exit", "q", ":q", "bye"}
HELP_WORDS = {"?", "help", "h", "moves", "legal"}
SHOW_WORDS = {"show", "table", "look", "hand", "board", "status"}
HINT_WORDS = {"hint", "hint?", "advice"}
UNDO_WORDS = {"undo", "takeback", "take back"}
YES_WORDS = {"y", "yes", "q", "quit"}
AUTO_LIST = 12  # list the legal moves with every prompt when there are at most this many
LIST_PICK = re.compile(r"#\s*(\d+)[.)]?")  # `#3`: move 3 of the list (a bare number is a card rank)
RANK_NUMBERS = {str(n) for n in range(1, 11)}  # bare numbers that name a rank (1 = ace, as in `1s`)


class PlaySession:
    """One match at the terminal.

    ``waiting_for`` says what the current prompt asks ("move", "pause", "confirm" or "handoff"),
    so scripted input (tests) can answer each kind of prompt.
    """

    def __init__(
        self,
        env,
        view: GameView,
        seats: Seats,
        agents: Sequence,
        console: Console,
        stdin=None,
        *,
        seed: int,
        save: str | None = None,
        delay: float = 0.0,
        auto_pass: bool = False,
    ):
        self.env = env
        self.view = view
        self.seats = seats
        self.agents = agents  # per seat: an Agent, or None for a person
        self.console = console
        self.reader = LineReader(console, stdin)
        self.seed = seed
        self.save = save
        self.delay = delay
        self.auto_pass = auto_pass
        self.totals = [0.0] * len(seats)
        self.steps: list[dict] = []  # the record: one entry per action id
        self.log: list[dict] = []  # per whole move: seat, text, upto, reveals (scripts/takeback.py)
        self.moves_made = 0  # whole moves
        self.last_human: int | None = None
        self.waiting_for: str | None = None
        self.fresh_deal = True  # a round / deal / hand has just been dealt and nobody has moved
        self.adviser = None  # the model that answers `hint` (loaded the first time it is asked)
        self.skipping = False  # out of the match: the rest is played unseen (``_skip_or_watch``)
        self.watching_out = False  # out of the match, watching the rest without pauses
        self.adviser_error: str | None = None

    @property
    def stdin(self):
        return self.reader.stdin

    @stdin.setter
    def stdin(self, stream) -> None:
        self.reader = LineReader(self.console, stream)

    # ---------------------------------------------------------------- main loop
    def run(self) -> int:
        env, con = self.env, self.console
        deal_match(env, self.seed)
        for a in self.agents:
            if a is not None and hasattr(a, "reset"):
                a.reset()
        who = ", ".join(self.seats.label(s) for s in range(len(self.seats)))
        con.print(Text(f"{self.view.title}: {who}", style="bold"))
        con.print(
            Text(
                f"seed {self.seed} (play the same deals again with --seed {self.seed}); "
                "type ? for moves, rules for the rules, quit to leave",
                style="dim",
            )
        )
        try:
            while not self._over():
                agent = env.agent_selection
                if env.terminations[agent] or env.truncations[agent]:
                    env.step(None)  # a seat that left (Sam Sip elimination): PettingZoo's dead step
                    continue
                seat = env.agent_seat[agent]
                if self.agents[seat] is None:
                    self.fresh_deal = False  # the person's own table shows the deal
                    self._human_turn(seat)
                else:
                    if self.fresh_deal and self.seats.humans and self.view.show_deal:
                        # bots move first: show what was dealt before their moves change it
                        con.print(self.view.table(self._table_viewer()))
                    self.fresh_deal = False
                    try:
                        self._bot_turn(seat)
                    except KeyboardInterrupt:
                        raise Leave("interrupted") from None
        except Leave as q:
            moves = f"{self.moves_made} move{'' if self.moves_made == 1 else 's'}"
            con.print(Text(f"\n{q.why} — leaving the game after {moves} in all. Bye!", style="bold"))
            if self.save:
                con.print(Text(f"(the unfinished game was not saved to {self.save})", style="dim"))
            return 0
        self._finish()
        return 0

    def _table_viewer(self) -> int | None:
        """Whose hand a table drawn between moves may show: the one person's (none in hot-seat)."""
        return self.seats.humans[0] if len(self.seats.humans) == 1 else None

    def _over(self) -> bool:
        return match_over(self.env)

    # ------------------------------------------------------------------- moves
    def _step(self, seat: int, action: int, text: str | None = None, cards: str | None = None) -> dict[int, float]:
        """One env step (``cards``: the cards the person chose, played exactly: ``env.play_whole``),
        recorded."""
        env = self.env
        text = text or env.action_text(action)
        cards = env.play_whole((action,), cards)
        rewards = {env.agent_seat[a]: float(r) for a, r in env.rewards.items() if r}
        for s, r in rewards.items():
            self.totals[s] += r
        entry = {"seat": seat, "action": int(action), "text": text}
        if cards:
            entry["cards"] = cards
        if rewards:
            entry["rewards"] = {str(s): r for s, r in sorted(rewards.items())}
        self.steps.append(entry)
        return rewards

    def _apply(self, seat: int, move: Move, note: str | None = None) -> None:
        """Play a person's complete move and show what happened."""
        before, seen = self.view.snapshot(), self._seen()
        rewards: dict[int, float] = {}
        if move.cards:
            rewards = self._step(seat, move.ids[0], move.text, cards=move.cards)
        else:
            for a in move.ids:
                for s, r in self._step(seat, a).items():
                    rewards[s] = rewards.get(s, 0.0) + r
        self._report(before, seen, seat, move.ids, move.text, rewards, note)

    def _seen(self) -> dict:
        """What the one person sees before a move (``takeback.cards_seen``): `undo` never takes
        back a move that showed them hidden cards. Nothing in hot-seat games (no undo there)."""
        if len(self.seats.humans) != 1:
            return {}
        return {s: takeback.cards_seen(self.env, s) for s in self.seats.humans}

    def _report(self, before, seen, seat, ids, text, rewards, note=None) -> None:
        self.moves_made += 1
        line = self.view.describe(seat, tuple(ids), text, self._private_viewer(seat))
        self.log.append(
            {
                "seat": seat,
                "text": line.plain.split(": ", 1)[-1],
                "upto": len(self.steps),
                "reveals": [s for s, cards in seen.items() if takeback.shown_hidden(self.env, s, cards)],
            }
        )
        if note:
            line.append(f"  ({note})", style="dim")
        self.console.print(line)
        for item in self.view.after_move(before, seat, tuple(ids), rewards, self._private_viewer(seat)):
            self.console.print(item)
        if self.view.section_ended(before):
            self.fresh_deal = True
            if self.seats.humans and not self._over() and not self.skipping:
                if self._all_out():
                    self._skip_or_watch()
                else:
                    self._pause()

    def _all_out(self) -> bool:
        """Every person at the table is out of the match (Sam Sip: knocked out): nothing is left
        for them to do but see how it ends."""
        env = self.env
        playing = {env.agent_seat[a] for a in env.agents if not (env.terminations[a] or env.truncations[a])}
        return bool(self.seats.humans) and not playing & set(self.seats.humans)

    def _skip_or_watch(self) -> None:
        """Once out: one question instead of a pause after every hand — skip to the end (the
        default, also `q`: the match is played out and, with --save, saved), or watch the rest."""
        line = (
            self._read("— you are out: Enter skips to the end of the match (w: watch the rest) — ", "pause")
            .strip()
            .lower()
        )
        if line in ("w", "watch"):
            self.watching_out = True
            self.console.print(Text("watching the rest; the others play on.", style="dim"))
            return
        self.skipping = True
        self.console.print(Text("skipping to the end of the match …", style="dim"))
        self.console.quiet = True  # the rest is played unseen; the result is shown (``_finish``)

    def _private_viewer(self, seat: int | None = None) -> int | None:
        """The seat whose private events (the card drawn, a swap it takes part in) the screen may
        show: the one person at the table; nobody's in hot-seat games (the next person may read
        the lines before the screen is cleared for them)."""
        return self.seats.humans[0] if len(self.seats.humans) == 1 else None

    def _bot_turn(self, seat: int) -> None:
        env = self.env
        agent_name = env.agent_selection
        full = {tuple(ids): text for ids, text in env.full_moves()}
        texts = []
        ids: list[int] = []
        bot = self.agents[seat]
        before, seen = self.view.snapshot(), self._seen()
        rewards: dict[int, float] = {}
        while True:
            obs = env.observe(agent_name)
            action = agent_move(bot, env, seat, obs["observation"], obs["action_mask"])
            texts.append(env.action_text(action))
            ids.append(action)
            for s, r in self._step(seat, action).items():
                rewards[s] = rewards.get(s, 0.0) + r
            if tuple(ids) in full or self._over() or env.agent_selection != agent_name:
                break
        self._report(before, seen, seat, tuple(ids), full.get(tuple(ids), " ".join(texts)), rewards)
        if self.delay:
            time.sleep(self.delay)

    def _human_turn(self, seat: int) -> None:
        con = self.console
        moves = self.env.full_moves()
        forced = len(moves) == 1
        if forced and self.auto_pass:
            ids, text = moves[0]
            self._apply(seat, Move(tuple(ids), text), note="your only move, played by --auto-pass")
            return
        if len(self.seats.humans) > 1 and seat != self.last_human:
            # hot-seat: hide the previous person's hand before the next one looks
            if con.is_terminal:
                con.clear()
            con.rule(f"player_{seat}'s turn")
            self._read(f"player_{seat}: press Enter when only you can see the screen ", "handoff")
            if con.is_terminal:
                con.clear()
        self.last_human = seat
        con.print(self.view.table(seat))
        if len(moves) <= AUTO_LIST:
            self._list_moves(moves)
        prompt = (
            f"player_{seat}, your only move: Enter = {self.view.forced_word(moves[0][1])} > "
            if forced
            else f"player_{seat}, your move ({self.view.move_hint}) > "
        )
        while True:
            line = self._read(prompt, "move").strip()
            if not line:
                if forced:
                    ids, text = moves[0]
                    self._apply(seat, Move(tuple(ids), text))
                    return
                con.print(Text(f"you have {len(moves)} moves: type one (? lists them)", style="dim"))
                continue
            low = line.lower()
            if low in QUIT_WORDS:
                queen = self._quiet_parse(line, moves, seat) if low == "q" else None
                if queen is not None:  # `q` is also a rank: ask rather than guess
                    con.print(
                        Text(
                            f"`q` could mean {queen.text} or quit: type the card to play it, or `quit` to leave",
                            style="yellow",
                        )
                    )
                    continue
                self._confirm_quit()
                continue
            if low in HELP_WORDS:
                self._help(moves)
                continue
            if low == "rules":
                con.print(reflow(self.view.rules_text), markup=False, highlight=False)
                continue
            if low in SHOW_WORDS:
                con.print(self.view.table(seat))
                continue
            if low in HINT_WORDS:
                self._hint(moves)
                continue
            if low in UNDO_WORDS:
                if self._undo(seat):
                    return
                continue
            move = self._pick(line, moves, seat)
            if move is not None:
                self._apply(seat, move)
                return

    def _pick(self, line: str, moves, seat: int) -> Move | None:
        """The move the person meant, or None after saying what was wrong."""
        con = self.console
        token = line.strip()
        pick = LIST_PICK.fullmatch(token)
        if pick:  # only `#k` picks from the list: a typed number never silently means a list entry
            k = int(pick.group(1))
            if 1 <= k <= len(moves):
                ids, text = moves[k - 1]
                return Move(tuple(ids), text)
            con.print(Text(f"there is no move #{k}: pick #1..#{len(moves)} — try again (? lists them)", style="red"))
            return None
        if token.isdigit() and token.lstrip("0") not in RANK_NUMBERS:
            # 0, 11, 42 ...: no card has that rank; perhaps a list number was meant
            k = int(token)
            listed = (
                f"; to play move {k} of the list, type #{k}"
                if 1 <= k <= len(moves)
                else f"; to pick from the list of moves, type #1..#{len(moves)}"
            )
            self._refuse(f"{token} is not a card rank (ranks: A or 1, 2-10, J, Q, K){listed}", line)
            return None
        hint = (
            f" (a number is a card rank; #{token} picks move {token} of the list)"
            if token.isdigit() and 1 <= int(token) <= len(moves)
            else _did_you_mean(token, moves)
        )
        try:
            move = self.view.parse(line, seat)
        except IllegalMoveError as e:
            self._refuse(e.reason + hint, line)
            return None
        except ValueError as e:
            self._refuse(str(e) + hint, line)
            return None
        if move.ids not in {tuple(i) for i, _ in moves}:
            self._refuse(f"{line!r} is not a legal move now", line)
            return None
        return move

    def _hint(self, moves) -> None:
        """`hint`: the game's model's ranking of the moves here (``model``, as for --seats), from
        the acting seat's own observation — its hand and the public table only — in words (best,
        about as good, fine, risky: scripts/hints.py), each with its number in the list; moves the
        rules treat alike (``env.rule_class``) are named together, with one label."""
        con = self.console
        adviser = self._adviser()
        if adviser is None:
            con.print(Text(f"no hint: {self.adviser_error}", style="yellow"))
            return
        env = self.env
        obs = env.observe(env.agent_selection)
        advice = adviser.advise(obs["observation"], obs["action_mask"])
        texts = {tuple(ids): t for ids, t in moves}
        number = {tuple(ids): k for k, (ids, _) in enumerate(moves, 1)}
        ranking = hints.ranked(advice, getattr(adviser, "advice_unit", "p"), texts, alike=env.rule_class)
        if not ranking:
            con.print(Text("no hint: the model has no move to suggest here", style="yellow"))
            return

        def one(m) -> Text:
            text = m["text"] or " ".join(env.action_text(a) for a in m["ids"])
            return Text.assemble(
                (f"#{number[tuple(m['ids'])]} ", "dim") if tuple(m["ids"]) in number else "", card_text(text)
            )

        def named(m) -> Text:  # with the moves the rules treat alike: `#3 4♦ drop or #5 4♣ drop (alike)`
            out = one(m)
            for other in m["alike"]:
                out.append_text(Text.assemble(" or ", one(other)))
            return out.append(" (alike)", style="dim") if m["alike"] else out

        best = ranking[0]
        con.print(Text.assemble(("hint: ", "bold"), "the model would play ", named(best), (" — its best", "dim")))
        if len(ranking) > 1:
            line = Text("  then: ", style="dim")
            for k, m in enumerate(ranking[1:]):
                line.append_text(Text.assemble("; " if k else "", named(m), (f" ({m['label']})", "dim")))
            con.print(line)
        con.print(Text(f"  ({hints.NOTE}; it plays nothing)", style="dim"))

    def _adviser(self):
        """The model behind `hint` for this game and player count, or None (with the reason)."""
        if self.adviser is None and self.adviser_error is None:
            from cardzoo.envs.registry import game_spec

            self.console.print(Text("loading the model for hints …", style="dim"))
            try:
                self.adviser = load_adviser(game_spec(self.env.game_name).module, self.env.config)
            except UserError as e:
                self.adviser_error = str(e)
        return self.adviser

    def _undo(self, seat: int) -> bool:
        """`undo`: take back the person's last move and the bot moves after it (the match dealt
        again from its seed, the recorded steps before that move played again); never a move
        that showed them hidden cards (scripts/takeback.py). True when something was taken back."""
        con = self.console
        if len(self.seats.humans) != 1:
            con.print(Text("undo is for a game where every other seat is a bot", style="yellow"))
            return False
        keep = takeback.undo_point(self.log, seat, lambda i: self.log[i]["text"])
        if isinstance(keep, str):
            con.print(card_text(keep, "yellow"))
            return False
        gone = self.log[keep:]
        steps = self.steps[: takeback.upto(self.log, keep)]
        deal_match(self.env, self.seed)
        self.steps, self.log, self.totals = [], self.log[:keep], [0.0] * len(self.seats)
        for entry in steps:
            skip_dead_steps(self.env)
            self._step(entry["seat"], entry["action"], entry["text"], entry.get("cards"))
        self.moves_made = len(self.log)
        others = len(gone) - 1
        self.fresh_deal = False
        con.print(
            Text.assemble(
                ("took back ", "bold"),
                "your move `",
                card_text(gone[0]["text"]),
                "`",
                f" and the {others} move{'s' if others != 1 else ''} after it" if others else "",
            )
        )
        return True

    def _quiet_parse(self, line: str, moves, seat: int) -> Move | None:
        """The legal move ``line`` names, or None (nothing printed)."""
        try:
            move = self.view.parse(line, seat)
        except ValueError:
            return None
        return move if move.ids in {tuple(i) for i, _ in moves} else None

    def _refuse(self, reason: str, line: str) -> None:
        self.console.print(Text(f"{clip_echo(reason, line)} — try again (? lists the legal moves)", style="red"))

    def _list_moves(self, moves) -> None:
        items = [Text.assemble((f"#{i:<2} ", "dim"), card_text(t)) for i, (_, t) in enumerate(moves, 1)]
        self.console.print(Text("Legal moves:", style="bold"))
        self.console.print(Columns(items, padding=(0, 3)))
        legend = self.view.legend([t for _, t in moves])
        if legend:
            self.console.print(Text(legend, style="dim"))

    def _help(self, moves) -> None:
        self._list_moves(moves)
        self.console.print(
            Text(
                "Type a move as you would say it (cards like 7h 7s, 10d, Q♠, or a rank alone: 7 7, q — see "
                "`rules`), or #N for move N of this list (a bare number is always a card rank). "
                "Enter plays your move when you have only one. Commands: ? / help (this list), show (the table "
                "again), rules, hint (what the trained model would play), undo (take back your last move), "
                "quit. ↑/↓ recall earlier lines.",
                style="dim",
            )
        )

    def _confirm_quit(self) -> None:
        answer = self._read("Leave the match in progress? (y/N) ", "confirm").strip().lower()
        if answer in YES_WORDS:
            raise Leave("you quit")
        self.console.print(Text("Playing on.", style="dim"))

    def _pause(self) -> None:
        if self.watching_out:  # out, watching the others: their hands go by without a stop
            return
        line = self._read("— press Enter to continue — ", "pause").strip().lower()
        if line in QUIT_WORDS:
            self._confirm_quit()

    def _read(self, prompt: str, kind: str) -> str:
        self.waiting_for = kind
        try:
            return self.reader.read(prompt)
        finally:
            self.waiting_for = None

    # ------------------------------------------------------------------- finish
    def _finish(self) -> None:
        con = self.console
        con.quiet = False
        for item in self.view.standings():
            con.print(item)
        if self.view.show_rewards:
            con.print(self.view.rewards_table(self.totals))
        if self.save:
            write_record(self.save, self.env, self.seats.specs, self.steps, self.totals)
            con.print(Text(f"game saved to {self.save}", style="dim"))


def write_record(path: str, env, specs: Sequence[str], steps: Sequence[dict], totals: Sequence[float]) -> None:
    """Write the finished game as one JSON line in the format of training/evaluation/records.py:
    record_header() + moves [{seat, action, text[, cards][, rewards]}] + rewards (total per seat)
    + agents, so `cardzoo replay` shows it and ``cardzoo.training.evaluation.records.replay_record`` checks it."""
    rec = {
        **env.record_header(),
        "moves": list(steps),
        "rewards": [float(t) for t in totals],
        "agents": list(specs),
        "source": "cardzoo play",
    }
    if rec.get("deck") is not None:  # a stacked deck as card text, the form reset(options=...) reads
        rec["deck"] = [card_str(c) if isinstance(c, int) else c for c in rec["deck"]]
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


COMMAND_WORDS = ("help", "show", "rules", "hint", "quit")


def _did_you_mean(token: str, moves) -> str:
    """` (did you mean `pass`?)` for one mistyped word close to a word of the legal moves or a
    command (`pas`, `drwa`, `hnit`), else ""; a suggestion only, never played."""
    word = token.lower()
    if " " in word or len(word) < 3:
        return ""
    words = {w for _, text in moves for w in text.lower().split() if w.isalpha() and len(w) > 2}
    close = difflib.get_close_matches(word, sorted(words | set(COMMAND_WORDS)), n=1, cutoff=0.75)
    return f" (did you mean `{close[0]}`?)" if close and close[0] != word else ""
