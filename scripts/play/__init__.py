"""`cardzoo play`: people against bots in the terminal (session loop, seats, per-game views)."""
