"""Sam Sip moves as feature rows, for agents that rank moves (pure numpy).

Every Sam Sip move is one action (draw, take, discard or declare), so the candidates are the
legal action ids (``cardzoo.envs.whole_moves.SingleActionMoves``). A row describes the move from the
seat's own observation only:

========  ==================================================================================
offset    meaning
========  ==================================================================================
0..52     the card kind the move gives away (discard) or takes (take); entry 52 = a joker
53..56    type: discard, draw stock, take the discard, declare
57        that card is wild
58        that card is of the dead rank (cannot pair)
59        pairs the hand holds after the move / 3 (a take counts the taken card)
60        the rule bot's score of a discard, relative to its best discard / 20, in [-5, 0]
61        the rule bot would make this move (any of its equally best discards)
62        the discard pairs with a card the next player is known to hold
63        the take completes a winning hand
64..66    chance of completing three pairs within 1, 2, 3 draws counted from the move
          (``cardzoo.envs.samsip.outs``, a completion one draw later weighs ``GAMMA`` less): a discard
          counts the hand it keeps and the next turns' draws; a draw-phase move counts its own
          draw (taking the discard: that card, then the best hand to keep)
67..69    the same chances divided by the best candidate's (1 = as good as the best move; 1 for
          every move when none can complete), so that close chances stay easy to tell apart
========  ==================================================================================
"""

from __future__ import annotations

import numpy as np

from cardzoo.envs.samsip.actions import DECLARE, DISCARD_JOKER, DRAW_STOCK, TAKE_DISCARD
from cardzoo.envs.samsip.bot import RuleBot
from cardzoo.envs.samsip.config import JOKER_KIND
from cardzoo.envs.samsip.encoding import decode, view_of
from cardzoo.envs.samsip.lookahead import LookaheadBot, kept_indices
from cardzoo.envs.samsip.outs import Chances, card_type, tables
from cardzoo.envs.whole_moves import SeatState, SingleActionMoves

MOVE_FEATURES = 70
_TYPE, _WILD, _DEAD, _PAIRS, _SCORE, _CHOICE, _FEEDS, _WINS = 53, 57, 58, 59, 60, 61, 62, 63
_CHANCE, _RELATIVE = 64, 67
DRAWS = 3  # chances within 1..DRAWS draws
GAMMA = 0.85  # as the lookahead teacher's
_DISCARD, _DRAW, _TAKE, _DECLARE = range(4)
_TIE = 1e-9  # the rule bot's tolerance for equal discard scores


