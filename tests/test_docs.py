"""The docs run as written (issue 27): every ```python block of README.md, CONTRIBUTING.md and
docs/**/*.md is executed, and every `cardzoo ...` line of a ```bash block is parsed by the real
command-line parser.

Blocks are found by Sybil (https://sybil.readthedocs.io), which also provides the markers a page may
carry, as HTML comments that do not show on GitHub:

- ``<!-- skip: next "why" -->`` before a block: the block is not run (a usage synopsis, a template
  with placeholders, an example that needs an extra not in the dev install). Keep these few.
  ``<!-- skip: next if(not HAS_RLLIB, reason="...") -->`` skips only where the condition holds
  (names the test provides: ``HAS_RLLIB``, ``HAS_TIANSHOU``).
- ``<!-- docs-test: shorten OLD -> NEW -->`` before a python block: the test replaces the text OLD by
  NEW before running it (a shorter run of the same code: ``games=400`` -> ``games=8``). Repeatable.

Every python block runs alone, as a reader copies it: in a fresh namespace (holding only the names
the skip conditions use), so a block that uses a name only an earlier block defines fails. The
blocks of a page run in page order, in a temporary directory (so files they write land there). A
bash block's other commands (make, pip, python3, tensorboard) are not run; a here-document fed to
``python`` is compiled.
"""

from __future__ import annotations

import importlib.util
import io
import re
import shlex
import unittest
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from sybil import Region, Sybil
from sybil.evaluators.python import PythonEvaluator
from sybil.parsers.markdown import CodeBlockParser, PythonCodeBlockParser, SkipParser
from sybil.region import Lexeme

from cardzoo.envs.registry import game_names
from cardzoo.scripts.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted(
    ["README.md", "CONTRIBUTING.md", *(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").rglob("*.md"))]
)

SHORTEN = re.compile(r"<!--\s*docs-test:\s*shorten\s+(?P<old>.+?)\s+->\s+(?P<new>.+?)\s*-->")
SHORTEN_KEY = "_docs_test_shorten"


def shorten_parser(document):
    """``<!-- docs-test: shorten OLD -> NEW -->``: queue a replacement for the next python block."""
    for m in SHORTEN.finditer(document.text):
        yield Region(m.start(), m.end(), (m["old"], m["new"]), queue_shortening)


def queue_shortening(example) -> None:
    example.namespace.setdefault(SHORTEN_KEY, []).append(example.parsed)


class StandalonePython(PythonEvaluator):
    """A python block, shortened as queued for it, run in a namespace of its own."""

    def __call__(self, example):
        __tracebackhide__ = True
        pending = example.namespace.pop(SHORTEN_KEY, [])
        source = example.parsed
        for old, new in pending:
            assert old in source, f"docs-test: shorten {old!r}: not in the block at line {example.line}"
            source = Lexeme(source.replace(old, new), source.offset, source.line_offset)
        if pending:
            example.parsed = source
        example.namespace.clear()  # nothing from the page's earlier blocks
        example.namespace.update(NAMES)
        return super().__call__(example)


# --- shell blocks ------------------------------------------------------------------------------------

OPERATORS = {"|", "||", "&&", ";", "&"}
HEREDOC = re.compile(r"<<-?\s*'?(\w+)'?")


def shell_commands(source: str):
    """(line offset, command text, here-document body or None) for each command of a bash block."""
    lines = source.splitlines()
    i = 0
    while i < len(lines):
        start, text = i, lines[i]
        while text.rstrip().endswith("\\") and i + 1 < len(lines):
            i += 1
            text = text.rstrip()[:-1] + " " + lines[i]
        body = None
        m = HEREDOC.search(text)
        if m:
            end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == m[1]), len(lines))
            body = "\n".join(lines[i + 1 : end])
            text = text[: m.start()] + text[m.end() :]
            i = end
        i += 1
        if text.strip() and not text.lstrip().startswith("#"):
            yield start, text, body


def segments(text: str):
    """The simple commands of one line, split at | ; && || & (comments dropped)."""
    lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    current: list[str] = []
    for token in lexer:
        if token in OPERATORS:
            yield current
            current = []
        else:
            current.append(token)
    yield current


