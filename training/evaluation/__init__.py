"""Evaluation: tournaments with duplicate deals (``tournament``, with its parts ``schedule``, ``runner``,
``pool``, ``log``, ``results``, ``summary`` and ``report``), ratings and intervals (``ratings``), game
records and replays (``records``), model cards from measurements (``model_card``)."""
