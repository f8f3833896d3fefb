"""envs/layout.py: an observation declared once as named pieces."""

from __future__ import annotations

import numpy as np
import pytest

from cardzoo.envs.layout import Layout, Piece

LAYOUT = Layout(
    [
        Piece("hand", 4, "own hand"),
        Piece("seen", 3 * 2, "seen by relative seat 0..2", blocks=3),
        Piece("acting", 1, "1 if this seat acts"),
    ]
)


def test_offsets_slices_and_size():
    assert LAYOUT.size == 11 and len(LAYOUT) == 3 and LAYOUT.names == ["hand", "seen", "acting"]
    assert [LAYOUT.offset(p.name) for p in LAYOUT] == [0, 4, 10]
    assert LAYOUT.slice("seen") == slice(4, 10) and LAYOUT.piece("seen").width == 2
    assert [LAYOUT.name_at(i) for i in (0, 3, 4, 9, 10)] == ["hand", "hand", "seen", "seen", "acting"]
    assert "seen" in LAYOUT and "nope" not in LAYOUT
    with pytest.raises(KeyError, match="pieces are: hand, seen, acting"):
        LAYOUT.offset("nope")
    with pytest.raises(IndexError):
        LAYOUT.name_at(11)


def test_extend_keeps_the_offsets():
    longer = LAYOUT.extend([Piece("extra", 2, "only with a flag")])
    assert longer.size == 13 and longer.offset("extra") == 11
    assert all(longer.offset(p.name) == LAYOUT.offset(p.name) for p in LAYOUT)


def test_table_and_decode():
    assert LAYOUT.table().split("\n") == [
        "| offsets | size | piece | meaning |",
        "|---|---|---|---|",
        "| 0–3 | 4 | `hand` | own hand |",
        "| 4–9 | 3×2 | `seen` | seen by relative seat 0..2 |",
        "| 10 | 1 | `acting` | 1 if this seat acts |",
    ]
    v = np.arange(11, dtype=np.float32)
    parts = LAYOUT.decode(v)
    assert list(parts) == LAYOUT.names
    assert parts["hand"].tolist() == [0, 1, 2, 3] and parts["seen"].shape == (3, 2)
    assert parts["seen"][2].tolist() == [8, 9] and parts["acting"].tolist() == [10]
    with pytest.raises(ValueError, match="11 values"):
        LAYOUT.decode(np.zeros(12))


@pytest.mark.parametrize(
    "bad",
    [
        lambda: Piece("two words", 1, "x"),
        lambda: Piece("a", 0, "x"),
        lambda: Piece("a", 5, "x", blocks=2),
        lambda: Piece("a", 1, "a | b"),
        lambda: Layout([Piece("a", 1, "x"), Piece("a", 2, "y")]),
    ],
)
def test_bad_declarations_are_refused(bad):
    with pytest.raises(ValueError, match="piece"):
        bad()
