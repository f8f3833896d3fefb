"""Sam Sip at the terminal: the discard in front of you, the indicator and wild cards, chips, stake."""

from __future__ import annotations

from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from cardzoo.envs.cards import NUM_STANDARD, card_str
from cardzoo.envs.samsip import view as facts
from cardzoo.envs.samsip.engine import PHASE_DRAW, VOID_STALL, WIN_NAMES, WIN_PAIRS
from cardzoo.envs.samsip.view import pairs_line, winning_cards
from cardzoo.envs.seatview import SPECTATOR, rules_summary
from cardzoo.scripts.play.common import GameView, card_text, compact_table, group, place_names, titled

RULES = (
    rules_summary("samsip")
    + """
Input: draw phase `draw` (stock) or `take` (the discard in front of you; its card works too);
discard phase the card, e.g. `7h`, `10d`, `Jk`, or its rank alone when you hold one such card (`7`,
`q`). Or `#3` for move 3 of `?` (a bare number is a rank); Enter plays your only move."""
)


class SamSipView(GameView):
    title = "Sam Sip"
    rules_text = RULES
    facts = facts

    @property
    def move_hint(self) -> str:  # type: ignore[override]  # it follows the phase here
        return (
            "draw, or take the discard; ? for help"
            if self.g.phase == PHASE_DRAW
            else "the card to discard, like 7h; ? for help"
        )

    @property
    def g(self):
        return self.env.game

    def table(self, viewer):
        g = self.g
        head = Text(
            f"Sam Sip, {g.n} players — hand {g.hand_no}, stake {g.stake}, stock {len(g.stock)}, "
            f"dealer {self.seats.short(g.dealer)}",
            style="bold",
        )
        if g.done:
            head.append("  (match over)")
        wild = sorted(g.wild)
        wild_text = " ".join(card_str(c) for c in wild if c < NUM_STANDARD)
        jokers = sum(1 for c in wild if c >= NUM_STANDARD)
        if jokers:
            wild_text += (" " if wild_text else "") + f"{jokers}×Jk"
        ind = Text.assemble(
            ("Indicator: ", "bold"),
            card_text(card_str(g.indicator)),
            ("   wild: ", "bold"),
            card_text(wild_text or "-"),
        )
        if g.dead:
            dead = " ".join(card_str(c) for c in sorted(g.dead))
            ind.append_text(Text.assemble(("   dead: ", "bold"), card_text(dead)))
        players = Table(box=None, pad_edge=False, header_style="dim")
        for col in ("", "player", "chips", "cards", "last draw", "discards this hand"):
            players.add_column(col, justify="right" if col in ("chips", "cards") else "left")
        discards: dict[int, list[str]] = {s: [] for s in range(g.n)}
        for s, kind, taker in g.events:
            txt = card_str(kind) if kind < NUM_STANDARD else "Jk"
            discards[s].append(txt + (f"→p{taker}" if taker >= 0 else ""))
        public = self.facts.seat_view(self.env, SPECTATOR)  # the view's facts, worded for this screen
        for s in range(g.n):
            if not g.active[s]:
                out = ", ".join(self.words(f) for f in public["players"][s]["status_facts"])  # out (hand 2)
                players.add_row(
                    "", Text(self.seats.label(s), style="dim"), str(g.chips[s]), "", Text(out, style="dim"), ""
                )
                continue
            mark = "→" if not g.done and g.turn == s else ""
            last = {0: "stock", 1: "took discard"}.get(g.last_draw[s], "")
            players.add_row(
                mark,
                Text(self.seats.label(s), style="bold yellow" if mark else ""),
                str(g.chips[s]),
                str(len(g.hands[s])),
                last,
                card_text(" ".join(discards[s][-6:])),
            )
        parts = [head, ind, players]
        if g.live >= 0 and not g.done:
            frm = self.seats.short(g.events[-1][0]) if g.events else "?"
            place = "in front of you" if g.live_for == viewer else f"in front of {self.seats.short(g.live_for)}"
            parts.append(
                Text.assemble(("Discard ", "bold"), card_text(card_str(g.live)), f" (from {frm}) lies {place}")
            )
        if self.reveal and not g.done:
            parts += [self.hand_text(s, f"{self.seats.short(s)}: ") for s in range(g.n) if g.active[s]]
        elif viewer is not None and not g.done and g.active[viewer]:
            parts.append(self.hand_text(viewer))
            parts.append(self.pairs_hint(viewer))
            if g.turn == viewer:  # the view's prompt: "Your move: discard a card."
                parts.append(Text(self.words(self.facts.seat_view(self.env, viewer)["prompt_fact"]), style="dim"))
        return Panel(group(*parts), title=self.title, title_align="left")

    def hand_text(self, seat: int, label: str | None = None) -> Text:
        g = self.g
        hand = sorted(g.hands[seat])
        t = Text(label or f"Your hand ({len(hand)}): ", style="bold green")
        t.append_text(card_text("  ".join(card_str(c) + ("*" if c in g.wild else "") for c in hand)))
        if any(c in g.wild for c in hand):
            t.append("   (* wild)", style="dim")
        return t

    def pairs_hint(self, seat: int) -> Text:
        """``Your pairs: J♠+J♥, Q♣+Q♦ — one more needed (a 3 for your 7♦, or a wild card)``."""
        g = self.g
        head, _, rest = pairs_line(g.hands[seat], g.wild, g.dead).partition(": ")
        return Text.assemble((head + ": ", "bold"), card_text(rest))

    def forced_word(self, text):
        return "draw from the stock" if text == "draw stock" else text

    def describe(self, seat, ids, text, viewer=None, sep=": "):
        """``player_0 (you): draws 7♥ from the stock`` (the card only to the drawer), ``takes 5♥``,
        ``discards Q♦``: the move's first fact in the browser log's words."""
        label = Text(self.seats.label(seat) + sep, style="cyan")
        move = self.move_facts(self._before, seat, ids, text, viewer)[0]
        return Text.assemble(label, card_text(self.words(move)))

    def section_ended(self, before):
        return len(self.g.results) > before["results"]

    def after_move(self, before, seat, ids, rewards, viewer=None):
        g = self.g
        if len(g.results) == before["results"]:
            return []
        return [self.hand_summary(g.results[-1], rewards)]

    def hand_summary(self, res, rewards):
        g = self.g
        if res.winner is None:
            why = "nobody drew from the stock for too long" if res.void_reason == VOID_STALL else "the stock ran out"
            return Text(
                f"Hand {res.hand_no} is void: {why}. The stake stays {res.stake}; the same dealer deals again.",
                style="bold",
            )
        t = compact_table()
        t.add_column("player")
        t.add_column("chips", justify="right")
        t.add_column("change", justify="right")
        if self.show_rewards:
            t.add_column("reward", justify="right")
        for s in range(g.n):
            if not g.active[s] and s not in res.eliminated:
                continue
            note = "  knocked out" if s in res.eliminated else ""
            row = [self.seats.label(s) + note, str(g.chips[s]), f"{res.deltas[s]:+d}"]
            if self.show_rewards:
                row.append(f"{rewards.get(s, 0.0):+.2f}")
            t.add_row(*row)
        what = "winning pairs: " if res.kind == WIN_PAIRS else "winning hand: "
        hand = Text.assemble(what, card_text(winning_cards(res)))
        stake = f"stake was {res.stake}" + (f", now {g.stake}" if not g.done else "")
        return titled(
            f"Hand {res.hand_no}: {self.seats.label(res.winner)} wins with {WIN_NAMES[res.kind]}",
            t,
            hand,
            Text(stake, style="dim"),
        )

    def standings(self):
        g = self.g
        ranks = g.ranking()
        places = place_names(ranks, higher_is_better=False)
        t = compact_table()
        t.add_column("place", justify="right")
        t.add_column("player")
        t.add_column("chips", justify="right")
        t.add_column("")
        for s in sorted(range(g.n), key=lambda s: (ranks[s], s)):
            note = f"knocked out in hand {g.elim_hand[s]}" if not g.active[s] else ""
            t.add_row(places[s], self.seats.label(s), str(g.chips[s]), note)
        best = [s for s in range(g.n) if ranks[s] == min(ranks)]
        names = " and ".join(self.seats.label(s) for s in best)
        verdict = (
            f"{names} {'win' if self.seats.short(best[0]) == 'you' else 'wins'} the match."
            if len(best) == 1
            else f"{names} share first place."
        )
        return [titled(f"Match result after {g.hand_no} hand(s): chips", t, Text(verdict, style="bold green"))]
