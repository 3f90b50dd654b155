r"""One credential rule (:class:`Rule`), how a rule is written (:func:`make_rule`), and
``END``, where a token ends.

A rule has a tier: ``certain`` (a vendor prefix, a private key, or structure that
can be nothing but a credential: a password in a URL or a connection string,
``Authorization: Basic``, ``.netrc``, ``.pgpass``) or ``likely`` (a secret-named
key, or a password word in prose, with a value that looks like a secret). A
rule may carry a ``check``: given the text's bytes and the regex match, it gives
the secret's byte span or ``None`` (the value is a placeholder, a reference, a
hash, ...). A ``local`` rule's regex is matched at each occurrence of one of its
keywords (every occurrence, not a capped few), never searched through a line: its
keywords start its regex, and a ``tail`` (a regex the lowercased text must
match right after the keyword, checked in the keyword prefilter itself) keeps
it from running where a keyword is only a word of prose.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

Tier = Literal["certain", "likely"]
#: given the scanned bytes and a match, the secret's (start, stop) bytes, or None (or,
#: for a match that holds many, a table's rows, the list of them)
Check = Callable[[bytes, "re.Match[bytes]"], "tuple[int, int] | list[tuple[int, int]] | None"]
#: a check that finds one secret a match (most do)
SpanCheck = Callable[[bytes, "re.Match[bytes]"], "tuple[int, int] | None"]


@dataclass(frozen=True)
class Rule:
    """One credential rule; the vendor ones are ports of the gitleaks rule of the same id.

    Its regexes compile on first use (:attr:`pattern`, :attr:`searchers`,
    :attr:`allowlist`): the scanner runs a rule only where one of its keywords
    occurs, so a command scanning ordinary text compiles few of them."""

    id: str
    description: str
    #: the rule's regex source, compiled with ``re.ASCII`` (like Go's ``\w``, ``\s``, ``\b``)
    regex: str = field(repr=False)
    #: lowercase strings; the regex runs only if one occurs in the lowercased text
    keywords: tuple[str, ...]
    #: gitleaks' Shannon entropy threshold: a secret at or below it is dropped
    entropy: float | None = None
    #: the group holding the secret (0: the whole match)
    secret_group: int = 0
    #: gitleaks' leading ``\b``: the secret may not follow an ASCII word character
    word_start: bool = False
    #: the secret can span lines (PEM blocks)
    multiline: bool = False
    ignore_case: bool = False
    #: the secret is not a finding if one of these matches all of it
    allow: tuple[str, ...] = field(default=(), repr=False)
    #: the top-level alternatives of ``regex``, each searched on its own
    parts: tuple[str, ...] = field(default=(), repr=False, compare=False)
    #: ``certain``: blocked everywhere; ``likely``: held for a person
    tier: Tier = "certain"
    #: the secret's span from a match, or None: not a secret (see the module)
    check: Check | None = field(default=None, repr=False, compare=False)
    #: the regex is matched at each keyword occurrence (see the module)
    local: bool = False
    #: a regex (lowercased bytes) that must follow a keyword for it to count
    tail: str = field(default="", repr=False)
    #: its keywords mark a token split over two lines (the evasion tells)
    evades: bool = True
    #: a likely rule whose check's span lies within this group of its match: a match
    #: whose group lies inside a certain token already found is not checked (that
    #: token is the finding; "the token is ghp_...")
    within: int | None = None

    @property
    def flags(self) -> int:
        return re.ASCII | (re.IGNORECASE if self.ignore_case else 0)

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        return re.compile(self.regex, self.flags)

    @cached_property
    def allowlist(self) -> tuple[re.Pattern[str], ...]:
        return tuple(re.compile(a, re.ASCII) for a in self.allow)

    @cached_property
    def searchers(self) -> tuple[re.Pattern[bytes], ...]:
        """What the scanner runs: ``regex`` over UTF-8 bytes, one per top-level
        alternative where that gives ``re`` a literal prefix to search for."""
        flags = re.IGNORECASE if self.ignore_case else 0
        return tuple(re.compile(p.encode("utf-8"), flags) for p in self.parts or (self.regex,))


# gitleaks' token end (a quote, a space, ``;``, an escaped newline, the end) as a
# lookahead, plus what ends a token in prose, markup and URLs: closing brackets,
# ``&|*<@``, any backslash escape, a non-ASCII character, and sentence punctuation
# not followed by another token character (``NAME.attr`` stays unmatched).
END = r"""(?=[\x60'"\s;)\]}>|&*<@\\]|[.,:!?](?![\w+/=-])|[^\x00-\x7f]|$)"""

_LINE_BACK = 512


def line_start(data: bytes, pos: int) -> int:
    """Where the line that holds ``pos`` starts, at most 512 bytes back: what a check reads
    of a line stays bounded on a text of one long line (no check is quadratic)."""
    low = max(0, pos - _LINE_BACK)
    return max(data.rfind(b"\n", low, pos) + 1, low)


def make_rule(
    rule_id: str,
    description: str,
    regex: str | tuple[str, ...],
    keywords: tuple[str, ...],
    *,
    entropy: float | None = None,
    word_start: bool = False,
    ignore_case: bool = False,
    multiline: bool = False,
    allow: tuple[str, ...] = (),
    secret_group: int = 0,
    tier: Tier = "certain",
    check: Check | None = None,
    local: bool = False,
    tail: str = "",
    evades: bool = True,
    within: int | None = None,
) -> Rule:
    """A rule; a tuple ``regex`` is the alternation of its parts, searched one by one."""
    parts = (regex,) if isinstance(regex, str) else regex
    union = parts[0] if len(parts) == 1 else "|".join(f"(?:{p})" for p in parts)
    return Rule(
        id=rule_id,
        description=description,
        regex=union,
        keywords=keywords,
        entropy=entropy,
        word_start=word_start,
        multiline=multiline,
        ignore_case=ignore_case,
        allow=allow,
        parts=parts,
        secret_group=secret_group,
        tier=tier,
        check=check,
        local=local,
        tail=tail,
        evades=evades,
        within=within,
    )
