"""Sam Sip as a PettingZoo AEC environment (``samsip_v0``).

One episode is one match. Each turn is two steps by the same agent: the draw (53 draw stock /
54 take the discard) and the discard (0..51 a card, 52 a joker; 55 declare with
``auto_declare=False``). Rewards come at the end of every won hand (see the engine's
``hand_rewards``).
Players eliminated by a hand are terminated and leave ``agents`` through PettingZoo's dead step.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from cardzoo.envs.base import CardGameEnv, IllegalMoveError, StepOutcome
from cardzoo.envs.cards import card_str, cards_str
from cardzoo.envs.config import build_config
from cardzoo.envs.samsip import actions, encoding
from cardzoo.envs.samsip.actions import DECLARE, DISCARD_JOKER, DRAW_STOCK, TAKE_DISCARD
from cardzoo.envs.samsip.config import DECK_SIZE, SamSipConfig
from cardzoo.envs.samsip.engine import PHASE_DRAW, VOID_STALL, WIN_NAMES, HandResult, SamSipEngine

DRAWN_ALREADY = "you have drawn already: one draw a turn, then a discard (rules P8)"


class SamSipEnv(CardGameEnv):
    metadata: ClassVar[dict[str, Any]] = {
        "name": "samsip_v0",
        "render_modes": ["ansi", "human", "rgb_array"],
        "is_parallelizable": False,
        "render_fps": 1,
    }
    num_actions = actions.NUM_ACTIONS
    max_players = encoding.MAX_PLAYERS
    obs_size = encoding.OBS_SIZE
    game_name = "samsip"

    deck_size = DECK_SIZE
    deck_jokers = True
    encoder_class = encoding.Encoder
    engine_class = SamSipEngine
    engine: SamSipEngine
    config: SamSipConfig

    def __init__(self, num_players: int = 4, render_mode: str | None = None, max_steps: int | None = None, **variants):
        config = build_config(SamSipConfig, "samsip", num_players=num_players, **variants)
        super().__init__(config, render_mode, max_steps)

    @property
    def game(self) -> SamSipEngine | None:
        """The match's engine (its older name here)."""
        return self.engine

    @game.setter
    def game(self, engine: SamSipEngine) -> None:
        self.engine = engine

    @property
    def zero_sum_steps(self) -> bool:  # type: ignore[override]  # a fact of the configuration here
        """reward="rank" pays each seat its placement when it is eliminated: zero-sum per match."""
        return self.config.reward != "rank"

    # ------------------------------------------------------------------ hooks
    def _new_engine(self, rng: random.Random, deck) -> SamSipEngine:
        return SamSipEngine(self.config, rng, deck)

    # The protocol's acting_seat / legal_actions, read directly: Sam Sip's steps are cheap enough
    # that one property call and one method call more per step show in the benchmark.
    def _acting_seat(self) -> int:
        return self.engine.turn

    def _legal_actions(self) -> list[int]:
        return sorted(self.engine.legal())

    def _apply(self, action: int) -> StepOutcome:
        engine = self.engine
        last = engine.last_result
        outcome = engine.apply_action(action)
        if engine.last_result is not last:  # a hand ended
            text = describe_result(engine.last_result, self.possible_agents)  # type: ignore[arg-type]  # set: a hand ended
            for a in self.infos:
                self.infos[a]["last_hand"] = text
        return outcome

    def _action_text(self, action: int) -> str:
        return actions.action_text(action, self.engine.live if self.engine is not None else -1)

    # ------------------------------------------------------------------ text
    def _move_to_action(self, text: str) -> int:
        """Accept the texts of ``legal_moves`` and aliases: ``draw``, ``stock``, ``take``,
        ``take 7h``, ``discard 7h``, ``7h``, ``Jk``, ``declare``; in the draw phase the card of the
        discard in front of you means taking it. Errors say what the acting seat may do now
        (``declare`` only where it is legal)."""
        g = self.engine
        legal = self._legal_actions()
        try:
            action = actions.text_to_action(text, g.live)
        except ValueError as e:
            taking = str(text).lower().split()[:1] in (["take"], ["pick"])
            why = DRAWN_ALREADY if taking and g.phase != PHASE_DRAW else _unreadable(text, e)
            raise IllegalMoveError(f"{why}; {self._now_hint(legal)}", [t for _, t in self.legal_moves()]) from None
        if (
            g.phase == PHASE_DRAW
            and action <= DISCARD_JOKER
            and g.live >= 0
            and min(action, DISCARD_JOKER) == min(g.live, DISCARD_JOKER)
        ):
            action = TAKE_DISCARD  # naming the discard in front of you takes it
        if action in legal:
            return action
        raise IllegalMoveError(f"{self._why_not(action)}; {self._now_hint(legal)}", [t for _, t in self.legal_moves()])

    def _why_not(self, action: int) -> str:
        g = self.engine
        if g.done:
            return "the match is over"
        if action == DECLARE:
            return (
                "winning hands are declared automatically in this game (rules P10)"
                if self.config.auto_declare
                else "your hand does not win: there is nothing to declare (rules P9)"
            )
        if g.phase == PHASE_DRAW:
            if action == TAKE_DISCARD:
                return (
                    "there is no discard in front of you to take: only the card the previous player just "
                    "discarded may be taken (rules P8)"
                )
            return "draw first: a turn is a draw, then a discard (rules P8)"
        if action in (DRAW_STOCK, TAKE_DISCARD):
            return DRAWN_ALREADY
        return f"you do not hold {card_str(action) if action < DISCARD_JOKER else 'a joker'}"

    def _now_hint(self, legal) -> str:
        """What the acting seat may do now, in words (never a move that is not legal)."""
        g = self.engine
        if g.done:
            return "no move can be played"
        if g.phase == PHASE_DRAW:
            take = f" or `take` (the {card_str(g.live)} in front of you)" if TAKE_DISCARD in legal else ""
            return f"now draw: `draw` (from the stock){take}"
        cards = sorted(a for a in legal if a <= DISCARD_JOKER)
        example = card_str(cards[0]) if cards else "a card"
        declare = ", or `declare` your win" if DECLARE in legal else ""
        return f"now discard one of your cards (e.g. `{example}`){declare}"

    def _render_text(self) -> str:
        g = self.game
        if g is None:
            return "Sam Sip: call reset() first"
        name = self.possible_agents
        lines = [
            (
                f"Sam Sip, {g.n} players | hand {g.hand_no} (cap {self.config.max_hands}) | "
                f"stake {g.stake} | dealer {name[g.dealer]}"
            )
        ]
        wild = " ".join(card_str(c) for c in sorted(g.wild))
        line = f"indicator {card_str(g.indicator)} | wild {wild}"
        if g.dead:
            line += f" | dead {cards_str(sorted(g.dead))}"
        lines.append(line)
        line = f"stock {len(g.stock)} | dead discards {len(g.dead_cards)}"
        if g.live >= 0:
            last = g.events[-1][0]
            line += f" | {card_str(g.live)} from {name[last]} lies in front of {name[g.live_for]}"
        lines.append(line)
        for s in range(g.n):
            if not g.active[s]:
                lines.append(f"  {name[s]:9s} out (hand {g.elim_hand[s]})")
                continue
            mark = ">" if (s == g.turn and not g.done) else " "
            lines.append(f"{mark} {name[s]:9s} chips {g.chips[s]:5d} | {cards_str(sorted(g.hands[s]))}")
        if g.last_result is not None:
            lines.append("last hand: " + describe_result(g.last_result, name))
        if g.done:
            ranks = g.ranking()
            lines.append("match over; ranks: " + ", ".join(f"{name[s]} {ranks[s]:g}" for s in range(g.n)))
        else:
            lines.append(f"to move: {name[g.turn]} ({'draw' if g.phase == PHASE_DRAW else 'discard'})")
        return "\n".join(lines)


def _unreadable(text: str, error: ValueError) -> str:
    """Why move text could not be read: the card that is wrong, or that it is no move at all."""
    words = str(text).lower().replace(",", " ").split()
    if len(words) == 1 or (words and words[0] in ("take", "pick", "discard", "throw", "drop")):
        return str(error)
    return f"{text!r} is not a move"


def describe_result(res: HandResult, names) -> str:
    if res.winner is None:
        why = "nobody drew from the stock for too long" if res.void_reason == VOID_STALL else "stock exhausted"
        return f"hand {res.hand_no} void ({why}), stake stays {res.stake}"
    text = (
        f"hand {res.hand_no}: {names[res.winner]} won with {WIN_NAMES[res.kind]} "
        f"({cards_str(res.winning_hand)}), +{res.deltas[res.winner]} chips"
    )
    if res.eliminated:
        text += "; eliminated: " + ", ".join(names[s] for s in res.eliminated)
    return text
