"""Sam Sip at the terminal: the discard in front of you, the indicator and wild cards, chips, stake."""

from __future__ import annotations

from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from envs.base import IllegalMoveError
from envs.cards import NUM_STANDARD, card_str, parse_card
from envs.samsip.engine import DRAW_STOCK, PHASE_DRAW, TAKE_DISCARD, WIN_NAMES

from scripts.play.common import GameView, card_text, group

RULES = """\
Sam Sip ("mixing tens"), draw-and-discard for 2-6 players, 52 cards + 3 jokers; play goes to the right.
- Everyone holds 5 cards. On your turn draw the top stock card or the card the previous player
  discarded in front of you, then discard one card in front of the next player.
- You win the moment your 6 cards (after the draw) make three pairs. Pairs: two cards A-9 that add
  up to 10 (A+9, 2+8, 3+7, 4+6, 5+5); 10+10, J+J, Q+Q, K+K; or a wild card with anything.
- Wild cards: the 3 jokers and the other 3 cards of the indicator's rank (turned up after the deal).
- Special wins: three aces + three of a kind; six cards of one suit (wild cards count as themselves).
- The winner collects the stake from every other player and deals next. The stake doubles after
  each won hand, and drops back to the base stake when somebody is knocked out (cannot pay in
  full). The last player with chips wins the match. An exhausted stock voids the hand.
Input: draw phase `draw` (stock) or `take` (the discard in front of you); discard phase the card,
e.g. `7h`, `10d`, `Jk`. Or a number from `?`."""


