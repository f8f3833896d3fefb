"""Suipi at the terminal: the floor with builds, values, owners and locks; captures per side."""

from __future__ import annotations

import re

from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from envs.base import IllegalMoveError
from envs.cards import card_str, parse_card
from envs.suipi import encoding as enc
from envs.suipi.engine import CARDS, LOCKED, NVAL, OWNER, REP, IS_SPADE, TEN_D, TWO_S, JACK_D, QUEEN_D, KING_D

from scripts.play.common import GameView, card_text, group

SIDE_NAMES = "ABC"
VERBS = {"take", "takes", "capture", "captures", "x", "build", "builds", "drop", "drops", "trail", "trails"}

RULES = """\
Suipi (Samoan Casino) for 2 players, or 4 in partnerships (seats 0+2 against 1+3).
- Values: A=1, 2-10 as marked; J, Q, K have no value (11-point game) — they only take a J, Q, K.
- Each turn play one hand card as one of:
  * take: capture loose cards of its value, builds of its value, and/or sets of loose cards
    that add up to its value (e.g. a 5 takes 3+2 and 4+A together);
  * build: put it on floor cards (or on an unlocked build) to make a value v that you still
    hold a card for, e.g. 2 on an 8 builds 10; several groups of v make a locked build;
  * drop: lay it on the floor (not allowed while you own a build, or if its value is already
    on the floor). No two floor items may share a value.
- Anyone may take any build with a card of its value; the owner must keep a card of that value.
- Clearing the floor is a suipi (a bonus point), except with the last card of the deal.
- The last capturer takes what is left at the end of the deal.
- Scoring per deal: most cards 3, most spades 1, 10♦ 2, 2♠ 1, each ace 1; suipis cancel
  one for one; the side ahead scores the difference. A match is one deal per player.
Input: the card you play and the floor cards it takes or builds on: `5c 3d 2s`, or in full
`5♣ take 3♦+2♠`, `2h build 10 on 8s`, `Jc drop`; name any card of a build to mean the build.
Add the value for a build if it is ambiguous (`2h 8s 10`). Or a number from `?`."""


