"""Siantappo at the terminal: the current trick, who passed, cards left, your sorted hand."""

from __future__ import annotations

from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from cardzoo.envs.seatview import SPECTATOR, rules_summary
from cardzoo.envs.siantappo import view as facts
from cardzoo.envs.siantappo.actions import ACTION_TYPE, PASS_ID, TYPE_NAMES, key_str, keys_str
from cardzoo.envs.siantappo.engine import OVER, SWAP, hand_keys
from cardzoo.envs.siantappo.env import SQUEAL
from cardzoo.envs.siantappo.view import place_now
from cardzoo.scripts.play.common import GameView, card_text, compact_table, group, ordinal, place_names, titled

RULES = (
    rules_summary("siantappo")
    + """
Input: the cards of your combination (`7h 7s`, `10d`, `Q♠ K♠ A♠`), `pass`, or `#3` for move 3 of `?`.
A rank alone (`7 7`, `q`) is enough when it can only mean one set of your cards. Enter plays your
only move."""
)


class SiantappoView(GameView):
    title = "Siantappo"
    rules_text = RULES
    facts = facts
    move_hint = "cards like 7h 7s, or pass; ? for help"

    @property
    def eng(self):
        return self.env.engine

    # ---------------------------------------------------------------- display
    def table(self, viewer):
        eng = self.eng
        cfg = self.env.config
        head = Text(f"Siantappo — round {min(eng.round_index + 1, cfg.rounds)}/{cfg.rounds}", style="bold")
        if eng.phase == OVER:
            head.append("  (match over)")
        players = Table(box=None, pad_edge=False, show_header=True, header_style="dim")
        players.add_column("")
        players.add_column("player")
        players.add_column("cards", justify="right")
        players.add_column("status")
        players.add_column("points", justify="right")
        players.add_column("pig", justify="right")
        public = self.facts.seat_view(self.env, SPECTATOR)  # the view's facts, worded for this screen
        for s, seat in enumerate(public["players"]):
            mark = "→" if eng.phase != OVER and eng.acting == s else ""
            style = "bold yellow" if mark else ""
            players.add_row(
                mark,
                Text(self.seats.label(s), style=style),
                str(eng.counts[s]),
                ", ".join(self.words(f) for f in seat["status_facts"]),
                str(eng.match_points[s]),
                str(eng.pig_counts[s]),
            )
        items = public["table"][0]["items"]
        about = items[0]["about"] if items else None
        if about is None:
            trick = Text("")
        elif about["what"] == "giving_back":
            trick = Text(f"Swap: {self.words(about)}")
        elif about["what"] == "on_table":
            trick = Text.assemble("On the table: ", card_text(" ".join(items[0]["cards"])), f"  ({self.words(about)})")
        else:  # to lead: "empty: you lead"
            trick = Text(f"The table is {self.words(about)}.")
        parts = [head, players, trick]
        if self.reveal:
            parts += [self.hand_text(s, f"{self.seats.short(s)}: ") for s in range(eng.n) if eng.counts[s]]
        elif viewer is not None and eng.phase != OVER:
            parts.append(self.hand_text(viewer))
            if eng.swap_given[viewer] or eng.swap_received[viewer]:
                parts.append(
                    Text.assemble(
                        ("Swap this round: ", "dim"),
                        "gave ",
                        card_text(keys_str(eng.swap_given[viewer]) or "-"),
                        ", received ",
                        card_text(keys_str(eng.swap_received[viewer]) or "-"),
                    )
                )
        return Panel(group(*parts), title=self.title, title_align="left")

    def _place_now(self, seat: int) -> int:
        return place_now(self.eng, seat)

    def hand_text(self, seat: int, label: str | None = None) -> Text:
        keys = hand_keys(self.eng.hands[seat])
        # grouped by rank, low to high in game order
        groups: list[list[int]] = []
        for k in keys:
            if groups and groups[-1][0] >> 2 == k >> 2:
                groups[-1].append(k)
            else:
                groups.append([k])
        text = Text(label or f"Your hand ({len(keys)}): ", style="bold green")
        text.append_text(card_text("  ".join(" ".join(key_str(k) for k in g) for g in groups)))
        return text

    def describe(self, seat, ids, text, viewer=None, sep=": "):
        label = Text(self.seats.label(seat) + sep, style="cyan")
        action = ids[-1]
        if self._before.get("phase") == SWAP:  # a swap is private to its two players
            move = self.move_facts(self._before, seat, ids, text, viewer)[0]
            return Text.assemble(label, card_text(self.words(move)))
        if action == PASS_ID:
            return Text.assemble(label, ("pass", "dim"))
        kind = TYPE_NAMES[ACTION_TYPE[action]]
        return Text.assemble(label, card_text(text), (f"  ({kind})", "dim"))

    def section_ended(self, before):
        return self.eng.round_index > before["round"]

    def after_move(self, before, seat, ids, rewards, viewer=None):
        out = []
        action = ids[-1]
        if before["phase"] != SWAP and self.env.is_squeal(action):
            out.append(Text(SQUEAL, style="bold magenta"))
        events = self.move_facts(before, seat, ids, "", viewer)[1:]  # what the move caused
        for fact in events:
            if fact["what"] in ("out", "trick"):
                out.append(Text(self.words(fact), style="bold" if fact["what"] == "out" else "yellow"))
        if self.eng.round_index > before["round"]:
            out.append(self.round_summary(before["round"], rewards))
        return out

    def round_summary(self, round_index: int, rewards):
        eng = self.eng
        n = eng.n
        places = eng.round_places[round_index]
        t = compact_table()
        # sorted by this round's places, so this round's points come first (they fall with the
        # place); the match totals after them need not (issue 60: "9 above 11" read as a mistake)
        t.add_column("place", justify="right")
        t.add_column("player")
        t.add_column("this round", justify="right")
        t.add_column("match points", justify="right")
        t.add_column("pig", justify="right")
        if self.show_rewards:
            t.add_column("reward", justify="right")
            t.add_column("total", justify="right")
        for s in sorted(range(n), key=lambda s: places[s]):
            place = places[s]
            name = self.seats.label(s) + (" 🐷 the pig" if place == n else "")
            row = [ordinal(place), name, f"+{n - place}", str(eng.match_points[s]), str(eng.pig_counts[s])]
            if self.show_rewards:
                row += [f"{rewards.get(s, 0.0):+.2f}", f"{eng.total_rewards[s]:+.2f}"]
            t.add_row(*row)
        return titled(f"End of round {round_index + 1} of {self.env.config.rounds}", t)

    def standings(self):
        eng = self.eng
        places = place_names(eng.match_points)
        order = sorted(range(eng.n), key=lambda s: (-eng.match_points[s], eng.pig_counts[s], s))
        t = compact_table()
        t.add_column("place", justify="right")
        t.add_column("player")
        t.add_column("points", justify="right")
        t.add_column("times the pig", justify="right")
        for s in order:
            t.add_row(places[s], self.seats.label(s), str(eng.match_points[s]), str(eng.pig_counts[s]))
        best = eng.match_points[order[0]]
        winners = [s for s in order if eng.match_points[s] == best]
        names = " and ".join(self.seats.label(s) for s in winners)
        verdict = (
            f"{names} {'win' if self.seats.short(winners[0]) == 'you' else 'wins'} the match with {best} points."
            if len(winners) == 1
            else f"{names} share first place with {best} points."
        )
        return [
            titled(
                f"Match result after {len(eng.round_places)} round(s): placement points",
                t,
                Text(verdict, style="bold green"),
            )
        ]
