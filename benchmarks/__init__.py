"""Benchmarks: env and engine speed against reference libraries (``cardzoo bench``), training
speed of our PPO and Deep Monte-Carlo against the SB3 path (``training_speed``, ``cardzoo bench
--train``), and before/after one change (``compare``: ``cardzoo bench-compare``; ``collector_ab``:
one DMC collector against a git revision).

The env bench is random legal play on one core, in modules with one job each: ``schema`` (settings,
result records, JSON, targets, ratios), ``timing`` (the AEC and engine loops and how a section is
timed), ``games`` (our games' engine / raw / wrapped sections), ``references`` (RLCard, PettingZoo
classic and OpenSpiel environments in the same kind of loop), ``floor`` (a null game: the cost of
envs/base.py + PettingZoo alone), ``profiles`` (cProfile and per-hook timings) and ``machine``
(CPU pinning, machine info). Nothing here asserts on time; ``cardzoo bench`` (scripts/bench_cmd.py)
is the front end, and ``compare`` pools the runs of two code versions.
"""
