"""Cards drawn with Pillow: a canvas that draws card faces (rank and suit, red or black), card
backs, and text in which the suit symbols are drawn shapes.

Pillow's default font (``ImageFont.load_default``, bundled with Pillow: nothing is downloaded)
has no ♠ ♣ ♦ ♥ or →, so those are drawn as anti-aliased shapes wherever they appear in a text;
the few other symbols it lacks are written plainly (``PLAIN``). ``envs/picture.py`` lays a whole
table out with this canvas.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

CARD_W, CARD_H = 46, 66  # a card on the table
SMALL_W, SMALL_H = 30, 42  # a card in a player's hand
PAPER = (250, 248, 240)
EDGE = (120, 120, 110)
INK = (24, 24, 24)
RED = (200, 20, 46)
JOKER_INK = (120, 40, 150)
BACK = (38, 72, 156)
BACK_INNER = (70, 110, 200)

SUITS = "♠♣♦♥"
RED_SUITS = "♦♥"
ARROW = "→"
DRAWN = SUITS + ARROW  # symbols drawn as shapes
PLAIN = {"×": "x", "—": "-", "–": "-", "🐷": ""}  # symbols the font lacks, written plainly
JOKER_TEXT = "Jk"
_SS = 4  # supersampling of the drawn symbols


@cache
def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's bundled default font at ``size`` pixels."""
    return ImageFont.load_default(size=size)


@cache
def _cap(size: int) -> tuple[int, int]:
    """(top, height) of a capital letter of ``font(size)``, from the text's anchor."""
    _, top, _, bottom = font(size).getbbox("A")
    return int(top), int(bottom - top)


def _shape(draw: ImageDraw.ImageDraw, symbol: str, s: float) -> None:
    """``symbol`` in white on a black ``s`` x ``s`` mask."""

    def circle(cx, cy, r):
        draw.ellipse(((cx - r) * s, (cy - r) * s, (cx + r) * s, (cy + r) * s), fill=255)

    def poly(*points):
        draw.polygon([(x * s, y * s) for x, y in points], fill=255)

    if symbol == "♦":
        poly((0.5, 0.0), (0.9, 0.5), (0.5, 1.0), (0.1, 0.5))
    elif symbol == "♥":
        circle(0.28, 0.32, 0.25), circle(0.72, 0.32, 0.25)
        poly((0.04, 0.40), (0.96, 0.40), (0.5, 0.96))
    elif symbol == "♠":
        circle(0.29, 0.58, 0.23), circle(0.71, 0.58, 0.23)
        poly((0.5, 0.02), (0.07, 0.55), (0.93, 0.55))
        poly((0.5, 0.62), (0.30, 0.98), (0.70, 0.98))
    elif symbol == "♣":
        circle(0.5, 0.27, 0.22), circle(0.26, 0.60, 0.22), circle(0.74, 0.60, 0.22), circle(0.5, 0.55, 0.12)
        poly((0.5, 0.55), (0.32, 0.98), (0.68, 0.98))
    elif symbol == ARROW:
        poly((0.05, 0.42), (0.6, 0.42), (0.6, 0.58), (0.05, 0.58))
        poly((0.55, 0.22), (0.98, 0.5), (0.55, 0.78))


@cache
def symbol_mask(symbol: str, size: int) -> Image.Image:
    """An anti-aliased ``size`` x ``size`` mask of a suit (or the arrow)."""
    big = Image.new("L", (size * _SS, size * _SS), 0)
    _shape(ImageDraw.Draw(big), symbol, size * _SS)
    return big.resize((size, size), Image.Resampling.LANCZOS)


def plain(text: str) -> str:
    """``text`` with the symbols the font lacks written plainly."""
    for symbol, instead in PLAIN.items():
        text = text.replace(symbol, instead)
    return text


def _runs(text: str) -> list[str]:
    """``text`` split into drawn symbols and the plain runs between them."""
    runs, run = [], ""
    for ch in plain(text):
        if ch in DRAWN:
            runs += [run, ch] if run else [ch]
            run = ""
        else:
            run += ch
    return runs + [run] if run else runs


def _symbol_size(size: int) -> int:
    return max(6, round(_cap(size)[1] * 1.15))


def text_width(text: str, size: int) -> int:
    """Width in pixels of ``text`` as ``Canvas.text`` draws it."""
    width = 0.0
    for run in _runs(text):
        width += _symbol_size(size) + 1 if run in DRAWN else font(size).getlength(run)
    return round(width)


