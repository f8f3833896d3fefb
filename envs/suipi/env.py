"""Suipi as a PettingZoo AEC environment (moves composed in sub-steps, see actions.py)."""

from __future__ import annotations

import re
from typing import Any, ClassVar

from cardzoo.envs.base import CardGameEnv, IllegalMoveError
from cardzoo.envs.cards import card_str, cards_str, parse_card
from cardzoo.envs.config import ConfigError, build_config
from cardzoo.envs.suipi import actions
from cardzoo.envs.suipi import encoding as enc
from cardzoo.envs.suipi.actions import BUILD, CAPTURE, CARDS, DROP, OWNER, REP, item_str, move_text
from cardzoo.envs.suipi.config import SuipiConfig
from cardzoo.envs.suipi.engine import IS_SPADE, SuipiEngine, card_points

_VERBS = {
    "take": CAPTURE,
    "takes": CAPTURE,
    "capture": CAPTURE,
    "captures": CAPTURE,
    "x": CAPTURE,
    "build": BUILD,
    "builds": BUILD,
    "drop": DROP,
    "drops": DROP,
    "trail": DROP,
    "trails": DROP,
}
SIDE_NAMES = "ABC"


class SuipiEnv(CardGameEnv):
    metadata: ClassVar[dict[str, Any]] = {
        "name": "suipi_v0",
        "render_modes": ["ansi", "human", "rgb_array"],
        "is_parallelizable": False,
        "render_fps": 1,
    }
    num_actions = actions.NUM_ACTIONS
    max_players = 4
    obs_size = enc.OBS_SIZE
    game_name = "suipi"

    deck_size = 52
    encoder_class = enc.Encoder
    engine_class = SuipiEngine
    engine: SuipiEngine
    config: SuipiConfig

    def __init__(self, render_mode: str | None = None, max_steps: int | None = None, **config):
        cfg = config.pop("config", None)
        if cfg is None:
            cfg = build_config(SuipiConfig, "suipi", **config)
        elif config:
            raise ConfigError("pass either config=SuipiConfig(...) or keyword options, not both")
        elif not isinstance(cfg, SuipiConfig):
            raise ConfigError(f"config must be a SuipiConfig, got {type(cfg).__name__}")
        super().__init__(cfg, render_mode, max_steps)

    # ----------------------------------------------------------------- hooks
    def _new_engine(self, rng, deck) -> SuipiEngine:
        engine = SuipiEngine(self.config, rng)
        engine.start_match(deck)
        return engine

    # the engine's move composition, as the move-text methods below use it
    def _build_trie(self):
        return self.engine.move_trie()

    def _prefix(self) -> tuple:
        return self.engine.partial_prefix()

    @property
    def _partial_h(self) -> int | None:
        return self.engine.partial_card

    @property
    def _partial_items(self) -> list[int]:
        return self.engine.partial_items

    def _action_text(self, action: int) -> str:
        return actions.action_text(action, self.engine.floor if self.engine else None)

    # ------------------------------------------------------- whole moves as text
    def full_moves(self) -> list[tuple[tuple[int, ...], str]]:
        """Complete legal moves of the acting seat as (remaining action ids, text). If a move is
        being composed, only its completions are listed and the ids start after the prefix."""
        if self.engine.done:
            return []
        _, full = self._build_trie()
        pre = self._prefix()
        k = len(pre)
        out = [(seq[k:], move_text(self.engine.floor, mv)) for seq, mv in full.items() if seq[:k] == pre]
        out.sort(key=lambda t: t[0])
        return out

    def rule_class(self, ids) -> tuple:
        """Moves the rules cannot tell apart share a class: the same kind of move with cards of
        one rank that are alike for S16 (both spades or neither, the same card points), taking
        the same floor items (a loose card by its class, a build itself). 4♦ and 4♣ are alike;
        4♠ (a spade) and 10♦ (2 points) are each their own."""
        ids = tuple(ids)
        if self._prefix() or len(ids) < 2:  # a move begun: its completions differ in what they add
            return super().rule_class(ids)
        points = card_points(self.config)

        def card(c: int) -> tuple:
            return (c >> 2, IS_SPADE[c], points[c])

        items = {it[REP]: it for it in self.engine.floor}
        floor = []
        for a in ids[1:-1]:
            it = items.get(a - actions.ITEM0)
            if it is not None and it[OWNER] < 0 and len(it[CARDS]) == 1:  # a loose card: its class
                floor.append(("card", *card(it[CARDS][0])))
            else:  # a build: itself
                floor.append(("item", a))
        return ("suipi", card(ids[0]), tuple(sorted(floor)), ids[-1])

    def _parse_move(self, text: str) -> tuple[int, ...]:
        """Turn ``5♣ take 3♦+2♠`` / ``2♥ build 10 on 8♠`` / ``J♣ drop`` into action ids."""
        e = self.engine
        if e is None or e.done:
            raise IllegalMoveError("the game is over (or not started): no move can be played")

        def fail(why: str):
            return IllegalMoveError(f"{text!r}: {why}", [t for _, t in self.full_moves()])

        if not text.strip():
            raise fail("empty move text")
        toks = text.strip().split(None, 2)
        try:
            h = parse_card(toks[0])
        except ValueError as err:
            raise fail(f"the first word must be the hand card ({err})") from None
        if len(toks) < 2 or toks[1].lower() not in _VERBS:
            raise fail("the second word must be take, build or drop")
        kind = _VERBS[toks[1].lower()]
        rest = toks[2] if len(toks) > 2 else ""
        v = 0
        if kind == BUILD:
            m = re.match(r"\s*(?:to\s+)?(\d+)\s*(?:on|with)?\s*(.*)$", rest, re.I)
            if not m:
                raise fail("a build reads '<card> build <value> on <items>'")
            v, rest = int(m.group(1)), m.group(2)
        if kind == DROP:
            if rest.strip():
                raise fail("a drop takes no floor items")
            items: tuple[int, ...] = ()
        else:
            tokens = [t for t in re.findall(r"=\s*\w+|[^\s+,\[\]|=]+", rest) if not t.startswith("=")]
            tokens = [t for t in tokens if t.lower() not in ("and", "on", "with", "locked")]
            if not tokens:
                raise fail("name at least one floor item (a loose card, or any card of a build)")
            by_card = {c: it for it in e.floor for c in it[CARDS]}
            reps: set[int] = set()
            for t in tokens:
                try:
                    c = parse_card(t)
                except ValueError as err:
                    raise fail(str(err)) from None
                if c not in by_card:
                    raise fail(f"{card_str(c)} is not on the floor")
                reps.add(by_card[c][REP])
            items = tuple(sorted(reps))
        if h not in e.hands[e.turn]:
            raise fail(f"{card_str(h)} is not in {self.possible_agents[e.turn]}'s hand")
        seq = (h, *(actions.ITEM0 + r for r in items), actions.finish_action(kind, v))
        _, full = self._build_trie()
        if seq not in full:
            raise fail("not a legal move")
        pre = self._prefix()
        if seq[: len(pre)] != pre:
            raise fail("it does not extend the move being composed")
        return seq[len(pre) :]

    # ----------------------------------------------------------------- render
    def _render_text(self) -> str:
        e = self.engine
        if e is None:
            return "Suipi: not started (call reset)"
        cfg = self.config
        names = self.possible_agents
        lines = [
            (
                f"Suipi {self.num_players}p, {cfg.point_game}-point game; deal {e.deal_index + 1}/"
                f"{cfg.num_deals} round {e.round + 1}/{len(cfg.deal_sizes)}; dealer {names[e.dealer]}; "
                f"stock {e.stock_size}"
            )
        ]
        floor = sorted(e.floor, key=lambda it: it[REP])
        parts = []
        for it in floor:
            if it[3] < 0:
                parts.append(item_str(it))
            else:
                parts.append(f"{item_str(it)}({'locked, ' if it[4] else ''}owner {names[it[3]]})")
        lines.append("Floor: " + (" ".join(parts) if parts else "(empty)"))
        for s in range(self.num_players):
            side = e.side[s]
            mark = "*" if (s == e.turn and not e.done) else " "
            hand = cards_str(sorted(e.hands[s], key=lambda c: (c >> 2, c & 3)))
            lines.append(f"{mark}{names[s]} (side {SIDE_NAMES[side]}): {hand or '-'}")
        for side in range(e.ns):
            pile = e.captured[side]
            spades = sum(1 for c in pile if c & 3 == 0)
            lines.append(
                f"  side {SIDE_NAMES[side]}: captured {len(pile)} cards ({spades} spades), "
                f"suipis {e.suipis[side]}, match score {e.match_scores[side]}"
            )
        if self._partial_h is not None:
            chosen = [item_str(it) for it in floor if it[REP] in self._partial_items]
            lines.append(f"Composing: {card_str(self._partial_h)}" + (f" with {' '.join(chosen)}" if chosen else ""))
        if e.done:
            win = e.winner_sides()
            lines.append("Match over: " + ("draw" if len(win) > 1 else f"side {SIDE_NAMES[win[0]]} wins"))
        return "\n".join(lines)