def check_cardzoo(argv: list[str]) -> str | None:
    """None if `cardzoo ARGV` parses (and names a known game), else why not."""
    err, out = io.StringIO(), io.StringIO()
    try:
        with redirect_stderr(err), redirect_stdout(out):
            args = build_parser().parse_args(argv)
    except SystemExit as e:
        return None if e.code == 0 else err.getvalue().strip().splitlines()[-1]
    games = getattr(args, "games", None) if args.command == "bench" else [getattr(args, "game", None)]
    unknown = [g for g in games or () if isinstance(g, str) and g not in game_names()]
    if unknown:
        return f"unknown game {unknown[0]!r} (a placeholder? mark the block)"
    return None


def evaluate_shell(example) -> str | None:
    problems = []
    for offset, text, body in shell_commands(str(example.parsed)):
        line = example.line + example.parsed.line_offset + offset + 1
        try:
            cmds = list(segments(text))
        except ValueError as e:
            problems.append(f"line {line}: {text.strip()!r}: {e}")
            continue
        for argv in cmds:
            if not argv:
                continue
            if argv[0] == "cardzoo" or argv[0].endswith("/bin/cardzoo"):
                why = check_cardzoo(argv[1:])
                if why:
                    problems.append(f"line {line}: {shlex.join(argv)}\n    {why}")
            elif body is not None and Path(argv[0]).name.startswith("python"):
                try:
                    compile(body, f"{example.path}:{line}", "exec")
                except SyntaxError as e:
                    problems.append(f"line {line}: here-document: {e}")
    return "\n".join(problems) or None


SYBIL = Sybil(
    parsers=[
        SkipParser(),
        shorten_parser,
        PythonCodeBlockParser(),
        CodeBlockParser(language="bash", evaluator=evaluate_shell),
    ],
    path="..",
    patterns=DOCS,
)

NAMES = {
    "HAS_RLLIB": all(importlib.util.find_spec(m) for m in ("ray", "tree")),  # ray[rllib]: dm-tree too
    "HAS_TIANSHOU": importlib.util.find_spec("tianshou") is not None,
}


def test_docs_found():
    assert "README.md" in DOCS and "docs/evaluation.md" in DOCS


def run_page(path: Path) -> list[str]:
    """Run every block of the page at ``path``; the skipped blocks, as "line N: why"."""
    document = SYBIL.parse(path)
    document.namespace.update(NAMES)
    for _, region in document.regions:
        if isinstance(region.evaluator, PythonEvaluator):
            region.evaluator = StandalonePython()
    skipped = []
    for example in document:
        try:
            example.evaluate()
        except unittest.SkipTest as e:
            skipped.append(f"line {example.line}: {e}")
    assert not document.namespace.get(SHORTEN_KEY), "docs-test: shorten with no python block after it"
    return skipped


@pytest.mark.parametrize("page", DOCS)
def test_page_runs(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    skipped = run_page(ROOT / page)
    # only the blocks the page marks skipped: templates always, an extra's blocks where it is missing
    # (`make test-integrations` runs docs/integrations.md's with them)
    text = (ROOT / page).read_text(encoding="utf-8")
    expected = text.count('<!-- skip: next "') + sum(
        text.count(f"<!-- skip: next if(not {name},") for name, present in NAMES.items() if not present
    )
    assert len(skipped) == expected, skipped


def test_each_python_block_runs_alone(tmp_path, monkeypatch):
    """A block that uses what only an earlier block of the page defines fails, as it would for a
    reader who copies it alone (as found: docs/siantappo.md's "Scripting" block used an `env` it
    never made); blocks that stand alone pass, the shortening still applies."""
    monkeypatch.chdir(tmp_path)
    page = tmp_path / "page.md"
    alone = "```python\nx = 1\n```\n\n<!-- docs-test: shorten 2 -> 3 -->\n```python\ny = 2\nassert y == 3\n```\n"
    page.write_text(alone)
    assert run_page(page) == []
    page.write_text(alone + "\n```python\nprint(x)\n```\n")
    with pytest.raises(NameError, match="'x' is not defined"):
        run_page(page)


def test_unlabelled_blocks_hold_no_commands():
    """A ``` block with no language is not checked, so it must not hold a `cardzoo` command."""
    fence = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)
    bad = []
    for page in DOCS:
        text = (ROOT / page).read_text(encoding="utf-8")
        for m in fence.finditer(text):
            if not m[1] and re.search(r"^\s*(\S*/)?cardzoo\s", m[2], re.M):
                bad.append(f"{page}:{text.count(chr(10), 0, m.start()) + 1}")
    assert not bad, f"label these blocks ```bash (or ```text for a synopsis): {bad}"


