"""Benchmarks: env and engine speed against reference libraries (``env_speed``, ``cardzoo bench``) and
training speed of our PPO against the SB3 path (``training_speed``, ``cardzoo bench --train``)."""
