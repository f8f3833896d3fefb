"""Hidden information against an independent account of who has seen each card (issue 58).

The other hidden-information tests (``test_hidden_information`` in tests/test_contract.py, the
re-deal check of tests/test_serve_views.py) deal anew what the engine's own records say a seat
cannot know, and the encoders read the same records: a wrong record (a take not written down, a
swap written to the wrong seat) passes them all. Here a referee plays seeded random matches of
every game and player count through the AEC env and keeps its own account of what each seat may
know, from

* the physical cards: each hand, the stock, the cards lying face up, and the cards handed from
  one player to another (read through ``Table``, which refuses every other engine attribute: the
  engine's records of who has seen what are never read);
* the public sequence of moves (the AEC actions) and the rules' "what each player may see"
  (docs/rules/<game>.md: siantappo 3.7, suipi 1.7, samsip 2.7).

After every step, for every seat, it checks

* the observation, decoded through the game's layout: every piece the account covers is exactly
  the account (more is a leak, less a lost record); every other piece is public (the same for
  every seat once its relative seats and sides are turned back) or the acting seat's own;
* the browser view (``envs/<game>/view.py``): its hand is the seat's hand, Sam Sip's known cards
  are the account's, Siantappo's swap note is the seat's swap, and it names no card the seat has
  not seen.
"""

from __future__ import annotations

import collections
import importlib
import random
from collections.abc import Callable, Collection

import numpy as np
import pytest

from cardzoo.envs.cards import NUM_STANDARD, card_str
from cardzoo.envs.registry import game_spec
from cardzoo.envs.samsip.actions import DECLARE, DRAW_STOCK, TAKE_DISCARD
from cardzoo.envs.samsip.config import JOKER_KIND
from cardzoo.envs.samsip.engine import SamSipEngine
from cardzoo.envs.seatview import match_over
from cardzoo.envs.siantappo.actions import PASS_ID, key_str
from cardzoo.envs.siantappo.engine import OVER, PLAY, SiantappoEngine, hand_keys
from cardzoo.envs.suipi.actions import CAPTURE_ACTION, CARDS, ITEM0, LOCKED, NVAL, OWNER, REP
from cardzoo.envs.suipi.engine import IS_SPADE, JACK_D, KING_D, QUEEN_D, TEN_D, TWO_S, SuipiEngine
from tests.serve_helpers import card_tokens

STOCK_DEALT = 52  # a Suipi stock starts as the 52 cards; S5 puts the cards it rejects under them


class Table:
    """What the referee may read of the engine: the attributes named, nothing else."""

    def __init__(self, env, names):
        self._env, self._names = env, frozenset(names)

    def __getattr__(self, name):
        if name not in self._names:
            raise AssertionError(f"the referee may not read engine.{name}")
        return getattr(self._env.engine, name)


class Referee:
    """The account of one match; each game's referee adds ``hand(seat)`` (the cards it holds),
    ``step(action)`` (play it through the AEC env and update the account) and ``fill(seat, want)``
    (write the account into the zeroed ``ACCOUNT`` pieces of ``seat``'s observation).

    ``ACCOUNT`` pieces are compared with ``fill``; ``SEATS`` and ``SIDES`` pieces hold one public
    value per relative seat or side; ``PUBLIC`` pieces are the same for every seat; ``OWN`` pieces
    are zero but for the acting seat. Every piece of the layout is in exactly one of them."""

    READS: frozenset = frozenset()
    ACCOUNT: tuple = ()
    SEATS: tuple = ()
    SIDES: tuple = ()
    PUBLIC: tuple = ()
    OWN: tuple = ()

    def __init__(self, env):
        self.env, self.n = env, env.num_players
        self.t = Table(env, self.READS)
        self.seen: list[set] = [set() for _ in range(self.n)]  # every card each seat has seen
        self.met: collections.Counter = collections.Counter()  # the situations the match went through

    def look(self, cards, seats=None) -> None:
        """``cards`` are seen by ``seats`` (every seat by default)."""
        for s in range(self.n) if seats is None else seats:
            self.seen[s].update(cards)

    def side(self, seat: int) -> int:
        return seat

    def num_sides(self) -> int:
        return self.n

    def text(self, card) -> str:
        return card_str(card)

    def check_view(self, seat: int, view: dict) -> None:
        """The game's own view checks (beyond the hand and the cards named)."""

    def hand(self, seat: int) -> Collection:
        raise NotImplementedError  # each game's referee

    def step(self, action: int) -> None:
        raise NotImplementedError  # each game's referee

    def fill(self, seat: int, want: dict) -> None:
        raise NotImplementedError  # each game's referee