# --- figures: prose that quotes a table must agree with it -------------------------------------------


def _table_rows(text: str, heading: str) -> list[list[str]]:
    """The body rows of the first markdown table after ``heading``, as lists of cell strings."""
    rest = text[text.index(heading) :]
    rows = []
    for line in rest.splitlines()[1:]:
        if line.startswith("|"):
            rows.append([c.strip() for c in line.strip("|").split("|")])
        elif rows:
            break
    return [r for r in rows[2:] if r]  # drop the header and the |---| line


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_the_environment_speed_figures_are_the_kept_report():
    """docs/benchmarks.md's environment tables and findings and README's speed section are rendered
    from docs/benchmarks-env.json (`cardzoo bench --profile --json docs/benchmarks-env.json`;
    `cardzoo bench --show docs/benchmarks-env.json` prints them again)."""
    import json

    from cardzoo.benchmarks.report import findings, readme_speed, render_summary

    result = json.loads((ROOT / "docs/benchmarks-env.json").read_text())
    assert result["command"] == "cardzoo bench --profile --json docs/benchmarks-env.json"
    bench = (ROOT / "docs/benchmarks.md").read_text(encoding="utf-8")
    assert render_summary(result) in bench
    assert findings(result) in bench
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert _flat(readme_speed(result)) in _flat(readme)
    assert result["command"] in readme


BASELINES = sorted((ROOT / "docs/baselines").glob("rules-random-*.json"))
TITLES = {"siantappo": "Siantappo", "suipi": "Suipi", "samsip": "Sam Sip"}


def _ci(lo_hi, spec="+.2f", unit=""):
    return f"[{format(lo_hi[0], spec)}{unit}, {format(lo_hi[1], spec)}{unit}]"


@pytest.mark.parametrize("path", BASELINES, ids=lambda p: p.stem)
def test_baseline_tables_are_the_kept_reports(path):
    """The rule-bot-vs-random rows of docs/evaluation.md and README.md are the `--json` reports in
    docs/baselines/ (`cardzoo eval GAME --agents rules,random --players N --games 600 --seed 1
    --json docs/baselines/rules-random-GAME-Np.json`), in one format."""
    import json

    r = json.loads(path.read_text())
    assert (r["seed"], r["games_played"], [e["name"] for e in r["entrants"]]) == (1, 600, ["rules", "random"])
    pair, rules = r["pairs"][0], r["entrants"][0]
    adv = f"{pair['advantage']:+.2f} {_ci(pair['advantage_ci'])}"
    win = f"{100 * rules['win_rate']:.1f}%"
    row = (
        f"| {r['game']} | {r['players']} | {r['games_played']} ({r['deals']} × {r['games_per_deal']}) | {adv} | "
        f"{rules['mean_reward']:+.2f} {_ci(rules['reward_ci'])} | "
        f"{win} {_ci([100 * x for x in rules['win_ci']], '.1f', '%')} |"
    )
    assert row in (ROOT / "docs/evaluation.md").read_text(encoding="utf-8"), row
    readme_row = (
        f"| {TITLES[r['game']]} | {r['players']} | {adv} | {win} {_ci([100 * x for x in rules['win_ci']], '.1f')} |"
    )
    assert readme_row in (ROOT / "README.md").read_text(encoding="utf-8"), readme_row


