"""The raw scan: rules' keywords found first, then their regexes run where they occur.

:func:`prepare` turns a text into its UTF-8 bytes, lowercased bytes and keyword
hits (:mod:`.prefilter`); :func:`find_secrets` gives every accepted secret, rule by
rule, as (start byte, rule index, stop byte). :func:`keyword_pattern` and
:func:`keyword_at_pattern` match any vendor token's keyword, for the evasion layers.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator
from typing import Any

from core.domain.secrets.placeholders import accept
from core.domain.secrets.prefilter import AUTOMATA as _AUTOMATA
from core.domain.secrets.prefilter import BY_KEYWORD as _BY_KEYWORD
from core.domain.secrets.prefilter import KEYWORD_NEEDLES, keyword_hits, verified
from core.domain.secrets.prefilter import LOCAL as _LOCAL
from core.domain.secrets.prefilter import MAX_WINDOWS as _MAX_WINDOWS
from core.domain.secrets.prefilter import NEEDLES as _NEEDLES
from core.domain.secrets.prefilter import RULES_OF as _RULES_OF
from core.domain.secrets.rules import RULES, Rule

__all__ = [
    "_AUTOMATA",
    "_BY_KEYWORD",
    "_LOCAL",
    "_MAX_WINDOWS",
    "_NEEDLES",
    "evading_keywords",
    "find_secrets",
    "keyword_at_pattern",
    "keyword_hits",
    "keyword_pattern",
    "prepare",
]


def _trie(words: Iterable[bytes]) -> bytes:
    """A regex matching any of ``words``, factored by first byte (``re`` then
    tests one branch per byte, not every word in turn)."""
    heads: dict[bytes, list[bytes]] = {}
    whole = False
    for word in sorted(set(words)):
        if word:
            heads.setdefault(word[:1], []).append(word[1:])
        else:
            whole = True
    branches = [re.escape(h) + _trie(tails) for h, tails in heads.items()]
    if not branches:
        return b""
    body = branches[0] if len(branches) == 1 else b"(?:" + b"|".join(branches) + b")"
    return b"(?:" + body + b")?" if whole else body


_LITERAL = re._constants.LITERAL  # type: ignore[attr-defined]
_SUBPATTERN = re._constants.SUBPATTERN  # type: ignore[attr-defined]
_BRANCH = re._constants.BRANCH  # type: ignore[attr-defined]

_WORD_BYTES = frozenset(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz")


# Rules each of whose matches lies on one line (no part of the regex matches a line
# break) and holds 20 characters of the base64 alphabet in a row: over a text where
# their keywords are common, they run on the lines that hold the text's base64 runs
# (``runs``, which the evasion layer finds anyway: every 20 such characters in a row
# are inside one), not over the whole text. Each with the digest of the regex this
# was worked out for (see :func:`.prefilter.verified`).
_IN_LONG_RUN = (
    ("aws-access-token", "f20069002e717f52"),  # AKIA and 16 of [A-Z2-7]
    # hvs. and 90 of [\w-]; s. and 24 of [a-zA-Z0-9]
    ("vault-service-token", "67b2889dd85570f9"),
    ("aws-secret-key-pair", "2891f856ca8b0ea2"),  # AKIA and 16 of [A-Z2-7], on one line
)
RUN_RULES = frozenset(
    order
    for order, rule in enumerate(RULES)
    for rule_id, digest in _IN_LONG_RUN
    if rule.id == rule_id and verified(rule, digest)
)
#: (start, end) of each base64 run of a text (:func:`.hidden.base64_runs`)
Runs = list[tuple[int, int]]


def _run_lines(runs: Runs, lowered: bytes) -> list[tuple[int, int]]:
    """The lines that hold the runs, as windows (merged)."""
    size = len(lowered)
    spans: list[tuple[int, int]] = []
    for begin, end in runs:
        if spans and begin < spans[-1][1]:
            if end > spans[-1][1]:
                stop = lowered.find(b"\n", end - 1)
                spans[-1] = (spans[-1][0], size if stop == -1 else stop)
            continue
        stop = lowered.find(b"\n", end - 1)
        spans.append((lowered.rfind(b"\n", 0, begin) + 1, size if stop == -1 else stop))
    return spans


def _windows(
    order: int, hits: dict[bytes, list[int]], lowered: bytes, runs: Runs | None
) -> list[tuple[int, int]]:
    """Byte spans to run the rule's regex on: none if no keyword occurs."""
    rule = RULES[order]
    size = len(lowered)
    at = sorted(i for needle in _NEEDLES[order] for i in hits.get(needle, ()))
    if not at:
        return []
    if rule.local:
        return [(i, i) for i in dict.fromkeys(at)]  # matched where each keyword starts
    if runs is not None and order in RUN_RULES and (not runs or len(at) > _MAX_WINDOWS):
        return _run_lines(runs, lowered)  # (no run: no match)
    if len(at) > _MAX_WINDOWS:
        return [(0, size)]
    if rule.multiline:
        return [(lowered.rfind(b"\n", 0, at[0]) + 1, size)]
    spans: list[tuple[int, int]] = []
    for i in at:
        if spans and i < spans[-1][1]:
            continue  # on a line already taken
        end = lowered.find(b"\n", i)
        spans.append((lowered.rfind(b"\n", 0, i) + 1, size if end == -1 else end))
    return spans


