"""Which candidates are no secret: entropy, the rule's allowlist, placeholders.

:func:`accept` is the last word on a regex match (steps 3 and 4 of a scan): a
secret at or below its rule's entropy threshold, one its rule's allowlist
matches whole, or a documented placeholder (``EXAMPLE``-ish words, template
variables, sequential alphabets, runs of one character) is not a finding.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import re
from collections import Counter

from core.domain.secrets.rule import Rule

_PLACEHOLDER_WORDS = re.compile(
    r"example|placeholder|redacted|dummy|sample|changeme|change_me|your[_-]|[_-]here(?![a-z])",
    re.IGNORECASE,
)
_TEMPLATE = re.compile(
    r"\$\{[^}]*\}|\{\{.*?\}\}|<[^<>]+>|%[A-Za-z_]+%|\$[A-Za-z_][A-Za-z0-9_]*"
    r"|\{[^{}\s]*\}|%\([^)]*\)[sdr]",
    re.DOTALL,
)
_SEQUENCES = ("0123456789", "abcdefghijklmnopqrstuvwxyz", "qwertyuiop")
_SEQUENTIAL_RUN = 8
_SEQUENTIAL = re.compile(
    "|".join(
        sorted(
            {
                seq[i : i + _SEQUENTIAL_RUN]
                for s in _SEQUENCES
                for seq in (s, s[::-1])
                for i in range(len(seq) - _SEQUENTIAL_RUN + 1)
            }
        )
    )
)
# each sequence's next character, forwards and backwards (what :func:`mostly_sequence`
# follows to find runs of four or more)
_NEXT = tuple(dict(itertools.pairwise(seq)) for s in _SEQUENCES for seq in (s, s[::-1]))
_SHORTEST_RUN = 4
_RUN = re.compile(r"([0-9A-Za-z])\1{3,}")  # four or more of one character
_NOT_ALNUM = re.compile(r"[^0-9A-Za-z]")  # (what ``isascii() and isalnum()`` refuses)


def shannon_entropy(data: str) -> float:
    """Shannon entropy of ``data`` in bits per character (gitleaks' definition)."""
    if not data:
        return 0.0
    size = len(data)
    # each character's count in the order it first occurs (the same sum, to the last
    # bit): by ``str.count`` on a token's length (faster), by ``Counter`` beyond it
    counts = Counter(data).values() if size > 256 else map(data.count, dict.fromkeys(data))
    return -sum(n / size * math.log2(n / size) for n in counts)


def mostly_runs(value: str) -> bool:
    """At least half the letters and digits sit in runs of one character (xxxx, 0000)."""
    chars = _NOT_ALNUM.sub("", value)
    if not chars:
        return True
    covered = sum(len(m.group()) for m in _RUN.finditer(chars))
    return covered * 2 >= len(chars)


def looks_sequential(value: str) -> bool:
    """Eight characters of a sequence (``12345678``, ``abcdefgh``, ``qwertyui``) in it."""
    return bool(_SEQUENTIAL.search(value.lower()))


_HUMAN_LENGTH = 16


def mostly_sequence(value: str) -> bool:
    """Eight characters of a sequence in a long value (a generated token's placeholder,
    ``dapi`` and two runs of ``0123456789abcdef``), or in a short one with at most two
    characters beside the runs of four or more of one (``12345678``, ``123456789a``). A
    person's ``Qq123456789!`` (sixteen characters or fewer, three beside the run) is a
    password, however weak."""
    lowered = value.lower()
    if not _SEQUENTIAL.search(lowered):
        return False
    return len(value) > _HUMAN_LENGTH or len(value) - _in_runs(lowered) <= 2


def _in_runs(lowered: str) -> int:
    """How many characters stand in runs of four or more of one sequence."""
    covered: set[int] = set()
    for following in _NEXT:
        start = 0
        for i in range(1, len(lowered) + 1):
            if i < len(lowered) and following.get(lowered[i - 1]) == lowered[i]:
                continue
            if i - start >= _SHORTEST_RUN:
                covered.update(range(start, i))
            start = i
    return len(covered)


def _is_placeholder(value: str) -> bool:
    """A documented placeholder, not a credential."""
    return bool(
        _PLACEHOLDER_WORDS.search(value)
        or _TEMPLATE.search(value)
        or looks_sequential(value)
        or mostly_runs(value)
    )


# secrets published in vendors' documentation for all to use, by their SHA-256 (so that
# this file holds none): MongoDB's connection-string sample password, and the key of
# Azurite, Azure's storage emulator
_PUBLISHED = frozenset(
    {
        "412a54cd6f4c7f2859ec2a6988a79bbd6e64d17733f4b021f3253d9ed6ab57da",
        "0011cc25eb4320717494d2703e8cba85743e71b500283c21c8b88147992f9059",
    }
)


def accept(rule: Rule, secret: str) -> bool:
    if hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest() in _PUBLISHED:
        return False
    if rule.entropy is not None and shannon_entropy(secret) <= rule.entropy:
        return False
    if any(a.fullmatch(secret) for a in rule.allowlist):
        return False
    # a rule with a check judges its value itself (:mod:`.values`): a password may
    # hold ``$`` and letters, which the template allowlist takes for ``$VAR``
    return rule.check is not None or not _is_placeholder(secret)