# ------------------------------------------------------------------ Siantappo
class SiantappoReferee(Referee):
    """Rules 3.7: the own hand; every card played this round, by whom, in which trick; the cards
    the seat gave and received in the swap (only the two players of an exchange see it)."""

    READS = frozenset({"hands", "trick", "round_index", "phase"})
    ACCOUNT = ("hand", "table", "played", "given", "received", "trick_cards", "tricks")
    SEATS = ("table_player", "passed", "hand_sizes", "finished", "prev_places", "match_points", "pigs")
    PUBLIC = ("table_type", "table_len", "lead", "num_players", "round", "rounds_left")
    OWN = ("swap_phase", "to_give", "acting")

    def __init__(self, env, handovers: list):
        super().__init__(env)
        self.handovers = handovers  # (cards each seat lost, cards each seat got) per handing over
        self.new_round()

    def new_round(self) -> None:
        self.round = self.t.round_index
        self.plays: list[tuple[int, int, set]] = []  # (seat, trick, cards)
        self.given: list[set[int]] = [set() for _ in range(self.n)]
        self.received: list[set[int]] = [set() for _ in range(self.n)]
        for s in range(self.n):
            self.look(self.hand(s), [s])

    def hand(self, seat: int) -> set:
        return set(hand_keys(self.t.hands[seat]))

    def text(self, card) -> str:
        return key_str(card)

    def step(self, action: int) -> None:
        seat, phase, trick = self.env.acting_seat, self.t.phase, self.t.trick
        before = self.hand(seat)
        self.handovers.clear()
        self.env.step(action)
        ended = self.t.round_index != self.round
        if phase == PLAY and action != PASS_ID:
            cards = before if ended else before - self.hand(seat)  # a round ends on a play that empties a hand
            self.plays.append((seat, trick, cards))
            self.look(cards)
        if ended and self.t.phase != OVER:
            self.new_round()
        self.met.update(["round"] * ended + ["handover"] * len(self.handovers))
        for lost, got in self.handovers:  # seen by the two players of the exchange only
            for s in range(self.n):
                self.given[s] |= lost[s]
                self.received[s] |= got[s]
                self.look(lost[s] | got[s], [s])

    def fill(self, seat: int, want: dict) -> None:
        n, now = self.n, self.t.trick
        for k in self.hand(seat):
            want["hand"][k] = 1
        in_trick = [cards for _, t, cards in self.plays if t == now]
        for k in in_trick[-1] if in_trick else ():
            want["table"][k] = 1
        for s, t, cards in self.plays:
            for k in cards:
                want["played"][(s - seat) % n][k] = 1
                want["trick_cards"][k] = want["trick_cards"][k] or t == now
                if "tricks" in want:
                    want["tricks"][k] = (t + 1) * (1.0 / (now + 1))
        for k in self.given[seat]:
            want["given"][k] = 1
        for k in self.received[seat]:
            want["received"][k] = 1

    def check_view(self, seat: int, view: dict) -> None:
        notes = [line for line in view["notes"] if line.startswith("Swap this round")]
        if self.given[seat] or self.received[seat]:
            gave = " ".join(key_str(k) for k in sorted(self.given[seat])) or "-"
            got = " ".join(key_str(k) for k in sorted(self.received[seat])) or "-"
            assert notes == [f"Swap this round: you gave {gave}, received {got}"] or match_over(self.env), notes
        else:
            assert not notes


