"""Card model shared by all games: small integer ids, parsing and printing.

Card id = 4 * rank_index + suit_index for the 52 standard cards, where rank_index is
0=A, 1=2, ..., 9=10, 10=J, 11=Q, 12=K and suit_index is 0=♠, 1=♣, 2=♦, 3=♥
(the suit order of docs/rules/README.md). Jokers (Sam Sip) are ids 52, 53, 54 and print as ``Jk``.
Games that order cards differently (Siantappo: 3 low, 2 high) keep their own key tables.
"""

from __future__ import annotations

from cardzoo.envs.config import integer
from cardzoo.envs.errors import UserError

RANK_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUIT_SYMBOLS = ("♠", "♣", "♦", "♥")
SUIT_LETTERS = ("s", "c", "d", "h")
NUM_STANDARD = 52
JOKERS = (52, 53, 54)
JOKER_TEXT = "Jk"

_RANK_ALIASES = {name.lower(): i for i, name in enumerate(RANK_NAMES)}
_RANK_ALIASES.update({"t": 9, "1": 0, "ace": 0, "jack": 10, "queen": 11, "king": 12})
_SUIT_ALIASES = {s: i for i, s in enumerate(SUIT_SYMBOLS)}
_SUIT_ALIASES.update({s: i for i, s in enumerate(SUIT_LETTERS)})
_SUIT_ALIASES.update({"♤": 0, "♧": 1, "♢": 2, "♡": 3})


def rank_of(card: int) -> int:
    """Rank index 0..12 (A..K) of a standard card."""
    return card >> 2


def suit_of(card: int) -> int:
    """Suit index 0..3 (♠ ♣ ♦ ♥) of a standard card."""
    return card & 3


def make_card(rank: int, suit: int) -> int:
    return 4 * rank + suit


def card_str(card: int) -> str:
    """Print a card as ``10♦``, ``Q♠`` or ``Jk``."""
    if card >= NUM_STANDARD:
        return JOKER_TEXT
    return RANK_NAMES[card >> 2] + SUIT_SYMBOLS[card & 3]


def cards_str(cards) -> str:
    return " ".join(card_str(c) for c in cards)


def parse_card(text: str) -> int:
    """Parse one card: ``10♦``, ``10d``, ``Td``, ``q♠``, ``Qs``; ``Jk`` gives joker id 52.

    Raises ValueError with a one-line reason.
    """
    t = text.strip()
    if not t:
        raise UserError("empty card text")
    if t.lower() in ("jk", "joker", "jo", "🃏"):
        return JOKERS[0]
    rank_part, suit_part = t[:-1].lower(), t[-1].lower()
    if suit_part not in _SUIT_ALIASES:
        raise UserError(f"{text!r} is not a card: suit must be one of ♠♣♦♥ or s c d h")
    if rank_part not in _RANK_ALIASES:
        raise UserError(f"{text!r} is not a card: rank must be one of A 2-10 J Q K (or T for 10)")
    return make_card(_RANK_ALIASES[rank_part], _SUIT_ALIASES[suit_part])


def parse_cards(texts, *, allow_jokers: bool = False) -> list[int]:
    """Parse many cards (a list of strings, or one whitespace/comma separated string).

    Successive jokers get the distinct ids 52, 53, 54.
    """
    if isinstance(texts, str):
        texts = texts.replace(",", " ").split()
    out: list[int] = []
    jokers_seen = 0
    for t in texts:
        c = parse_card(str(t))
        if c >= NUM_STANDARD:
            if not allow_jokers:
                raise UserError(f"{t!r}: this game has no jokers")
            if jokers_seen >= len(JOKERS):
                raise UserError(f"too many jokers: the deck has {len(JOKERS)}")
            c = JOKERS[jokers_seen]
            jokers_seen += 1
        out.append(c)
    return out


MAX_NAMED = 10  # unreadable cards a deck's error names before "and N more"


def validate_deck(texts, deck_size: int, *, allow_jokers: bool = False) -> list[int]:
    """Parse a stacked deck and check it is exactly the game's cards, each once.

    A card is a name (``"10♦"``, ``"Qs"``, ``"Jk"``) or a card id 0..deck_size-1 (an integer, as
    ``record_header()["deck"]`` stores it, so a record's deck deals again as it is).
    The error message names the unparseable, duplicated and missing cards.
    """
    if isinstance(texts, (str, bytes, dict)) or not hasattr(texts, "__iter__"):
        raise UserError("deck must be a list of card strings such as ['3♣', '10d', 'Qs'] (or card ids)")
    texts = list(texts)
    bad, cards = [], []
    for t in texts:
        card = _deck_card(t, deck_size)
        if card is None:
            bad.append(str(t))
        else:
            cards.append(card)
    if bad:
        shown = ", ".join(bad[:MAX_NAMED]) + (f" and {len(bad) - MAX_NAMED} more" if len(bad) > MAX_NAMED else "")
        raise UserError(f"deck has unreadable cards: {shown} (a card is a name like '10♦' or an id 0..{deck_size - 1})")
    # Jokers are interchangeable: number them in order of appearance.
    jokers = iter(JOKERS)
    numbered = []
    for c in cards:
        if c >= NUM_STANDARD:
            if not allow_jokers:
                raise UserError("deck has jokers, but this game is played without them")
            joker = next(jokers, None)
            if joker is None:
                raise UserError(f"deck has more than {len(JOKERS)} jokers")
            c = joker
        numbered.append(c)
    seen, dups = set(), []
    for c in numbered:
        if c in seen:
            dups.append(card_str(c))
        seen.add(c)
    full = set(range(deck_size))
    missing = sorted(full - seen)
    problems = []
    if dups:
        problems.append("duplicated: " + " ".join(dups))
    if missing:
        problems.append("missing: " + cards_str(missing))
    if len(numbered) != deck_size and not problems:
        problems.append(f"{len(numbered)} cards given")
    if problems:
        raise UserError(f"deck must be {deck_size} distinct cards; " + "; ".join(problems))
    return numbered


def _deck_card(card, deck_size: int) -> int | None:
    """A stacked deck's card: an id below ``deck_size``, or a card name; None if it is neither."""
    if not isinstance(card, str):
        card_id = integer(card)
        return card_id if card_id is not None and 0 <= card_id < deck_size else None
    try:
        return parse_card(card)
    except ValueError:
        return None


def standard_deck(with_jokers: bool = False) -> list[int]:
    return list(range(NUM_STANDARD + (len(JOKERS) if with_jokers else 0)))
