"""Suipi at the terminal: the floor with builds, values, owners and locks; captures per side."""

from __future__ import annotations

import re

from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from cardzoo.envs.cards import card_str
from cardzoo.envs.seatview import article, rules_summary
from cardzoo.envs.suipi import actions
from cardzoo.envs.suipi import view as facts
from cardzoo.envs.suipi.actions import CARDS, LOCKED, NVAL, OWNER, REP, build_groups
from cardzoo.envs.suipi.engine import IS_SPADE, TEN_D, TWO_S
from cardzoo.envs.suipi.view import point_rows
from cardzoo.scripts.play.common import GameView, card_text, compact_table, group, place_names, titled
from cardzoo.scripts.typed_moves.suipi import BUILD, DROP, TAKE

SIDE_NAMES = "ABC"

RULES = (
    rules_summary("suipi")
    + """
Input: the card you play, then any card of each floor item it takes: `5c 3d 2s` takes 3♦ and 2♠
with 5♣; `qs` alone plays Q♠ when that card has only one take or drop. A build needs the word
build: `2h build 8s` (add the value if it is ambiguous: `2h build 10 on 8s`); `jc drop`. The full
texts of `?` work too (`5♣ take 3♦+2♠`), and so does `#3` for move 3 of `?`. Ranks alone work
when they fit one move: `8 8`, `5 3 2`, `q`; a bare number is always a rank, never a list entry."""
)

BUILD_RE = re.compile(r"\[[^\]]*=(\d+)(, locked)?\]")  # a build in a move's text: [7♥+A♠=8], [5♣+5♦ | 10♠=10, locked]


def _move_parts(ids) -> tuple[int, tuple[int, ...], str, int]:
    """(hand card, floor item representatives, take/build/drop, build value) of a move's ids."""
    last = ids[-1]
    kind = TAKE if last == actions.CAPTURE_ACTION else DROP if last == actions.DROP_ACTION else BUILD
    return ids[0], tuple(a - actions.ITEM0 for a in ids[1:-1]), kind, last - actions.BUILD0 if kind == BUILD else 0


