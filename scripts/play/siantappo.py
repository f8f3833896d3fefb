"""Siantappo at the terminal: the current trick, who passed, cards left, your sorted hand."""

from __future__ import annotations

import re

from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from envs.base import IllegalMoveError
from envs.cards import parse_cards
from envs.siantappo.engine import OVER, SWAP, hand_keys
from envs.siantappo.env import SQUEAL
from envs.siantappo.moves import ACTION_TYPE, CARD_TO_KEY, PASS_ID, TYPE_NAMES, key_str, keys_str

from scripts.play.common import GameView, card_text, group

RULES = """\
Siantappo ("pig slaughter"), a climbing game for 3-6 players; all 52 cards are dealt.
- Order: 3 < 4 < ... < K < A < 2; suits ♠ < ♣ < ♦ < ♥ break ties (3♠ lowest, 2♥ highest).
- Combinations: single, pair, triple, four of a kind, straight (3+ consecutive ranks, no 2s).
- Round 1 starts with the holder of 3♣. The leader plays any combination; then each player in
  turn beats it with the same kind and size and a higher top card, or passes. A pass lasts
  until the trick ends. When everyone else has passed, the last player to play leads anew.
- Bombs: a single 2 can be beaten by a siantappo (three consecutive pairs, e.g. 7 7 8 8 9 9),
  which only a higher siantappo beats; a pair of 2s by four of a kind. The pig squeals.
- Play out all your cards to finish. The last player holding cards is the pig (loser).
- From round 2: the winner swaps their 2 lowest cards for the loser's 2 highest (and, with 4+
  players, 2nd and 2nd-to-last swap 1). The loser deals and leads.
- Scoring per round: 1st +1 ... last -1 (reward), placement points n-1 ... 0.
Input: the cards of your combination (`7h 7s`, `10d`, `Q♠ K♠ A♠`), `pass`, or a number from `?`.
The game plays the lowest suits under the top card you chose (it never matters which)."""


