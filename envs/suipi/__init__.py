"""Suipi: engine, encoding, AEC env and rule bot (public module: envs.suipi_v0)."""
