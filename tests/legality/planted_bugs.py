"""The rule bugs planted by hand for issue 25 (docs/rules/README.md, "Planted rule bugs").

Each entry of ``BUGS`` is (id, the rule broken, engine file, exact text, replacement): the same
one-line bug a careless edit of the rules could make. ``PlantedCopy`` copies the package and the
tests to a temporary folder (the working tree is never touched), plants one bug there at a time
and runs the game's rules / variants / env / engine tests (``TESTS``) and ``tests/test_legality.py``
on it. ``tests/test_planted_bugs.py`` checks in the default suite that every entry still applies
to today's code, and under ``-m slow`` (``make test-planted``, which CI runs) that the tests catch
every bug that changes behaviour. ``python -m tests.legality.planted_bugs [ID ...]`` prints, per
bug, which of the two caught it.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

BUGS = [
    ("sam1", "P9 A pairs with 8", "envs/samsip/engine.py", "min(c[0], c[8])", "min(c[0], c[7])"),
    ("sam2", "P9 10+10 not a pair", "envs/samsip/engine.py", "        + (c[9] >> 1)\n", ""),
    (
        "sam3",
        "P11a one turn late",
        "envs/samsip/engine.py",
        "if self.stalled_turns >= self.stall_limit:",
        "if self.stalled_turns > self.stall_limit:",
    ),
    (
        "sam4",
        "P12 balance == stake not eliminated",
        "envs/samsip/engine.py",
        "if chips[p] <= amount:",
        "if chips[p] < amount:",
    ),
    (
        "sam5",
        "P4 no stake reset on elimination",
        "envs/samsip/engine.py",
        "        if elim:\n            self.stake = cfg.base_stake",
        "        if False:\n            self.stake = cfg.base_stake",
    ),
    (
        "sam6",
        "P8 discard never takeable",
        "envs/samsip/engine.py",
        "[DRAW_STOCK, TAKE_DISCARD] if self.live >= 0 else [DRAW_STOCK]",
        "[DRAW_STOCK]",
    ),
    (
        "sam7",
        "P7 jokers not wild",
        "envs/samsip/engine.py",
        "return frozenset(JOKERS) | same, frozenset()",
        "return same, frozenset()",
    ),
    (
        "sam8",
        "P11 no winning take at empty stock",
        "envs/samsip/engine.py",
        "        if kind:\n            self._take(s)",
        "        if False:\n            self._take(s)",
    ),
    ("sam9", "P9b four aces allowed", "envs/samsip/engine.py", "rank_counts[0] > 3", "rank_counts[0] > 4"),
    (
        "sam10",
        "P5 void hand: next dealer",
        "envs/samsip/engine.py",
        "        return self._end_hand(\n            HandResult(self.hand_no, None, WIN_NONE,",
        "        self.dealer = self.next_active(self.dealer)\n        return self._end_hand(\n            HandResult(self.hand_no, None, WIN_NONE,",
    ),
    (
        "sia1",
        "T5 pairs by rank only",
        "envs/siantappo/engine.py",
        "                for s in PAIR_TOPS[rm[r]]:\n                    if 4 * r + s > key:",
        "                for s in PAIR_TOPS[rm[r]]:\n                    if r > key >> 2:",
    ),
    (
        "sia2",
        "T8 quad beats single 2 by default",
        "envs/siantappo/engine.py",
        "                if cfg.quad_beats_single_2:",
        "                if True:",
    ),
    (
        "sia3",
        "T4 straights with a 2",
        "envs/siantappo/engine.py",
        "        run = 0\n        for r in range(12):",
        "        run = 0\n        for r in range(13):",
    ),
    (
        "sia4",
        "T7 a pass does not last the trick",
        "envs/siantappo/engine.py",
        "            if not self.passed[s] or (self.cfg.bomb_after_pass and self._can_bomb(s)):",
        "            if True:",
    ),
    (
        "sia5",
        "T9 lead to the previous holder",
        "envs/siantappo/engine.py",
        "        while not self.counts[s]:  # T9: the winner is out, the next holder leads\n            s = (s + 1) % self.n",
        "        while not self.counts[s]:  # T9: the winner is out, the next holder leads\n            s = (s - 1) % self.n",
    ),
    (
        "sia6",
        "T11 winner gives highest",
        "envs/siantappo/engine.py",
        "if k not in given_up)[:count]",
        "if k not in given_up)[-count:]",
    ),
    (
        "sia7",
        "T8 siantappo on a pair of 2s",
        "envs/siantappo/engine.py",
        "            if key >> 2 == TWO:\n                out.extend(QUAD_BASE + r for r in range(13) if rm[r] == 15)",
        "            if key >> 2 == TWO:\n                out.extend(self._pair_runs(rm, 3, -1))\n                out.extend(QUAD_BASE + r for r in range(13) if rm[r] == 15)",
    ),
    (
        "sia8",
        "T10 round goes on with one holder",
        "envs/siantappo/engine.py",
        "            if len(holders) <= 1:",
        "            if len(holders) < 1:",
    ),
    (
        "sui1",
        "S9b played card counts as the kept one",
        "envs/suipi/engine.py",
        "                if v < hv or (v == hv and count[v] < 2):\n                    continue",
        "                if v < hv:\n                    continue",
    ),
    (
        "sui2",
        "S12 build need not absorb value v",
        "envs/suipi/engine.py",
        "                    if need and not m & need:",
        "                    if False:",
    ),
    (
        "sui3",
        "S10i owner may drop",
        "envs/suipi/engine.py",
        "        if owned:\n            continue\n        if unique",
        "        if unique",
    ),
    (
        "sui4",
        "S11 captures ignore obligations",
        "envs/suipi/engine.py",
        "if not m & b and count[w] - (hv == w) < 1:",
        "if False:",
    ),
    (
        "sui5",
        "S9 simple builds increase locked builds",
        "envs/suipi/engine.py",
        "if it[NVAL] == t and not (it[OWNER] >= 0 and it[LOCKED]):",
        "if it[NVAL] == t:",
    ),
    (
        "sui6",
        "S8 no sum groups of two",
        "envs/suipi/engine.py",
        "if k == 2 or (k > 2 and not pairs_only):",
        "if k > 2 and not pairs_only:",
    ),
    (
        "sui7",
        "S14 final capture counts as suipi",
        "envs/suipi/engine.py",
        "if not final or self.config.final_capture_is_suipi:",
        "if True:",
    ),
    (
        "sui8",
        "S15 floor to nobody",
        "envs/suipi/engine.py",
        "        if self.last_capturer >= 0:\n            self.captured",
        "        if False:\n            self.captured",
    ),
    (
        "sui9",
        "S16 cards majority bonus 2",
        "envs/suipi/engine.py",
        "for arr, bonus in ((cards, 3), (spades, 1)):",
        "for arr, bonus in ((cards, 2), (spades, 1)):",
    ),
    (
        "sam11",
        "wild_in_specials ignored",
        "envs/samsip/engine.py",
        "if self.config.wild_in_specials else 0",
        "if False else 0",
    ),
    (
        "sam12",
        "stake_progression linear adds 1",
        "envs/samsip/engine.py",
        "self.stake = stake + cfg.base_stake",
        "self.stake = stake + 1",
    ),
    ("sam13", "wild_scheme khi: 5s wild", "envs/samsip/engine.py", "if r <= 8 and r != 4:", "if r <= 8:"),
    (
        "sam14",
        "stall_turns ignored",
        "envs/samsip/engine.py",
        "self.stall_limit = cfg.stall_turns or STALL_TURNS_PER_PLAYER * self.n_active",
        "self.stall_limit = STALL_TURNS_PER_PLAYER * self.n_active",
    ),
    (
        "sia9",
        "long_pair_runs: five pairs not on three 2s",
        "envs/siantappo/engine.py",
        "if key == TWO and cfg.long_pair_runs:",
        "if False:",
    ),
    (
        "sia10",
        "bomb_after_pass: quad on quad is a bomb",
        "envs/siantappo/engine.py",
        "(ACTION_TYPE[a] == QUAD and not current_is_quad)",
        "(ACTION_TYPE[a] == QUAD)",
    ),
    (
        "sia11",
        "no_finish_on_2 ignored",
        "envs/siantappo/engine.py",
        "                self.finish_bottom.append(seat)",
        "                self.finish_top.append(seat)",
    ),
    (
        "sui10",
        "maximal_capture ignored",
        "envs/suipi/engine.py",
        "                            if not g & m:",
        "                            if False:",
    ),
    ("sui11", "forced_capture ignored", "envs/suipi/engine.py", "if forced and caps:", "if False:"),
    ("sui12", "max_owned_builds off by one", "envs/suipi/engine.py", "n_owned > max_owned", "n_owned > max_owned + 1"),
    (
        "sui13",
        "sum_group_size exactly_2 ignored",
        "envs/suipi/engine.py",
        '_subsets_by_sum(floor, vmax, config.sum_group_size == "exactly_2")',
        "_subsets_by_sum(floor, vmax, False)",
    ),
    (
        "sui14",
        "S17 3 sides: leader scores total",
        "envs/suipi/engine.py",
        "scores[order[0]] = margin",
        "scores[order[0]] = totals[order[0]]",
    ),
]

# Bugs that change nothing a game can reach: no test can catch them, so the slow test skips them.
EQUIVALENT = {
    "sui5": "a build is locked only with multi_builds, and the planted line runs only without it",
}

TESTS = {
    "samsip": "tests/test_samsip_rules.py tests/test_samsip_engine.py tests/test_samsip_env.py",
    "siantappo": "tests/test_siantappo_rules.py tests/test_siantappo_variants.py tests/test_siantappo_env.py",
    "suipi": "tests/test_suipi_rules.py tests/test_suipi_variants.py tests/test_suipi_env.py "
    "tests/test_suipi_random.py",
}

# Loaded by the copy's pytest (``-p plantshim``): the package is the copy's, never the editable
# install of the working tree.
SHIM = """import sys
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in type(f).__module__.lower()
                    and "editable" not in repr(f).lower()]
