"""A regex compiled the first time it is used (the import pays nothing): the steering
detector's rules, and the few patterns of the record's reader and writer and of
provenance whose compiling cost milliseconds of every command's start-up."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from typing import Any


class LazyRegex:
    """A regex compiled the first time it is used, not on import (``re.compile`` is what
    the import would spend its time on). It answers as the compiled one does: the first
    call compiles it and puts the compiled regex's own methods on the instance, so that
    every later call goes straight to them."""

    _METHODS = ("search", "match", "fullmatch", "finditer", "findall", "sub")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern, self.flags = pattern, flags

    def compiled(self) -> re.Pattern[str]:
        compiled = re.compile(self.pattern, self.flags)
        for name in self._METHODS:  # an instance's attribute hides the class's method
            setattr(self, name, getattr(compiled, name))
        return compiled

    def search(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled().search(text, pos, endpos)

    def match(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled().match(text, pos, endpos)

    def fullmatch(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled().fullmatch(text, pos, endpos)

    def finditer(
        self, text: str, pos: int = 0, endpos: int = sys.maxsize
    ) -> Iterator[re.Match[str]]:
        return self.compiled().finditer(text, pos, endpos)

    def findall(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> list[Any]:
        return self.compiled().findall(text, pos, endpos)

    def sub(self, repl: str | Callable[[re.Match[str]], str], text: str, count: int = 0) -> str:
        return self.compiled().sub(repl, text, count)