def siantappo_handovers(monkeypatch) -> list:
    """The referee's eyes on a swap: every handing over of cards between two hands, as the cards
    each hand lost and got (the engine's records of the swap are not read)."""
    handovers: list = []
    original = SiantappoEngine._move

    def move(engine, giver, receiver, keys):
        before = [set(hand_keys(h)) for h in engine.hands]
        original(engine, giver, receiver, keys)
        after = [set(hand_keys(h)) for h in engine.hands]
        handovers.append(([b - a for b, a in zip(before, after)], [a - b for b, a in zip(before, after)]))

    monkeypatch.setattr(SiantappoEngine, "_move", move)
    return handovers


# ------------------------------------------------------------------ Sam Sip
def kinds_into(row: np.ndarray, kinds) -> None:
    """A kind block: 1 per standard card, the jokers' count / 3 in entry 52."""
    for k in kinds:
        if k < JOKER_KIND:
            row[k] = 1
        else:
            row[JOKER_KIND] += 1 / 3


class SamSipReferee(Referee):
    """Rules 2.7: the own hand; the indicator (and the wild and dead cards it makes); every
    discard, by whom, and who took it (a taken discard is known in the taker's hand until it is
    discarded again); whether each draw came from the stock; a won hand is shown."""

    READS = frozenset({"hands", "stock", "indicator", "wild", "dead", "hand_no", "done", "active", "chips"})
    ACCOUNT = (
        "hand",
        "indicator",
        "live",
        "dead_pile",
        "known",
        "discarded",
        "taken",
        "recency",
        "drew_stock",
        "drew_take",
        "dead_count",
        "discards",
    )
    SEATS = ("present", "eliminated", "dealer", "to_move", "live_for", "chips")
    PUBLIC = ("wild", "dead_rank", "num_players", "phase", "stake", "stake_log", "stock", "hand_no")

    def __init__(self, env):
        super().__init__(env)
        self.new_hand()

    def new_hand(self) -> None:
        self.hand_no = self.t.hand_no
        self.events: list[list[int]] = []  # [seat, kind, taker or -1], in order
        self.known: list[list[int]] = [[] for _ in range(self.n)]
        self.dead_pile: list[int] = []  # kinds of the discards passed over
        self.live = -1  # the kind of the discard that may be taken
        self.drew = [-1] * self.n  # this hand: 0 from the stock, 1 a taken discard
        self.look([self.t.indicator, *self.t.wild, *self.t.dead])
        for s in range(self.n):
            self.look(self.hand(s), [s])

    def hand(self, seat: int) -> list:
        return list(self.t.hands[seat])

    def take(self, seat: int) -> None:
        self.events[-1][2] = seat
        self.known[seat].append(self.live)
        self.drew[seat] = 1
        self.live = -1

    def step(self, action: int) -> None:
        seat = self.env.acting_seat
        hands, stock, chips = [self.hand(s) for s in range(self.n)], list(self.t.stock), list(self.t.chips)
        live = self.live
        self.env.step(action)
        ended = self.t.done or self.t.hand_no != self.hand_no
        winner = next((s for s in range(self.n) if self.t.chips[s] > chips[s]), None)
        if action == DRAW_STOCK:
            if live >= 0:
                self.dead_pile.append(live)
            self.live, self.drew[seat], shown = -1, 0, hands[seat] + [stock[-1]]
        elif action == TAKE_DISCARD:
            self.take(seat)
            shown = hands[seat] + [live]
        elif action == DECLARE:
            shown = hands[seat]
        else:
            kind = min(action, JOKER_KIND)
            self.events.append([seat, kind, -1])
            if kind in self.known[seat]:
                self.known[seat].remove(kind)
            self.live = kind
            self.look([kind])
            if not stock and not ended:  # P11: the dead discards were shuffled into the stock
                self.dead_pile = []
                self.met["reshuffle"] += 1
            if winner is not None:  # P11: the next player took the discard that won
                self.take(winner)
            shown = hands[winner] + [kind] if winner is not None else []
        if winner is not None:
            self.look(shown)
        self.met.update(
            [("take" if action == TAKE_DISCARD else "declare" if action == DECLARE else "other")]
            + ["hand"] * ended
            + ["won"] * (winner is not None)
        )
        if ended and not self.t.done:
            self.new_hand()
        for s in range(self.n):
            self.look(self.hand(s), [s])

    def fill(self, seat: int, want: dict) -> None:
        n = self.n
        kinds_into(want["hand"], [min(c, JOKER_KIND) for c in self.hand(seat)])
        want["indicator"][min(self.t.indicator, JOKER_KIND)] = 1
        if self.live >= 0:
            want["live"][self.live] = 1
        kinds_into(want["dead_pile"], self.dead_pile)
        for s in range(n):
            if s != seat:
                kinds_into(want["known"][(s - seat) % n - 1], self.known[s])
            if self.t.active[s] and self.drew[s] >= 0:
                want["drew_take" if self.drew[s] else "drew_stock"][(s - seat) % n] = 1
        for i, (s, kind, taker) in enumerate(self.events, 1):
            want["discarded"][(s - seat) % n][kind] = 1
            if taker >= 0:
                want["taken"][(taker - seat) % n][kind] = 1
            want["recency"][kind] = i / len(self.events)
        want["dead_count"][0] = len(self.dead_pile) / 54
        want["discards"][0] = min(1.0, len(self.events) / 100)

    def check_view(self, seat: int, view: dict) -> None:
        for s, player in enumerate(view["players"]):
            want = [card_str(k) for k in sorted(self.known[s])] if self.t.active[s] else []
            assert player["known"] == want, f"seat {seat}'s view: player_{s}'s known cards {player['known']} != {want}"


