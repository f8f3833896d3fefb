"""Observation layouts: a game's observation vector declared once, as a list of named pieces.

Every game's ``encoding.py`` declares ``LAYOUT = Layout([Piece(name, size, doc), ...])``; the
offsets its encoder writes to, the table in ``docs/<game>.md`` and the generic decoder all come
from that one list, so they cannot drift apart (tests/test_contract.py checks the docs table and
that the layout's size is the observation space's)::

    LAYOUT = Layout([
        Piece("hand", 52, "own hand"),
        Piece("played", 4 * 52, "cards played, 52 per relative seat", blocks=4),
        Piece("num_players", 3, "number of players one-hot (2, 3, 4)"),
    ])
    LAYOUT.offset("played")        # 52
    LAYOUT.slice("num_players")    # slice(260, 263)
    LAYOUT.size                    # 263
    LAYOUT.decode(obs)["played"]   # a (4, 52) view of obs[52:260]
    print(LAYOUT.table())          # the markdown table of docs/<game>.md

Pure Python apart from ``decode`` (numpy).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:

    def float_view(vector: np.ndarray) -> memoryview[float]:
        """A memoryview of a float32 vector, whose items are floats."""
else:
    # The encoders write single entries of their float32 vectors through a memoryview (cheaper
    # than numpy's item writes, the same float32 rounding). At run time this is memoryview itself,
    # so the hot paths call nothing more; the type checker sees float items (numpy's stubs give an
    # array the buffer protocol only from Python 3.12).
    float_view = memoryview


@dataclass(frozen=True)
class Piece:
    """``size`` consecutive values of an observation, called ``name``, meaning ``doc``.

    ``blocks`` > 1 says the piece is that many equal blocks (one per relative seat, side, …):
    ``decode`` then shapes it ``(blocks, size // blocks)`` and the table shows ``blocks×width``.
    """

    name: str
    size: int
    doc: str
    blocks: int = 1

    def __post_init__(self):
        if not self.name.isidentifier():
            raise ValueError(f"piece name must be an identifier, got {self.name!r}")
        if isinstance(self.size, bool) or not isinstance(self.size, int) or self.size < 1:
            raise ValueError(f"piece {self.name!r}: size must be a positive integer, got {self.size!r}")
        if (
            isinstance(self.blocks, bool)
            or not isinstance(self.blocks, int)
            or self.blocks < 1
            or self.size % self.blocks
        ):
            raise ValueError(f"piece {self.name!r}: blocks must divide size {self.size}, got {self.blocks!r}")
        if "|" in self.doc or "\n" in self.doc:
            raise ValueError(f"piece {self.name!r}: doc must be one line without '|' (it is a table cell)")

    @property
    def width(self) -> int:
        """Values per block (``size`` when the piece is one block)."""
        return self.size // self.blocks


class Layout:
    """The pieces of an observation vector, in order, from offset 0."""

    def __init__(self, pieces: Iterable[Piece]):
        self.pieces: tuple[Piece, ...] = tuple(pieces)
        self._offsets: dict[str, int] = {}
        self._pieces: dict[str, Piece] = {}
        at = 0
        for p in self.pieces:
            if not isinstance(p, Piece):
                raise TypeError(f"a layout is made of Piece objects, got {p!r}")
            if p.name in self._offsets:
                raise ValueError(f"piece {p.name!r} is declared twice")
            self._offsets[p.name] = at
            self._pieces[p.name] = p
            at += p.size
        self.size: int = at

    # ------------------------------------------------------------------ offsets
    def piece(self, name: str) -> Piece:
        try:
            return self._pieces[name]
        except KeyError:
            raise KeyError(f"no piece {name!r}; pieces are: {', '.join(self.names)}") from None

    def offset(self, name: str) -> int:
        """Index of the piece's first value."""
        self.piece(name)
        return self._offsets[name]

    def slice(self, name: str) -> slice:
        start = self.offset(name)
        return slice(start, start + self._pieces[name].size)

    def name_at(self, index: int) -> str:
        """The piece that holds value ``index``."""
        if not 0 <= index < self.size:
            raise IndexError(f"index {index} is outside the layout (size {self.size})")
        for p in self.pieces:
            if index < self._offsets[p.name] + p.size:
                return p.name
        raise AssertionError("unreachable")

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.pieces]

    def __contains__(self, name: object) -> bool:
        return name in self._pieces

    def __iter__(self) -> Iterator[Piece]:
        return iter(self.pieces)

    def __len__(self) -> int:
        return len(self.pieces)

    def __repr__(self) -> str:
        return f"Layout({len(self.pieces)} pieces, size {self.size})"

    def extend(self, pieces: Iterable[Piece]) -> Layout:
        """This layout with ``pieces`` appended (the offsets of the existing pieces stay)."""
        return Layout(self.pieces + tuple(pieces))

    # ------------------------------------------------------------------ docs and decoding
    def table(self) -> str:
        """The layout as a markdown table (header included): offsets, size, piece, meaning."""
        rows = ["| offsets | size | piece | meaning |", "|---|---|---|---|"]
        for p in self.pieces:
            start = self._offsets[p.name]
            where = str(start) if p.size == 1 else f"{start}–{start + p.size - 1}"
            size = f"{p.blocks}×{p.width}" if p.blocks > 1 else str(p.size)
            rows.append(f"| {where} | {size} | `{p.name}` | {p.doc} |")
        return "\n".join(rows)

    def decode(self, vector) -> dict[str, np.ndarray]:
        """``{name: the piece's values}`` (views of ``vector``; a piece of several blocks is
        shaped ``(blocks, width)``). ValueError if ``vector`` is not of this layout's size."""
        v = np.asarray(vector)
        if v.shape != (self.size,):
            raise ValueError(f"expected a vector of {self.size} values, got shape {v.shape}")
        out = {}
        for p in self.pieces:
            part = v[self.slice(p.name)]
            out[p.name] = part.reshape(p.blocks, p.width) if p.blocks > 1 else part
        return out
