"""Reading a person's lines: readline editing and history at a terminal, echo when piped.

At a terminal ``input()`` is used with Python's ``readline`` (arrow keys, history with ↑/↓;
not available on Windows, where the console edits lines itself). Piped input is echoed so a
transcript reads like a session. Stray terminal escape sequences are removed either way, so an
arrow key never reaches the move parser.
"""

from __future__ import annotations

import re
import sys

from rich.console import Console
from rich.text import Text

ESCAPES = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|O.|.)")
ECHO_LIMIT = 60  # characters of a bad input quoted back


class Leave(Exception):
    """The person leaves the game: quit, end of input (Ctrl-D) or Ctrl-C. ``why`` says which."""

    def __init__(self, why: str):
        super().__init__(why)
        self.why = why


def enable_line_editing() -> bool:
    """Load ``readline`` so ``input()`` edits lines and keeps history; False where it is missing."""
    try:
        import readline  # noqa: F401  (importing it is what turns editing on)
    except ImportError:  # Windows, or a Python built without it
        return False
    return True


def clip(text: str, limit: int = ECHO_LIMIT) -> str:
    """At most ``limit`` characters of what someone typed, for quoting it back."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def clip_echo(message: str, line: str, limit: int = ECHO_LIMIT) -> str:
    """``message`` with any quoted copy of a long input ``line`` shortened to ``limit`` characters."""
    if len(line) <= limit:
        return message
    short = clip(line, limit)
    for variant in {line, line.strip()}:
        message = message.replace(repr(variant), repr(short)).replace(variant, short)
    return message


class LineReader:
    """One place that reads a line from a person, for the play loop and the replay's pager."""

    def __init__(self, console: Console, stdin=None):
        self.console = console
        self.stdin = stdin if stdin is not None else sys.stdin
        self.tty = self.stdin is sys.stdin and _isatty(sys.stdin)
        if self.tty:
            enable_line_editing()

    def read(self, prompt: str, style: str = "bold green") -> str:
        """The next line without its newline; Leave at end of input or Ctrl-C."""
        try:
            if self.tty:
                line = input(self._tty_prompt(prompt, style))
            else:
                self.console.print(Text(prompt, style=style), end="")
                line = self.stdin.readline()
                if line == "":
                    self.console.print()
                    raise Leave("end of input")
                # echo piped input, so a transcript reads like a session
                self.console.print(Text(line.rstrip("\r\n"), style="dim"), highlight=False)
        except KeyboardInterrupt:
            raise Leave("interrupted") from None
        except EOFError:
            raise Leave("end of input") from None
        return ESCAPES.sub("", line.rstrip("\r\n"))

    def _tty_prompt(self, prompt: str, style: str) -> str:
        """The prompt for ``input()``: coloured, with the escape codes marked as zero-width
        (\\x01 ... \\x02) so readline keeps the cursor in the right column."""
        if self.console.no_color or not self.console.is_terminal:
            return prompt
        with self.console.capture() as cap:
            self.console.print(Text(prompt, style=style), end="")
        return re.sub(r"(\x1b\[[0-9;]*m)", "\x01\\1\x02", cap.get())


def _isatty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