# ------------------------------------------------------------------ Suipi
class SuipiReferee(Referee):
    """Rules 1.7: the own hand (not the partner's); the whole floor; every capture, with its
    cards; the cards S5 rejected to the bottom of the stock; the move being composed is the
    acting seat's alone until it is played."""

    READS = frozenset({"hands", "floor", "stock", "top", "deal_index", "done", "side", "config"})
    ACCOUNT = (
        "hand",
        "loose",
        "build",
        "item",
        "build_value",
        "locked",
        "owner",
        "captured",
        "rejected",
        "partial_hand",
        "partial_items",
        "captured_summary",
        "last_capturer",
    )
    SEATS = ("dealer", "to_move", "hand_sizes")
    SIDES = ("suipis", "match_score")
    PUBLIC = ("num_players", "point_game_23", "stock", "round", "deal")
    OWN = ("partial",)

    def __init__(self, env):
        super().__init__(env)
        # (seat, hand card, reps of the items chosen) of the move being composed
        self.partial: tuple[int, int, list[int]] | None = None
        self.new_deal()

    def side(self, seat: int) -> int:
        return self.t.side[seat]

    def num_sides(self) -> int:
        return self.t.config.num_sides

    def new_deal(self) -> None:
        self.deal = self.t.deal_index
        self.captured: list[list[int]] = [[] for _ in range(self.num_sides())]
        self.last_capturer = -1
        self.look(self.rejected() | self.floor_cards())
        for s in range(self.n):
            self.look(self.hand(s), [s])

    def hand(self, seat: int) -> list:
        return list(self.t.hands[seat])

    def floor_cards(self) -> set:
        return {c for it in self.t.floor for c in it[CARDS]}

    def rejected(self) -> set:
        """S5's rejected cards still in the stock: the ones under the 52 it started with."""
        stock, top = self.t.stock, self.t.top
        return {stock[i] for i in range(max(STOCK_DEALT, top), len(stock))}

    def step(self, action: int) -> None:
        seat, floor = self.env.acting_seat, list(self.t.floor)
        self.env.step(action)
        if action < ITEM0:
            self.partial = (seat, action, [])
        elif action < CAPTURE_ACTION:
            assert self.partial is not None  # an item is chosen after the hand card
            self.partial[2].append(action - ITEM0)
        else:
            self.play(seat, floor, action == CAPTURE_ACTION)
        for s in range(self.n):
            self.look(self.hand(s), [s])

    def play(self, seat: int, floor: list, capture: bool) -> None:
        """A finished move: public, with its hand card; a capture goes to the side's pile, and at
        the deal's end the cards left go to the last capturer's (S15)."""
        assert self.partial is not None  # a move is finished after its hand card
        _, card, reps = self.partial
        self.partial = None
        self.look([card])
        chosen = [c for it in floor if it[REP] in reps for c in it[CARDS]]
        left = [c for it in floor for c in it[CARDS]]
        self.met.update(["capture" if capture else "build or drop"])
        if capture:
            self.captured[self.side(seat)] += [card, *chosen]
            self.last_capturer = seat
            left = [c for c in left if c not in chosen]
        else:
            left.append(card)
        if self.t.done or self.t.deal_index != self.deal:
            self.met["deal"] += 1
            if self.last_capturer >= 0:
                self.captured[self.side(self.last_capturer)] += left
            if not self.t.done:
                self.new_deal()
        self.look(self.floor_cards())

    def fill(self, seat: int, want: dict) -> None:
        n = self.n
        for c in self.hand(seat):
            want["hand"][c] = 1
        for it in self.t.floor:
            at = (it[REP] + 1) / 52
            if it[OWNER] < 0:
                want["loose"][it[REP]], want["item"][it[REP]] = 1, at
                continue
            for c in it[CARDS]:
                want["build"][c], want["item"][c], want["build_value"][c] = 1, at, it[NVAL] / 13
                want["owner"][(it[OWNER] - seat) % n][c] = 1
                want["locked"][c] = 1 if it[LOCKED] else 0
        for side, pile in enumerate(self.captured):
            r = (side - self.side(seat)) % self.num_sides()
            want["captured"][r][pile] = 1
            want["captured_summary"][r] = self.summary(pile)
        want["rejected"][list(self.rejected())] = 1
        if self.partial and self.partial[0] == seat:
            _, card, reps = self.partial
            want["partial_hand"][card] = 1
            want["partial_items"][[c for it in self.t.floor if it[REP] in reps for c in it[CARDS]]] = 1
        lc = self.last_capturer
        want["last_capturer"][(lc - seat) % n if lc >= 0 else 4] = 1

    def summary(self, pile) -> list:
        """A side's pile as the rules summarise it: cards, spades, aces, 10♦, 2♠, J♦ Q♦ K♦."""
        courts = self.t.config.court_values
        special = [c in pile for c in (TEN_D, TWO_S)] + [courts and c in pile for c in (JACK_D, QUEEN_D, KING_D)]
        return [len(pile) / 52, sum(IS_SPADE[c] for c in pile) / 13, sum(c < 4 for c in pile) / 4, *special]


