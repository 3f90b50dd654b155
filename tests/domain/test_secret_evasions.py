"""Attacks on the secret scanner: a real-shaped token, hidden so a naive scan misses it.

Each test plays the person who wants a credential past the write gate and the
team guard: it takes a fake token of one rule family (GitHub, AWS, Slack,
OpenAI, Anthropic, a PEM private key), hides it one way (an invisible
character inside, bidi controls, full-width or look-alike letters, URL or
backslash escapes, a line break in the middle, base64), and checks that
``scan`` still reports it at the line and column where the hidden form starts,
marked with how it was hidden, that ``is_clean`` says no and that ``redact``
leaves nothing of it. Then the other side: ordinary text that looks like the
tells (CJK with full-width punctuation, Cyrillic and Greek words, base64 of
prose, URLs with ``%20``) stays clean, and base64 decoding stays bounded.

No token is written in this file: every one is a prefix plus a body drawn at
test time from a seeded ``random.Random`` (random digits, never a run that the
placeholder allowlist would take for a documentation sequence).
"""

from __future__ import annotations

import base64
import dataclasses
import json
import random
import re
import string
import time
import tracemalloc
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.domain import secrets
from core.domain.secrets import EvadedFinding, Finding, is_clean, redact, scan
from core.domain.secrets.hidden import B64_LEVELS

ROOT = Path(__file__).resolve().parents[2]

UPPER = string.ascii_uppercase
DIGITS = string.digits
ALNUM = string.ascii_letters + DIGITS
URLSAFE = ALNUM + "_-"
BASE32 = UPPER + "234567"


def rng_for(name: str) -> random.Random:
    return random.Random(zlib.crc32(name.encode()))


