"""Evaluation: tournaments with duplicate deals (``tournament``), ratings and intervals
(``ratings``), game records and replays (``records``), model cards from measurements (``model_card``)."""
