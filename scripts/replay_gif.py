"""`cardzoo replay FILE --gif OUT`: a recorded match as an animated GIF, one frame per whole move.

Every frame is the env's ``rgb_array`` picture (``envs/picture.py``: the table as a spectator sees
it, no hidden hand) with the move just played in its footer, as the public log says it (a
Siantappo swap reads "gives a card to player_2"). The first frame is the table as dealt; the last
is held longer. Frames share one palette, taken from the first, so colours do not flicker.
"""

from __future__ import annotations

import importlib

from PIL import Image

from cardzoo.envs.errors import UserError
from cardzoo.envs.picture import picture
from cardzoo.envs.seatview import log_line, match_over, public_view
from cardzoo.training.evaluation.records import WholeMoveWalker, play_moves

MAX_FRAMES = 3000  # frames are held in memory until the GIF is written (0.7 MB each)
LAST_HOLD = 4  # the last frame stays this many frame times


class _Snapshots:
    """The game view's ``snapshot`` (public state before a move) and public move line."""

    def __init__(self, env):
        self.env = env
        self.view = importlib.import_module(f"cardzoo.envs.{env.game_name}.view")

    def snapshot(self) -> dict:
        return self.view.snapshot(self.env)

    def public_line(self, before: dict, seat: int, ids, text: str) -> str:
        return log_line(self.view, self.view.move_facts(self.env, before, seat, ids, text), None)["text"]


def write_gif(env, rec: dict, moves: int, out: str, fps: float) -> int:
    """Replay ``rec`` through ``env`` (reset to its header) into the GIF ``out``; the frame count.
    ``moves`` is the record's number of whole moves."""
    if moves + 1 > MAX_FRAMES:
        raise UserError(f"the match has {moves} moves; --gif draws at most {MAX_FRAMES - 1}")
    snaps = _Snapshots(env)
    frames = [_frame(env, f"As dealt · {moves} moves")]

    def on_move(k, seat, ids, text, before):
        line = snaps.public_line(before, seat, ids, text)
        frames.append(_frame(env, f"{k}/{moves} · player_{seat}: {line}"))

    walker = WholeMoveWalker(env, on_move)
    walker.begin(snaps.snapshot)
    play_moves(env, rec["moves"], on_move=walker)
    _save(frames, out, fps)
    return len(frames)


def _frame(env, footer: str) -> Image.Image:
    if match_over(env):
        footer += " · the match is over"
    return Image.fromarray(picture(public_view(env), footer))


def _save(frames: list[Image.Image], out: str, fps: float) -> None:
    palette = frames[0].quantize(colors=255, method=Image.Quantize.MEDIANCUT)
    indexed = [f.quantize(palette=palette, dither=Image.Dither.NONE) for f in frames]
    ms = max(20, round(1000 / fps))
    durations = [ms] * (len(indexed) - 1) + [ms * LAST_HOLD]
    try:
        indexed[0].save(
            out, format="GIF", save_all=True, append_images=indexed[1:], duration=durations, loop=0, optimize=False
        )
    except OSError as e:
        raise UserError(f"cannot write {out}: {e.strerror or e}") from None
