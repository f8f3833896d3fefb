"""Every rule id and variant of docs/rules/*.md has a test in tests/rule_coverage.py, and every
test listed there exists (issue 25)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.rule_coverage import COVERAGE

ROOT = Path(__file__).resolve().parent.parent
RULE_ID = re.compile(r"^\*\*([TSP]\d+[a-z]?) ", re.M)
VARIANT_ROW = re.compile(r"^\| (`[^|]*`) \|", re.M)


def doc_ids(game: str) -> set[str]:
    text = (ROOT / "docs" / "rules" / f"{game}.md").read_text(encoding="utf-8")
    ids = set(RULE_ID.findall(text))
    for cell in VARIANT_ROW.findall(text):
        ids.update(re.findall(r"`([a-z_0-9]+)`", cell))
    return ids


def test_every_rules_doc_has_a_table():
    docs = {p.stem for p in (ROOT / "docs" / "rules").glob("*.md")} - {"README"}
    assert docs == set(COVERAGE)


@pytest.mark.parametrize("game", sorted(COVERAGE))
def test_every_rule_id_has_a_test(game):
    ids = doc_ids(game)
    assert len(ids) > 10
    missing = sorted(ids - {k for k, v in COVERAGE[game].items() if v})
    assert not missing, f"docs/rules/{game}.md rules with no test in tests/rule_coverage.py: {missing}"
    unknown = sorted(set(COVERAGE[game]) - ids)
    assert not unknown, f"tests/rule_coverage.py lists ids that docs/rules/{game}.md does not have: {unknown}"


def _tests_in(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")}


@pytest.mark.parametrize("game", sorted(COVERAGE))
def test_every_listed_test_exists(game):
    bad = []
    for rule, tests in COVERAGE[game].items():
        for ref in tests:
            file, _, name = ref.partition("::")
            path = ROOT / "tests" / file
            if not path.exists() or name not in _tests_in(path):
                bad.append(f"{rule}: {ref}")
    assert not bad, f"tests/rule_coverage.py names tests that do not exist: {bad}"