class SiantappoView(GameView):
    title = "Siantappo"
    rules_text = RULES
    move_hint = "cards like 7h 7s, pass, a number, ? for moves"

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
        players.add_column("this trick")
        players.add_column("points", justify="right")
        players.add_column("pig", justify="right")
        for s in range(eng.n):
            mark = "→" if eng.phase != OVER and eng.acting == s else ""
            status = []
            if s in eng.finish_top:
                status.append(f"out #{eng.finish_top.index(s) + 1}")
            elif eng.passed[s]:
                status.append("passed")
            if s == eng.current_player and eng.current >= 0:
                status.append("on top")
            style = "bold yellow" if mark else ""
            players.add_row(mark, Text(self.seats.label(s, viewer), style=style), str(eng.counts[s]),
                            ", ".join(status), str(eng.match_points[s]), str(eng.pig_counts[s]))
        if eng.phase == SWAP:
            giver, receiver, left = eng.swap_queue[0]
            who = self.seats.short(giver, viewer)
            trick = Text(f"Swap: {who} give{'' if who == 'you' else 's'} {left} "
                         f"card(s) back to {self.seats.short(receiver, viewer)}")
        elif eng.current >= 0:
            kind = TYPE_NAMES[ACTION_TYPE[eng.current]]
            trick = Text.assemble("On the table: ", card_text(keys_str(eng.current_keys)),
                                  f"  ({kind} by {self.seats.short(eng.current_player, viewer)})")
        elif eng.phase != OVER:
            who = self.seats.short(eng.acting, viewer)
            trick = Text(f"The table is empty: {who} {'lead' if who == 'you' else 'leads'}.")
        else:
            trick = Text("")
        parts = [head, players, trick]
        if viewer is not None and eng.phase != OVER:
            parts.append(self.hand_text(viewer))
            if eng.swap_given[viewer] or eng.swap_received[viewer]:
                parts.append(Text.assemble(
                    ("Swap this round: ", "dim"), "gave ", card_text(keys_str(eng.swap_given[viewer]) or "-"),
                    ", received ", card_text(keys_str(eng.swap_received[viewer]) or "-")))
        return Panel(group(*parts), title=self.title, title_align="left")

    def hand_text(self, viewer: int) -> Text:
        keys = hand_keys(self.eng.hands[viewer])
        # grouped by rank, low to high in game order
        groups: list[list[int]] = []
        for k in keys:
            if groups and groups[-1][0] >> 2 == k >> 2:
                groups[-1].append(k)
            else:
                groups.append([k])
        text = Text(f"Your hand ({len(keys)}): ", style="bold green")
        text.append_text(card_text("  ".join(" ".join(key_str(k) for k in g) for g in groups)))
        return text

    def describe(self, seat, ids, text, viewer=None):
        label = self.seats.label(seat)
        action = ids[-1]
        if text.startswith("give"):
            m = re.match(r"give (\S+) to player_(\d+)", text)
            receiver = int(m.group(2)) if m else -1
            if viewer is not None and viewer in (seat, receiver):
                return Text.assemble((label + ": ", "cyan"), card_text(text))
            # a swap is private to the two players
            return Text.assemble((label + ": ", "cyan"), f"gives a card to player_{receiver}")
        if action == PASS_ID:
            return Text.assemble((label + ": ", "cyan"), ("pass", "dim"))
        kind = TYPE_NAMES[ACTION_TYPE[action]]
        return Text.assemble((label + ": ", "cyan"), card_text(text), (f"  ({kind})", "dim"))

    def snapshot(self):
        return {"round": self.eng.round_index, "phase": self.eng.phase}

    def after_move(self, before, seat, ids, rewards):
        out = []
        action = ids[-1]
        if before["phase"] != SWAP and self.env.is_squeal(action):
            out.append(Text(SQUEAL, style="bold magenta"))
        eng = self.eng
        if eng.round_index > before["round"]:
            out.append(self.round_summary(before["round"], rewards))
        return out

    def round_summary(self, round_index: int, rewards) -> Table:
        eng = self.eng
        places = eng.round_places[round_index]
        t = Table(title=f"End of round {round_index + 1}", title_justify="left", title_style="bold")
        t.add_column("place", justify="right")
        t.add_column("player")
        t.add_column("round reward", justify="right")
        t.add_column("placement points", justify="right")
        t.add_column("pig (times last)", justify="right")
        t.add_column("total reward", justify="right")
        n = eng.n
        for s in sorted(range(n), key=lambda s: places[s]):
            place = places[s]
            name = self.seats.label(s)
            if place == n:
                name += " 🐷"
            t.add_row(str(place), name, f"{rewards.get(s, 0.0):+.2f}", f"{eng.match_points[s]} (+{n - place})",
                      str(eng.pig_counts[s]), f"{eng.total_rewards[s]:+.2f}")
        return t

    def final(self, totals):
        eng = self.eng
        order = sorted(range(eng.n), key=lambda s: (-eng.match_points[s], eng.pig_counts[s]))
        best = eng.match_points[order[0]]
        winners = [s for s in order if eng.match_points[s] == best]
        names = ", ".join(self.seats.label(s) for s in winners)
        return [Text(f"Most placement points ({best}): {names}", style="bold green")]

    # ------------------------------------------------------------------ input
    def parse(self, text, seat):
        t = text.strip()
        eng = self.eng
        low = t.lower()
        if low not in ("pass", "p") and not low.startswith("give "):
            try:
                cards = parse_cards(t)
            except ValueError as e:
                raise IllegalMoveError(f"{e}; type cards like 7h 7s, or pass") from None
            if cards:
                hand = eng.hands[seat]
                missing = [c for c in cards if not hand[CARD_TO_KEY[c] >> 2] >> (CARD_TO_KEY[c] & 3) & 1]
                if missing:
                    raise IllegalMoveError(f"you do not hold {' '.join(key_str(CARD_TO_KEY[c]) for c in missing)}")
        try:
            return (self.env.move_to_action(t),)
        except IllegalMoveError as e:
            msg = e.reason
            raise IllegalMoveError(msg) from None

    def note_for(self, text, ids, seat):
        eng = self.eng
        if eng.phase == SWAP or ids[-1] == PASS_ID:
            return None
        try:
            typed = sorted(CARD_TO_KEY[c] for c in parse_cards(text))
        except ValueError:
            return None
        played = sorted(eng.fill(ids[-1], eng.hands[seat]) or [])
        if typed and played and typed != played:
            return f"played as {keys_str(played)} (same combination, lowest suits under your top card)"
        return None
