"""The table as a picture: a seat view (``envs/seatview.py``) drawn into an RGB frame.

``picture(view)`` draws any game's view with no per-game code, in a frame of fixed size
(``WIDTH`` x ``HEIGHT``, so a video of a match has one frame size): the title, status and public
facts; one panel per player (name, side, status, facts, the hand face down with its count and the
cards everybody knows are in it, the seat to move outlined); the table's zones (Suipi's floor,
Sam Sip's indicator, wild cards and discard, Siantappo's combination); the score table; and the
last summary (or the match result). The envs draw the public view (``seatview.public_view``), so
a picture shows only what a spectator may see.
"""

from __future__ import annotations

import math

import numpy as np

from cardzoo.envs.card_art import (
    CARD_H,
    CARD_W,
    SMALL_H,
    SMALL_W,
    Canvas,
    fit,
    text_width,
    wrap,
)

WIDTH, HEIGHT = 960, 720
MARGIN, GAP = 16, 8
PANEL_H = 118
BOTTOM_H = 236  # the score table and the summary
FOOTER_H = 28
FELT = (22, 94, 54)
PANEL = (14, 68, 40)
LIGHT = (240, 238, 224)
DIM = (168, 198, 176)
GOLD = (244, 200, 70)
PINK = (255, 128, 128)  # ♦ ♥ written on the felt
OUT = (60, 90, 70)
STEP = 20  # card to card in a group on the table
ROW_H = 18 + CARD_H + 4 + 2 * 14


def picture(view: dict, footer: str | None = None) -> np.ndarray:
    """The frame of ``view`` (H x W x 3 uint8); ``footer`` replaces the line saying who moves."""
    c = Canvas(WIDTH, HEIGHT, FELT)
    _header(c, view)
    top = _players(c, view, 52)
    bottom = HEIGHT - FOOTER_H - BOTTOM_H
    _table(c, view["table"], top + GAP, bottom - GAP)
    left = _scores_width(view)
    _grid(c, view["scores"], MARGIN, bottom, left, BOTTOM_H - GAP)
    right = WIDTH - 2 * MARGIN - left - 2 * GAP
    _summary(c, view, WIDTH - MARGIN - right, bottom, right, BOTTOM_H - GAP)
    _footer(c, footer if footer is not None else _turn_line(view))
    return c.array()


def blank_picture(title: str, line: str) -> np.ndarray:
    """A frame with only a title and one line (an env not started yet)."""
    c = Canvas(WIDTH, HEIGHT, FELT)
    c.text(MARGIN, 12, title, 26, LIGHT)
    c.text(MARGIN, 52, line, 16, DIM)
    return c.array()


def _turn_line(view: dict) -> str:
    if view["over"] or view["turn"] is None:
        return "The match is over."
    return f"player_{view['turn']} to move"


def _header(c: Canvas, v: dict) -> None:
    x = MARGIN + c.text(MARGIN, 10, v["title"], 26, LIGHT)
    c.text(x + 16, 20, v["status"], 16, DIM, PINK)
    facts = "  ·  ".join(f"{k} {val}" for k, val in v["facts"])
    c.text(WIDTH - MARGIN - text_width(facts, 15), 21, facts, 15, LIGHT, PINK)


def _players(c: Canvas, v: dict, top: int) -> int:
    """One panel per seat, in rows of up to four (three from five players); the bottom edge."""
    players = v["players"]
    cols = len(players) if len(players) <= 4 else 3
    w = (WIDTH - 2 * MARGIN - GAP * (cols - 1)) // cols
    for i, p in enumerate(players):
        row, col = divmod(i, cols)
        _panel(c, p, p["seat"] == v["turn"], MARGIN + col * (w + GAP), top + row * (PANEL_H + GAP), w)
    rows = math.ceil(len(players) / cols)
    return top + rows * (PANEL_H + GAP) - GAP


def _panel(c: Canvas, p: dict, to_move: bool, x: int, y: int, w: int) -> None:
    c.box(x, y, w, PANEL_H, PANEL, GOLD if to_move else None, width=3)
    ink = DIM if p["out"] else LIGHT
    name = p["name"] + (f" · side {p['team']}" if p.get("team") else "")
    nx = x + 10 + c.text(x + 10, y + 8, name, 16, ink)
    tag = "to move" if to_move else ""
    if to_move:
        c.box(x + w - 74, y + 7, 64, 20, GOLD, radius=6)
        c.text(x + w - 68, y + 10, tag, 13, PANEL)
    if p.get("status"):
        room = w - (nx - x) - (90 if to_move else 20)
        c.text(nx + 10, y + 10, fit(p["status"], 13, max(room, 0)), 13, GOLD)
    facts = "  ·  ".join(f"{k} {val}" for k, val in p["facts"])
    for k, line in enumerate(wrap(facts, 13, w - 20, 2) if facts else []):
        c.text(x + 10, y + 32 + 17 * k, line, 13, DIM, PINK)
    _hand(c, p, x + 10, y + PANEL_H - SMALL_H - 8, w - 20)