# ------------------------------------------------------------------ the checks
def absolute(values: np.ndarray, seat: int, count: int) -> list:
    """A piece of one value per relative seat (or side) as seen from ``seat``, turned back to
    absolute seats; the slots past ``count`` as they are."""
    return [values[(s - seat) % count] for s in range(count)] + list(values[count:])


def check_observations(ref: Referee) -> None:
    env = ref.env
    layout = importlib.import_module(f"cardzoo.envs.{env.game_name}.encoding").layout(env.config)
    kinds = {"account": ref.ACCOUNT, "seats": ref.SEATS, "sides": ref.SIDES, "public": ref.PUBLIC, "own": ref.OWN}
    listed = [name for names in kinds.values() for name in names]
    assert len(listed) == len(set(listed)) and set(layout.names) <= set(listed), set(layout.names) - set(listed)
    seen = [layout.decode(env.observe(agent)["observation"]) for agent in env.possible_agents]
    acting = None if match_over(env) else env.acting_seat
    for seat, got in enumerate(seen):
        want = {name: np.zeros_like(got[name]) for name in ref.ACCOUNT if name in got}
        ref.fill(seat, want)
        for name, value in want.items():
            wrong = np.flatnonzero(~np.isclose(got[name], value, rtol=0, atol=1e-6))
            assert not wrong.size, (
                f"{env.game_name} seat {seat}: {name!r} differs from the account at "
                f"{wrong.tolist()}: {got[name].ravel()[wrong].tolist()} != "
                f"{value.ravel()[wrong].tolist()}"
            )
        for name in ref.OWN:
            assert seat == acting or not got[name].any(), f"seat {seat} sees the acting seat's {name!r}"
    groups: tuple[tuple[tuple, int | None, Callable[[int], int] | None], ...] = (
        (ref.SEATS, ref.n, lambda s: s),
        (ref.SIDES, ref.num_sides(), ref.side),
        (ref.PUBLIC, None, None),
    )
    for names, count, place in groups:
        for name in names:
            views = [
                got[name].tolist() if count is None or place is None else absolute(got[name], place(seat), count)
                for seat, got in enumerate(seen)
            ]
            assert all(v == views[0] for v in views), f"{name!r} is public but differs between seats: {views}"


