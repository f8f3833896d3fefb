"""Compare `cardzoo bench --json` files of two code versions: pooled median per game and section.

A single bench run varies from run to run on a shared machine (docs/benchmarks.md, "Before and
after a change", says by how much), so a before/after check alternates the two versions several
times and pools every timed run of each side:

    git worktree add /tmp/before <old-commit>
    mkdir -p /tmp/before-pkg/cardzoo && cp /tmp/before/cardzoo/*.py /tmp/before-pkg/cardzoo/
    for d in envs training benchmarks scripts models; do [ -d /tmp/before/$d ] && ln -s /tmp/before/$d /tmp/before-pkg/cardzoo/$d; done
    PYTHONPATH=/tmp/before-pkg .venv/bin/python -c "import cardzoo.envs; print(cardzoo.envs.__file__)"
    for i in 1 2 3; do
      PYTHONPATH=/tmp/before-pkg .venv/bin/python -m cardzoo bench --players 4 --no-reference --no-floor --no-memory --json runs/before$i.json
      cardzoo bench --players 4 --no-reference --no-floor --no-memory --json runs/after$i.json
    done
    cardzoo bench-compare --before runs/before*.json --after runs/after*.json

The old version needs a ``cardzoo/`` folder of its own with its ``envs``, ``training``,
``scripts`` and ``models`` inside (the links above): the editable install maps ``cardzoo.envs``
and the others to this checkout's folders, so ``PYTHONPATH`` pointing at the old checkout itself
would import the new code for them (the check line must print a path under /tmp/before-pkg).
"""  # noqa: E501 - the commands above are copied and run as written

from __future__ import annotations

import statistics

from cardzoo.envs.errors import UserError
from cardzoo.training.agents.jsontext import read_json_file


def pooled_runs(paths: list[str]) -> dict[tuple[str, str], list[float]]:
    """(game label, section) -> every timed run's rate across the given bench JSON files."""
    pooled: dict[tuple[str, str], list[float]] = {}
    for path in paths:
        report = read_json_file(path)
        rows = report.get("ours") if isinstance(report, dict) else None
        if not isinstance(rows, list):
            raise UserError(f"{path}: not a result of `cardzoo bench --json` over the engines (it has no 'ours' rows)")
        for row in rows:
            sections = row.get("sections") if isinstance(row, dict) else None
            for section, figures in sections.items() if isinstance(sections, dict) else ():
                runs = figures.get("runs") if isinstance(figures, dict) else None
                if not runs:
                    continue  # a section without timed runs (not measured)
                if not (
                    isinstance(runs, list) and all(_is_rate(r) for r in runs) and isinstance(row.get("short"), str)
                ):
                    raise UserError(
                        f"{path}: a damaged cardzoo bench result (section {section!s:.40} of "
                        f"{row.get('short')!s:.40} has no list of positive rates)"
                    )
                pooled.setdefault((row["short"], section), []).extend(runs)
    return pooled


def _is_rate(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and 0 < x < float("inf")


def comparison_table(before: list[str], after: list[str]) -> str:
    old, new = pooled_runs(before), pooled_runs(after)
    lines = ["| game | section | before (median of runs) | after | after / before |", "|---|---|---:|---:|---:|"]
    for key in old:
        if key not in new:
            continue
        a, b = statistics.median(old[key]), statistics.median(new[key])
        lines.append(
            f"| {key[0]} | {key[1]} | {a:,.0f} ({len(old[key])} runs) | {b:,.0f} ({len(new[key])} runs) | {b / a:.2f} |"
        )
    if len(lines) == 2:
        raise UserError("the two sides share no game and section to compare")
    return "\n".join(lines)
