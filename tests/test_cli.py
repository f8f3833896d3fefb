"""The command line: user errors are one line with exit code 2, bugs keep their traceback."""

from __future__ import annotations

import os

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


@pytest.mark.parametrize("command", ["eval", "play"])
def test_help_names_every_agent_kind(command, capsys):
    """`cardzoo eval --help` and `cardzoo play --help` list every kind of agent the specs accept
    (issue 27; play's left out teacher and expert)."""
    from cardzoo.training.agents.specs import AGENT_KINDS

    with pytest.raises(SystemExit):
        cli.main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    missing = [k for k in AGENT_KINDS if not any(f"{k}{end}" in text for end in (" (", ",", "[:N]", " or"))]
    assert not missing, f"{command} --help does not name {missing}"


def test_train_help_says_where_each_algo_writes(capsys):
    with pytest.raises(SystemExit):
        cli.main(["train", "--help"])
    text = "".join(capsys.readouterr().out.split())  # argparse wraps at hyphens
    assert all(s in text for s in ("runs/GAME-Np", "adds-dmc", "adds-sb3", "runs/rllib-GAME-Np", "OUT/final"))


# ------------------------------------------------------------------ cardzoo model
def _policy_checkpoint(tmp_path):
    """A small (untrained) policy checkpoint of Siantappo at 3 players."""
    import torch

    from cardzoo.envs import siantappo_v0
    from cardzoo.training.agents.checkpoint import save_checkpoint
    from cardzoo.training.agents.policy import MaskedPolicyNet

    env = siantappo_v0.raw_env(num_players=3)
    torch.manual_seed(0)
    meta = {
        "game": "siantappo",
        "env": "siantappo_v0",
        "player_counts": [3],
        "config": {"num_players": 3},
        "name": "ck",
        "training_steps": 1000,
        "seed": 3,
        "evaluation": {},
    }
    return save_checkpoint(tmp_path / "run" / "final", MaskedPolicyNet(env.obs_size, env.num_actions, [8]), meta)


