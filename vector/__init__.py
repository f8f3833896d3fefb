"""Many tables of one game stepped together in numpy: the API for bringing your own trainer.

    import cardzoo.vector
    envs = cardzoo.vector.make("siantappo", 64, num_players=4, opponents="rules", seed=0)
    obs, info = envs.reset()        # obs["observation"] [64, obs_size], obs["action_mask"] [64, num_actions]

* ``make`` / ``TablesEnv`` (``env.py``): a Gymnasium 1.x ``VectorEnv``, the learner against
  opponents (agent specs or a callable) that play inside ``step``; same-step autoreset.
* ``SelfPlay`` (``selfplay.py``): every seat a learner; per table the seat to act, its
  observation and mask, and every seat's reward since it last acted.
* ``TableEnv`` (``single.py``): one table as a ``gymnasium.Env`` (``gymnasium.make("cardzoo/Siantappo-v0")``).

All of them step the tables of ``tables.py`` on the engines' trusted path with the incremental
encoders; docs/own-trainer.md is the guide. Nothing here imports torch, a ``model`` or
``expert`` opponent included (the shipped models play through numpy; tests/test_package.py).
"""

from cardzoo.vector.env import TablesEnv, make
from cardzoo.vector.opponents import opponent_seed
from cardzoo.vector.selfplay import SelfPlay
from cardzoo.vector.single import TableEnv

__all__ = ["make", "TablesEnv", "SelfPlay", "TableEnv", "opponent_seed"]
