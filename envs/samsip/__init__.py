"""Sam Sip (ผสมสิบ): draw-and-discard to three pairs that "mix to ten" (docs/rules/samsip.md).

Actions, engine, encoding, AEC env and rule bot (public module: cardzoo.envs.samsip_v0).
"""
