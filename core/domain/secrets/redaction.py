"""Redaction: a text with every secret, plain or hidden, replaced by its rule's id.

What the desk and the CLI print of a memory goes through :func:`redact`.

A text is scanned once per content: the result is kept in a bounded
least-recently-used cache (:class:`RedactionCache`) keyed by the rules'
version and a BLAKE2b digest of the text, so the desk's search, a re-rendered
list or the same title shown twice costs a dictionary lookup, not a scan. The
cache holds no secret: the key is a digest, the value is the redacted text
(the text itself when it had none); an erased record's content does not stay
in memory through it. It lives in this process only and is never written
anywhere.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable

from core.domain.secrets import placeholders
from core.domain.secrets.rules import RULES
from core.domain.secrets.scanner import text_spans


def _rules_version() -> bytes:
    """A digest of what decides a finding: every rule (id, regex, flags, keywords,
    entropy, group, anchoring, allowlist) and the global placeholder allowlist.
    The table is a tuple of frozen rules, so within a process this changes only
    with the code; a cached result is never one of other rules."""
    h = hashlib.blake2b(digest_size=16)
    for rule in RULES:
        parts = (
            rule.id,
            rule.regex,
            str(rule.flags),
            *rule.keywords,
            repr(rule.entropy),
            str(rule.secret_group),
            str(rule.word_start),
            str(rule.multiline),
            *rule.allow,
            rule.tier,
            rule.tail,
            str(rule.local),
            getattr(rule.check, "__qualname__", ""),
        )
        h.update("\0".join(parts).encode("utf-8", "surrogatepass") + b"\1")
    for pattern in (placeholders._PLACEHOLDER_WORDS, placeholders._TEMPLATE, placeholders._RUN):
        h.update(pattern.pattern.encode("utf-8") + b"\1")
    h.update(repr((placeholders._SEQUENCES, placeholders._SEQUENTIAL_RUN)).encode("utf-8"))
    return h.digest()


RULES_VERSION = _rules_version()


class RedactionCache:
    """Redacted texts by ``(rules version, length, BLAKE2b-128 of the text)``.

    Bounded twice: at most ``max_entries`` results and ``max_chars`` characters of
    results (a text of more than ``max_text`` characters, such as a whole index,
    is scanned every time and not kept). Least recently used goes first.
    Thread-safe: the desk redacts in workers. ``scans`` counts the texts actually
    scanned, ``hits`` the ones answered from the cache.
    """

    def __init__(
        self,
        *,
        max_entries: int = 65_536,
        max_chars: int = 64 * 1024 * 1024,
        max_text: int = 1024 * 1024,
    ) -> None:
        self.max_entries, self.max_chars, self.max_text = max_entries, max_chars, max_text
        self._results: OrderedDict[tuple[bytes, int, bytes], str] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()
        self.scans = 0
        self.hits = 0

    def __len__(self) -> int:
        return len(self._results)

    @property
    def chars(self) -> int:
        """How many characters of results are held."""
        return self._chars

    def clear(self) -> None:
        with self._lock:
            self._results.clear()
            self._chars = 0

    def redact(self, text: str) -> str:
        if len(text) > self.max_text:
            return self._scan(text)
        digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        key = (RULES_VERSION, len(text), digest)
        with self._lock:
            found = self._results.get(key)
            if found is not None:
                self._results.move_to_end(key)
                self.hits += 1
                return found
        result = self._scan(text)
        with self._lock:
            if key not in self._results:
                self._results[key] = result
                self._chars += len(result)
                while self._results and (
                    len(self._results) > self.max_entries or self._chars > self.max_chars
                ):
                    _key, dropped = self._results.popitem(last=False)
                    self._chars -= len(dropped)
        return result

    def _scan(self, text: str) -> str:
        with self._lock:
            self.scans += 1
        return _redact_uncached(text)


#: the process's one cache: what :func:`redact` answers from
CACHE = RedactionCache()


def redact(text: str) -> str:
    """The text with every secret replaced by ``[secret: rule-id]``.

    What the desk and the CLI print of a memory goes through this, so a credential
    that reached a store (pasted by hand, imported) is never shown. A hidden one
    is replaced where it stands in ``text``, its disguise included (for base64,
    the characters that encode it); where a raw and a hidden span overlap, both
    go under one replacement. Each content is scanned once (:data:`CACHE`).
    """
    return CACHE.redact(text)


def redact_marked(text: str, mark: Callable[[str, bytes], str]) -> str:
    """The text with every secret replaced by ``mark(rule id, the secret's bytes)``
    (not cached: the mark is the caller's). What a daily log keeps of a message:
    :func:`core.store.logs.redacted` marks each secret with its rule and a salted
    hash, so a later quote of the message still finds its line."""
    return _redact_uncached(text, mark)


def _plain_mark(rule: str, _value: bytes) -> str:
    return f"[secret: {rule}]"


def _redact_uncached(text: str, mark: Callable[[str, bytes], str] = _plain_mark) -> str:
    data, raw, hidden = text_spans(text, "redact")
    if not raw and not hidden:
        return text
    out = bytearray()
    taken_until = 0
    for start, order, stop, _via in sorted(raw + hidden):
        if start < taken_until:
            if stop > taken_until:
                taken_until = stop  # the same secret seen twice: hide the union
            continue
        out += data[taken_until:start]
        out += mark(RULES[order].id, data[start:stop]).encode()
        taken_until = stop
    out += data[taken_until:]
    return out.decode("utf-8", "surrogatepass")
