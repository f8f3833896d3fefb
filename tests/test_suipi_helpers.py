"""Helpers for the Suipi tests (no tests here): build engine positions from card text."""

from __future__ import annotations

import random

from cardzoo.envs.cards import parse_card, parse_cards
from cardzoo.envs.suipi.actions import BUILD, CAPTURE, DROP
from cardzoo.envs.suipi.config import SuipiConfig
from cardzoo.envs.suipi.engine import CARD_KEY, NVAL_11, NVAL_23, SuipiEngine


def C(text: str) -> int:
    return parse_card(text)


def loose(text: str, point_game: int = 11):
    c = C(text)
    nv = NVAL_23 if point_game == 23 else NVAL_11
    return (CARD_KEY[c], nv[c], (c,), -1, False, c)


def build(texts: str, value: int, owner: int, locked: bool = False):
    cards = tuple(parse_cards(texts))
    return (value, value, cards, owner, locked, min(cards))


def position(hands, floor, turn=0, config=None, stock=None, **cfg) -> SuipiEngine:
    """An engine in the middle of a deal: ``hands`` = list of card strings per seat,
    ``floor`` = list of items (card text for a loose card, or a ``build(...)`` tuple)."""
    config = config or SuipiConfig(**cfg)
    e = SuipiEngine(config, random.Random(0))
    e.start_match()
    e.hands = [parse_cards(h) if h else [] for h in hands]
    e.floor = [loose(it, config.point_game) if isinstance(it, str) else it for it in floor]
    used = {c for h in e.hands for c in h} | {c for it in e.floor for c in it[2]}
    rest = [c for c in range(52) if c not in used]
    if stock is None:
        stock = []
        pile = rest
    else:
        stock = parse_cards(stock) if stock else []
        pile = [c for c in rest if c not in stock]
    e.stock, e.top = list(stock), 0
    e.captured = [[] for _ in range(e.ns)]
    e.captured[0] = pile  # park everything else as captured by side 0 so 52 cards are accounted
    e.turn = turn
    e.dealer = (turn - 1) % e.n
    e.round = len(config.deal_sizes) - 1 if not stock else 0
    e._legal = None
    return e


def moves_of(e, card: str, kind=None):
    """Legal moves of the acting seat with hand card ``card`` as sets of floor card texts."""
    from cardzoo.envs.cards import card_str

    c = C(card)
    out = set()
    for h, mask, k, v in e.legal_moves():
        if h != c or (kind is not None and k != kind):
            continue
        cards = frozenset(card_str(x) for i, it in enumerate(e.floor) if mask >> i & 1 for x in it[2])
        out.add((k, cards, v))
    return out


def find_move(e, card: str, items, kind, v=0):
    """The legal move playing ``card`` with the floor items containing the given cards."""
    c = C(card)
    want = {C(t) for t in items}
    mask = 0
    for i, it in enumerate(e.floor):
        if want & set(it[2]):
            mask |= 1 << i
    mv = (c, mask, kind, v)
    assert mv in e.legal_moves(), f"{mv} not legal; legal: {[e.move_text(m) for m in e.legal_moves()]}"
    return mv


__all__ = ["C", "loose", "build", "position", "moves_of", "find_move", "CAPTURE", "BUILD", "DROP"]