class SamSipView(GameView):
    title = "Sam Sip"
    rules_text = RULES
    move_hint = "draw / take, then a card like 7h, a number, ? for moves"

    @property
    def g(self):
        return self.env.game

    def table(self, viewer):
        g = self.g
        head = Text(f"Sam Sip, {g.n} players — hand {g.hand_no}, stake {g.stake}, stock {len(g.stock)}, "
                    f"dealer {self.seats.short(g.dealer, viewer)}", style="bold")
        if g.done:
            head.append("  (match over)")
        wild = sorted(g.wild)
        wild_text = " ".join(card_str(c) for c in wild if c < NUM_STANDARD)
        jokers = sum(1 for c in wild if c >= NUM_STANDARD)
        if jokers:
            wild_text += (" " if wild_text else "") + f"{jokers}×Jk"
        ind = Text.assemble(("Indicator: ", "bold"), card_text(card_str(g.indicator)),
                            ("   wild: ", "bold"), card_text(wild_text or "-"))
        if g.dead:
            ind.append_text(Text.assemble(("   dead: ", "bold"), card_text(" ".join(card_str(c) for c in sorted(g.dead)))))
        players = Table(box=None, pad_edge=False, header_style="dim")
        for col in ("", "player", "chips", "cards", "last draw", "discards this hand"):
            players.add_column(col, justify="right" if col in ("chips", "cards") else "left")
        discards: dict[int, list[str]] = {s: [] for s in range(g.n)}
        for s, kind, taker in g.events:
            txt = card_str(kind) if kind < NUM_STANDARD else "Jk"
            discards[s].append(txt + (f"→p{taker}" if taker >= 0 else ""))
        for s in range(g.n):
            if not g.active[s]:
                players.add_row("", Text(self.seats.label(s, viewer), style="dim"), str(g.chips[s]), "",
                                Text(f"out (hand {g.elim_hand[s]})", style="dim"), "")
                continue
            mark = "→" if not g.done and g.turn == s else ""
            last = {0: "stock", 1: "took discard"}.get(g.last_draw[s], "")
            players.add_row(mark, Text(self.seats.label(s, viewer), style="bold yellow" if mark else ""),
                            str(g.chips[s]), str(len(g.hands[s])), last, card_text(" ".join(discards[s][-6:])))
        parts = [head, ind, players]
        if g.live >= 0 and not g.done:
            who = self.seats.short(g.live_for, viewer)
            frm = self.seats.short(g.events[-1][0], viewer) if g.events else "?"
            place = "in front of you" if g.live_for == viewer else f"in front of {who}"
            parts.append(Text.assemble(("Discard ", "bold"), card_text(card_str(g.live)),
                                       f" (from {frm}) lies {place}"))
        if viewer is not None and not g.done and g.active[viewer]:
            hand = sorted(g.hands[viewer])
            t = Text(f"Your hand ({len(hand)}): ", style="bold green")
            t.append_text(card_text("  ".join(card_str(c) + ("*" if c in g.wild else "") for c in hand)))
            if any(c in g.wild for c in hand):
                t.append("   (* wild)", style="dim")
            parts.append(t)
            if g.turn == viewer:
                parts.append(Text("Your move: " + ("draw from the stock or take the discard"
                                                   if g.phase == PHASE_DRAW else "discard a card"), style="dim"))
        return Panel(group(*parts), title=self.title, title_align="left")

    def describe(self, seat, ids, text, viewer=None):
        a = ids[-1]
        label = self.seats.label(seat)
        if a == DRAW_STOCK:
            return Text.assemble((label + ": ", "cyan"), "draws from the stock")
        if a == TAKE_DISCARD:
            return Text.assemble((label + ": ", "cyan"), "takes ", card_text(text.removeprefix("take ")))
        return Text.assemble((label + ": ", "cyan"), card_text(text))

    def snapshot(self):
        return {"results": len(self.g.results)}

    def after_move(self, before, seat, ids, rewards):
        g = self.g
        if len(g.results) == before["results"]:
            return []
        return [self.hand_summary(g.results[-1], rewards)]

    def hand_summary(self, res, rewards):
        g = self.g
        if res.winner is None:
            return Text(f"Hand {res.hand_no} is void: the stock ran out. The stake stays {res.stake}; "
                        "the same dealer deals again.", style="bold")
        t = Table(title=f"Hand {res.hand_no}: {self.seats.label(res.winner)} wins with {WIN_NAMES[res.kind]}",
                  title_justify="left", title_style="bold green")
        t.caption = None
        t.add_column("player")
        t.add_column("chips", justify="right")
        t.add_column("change", justify="right")
        t.add_column("reward", justify="right")
        for s in range(g.n):
            if not g.active[s] and s not in res.eliminated:
                continue
            note = "  knocked out" if s in res.eliminated else ""
            t.add_row(self.seats.label(s) + note, str(g.chips[s]), f"{res.deltas[s]:+d}", f"{rewards.get(s, 0.0):+.2f}")
        hand = Text.assemble("winning hand: ", card_text(" ".join(card_str(c) for c in res.winning_hand)),
                             f"; stake was {res.stake}, now {g.stake}" if not g.done else f"; stake was {res.stake}")
        return group(t, hand)

    def final(self, totals):
        g = self.g
        ranks = g.ranking()
        order = sorted(range(g.n), key=lambda s: ranks[s])
        t = Table(title="Final ranking", title_justify="left", title_style="bold")
        t.add_column("rank", justify="right")
        t.add_column("player")
        t.add_column("chips", justify="right")
        for s in order:
            t.add_row(f"{ranks[s]:g}", self.seats.label(s), str(g.chips[s]))
        return [t]

    # ------------------------------------------------------------------ input
    def parse(self, text, seat):
        g = self.g
        t = text.strip()
        if g.phase == PHASE_DRAW and g.live >= 0:
            try:  # typing the discard's card means taking it
                c = parse_card(t)
                if min(c, 52) == min(g.live, 52):
                    return (TAKE_DISCARD,)
            except ValueError:
                pass
        if g.phase != PHASE_DRAW:
            low = t.lower()
            if low.split()[0] in ("draw", "stock", "take", "pick", "d", "t"):
                raise IllegalMoveError("you have drawn already: now discard one of your cards")
            try:
                c = parse_card(low.split()[-1])
            except ValueError:
                c = None
            if c is not None and not any(min(x, 52) == min(c, 52) for x in g.hands[seat]):
                raise IllegalMoveError(f"you do not hold {card_str(c)}")
        try:
            return (self.env.move_to_action(t),)
        except IllegalMoveError as err:
            msg = err.reason
            if g.phase == PHASE_DRAW:
                msg += " (now draw: `draw` from the stock" + (" or `take` the discard)" if g.live >= 0 else ")")
            else:
                msg += " (now discard one of your cards, e.g. " + card_str(sorted(g.hands[seat])[0]) + ")"
            raise IllegalMoveError(msg) from None