class WholeMoves(SingleActionMoves):
    """Reads a Sam Sip seat's observation into its legal moves' feature rows."""

    feature_size = MOVE_FEATURES
    choice_column = _CHOICE

    def __init__(self, config=None):
        self.bot = RuleBot(config)  # its choices and discard scores are features
        self.lookahead = LookaheadBot(config, gamma=GAMMA)  # reads the draw probabilities

    def read_seat(self, engine, seat: int) -> SeatState:
        """``read(encode(engine, seat))`` without the vector: its view is the decoded observation
        (``encoding.view_of``, equal key for key), which ``features`` reads as it would the
        vector; the collectors' fast path."""
        return SeatState(view_of(engine, seat), (), None)

    def features(self, observation, legal: list[int]) -> np.ndarray:
        """The legal moves' rows, from the seat's observation vector or its decoded view (a dict)."""
        return self.features_many([observation], [legal])[0]

    def features_many(self, observations: list, legals: list) -> list[np.ndarray]:
        """``features`` of several decisions, their completion chances solved together (one
        ``Chances.solve_each`` for all: the same bits as one by one, in a few array operations
        for all of them; the collector's batch of a tick)."""
        decisions = [self._rows(observation, legal) for observation, legal in zip(observations, legals)]
        p = np.stack([self.lookahead.draw_probabilities(d) for d, _, _ in decisions])
        asked = [self._asked(d, legal) for d, legal, _ in decisions]
        solved = Chances(p[0] if len(p) == 1 else p, GAMMA).solve_each(DRAWS, [hands for hands, _ in asked])
        rows = np.concatenate([rows for _, _, rows in decisions])
        starts = np.cumsum([0] + [len(legal) for legal in legals])[:-1]  # each decision's first row
        self._chances(decisions, asked, solved, rows, starts)
        return np.split(rows, starts[1:])

    def _rows(self, observation: np.ndarray, legal: list[int]) -> tuple:
        """(the decoded view, legal, the rows with every column but the chances')."""
        bot = self.bot
        rows = np.zeros((len(legal), MOVE_FEATURES), dtype=np.float32)
        d = observation if isinstance(observation, dict) else decode(observation)
        hand, wild, dead = d["hand"], d["wild"], d["dead"]
        bot._wild, bot._dead = wild, dead  # the helpers below read the view's wild and dead kinds
        discards = [a for a in legal if a <= DISCARD_JOKER]
        facts = dict(zip(discards, zip(*bot.discard_facts(d, discards)))) if discards else {}
        best = max((score for score, _, _ in facts.values()), default=0.0)
        if DECLARE in legal or not discards:  # the bot's choice is deterministic here
            bot_move = bot.choose(d, legal)
        else:
            bot_move = None  # it picks among its equally best discards at random: flag them all
        for row, a in zip(rows, legal):
            if a <= DISCARD_JOKER:
                card = JOKER_KIND if a == DISCARD_JOKER else a
                score, pairs, feeds = facts[a]
                row[_TYPE + _DISCARD] = 1.0
                row[_PAIRS] = pairs / 3.0
                row[_SCORE] = max(-5.0, (score - best) / 20.0)
                row[_CHOICE] = float(bot_move is None and score >= best - _TIE)
                row[_FEEDS] = float(feeds)
            elif a == TAKE_DISCARD:
                card = d["live"]
                row[_TYPE + _TAKE] = 1.0
                row[_PAIRS] = bot._pairs(hand + [card]) / 3.0
                row[_WINS] = float(bot._wins(hand + [card]))
            else:
                card = -1
                row[_TYPE + (_DRAW if a == DRAW_STOCK else _DECLARE)] = 1.0
                row[_PAIRS] = bot._pairs(hand) / 3.0
            if card >= 0:
                row[card] = 1.0
                row[_WILD] = float(card in wild)
                row[_DEAD] = float(card in dead)
            if a == bot_move:
                row[_CHOICE] = 1.0
        return d, legal, rows

    def _asked(self, d: dict, legal: list[int]) -> tuple[list[int], int]:
        """(the hands whose chances the moves need: each discard's kept hand, then the hand
        itself where the seat may draw; the hand's index, or -1)."""
        hands, here = kept_indices(
            d, [a for a in legal if a <= DISCARD_JOKER], itself=DRAW_STOCK in legal or TAKE_DISCARD in legal
        )
        return hands + [here] * (here >= 0), here

    def _chances(self, decisions: list, asked: list, solved: list, rows: np.ndarray, starts: np.ndarray) -> None:
        """Columns 64..69 of every decision's rows (``rows``: theirs one after the other, decision
        d's from ``starts[d]``) from the solved tables ([D, hands] per depth): the chance of
        completing within 1..DRAWS draws, counted from each move, then relative to the best
        candidate's of its decision."""
        at, decision, hand = [], [], []  # the rows whose chances are a solved hand's: a discard, a draw
        row = 0
        for i, ((d, legal, _), (hands, here)) in enumerate(zip(decisions, asked)):
            kept = iter(hands)
            for a in legal:
                if a <= DISCARD_JOKER or a == DRAW_STOCK:
                    at.append(row)
                    decision.append(i)
                    hand.append(next(kept) if a <= DISCARD_JOKER else here)
                elif a == DECLARE or rows[row, _WINS]:
                    rows[row, _CHANCE : _CHANCE + DRAWS] = 1.0
                else:  # taking the discard: that card, then the best hand to keep
                    keeps = tables().kept[tables().draw[here, card_type(d["live"], d["wild"], d["dead"])]]
                    for k in range(2, DRAWS + 1):
                        rows[row, _CHANCE + k - 1] = GAMMA * solved[k - 2][i, keeps].max()
                row += 1
        if at:
            rows[at, _CHANCE : _CHANCE + DRAWS] = np.stack([table[decision, hand] for table in solved], axis=1)
        absolute = rows[:, _CHANCE : _CHANCE + DRAWS]
        best = np.repeat(np.maximum.reduceat(absolute, starts, axis=0), np.diff(starts, append=len(rows)), axis=0)
        rows[:, _RELATIVE : _RELATIVE + DRAWS] = np.where(best > 0, absolute / np.where(best > 0, best, 1.0), 1.0)
