"""The shipped models, installed as package data (``cardzoo.models``).

Each model is ``NAME.safetensors`` (weights) + ``NAME.json`` (the checked sidecar) + ``NAME.md``
(its card) + ``NAME.eval.json`` (the measurements behind the card) + ``NAME.png`` (its learning
curve). ``cardzoo.training.agents.shipped`` finds them; nothing here is code to import.
"""
