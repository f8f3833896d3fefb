"""Where collection and tournament work runs: worker processes on this machine (``workers``) or
Ray actors across a cluster (``ray_actors``, only with ``--ray``), behind one call of plain data."""
