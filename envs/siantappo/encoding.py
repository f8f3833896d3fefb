"""Siantappo observation encoding: what one seat may know (rules 3.7), as a float32 vector.

Seats are relative: slot 0 is the observing seat, slot i the seat i places after it in play order.
Slots >= num_players stay zero, so one network serves 3-6 players. All values lie in [0, 1].
The pieces are declared once, in ``LAYOUT`` below (docs/siantappo.md shows its ``table()``);
``layout(config)`` is the layout a configuration observes (``LAYOUT`` less the last piece
without ``trick_history``).

Without ``trick_history`` the observation says who played every card this round (``played``) and
everything about the current trick, but not in which earlier trick a card fell (rules 3.7 lists
it). No rule depends on it (tests/test_siantappo_env.py plays the same moves from positions that
differ only in it); it only helps infer the other hands. It is a flag so that the default stays
the 633 inputs of the shipped model.

``encode(engine, seat)`` is the definition, computed from scratch; ``Encoder(engine)`` gives the
same vectors faster by keeping, per seat, what only changes with the moves (see its docstring).
"""

from __future__ import annotations

import numpy as np

from cardzoo.envs.layout import Layout, Piece, float_view
from cardzoo.envs.siantappo.actions import ACTION_CARD_COUNT, ACTION_TYPE
from cardzoo.envs.siantappo.engine import SWAP, SiantappoEngine

MAX_PLAYERS = 6
HAND_SIZE_SCALE = 20.0  # 18 dealt + 2 received in a swap

BASE_LAYOUT = Layout(
    [
        Piece("hand", 52, "own hand (by key: 3♠=0 … 2♥=51)"),
        Piece("table", 52, "cards of the combination on the table"),
        Piece("table_type", 8, "its type: single, pair, triple, quad, straight, siantappo, 4-run, 5-run"),
        Piece("table_len", 1, "its number of cards / 12"),
        Piece("lead", 1, "1 if the acting seat must lead (no combination on the table)"),
        Piece("table_player", MAX_PLAYERS, "who played it (relative seat one-hot)"),
        Piece("passed", MAX_PLAYERS, "who has passed in this trick"),
        Piece("hand_sizes", MAX_PLAYERS, "hand sizes / 20"),
        Piece("finished", MAX_PLAYERS, "finishing place this round / n (0 = still playing)"),
        Piece("played", MAX_PLAYERS * 52, "cards played this round, 52 per relative seat", blocks=MAX_PLAYERS),
        Piece("prev_places", MAX_PLAYERS, "previous round's place / n (0 in round 1)"),
        Piece("given", 52, "cards this seat gave in this round's swap"),
        Piece("received", 52, "cards this seat received in this round's swap"),
        Piece("num_players", 4, "number of players one-hot (3, 4, 5, 6)"),
        Piece("round", 1, "rounds played / rounds in the match"),
        Piece("rounds_left", 1, "rounds left / rounds in the match"),
        Piece("match_points", MAX_PLAYERS, "match placement points / ((n-1) * rounds)"),
        Piece("pigs", MAX_PLAYERS, 'times the loser ("pig") / rounds'),
        Piece("swap_phase", 1, "swap phase: this seat is choosing cards to give (swap_choice variant)"),
        Piece("to_give", 1, "cards still to give / 2"),
        Piece("trick_cards", 52, "cards played in the current trick"),
        Piece("acting", 1, "1 if this seat is the acting seat"),
    ]
)
LAYOUT = BASE_LAYOUT.extend(
    [
        Piece(
            "tricks",
            52,
            "only with `trick_history`: trick of each card played this round, "
            "(trick + 1) / (current trick + 1); 0 = not played this round",
        ),
    ]
)


def layout(config) -> Layout:
    """The layout that ``config`` observes (``tricks`` only with ``trick_history``)."""
    return LAYOUT if config.trick_history else BASE_LAYOUT


# The offsets the encoder writes to, from LAYOUT
HAND, TABLE, TABLE_TYPE, TABLE_LEN, LEAD = (
    LAYOUT.offset(p) for p in ("hand", "table", "table_type", "table_len", "lead")
)
TABLE_PLAYER, PASSED, HAND_SIZES, FINISHED, PLAYED = (
    LAYOUT.offset(p) for p in ("table_player", "passed", "hand_sizes", "finished", "played")
)
PREV_PLACES, GIVEN, RECEIVED, NUM_PLAYERS, ROUND, ROUNDS_LEFT = (
    LAYOUT.offset(p) for p in ("prev_places", "given", "received", "num_players", "round", "rounds_left")
)
MATCH_POINTS, PIGS, SWAP_PHASE, TO_GIVE, TRICK_CARDS, ACTING = (
    LAYOUT.offset(p) for p in ("match_points", "pigs", "swap_phase", "to_give", "trick_cards", "acting")
)
OBS_SIZE = BASE_LAYOUT.size  # 633
TRICKS = LAYOUT.offset("tricks")  # the trick_history block
OBS_SIZE_TRICKS = LAYOUT.size  # 685


