"""The ``cardzoo`` command: one entry point, one module per subcommand."""

from __future__ import annotations

import argparse
import importlib
import os
import sys

import cardzoo
from cardzoo.envs.errors import UserError
from cardzoo.scripts.extras import missing_extra
from cardzoo.training.agents.shipped import MODELS_ENV

# subcommand -> module with register(subparsers) and run(args) -> int
SUBCOMMANDS = {
    "demo": "cardzoo.scripts.demo_cmd",
    "train": "cardzoo.scripts.train_cmd",
    "eval": "cardzoo.scripts.eval_cmd",
    "replay": "cardzoo.scripts.replay_cmd",
    "play": "cardzoo.scripts.play_cmd",
    "bench": "cardzoo.scripts.bench_cmd",
    "bench-compare": "cardzoo.scripts.bench_compare_cmd",
    "model": "cardzoo.scripts.model_cmd",
    "serve": "cardzoo.scripts.serve_cmd",
    "ladder": "cardzoo.scripts.ladder_cmd",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cardzoo", description="Suipi, Sam Sip and Siantappo for RL agents and people."
    )
    parser.add_argument("--version", action="version", version=f"cardzoo {cardzoo.__version__}")
    parser.add_argument(
        "--models",
        dest="_models",
        metavar="DIR",
        action="append",
        default=[],
        help=f"look for the 'model' agent in DIR before the shipped models (repeatable; "
        f"also {MODELS_ENV}=DIR{os.pathsep}DIR...)",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module_name in SUBCOMMANDS.values():
        module = importlib.import_module(module_name)
        p = module.register(sub)
        p.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    bad = [d for d in args._models if not os.path.isdir(d)]
    if bad:
        print(f"cardzoo: error: --models {bad[0]} is not a folder", file=sys.stderr)
        return 2
    if args._models:  # the environment carries it to worker processes too
        os.environ[MODELS_ENV] = os.pathsep.join([*args._models, *filter(None, [os.environ.get(MODELS_ENV)])])
    try:
        return int(args._run(args) or 0)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the output went into a pipe that closed early (| head): nothing more to say
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # Python's own flush at exit would raise again
        return 0
    except ModuleNotFoundError as e:  # what an extra brings (torch for training, ...): one line naming it
        missing = missing_extra(e)
        if missing is None:
            raise
        print(f"cardzoo {args.command}: error: {missing}", file=sys.stderr)
        return 2
    except UserError as e:
        # Bad input: one clear line, no traceback. Anything else is a bug and keeps its traceback.
        print(f"cardzoo {args.command}: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