sys.path.insert(0, {pkg!r})
for k in [k for k in sys.modules if k.startswith("cardzoo")]:
    del sys.modules[k]
"""


def planted(bug: tuple, source: str) -> str:
    """``source`` (the text of the bug's file) with the bug planted; AssertionError where the text
    to replace is not there exactly once (the code moved on: plant the bug again on today's)."""
    bug_id, _rule, _file, old, new = bug
    assert source.count(old) == 1, f"{bug_id}: the text to replace is not there exactly once"
    return source.replace(old, new)


class PlantedCopy:
    """A temporary copy of the package and its tests (a context manager) in which one bug at a
    time is planted and the tests are run."""

    def __enter__(self) -> PlantedCopy:
        self.tmp = Path(tempfile.mkdtemp(prefix="planted_"))
        self.pkg, self.repo, shim = self.tmp / "pkg", self.tmp / "repo", self.tmp / "shim"
        (self.pkg / "cardzoo").mkdir(parents=True)
        for f in (ROOT / "cardzoo").glob("*.py"):
            shutil.copy(f, self.pkg / "cardzoo")
        ignore = shutil.ignore_patterns("__pycache__")
        for folder in ("envs", "training", "benchmarks", "scripts", "models"):
            shutil.copytree(ROOT / folder, self.pkg / "cardzoo" / folder, ignore=ignore)
        self.repo.mkdir()
        for folder in ("tests", "docs"):
            shutil.copytree(ROOT / folder, self.repo / folder, ignore=ignore)
        shutil.copy(ROOT / "pyproject.toml", self.repo)
        shim.mkdir()
        (shim / "plantshim.py").write_text(SHIM.format(pkg=str(self.pkg)))
        self.env = {"PYTHONPATH": str(shim), "PATH": "/usr/bin:/bin"}
        return self

    def __exit__(self, *exc) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)

    def caught(self, bug: tuple, suites=("own", "legality")) -> dict[str, bool]:
        """{suite: whether its tests failed with ``bug`` planted}, for each suite named ("own": the
        game's ``TESTS``, "legality": ``tests/test_legality.py`` on that game)."""
        path = self.pkg / "cardzoo" / bug[2]
        source = path.read_text()
        path.write_text(planted(bug, source))
        try:
            return {suite: self._fails(self._tests(bug, suite)) for suite in suites}
        finally:
            path.write_text(source)

    @staticmethod
    def _tests(bug: tuple, suite: str) -> str:
        game = bug[2].split("/")[1]
        return TESTS[game] if suite == "own" else f"tests/test_legality.py -k {game}"

    def _fails(self, tests: str) -> bool:
        cmd = f"{sys.executable} -m pytest -p plantshim -q -x -p no:cacheprovider {tests}"
        r = subprocess.run(cmd, shell=True, cwd=self.repo, capture_output=True, text=True, env=self.env)
        assert r.returncode in (0, 1), (
            f"{tests}: pytest could not run (exit {r.returncode}):\n{r.stdout[-3000:]}{r.stderr[-3000:]}"
        )
        return r.returncode == 1


def main(only=()) -> list:
    """Plant each bug (or those named) in turn and print which suites caught it."""
    results = []
    with PlantedCopy() as copy:
        for bug in BUGS:
            if only and bug[0] not in only:
                continue
            caught = copy.caught(bug)
            results.append((bug[0], bug[1], caught["own"], caught["legality"]))
            print(f"{bug[0]:6} {bug[1]:50} own tests: {caught['own']!s:5}  legality: {caught['legality']}", flush=True)
    print(f"caught {sum(1 for r in results if r[2] or r[3])} / {len(results)}")
    return results


if __name__ == "__main__":
    main(tuple(sys.argv[1:]))