def obs_size(config) -> int:
    return layout(config).size


_BITS = [[i for i in range(8) if b >> i & 1] for b in range(256)]


def _set_mask_bits(vec: np.ndarray, offset: int, mask: int) -> None:
    base = offset
    while mask:
        for i in _BITS[mask & 255]:
            vec[base + i] = 1.0
        mask >>= 8
        base += 8


def encode(eng: SiantappoEngine, seat: int) -> np.ndarray:
    """The observation of ``seat``, from scratch (``Encoder`` must give exactly this)."""
    n = eng.n
    v = np.zeros(layout(eng.cfg).size, dtype=np.float32)
    rm = eng.hands[seat]
    for r in range(13):
        m = rm[r]
        if m:
            for s in range(4):
                if m >> s & 1:
                    v[HAND + 4 * r + s] = 1.0
    rel = [(s - seat) % n for s in range(n)]
    if eng.current >= 0:
        for k in eng.current_keys:
            v[TABLE + k] = 1.0
        v[TABLE_TYPE + ACTION_TYPE[eng.current]] = 1.0
        v[TABLE_LEN] = ACTION_CARD_COUNT[eng.current] / 12.0
        v[TABLE_PLAYER + rel[eng.current_player]] = 1.0
    elif eng.phase != SWAP:
        v[LEAD] = 1.0
    places_now = {s: p + 1 for p, s in enumerate(eng.finish_top)}
    for i, s in enumerate(eng.finish_bottom):
        places_now[s] = n - i
    prev = eng.round_places[-1] if eng.round_places else None
    norm_points = 1.0 / ((n - 1) * eng.cfg.rounds)
    for s in range(n):
        r = rel[s]
        if eng.passed[s]:
            v[PASSED + r] = 1.0
        v[HAND_SIZES + r] = eng.counts[s] / HAND_SIZE_SCALE
        if s in places_now:
            v[FINISHED + r] = places_now[s] / n
        if eng.played[s]:
            _set_mask_bits(v, PLAYED + 52 * r, eng.played[s])
        if prev is not None:
            v[PREV_PLACES + r] = prev[s] / n
        v[MATCH_POINTS + r] = eng.match_points[s] * norm_points
        v[PIGS + r] = eng.pig_counts[s] / eng.cfg.rounds
    for k in eng.swap_given[seat]:
        v[GIVEN + k] = 1.0
    for k in eng.swap_received[seat]:
        v[RECEIVED + k] = 1.0
    v[NUM_PLAYERS + n - 3] = 1.0
    played_rounds = min(eng.round_index, eng.cfg.rounds)
    v[ROUND] = played_rounds / eng.cfg.rounds
    v[ROUNDS_LEFT] = (eng.cfg.rounds - played_rounds) / eng.cfg.rounds
    _write_the_trick(v, eng, seat)
    return v


class Encoder:
    """The observations of one engine, kept up to date as its moves are played.

    Per seat it keeps a vector holding what changes only with the round (the previous places,
    match points, pigs, round counters, the player count) and what only grows during a round: the
    cards played by each seat (from the engine's move log, so each play is written once), the
    seat's hand (a play takes its cards out) and its swap. ``observe`` brings the seat's vector up
    to date, copies it and writes the rest — the table, the current trick, passes, hand sizes,
    places, the swap phase, the acting flag — which is a few entries per step.

    Single entries are written through a ``memoryview`` of the float32 vector: the same float32
    rounding as numpy's item assignment, for less (docs/benchmarks.md, "Observations").

    It reads the engine only, so moves applied to it directly (search) are seen too. A new round
    (a new log), the end of a round or a new engine starts a seat's vector afresh;
    ``observe(seat)`` always equals ``encode(engine, seat)`` (tests/test_encoders.py).
    """

    def __init__(self, engine: SiantappoEngine):
        self.engine = engine
        self._seats: list[_SeatVector | None] = [None] * engine.n

    def observe(self, seat: int) -> np.ndarray:
        eng = self.engine
        sv = self._seats[seat]
        if sv is None or sv.log is not eng.log or sv.round_index != eng.round_index:
            sv = self._seats[seat] = _SeatVector(eng, seat)
        sv.follow(eng)
        v = sv.vec.copy()
        _write_the_step(float_view(v), eng, seat)
        return v


