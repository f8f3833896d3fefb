"""`cardzoo bench-compare`: pooled medians of `cardzoo bench --json` files of two code versions.

    cardzoo bench-compare --before runs/before*.json --after runs/after*.json

The pooling lives in benchmarks/compare.py, whose docstring (this command's --help) shows
how to alternate the two versions; docs/benchmarks.md has an example. A separate command rather
than `cardzoo bench compare`, since `cardzoo bench` takes game names as its positional arguments.
"""

from __future__ import annotations

import argparse

from cardzoo.benchmarks import compare


def register(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "bench-compare",
        help="compare `cardzoo bench --json` files of two code versions",
        description=compare.__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--before", nargs="+", required=True, metavar="JSON", help="bench JSON files of the old version")
    p.add_argument("--after", nargs="+", required=True, metavar="JSON", help="bench JSON files of the new version")
    return p


def run(args) -> int:
    print(compare.comparison_table(args.before, args.after))
    return 0
