"""The planted rule bugs (tests/legality/planted_bugs.py) keep working: in the default suite,
every bug still applies to today's engines (its text is there exactly once and the planted file
still parses), so the list cannot rot silently; under ``-m slow`` (``make test-planted``, run by
CI) each bug is planted in a temporary copy and the game's rule tests or the independent legality
checkers must catch it.
"""

from __future__ import annotations

import ast

import pytest

from tests.legality.planted_bugs import BUGS, EQUIVALENT, ROOT, PlantedCopy, planted

IDS = [bug[0] for bug in BUGS]


def test_the_bugs_have_unique_ids_and_name_engine_files():
    assert len(set(IDS)) == len(IDS)
    assert set(EQUIVALENT) <= set(IDS)
    for bug_id, rule, file, old, new in BUGS:
        assert rule and old != new, bug_id
        assert file in ("envs/samsip/engine.py", "envs/siantappo/engine.py", "envs/suipi/engine.py"), bug_id


@pytest.mark.parametrize("bug", BUGS, ids=IDS)
def test_every_planted_bug_still_applies(bug):
    """Its text is in today's engine exactly once (else: plant the same bug again on the code as
    it is now), and the engine with the bug planted is still Python."""
    source = (ROOT / bug[2]).read_text()
    mutant = planted(bug, source)
    assert mutant != source
    ast.parse(mutant)


def test_a_bug_whose_text_moved_is_named():
    bug = ("moved", "nothing", "envs/suipi/engine.py", "this text is not in the engine", "")
    with pytest.raises(AssertionError, match="moved: the text to replace is not there exactly once"):
        planted(bug, (ROOT / bug[2]).read_text())


@pytest.fixture(scope="module")
def planted_copy():
    with PlantedCopy() as copy:
        yield copy


@pytest.mark.slow
@pytest.mark.parametrize(
    "bug", [b for b in BUGS if b[0] not in EQUIVALENT], ids=[i for i in IDS if i not in EQUIVALENT]
)
def test_the_tests_catch_the_planted_bug(bug, planted_copy):
    """The game's own tests catch it, or else the legality checkers do."""
    caught = planted_copy.caught(bug, suites=("own",))
    if not caught["own"]:
        caught = planted_copy.caught(bug, suites=("legality",))
    assert any(caught.values()), f"{bug[0]} ({bug[1]}) was planted and no test failed"


@pytest.mark.slow
@pytest.mark.parametrize("game", ["samsip", "siantappo", "suipi"])
def test_the_copy_passes_its_tests_without_a_bug(game, planted_copy):
    """The control: the copy's tests run and pass where nothing was planted (so a bug "caught"
    above was caught by a test, not by a broken copy)."""
    line = "from __future__ import annotations\n"
    nothing = ("none", "no bug", f"envs/{game}/engine.py", line, line + "# nothing planted\n")
    assert planted_copy.caught(nothing) == {"own": False, "legality": False}
