r"""The likely tier's last rule: a key's, a token's or a secret's value said in prose.

"Secret", "token" and "key" name many things that are no credential ("the secret is to
cache", "a token budget", "the key insight"), so where a password word needs only a
value that mixes a letter with a digit (:mod:`.likely`), these need a *generated* one:
twenty characters or more, with lowercase and uppercase letters and digits, a random
string's entropy, and no word between the name and the value that makes it public or
an identifier ("public key", "key id", "fingerprint", "commit"). ``token-in-prose``
finds "the keycloak client's secret is bISZ...", "the bot's token is ...",
"API ключ — ...", "令牌是 ...", the name and its mark together (the prefilter's keyword).

Written after the misses of a blind corpus, as detect-secrets pairs a keyword with a
high-entropy string (read, not copied); its entropy plugins alone are left out: every
hash and digest would be a finding.
"""

from __future__ import annotations

import re

from core.domain.secrets.likely import NEGATED, PROSE_VALUE
from core.domain.secrets.placeholders import shannon_entropy
from core.domain.secrets.rule import Rule, line_start, make_rule
from core.domain.secrets.values import HASH_WORDS, plausible, trim

_MIN_LENGTH = 20
_MIN_ENTROPY = 3.8
# (each name with the mark after it: "key" alone is in every other line of code, "key is"
# and "令牌是" are not; "key: v" and "token = v" are ``secret-assignment``'s)
_KEYWORDS = (
    *(
        f"{name}{mark}"
        for name in ("secret", "token", "key", "secrets", "tokens", "keys")
        for mark in (" is", " was", " are", " est", " es", " ist", " é", " —", " ->", " →")
    ),
    *("clé est", "chave é", "ключ", "токен", "토큰", "トークン", "キーは", "令牌", "秘钥"),
)
_NAME = (
    r"(?:(?<![\w.\[-])(?:secret|token|key|clé|chave)(?:s|es)?(?![\w-])"
    r"|ключ(?:а|и)?|токен(?:а|ы)?|토큰|トークン|キー|令牌|秘钥)"
)
# what says the value follows, right after the name: a verb or a colon, never a comma or
# a bare space ("the key aB3d..." may be a thing's name)
_MARK = (
    r"(?:[ \t]+(?:is|was|are|es|est|ist|é)(?:[ \t]+(?:now|still|jetzt|ahora))?"
    r"|[ \t]*(?:是|为|為|は|는|은|:|：|=|＝|—|->|→))[ \t]*"
)
_PATTERN = rf"{_NAME}{_MARK}{PROSE_VALUE}"
# what makes a named key or token no secret: said between the name and the value, or
# just before the name
_NOT_SECRET_BETWEEN = re.compile(
    r"\b(?:ids?|fingerprints?|public|publishable|hash|digest|checksum|commit|revision"
    r"|build|request|trace|version|serial|prefix)\b",
    re.IGNORECASE,
)
_NOT_SECRET_BEFORE = re.compile(
    r"(?:public|publishable|ssh|gpg|pgp|host|cache|idempotency|primary|foreign|sort"
    r"|partition|routing|dedup|object|license|licence|product|next[ _]page|page|csrf"
    r"|xsrf|continuation|sync)[ \t_-]*\Z",
    re.IGNORECASE,
)


def _generated(value: str) -> bool:
    """Twenty characters or more with lowercase, uppercase and digits, of a random
    string's entropy."""
    return (
        len(value) >= _MIN_LENGTH
        and any(c.islower() for c in value)
        and any(c.isupper() for c in value)
        and any(c.isdigit() for c in value)
        and shannon_entropy(value) >= _MIN_ENTROPY
    )


def _token_stated(data: bytes, match: re.Match[bytes]) -> tuple[int, int] | None:
    start, stop = match.span(1)
    value = trim(data[start:stop].decode("utf-8", "replace"))
    if not _generated(value) or not plausible(value, hex_is_hash=False):
        return None
    between = data[match.start() : start].decode("utf-8", "replace")
    before = data[max(0, match.start() - 24) : match.start()].decode("utf-8", "replace")
    line_end = data.find(b"\n", stop, stop + 512)
    line = data[line_start(data, match.start()) : stop + 512 if line_end == -1 else line_end]
    if _NOT_SECRET_BETWEEN.search(between) or _NOT_SECRET_BEFORE.search(before):
        return None
    if HASH_WORDS.search(line.decode("utf-8", "replace")):
        return None
    if NEGATED.search(data, max(0, match.start() - 16), match.start()):
        return None  # "无 Secret": said to be none
    return start, start + len(value.encode("utf-8"))


TOKEN_RULES: tuple[Rule, ...] = (
    make_rule("token-in-prose", "A generated key, token or secret stated in prose", _PATTERN,
              _KEYWORDS, ignore_case=True, tier="likely", check=_token_stated, local=True,
              evades=False, within=1),
)  # fmt: skip