class SuipiView(GameView):
    title = "Suipi"
    rules_text = RULES
    move_hint = "card + floor cards like 5c 3d 2s, or a number, ? for moves"

    @property
    def eng(self):
        return self.env.engine

    def side_name(self, seat: int) -> str:
        return SIDE_NAMES[self.eng.side[seat]]

    # ---------------------------------------------------------------- display
    def item_text(self, it, viewer) -> Text:
        if it[OWNER] < 0:
            c = it[CARDS][0]
            value = f" ({it[NVAL]})" if it[NVAL] else ""
            return Text.assemble(card_text(card_str(c)), (value, "dim"))
        inner = "+".join(card_str(c) for c in sorted(it[CARDS]))
        who = self.seats.short(it[OWNER], viewer)
        lock = ", locked" if it[LOCKED] else ""
        return Text.assemble("[", card_text(inner), "]", (f" = {it[NVAL]}", "bold yellow"),
                             (f" (build, owner {who}{lock})", "dim"))

    def table(self, viewer):
        e = self.eng
        cfg = self.env.config
        n = self.env.num_players
        head = Text(f"Suipi, {n} players, {cfg.point_game}-point game — deal {min(e.deal_index + 1, cfg.num_deals)}"
                    f"/{cfg.num_deals}, round {e.round + 1}/{len(cfg.deal_sizes)}, stock {e.stock_size}, "
                    f"dealer {self.seats.short(e.dealer, viewer)}", style="bold")
        if e.done:
            head.append("  (match over)")
        floor = sorted(e.floor, key=lambda it: (it[NVAL] or 100 + it[0], it[REP]))
        floor_text = Text.assemble(("Floor: ", "bold"))
        if floor:
            for i, it in enumerate(floor):
                if i:
                    floor_text.append("   ")
                floor_text.append_text(self.item_text(it, viewer))
        else:
            floor_text.append("(empty)", style="dim")
        players = Table(box=None, pad_edge=False, header_style="dim")
        players.add_column("")
        players.add_column("player")
        players.add_column("side")
        players.add_column("cards in hand", justify="right")
        for s in range(n):
            mark = "→" if not e.done and e.turn == s else ""
            side = self.side_name(s) + (f" (partner player_{(s + 2) % 4})" if n == 4 else "")
            players.add_row(mark, Text(self.seats.label(s, viewer), style="bold yellow" if mark else ""),
                            side, str(len(e.hands[s])))
        sides = Table(box=None, pad_edge=False, header_style="dim")
        for col in ("side", "captured", "spades", "aces", "10♦", "2♠", "suipis", "match score"):
            sides.add_column(col, justify="right" if col != "side" else "left")
        for side in range(e.ns):
            pile = e.captured[side]
            sides.add_row(SIDE_NAMES[side], str(len(pile)), str(sum(IS_SPADE[c] for c in pile)),
                          str(sum(1 for c in pile if c < 4)), "yes" if TEN_D in pile else "",
                          "yes" if TWO_S in pile else "", str(e.suipis[side]), str(e.match_scores[side]))
        parts = [head, floor_text, players, sides]
        if e.last_capturer >= 0:
            parts.append(Text(f"Last capturer: {self.seats.short(e.last_capturer, viewer)}", style="dim"))
        if viewer is not None and not e.done:
            hand = sorted(e.hands[viewer], key=lambda c: (c >> 2, c & 3))
            t = Text(f"Your hand ({len(hand)}): ", style="bold green")
            t.append_text(card_text("  ".join(card_str(c) for c in hand) or "-"))
            owned = [it for it in e.floor if it[OWNER] == viewer]
            if owned:
                t.append(f"   you own a build of {', '.join(str(it[NVAL]) for it in owned)}: keep a card of "
                         "that value", style="yellow")
            parts.append(t)
        return Panel(group(*parts), title=self.title, title_align="left")

    def snapshot(self):
        e = self.eng
        return {"deal": e.deal_index, "round": e.round, "suipis": list(e.suipis), "results": len(e.deal_results)}

    def after_move(self, before, seat, ids, rewards):
        e = self.eng
        out = []
        if len(e.deal_results) == before["results"] and e.deal_index == before["deal"]:
            if sum(e.suipis) > sum(before["suipis"]):
                out.append(Text(f"SUIPI! {self.seats.label(seat)} swept the floor", style="bold magenta"))
            if e.round > before["round"]:
                out.append(Text(f"Round {e.round + 1}: new cards are dealt.", style="bold"))
        else:
            res = e.deal_results[-1]
            if res.suipis[e.side[seat]] > before["suipis"][e.side[seat]]:
                out.append(Text(f"SUIPI! {self.seats.label(seat)} swept the floor", style="bold magenta"))
            out.append(self.deal_summary(len(e.deal_results) - 1, rewards))
            if not e.done:
                out.append(Text(f"Deal {e.deal_index + 1} begins; dealer {self.seats.label(e.dealer)}.",
                                style="bold"))
        return out

    def deal_summary(self, index: int, rewards) -> Table:
        e = self.eng
        cfg = self.env.config
        res = e.deal_results[index]
        captured = e.last_result_state[0] if index == len(e.deal_results) - 1 else None
        n = self.env.num_players
        t = Table(title=f"End of deal {index + 1}", title_justify="left", title_style="bold")
        t.add_column("")
        members = []
        for side in range(e.ns):
            seats = [s for s in range(n) if e.side[s] == side]
            members.append(seats)
            t.add_column(f"side {SIDE_NAMES[side]}: " + ", ".join(self.seats.label(s) for s in seats), justify="right")

        def majority(vals, bonus):
            best = max(vals)
            return [f"{v} (+{bonus})" if v == best and vals.count(best) == 1 else str(v) for v in vals]

        t.add_row("cards", *majority(res.cards, 3))
        t.add_row("spades", *majority(res.spades, 1))
        if captured is not None:
            t.add_row("10♦ (2)", *["+2" if TEN_D in p else "" for p in captured])
            t.add_row("2♠ (1)", *["+1" if TWO_S in p else "" for p in captured])
            t.add_row("aces (1 each)", *[f"{k} (+{k})" if (k := sum(1 for c in p if c < 4)) else "0" for p in captured])
            if cfg.point_game == 23:
                for card, pts in ((JACK_D, 3), (QUEEN_D, 4), (KING_D, 5)):
                    t.add_row(f"{card_str(card)} ({pts})", *[f"+{pts}" if card in p else "" for p in captured])
        t.add_row("points", *[str(p) for p in res.points])
        t.add_row("suipis", *[str(s) for s in res.suipis])
        t.add_row("points + suipis", *[str(x) for x in res.totals])
        t.add_row(Text("deal score", style="bold"), *[Text(str(x), style="bold") for x in res.scores])
        t.add_row("match score", *[str(x) for x in e.match_scores])
        return t

    def final(self, totals):
        e = self.eng
        win = e.winner_sides()
        if len(win) > 1:
            return [Text(f"The match is a draw at {e.match_scores[win[0]]}.", style="bold")]
        n = self.env.num_players
        names = ", ".join(self.seats.label(s) for s in range(n) if e.side[s] == win[0])
        return [Text(f"Side {SIDE_NAMES[win[0]]} ({names}) wins the match, "
                     + " to ".join(str(x) for x in sorted(e.match_scores, reverse=True)) + ".", style="bold green")]

    def describe(self, seat, ids, text, viewer=None):
        return Text.assemble((self.seats.label(seat) + ": ", "cyan"), card_text(text))

    # ------------------------------------------------------------------ input
    def parse(self, text, seat):
        t = text.strip()
        words = [w.lower() for w in re.split(r"[\s+,]+", t) if w]
        if any(w in VERBS for w in words):
            try:
                return tuple(self.env.parse_move(t))
            except IllegalMoveError as err:
                raise IllegalMoveError(err.reason) from None
        return self._shorthand(words, seat)

    def _shorthand(self, words, seat):
        """`5c 3d 2s` = play 5♣ with the floor items holding 3♦ and 2♠ (take or build)."""
        e = self.eng
        if not words:
            raise IllegalMoveError("type the card you play, then the floor cards it takes or builds on")
        value = None
        if len(words) > 1 and words[-1].isdigit():
            value = int(words.pop())
        cards = []
        for w in words:
            try:
                cards.append(parse_card(w))
            except ValueError as err:
                raise IllegalMoveError(str(err)) from None
        h, rest = cards[0], cards[1:]
        if h not in e.hands[seat]:
            raise IllegalMoveError(f"{card_str(h)} is not in your hand")
        by_card = {c: it for it in e.floor for c in it[CARDS]}
        reps = set()
        for c in rest:
            if c not in by_card:
                raise IllegalMoveError(f"{card_str(c)} is not on the floor")
            reps.add(by_card[c][REP])
        items = tuple(enc.ITEM0 + r for r in sorted(reps))
        cands = []
        for ids, mtext in self.env.full_moves():
            ids = tuple(ids)
            if ids[0] != h or ids[1:-1] != items:
                continue
            if value is not None and ids[-1] != enc.BUILD0 + value:
                continue
            cands.append((ids, mtext))
        if len(cands) == 1:
            return cands[0][0]
        if not cands:
            what = card_str(h) + (" with " + " ".join(card_str(c) for c in rest) if rest else " alone")
            options = [m for i, m in self.env.full_moves() if i[0] == h]
            hint = f"; {card_str(h)} can: " + "; ".join(options) if options else ""
            raise IllegalMoveError(f"no legal move plays {what}{hint}")
        raise IllegalMoveError("that could mean " + " or ".join(f"`{m}`" for _, m in cands)
                               + " — type one of them in full (or add the build value)")