def body(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def pem(rng: random.Random) -> str:
    raw = base64.b64encode(rng.randbytes(48 * 6)).decode()
    middle = "\n".join(raw[i : i + 64] for i in range(0, len(raw), 64))
    kind = "RSA PRIVATE KEY"
    return "-----" + "BEGIN " + kind + "-----\n" + middle + "\n-----" + "END " + kind + "-----"


Maker = Callable[[random.Random], str]

# One fake token per family: (rule id, maker).
FAMILIES: dict[str, tuple[str, Maker]] = {
    "github": ("github-pat", lambda r: "ghp_" + body(r, ALNUM, 36)),
    "aws": ("aws-access-token", lambda r: "AKIA" + body(r, BASE32, 16)),
    "slack": (
        "slack-bot-token",
        lambda r: (
            "xoxb-" + body(r, DIGITS, 11) + "-" + body(r, DIGITS, 12) + "-" + body(r, ALNUM, 24)
        ),
    ),
    "openai": (
        "openai-api-key",
        lambda r: (
            "sk-proj-"
            + body(r, URLSAFE, 74)
            + "T3BlbkFJ"
            + body(r, URLSAFE, 73)
            + body(r, ALNUM, 1)
        ),
    ),
    "anthropic": (
        "anthropic-api-key",
        lambda r: "sk-ant-api03-" + body(r, URLSAFE, 93) + "AA",
    ),
    "pem": ("private-key", pem),
}


def token_of(family: str) -> str:
    return FAMILIES[family][1](rng_for(family))


# --- the evasions: token -> hidden token ---------------------------------------------------

Evasion = Callable[[str], str]

# Cyrillic and Greek letters a reader takes for Latin ones.
LOOKALIKE = {
    "a": "\u0430",  # Cyrillic a
    "e": "\u0435",  # Cyrillic ie
    "o": "\u043e",  # Cyrillic o
    "p": "\u0440",  # Cyrillic er
    "x": "\u0445",  # Cyrillic ha
    "s": "\u0455",  # Cyrillic dze
    "A": "\u0410",  # Cyrillic A
    "K": "\u041a",  # Cyrillic Ka
    "P": "\u0420",  # Cyrillic Er
    "E": "\u0395",  # Greek Epsilon
    "T": "\u03a4",  # Greek Tau
    "I": "\u0399",  # Greek Iota
}


def insert_at(token: str, where: int, what: str) -> str:
    return token[:where] + what + token[where:]


def cut(token: str) -> int:
    """Where to break a token: its middle, but inside its first twelve characters (a
    Slack bot token broken later still has a whole token's shape before the break)."""
    return min(len(token) // 2, 12)


def in_prefix(token: str, what: str) -> str:
    """``what`` after the token's second character: inside every family's prefix."""
    return insert_at(token, 2, what)


def full_width(token: str) -> str:
    """Letters, digits, ``_`` and ``-`` as full-width forms (NFKC gives them back)."""
    keep = set(ALNUM + "_-")
    return "".join(chr(ord(c) + 0xFEE0) if c in keep else c for c in token)


def lookalike_prefix(token: str) -> str:
    """Every look-alike-able letter of the first twelve characters swapped."""
    head = "".join(LOOKALIKE.get(c, c) for c in token[:12])
    assert head != token[:12]
    return head + token[12:]


def percent(chars: str) -> str:
    return "".join(f"%{ord(c):02X}" for c in chars)


def url_encoded(token: str) -> str:
    """The first character and every ``_``, ``-`` and space as ``%XX``."""
    return percent(token[0]) + "".join(percent(c) if c in "_- " else c for c in token[1:])


def json_escaped(token: str) -> str:
    return f"\\u{ord(token[0]):04x}" + token[1:].replace("-", "\\u002d").replace("_", "\\u005f")


def python_escaped(token: str) -> str:
    return "".join(f"\\x{ord(c):02x}" if i < 4 else c for i, c in enumerate(token))


def split_plain(token: str) -> str:
    """A line break and indentation in the middle (YAML, wrapped Markdown)."""
    return token[: cut(token)] + "\n      " + token[cut(token) :]


def split_concat(token: str) -> str:
    """Two string literals joined with ``+`` over two lines."""
    return '"' + token[: cut(token)] + '" +\n    "' + token[cut(token) :] + '"'


def split_in_prefix(token: str) -> str:
    """Implicit concatenation, broken inside the prefix itself."""
    return "'" + token[:2] + "'\n    '" + token[2:] + "'"


def b64(token: str) -> str:
    return base64.b64encode(f"export API_TOKEN={token}\n".encode()).decode()


def b64_wrapped(token: str) -> str:
    """MIME style: 76 characters a line, the token somewhere past the first line."""
    text = "configuration for the deploy job, do not share it with anyone\n"
    return base64.encodebytes((text + f"token = {token}\n" + text).encode()).decode().strip()


def b64_nested(token: str) -> str:
    return base64.b64encode(b64(token).encode()).decode()


EVASIONS: dict[str, tuple[str, Evasion]] = {
    "zero-width-space": ("zero-width", lambda t: in_prefix(t, "\u200b")),
    "zero-width-joiner": ("zero-width", lambda t: in_prefix(t, "\u200d")),
    "zero-width-non-joiner": ("zero-width", lambda t: insert_at(t, cut(t), "\u200c")),
    "word-joiner": ("zero-width", lambda t: in_prefix(t, "\u2060")),
    "bom": ("zero-width", lambda t: in_prefix(t, "\ufeff")),
    "soft-hyphen": ("zero-width", lambda t: in_prefix(t, "\u00ad")),
    "invisible-everywhere": ("zero-width", lambda t: "\u200b".join(t)),
    "bidi-override": ("zero-width", lambda t: in_prefix(t, "\u202e")),
    "bidi-isolates": ("zero-width", lambda t: in_prefix(t, "\u2066") + "\u2069"),
    "full-width": ("nfkc", full_width),
    "lookalike-letters": ("homoglyph", lookalike_prefix),
    "url-encoded": ("url", url_encoded),
    "json-escape": ("escape", json_escaped),
    "python-hex-escape": ("escape", python_escaped),
    "split-indented": ("split", split_plain),
    "split-concatenated": ("split", split_concat),
    "split-inside-prefix": ("split", split_in_prefix),
    "base64": ("base64", b64),
    "base64-wrapped": ("base64", b64_wrapped),
    "base64-twice": ("base64", b64_nested),
}

# What does not apply to a PEM block (already many lines; no short prefix).
NOT_FOR_PEM = {
    "zero-width-non-joiner",  # inside the body: still a PEM block
    "split-indented",
    "split-concatenated",
    "split-inside-prefix",
    "invisible-everywhere",
    "python-hex-escape",
    "lookalike-letters",  # a PEM header gets its own look-alike attack below
}
CASES = [
    (family, evasion)
    for family in FAMILIES
    for evasion in EVASIONS
    if not (family == "pem" and evasion in NOT_FOR_PEM)
]
PREFIX = "notes from the deploy\nthe key: "  # the hidden token starts at line 2, column 10
SUFFIX = " (rotate it)\n"


def planted(family: str, evasion: str) -> tuple[str, str, str, str]:
    """(text, hidden token, the plain token, expected via)."""
    token = token_of(family)
    via, hide = EVASIONS[evasion]
    hidden = hide(token)
    assert hidden != token
    return PREFIX + hidden + SUFFIX, hidden, token, via


def body_chunks(token: str) -> list[str]:
    """Eight-character pieces of the token past its prefix: none may be shown."""
    rest = token[8:].replace("\n", "")
    return [rest[i : i + 8] for i in range(0, len(rest) - 8, 4)]


def readable(text: str, levels: int = 2) -> str:
    """``text`` and what its base64 runs decode to (any alignment), ``levels`` deep."""
    out = [text]
    if levels:
        for run in re.findall(r"[A-Za-z0-9+/=\n]{16,}", text):
            clean = run.replace("\n", "").rstrip("=")
            for shift in range(4):
                part = clean[shift:]
                part = part[: len(part) - len(part) % 4]
                decoded = base64.b64decode(part + "==", validate=False).decode("latin-1")
                out.append(readable(decoded, levels - 1))
    return "\n".join(out)


# Evasions whose hidden form is the token's span and nothing more: redact puts the
# replacement exactly in its place.
WHOLE_SPAN = {
    name
    for name in EVASIONS
    if name not in {"bidi-isolates", "split-concatenated", "split-inside-prefix"}
    and "base64" not in name
}


# --- every evasion, every family ------------------------------------------------------------------


def test_every_family_token_is_found_in_plain_sight() -> None:
    for family, (rule_id, _) in FAMILIES.items():
        findings = scan(PREFIX + token_of(family) + SUFFIX)
        assert [(f.rule_id, f.line, f.column) for f in findings] == [(rule_id, 2, 10)]
        assert type(findings[0]) is Finding  # a plain one is not marked as hidden


@pytest.mark.parametrize(("family", "evasion"), CASES, ids=[f"{f}-{e}" for f, e in CASES])
def test_hidden_token_is_found_where_it_starts(family: str, evasion: str) -> None:
    text, hidden, _, via = planted(family, evasion)
    rule_id = FAMILIES[family][0]
    assert not secrets.RULES[[r.id for r in secrets.RULES].index(rule_id)].pattern.search(text)
    findings = scan(text)
    assert [f.rule_id for f in findings] == [rule_id]
    (finding,) = findings
    assert isinstance(finding, EvadedFinding)
    assert finding.via == via
    if via == "base64":  # somewhere inside the blob that encodes it
        lines = hidden.split("\n")
        assert 2 <= finding.line < 2 + len(lines)
        if finding.line == 2:
            assert 10 <= finding.column < 10 + len(lines[0])
        else:
            assert 1 <= finding.column <= len(lines[finding.line - 2])
    else:  # the token's first character (after a quote that opens the hidden form)
        assert finding.line == 2
        assert finding.column == 10 + (hidden[0] in "\"'")
    assert not is_clean(text)


@pytest.mark.parametrize(("family", "evasion"), CASES, ids=[f"{f}-{e}" for f, e in CASES])
def test_redact_hides_the_hidden_token(family: str, evasion: str) -> None:
    text, hidden, token, _ = planted(family, evasion)
    shown = redact(text)
    rule_id = FAMILIES[family][0]
    assert f"[secret: {rule_id}]" in shown
    assert shown.startswith("notes from the deploy\nthe key: ")
    assert shown.endswith(SUFFIX)
    everything = readable(shown)
    for chunk in body_chunks(token):
        assert chunk not in everything
    if "base64" not in evasion:
        for chunk in body_chunks(hidden):
            assert chunk not in shown
    assert is_clean(shown)
    if evasion in WHOLE_SPAN:  # the replacement takes exactly the hidden form's place
        assert shown == PREFIX + f"[secret: {rule_id}]" + SUFFIX


@pytest.mark.parametrize("kind", ["\u0420RIVATE", "PRIV\u0410TE", "PRIVAT\u0395"])
def test_pem_header_with_a_lookalike_letter(kind: str) -> None:
    block = pem(rng_for("pem-lookalike")).replace("PRIVATE", kind, 1)
    findings = scan(PREFIX + block + SUFFIX)
    assert [(f.rule_id, f.line, f.column, getattr(f, "via", None)) for f in findings] == [
        ("private-key", 2, 10, "homoglyph")
    ]


def test_pem_written_as_split_string_literals() -> None:
    block = pem(rng_for("pem-literals"))
    lines = block.split("\n")
    literal = (
        'KEY = (\n    "-----"\n    "'
        + lines[0][5:]
        + '\\n"\n'
        + "".join(f'    "{line}\\n"\n' for line in lines[1:])
        + ")\n"
    )
    assert "-----BEGIN" not in literal
    findings = scan(literal)
    assert [(f.rule_id, f.line, getattr(f, "via", None)) for f in findings] == [
        ("private-key", 2, "split")
    ]
    assert lines[2][:40] not in redact(literal)


def test_code_that_builds_a_pem_from_pieces_is_no_key() -> None:
    code = (
        "def to_pem(body: str) -> str:\n"
        '    return ("-----"\n'
        '            + "BEGIN PRIVATE KEY-----\\n"\n'
        '            + "\\n".join(body[i : i + 64] for i in range(0, len(body), 64))\n'
        '            + "\\n-----"\n'
        '            + "END PRIVATE KEY-----\\n")\n'
    )
    assert scan(code) == []


def test_kubernetes_secret_holding_a_base64_pem() -> None:
    encoded = base64.b64encode(pem(rng_for("k8s")).encode()).decode()
    text = f"apiVersion: v1\nkind: Secret\ndata:\n  tls.key: {encoded}\n"
    findings = scan(text)
    assert [(f.rule_id, f.line, getattr(f, "via", None)) for f in findings] == [
        ("private-key", 4, "base64")
    ]
    assert encoded[40:80] not in redact(text)


def test_slack_webhook_with_escaped_slashes() -> None:
    rng = rng_for("webhook")
    url = (
        "https://hooks.slack.com/services/T"
        + body(rng, UPPER + DIGITS, 8)
        + "/B"
        + body(rng, UPPER + DIGITS, 10)
        + "/"
        + body(rng, ALNUM, 24)
    )
    text = json.dumps({"hook": url}).replace("/", "\\/")
    assert "\\/" in text
    findings = scan(text)
    assert [(f.rule_id, getattr(f, "via", None)) for f in findings] == [
        ("slack-webhook-url", "escape")
    ]
    assert findings[0].column == text.index("https") + 1
    assert url[-24:] not in redact(text)


def math_bold(text: str) -> str:
    """ASCII letters as MATHEMATICAL BOLD letters (beyond the BMP)."""
    return "".join(
        chr(0x1D41A + ord(c) - ord("a"))
        if "a" <= c <= "z"
        else chr(0x1D400 + ord(c) - ord("A"))
        if "A" <= c <= "Z"
        else c
        for c in text
    )


MORE_FORMS: dict[str, tuple[str, Evasion]] = {
    "html-decimal": ("escape", lambda t: f"&#{ord(t[0])};" + t[1:]),
    "html-hex": ("escape", lambda t: "".join(f"&#x{ord(c):x};" for c in t[:3]) + t[3:]),
    "octal": ("escape", lambda t: "".join(f"\\{ord(c):03o}" for c in t[:3]) + t[3:]),
    "python-U": ("escape", lambda t: f"\\U{ord(t[0]):08x}" + t[1:]),
    "escaped-zero-width": ("escape", lambda t: t[:2] + "\\u200b" + t[2:]),
    "percent-every-character": ("url", lambda t: "".join(f"%{ord(c):02x}" for c in t)),
    "percent-twice": ("url", lambda t: "%25" + f"{ord(t[0]):02X}" + t[1:]),
    "json-in-json": ("escape", lambda t: f"\\\\u{ord(t[0]):04x}" + t[1:]),
    "math-bold-prefix": ("nfkc", lambda t: math_bold(t[:3]) + t[3:]),
    "tag-character": ("zero-width", lambda t: t[:2] + "\U000e0041" + t[2:]),
    "split-crlf": ("split", lambda t: t[: cut(t)] + "\r\n    " + t[cut(t) :]),
    "split-backslash": ("split", lambda t: t[: cut(t)] + " \\\n    " + t[cut(t) :]),
    "split-escaped-newline": ("split", lambda t: t[: cut(t)] + "\\n    " + t[cut(t) :]),
    "base64url": (
        "base64",
        lambda t: base64.urlsafe_b64encode(("?>~" * 5 + t).encode()).decode(),
    ),
}


@pytest.mark.parametrize("form", sorted(MORE_FORMS))
@pytest.mark.parametrize("family", ["github", "aws", "anthropic"])
def test_more_ways_to_write_it(family: str, form: str) -> None:
    token = token_of(family)
    via, hide = MORE_FORMS[form]
    text = PREFIX + hide(token) + SUFFIX
    findings = scan(text)
    assert [(f.rule_id, f.line, getattr(f, "via", None)) for f in findings] == [
        (FAMILIES[family][0], 2, via)
    ]
    if via != "base64":
        assert findings[0].column == 10
    for chunk in body_chunks(token):
        assert chunk not in readable(redact(text))


def test_evasions_stacked() -> None:
    token = token_of("github")
    # percent-encoded zero-width character inside a full-width prefix
    hidden = full_width(token[:4]) + "%E2%80%8B" + token[4:]
    (finding,) = scan(PREFIX + hidden + SUFFIX)
    assert (finding.rule_id, finding.line, finding.column) == ("github-pat", 2, 10)
    assert isinstance(finding, EvadedFinding)
    assert finding.via in {"url", "nfkc"}
    # a JSON string holding a token split over an escaped line break
    doc = json.dumps({"note": split_plain(token)})
    assert [f.rule_id for f in scan(doc)] == ["github-pat"]


def test_plain_and_hidden_copies_are_two_findings_and_one_span_is_one() -> None:
    token = token_of("aws")
    text = f"{token}\n{in_prefix(token, chr(0x200B))}\n"
    findings = scan(text)
    assert [(f.line, f.column, getattr(f, "via", None)) for f in findings] == [
        (1, 1, None),
        (2, 1, "zero-width"),
    ]
    # a plain token next to a tell (a zero-width space right after it) is reported once
    findings = scan(token + "\u200b and more\n")
    assert [(f.rule_id, type(f)) for f in findings] == [("aws-access-token", Finding)]


def test_a_token_running_into_code_is_no_token_even_next_to_a_tell() -> None:
    # gitleaks refuses ``AIza...%20`` or ``AIza....attr`` (tests/domain/test_secrets.py); a
    # zero-width space further on the line must not make a view that accepts them
    rng = rng_for("run-on-near-tell")
    key = "AIza" + body(rng, URLSAFE, 35)
    for template in ("{}%20", "{}.attr", "{}(x)", "{}:8080"):
        text = template.format(key) + " and a zero\u200bwidth space"
        assert scan(text) == [], template


# --- line and column are in range, whatever surrounds the token -------------------------------

FILLER = st.text(
    alphabet=st.sampled_from(
        [*"ab xy.:;\n\t\"'+%\\", "\u200b", "\u00ad", "\u8bb0", "\uff0c", "\u0436", "é", "🔑"]
    ),
    max_size=60,
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    before=FILLER,
    after=FILLER,
    family=st.sampled_from(["github", "aws", "slack", "anthropic"]),
    evasion=st.sampled_from(sorted(EVASIONS)),
)
def test_findings_are_in_range_of_the_original_text(
    before: str, after: str, family: str, evasion: str
) -> None:
    token = token_of(family)
    hidden = EVASIONS[evasion][1](token)
    text = before + " " + hidden + " " + after
    lines = text.split("\n")
    findings = scan(text)
    for f in findings:
        assert 1 <= f.line <= len(lines)
        assert 1 <= f.column <= len(lines[f.line - 1]) + 1
    # the planted token is among them, and the original text is what is left
    start_line = before.count("\n") + 1
    assert any(
        f.rule_id == FAMILIES[family][0] and start_line <= f.line <= start_line + hidden.count("\n")
        for f in findings
    ), (evasion, findings)
    shown = redact(text)
    for chunk in body_chunks(token):
        assert chunk not in shown


# --- the other side: ordinary text stays clean ---------------------------------------------------


def b64_of(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


ORDINARY = [
    "记忆治理层会在写入前检查密钥和敏感信息，审阅者可以批准或拒绝候选记忆。",
    "全角标点：（测试）、「引用」；ＡＰＩキーは安全に保管してください。ＵＲＬ：ｈｔｔｐｓ",
    "Привет! Это обычный текст о Москве, ключах доступа и токенах. Сервер-2024 готов.",
    "Ο διακομιστής είναι έτοιμος· το κλειδί ΑΡΙ δεν αλλάζει. ΚΑΛΗΜΕΡΑ ΑΘΗΝΑ",
    "ΑΚΙΑ is Greek capitals only, ѕк is Cyrillic, and this is prose.",
    "https://example.org/search?q=rotate%20the%20key%20now&lang=en%2Dgb&path=%2Fdocs%2Fapi",
    "see https://example.org/a%20b/c%3Fd and mailto:someone%40example.org",
    b64_of("hello world, this is ordinary text with nothing secret in it at all"),
    base64.encodebytes(("the agent remembers that deploys run from main. " * 20).encode()).decode(),
    "Authorization: Basic " + b64_of("deploy-user:correct horse battery staple"),
    json.dumps({"text": "记忆 ключ \u00e9t\u00e9", "path": "a/b/c"}, ensure_ascii=True),
    json.dumps({"url": "https://example.org/a/b/c"}).replace("/", "\\/"),
    'pattern = r"[\\x00-\\x1f\\x7f]" + "\\u00e9\\t\\n"',
    "family: \U0001f468\u200d\U0001f469\u200d\U0001f467 and \u200f\u05e9\u05dc\u05d5\u05dd\u200e",
    "the quick brown fox jumps over the lazy dog and keeps on running\n"
    "        through the consolidation threshold configuration of\n"
    "        memories, decisions, requests and erasure journals\n",
    'message = ("deploys run from the main branch after review and "\n'
    '           "the tests pass on staging")\n',
    "sha256: " + "3f" * 32 + "\nmd5: " + "A7" * 16 + "\n",
    "call getAccessTokenFromEnvironmentVariableOrConfigurationFile() first",
    "Price: ½ ™ № 5 … ① ² ﬁ ℃ — résumé naïve façade",
]


@pytest.mark.parametrize("text", ORDINARY, ids=range(len(ORDINARY)))
def test_ordinary_text_is_clean(text: str) -> None:
    assert scan(text) == []
    assert is_clean(text)
    assert redact(text) == text


PLACEHOLDERS = [
    "AKIAIOSFODNN7EXAMPLE",
    "ghp_" + "x" * 36,
    "sk_" + "live_" + "0" * 24,
    "dapi" + "0123456789abcdef" * 2,
]


@pytest.mark.parametrize("evasion", sorted(EVASIONS))
@pytest.mark.parametrize("placeholder", PLACEHOLDERS, ids=range(len(PLACEHOLDERS)))
def test_hidden_placeholders_stay_allowlisted(placeholder: str, evasion: str) -> None:
    text = "token: " + EVASIONS[evasion][1](placeholder) + "\n"
    assert scan(text) == []


# --- bounded base64 ---------------------------------------------------------------------------


def test_base64_nesting_is_decoded_a_bounded_number_of_levels() -> None:
    token = token_of("github")
    text = f"export API_TOKEN={token}\n"
    for level in range(1, B64_LEVELS + 2):
        text = base64.b64encode(text.encode()).decode()
        found = [f.rule_id for f in scan(text)]
        if level <= B64_LEVELS:
            assert found == ["github-pat"], level
        else:
            assert found == [], level  # documented bound: deeper nesting is not decoded


def test_deep_nesting_takes_no_time() -> None:
    text = f"export API_TOKEN={token_of('github')}\n"
    for _ in range(14):  # ~ 60 KiB of base64 of base64 of ...
        text = base64.b64encode(text.encode()).decode()
    start = time.process_time()
    scan(text)
    assert time.process_time() - start < 2.0


def test_huge_binary_base64_blob_is_cheap_in_time_and_memory() -> None:
    blob = base64.b64encode(random.Random(1).randbytes(6_000_000)).decode()  # 8 MB
    text = "attachment: " + blob + "\n"
    tracemalloc.start()
    start = time.process_time()
    try:
        assert scan(text) == []
        elapsed = time.process_time() - start
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert elapsed < 5.0
    # the text, its bytes, their lowercase, the class map, the run: a few copies,
    # never the blob decoded whole next to its chunks, nor one copy per level
    assert peak < 6 * len(text)


def test_token_deep_inside_a_large_base64_text_is_found() -> None:
    prose = "the agent remembers that deploys run from the main branch after review. "
    payload = prose * 3000 + f"token={token_of('slack')}\n" + prose * 10  # ~220 KB
    text = "data: " + base64.b64encode(payload.encode()).decode()
    start = time.process_time()
    findings = scan(text)
    assert time.process_time() - start < 5.0
    assert [(f.rule_id, getattr(f, "via", None)) for f in findings] == [
        ("slack-bot-token", "base64")
    ]
    (finding,) = findings
    assert 1 <= finding.column <= len(text)


def test_base64_glued_after_a_path_is_still_aligned() -> None:
    text = "https://example.org/files/" + b64(token_of("github"))
    assert [f.rule_id for f in scan(text)] == ["github-pat"]


# --- the shape of a finding --------------------------------------------------------------------


def test_evaded_finding_shape_and_to_dict_stay_compatible() -> None:
    text, _, token, _ = planted("github", "zero-width-space")
    (finding,) = scan(text)
    assert isinstance(finding, Finding) and isinstance(finding, EvadedFinding)
    assert {f.name for f in dataclasses.fields(Finding)} == {
        "rule_id",
        "description",
        "line",
        "column",
        "tier",  # (added with the likely tier; a hidden vendor token is certain)
    }
    as_dict = finding.to_dict()
    assert as_dict["tier"] == "certain"
    assert {k: as_dict[k] for k in ("rule", "description", "line", "column")} == {
        "rule": "github-pat",
        "description": finding.description,
        "line": 2,
        "column": 10,
    }
    assert as_dict["via"] == "zero-width"
    rendered = " ".join([repr(finding), str(finding), json.dumps(as_dict)])
    for chunk in body_chunks(token):
        assert chunk not in rendered
    assert str(finding) == "github-pat at line 2, column 10 (hidden: zero-width)"


SCANNER_FILES = sorted(
    p.relative_to(ROOT).as_posix() for p in (ROOT / "core" / "domain" / "secrets").glob("*.py")
)


@pytest.mark.parametrize(
    "path", [*SCANNER_FILES, "tests/domain/test_secret_evasions.py", "bench/bench_scan.py"]
)
def test_our_own_files_are_clean(path: str) -> None:
    assert scan((ROOT / path).read_text(encoding="utf-8")) == []


def test_mixed_text_with_every_kind_of_tell_scans_quickly() -> None:
    rng = rng_for("speed")
    words = [
        "the",
        "agent",
        "key",
        "记忆，",
        "ключ",
        "%20",
        "\\n",
        "x" * 24,
        "aB3dE5fG7hI9jK1lM3nO",
        "\n",
    ]
    text = " ".join(rng.choice(words) for _ in range(50_000))  # ~300 KB, every tell, densely
    start = time.process_time()
    assert scan(text) == []
    assert time.process_time() - start < 3.0
