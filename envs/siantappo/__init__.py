"""Siantappo: actions, engine, encoding, AEC env and rule bot (public module: cardzoo.envs.siantappo_v0)."""
