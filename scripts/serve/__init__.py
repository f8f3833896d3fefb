"""`cardzoo serve`: play (or watch, or replay) the games in a browser. See docs/serve.md."""
