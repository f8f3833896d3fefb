"""Suipi: actions, engine, encoding, AEC env and rule bot (public module: cardzoo.envs.suipi_v0)."""
