"""The ``cardzoo`` command: one entry point, one module per subcommand."""

from __future__ import annotations

import argparse
import importlib
import sys

from envs.errors import UserError

# subcommand -> module with register(subparsers) and run(args) -> int
SUBCOMMANDS = {
    "demo": "scripts.demo_cmd",
    "train": "scripts.train_cmd",
    "eval": "scripts.eval_cmd",
    "replay": "scripts.replay_cmd",
    "play": "scripts.play_cmd",
    "bench": "scripts.bench_cmd",
    "serve": "scripts.serve_cmd",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cardzoo", description="Suipi, Sam Sip and Siantappo for RL agents and people.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, module_name in SUBCOMMANDS.items():
        module = importlib.import_module(module_name)
        p = module.register(sub)
        p.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args._run(args) or 0)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except UserError as e:
        # Bad input: one clear line, no traceback. Anything else is a bug and keeps its traceback.
        print(f"cardzoo {args.command}: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