def check_views(ref: Referee) -> None:
    env = ref.env
    view_of = importlib.import_module(f"cardzoo.envs.{env.game_name}.view").seat_view
    for seat in range(ref.n):
        view = view_of(env, seat)
        if not match_over(env):
            assert sorted(c["card"] for c in view["hand"]["cards"]) == sorted(ref.text(c) for c in ref.hand(seat))
        leaked = card_tokens(view) - {ref.text(c) for c in ref.seen[seat] if c < NUM_STANDARD}
        assert not leaked, f"{env.game_name}: seat {seat}'s view names {sorted(leaked)}, which it has not seen"
        ref.check_view(seat, view)


def referee_for(game: str, env, monkeypatch) -> Referee:
    """The game's referee for ``env``, just reset."""
    if game == "siantappo":
        return SiantappoReferee(env, siantappo_handovers(monkeypatch))
    return {"samsip": SamSipReferee, "suipi": SuipiReferee}[game](env)


def play_and_check(game: str, n: int, options: dict, seed: int, monkeypatch, max_steps: int = 700) -> Referee:
    """One seeded random match (at most ``max_steps`` steps), checked after every step."""
    env = game_spec(game).raw_env(num_players=n, **options)
    env.reset(seed=seed)
    ref = referee_for(game, env, monkeypatch)
    rng = random.Random(seed)
    steps = 0
    while not match_over(env) and steps < max_steps:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        check_observations(ref)
        check_views(ref)
        ref.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))
        steps += 1
    check_observations(ref)
    check_views(ref)
    ref.met["steps"] = steps
    return ref


# Every player count, each with other rule variants (what changes who sees what: the swap's
# variants and the trick record; the 23-point game and the floor rules; the stock's reshuffle,
# declaring, the wild schemes), and the situations its match must go through
CASES = [
    ("siantappo", 3, {"rounds": 2, "swap_second_with": "third", "trick_history": True}, ("round", "handover")),
    ("siantappo", 4, {"rounds": 2, "deal": "13each", "swap_choice": True}, ("round", "handover")),
    ("siantappo", 5, {"rounds": 2, "swap_choice": True, "trick_history": True}, ("round", "handover")),
    ("siantappo", 6, {"rounds": 2}, ("round", "handover")),
    ("suipi", 2, {"match_deals": 2}, ("capture", "build or drop", "deal")),
    ("suipi", 3, {"point_game": 23, "floor_dup_rule": "lower_value", "match_deals": 2}, ("capture", "deal")),
    ("suipi", 4, {"floor_dup_rule": "point_card", "match_deals": 2}, ("capture", "deal")),
    ("samsip", 2, {"bankroll": 3, "on_stock_empty": "reshuffle", "max_hands": 8}, ("take", "won", "hand")),
    (
        "samsip",
        3,
        {"bankroll": 3, "auto_declare": False, "joker_indicator": "redraw", "max_hands": 8},
        ("take", "declare"),
    ),
    (
        "samsip",
        4,
        {"bankroll": 2, "wild_scheme": "khi", "on_stock_empty": "reshuffle", "max_reshuffles": 1, "max_hands": 6},
        ("take", "won", "reshuffle"),
    ),
    ("samsip", 5, {"bankroll": 2, "max_hands": 6}, ("take", "won", "hand")),
    ("samsip", 6, {"bankroll": 4, "max_hands": 5}, ("take", "won", "hand")),
]