#: the certain tokens found so far (a likely rule's match inside one is not checked)
Taken = list[tuple[int, int]] | None


def _candidates(
    rule: Rule,
    windows: list[tuple[int, int]],
    data: bytes,
    taken: Taken = None,
    lowered: bytes | None = None,
) -> Iterator[tuple[int, int]]:
    """Byte (start, end) of each accepted secret of ``rule`` in the windows of ``data``
    (``taken``: the certain tokens found, for a rule with ``within``). Searched through
    the whole text, a regex is not run where a literal every match of it holds is
    nowhere (:func:`_may_occur`; ``lowered``: ``data.lower()``, if the caller has it)."""
    if rule.local:
        yield from _local_candidates(rule, windows, data, taken)
        return
    whole = windows == [(0, len(data))]
    for searcher in rule.searchers:
        if whole and not _may_occur(searcher, data, lowered):
            continue
        for begin, end in windows:
            pos = begin
            while pos < end:
                match = searcher.search(data, pos, end)
                if match is None:
                    break
                start, stop = match.span(rule.secret_group)
                if rule.word_start and start > 0 and data[start - 1] in _WORD_BYTES:
                    pos = match.start() + 1  # gitleaks' \b: try again one byte on
                    continue
                pos = max(match.end(), match.start() + 1)
                if taken and _inside(taken, match.span(rule.within or 0)):
                    continue
                spans = [(start, stop)] if rule.check is None else _spans(rule.check(data, match))
                for start, stop in spans:
                    if accept(rule, data[start:stop].decode("utf-8", "replace")):
                        yield start, stop


@functools.cache
def _required(searcher: re.Pattern[bytes]) -> tuple[tuple[bytes, ...], ...]:
    """What every match of ``searcher``'s regex holds, read off its top level: each
    run of literal bytes, and each group of alternatives that all start with one (any
    of them); lowered when the regex ignores case. A run of one byte is left out."""
    required: list[tuple[bytes, ...]] = []
    run = bytearray()
    for op, arg in re._parser.parse(searcher.pattern, searcher.flags):  # type: ignore[attr-defined]
        if op is _LITERAL:
            run.append(arg)
            continue
        required.append((bytes(run),))
        run.clear()
        required.append(_any_of(op, arg))
    required.append((bytes(run),))
    fold = searcher.flags & re.IGNORECASE
    return tuple(
        tuple(r.lower() if fold else r for r in any_of)
        for any_of in required
        if any_of and all(len(r) > 1 for r in any_of)
    )


def _any_of(op: object, arg: Any) -> tuple[bytes, ...]:
    """The leading literal runs of a group of alternatives (``(?:curl|wget)``, which the
    parser puts at the top level, or a capturing group of them), or ()."""
    if op is _SUBPATTERN and not (arg[1] or arg[2]):  # (a group with flags of its own: no)
        inner = list(arg[3])
        if len(inner) != 1:
            return ()
        op, arg = inner[0]
    if op is not _BRANCH:
        return ()
    leads = []
    for branch in arg[1]:
        lead = bytearray()
        for item_op, item_arg in branch:
            if item_op is not _LITERAL:
                break
            lead.append(item_arg)
        leads.append(bytes(lead))
    return tuple(leads)