def test_every_baseline_row_has_its_report():
    text = (ROOT / "docs/evaluation.md").read_text()
    rows = re.findall(r"^\| (siantappo|suipi|samsip) \| (\d) \| 600 \(", text, re.M)
    assert sorted(f"rules-random-{g}-{n}p" for g, n in rows) == [p.stem for p in BASELINES]


SEATS = sorted((ROOT / "docs/baselines").glob("rules-seats-*.json"))


def seats_row(r: dict) -> str:
    """One row of docs/evaluation.md's one-rule-bot-against-random table, from its kept report."""
    sides, rules = r["sides"], r["entrants"][0]
    who = (
        f"team of {len(sides[0])} rules vs team of {len(sides[1])} random"
        if len(sides[0]) > 1
        else f"rules + {r['players'] - 1} × random"
    )
    return (
        f"| {r['game']} | {r['players']} | {who} | {r['games_played']} | "
        f"{rules['mean_reward']:+.2f} {_ci(rules['reward_ci'])} | "
        f"{100 * rules['win_rate']:.1f}% {_ci([100 * x for x in rules['win_ci']], '.1f', '%')} | "
        f"{100 / len(sides):.0f}% |"
    )


@pytest.mark.parametrize("path", SEATS, ids=lambda p: p.stem)
def test_the_seats_table_is_the_kept_reports(path):
    """docs/evaluation.md's table of one rule bot against random seats is the `--json` reports in
    docs/baselines/ (`cardzoo eval GAME --seats rules,random,...,random --players N --games 600
    --seed 1 --json docs/baselines/rules-seats-GAME-Np.json`)."""
    import json

    r = json.loads(path.read_text())
    assert (r["mode"], r["seed"], r["games_played"]) == ("seats", 1, 600)
    assert [e["name"] for e in r["entrants"]] == ["rules", "random"]
    assert seats_row(r) in (ROOT / "docs/evaluation.md").read_text(encoding="utf-8"), seats_row(r)


def test_every_seats_row_has_its_report():
    text = (ROOT / "docs/evaluation.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (siantappo|suipi|samsip) \| (\d) \| (?:rules \+|team of) ", text, re.M)
    assert sorted(f"rules-seats-{g}-{n}p" for g, n in rows) == [p.stem for p in SEATS]


TEACHER = sorted((ROOT / "docs/baselines").glob("teacher-rules-samsip-*.json"))


def test_teacher_table_is_the_kept_reports():
    """docs/samsip.md's lookahead-vs-rule-bot table is the `--json` reports in docs/baselines/
    (`cardzoo eval samsip --players N --agents teacher,rules --games 1000 --seed 4001 --json ...`)."""
    import json

    text = (ROOT / "docs/samsip.md").read_text(encoding="utf-8")
    table = _table_rows(text, "--agents teacher,rules --games 1000 --seed 4001")
    assert [int(r[0]) for r in table] == [json.loads(p.read_text())["players"] for p in TEACHER]
    for path in TEACHER:
        r = json.loads(path.read_text())
        assert (r["seed"], [e["name"] for e in r["entrants"]]) == (4001, ["teacher", "rules"])
        pair, teacher = r["pairs"][0], r["entrants"][0]
        row = (
            f"| {r['players']} | {r['games_played']} | **{pair['advantage']:+.3f}** "
            f"{_ci(pair['advantage_ci'], '+.3f')} | {100 * teacher['win_rate']:.1f}% "
            f"{_ci([100 * x for x in teacher['win_ci']], '.1f', '%')} |"
        )
        assert row in text, row


def test_the_training_speed_table_is_the_kept_report():
    """docs/benchmarks.md's training table is `render_table` of docs/benchmarks-train.json
    (`cardzoo bench --train --json docs/benchmarks-train.json`)."""
    import json

    from cardzoo.benchmarks.training_speed import render_table

    doc = json.loads((ROOT / "docs/benchmarks-train.json").read_text())
    result = doc.get("result", doc)
    table = render_table(result)
    assert table in (ROOT / "docs/benchmarks.md").read_text(encoding="utf-8")