def _hand(c: Canvas, p: dict, x: int, y: int, w: int) -> None:
    """The hand face down (the cards everybody knows face up, first), then its count."""
    count = p["cards"]
    if count == 0:
        c.text(x, y + 14, "no cards", 13, DIM)
        return
    known = list(p.get("known", []))[:count]
    for card in known:  # side by side, so each can be read
        c.card(x, y, card, SMALL_W, SMALL_H)
        x += SMALL_W + 3
        w -= SMALL_W + 3
    hidden = count - len(known)
    label = f"{count} card{'s' if count != 1 else ''}"
    room = w - text_width(label, 13) - 10 - SMALL_W
    step = min(14, room // max(hidden - 1, 1)) if hidden > 1 else 0
    for i in range(hidden):
        c.back(x + i * step, y)
    c.text(x + max(hidden - 1, 0) * step + (SMALL_W + 8 if hidden else 5), y + 14, label, 13, LIGHT)


def _item_width(item: dict) -> int:
    n = len(item["cards"])
    if n == 0:
        return text_width(item["caption"], 16) + 8
    cards = CARD_W + STEP * (n - 1)
    return max(cards, min(text_width(item["caption"], 12), 120))


def _table(c: Canvas, zones: list, top: int, bottom: int) -> None:
    """The zones left to right, each a label over its items, wrapping into rows; what does not
    fit is counted."""
    x, y = MARGIN, top
    items = [(z["label"], k == 0, it) for z in zones for k, it in enumerate(z["items"] or [{}])]
    for i, (label, first, item) in enumerate(items):
        w = max(_item_width(item) if item else 0, text_width(label, 14) if first else 0)
        if x > MARGIN and x + w > WIDTH - MARGIN:
            x, y = MARGIN, y + ROW_H + GAP
        if y + ROW_H > bottom:
            c.text(WIDTH - MARGIN - 90, bottom - 16, f"+{len(items) - i} more", 14, GOLD)
            return
        if first:
            c.text(x, y, label, 14, GOLD)
        if item:
            _item(c, item, x, y + 18, w)
        x += w + (28 if i + 1 < len(items) and items[i + 1][1] else 12)


def _item(c: Canvas, item: dict, x: int, y: int, w: int) -> None:
    if not item["cards"]:
        c.text(x, y + CARD_H // 2 - 8, item["caption"], 16, LIGHT, PINK)
        return
    for k, card in enumerate(item["cards"]):
        c.card(x + k * STEP, y, card)
    for k, line in enumerate(wrap(item["caption"], 12, w, 2) if item["caption"] else []):
        c.text(x, y + CARD_H + 4 + 14 * k, line, 12, LIGHT, PINK)


def _scores_width(v: dict) -> int:
    """The score table's box: as wide as its text at full size, at least 240 pixels; when the
    summary is a table too, the two share the band in proportion to what they need."""
    room = WIDTH - 2 * MARGIN - 2 * GAP
    left = max(240, _grid_width(_rows(v["scores"]), 14) + 20) if v["scores"] else 240
    s = v["result"] or v["summary"]
    right = _grid_width(_rows(s), 12) + 20 if s and not s["lines"] else 320
    if left + right > room:
        return room * left // (left + right)
    return left


def _rows(grid: dict) -> list:
    return [grid["columns"]] + grid["rows"]


def _grid(c: Canvas, grid: dict | None, x: int, y: int, w: int, h: int) -> None:
    """A small table of text, in the largest font size (14 down to 9) that fits the box."""
    if not grid:
        return
    c.box(x, y, w, h, PANEL)
    rows = _rows(grid)
    size = 14
    while size > 9 and (_grid_width(rows, size) > w - 20 or 30 + (size + 4) * len(rows) > h):
        size -= 1
    c.text(x + 10, y + 6, fit(grid["title"], 14, w - 20), 14, GOLD)
    widths = _column_widths(rows, size)
    for r, row in enumerate(rows[: (h - 30) // (size + 4)]):
        cx = x + 10
        for cell, cw in zip(row, widths):
            c.text(cx, y + 26 + r * (size + 4), fit(cell, size, x + w - 10 - cx), size, DIM if r == 0 else LIGHT, PINK)
            cx += cw


def _column_widths(rows: list, size: int) -> list[int]:
    return [max(text_width(row[k], size) for row in rows if k < len(row)) + 14 for k in range(len(rows[0]))]


def _grid_width(rows: list, size: int) -> int:
    return sum(_column_widths(rows, size)) - 14


def _summary(c: Canvas, v: dict, x: int, y: int, w: int, h: int) -> None:
    """The last summary: its lines, or its table when it has no lines; at the end the result's
    lines come first (and the last summary's lines under them: how the last hand was won)."""
    s = v["result"] or v["summary"]
    if not s:
        return
    if not s["lines"]:
        _grid(c, {"title": s["title"], "columns": s["columns"], "rows": s["rows"]}, x, y, w, h)
        return
    c.box(x, y, w, h, PANEL)
    ly = y + 6
    for part in (v["result"], v["summary"]):
        if not part or not part["lines"] or ly + 40 > y + h:
            continue
        c.text(x + 10, ly, fit(part["title"], 14, w - 20), 14, GOLD)
        ly += 22
        for line in [p for text in part["lines"] for p in wrap(text, 13, w - 20, 3)]:
            if ly + 16 > y + h:
                return
            c.text(x + 10, ly, line, 13, LIGHT, PINK)
            ly += 17
        ly += 8


def _footer(c: Canvas, text: str) -> None:
    c.text(MARGIN, HEIGHT - FOOTER_H + 5, fit(text, 15, WIDTH - 2 * MARGIN), 15, LIGHT, PINK)
