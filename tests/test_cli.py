"""The command line: user errors are one line with exit code 2, bugs keep their traceback."""

from __future__ import annotations

import pytest

from cardzoo.envs.errors import UserError
from cardzoo.scripts import cli


def test_bad_input_is_one_line_with_exit_code_2(capsys):
    assert cli.main(["eval", "siantappo", "--agents", "rules,nobody"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("cardzoo eval: error: unknown agent 'nobody'") and len(err.splitlines()) == 1


def test_an_internal_bug_is_not_hidden_as_bad_input(monkeypatch):
    import cardzoo.scripts.eval_cmd

    def broken(args):
        raise ValueError("operands could not be broadcast together")  # what a bug looks like

    monkeypatch.setattr(cardzoo.scripts.eval_cmd, "run", broken)
    with pytest.raises(ValueError, match="broadcast"):
        cli.main(["eval", "siantappo", "--agents", "rules,random"])


def test_every_error_a_user_can_cause_is_a_user_error():
    from cardzoo.envs.config import ConfigError
    from cardzoo.envs.protocol import IllegalMoveError
    from cardzoo.training.agents.checkpoint import CheckpointError

    assert all(issubclass(e, UserError) for e in (ConfigError, IllegalMoveError, CheckpointError))