def test_the_vector_api_speed_table_is_the_kept_report():
    """docs/benchmarks.md's vector table is `render_vector` of docs/benchmarks-vector.json, below the
    command that wrote it."""
    import json

    from cardzoo.benchmarks.vector import render_vector

    doc = json.loads((ROOT / "docs/benchmarks-vector.json").read_text())
    text = (ROOT / "docs/benchmarks.md").read_text(encoding="utf-8")
    assert doc["command"] == "cardzoo bench --vector --json docs/benchmarks-vector.json"
    assert text.index(doc["command"]) < text.index(render_vector(doc))


FIRST_MODELS = sorted((ROOT / "docs/baselines").glob("first-model-*.json"))


def first_model_row(doc: dict) -> str:
    """One row of docs/training.md's "Your first model" table, from its kept report."""
    r, t = doc["eval"], doc["training"]
    pair, model = r["pairs"][0], r["entrants"][0]
    return (
        f"| {r['game']} | {r['players']} | {t['samples']:,} | {t['minutes']:.1f} | "
        f"{pair['advantage']:+.2f} {_ci(pair['advantage_ci'])} | "
        f"{100 * model['win_rate']:.0f}% {_ci([100 * x for x in model['win_ci']], '.0f', '%')} |"
    )


def test_the_expert_iteration_figures_are_the_kept_reports():
    """docs/training.md's expert-iteration paragraph quotes docs/baselines/exit-suipi-2p-*.json."""
    import json

    text = (ROOT / "docs/training.md").read_text(encoding="utf-8")
    for kind in ("imit", "imit-t05", "final", "values", "values-t05"):
        r = json.loads((ROOT / f"docs/baselines/exit-suipi-2p-{kind}.json").read_text())
        pair = r["pairs"][0]
        assert r["seed"] == 9431 and r["games_played"] == 1000
        assert r["entrants"][1]["spec"] == "models/suipi-2p.safetensors"
        assert f"{pair['advantage']:+.2f} {_ci(pair['advantage_ci'])}" in text


def test_the_expert_iteration_rounds_table_is_the_kept_reports():
    """docs/training.md's tables of the expert-iteration rounds behind models/suipi-2p and
    models/suipi quote docs/baselines/exit-suipi-2p-{values1200-t05,round3-*,round4-*,shipped-vs-rules}*.json
    and exit-suipi-4p-round{1,2}-*.json, the Siantappo 3-player round exit-siantappo-3p-v4-round-*.json
    (1000 games each)."""
    import json

    text = (ROOT / "docs/training.md").read_text(encoding="utf-8")
    counts = [
        (2, k)
        for k in (
            "values1200-t05",
            "round3-t05",
            "round3-vs-round2",
            "shipped-vs-rules",
            "values1200-t05-vs-rules",
            "round3-t05-vs-rules",
            "round4-t05",
            "round4-vs-round3",
            "round4-t05-vs-rules",
        )
    ]
    counts += [(4, k) for k in ("round1-vs-shipped", "round1-vs-rules", "round2-vs-round1", "round2-vs-rules")]
    kinds = [("suipi", n, k) for n, k in counts]
    kinds += [("siantappo", 3, f"v4-round-{k}") for k in ("vs-v4", "vs-shipped", "vs-rules")]
    for game, players, kind in kinds:
        r = json.loads((ROOT / f"docs/baselines/exit-{game}-{players}p-{kind}.json").read_text())
        pair, first = r["pairs"][0], r["entrants"][0]
        assert r["games_played"] >= 1000 and r["players"] == players  # whole duplicate sets: 1002 at 3 players
        row = (
            f"| {r['seed']} | {pair['advantage']:+.2f} [{pair['advantage_ci'][0]:+.2f}, "
            f"{pair['advantage_ci'][1]:+.2f}] | {100 * first['win_rate']:.0f}% |"
        )
        assert row in text, (kind, row)


