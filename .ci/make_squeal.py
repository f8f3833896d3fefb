"""Make scripts/serve/static/squeal.wav, the pig's squeal the browser table plays (muted by
default) when a Siantappo is played. Run once; the WAV is committed. Needs numpy only:

    .venv/bin/python .ci/make_squeal.py
"""

from __future__ import annotations

import wave
from pathlib import Path

import numpy as np

RATE = 22050
SECONDS = 0.7
OUT = Path(__file__).resolve().parent.parent / "scripts" / "serve" / "static" / "squeal.wav"


def squeal() -> np.ndarray:
    """Two rising, wobbling squeals: a swept tone with harmonics, a little breath noise."""
    t = np.arange(int(RATE * SECONDS)) / RATE
    out = np.zeros_like(t)
    for start, length in ((0.0, 0.32), (0.36, 0.34)):
        part = (t >= start) & (t < start + length)
        u = (t[part] - start) / length
        pitch = 700 + 1300 * u**0.6 + 90 * np.sin(2 * np.pi * 28 * t[part])  # up, with a wobble
        phase = 2 * np.pi * np.cumsum(pitch) / RATE
        tone = np.sin(phase) + 0.5 * np.sin(2 * phase) + 0.25 * np.sin(3 * phase)
        envelope = np.sin(np.pi * u) ** 0.7
        out[part] = envelope * tone
    out += 0.04 * np.random.default_rng(7).standard_normal(len(t)) * (np.abs(out) > 0.05)
    return out / np.abs(out).max() * 0.6


def main() -> None:
    samples = (squeal() * 32767).astype("<i2")
    with wave.open(str(OUT), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(samples.tobytes())
    print(f"{OUT}: {len(samples) / RATE:.2f} s, {OUT.stat().st_size} bytes")


if __name__ == "__main__":
    main()
