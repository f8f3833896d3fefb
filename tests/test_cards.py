"""The shared card model: ids, printing, parsing with aliases, stacked-deck validation."""

import pytest

from cardzoo.envs.cards import (
    JOKERS,
    card_str,
    cards_str,
    make_card,
    parse_card,
    parse_cards,
    rank_of,
    standard_deck,
    suit_of,
    validate_deck,
)


def test_ids_roundtrip_through_text():
    for c in standard_deck():
        assert parse_card(card_str(c)) == c
        assert make_card(rank_of(c), suit_of(c)) == c
    assert card_str(make_card(9, 2)) == "10♦"
    assert card_str(make_card(11, 0)) == "Q♠"
    assert card_str(JOKERS[1]) == "Jk"


@pytest.mark.parametrize(
    "text,expected",
    [
        ("10♦", "10♦"),
        ("10d", "10♦"),
        ("Td", "10♦"),
        ("td", "10♦"),
        ("Qs", "Q♠"),
        ("q♠", "Q♠"),
        ("Ah", "A♥"),
        ("2c", "2♣"),
        (" 7H ", "7♥"),
        ("Jk", "Jk"),
        ("joker", "Jk"),
    ],
)
def test_parse_aliases(text, expected):
    assert card_str(parse_card(text)) == expected


@pytest.mark.parametrize("text,reason", [("", "empty"), ("11h", "rank"), ("Qx", "suit"), ("10", "suit")])
def test_parse_errors_are_one_line(text, reason):
    with pytest.raises(ValueError, match=reason) as e:
        parse_card(text)
    assert "\n" not in str(e.value)


def test_parse_many_and_jokers():
    assert cards_str(parse_cards("7h, 7s 10d")) == "7♥ 7♠ 10♦"
    assert parse_cards(["Jk", "Jk", "Jk"], allow_jokers=True) == list(JOKERS)
    with pytest.raises(ValueError, match="no jokers"):
        parse_cards("Jk")
    with pytest.raises(ValueError, match="too many jokers"):
        parse_cards(["Jk"] * 4, allow_jokers=True)


def test_validate_deck():
    deck = [card_str(c) for c in standard_deck(with_jokers=True)]
    assert validate_deck(deck, 55, allow_jokers=True) == list(range(55))
    with pytest.raises(ValueError, match="missing: Jk"):
        validate_deck(deck[:-1], 55, allow_jokers=True)
    with pytest.raises(ValueError, match="duplicated: A♠; missing: K♥"):
        validate_deck(deck[:51] + ["As"], 52)
    with pytest.raises(ValueError, match="list of card strings"):
        validate_deck("As Ks", 52)