def test_the_first_model_table_is_the_kept_reports():
    import json

    assert [p.stem for p in FIRST_MODELS] == ["first-model-samsip", "first-model-siantappo", "first-model-suipi"]
    text = (ROOT / "docs/training.md").read_text(encoding="utf-8")
    for path in FIRST_MODELS:
        doc = json.loads(path.read_text())
        assert doc["eval"]["seed"] == 7771 and doc["eval"]["games_played"] >= 400
        assert doc["eval"]["pairs"][0]["advantage_ci"][0] > 0  # the point of the recipe: above the rule bot
        assert first_model_row(doc) in text, first_model_row(doc)


def test_the_readme_training_table_is_the_kept_report_too():
    import json

    from cardzoo.benchmarks.training_speed import render_table

    table = render_table(json.loads((ROOT / "docs/benchmarks-train.json").read_text()))
    assert table in (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_ray_table_is_the_kept_report():
    """docs/training.md's "Several machines" table is `render_ray_table` of docs/benchmarks-ray.json
    (`cardzoo bench --train --ray --json docs/benchmarks-ray.json`)."""
    import json

    from cardzoo.benchmarks.training_speed import render_ray_table

    doc = json.loads((ROOT / "docs/benchmarks-ray.json").read_text())
    assert "--ray" in doc["command"] and any(r.get("via") == "ray" for r in doc["train"])
    assert render_ray_table(doc) in (ROOT / "docs/training.md").read_text(encoding="utf-8")


EXPERTS = sorted((ROOT / "docs/baselines").glob("expert-model-*.json"))


def expert_row(r: dict) -> str:
    """One row of docs/evaluation.md's expert table, from its kept report."""
    pair = r["pairs"][0]
    return (
        f"| {r['game']} | {r['players']} | {r['games_played']} | {r['seed']} | {pair['advantage']:+.2f} "
        f"{_ci(pair['advantage_ci'])} | {pair['a_score']:.0%} |"
    )


def test_the_expert_table_is_the_kept_reports():
    import json

    text = (ROOT / "docs/evaluation.md").read_text(encoding="utf-8")
    assert EXPERTS
    for path in EXPERTS:
        r = json.loads(path.read_text())
        assert [e["spec"] for e in r["entrants"]] == ["expert", "model"] and r["games_played"] >= 200
        assert expert_row(r) in text, expert_row(r)


BELIEF = sorted((ROOT / "docs/baselines").glob("belief-*.json"))
PERFECT = sorted((ROOT / "docs/baselines").glob("perfect-*.json"))


def pair_row(r: dict, *first: str) -> str:
    """One row of a head-to-head table in docs/evaluation.md, from its kept report: ``first``
    columns, then the games, the seed, the first entrant's advantage and how often it was ahead."""
    pair = r["pairs"][0]
    cells = [*first, str(r["games_played"]), str(r["seed"]), f"{pair['advantage']:+.2f} {_ci(pair['advantage_ci'])}"]
    return "| " + " | ".join(cells) + f" | {pair['a_score']:.0%} |"


def test_the_belief_and_oracle_tables_are_the_kept_reports():
    """docs/evaluation.md's belief-aware search (belief against expert:10 and the model) and its
    oracle table (oracle, expert and model against the rule bot, the same deals per game)."""
    import json

    text = (ROOT / "docs/evaluation.md").read_text(encoding="utf-8")
    assert BELIEF and PERFECT
    for path in BELIEF:
        r = json.loads(path.read_text())
        specs = [e["spec"] for e in r["entrants"]]
        assert specs[0] == "belief" and specs[1] in ("expert:10", "model")
        assert pair_row(r, r["game"], str(r["players"]), f"`{specs[1]}`") in text, pair_row(r, specs[1])
    seeds: dict[str, set] = {}
    for path in PERFECT:
        r = json.loads(path.read_text())
        agent = r["entrants"][0]["name"]
        assert agent in ("oracle", "expert", "model") and r["entrants"][1]["name"] == "rules"
        seeds.setdefault(r["game"], set()).add((r["seed"], r["games_played"]))
        assert pair_row(r, r["game"], str(r["players"]), agent) in text, pair_row(r, agent)
    assert all(len(s) == 1 for s in seeds.values())  # one game's rows: the same deals


def test_the_thinking_time_table_is_the_kept_report():
    import json

    from cardzoo.benchmarks.report import render_agents

    doc = json.loads((ROOT / "docs/benchmarks-agents.json").read_text())
    assert {r["agent"] for r in doc["agents"]} == {"model", "expert"}
    assert render_agents(doc) in (ROOT / "docs/evaluation.md").read_text(encoding="utf-8")


# The ladders (issue 29): random < rules < model < expert as one field per game, each table rendered from
# its kept report and shown in the game's page, under "## Ladder", right below the command that made it.
LADDERS = ["ladder-samsip-2p", "ladder-siantappo-4p", "ladder-suipi-2p", "ladder-suipi-4p"]
LADDER_FIELD = ["random", "rules", "model", "expert"]
PAIR_QUOTE = re.compile(
    r"\b(random|rules|model|expert) − (random|rules|model|expert)\s+([+-]\d+\.\d\d)\s+"
    r"\[([+-]\d+\.\d\d),\s+([+-]\d+\.\d\d)\]"
)


def ladder_command(r: dict) -> str:
    return (
        f"cardzoo eval {r['game']} --agents {','.join(LADDER_FIELD)} --players {r['players']} "
        f"--games {r['games_planned']} --seed {r['seed']} --workers 1 "
        f"--json docs/baselines/ladder-{r['game']}-{r['players']}p.json"
    )


def pair_quote(r: dict, a: str, b: str) -> str:
    """The head to head of a and b in a ladder's report, as its prose quotes it: a − b reward per match [95% CI]."""
    (pair,) = [p for p in r["pairs"] if {p["a"], p["b"]} == {a, b}]
    sign = 1 if pair["a"] == a else -1
    lo, hi = sorted(sign * x for x in pair["advantage_ci"])
    return f"{a} − {b} {sign * pair['advantage']:+.2f} [{lo:+.2f}, {hi:+.2f}]"


def test_every_ladder_is_kept():
    assert sorted(p.stem for p in (ROOT / "docs/baselines").glob("ladder-*.json")) == LADDERS


@pytest.mark.parametrize("name", LADDERS)
def test_the_ladder_tables_are_the_kept_reports(name):
    """Each game page's ladder table is `render_ladder` of docs/baselines/ladder-GAME-Np.json, in a
    section "## Ladder", right after the ```bash block with the `cardzoo eval` command that wrote it."""
    import json

    from cardzoo.training.evaluation.report import render_ladder

    r = json.loads((ROOT / f"docs/baselines/{name}.json").read_text())
    assert [e["spec"] for e in r["entrants"]] == [e["name"] for e in r["entrants"]] == LADDER_FIELD
    assert (r["mode"], r["interrupted"], r["ratings"]["anchor"]) == ("field", False, "random")
    assert r["games_played"] == r["games_planned"]
    text = (ROOT / f"docs/{r['game']}.md").read_text(encoding="utf-8")
    table = render_ladder(r)
    block = f"{ladder_command(r)}\n```\n\n{table}\n"
    assert block in text, block
    before = text[: text.index(block)]
    assert before.rindex("\n## ") == before.rindex("\n## Ladder\n"), "the table is not in the Ladder section"
    # the prose after the table (up to the next command or section) quotes this report's head to head
    after = text[text.index(block) + len(block) :]
    after = after[: min(i for i in (after.find("```bash"), after.find("\n## "), len(after)) if i >= 0)]
    quotes = [(m[0], pair_quote(r, m[1], m[2])) for m in PAIR_QUOTE.finditer(after)]
    assert quotes, "say what the head to head of adjacent rungs shows"
    assert [_flat(q) for q, _ in quotes] == [want for _, want in quotes]


def test_the_probe_table_is_the_cards_probes():
    from cardzoo.training.evaluation.model_card import probe_table

    table = probe_table()
    assert table.count("\n") >= 3  # a header, its rule and a row per probed model
    assert table in (ROOT / "docs/evaluation.md").read_text(encoding="utf-8")
