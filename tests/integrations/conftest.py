"""Tests that need the optional RL libraries (Ray RLlib, Tianshou): `make test-integrations`.

They run only when selected with ``-m integrations`` (in ``.venv-integrations``); the default
suite does not even collect them, so it never imports Ray or Tianshou.
"""

from pathlib import Path


def pytest_ignore_collect(collection_path: Path, config):
    if collection_path.name.startswith("test_") and "integrations" not in (config.option.markexpr or ""):
        return True
    return None