class _SeatVector:
    """One seat's kept vector and how far it has followed the engine's round."""

    __slots__ = ("vec", "mem", "seat", "log", "round_index", "seen", "swapped")

    def __init__(self, eng: SiantappoEngine, seat: int):
        """The round's constants, the hand and the swap; ``follow`` writes the plays."""
        self.vec = v = np.zeros(layout(eng.cfg).size, dtype=np.float32)
        self.mem = float_view(v)  # for item writes (see Encoder)
        self.seat, self.log, self.round_index = seat, eng.log, eng.round_index
        self.seen = 0  # plays of the log written
        n, rounds = eng.n, eng.cfg.rounds
        prev = eng.round_places[-1] if eng.round_places else None
        norm_points = 1.0 / ((n - 1) * rounds)
        for s in range(n):
            r = (s - seat) % n
            if prev is not None:
                v[PREV_PLACES + r] = prev[s] / n
            v[MATCH_POINTS + r] = eng.match_points[s] * norm_points
            v[PIGS + r] = eng.pig_counts[s] / rounds
        v[NUM_PLAYERS + n - 3] = 1.0
        played_rounds = min(eng.round_index, rounds)
        v[ROUND] = played_rounds / rounds
        v[ROUNDS_LEFT] = (rounds - played_rounds) / rounds
        self._write_hand_and_swap(eng)

    def follow(self, eng: SiantappoEngine) -> None:
        """Write the plays since the last call (and the swap, while it goes on)."""
        log, seat = eng.log, self.seat
        if self.seen < len(log):
            mem, n = self.mem, eng.n
            for who, _trick, _action, keys in log[self.seen :]:
                base = PLAYED + 52 * ((who - seat) % n)
                for k in keys:
                    mem[base + k] = 1.0
                if who == seat:
                    for k in keys:
                        mem[HAND + k] = 0.0
            self.seen = len(log)
        if self.swapped != (len(eng.swap_given[seat]), len(eng.swap_received[seat])):
            self._write_hand_and_swap(eng)

    def _write_hand_and_swap(self, eng: SiantappoEngine) -> None:
        """The seat's hand, given and received cards as the engine holds them now."""
        v, seat = self.vec, self.seat
        v[HAND : HAND + 52] = 0.0
        rm = eng.hands[seat]
        for r in range(13):
            m = rm[r]
            if m:
                for s in range(4):
                    if m >> s & 1:
                        v[HAND + 4 * r + s] = 1.0
        for k in eng.swap_given[seat]:
            v[GIVEN + k] = 1.0
        for k in eng.swap_received[seat]:
            v[RECEIVED + k] = 1.0
        self.swapped = (len(eng.swap_given[seat]), len(eng.swap_received[seat]))


def _write_the_step(v: memoryview[float], eng: SiantappoEngine, seat: int) -> None:
    """Write what ``Encoder`` does not keep into ``v``, a copy of the kept vector: the pieces
    that change from one step to the next (all zero in the kept vector)."""
    n = eng.n
    if eng.current >= 0:
        for k in eng.current_keys:
            v[TABLE + k] = 1.0
        v[TABLE_TYPE + ACTION_TYPE[eng.current]] = 1.0
        v[TABLE_LEN] = ACTION_CARD_COUNT[eng.current] / 12.0
        v[TABLE_PLAYER + (eng.current_player - seat) % n] = 1.0
    elif eng.phase != SWAP:
        v[LEAD] = 1.0
    passed, counts = eng.passed, eng.counts
    for s in range(n):
        r = (s - seat) % n
        if passed[s]:
            v[PASSED + r] = 1.0
        v[HAND_SIZES + r] = counts[s] / HAND_SIZE_SCALE
    for p, s in enumerate(eng.finish_top):
        v[FINISHED + (s - seat) % n] = (p + 1) / n
    for i, s in enumerate(eng.finish_bottom):
        v[FINISHED + (s - seat) % n] = (n - i) / n
    _write_the_trick(v, eng, seat)


def _write_the_trick(v, eng: SiantappoEngine, seat: int) -> None:
    """The pieces of a step both encoders write alike: the swap the seat owes, the current
    trick's cards, whether the seat acts, and the trick history (where the config keeps it)."""
    if eng.phase == SWAP and eng.swap_queue[0][0] == seat:
        v[SWAP_PHASE] = 1.0
        v[TO_GIVE] = eng.swap_queue[0][2] / 2.0
    for _who, trick, _action, keys in reversed(eng.log):
        if trick != eng.trick:
            break
        for k in keys:
            v[TRICK_CARDS + k] = 1.0
    if eng.phase != "over" and eng.acting == seat:
        v[ACTING] = 1.0
    if eng.cfg.trick_history:
        scale = 1.0 / (eng.trick + 1)
        for _who, trick, _action, keys in eng.log:
            for k in keys:
                v[TRICKS + k] = (trick + 1) * scale


_HAND = LAYOUT.slice("hand")


def decode_hand(obs: np.ndarray) -> list[int]:
    """Keys of the observing seat's hand."""
    return np.flatnonzero(obs[_HAND]).tolist()
