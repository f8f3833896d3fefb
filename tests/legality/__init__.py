"""Independent legality checkers, one per game, written from docs/rules/<game>.md.

Each module reads the public state of an engine (hands, table, whose turn) and works out the legal
moves from the rules text alone: no code is shared with the engines' move generators (only the
action-id tables of ``envs/<game>/actions.py`` are used, to name a move by its id).
``tests/test_legality.py`` compares them with the env's action mask at every decision.
"""