def test_the_cases_cover_every_game_and_player_count():
    """The registered counts, and Suipi's three individual players, which the engine also plays."""
    registered = {(g, n) for g in ("siantappo", "suipi", "samsip") for n in game_spec(g).player_counts}
    assert {(g, n) for g, n, _, _ in CASES} == registered | {("suipi", 3)}


@pytest.mark.parametrize("game,n,options,situations", CASES, ids=[f"{g}-{n}p" for g, n, _, _ in CASES])
def test_each_seat_knows_what_the_account_says_and_no_more(game, n, options, situations, monkeypatch):
    met = play_and_check(game, n, options, seed=n, monkeypatch=monkeypatch).met
    assert met["steps"] > 100 and all(met[s] for s in situations), dict(met)


# ------------------------------------------------------------------ the check can fail
def forget_takes(monkeypatch):
    """A taken discard is not written down as known in the taker's hand (a lost record)."""
    take = SamSipEngine._take

    def bugged(engine, seat):
        card = take(engine, seat)
        engine.known[seat].pop()
        return card

    monkeypatch.setattr(SamSipEngine, "_take", bugged)


def keep_discards_known(monkeypatch):
    """A discarded card stays "known" in the discarder's hand (a leak: where it is not)."""
    step = SamSipEngine.step

    def bugged(engine, move):
        known = [list(k) for k in engine.known]
        hand_no = engine.hand_no
        out = step(engine, move)
        if engine.hand_no == hand_no and not engine.done and move not in (DRAW_STOCK, TAKE_DISCARD, DECLARE):
            engine.known = known
        return out

    monkeypatch.setattr(SamSipEngine, "step", bugged)


def tell_a_third_seat(monkeypatch):
    """A swap gift is also written to the swap of the seat after the receiver (a leak)."""
    move = SiantappoEngine._move

    def bugged(engine, giver, receiver, keys):
        move(engine, giver, receiver, keys)
        third = (receiver + 1) % engine.n
        if third != giver:
            engine.swap_received[third].extend(keys)

    monkeypatch.setattr(SiantappoEngine, "_move", bugged)


def remember_rejected_cards(monkeypatch):
    """A card S5 rejected to the bottom of the stock stays marked "in the stock" once dealt."""
    reject = SuipiEngine._reject

    def bugged(engine, card):
        reject(engine, card)
        engine.rejected[-1] = (card, 10**6)

    monkeypatch.setattr(SuipiEngine, "_reject", bugged)


@pytest.mark.parametrize(
    "game,n,options,plant",
    [
        ("samsip", 3, {"bankroll": 3}, forget_takes),
        ("samsip", 3, {"bankroll": 3}, keep_discards_known),
        ("siantappo", 4, {"rounds": 2}, tell_a_third_seat),
        ("suipi", 2, {}, remember_rejected_cards),
    ],
    ids=lambda v: v.__name__ if callable(v) else None,
)
def test_a_wrong_record_of_who_saw_what_is_caught(game, n, options, plant, monkeypatch):
    plant(monkeypatch)
    with pytest.raises(AssertionError, match=r"differs from the account|has not seen|known cards"):
        play_and_check(game, n, options, seed=n, monkeypatch=monkeypatch)