def fit(text: str, size: int, width: int) -> str:
    """``text``, cut with "…" so that it is at most ``width`` pixels wide."""
    if text_width(text, size) <= width:
        return text
    while text and text_width(text + "…", size) > width:
        text = text[:-1]
    return text.rstrip() + "…" if text else ""


def wrap(text: str, size: int, width: int, max_lines: int) -> list[str]:
    """``text`` broken at spaces into at most ``max_lines`` lines of ``width`` pixels (the last cut)."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        candidate = f"{line} {word}" if line else word
        if line and text_width(candidate, size) > width:
            lines.append(line)
            line = word
        else:
            line = candidate
    lines.append(line)
    if len(lines) > max_lines:
        lines = lines[: max_lines - 1] + [" ".join(lines[max_lines - 1 :])]
    return [fit(x, size, width) for x in lines]


def card_parts(card: str) -> tuple[str, str]:
    """(rank, suit) of a card text: ``10♦`` -> ("10", "♦"); a joker -> ("Jk", "")."""
    if card and card[-1] in SUITS:
        return card[:-1], card[-1]
    return card, ""


class Canvas:
    """An RGB image being drawn on, with card and text helpers; ``array()`` is the frame."""

    def __init__(self, width: int, height: int, background):
        self.img = Image.new("RGB", (width, height), background)
        self.draw = ImageDraw.Draw(self.img)

    def array(self) -> np.ndarray:
        """The image as an H x W x 3 uint8 array."""
        return np.array(self.img, dtype=np.uint8)

    def box(self, x: int, y: int, w: int, h: int, fill, outline=None, width: int = 1, radius: int = 8) -> None:
        self.draw.rounded_rectangle((x, y, x + w - 1, y + h - 1), radius, fill=fill, outline=outline, width=width)

    def symbol(self, symbol: str, x: int, y: int, size: int, color) -> None:
        self.img.paste(color, (x, y), symbol_mask(symbol, size))

    def text(self, x: int, y: int, text: str, size: int, color, red=RED) -> int:
        """Draw ``text`` with its top at ``y``: suits as shapes (♦ ♥ in ``red``). Its width."""
        top, cap = _cap(size)
        sym = _symbol_size(size)
        cx = float(x)
        for run in _runs(text):
            if run in DRAWN:
                tint = red if run in RED_SUITS else color
                self.symbol(run, round(cx), y + top + (cap - sym) // 2, sym, tint)
                cx += sym + 1
            else:
                self.draw.text((cx, y), run, font=font(size), fill=color)
                cx += font(size).getlength(run)
        return round(cx) - x

    def card(self, x: int, y: int, card: str, w: int = CARD_W, h: int = CARD_H) -> None:
        """A card face: the rank and a small suit in the corner, a large suit in the middle."""
        self.box(x, y, w, h, PAPER, EDGE, radius=max(3, w // 8))
        rank, suit = card_parts(card)
        ink = JOKER_INK if not suit else RED if suit in RED_SUITS else INK
        rank_size = max(9, h * 15 // 66)
        self.draw.text((x + 3, y + 2), rank, font=font(rank_size), fill=ink)
        if not suit:
            self._star(x + w / 2, y + h * 0.6, w * 0.3, ink)
            return
        corner = max(6, rank_size * 2 // 3)
        self.symbol(
            suit,
            x + 3 + (text_width(rank, rank_size) - corner) // 2 if len(rank) > 1 else x + 3,
            y + 4 + rank_size,
            corner,
            ink,
        )
        big = w * 11 // 20
        self.symbol(suit, x + w - big - w // 7, y + h - big - h // 9, big, ink)

    def _star(self, cx: float, cy: float, r: float, color) -> None:
        points = []
        for i in range(10):
            radius = r if i % 2 == 0 else r * 0.42
            angle = np.pi / 2 + i * np.pi / 5
            points.append((cx + radius * np.cos(angle), cy - radius * np.sin(angle)))
        self.draw.polygon(points, fill=color)

    def back(self, x: int, y: int, w: int = SMALL_W, h: int = SMALL_H) -> None:
        """A card face down."""
        self.box(x, y, w, h, BACK, PAPER, radius=max(3, w // 8))
        inset = max(3, w // 8)
        self.box(x + inset, y + inset, w - 2 * inset, h - 2 * inset, BACK_INNER, radius=max(2, w // 12))
        cx, cy, r = x + w / 2, y + h / 2, w / 5
        self.draw.polygon([(cx, cy - r), (cx + r, cy), (cx, cy + r), (cx - r, cy)], fill=PAPER)