class SuipiView(GameView):
    title = "Suipi"
    rules_text = RULES
    facts = facts
    move_hint = "card + floor cards like 5c 3d 2s; ? for help"
    show_deal = True  # the floor as dealt, before the bots' first moves take from it

    @property
    def eng(self):
        return self.env.engine

    def side_name(self, seat: int) -> str:
        return SIDE_NAMES[self.eng.side[seat]]

    def side_members(self, side: int) -> list[int]:
        return [s for s in range(self.env.num_players) if self.eng.side[s] == side]

    # ---------------------------------------------------------------- display
    def item_text(self, it) -> Text:
        """``7♥ (7)``; a build with its groups, worth, owner and lock in words:
        ``[2♠+7♣ | 9♠] = 9 (your build, locked)``."""
        if it[OWNER] < 0:
            c = it[CARDS][0]
            value = f" ({it[NVAL]})" if it[NVAL] else ""
            return Text.assemble(card_text(card_str(c)), (value, "dim"))
        inner = " | ".join("+".join(card_str(c) for c in g) for g in build_groups(it))
        owner = "your" if self.seats.short(it[OWNER]) == "you" else f"{self.seats.short(it[OWNER])}'s"
        lock = ", locked" if it[LOCKED] else ""
        return Text.assemble(
            "[", card_text(inner), "]", (f" = {it[NVAL]}", "bold yellow"), (f" ({owner} build{lock})", "dim")
        )

    def table(self, viewer):
        e = self.eng
        cfg = self.env.config
        n = self.env.num_players
        head = Text(
            f"Suipi {cfg.point_game}-point, {n} players — deal {min(e.deal_index + 1, cfg.num_deals)}"
            f"/{cfg.num_deals}, round {e.round + 1}/{len(cfg.deal_sizes)}, stock {e.stock_size}, "
            f"dealer {self.seats.short(e.dealer)}",
            style="bold",
        )
        if e.done:
            head.append("  (match over)")
        floor = sorted(e.floor, key=lambda it: (it[NVAL] or 100 + it[0], it[REP]))
        floor_text = Text.assemble(("Floor: ", "bold"))
        if floor:
            for i, it in enumerate(floor):
                if i:
                    floor_text.append("   ")
                floor_text.append_text(self.item_text(it))
        else:
            floor_text.append("(empty)", style="dim")
        players = Table(box=None, pad_edge=False, header_style="dim")
        players.add_column("")
        players.add_column("player")
        players.add_column("side")
        players.add_column("cards in hand", justify="right")
        for s in range(n):
            mark = "→" if not e.done and e.turn == s else ""
            side_text = self.side_name(s) + (f" (partner player_{(s + 2) % 4})" if n == 4 else "")
            players.add_row(
                mark, Text(self.seats.label(s), style="bold yellow" if mark else ""), side_text, str(len(e.hands[s]))
            )
        sides = Table(box=None, pad_edge=False, header_style="dim")
        for col in ("side", "captured", "spades", "aces", "10♦", "2♠", "suipis", "match score"):
            sides.add_column(col, justify="right" if col != "side" else "left")
        for side in range(e.ns):
            pile = e.captured[side]
            sides.add_row(
                SIDE_NAMES[side],
                str(len(pile)),
                str(sum(IS_SPADE[c] for c in pile)),
                str(sum(1 for c in pile if c < 4)),
                "yes" if TEN_D in pile else "",
                "yes" if TWO_S in pile else "",
                str(e.suipis[side]),
                str(e.match_scores[side]),
            )
        parts = [head, floor_text, players, sides]
        if e.last_capturer >= 0:
            parts.append(Text(f"Last capturer: {self.seats.short(e.last_capturer)}", style="dim"))
        if self.reveal and not e.done:
            parts += [self.hand_text(s, f"{self.seats.short(s)}: ") for s in range(n) if e.hands[s]]
        elif viewer is not None and not e.done:
            t = self.hand_text(viewer)
            owned = [it for it in e.floor if it[OWNER] == viewer]
            if owned:
                t.append(
                    f"   you own a build of {', '.join(str(it[NVAL]) for it in owned)}: keep a card of that value",
                    style="yellow",
                )
            parts.append(t)
        return Panel(group(*parts), title=self.title, title_align="left")

    def hand_text(self, seat: int, label: str | None = None) -> Text:
        hand = sorted(self.eng.hands[seat], key=lambda c: (c >> 2, c & 3))
        t = Text(label or f"Your hand ({len(hand)}): ", style="bold green")
        t.append_text(card_text("  ".join(card_str(c) for c in hand) or "-"))
        return t

    def legend(self, move_texts):
        """What the listed builds mean, with their own values (`[7♥+A♠=8]`: an 8 takes it)."""
        found = BUILD_RE.findall(" ".join(move_texts))
        if not found:
            return None
        parts = []
        for value, locked in dict.fromkeys(found):
            v = int(value)
            taker = article("A" if v == 1 else str(v))
            parts.append(
                f"[… | …={v}, locked] is a locked build of {v} (groups worth {v} each, not their sum): "
                f"{taker} takes it; its value cannot be raised, but more cards making {v} may join it"
                if locked
                else f"[…={v}] is a build of {v}: {taker} takes it"
            )
        return "; ".join(parts) + "."

    def section_ended(self, before):
        return len(self.eng.deal_results) > before["deals"]

    def after_move(self, before, seat, ids, rewards, viewer=None):
        """What the move caused, in the browser log's words: a suipi, a new round, who took the
        cards left on the floor; then the deal's summary."""
        e = self.eng
        out = []
        for fact in self.move_facts(before, seat, ids, "", viewer)[1:]:
            line = self.words(fact)
            if fact["what"] == "suipi":
                out.append(Text(line, style="bold magenta"))
            elif fact["what"] == "round":
                out.append(Text(line[0].upper() + line[1:] + ".", style="bold"))
            elif fact["what"] == "leftover":
                out.append(card_text(line, "bold"))
        if self.section_ended(before):
            out.append(self.deal_summary(len(e.deal_results) - 1, rewards))
            if not e.done:
                out.append(Text(f"Deal {e.deal_index + 1} begins; dealer {self.seats.label(e.dealer)}.", style="bold"))
        return out

    def deal_summary(self, index: int, rewards):
        e = self.eng
        cfg = self.env.config
        res = e.deal_results[index]
        sides = range(e.ns)
        t = compact_table()
        t.add_column("")
        for side in sides:
            t.add_column(f"side {SIDE_NAMES[side]}", justify="right")
        for row in point_rows(self.env, index):
            t.add_row(*row)
        t.add_row("points", *[str(p) for p in res.points])
        t.add_row("suipis", *[str(s) for s in res.suipis])
        t.add_row("points + suipis", *[str(x) for x in res.totals])
        t.add_row(Text("deal score", style="bold"), *[Text(str(x), style="bold") for x in res.scores])
        t.add_row("match score", *[str(x) for x in e.match_scores])
        if self.show_rewards:
            t.add_row("reward", *[f"{rewards.get(self.side_members(side)[0], 0.0):+.2f}" for side in sides])
        members = "; ".join(
            f"side {SIDE_NAMES[side]}: " + ", ".join(map(self.seats.label, self.side_members(side))) for side in sides
        )
        return titled(f"End of deal {index + 1} of {cfg.num_deals}", t, Text(members, style="dim"))

    def standings(self):
        e = self.eng
        places = place_names(e.match_scores)
        t = compact_table()
        t.add_column("place", justify="right")
        t.add_column("side")
        t.add_column("players")
        t.add_column("score", justify="right")
        for side in sorted(range(e.ns), key=lambda s: -e.match_scores[s]):
            t.add_row(
                places[side],
                SIDE_NAMES[side],
                ", ".join(self.seats.label(s) for s in self.side_members(side)),
                str(e.match_scores[side]),
            )
        win = e.winner_sides()
        score = " to ".join(str(x) for x in sorted(e.match_scores, reverse=True))
        if len(win) > 1:
            verdict = f"The match is a draw at {e.match_scores[win[0]]}."
        else:
            names = ", ".join(self.seats.label(s) for s in self.side_members(win[0]))
            verdict = f"Side {SIDE_NAMES[win[0]]} ({names}) wins the match, {score}."
        return [
            titled(
                f"Match result after {len(e.deal_results)} deal(s): match score", t, Text(verdict, style="bold green")
            )
        ]