def _may_occur(searcher: re.Pattern[bytes], data: bytes, lowered: bytes | None) -> bool:
    """Whether what :func:`_required` finds is in the text (a byte search each: a
    regex that starts with no literal is tried at every byte)."""
    required = _required(searcher)
    if not required:
        return True
    text = data
    if searcher.flags & re.IGNORECASE:
        text = data.lower() if lowered is None else lowered
    return all(any(r in text for r in any_of) for any_of in required)


def _local_candidates(
    rule: Rule, windows: list[tuple[int, int]], data: bytes, taken: Taken = None
) -> Iterator[tuple[int, int]]:
    """A local rule's secrets: its regex matched at each keyword, each span once."""
    seen: set[tuple[int, int]] = set()
    for searcher in rule.searchers:
        for begin, _end in windows:
            match = searcher.match(data, begin)
            if match is None or (taken and _inside(taken, match.span(rule.within or 0))):
                continue
            spans = [match.span()] if rule.check is None else _spans(rule.check(data, match))
            for span in spans:
                if span in seen:
                    continue
                seen.add(span)
                if accept(rule, data[span[0] : span[1]].decode("utf-8", "replace")):
                    yield span


def _inside(taken: list[tuple[int, int]], span: tuple[int, int]) -> bool:
    """Whether ``span`` lies inside one of the spans ``taken``."""
    start, stop = span
    return any(begin <= start and stop <= end for begin, end in taken)


def _spans(found: tuple[int, int] | list[tuple[int, int]] | None) -> list[tuple[int, int]]:
    """A check's answer as a list: none, one span, or a table's many."""
    if found is None:
        return []
    return found if isinstance(found, list) else [found]


def prepare(text: str, caller: str) -> tuple[bytes, bytes, dict[bytes, list[int]]]:
    """The text's UTF-8 bytes, lowercased bytes, and keyword hits."""
    if not isinstance(text, str):
        raise TypeError(f"{caller}() expects str, not {type(text).__name__}")
    data = text.encode("utf-8", "surrogatepass")
    lowered = data.lower()
    return data, lowered, keyword_hits(lowered)


def find_secrets(
    data: bytes, lowered: bytes, hits: dict[bytes, list[int]], runs: Runs | None = None
) -> Iterator[tuple[int, int, int]]:
    """(start, rule index, end) of every accepted secret, rule by rule. ``runs``: the
    text's base64 runs, if known (some rules then run on their lines only)."""
    if not hits:
        return
    found = {order for needle in hits for order in _RULES_OF[needle]}
    taken: list[tuple[int, int]] = []  # the certain tokens found, run before the likely
    # (a rule none of whose keywords occurs is not even compiled)
    for order in sorted(found, key=_CERTAIN_FIRST.__getitem__):
        windows = _windows(order, hits, lowered, runs)
        if not windows:
            continue
        rule = RULES[order]
        certain = rule.tier == "certain"
        within = taken if rule.within else None
        for start, stop in _candidates(rule, windows, data, within, lowered):
            if certain:
                taken.append((start, stop))
            yield start, order, stop


#: each rule's place in the run: the certain tier's first, then the likely, in order
_CERTAIN_FIRST = [(rule.tier != "certain", order) for order, rule in enumerate(RULES)]


@functools.cache
def evading_keywords() -> tuple[bytes, ...]:
    """The keywords that mark a token split over lines: the vendor tokens' (a likely
    rule's ``password`` or ``token`` would make every wrapped sentence a tell), sorted."""
    return tuple(
        sorted(
            {k for rule, n in zip(RULES, KEYWORD_NEEDLES, strict=True) if rule.evades for k in n}
        )
    )


@functools.cache
def keyword_pattern() -> re.Pattern[bytes]:
    """Any of :func:`evading_keywords`. Compiled by its first use."""
    return re.compile(_trie(evading_keywords()))


@functools.cache
def keyword_at_pattern() -> re.Pattern[str]:
    """:func:`keyword_pattern` for a ``str``, in any case."""
    return re.compile(keyword_pattern().pattern.decode("ascii"), re.IGNORECASE | re.ASCII)
