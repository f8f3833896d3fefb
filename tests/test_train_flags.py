"""`cardzoo train`'s trainer flags come from the settings dataclasses: the help says each trainer's
own default, and a flag reaches its trainer's settings only when it is given."""

from __future__ import annotations

import re
from dataclasses import MISSING, fields

import pytest

from cardzoo.scripts import cli, train_cmd
from cardzoo.training.common.flags import flag_fields, flag_name, settings_fields

TRAINERS = train_cmd.TRAINERS


def _help_of_flags(capsys) -> dict[str, str]:
    """flag -> its help in `cardzoo train --help`, joined into one line."""
    with pytest.raises(SystemExit):
        cli.main(["train", "--help"])
    out = capsys.readouterr().out
    helps, flag = {}, None
    for line in out.splitlines():
        m = re.match(r"^  (--[a-z-]+)(?: \S+)?(?:  +(.*))?$", line)
        if m and m.group(1) not in helps:  # not a group's "also takes" list wrapped onto a flag's name
            flag = m.group(1)
            helps[flag] = m.group(2) or ""
        elif flag and line.startswith(" " * 24):
            helps[flag] += " " + line.strip()
        else:
            flag = None
    return helps


def _stated_defaults(help_text: str, algos: list[str]) -> dict[str, str]:
    """algo -> the default the help states for it: "(default X)" or "(default: dmc X, ppo Y)"."""
    m = re.search(r"\(default(:?) (.*)\)$", help_text)
    assert m, f"no default stated in {help_text!r}"
    if not m.group(1):
        return {algo: m.group(2) for algo in algos}
    stated = dict(part.split(" ", 1) for part in m.group(2).split(", ") if part.split(" ", 1)[0] in TRAINERS)
    assert set(stated) == set(algos), help_text
    return stated


def _default(f):
    return f.default_factory() if f.default is MISSING else f.default


@pytest.mark.parametrize("algo", list(TRAINERS))
def test_the_help_states_each_flags_default_as_the_settings_class_declares_it(algo, capsys):
    """The default the help states, given as the flag, is the dataclass's default (or says what an
    empty default means): a help that disagrees with its class fails here."""
    cls = TRAINERS[algo]
    helps = _help_of_flags(capsys)
    for dest, f in flag_fields(cls).items():
        flag = flag_name(dest)
        owners = [a for a, c in TRAINERS.items() if dest in flag_fields(c)]
        stated = _stated_defaults(helps[flag], owners)[algo]
        default = _default(f)
        if default in ((), None, "", {}):
            assert stated == (f.metadata["unset"] or "none"), (flag, stated)
            continue
        kind = {"int": int, "float": float}.get(str(f.type).split(" |")[0], str)  # as argparse parses it
        value = settings_fields(cls, {dest: kind(stated)})[f.name]
        assert value == default and type(value) is type(default), (flag, stated, default)


@pytest.mark.parametrize("algo", list(TRAINERS))
def test_no_help_text_writes_a_default_by_hand(algo):
    for f in fields(TRAINERS[algo]):
        if "help" in f.metadata:
            assert not re.search(r"\bdefault", f.metadata["help"]), f"{f.name}: {f.metadata['help']!r}"


def test_a_flag_shared_with_different_defaults_says_each(capsys):
    helps = _help_of_flags(capsys)
    assert helps["--lr"].endswith("(default: dmc 0.0001, ppo 0.0003, sb3 0.0003, rllib 0.0003)")
    assert helps["--matches"].endswith("(default: dmc 32, ppo 64)")
    assert helps["--hidden"].endswith("(default 256,256)")


def test_the_declared_choices_are_the_ones_the_settings_accept():
    from cardzoo.training.agents.expert import ANSWERS
    from cardzoo.training.common.imitation import IMITATED
    from cardzoo.training.ppo.actor_critic import CRITICS

    declared = {f.name: f.metadata.get("choices") for cls in TRAINERS.values() for f in fields(cls)}
    assert declared["critic"] == CRITICS
    assert declared["imitate_from"] == IMITATED
    assert declared["expert_answer"] == ANSWERS


def test_the_recipes_flags_are_in_the_help(capsys):
    with pytest.raises(SystemExit):
        cli.main(["train", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "samsip: --algo dmc --steps 50000000 --max-minutes 13 --imitate 800" in text
    assert "--lr 3e-05" in text


@pytest.fixture
def started(monkeypatch):
    """The settings each trainer would have been started with (its train replaced)."""
    calls = []
    for module in train_cmd.TRAIN_MODULES.values():
        monkeypatch.setattr(f"{module}.train", lambda settings, **kw: calls.append((settings, kw)))
    return calls


def test_only_the_flags_given_change_a_recipe(started, tmp_path):
    from cardzoo.training.dmc.settings import DMCSettings
    from cardzoo.training.recipes import RECIPES

    assert cli.main(["train", "samsip", "--epsilon", "0.1", "--out", str(tmp_path / "r")]) == 0
    ((s, _kw),) = started
    recipe = DMCSettings(game="samsip", **RECIPES["samsip"].settings)
    assert isinstance(s, DMCSettings) and s.epsilon == 0.1 and s.lr == 3e-5 == recipe.lr
    assert {k: v for k, v in s.to_json().items() if k not in ("epsilon", "out")} == {
        k: v for k, v in recipe.to_json().items() if k not in ("epsilon", "out")
    }


@pytest.mark.parametrize(
    "argv, field, value",
    [
        (["--algo", "ppo", "--matches", "3", "--ent", "0.5"], "matches_per_worker", 3),
        (["--algo", "ppo", "--players", "3,5"], "players", (3, 5)),
        (["--algo", "ppo", "--opponents", "rules=1"], "opponents", {"rules": 1.0}),
        (["--algo", "sb3", "--lr", "0.001"], "learning_rate", 0.001),
        (["--algo", "sb3", "--imitate", "3", "--players", "5"], "imitation_matches", 3),
        (["--algo", "dmc", "--hidden", "8,8"], "hidden", (8, 8)),
    ],
)
def test_a_flag_reaches_its_field(argv, field, value, started, tmp_path):
    assert cli.main(["train", "siantappo", *argv, "--out", str(tmp_path / "r")]) == 0
    ((s, _),) = started
    assert getattr(s, field) == value


def test_sb3_snapshots_at_each_evaluation_unless_told(started, tmp_path):
    assert cli.main(["train", "siantappo", "--algo", "sb3", "--eval-every", "700", "--out", str(tmp_path / "r")]) == 0
    ((s, _),) = started
    assert s.snapshot_period() == 700 and s.snapshot_every == 0