def test_model_trust_refuses_a_checkpoint_that_is_no_move_ranker(tmp_path, capsys):
    path = _policy_checkpoint(tmp_path)
    assert cli.main(["model", "trust", str(path), "--trust", "0.05", "--out", str(tmp_path / "t")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cardzoo model: error: ") and "is not a move-ranker checkpoint" in err
    assert err.count("\n") == 1 and not list(tmp_path.glob("t.*"))


def test_model_card_publishes_a_checkpoint_with_a_card_of_its_measurements(tmp_path, monkeypatch, capsys):
    import json

    from cardzoo.training.evaluation.model_card import render_card

    path = _policy_checkpoint(tmp_path)
    models = tmp_path / "models"
    models.mkdir()
    monkeypatch.setenv("CARDZOO_MODELS", str(models))  # never the shipped models/
    (tmp_path / "notes.md").write_text("* It is untrained.\n")
    assert (
        cli.main(
            [
                "model",
                "card",
                str(path),
                "--name",
                "tiny",
                "--games",
                "12",
                "--other-games",
                "12",
                "--seed",
                "5",
                "--workers",
                "1",
                "--train-command",
                "cardzoo train siantappo --players 3",
                "--notes",
                str(tmp_path / "notes.md"),
            ]
        )
        == 0
    )
    assert capsys.readouterr().out.strip().endswith("tiny.md")
    assert {p.name for p in models.iterdir()} == {"tiny.safetensors", "tiny.json", "tiny.eval.json", "tiny.md"}
    meta = json.loads((models / "tiny.json").read_text())
    ev = json.loads((models / "tiny.eval.json").read_text())
    assert meta["name"] == "tiny" and ev["train_command"] == "cardzoo train siantappo --players 3"
    assert ev["per_players"]["3"]["vs_rules"]["pairs"][0]["games"] == 12
    card = (models / "tiny.md").read_text()
    assert card == render_card("tiny", meta, ev, ev["train_command"], ev["notes"], curve=False)
    assert "It is untrained." in card and "learning curve" not in card  # the run left none: no image to link


def test_model_card_prints_the_readme_table():
    import contextlib
    import io

    from cardzoo.training.evaluation.model_card import readme_table

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["model", "card", "--readme-table"]) == 0
    assert out.getvalue() == readme_table() + "\n"


@pytest.mark.parametrize(
    "args,message",
    [
        ([], "publishing a model card needs CHECKPOINT, --name, --seed, --train-command (or --readme-table alone)"),
        (["ck", "--name", "x", "--seed", "1"], "publishing a model card needs --train-command"),
        (["ck", "--readme-table"], "--readme-table takes no checkpoint"),
        (["ck", "--name", "x", "--seed", "1", "--train-command", "t", "--games", "0"], "--games must be >= 1, got 0"),
        (
            ["ck", "--name", "x", "--seed", "1", "--train-command", "t", "--notes", "/nonexistent/notes.md"],
            "--notes: cannot read /nonexistent/notes.md",
        ),
    ],
)
def test_model_card_bad_input_is_one_line(args, message, capsys):
    assert cli.main(["model", "card", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"cardzoo model: error: {message}") and err.count("\n") == 1


def test_version_is_the_package_version(capsys):
    import cardzoo

    with pytest.raises(SystemExit) as done:
        cli.main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"cardzoo {cardzoo.__version__}"


def test_python_dash_m_cardzoo_is_the_command():
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "cardzoo", "--version"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.startswith("cardzoo ")


def test_output_into_a_closed_pipe_ends_quietly():
    """`cardzoo ... | head`: once the reader has gone, the command stops without a traceback."""
    import subprocess
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-m", "cardzoo", "bench", "--show", "docs/benchmarks-env.json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # gone before the command writes anything
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0 and "Traceback" not in err, err


def test_models_flag_needs_a_folder_and_puts_it_first(tmp_path, capsys, monkeypatch):
    from cardzoo.training.agents.shipped import MODELS_ENV

    monkeypatch.setenv(MODELS_ENV, "")  # restored after the test, whatever the command sets
    assert cli.main(["--models", str(tmp_path / "nope"), "eval", "siantappo", "--agents", "model,rules"]) == 2
    assert capsys.readouterr().err.strip() == f"cardzoo: error: --models {tmp_path / 'nope'} is not a folder"
    assert (
        cli.main(
            [
                "--models",
                str(tmp_path),
                "eval",
                "siantappo",
                "--agents",
                "rules,random",
                "--games",
                "2",
                "--players",
                "3",
                "--workers",
                "1",
                "--no-progress",
            ]
        )
        == 0
    )
    import os

    assert os.environ[MODELS_ENV].split(os.pathsep)[0] == str(tmp_path)


def test_the_demo_trains_evaluates_and_shows_a_match(tmp_path, capsys):
    """`cardzoo demo` (the README's main job), in miniature: a checkpoint, the three tables, the
    shown match's result and where to go next."""
    out = tmp_path / "demo"
    assert cli.main(["demo", "--game", "suipi", "--steps", "600", "--games", "4", "--quiet", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert (out / "final.safetensors").is_file() and (out / "final.json").is_file()
    for section in ("== 1/3 Training", "== 2/3 Evaluating against rules, model, random", "== 3/3 The trained agent"):
        assert section in text
    assert "Match result (suipi, 2 players, seed 0)" in text and "cardzoo train suipi` (about 15 minutes" in text
    assert f"cardzoo play suipi --seats human,{out / 'final'}.safetensors" in text


# ------------------------------------------------------------------ issue 57: probes of the command line
DEEP, DIGITS = "[" * 3000, '{"x": ' + "9" * 5000 + "}"  # RecursionError / Python's int-string limit in json


def _one_line(capsys, command: str) -> str:
    err = capsys.readouterr().err
    assert err.startswith(f"cardzoo {command}: error: ") and err.count("\n") == 1, err
    return err


@pytest.mark.parametrize(
    "argv",
    [
        ["play", "siantappo", "-o", "num_players=5"],  # as found: TypeError, got multiple values for num_players
        ["train", "suipi", "--steps", "10", "-o", "num_players=2.0"],
        ["eval", "suipi", "--agents", "rules,random", "-o", "num-players=2"],
    ],
)
def test_the_player_count_as_a_rule_option_is_refused_pointing_to_players(argv, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert cli.main(argv) == 2
    assert "give the number of players with --players" in _one_line(capsys, argv[0])
    assert not list(tmp_path.iterdir())  # train made no run directory


@pytest.mark.parametrize("value", [DEEP, "9" * 5000])
@pytest.mark.parametrize(
    "command, key",
    [
        (["eval", "suipi", "--agents", "rules,random"], "match_deals"),
        (["play", "siantappo"], "rounds"),
        (["train", "suipi", "--steps", "1"], "match_deals"),
    ],
)
def test_a_rule_option_that_is_no_number_is_one_short_line(command, key, value, tmp_path, monkeypatch, capsys):
    """As found: RecursionError, and ValueError (Python's int-string limit), from scripts/options.py;
    a number option reads a whole number and nothing else now."""
    monkeypatch.chdir(tmp_path)
    assert cli.main([*command, "-o", f"{key}={value}"]) == 2
    err = _one_line(capsys, command[0])
    assert f"--option {key}: " in err and "is not a whole number" in err and len(err) < 300
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("content, why", [(DEEP, "nested 3000 levels deep"), (DIGITS, "more than 4,300 digits")])
@pytest.mark.parametrize(
    "argv",
    [
        ["replay", "{f}"],
        [
            "eval",
            "suipi",
            "--agents",
            "rules,random",
            "--games",
            "2",
            "--workers",
            "1",
            "--log",
            "{f}",
            "--no-progress",
        ],
        ["bench", "--show", "{f}"],
        ["bench-compare", "--before", "{f}", "--after", "{f}"],
    ],
)
def test_a_json_file_too_deep_or_with_a_huge_number_is_one_line_and_left_as_it_was(
    argv, content, why, tmp_path, capsys
):
    """The shared reader (cardzoo.training.agents.jsontext) behind every JSON file a command reads;
    eval --log must not rewrite a file it cannot read as a log."""
    path = tmp_path / "bad.json"
    path.write_text(content)
    assert cli.main([str(path) if a == "{f}" else a for a in argv]) == 2
    assert why in _one_line(capsys, argv[0])
    assert path.read_text() == content


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux's /proc, where no file can be made")
def test_eval_checks_its_outputs_before_playing(capsys):
    """As found: `eval --records /proc/x.jsonl` played the whole tournament, then FileNotFoundError."""
    for flag in ("--records", "--json", "--csv", "--plot", "--log"):
        assert (
            cli.main(
                [
                    "eval",
                    "suipi",
                    "--agents",
                    "rules,random",
                    "--games",
                    "2",
                    "--workers",
                    "1",
                    "--no-progress",
                    flag,
                    "/proc/x.out",
                ]
            )
            == 2
        )
        captured = capsys.readouterr()
        assert captured.out == ""  # no game was played, no report printed
        assert captured.err.startswith(f"cardzoo eval: error: {flag} /proc/x.out: cannot write there")


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux's /proc, where no file can be made")
def test_model_trust_checks_where_it_writes_before_the_copy(monkeypatch, capsys):
    """As found: `model trust --out /proc/t` loaded and copied the ranker, then FileNotFoundError."""
    from cardzoo.training.agents import trust
    from cardzoo.training.agents.shipped import shipped_model_file

    loaded: list[str] = []
    monkeypatch.setattr(trust, "load_network", lambda path: loaded.append(path))
    ranker = shipped_model_file("suipi", 2)
    assert ranker is not None
    assert cli.main(["model", "trust", ranker, "--trust", "0.1", "--out", "/proc/t"]) == 2
    assert "--out /proc/t.safetensors: cannot write there" in _one_line(capsys, "model") and not loaded


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--seed", "-1"], "--seed -1 is out of range: seed must be in [0, 4294967295]"),  # as found: numpy ValueError
        (["--seed", str(10**30)], f"--seed {10**30} is out of range"),  # torch: Overflow when unpacking long long
        (["--hidden", "100000,100000"], "--hidden 100000,100000 is out of range"),  # tried to allocate 40 GB
        (["--algo", "ppo", "--hidden", "100000,100000"], "each in [1, 4096]"),
        (["--algo", "ppo", "--hidden", ",".join(["8"] * 9)], "1 to 8 layer widths"),  # more than a checkpoint holds
    ],
)
def test_train_refuses_a_seed_or_network_out_of_range_before_it_starts(flags, message, tmp_path, capsys):
    out = tmp_path / "run"
    assert cli.main(["train", "siantappo", "--steps", "1", "--out", str(out), "--no-progress", *flags]) == 2
    assert message in _one_line(capsys, "train")
    assert not out.exists()


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--games", str(10**30)], f"--games must be 1..1,000,000, got {10**30}"),  # as found: played for ever
        (["--games", "0"], "--games must be 1..1,000,000"),
        (["--bootstrap", "-1"], "--bootstrap must be 0..10,000, got -1"),  # as found: accepted silently
        (["--bootstrap", str(10**30)], "--bootstrap must be 0..10,000"),  # would allocate 10**30 rows after the games
        (["--workers", str(10**9)], "--workers must be 1..256"),
    ],
)
def test_eval_refuses_numbers_out_of_bounds_before_playing(flags, message, capsys):
    assert cli.main(["eval", "suipi", "--agents", "rules,random", "--no-progress", *flags]) == 2
    assert message in _one_line(capsys, "eval")


def test_eval_help_names_the_bounds(capsys):
    with pytest.raises(SystemExit):
        cli.main(["eval", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "1..1,000,000" in text and "0..10,000" in text and "1..256" in text


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--games", "-1"], "--games must be 1..1,000,000, got -1"),  # as found: trained first, then refused
        (["--steps", "0"], "--steps must be >= 1, got 0"),
        (["--players", "0"], "siantappo is played by 3, 4, 5, 6 players, not 0"),  # as found: 0 meant the default
    ],
)
def test_demo_refuses_bad_numbers_before_training(flags, message, tmp_path, capsys):
    out = tmp_path / "demo"
    assert cli.main(["demo", "--steps", "1", "--out", str(out), *flags]) == 2
    assert message in _one_line(capsys, "demo")
    assert not out.exists()


def test_play_refuses_zero_players(monkeypatch, capsys):
    """As found: `play --players 0` took 0 for the default and dealt 4 seats."""
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    assert cli.main(["play", "siantappo", "--players", "0"]) == 2
    assert "siantappo is played by 3, 4, 5 or 6 players, not 0" in _one_line(capsys, "play")


@pytest.mark.parametrize(
    "command", [["play", "suipi"], ["eval", "suipi", "--agents", "rules,random"], ["train", "suipi", "--steps", "1"]]
)
@pytest.mark.parametrize(
    "option, said",
    [
        ("floor_dup_rule=spades", "--option floor_dup_rule: 'spades' is not one of its values: spade, lower_value, "),
        ("forced_capture=maybe", "--option forced_capture: 'maybe' is not true or false"),
        ("match_deals=two", "--option match_deals: 'two' is not a whole number (e.g. match_deals=0)"),
        ("deal_sizes_2p=12,x", "--option deal_sizes_2p: '12,x' is not a list of whole numbers (e.g. "),
        ("dael=all", "--option dael: unknown option for suipi"),
    ],
)
def test_a_rule_option_is_read_as_its_declared_type(command, option, said, tmp_path, monkeypatch, capsys):
    """Issue 60: `-o deal=13each` was read as text whatever the option; each option is read as
    its type, its choices named when the value is none of them, the same in every command."""
    monkeypatch.chdir(tmp_path)
    assert cli.main([*command, "-o", option]) == 2
    assert said in _one_line(capsys, command[0])
    assert not list(tmp_path.iterdir())


def test_rule_options_take_the_words_a_player_types():
    from cardzoo.scripts.options import parse_options
    from cardzoo.scripts.serve.catalog import read_options

    typed = ["forced_capture=yes", "deal_sizes_2p=12,12", "point_game=23", "floor_dup_rule=Point_Card"]
    expected = {"forced_capture": True, "deal_sizes_2p": (12, 12), "point_game": 23, "floor_dup_rule": "point_card"}
    assert parse_options(typed, "suipi") == expected
    assert parse_options(["deal=13each", "swap-second-with=third", "starter_card=3s"], "siantappo") == {
        "deal": "13each",
        "swap_second_with": "third",
        "starter_card": "3s",
    }
    assert read_options("suipi", {"deal_sizes_2p": "12,12", "break_ties": "no"}) == {
        "deal_sizes_2p": (12, 12),
        "break_ties": False,
    }
