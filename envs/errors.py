"""The one base class of errors caused by what a user gave us (not by a bug).

Bad rule options, illegal moves, unreadable move text, wrong or damaged checkpoint files, bad
command-line values: each raises a subclass of ``UserError`` with a one-line message. The command
line prints those as one line (exit code 2); any other exception is a bug and keeps its traceback.
``UserError`` is a ``ValueError``, so code that catches ValueError keeps working.
"""


class UserError(ValueError):
    """Bad input from a user; the message says what is wrong and what would be right."""
