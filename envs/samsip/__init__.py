"""Sam Sip (ผสมสิบ): draw-and-discard to three pairs that "mix to ten" (docs/rules/samsip.md)."""

from cardzoo.envs.samsip.engine import SamSipConfig, SamSipGame, random_match

__all__ = ["SamSipConfig", "SamSipGame", "random_match"]
