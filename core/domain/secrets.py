r"""Client-side secret scanner: high-confidence credential rules, never the value.

Every rule is a hand port of a gitleaks rule (github.com/gitleaks/gitleaks,
``config/gitleaks.toml``) whose secret has a distinctive prefix or shape: the
rule ids, regexes, keywords and entropy thresholds are gitleaks' own. Generic
keyword rules (``password = ...``, ``<service>_key = <32 hex>``) are left out on
purpose: they are what makes a scanner noisy, and a blocked write must be
worth blocking.

How a text is scanned, like gitleaks:

1. Keywords prefilter. Each rule names lowercase keywords; a rule none of
   whose keywords occurs in the lowercased text is skipped. Where they occur
   only a few times, the regex only runs on the lines that hold them.
2. The regex finds candidates; the secret is the match (``secret_group`` 0).
3. Entropy: a secret whose Shannon entropy is at or below the rule's threshold
   is dropped (gitleaks skips ``entropy <= threshold``).
4. Allowlists: the rule's own (AWS ``...EXAMPLE``, Vault ``s.`` + letters) and
   a global one for documented placeholders: ``EXAMPLE``/``placeholder``-ish
   words, values that are mostly runs of one character, sequential alphabets
   and digits, template variables.
5. One finding per secret span: where two rules claim overlapping text, the
   earlier start wins, then the rule listed first in ``RULES``.

The scan runs over the UTF-8 bytes of the text (every secret is ASCII; bytes
lowercase and search several times faster than a non-ASCII ``str``); lines
and columns are counted back in characters.

Deviations from gitleaks, all deliberate:

* gitleaks ends most tokens with ``(?:[\x60'"\s;]|\\[nr]|$)``, which consumes
  a character and refuses a token followed by ``.``, ``,``, ``)`` or a
  non-ASCII character: how a token ends in a sentence. Here the end is a
  lookahead, ``_END``, that also takes those (``.``, ``,``, ``:``, ``!``,
  ``?`` only if no token character follows, so ``NAME.attr`` stays unmatched).
* A leading ``\b`` is checked in code (``word_start``) rather than in the
  regex, so that ``re`` keeps the literal prefix and searches it fast.
* Stripe: live and prod keys only (``sk_test_`` keys are public in docs).
* Google: gitleaks' allowlist of sixteen public keys is not copied here
  (this file would then hold live-looking keys).
* Rule allowlist regexes must match the whole secret (gitleaks searches).
* Lines end at ``\n`` only (``\r\n`` counts once; a lone ``\r`` does not).

Evasions: a token hidden with an invisible character, bidi controls, full-width
or look-alike letters, URL or backslash escapes, a line break in the middle, or
base64 is found too, as an ``EvadedFinding`` that says how (see "evasions" below
for the tells, the normalisation and the bounds). Text with no tell costs a few
extra passes, not a second scan.

Never leak: a ``Finding`` holds the rule, line and column only. Nothing here
logs, and no exception raised here carries any part of the scanned text.
"""

from __future__ import annotations

import binascii
import bisect
import functools
import itertools
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

__all__ = [
    "RULES",
    "EvadedFinding",
    "Finding",
    "Rule",
    "is_clean",
    "redact",
    "scan",
    "shannon_entropy",
]


@dataclass(frozen=True)
class Rule:
    """One credential rule, ported from the gitleaks rule of the same id."""

    id: str
    description: str
    #: the rule's regex, compiled with ``re.ASCII`` (like Go's ``\w``, ``\s``, ``\b``)
    pattern: re.Pattern[str] = field(repr=False)
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
    #: the secret is not a finding if one of these matches all of it
    allowlist: tuple[re.Pattern[str], ...] = field(default=(), repr=False)
    #: what the scanner runs: ``pattern`` over UTF-8 bytes, one per top-level
    #: alternative where that gives ``re`` a literal prefix to search for
    searchers: tuple[re.Pattern[bytes], ...] = field(default=(), repr=False, compare=False)


@dataclass(frozen=True)
class Finding:
    """Where a secret is, and which rule saw it. Never the value, nor a part of it."""

    rule_id: str
    description: str
    line: int  # 1-based line of the secret's first character
    column: int  # 1-based column (in characters) of the secret's first character

    def to_dict(self) -> dict[str, str | int]:
        return {
            "rule": self.rule_id,
            "description": self.description,
            "line": self.line,
            "column": self.column,
        }

    def __str__(self) -> str:
        return f"{self.rule_id} at line {self.line}, column {self.column}"


@dataclass(frozen=True)
class EvadedFinding(Finding):
    """A secret that was hidden, and how: seen only once the text was normalised.

    ``via`` is one of ``"zero-width"`` (an invisible character inside: zero-width,
    bidi control, soft hyphen, BOM, variation selector), ``"nfkc"`` (full-width or
    other compatibility forms), ``"homoglyph"`` (Cyrillic, Greek, ... look-alike
    letters), ``"url"`` (``%XX``), ``"escape"`` (JSON, Python or HTML escapes),
    ``"split"`` (over two lines) or ``"base64"``. Never the value either.
    """

    via: str

    def to_dict(self) -> dict[str, str | int]:
        return {**super().to_dict(), "via": self.via}

    def __str__(self) -> str:
        return f"{super().__str__()} (hidden: {self.via})"


# gitleaks' token end (a quote, a space, ``;``, an escaped newline, the end) as a
# lookahead, plus what ends a token in prose, markup and URLs: closing brackets,
# ``&|*<@``, any backslash escape, a non-ASCII character, and sentence punctuation
# not followed by another token character (``NAME.attr`` stays unmatched).
_END = r"""(?=[\x60'"\s;)\]}>|&*<@\\]|[.,:!?](?![\w+/=-])|[^\x00-\x7f]|$)"""
# The most keyword hits of one rule for which its regex runs line by line;
# beyond it, the regex runs once over the whole text (that is cheaper).
_MAX_WINDOWS = 64


def _rule(
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
) -> Rule:
    """A rule; a tuple ``regex`` is the alternation of its parts, searched one by one."""
    parts = (regex,) if isinstance(regex, str) else regex
    union = parts[0] if len(parts) == 1 else "|".join(f"(?:{p})" for p in parts)
    flags = re.IGNORECASE if ignore_case else 0
    return Rule(
        id=rule_id,
        description=description,
        pattern=re.compile(union, re.ASCII | flags),
        keywords=keywords,
        entropy=entropy,
        word_start=word_start,
        multiline=multiline,
        allowlist=tuple(re.compile(a, re.ASCII) for a in allow),
        searchers=tuple(re.compile(p.encode("ascii"), flags) for p in parts),
    )


_GH = "[0-9a-zA-Z]{36}"

# fmt: off
RULES: tuple[Rule, ...] = (
    # AWS: access key ids (AKIA long-term, ASIA STS, ABIA/ACCA, A3T legacy).
    _rule("aws-access-token", "AWS access key ID",
          r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b",
          ("a3t", "akia", "asia", "abia", "acca"),
          entropy=3, word_start=True, allow=(r".+EXAMPLE",)),
    # GitHub: classic PAT, OAuth, app (user-to-server, server-to-server), refresh,
    # fine-grained PAT.
    _rule("github-pat", "GitHub personal access token", "ghp_" + _GH, ("ghp_",), entropy=3),
    _rule("github-oauth", "GitHub OAuth access token", "gho_" + _GH, ("gho_",), entropy=3),
    _rule("github-app-token", "GitHub app token", "(?:ghu|ghs)_" + _GH, ("ghu_", "ghs_"),
          entropy=3),
    _rule("github-refresh-token", "GitHub refresh token", "ghr_" + _GH, ("ghr_",), entropy=3),
    _rule("github-fine-grained-pat", "GitHub fine-grained personal access token",
          r"github_pat_\w{82}", ("github_pat_",), entropy=3),
    # GitLab: routable PAT first (longer, more specific), then the classic forms.
    _rule("gitlab-pat-routable", "GitLab personal access token (routable)",
          r"\bglpat-[0-9a-zA-Z_-]{27,300}\.[0-9a-z]{2}[0-9a-z]{7}\b", ("glpat-",), entropy=4),
    _rule("gitlab-pat", "GitLab personal access token", r"glpat-[\w-]{20}", ("glpat-",),
          entropy=3),
    _rule("gitlab-ptt", "GitLab pipeline trigger token", r"glptt-[0-9a-f]{40}", ("glptt-",),
          entropy=3),
    _rule("gitlab-runner-authentication-token", "GitLab runner authentication token",
          r"glrt-[0-9a-zA-Z_\-]{20}", ("glrt-",), entropy=3),
    # Slack: bot (current and legacy), user, app-level tokens and incoming webhooks.
    _rule("slack-bot-token", "Slack bot token",
          r"xoxb-[0-9]{10,13}-[0-9]{10,13}[a-zA-Z0-9-]*", ("xoxb",), entropy=3),
    _rule("slack-legacy-bot-token", "Slack legacy bot token",
          r"xoxb-[0-9]{8,14}-[a-zA-Z0-9]{18,26}", ("xoxb",), entropy=2),
    _rule("slack-user-token", "Slack user token",
          r"xox[pe](?:-[0-9]{10,13}){3}-[a-zA-Z0-9-]{28,34}", ("xoxp-", "xoxe-"), entropy=2),
    _rule("slack-app-token", "Slack app-level token",
          r"xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+", ("xapp",), entropy=2, ignore_case=True),
    _rule("slack-webhook-url", "Slack webhook URL",
          r"(?:https?://)?hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{43,56}",
          ("hooks.slack.com",)),
    # Stripe: live (and prod) secret and restricted keys.
    _rule("stripe-access-token", "Stripe live secret or restricted key",
          r"(?:sk|rk)_(?:live|prod)_[a-zA-Z0-9]{10,99}" + _END,
          ("sk_live", "sk_prod", "rk_live", "rk_prod"), entropy=2, word_start=True),
    # Google: API keys.
    _rule("gcp-api-key", "Google API key", r"AIza[\w-]{35}" + _END, ("aiza",),
          entropy=4, word_start=True),
    # OpenAI: project, service-account, admin and legacy keys, all holding "T3BlbkFJ".
    _rule("openai-api-key", "OpenAI API key",
          r"(?:sk-(?:proj|svcacct|admin)-(?:[A-Za-z0-9_-]{74}|[A-Za-z0-9_-]{58})T3BlbkFJ"
          r"(?:[A-Za-z0-9_-]{74}|[A-Za-z0-9_-]{58})\b|sk-[a-zA-Z0-9]{20}T3BlbkFJ[a-zA-Z0-9]{20})"
          + _END, ("t3blbkfj",), entropy=3, word_start=True),
    # Anthropic: API and admin keys.
    _rule("anthropic-api-key", "Anthropic API key",
          r"sk-ant-api03-[a-zA-Z0-9_\-]{93}AA" + _END, ("sk-ant-api03",),
          word_start=True),
    _rule("anthropic-admin-api-key", "Anthropic admin API key",
          r"sk-ant-admin01-[a-zA-Z0-9_\-]{93}AA" + _END, ("sk-ant-admin01",),
          word_start=True),
    # Hugging Face: user and organization tokens.
    _rule("huggingface-access-token", "Hugging Face access token",
          r"hf_[a-zA-Z]{34}" + _END, ("hf_",), entropy=2, word_start=True),
    _rule("huggingface-organization-api-token", "Hugging Face organization API token",
          r"api_org_[a-zA-Z]{34}" + _END, ("api_org_",), entropy=2,
          word_start=True),
    # npm and PyPI: registry publish tokens.
    _rule("npm-access-token", "npm access token", r"npm_[a-z0-9]{36}" + _END, ("npm_",),
          entropy=2, word_start=True, ignore_case=True),
    _rule("pypi-upload-token", "PyPI upload token", r"pypi-AgEIcHlwaS5vcmc[\w-]{50,1000}",
          ("pypi-ageichlwas5vcmc",), entropy=3),
    # PEM: any private key block (RSA, EC, DSA, OpenSSH, PKCS#8, encrypted, PGP).
    _rule("private-key", "Private key",
          r"-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----[\s\S]{64,}?KEY(?: BLOCK)?-----",
          ("-----begin",), ignore_case=True, multiline=True),
    # SendGrid: API keys.
    _rule("sendgrid-api-token", "SendGrid API token",
          r"SG\.[a-zA-Z0-9=_\-.]{66}" + _END, ("sg.",), entropy=2, word_start=True),
    # Shopify: admin API, custom app, private app tokens and shared secrets.
    _rule("shopify-access-token", "Shopify access token", r"shpat_[a-fA-F0-9]{32}",
          ("shpat_",), entropy=2),
    _rule("shopify-custom-access-token", "Shopify custom app access token",
          r"shpca_[a-fA-F0-9]{32}", ("shpca_",), entropy=2),
    _rule("shopify-private-app-access-token", "Shopify private app access token",
          r"shppa_[a-fA-F0-9]{32}", ("shppa_",), entropy=2),
    _rule("shopify-shared-secret", "Shopify shared secret", r"shpss_[a-fA-F0-9]{32}",
          ("shpss_",), entropy=2),
    # DigitalOcean: personal access and OAuth access tokens.
    _rule("digitalocean-pat", "DigitalOcean personal access token",
          r"dop_v1_[a-f0-9]{64}" + _END, ("dop_v1_",), entropy=3, word_start=True),
    _rule("digitalocean-access-token", "DigitalOcean OAuth access token",
          r"doo_v1_[a-f0-9]{64}" + _END, ("doo_v1_",), entropy=3, word_start=True),
    # age: X25519 secret keys (bech32).
    _rule("age-secret-key", "age secret key",
          r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}", ("age-secret-key-1",)),
    # Databricks: API tokens.
    _rule("databricks-api-token", "Databricks API token",
          r"dapi[a-f0-9]{32}(?:-\d)?" + _END, ("dapi",), entropy=3, word_start=True),
    # HashiCorp: Vault service and batch tokens, Terraform Cloud API tokens.
    _rule("vault-service-token", "HashiCorp Vault service token",
          (r"hvs\.[\w-]{90,120}" + _END, r"s\.[a-zA-Z0-9]{24}" + _END), ("hvs.", "s."),
          entropy=3.5, word_start=True, allow=(r"s\.[A-Za-z]{24}",)),
    _rule("vault-batch-token", "HashiCorp Vault batch token",
          r"hvb\.[\w-]{138,300}" + _END, ("hvb.",), entropy=4, word_start=True),
    _rule("hashicorp-tf-api-token", "HashiCorp Terraform Cloud API token",
          r"[a-zA-Z0-9]{14}\.atlasv1\.[a-zA-Z0-9\-_=]{60,70}", ("atlasv1",), entropy=3.5),
    # Grafana: legacy API keys, Cloud API tokens, service account tokens.
    _rule("grafana-api-key", "Grafana API key",
          r"eyJrIjoi[A-Za-z0-9]{70,400}={0,3}" + _END, ("eyjrijoi",),
          entropy=3, word_start=True, ignore_case=True),
    _rule("grafana-cloud-api-token", "Grafana Cloud API token",
          r"glc_[A-Za-z0-9+/]{32,400}={0,3}" + _END, ("glc_",),
          entropy=3, word_start=True, ignore_case=True),
    _rule("grafana-service-account-token", "Grafana service account token",
          r"glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}" + _END, ("glsa_",),
          entropy=3, word_start=True, ignore_case=True),
    # Linear, Doppler, Pulumi, Postman, Perplexity: prefixed API tokens.
    _rule("linear-api-key", "Linear API key", r"lin_api_[a-zA-Z0-9]{40}", ("lin_api_",),
          entropy=2),
    _rule("doppler-api-token", "Doppler API token", r"dp\.pt\.[a-zA-Z0-9]{43}", ("dp.pt.",),
          entropy=2),
    _rule("pulumi-api-token", "Pulumi API token", r"pul-[a-f0-9]{40}" + _END, ("pul-",),
          entropy=2, word_start=True),
    _rule("postman-api-token", "Postman API token",
          r"PMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}" + _END, ("pmak-",),
          entropy=3, word_start=True),
    _rule("perplexity-api-key", "Perplexity API key", r"pplx-[a-zA-Z0-9]{48}\b",
          ("pplx-",), entropy=4, word_start=True),
    # JWT: three base64url parts, the first two JSON objects ("ey..."). Last: the
    # most generic shape, so a more specific rule on the same span wins.
    _rule("jwt", "JSON Web Token",
          r"ey[a-zA-Z0-9]{17,}\.ey[a-zA-Z0-9/\\_-]{17,}\.(?:[a-zA-Z0-9/\\_-]{10,}={0,2})?"
          + _END, ("ey",), entropy=3, word_start=True),
)
# fmt: on


# --- allowlist: documented placeholders -------------------------------------

_PLACEHOLDER_WORDS = re.compile(
    r"example|placeholder|redacted|dummy|sample|changeme|change_me|your[_-]|[_-]here(?![a-z])",
    re.IGNORECASE,
)
_TEMPLATE = re.compile(
    r"\$\{[^}]*\}|\{\{.*?\}\}|<[^<>]+>|%[A-Za-z_]+%|\$[A-Za-z_][A-Za-z0-9_]*", re.DOTALL
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
_RUN = re.compile(r"([0-9A-Za-z])\1{3,}")  # four or more of one character


def shannon_entropy(data: str) -> float:
    """Shannon entropy of ``data`` in bits per character (gitleaks' definition)."""
    if not data:
        return 0.0
    size = len(data)
    return -sum(n / size * math.log2(n / size) for n in Counter(data).values())


def _mostly_runs(value: str) -> bool:
    """At least half the letters and digits sit in runs of one character (xxxx, 0000)."""
    chars = "".join(c for c in value if c.isascii() and c.isalnum())
    if not chars:
        return True
    covered = sum(len(m.group()) for m in _RUN.finditer(chars))
    return covered * 2 >= len(chars)


def _is_placeholder(value: str) -> bool:
    """A documented placeholder, not a credential."""
    return bool(
        _PLACEHOLDER_WORDS.search(value)
        or _TEMPLATE.search(value)
        or _SEQUENTIAL.search(value.lower())
        or _mostly_runs(value)
    )


def _accept(rule: Rule, secret: str) -> bool:
    if rule.entropy is not None and shannon_entropy(secret) <= rule.entropy:
        return False
    if any(a.fullmatch(secret) for a in rule.allowlist):
        return False
    return not _is_placeholder(secret)


# --- keyword prefilter ---------------------------------------------------------
#
# gitleaks finds every keyword in one Aho-Corasick pass. The stdlib has none, and
# one ``bytes.find`` per keyword means some 55 passes over the text. Instead each
# keyword is found by its rarest byte, its anchor: one regex per anchor byte,
# whose one-byte literal prefix ``re`` scans fast, checks the keywords around it
# by lookbehind and lookahead. (A single regex for all anchors is slower: ``re``
# then tests every byte against a set.)

# Bytes from rarest to most common in prose and code; a keyword's anchor is its
# byte that comes first here.
_RARITY = b"zqjx_-3579864210kvwbyfgpm.ucdlhrsnioate"


@dataclass(frozen=True)
class _AnchorGroup:
    """The keywords sharing one anchor byte, and the regex that finds them."""

    pattern: re.Pattern[bytes]
    keywords: tuple[tuple[bytes, int], ...]  # keyword and the anchor's offset in it


def _anchor_groups(keywords: set[bytes]) -> tuple[_AnchorGroup, ...]:
    by_anchor: dict[bytes, list[tuple[bytes, int]]] = {}
    for keyword in sorted(keywords):
        offset = min(range(len(keyword)), key=lambda i: _RARITY.find(keyword[i : i + 1]) % 256)
        by_anchor.setdefault(keyword[offset : offset + 1], []).append((keyword, offset))
    groups = []
    for anchor, members in sorted(by_anchor.items()):
        checks = [
            (b"(?<=" + re.escape(k[: i + 1]) + b")" if i else b"")
            + (b"(?=" + re.escape(k[i + 1 :]) + b")" if i + 1 < len(k) else b"")
            for k, i in members
        ]
        regex = re.escape(anchor) + b"(?:" + b"|".join(checks) + b")"
        groups.append(_AnchorGroup(re.compile(regex), tuple(members)))
    return tuple(groups)


_WORD_BYTES = frozenset(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz")
_NEEDLES = tuple(tuple(k.encode("ascii") for k in rule.keywords) for rule in RULES)
_GROUPS = _anchor_groups({k for needles in _NEEDLES for k in needles})


def _keyword_hits(lowered: bytes) -> dict[bytes, list[int]]:
    """Where each keyword occurs, up to ``_MAX_WINDOWS + 1`` times each."""
    hits: dict[bytes, list[int]] = {}
    for group in _GROUPS:
        full = 0
        for match in group.pattern.finditer(lowered):
            for keyword, offset in group.keywords:  # all of them: two may share an anchor
                start = match.start() - offset
                if start >= 0 and lowered.startswith(keyword, start):
                    at = hits.setdefault(keyword, [])
                    if len(at) <= _MAX_WINDOWS:
                        at.append(start)
                        full += len(at) > _MAX_WINDOWS
            if full == len(group.keywords):
                break  # every keyword of the group is common here: stop looking
    return hits


def _windows(
    rule: Rule, needles: tuple[bytes, ...], hits: dict[bytes, list[int]], lowered: bytes
) -> list[tuple[int, int]]:
    """Byte spans to run the rule's regex on: none if no keyword occurs."""
    size = len(lowered)
    at = sorted(i for needle in needles for i in hits.get(needle, ()))
    if not at:
        return []
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


# --- scanning ------------------------------------------------------------------


def _candidates(
    rule: Rule, windows: list[tuple[int, int]], data: bytes
) -> Iterator[tuple[int, int]]:
    """Byte (start, end) of each accepted secret of ``rule`` in the windows of ``data``."""
    for searcher in rule.searchers:
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
                if _accept(rule, data[start:stop].decode("utf-8", "replace")):
                    yield start, stop


def _prepare(text: str, caller: str) -> tuple[bytes, bytes, dict[bytes, list[int]]]:
    """The text's UTF-8 bytes, lowercased bytes, and keyword hits."""
    if not isinstance(text, str):
        raise TypeError(f"{caller}() expects str, not {type(text).__name__}")
    data = text.encode("utf-8", "surrogatepass")
    lowered = data.lower()
    return data, lowered, _keyword_hits(lowered)


def _found(
    data: bytes, lowered: bytes, hits: dict[bytes, list[int]]
) -> Iterator[tuple[int, int, int]]:
    """(start, rule index, end) of every accepted secret, rule by rule."""
    for order, rule in enumerate(RULES):
        windows = _windows(rule, _NEEDLES[order], hits, lowered)
        for start, stop in _candidates(rule, windows, data):
            yield start, order, stop


# --- evasions: a token someone hid ----------------------------------------------
#
# The raw scan above sees a token as it is written. Someone who wants one past
# the gate writes it otherwise: with an invisible character inside, in
# full-width or look-alike letters, URL- or backslash-escaped, split over two
# lines, or base64-encoded. Each of those has a cheap tell, and only the text
# around a tell is normalised and scanned again:
#
# * a suspicious non-ASCII character: an invisible one, one whose NFKC form is
#   made of token characters, or a Cyrillic/Greek/Armenian/Cherokee look-alike
#   next to an ASCII letter, digit, ``_`` or ``-`` (from each non-ASCII byte,
#   1 KiB is decoded and searched at once: CJK prose and Cyrillic words cost
#   one regex search per KiB that holds them);
# * an escape that decodes to a token character or to the lead byte of a
#   suspicious character (``%67``, ``%E2``, ``\u0067``, ``\x67``, ``\/``,
#   ``\147``, ``&#103;``); ``%20`` and ``\u4e2d`` are not tells;
# * a line break, or an escaped ``\n``, between two runs of token characters,
#   one of them nine long or the break marked by a quote, `` +`` or backslash,
#   whose join holds a rule keyword (``ghp_abc⏎  def``, ``"gh" +⏎ "p_...``).
#
# Around each tell ``_REGION`` bytes either side (to a line end) are
# normalised: unescape (runs of ``%XX``, JSON and Python escapes, HTML
# character references; only what can be part of a token, so ``%20`` after a
# token does not make it one), then unhide (invisible characters dropped, NFKC
# ligatures expanded, full-width and look-alike letters made ASCII one for
# one). That text is scanned, and so is a second view of it with the line
# breaks between token characters joined, with the indentation, quotes, ``+``
# or backslash around them (a view of its own: joining two lines that each
# hold a token would hide both). Each layer records where it changed its
# input, so a span found in a view maps back to the original text. A finding
# there counts only if a change falls inside its span (otherwise the raw scan
# has the last word), and ``scan`` drops one that a raw finding overlaps.
#
# Base64: runs of ``_B64_MIN`` or more base64 or base64url characters (one
# line, or whole lines wrapped like MIME or PEM) are decoded in chunks of
# ``_B64_CHUNK`` characters that overlap by ``_B64_OVERLAP``, from the run's
# first character and from just after each ``+`` or ``/`` among its first
# twelve (what is glued in front, ``path/`` or ``token_``, shifts the
# alignment and ends with one of them). A decoded chunk that is not text
# (over 5% control bytes or invalid UTF-8) is dropped: a binary blob costs a
# decode. Text is scanned like the input, evasions and base64 included, down
# to ``_B64_LEVELS`` levels of nesting: the work stays linear in the input and
# the memory one chunk per level, and a deeper nesting is not seen.

_Span = tuple[int, int, int, str]  # start byte, rule index, stop byte, how it was hidden
_VIA_ORDER = ("base64", "url", "escape", "zero-width", "nfkc", "homoglyph", "split")
#: bytes normalised either side of a tell: more than the longest token (pypi,
#: ~1000 characters); one hidden all along has tells all along, whose regions
#: chain (a PEM block's region runs on to the block's end)
_REGION = 1536
_BLOCK = 1024  # non-ASCII text is decoded and looked at this many bytes at a time
_TELL_GAP = _REGION // 4  # tells closer than this to the last one add nothing
_B64_MIN = 20
_B64_CHUNK = 64 * 1024
_B64_OVERLAP = 4096
_B64_LEVELS = 2
_RUN_MAX = 1100  # the longest run of token characters looked at around a line break

_TOKEN_CLASS = "A-Za-z0-9_.+/=-"
_TOKEN_STR = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.+/=-")

# Invisible and format characters: soft hyphen, combining grapheme joiner, Arabic
# letter mark, Hangul fillers, Khmer inherent vowels, Mongolian selectors,
# zero-width space/joiners, LRM/RLM, bidi embeddings, overrides and isolates,
# word joiner and invisible operators, BOM, variation selectors, tags.
_INVISIBLE = (
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0"
)
_INVISIBLE_ASTRAL = "\U000e0000-\U000e007f\U000e0100-\U000e01ef"

# Letters that look like ASCII ones in common fonts (Cyrillic, Greek, Armenian,
# Cherokee, a few Latin). NFKC leaves them alone; a person reading does not.
_LOOKALIKES: dict[str, str] = {
    # Cyrillic
    "\u0430": "a", "\u0435": "e", "\u043e": "o", "\u0440": "p", "\u0441": "c",
    "\u0443": "y", "\u0445": "x", "\u043a": "k", "\u0455": "s", "\u0456": "i",
    "\u0458": "j", "\u04bb": "h", "\u0501": "d", "\u051b": "q", "\u051d": "w",
    "\u04cf": "l", "\u04af": "y", "\u0410": "A", "\u0412": "B", "\u0415": "E",
    "\u041a": "K", "\u041c": "M", "\u041d": "H", "\u041e": "O", "\u0420": "P",
    "\u0421": "C", "\u0422": "T", "\u0425": "X", "\u0423": "Y", "\u0405": "S",
    "\u0406": "I", "\u0408": "J", "\u051a": "Q", "\u051c": "W", "\u04c0": "I",
    "\u04ba": "H", "\u04ae": "Y", "\u0500": "D",
    # Greek
    "\u0391": "A", "\u0392": "B", "\u0395": "E", "\u0396": "Z", "\u0397": "H",
    "\u0399": "I", "\u039a": "K", "\u039c": "M", "\u039d": "N", "\u039f": "O",
    "\u03a1": "P", "\u03a4": "T", "\u03a5": "Y", "\u03a7": "X", "\u03bf": "o",
    "\u03bd": "v", "\u03b1": "a", "\u03b9": "i", "\u03ba": "k", "\u03c1": "p",
    "\u03c5": "u", "\u03c7": "x", "\u03f2": "c", "\u03f3": "j", "\u03f9": "C",
    "\u03d2": "Y", "\u03b5": "e",
    # Armenian
    "\u0585": "o", "\u057d": "u", "\u0570": "h", "\u0578": "n", "\u0581": "g",
    "\u0566": "q", "\u054f": "S", "\u0555": "O", "\u054d": "U",
    # Cherokee
    "\u13aa": "A", "\u13ac": "E", "\u13bb": "H", "\u13ab": "J", "\u13e6": "K",
    "\u13b7": "M", "\u13e2": "P", "\u13da": "S", "\u13a2": "T", "\u13b3": "W",
    "\u13c3": "Z", "\u13df": "C", "\u13a0": "D", "\u13c0": "G", "\u13de": "L",
    "\u13a1": "R", "\u13f4": "B", "\u13d9": "V",
    # Latin
    "\u0131": "i", "\u0237": "j", "\u0261": "g", "\u0251": "a",
}  # fmt: skip

# Where NFKC maps a character to token characters: full-width forms,
# mathematical alphanumerics, circled and squared letters, super- and
# subscripts, letterlike symbols, ligatures, small forms, CJK compatibility.
_NFKC_RANGES = (
    (0x00A0, 0x0250), (0x02B0, 0x0300), (0x1D00, 0x1DC0), (0x2000, 0x2C00),
    (0x2C7C, 0x2C7E), (0x3000, 0x3400), (0xA770, 0xA771), (0xFB00, 0xFB07),
    (0xFE10, 0xFE70), (0xFF00, 0xFFF0), (0x1D400, 0x1D800), (0x1F100, 0x1F200),
    (0x1FBF0, 0x1FBFA),
)  # fmt: skip


def _char_class(chars: Iterable[str]) -> tuple[str, str]:
    """Regex class bodies for ``chars`` as ranges: (the BMP ones, the others).

    Apart, because a class holding a character beyond U+FFFF is no bitmap to
    ``re`` but a list it walks for every character of the text.
    """
    codes = sorted({ord(c) for c in chars})
    ranges: list[list[int]] = []
    for code in codes:
        if ranges and code == ranges[-1][1] + 1:
            ranges[-1][1] = code
        else:
            ranges.append([code, code])

    def body(part: list[list[int]]) -> str:
        return "".join(
            re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}"
            for a, b in part
        )

    return body([r for r in ranges if r[1] < 0x10000]), body([r for r in ranges if r[0] > 0xFFFF])


@dataclass(frozen=True)
class _Tables:
    """Character tables, built on the first text that is not ASCII."""

    #: one character for one: look-alikes and one-character NFKC forms
    one: dict[int, str]
    #: NFKC forms longer than one character (ligatures, squared units, ``⑩``)
    expand: dict[str, str]
    #: the tells that a region must be normalised: an invisible or NFKC-able
    #: character or a look-alike in the BMP (a look-alike counts next to an
    #: ASCII letter: ``lookalike_next``), and the same beyond the BMP
    suspect: re.Pattern[str]
    suspect_astral: re.Pattern[str]
    lookalike_next: re.Pattern[str]
    #: what the unhide layer rewrites: runs of invisible characters, expansions
    #: (``unhide_astral`` also beyond the BMP, for a text that has such characters)
    unhide: re.Pattern[str]
    unhide_astral: re.Pattern[str]
    lookalike: re.Pattern[str]
    nfkc_one: re.Pattern[str]
    #: the characters ``one`` maps (in the BMP; anywhere)
    swap: re.Pattern[str]
    swap_astral: re.Pattern[str]


@functools.cache
def _tables() -> _Tables:
    single: dict[str, str] = {}
    expand: dict[str, str] = {}
    for low, high in _NFKC_RANGES:
        for code in range(low, high):
            char = chr(code)
            form = unicodedata.normalize("NFKC", char)
            if form == char or not form or not all(c in _TOKEN_STR for c in form):
                continue
            if len(form) == 1:
                single[char] = form
            elif any(c.isalnum() for c in form):  # not the ellipsis: dots carry no keyword
                expand[char] = form
    near, _ = _char_class(_LOOKALIKES)
    ascii_token = "A-Za-z0-9_-"
    nfkc, nfkc_astral = _char_class({*single, *expand})
    grow, grow_astral = _char_class(expand)
    one, one_astral = _char_class(single)

    def either(*classes: str) -> str:
        return "|".join(f"[{c}]" for c in classes if c)

    return _Tables(
        one={ord(c): a for c, a in {**_LOOKALIKES, **single}.items()},
        expand=expand,
        suspect=re.compile(f"[{_INVISIBLE}{nfkc}{near}]"),
        suspect_astral=re.compile(either(_INVISIBLE_ASTRAL + nfkc_astral)),
        lookalike_next=re.compile(f"[{near}][{ascii_token}]|[{ascii_token}][{near}]"),
        unhide=re.compile(f"[{_INVISIBLE}]+|{either(grow)}"),
        unhide_astral=re.compile(
            f"[{_INVISIBLE}]+|[{_INVISIBLE_ASTRAL}]+|{either(grow, grow_astral)}"
        ),
        lookalike=re.compile(f"[{near}]"),
        nfkc_one=re.compile(either(one, one_astral)),
        swap=re.compile(f"[{near}{one}]"),
        swap_astral=re.compile(either(near + one, one_astral)),
    )


class _Edits:
    """Where one normalising layer changed its input, to map positions back.

    Edit ``k`` replaced input ``[ins[k], ine[k])`` by output ``[outs[k], oute[k])``
    (empty for a deletion); edits are sorted and disjoint, and the text between
    them is copied unchanged.
    """

    __slots__ = ("ine", "ins", "oute", "outs", "vias")

    def __init__(self) -> None:
        self.ins: list[int] = []
        self.ine: list[int] = []
        self.outs: list[int] = []
        self.oute: list[int] = []
        self.vias: list[str] = []

    def start(self, pos: int) -> int:
        """The input position of the output character at ``pos``."""
        k = bisect.bisect_right(self.outs, pos) - 1
        if k < 0:
            return pos
        if pos < self.oute[k]:
            return self.ins[k]
        return self.ine[k] + pos - self.oute[k]

    def end(self, pos: int) -> int:
        """The input position just after the output character at ``pos - 1``."""
        k = bisect.bisect_right(self.outs, pos - 1) - 1
        if k < 0:
            return pos
        if pos - 1 < self.oute[k]:
            return self.ine[k]
        return self.ine[k] + pos - self.oute[k]

    def via(self, start: int, stop: int) -> set[str]:
        """The labels of the edits inside the output span ``[start, stop)``."""
        found: set[str] = set()
        k = bisect.bisect_right(self.oute, start)
        while k < len(self.outs) and self.outs[k] < stop:
            found.add(self.vias[k])
            k += 1
        return found


_Replace = Callable[[str, re.Match[str]], tuple[int, str, str] | None]


def _rewrite(text: str, pattern: re.Pattern[str], replace: _Replace) -> tuple[str, _Edits]:
    """``text`` with matches of ``pattern`` rewritten, and the edits made.

    ``replace(text, match)`` gives (where the edit starts, at or before the
    match; the new text; its label), or None to leave the match alone.
    """
    edits = _Edits()
    pieces: list[str] = []
    piece, ins, ine, outs, oute, vias = (
        pieces.append,
        edits.ins.append,
        edits.ine.append,
        edits.outs.append,
        edits.oute.append,
        edits.vias.append,
    )
    copied = out = 0
    for match in pattern.finditer(text):
        result = replace(text, match)
        if result is None:
            continue
        start, new, via = result
        if start < copied:
            continue
        stop = match.end()
        piece(text[copied:start])
        piece(new)
        out += start - copied
        ins(start)
        ine(stop)
        outs(out)
        out += len(new)
        oute(out)
        vias(via)
        copied = stop
    if not pieces:
        return text, edits
    piece(text[copied:])
    return "".join(pieces), edits


# Layer 1, unescape: runs of %XX (UTF-8), JSON and Python escapes, HTML references.
_UNESCAPE = re.compile(
    r"(?:%[0-9A-Fa-f]{2})+"
    r"|\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}"
    r"|\\u[0-9a-fA-F]{4}|\\U[0-9a-fA-F]{8}|\\x[0-9a-fA-F]{2}|\\[0-3][0-7]{2}"
    r"|\\[/\\\"'nrt]"
    r"|&#[xX][0-9a-fA-F]{1,6};|&#[0-9]{1,7};"
)
_HEX2 = re.compile(r"[0-9A-Fa-f]{2}")
_SIMPLE_ESCAPES = {"/": "/", "\\": "\\", '"': '"', "'": "'", "n": "\n", "r": "\r", "t": "\t"}


def _matters(decoded: str, joins: bool = False) -> bool:
    """What an escape decodes to can be part of a hidden token: a token character,
    a suspicious character, or (where lines are joined) a line break; not ``%20``
    or ``\\"``."""
    if not _TOKEN_STR.isdisjoint(decoded) or (joins and "\n" in decoded):
        return True
    if decoded.isascii():
        return False
    tables = _tables()
    return bool(tables.suspect.search(decoded) or tables.suspect_astral.search(decoded))


def _unescape_one(
    text: str, match: re.Match[str], joins: bool = False
) -> tuple[int, str, str] | None:
    """The edit for one escape; ``joins``: line breaks too (``\\n``, ``%0A``)."""
    raw = match.group()
    if raw[0] == "%":
        decoded = bytes.fromhex(raw.replace("%", "")).decode("utf-8", "replace")
        start, stop = match.span()
        if _matters(decoded, joins) or (decoded.endswith("%") and _HEX2.match(text, stop)):
            # (an encoded %: encoded twice, for the second pass; a line break: a split)
            return start, decoded, "split" if decoded.isspace() else "url"
        # a space between two words (``BEGIN%20RSA``), not where a token ends: one
        # that runs into ``%20`` is no token, written or decoded
        inside = start and stop < len(text) and text[start - 1] in _TOKEN_STR
        return (start, decoded, "url") if inside and text[stop] in _TOKEN_STR else None
    if raw[0] == "&":
        value = int(raw[3:-1], 16) if raw[2] in "xX" else int(raw[2:-1])
    elif raw[1] == "u" and len(raw) == 12:  # a UTF-16 surrogate pair
        value = 0x10000 + ((int(raw[2:6], 16) - 0xD800) << 10) + int(raw[8:12], 16) - 0xDC00
    elif raw[1] in "uUx":
        value = int(raw[2:], 16)
    elif raw[1].isdigit():
        value = int(raw[1:], 8)
    else:
        decoded = _SIMPLE_ESCAPES[raw[1]]
        # an escaped backslash before an escape: JSON inside JSON, for the second pass
        nested = decoded == "\\" and text[match.end() : match.end() + 1] in ("u", "U", "x", "/")
        if nested or _matters(decoded, joins):
            return match.start(), decoded, "split" if decoded.isspace() else "escape"
        return None
    if not 0 < value <= 0x10FFFF or not _matters(chr(value)):
        return None
    return match.start(), chr(value), "escape"


# Layer 2, unhide: invisible characters dropped, NFKC expansions (then, one for
# one so no position moves, look-alikes and one-character NFKC forms).
def _unhide_one(_text: str, match: re.Match[str]) -> tuple[int, str, str]:
    expanded = _tables().expand.get(match.group())
    if expanded is None:
        return match.start(), "", "zero-width"
    return match.start(), expanded, "nfkc"


# Layer 3, join: a line break between token characters, with what surrounds it.
_JOIN = re.compile(rf"\n[ \t]*(?:\+[ \t]*)?[\"']?(?=[{_TOKEN_CLASS}])")


def _before_break(text: str, newline: int) -> int:
    """Where the separator before the line break at ``newline`` starts, or -1.

    The separator is what may sit between a token's first half and the break: a
    closing quote, then a ``+`` or a backslash between spaces, then ``\\r``. -1
    if no token character comes before it, or only spaces end the line.
    """
    k = newline
    if k and text[k - 1] == "\r":
        k -= 1
    spaced = k
    while spaced and text[spaced - 1] in " \t":
        spaced -= 1
    if spaced and (
        text[spaced - 1] == "\\"
        or (text[spaced - 1] == "+" and spaced > 1 and text[spaced - 2] in " \t\"'")
    ):
        k = spaced - 1
        while k and text[k - 1] in " \t":
            k -= 1
    elif spaced != k:
        return -1  # spaces and then the line's end: a phrase ends there, no token
    if k and text[k - 1] in "\"'":
        k -= 1
    return k if k and text[k - 1] in _TOKEN_STR else -1


def _join_one(text: str, match: re.Match[str]) -> tuple[int, str, str] | None:
    start = _before_break(text, match.start())
    return None if start < 0 else (start, "", "split")


def _join_unless_keyword(text: str, match: re.Match[str]) -> tuple[int, str, str] | None:
    """As ``_join_one``, but not before a line that starts with a keyword: a token
    begins there, and the line before, joined to it, would run into it."""
    if _KEYWORD_AT.match(text, match.end()):
        return None
    return _join_one(text, match)


def _unescape_joining(text: str, match: re.Match[str]) -> tuple[int, str, str] | None:
    return _unescape_one(text, match, joins=True)


def _normalised_spans(data: bytes, begin: int, end: int, breaks: list[int]) -> list[_Span]:
    """Evaded secrets in ``data[begin:end]``, normalised: (start, rule, stop, via).

    ``breaks``: the line-break tells in the region (byte positions); with any,
    escaped line breaks are decoded and views with lines joined are scanned too.
    """
    joins = bool(breaks)
    try:
        original = data[begin:end].decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return []  # decoded base64 that is not UTF-8 throughout: raw scan only
    unescape = _unescape_joining if joins else _unescape_one
    unescaped, escapes = _rewrite(original, _UNESCAPE, unescape)
    layers = [escapes]
    if escapes.ins:  # encoded twice (``%2567``, JSON in JSON): once more, no further
        unescaped, again = _rewrite(unescaped, _UNESCAPE, unescape)
        layers.append(again)
    tables = None if unescaped.isascii() else _tables()
    if tables is None:
        unhidden, hidden, translated = unescaped, _Edits(), unescaped
    else:
        astral = max(unescaped, default="") > "\uffff"
        unhide = tables.unhide_astral if astral else tables.unhide
        unhidden, hidden = _rewrite(unescaped, unhide, _unhide_one)
        swap = tables.swap_astral if astral else tables.swap
        translated = swap.sub(lambda m: tables.one[ord(m.group())], unhidden)
    # Joined lines are views of their own: joining two lines that each end and
    # start with a token would hide both, and so would joining the line before a
    # token, or after it, to it. So: every break joined (a token over many
    # lines); every break but those before a keyword; only the breaks that told.
    views = [(translated, _Edits())]
    if joins and "\n" in translated:
        told = {
            len(data[begin:at].decode("utf-8", "surrogatepass")) for at in breaks if at >= begin
        }

        def only_told(text: str, match: re.Match[str]) -> tuple[int, str, str] | None:
            at = hidden.start(match.start())
            for layer in reversed(layers):
                at = layer.start(at)
            return _join_one(text, match) if at in told else None

        seen: set[str] = set()
        for join in (_join_one, _join_unless_keyword, only_told):
            joined, splits = _rewrite(translated, _JOIN, join)
            if splits.ins and joined not in seen:
                seen.add(joined)
                views.append((joined, splits))
    spans: list[_Span] = []
    for text, splits in views:
        view = text.encode("utf-8", "surrogatepass")
        lowered = view.lower()
        found = sorted(
            (start, order, stop)
            for start, order, stop in _found(view, lowered, _keyword_hits(lowered))
            if order != _PRIVATE_KEY or _key_material(view[start:stop])
        )
        if found:
            spans += _mapped_back(
                found, view, splits, (unhidden, hidden, tables), layers, original, begin
            )
    return spans


_PRIVATE_KEY = [rule.id for rule in RULES].index("private-key")
_NOT_BASE64 = re.compile(rb"[^A-Za-z0-9+/=]")


def _key_material(block: bytes) -> bool:
    """A PEM block's body is base64 (90% at least, for ``Proc-Type:`` lines).

    gitleaks takes any 64 characters as the body; in a normalised view that
    would take code that builds a PEM from pieces (``"-----" + "BEGIN ..."``
    and a variable) for a key.
    """
    head = block.find(b"-----", 5) + 5
    foot = block.rfind(b"-----", head, len(block) - 5)
    body = b"".join(block[head:foot].split())
    return len(body) >= 64 and len(_NOT_BASE64.findall(body)) * 10 <= len(body)


def _mapped_back(
    found: list[tuple[int, int, int]],
    view: bytes,
    splits: _Edits,
    unhide: tuple[str, _Edits, _Tables | None],
    escapes: list[_Edits],
    original: str,
    begin: int,
) -> list[_Span]:
    """Spans found in a normalised ``view`` as spans of the original bytes.

    A span no layer changed anything inside is left out: the raw scan saw it.
    """
    unhidden, hidden, tables = unhide
    spans: list[_Span] = []
    ascii_view = view.isascii()
    char = byte = 0  # a position in ``original``, in characters and in bytes
    view_char = view_byte = 0  # the same in ``view`` (``found`` is sorted)
    for start, order, stop in found:
        if ascii_view:
            a, b = start, stop
        else:
            view_char += len(view[view_byte:start].decode("utf-8", "surrogatepass"))
            view_byte = start
            a = view_char
            b = a + len(view[start:stop].decode("utf-8", "surrogatepass"))
        vias = splits.via(a, b)
        a, b = splits.start(a), splits.end(b)
        if tables is not None:
            if tables.lookalike.search(unhidden, a, b):
                vias.add("homoglyph")
            if tables.nfkc_one.search(unhidden, a, b):
                vias.add("nfkc")
        vias |= hidden.via(a, b)
        a, b = hidden.start(a), hidden.end(b)
        for layer in reversed(escapes):
            vias |= layer.via(a, b)
            a, b = layer.start(a), layer.end(b)
        if not vias:
            continue  # nothing was hidden here: the raw scan saw it as it is
        via = min(vias, key=_VIA_ORDER.index)
        if a < char:
            char = byte = 0
        byte += len(original[char:a].encode("utf-8", "surrogatepass"))
        length = len(original[a:b].encode("utf-8", "surrogatepass"))
        char = a
        spans.append((begin + byte, order, begin + byte + length, via))
    return spans


# -- tells ------------------------------------------------------------------------

# Bytes by class, for the base64 and non-ASCII tells: "A" for the base64 and
# base64url alphabet, "u" for a byte of a non-ASCII character, "x" for the rest.
_CLASSES = bytes(
    ord("A") if chr(b) in _TOKEN_STR and chr(b) not in ".=" else ord("u") if b > 0x7F else ord("x")
    for b in range(256)
)
_HEX_TOKEN = rb"(?:2[BbDdEeFf]|3[0-9Dd]|4[1-9A-Fa-f]|5[0-9AaFf]|6[1-9A-Fa-f]|7[0-9Aa])"
# (inside a run of token characters: ``%4d `` in a format string is no tell)
_URL_TELL = re.compile(
    rb"%(?:" + _HEX_TOKEN + rb"|[C-Fc-f][0-9A-Fa-f]|25[0-9A-Fa-f]{2})"
    rb"(?:(?<=[A-Za-z0-9_.+/=-]...)|(?<=[A-Za-z0-9_.+/=-]...[0-9A-Fa-f]{2})|(?=[A-Za-z0-9_.+/=%-]))"
)
# \u: an ASCII token character, Latin extensions, Greek, Cyrillic, Armenian,
# Cherokee, phonetic and general punctuation (invisible characters, bidi),
# letterlike and enclosed forms, variation selectors, BOM, full-width forms, a
# surrogate of the mathematical letters; \x and octal: a token character.
_ESCAPE_TELL = re.compile(
    rb"\\(?:u(?:00"
    + _HEX_TOKEN
    + rb"|00[Aa][Dd]|0[1-5][0-9A-Fa-f]{2}|13[A-Fa-f][0-9A-Fa-f]|1[Dd][0-9A-Fa-f]{2}"
    rb"|2[0-4][0-9A-Fa-f]{2}|[Ff][Ee][0-9A-Fa-f]{2}|[Ff][Ff][0-9A-Fa-f]{2}|[Dd]835)"
    rb"|U0001[Dd][0-9A-Fa-f]{3}|U000[Ee]0[0-1][0-9A-Fa-f]{2}|U000000"
    + _HEX_TOKEN
    + rb"|x"
    + _HEX_TOKEN
    + rb"|/|0[5-7][0-7]|1[0-7][0-7])|&#(?:[xX][0-9A-Fa-f]{1,6}|[0-9]{1,7});"
)
# A line break after nine token characters, or a token character and a
# separator (a quote, a backslash, `` +``, a space), before a token character; or
# after one token character before nine. First a one-byte look back that most
# line breaks fail (after ``:``, ``)``, ``]``, another line break); then a
# capital or a digit near it: a token's random part has one in any twelve of
# its characters (none in twelve: under 3 in 10,000 for the most lowercase
# family, Hugging Face), prose and most code have none around a line end.
_T = rb"[A-Za-z0-9_.+/=-]"
# A capital or a digit in the twelve bytes before it or the forty after it.
_MIXED_NEAR = rb"(?:(?<![^A-Z0-9]{12}\n)|(?=[^\n]{0,40}[A-Z0-9]))"
_BREAK_TELL = re.compile(
    rb"\n(?<=[A-Za-z0-9_.+/=\-\"'\\ \t\r]\n)"
    + _MIXED_NEAR
    + rb"(?:"
    + rb"(?:(?<=%s{9}\n)|(?<=%s{9}\r\n)|(?<=%s[\"']\n)|(?<=%s[\"']\r\n)" % (_T, _T, _T, _T)
    + rb"|(?<=%s\\\n)|(?<=%s[ \t]\\\n)|(?<=[\"'] \+\n)|(?<=[\"']\+\n)|(?<=%s[ \t]\n))"
    % (_T, _T, _T)
    + rb"[ \t]*(?:\+[ \t]*)?[\"']?(?=%s)" % _T
    + rb"|(?:(?<=%s\n)|(?<=%s\r\n))[ \t]*(?:\+[ \t]*)?[\"']?(?=%s{9}))" % (_T, _T, _T)
)
# A line break escaped in a JSON or Python string, between token characters.
_ESCAPED_BREAK_TELL = re.compile(
    rb"\\n(?<=[A-Za-z0-9_.+/=\-\"' \t]\\n)(?=[ \t]*(?:\+[ \t]*)?[\"']?[A-Za-z0-9_.+/=-])"
    rb"(?:(?<![^A-Z0-9]{12}\\n)|(?=[^\n]{0,40}[A-Z0-9]))"
)
_TOKEN_RUN = re.compile(rb"[A-Za-z0-9_.+/=-]*")
_AFTER_BREAK = re.compile(
    rb"[ \t]*(?:\+[ \t]*)?[\"']?([A-Za-z0-9_.+/=-]{1,%s})" % str(_RUN_MAX).encode()
)


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


_KEYWORD = re.compile(_trie(k for n in _NEEDLES for k in n))
_KEYWORD_AT = re.compile(_KEYWORD.pattern.decode("ascii"), re.IGNORECASE | re.ASCII)
_TOKEN_MIN = 18  # the shortest token any rule takes (sk_live_ and ten characters)

# The two-character keywords are in every other line of code (``key``, ``self.``):
# around a line break they count with the shape of their token only.
_SHORT_KEYWORDS = {b"ey": re.compile(rb"eyj"), b"s.": re.compile(rb"s\.[a-z0-9]{24}")}


def _suspicious(text: str, block: bytes, tables: _Tables) -> bool:
    """``text`` (``block`` decoded) holds a tell: see ``_Tables.suspect``."""
    found = tables.suspect.search(text)
    while found is not None:
        at = found.start()
        if found.group() not in _LOOKALIKES or tables.lookalike_next.search(text, at - 1, at + 2):
            return True
        found = tables.suspect.search(text, at + 1)
    # beyond the BMP: tag characters start with F3, the rest with F0
    return (b"\xf0" in block or b"\xf3" in block) and bool(tables.suspect_astral.search(text))


def _unicode_tells(data: bytes, classes: bytes) -> list[int]:
    """Byte positions around suspicious non-ASCII characters.

    From each non-ASCII byte, the next ``_BLOCK`` bytes are decoded and looked at
    at once; then the search goes on after them.
    """
    tables = _tables()
    tells: list[int] = []
    pos = 0
    while (found := classes.find(b"u", pos)) >= 0:
        begin = max(0, found - 1)  # the ASCII character before, for a look-alike
        pos = found + _BLOCK
        block = data[begin : pos + 3]  # whole characters at the end
        if _suspicious(block.decode("utf-8", "ignore"), block, tables):
            tells += (begin, pos)
    return tells


def _tells(pattern: re.Pattern[bytes], data: bytes) -> list[int]:
    """Where ``pattern`` matches, but one position per ``_TELL_GAP`` bytes at most."""
    tells: list[int] = []
    pos = 0
    while (match := pattern.search(data, pos)) is not None:
        tells.append(match.start())
        pos = match.start() + _TELL_GAP
    return tells


def _run_back(data: bytes, stop: int, limit: int) -> int:
    """How many token characters, ``limit`` at most, end at ``stop``."""
    run = _TOKEN_RUN.match(data[max(0, stop - limit) : stop][::-1])
    return 0 if run is None else run.end()


def _break_tells(data: bytes, pattern: re.Pattern[bytes] = _BREAK_TELL) -> list[int]:
    """Line breaks (``pattern``: real ones, or escaped) inside what could be one token
    split in two: the runs of token characters either side, joined, hold a keyword."""
    tells: list[int] = []
    skip = 0
    for match in pattern.finditer(data):
        newline = match.start()
        if newline < skip:
            continue  # close to the last tell: its region covers this
        window = data[max(0, newline - 16) : newline].decode("latin-1")
        stop = _before_break(window, len(window))
        if stop < 0:
            continue
        stop += newline - len(window)
        before = _run_back(data, stop, 64)
        if before == 64:  # a long run: look further back
            before = _run_back(data, stop, _RUN_MAX)
        after = _AFTER_BREAK.match(data, newline + len(match.group()))
        if after is None:
            continue
        joined = (data[stop - before : stop] + after.group(1)).lower()
        for keyword in _KEYWORD.finditer(joined):
            shape = _SHORT_KEYWORDS.get(keyword.group())
            if shape is None or (
                len(joined) >= _TOKEN_MIN and shape.match(joined, keyword.start())
            ):
                tells.append(newline)
                skip = newline + _TELL_GAP
                break
    return tells


_PEM_END = re.compile(rb"(?i)key(?: block)?-----")
_PEM_MAX = 16 * 1024  # how far a region that holds ``-----`` looks for a PEM block's end


def _regions(data: bytes, tells: list[tuple[int, bool]]) -> list[tuple[int, int, bool]]:
    """Byte ranges to normalise: ``_REGION`` around each tell, to line ends, merged.

    ``tells`` are (position, is a line break); a region says whether it holds a
    line-break tell (only then are lines joined in it).
    """
    size = len(data)
    regions: list[tuple[int, int, bool]] = []
    for tell, breaks in sorted(tells):
        begin, end = max(0, tell - _REGION), min(size, tell + _REGION)
        line = data.rfind(b"\n", max(0, begin - 512), begin)
        begin = line + 1 if line >= 0 else begin
        line = data.find(b"\n", end, end + 512)
        end = line if line >= 0 else end
        if data.find(b"-----", begin, end) >= 0:  # a PEM header, maybe: on to its end
            close = _PEM_END.search(data, end - 16, min(size, end + _PEM_MAX))
            end = max(end, close.end()) if close else end
        while 0 < begin < size and 0x80 <= data[begin] < 0xC0:
            begin -= 1  # not inside a character
        while 0 < end < size and 0x80 <= data[end] < 0xC0:
            end += 1
        if regions and begin <= regions[-1][1]:
            last = regions[-1]
            regions[-1] = (last[0], max(end, last[1]), last[2] or breaks)
        else:
            regions.append((begin, end, breaks))
    return regions


# -- base64 -----------------------------------------------------------------------

# A base64 run: one line, or whole lines of base64 wrapped after it.
_B64_RUN = re.compile(
    rb"[A-Za-z0-9+/_-]+(?:[ \t]*\r?\n[ \t]*[A-Za-z0-9+/_-]{4,}(?==*[ \t]*\r?(?:\n|\Z)))*=*"
)
_B64_SPACE = re.compile(rb"[^ \t\r\n]+")
_URLSAFE = bytes.maketrans(b"-_", b"+/")
_CONTROL = bytes(b for b in range(32) if b not in b"\t\n\r") + b"\x7f"


def _texty(raw: bytes) -> bool:
    """Decoded base64 that reads as text: 5% control bytes or invalid UTF-8 at most."""
    if not raw:
        return False
    bad = len(raw) - len(raw.translate(None, _CONTROL))
    if not raw.isascii():
        bad += raw.decode("utf-8", "replace").count("\ufffd")
    return bad * 20 <= len(raw)


def _origin(starts: list[int], origins: list[int], index: int) -> int:
    """The byte in the input of character ``index`` of a base64 run without its line breaks."""
    k = bisect.bisect_right(starts, index) - 1
    k = min(k, len(origins) - 1)
    return origins[k] + index - starts[k]


def _base64_runs(data: bytes, classes: bytes) -> Iterator[tuple[int, int]]:
    """(start, end) of each base64 run of ``data``, wrapped lines included.

    The first twenty alphabet bytes from ``pos`` start a run: had it started
    earlier, but after ``pos`` (the end of the last run), it would have been
    found there.
    """
    needle = b"A" * _B64_MIN
    pos = 0
    while (begin := classes.find(needle, pos)) >= 0:
        run = _B64_RUN.match(data, begin)
        pos = begin + _B64_MIN if run is None else max(run.end(), begin + _B64_MIN)
        yield begin, pos


def _base64_spans(data: bytes, classes: bytes, depth: int) -> list[_Span]:
    """Secrets in the text that base64 runs of ``data`` decode to, mapped onto the runs."""
    spans: list[_Span] = []
    for begin, pos in _base64_runs(data, classes):
        raw = data[begin:pos]
        if raw.islower() or raw.isupper():
            continue  # snake_case names, hex digests: base64 of text mixes cases
        # the run without its line breaks, and where each piece of it started
        if b"\n" in raw:
            pieces = [(m.start(), m.group()) for m in _B64_SPACE.finditer(raw)]
            clean = b"".join(p for _, p in pieces)
            starts = list(itertools.accumulate((len(p) for _, p in pieces), initial=0))
            origins = [begin + at for at, _ in pieces]
        else:
            clean, starts, origins = raw, [0], [begin]
        clean = clean.rstrip(b"=").translate(_URLSAFE)
        # what is glued in front (``token_``, ``path/``) ends with a separator
        # character of the alphabet: try from just after each one too
        firsts = [0]
        lead = clean[:12]
        if b"/" in lead or b"+" in lead:
            firsts += [i + 1 for i in range(min(12, len(clean) - 1)) if clean[i] in b"+/"]
        for first in firsts:
            for chunk in range(first, max(first + 1, len(clean) - _B64_OVERLAP), _B64_CHUNK):
                piece = clean[chunk : chunk + _B64_CHUNK + _B64_OVERLAP]
                if len(piece) % 4 == 1:
                    piece = piece[:-1]  # a lone sextet holds no byte
                piece += b"=" * (-len(piece) % 4)
                if len(piece) < _B64_MIN:
                    continue
                try:
                    decoded = binascii.a2b_base64(piece)
                except binascii.Error:
                    continue
                if not _texty(decoded):
                    continue
                raw_spans, hidden_spans = _secret_spans(decoded, depth + 1)
                for start, order, stop, _via in raw_spans + hidden_spans:
                    head = chunk + start // 3 * 4
                    tail = min(len(clean), chunk + -(-stop // 3) * 4)
                    spans.append(
                        (
                            _origin(starts, origins, head),
                            order,
                            _origin(starts, origins, tail - 1) + 1,
                            "base64",
                        )
                    )
    return spans


def _hidden_spans(data: bytes, depth: int) -> list[_Span]:
    """Every evaded secret in ``data``, in its bytes: (start, rule index, stop, via)."""
    tells: list[int] = []
    classes = data.translate(_CLASSES)
    if not data.isascii():
        tells += _unicode_tells(data, classes)
    if b"%" in data:
        tells += _tells(_URL_TELL, data)
    # one byte is found by memchr, two by a slower search: one first, then two
    backslash = b"\\" in data
    if backslash or (b"&" in data and b"&#" in data):
        tells += _tells(_ESCAPE_TELL, data)
    breaks = _break_tells(data)
    if backslash and b"\\n" in data:
        breaks += _break_tells(data, _ESCAPED_BREAK_TELL)
    breaks.sort()
    spans: list[_Span] = []
    marked = [(t, False) for t in tells] + [(t, True) for t in breaks]
    for begin, end, joins in _regions(data, marked):
        inside = breaks[bisect.bisect_left(breaks, begin) : bisect.bisect_left(breaks, end)]
        spans += _normalised_spans(data, begin, end, inside if joins else [])
    if depth < _B64_LEVELS:
        spans += _base64_spans(data, classes, depth)
    return spans


def _secret_spans(data: bytes, depth: int = 0) -> tuple[list[_Span], list[_Span]]:
    """(raw spans, evaded spans) of the secrets in ``data``; the two may overlap."""
    lowered = data.lower()
    raw = [(s, o, e, "") for s, o, e in _found(data, lowered, _keyword_hits(lowered))]
    return raw, _hidden_spans(data, depth)


def _not_overlapping(raw: list[_Span], hidden: list[_Span]) -> list[_Span]:
    """The evaded spans that no raw span overlaps (the raw finding is the exact one)."""
    if not raw or not hidden:
        return hidden
    raw = sorted(raw)
    starts = [s for s, _, _, _ in raw]
    reach = list(itertools.accumulate((e for _, _, e, _ in raw), max))
    kept = []
    for span in hidden:
        k = bisect.bisect_left(starts, span[2])
        if not k or reach[k - 1] <= span[0]:
            kept.append(span)
    return kept


# --- the scanner's interface ---------------------------------------------------


def _spans(text: str, caller: str) -> tuple[bytes, list[_Span], list[_Span]]:
    """The text's UTF-8 bytes, its raw secret spans, and its evaded ones."""
    data, lowered, hits = _prepare(text, caller)
    raw = [(s, o, e, "") for s, o, e in _found(data, lowered, hits)]
    return data, raw, _hidden_spans(data, 0)


def scan(text: str) -> list[Finding]:
    """All findings in text, sorted by (line, column, rule_id).

    One finding per secret span: if two rules match overlapping text, the one
    starting first is kept, then the one listed first in ``RULES``. A secret
    found only once the text is normalised (see "evasions" above) is an
    ``EvadedFinding``, at the line and column in ``text`` where its hidden form
    starts; one that a plainly written secret overlaps is not reported twice.
    """
    data, raw, hidden = _spans(text, "scan")
    findings: list[Finding] = []
    taken_until = pos = line_start = 0
    line = 1
    for start, order, stop, via in sorted(raw + _not_overlapping(raw, hidden)):
        if start < taken_until:
            continue  # overlaps a secret already reported
        taken_until = stop
        newlines = data.count(b"\n", pos, start)
        if newlines:
            line += newlines
            line_start = data.rfind(b"\n", pos, start) + 1
        pos = start
        column = len(data[line_start:start].decode("utf-8", "surrogatepass")) + 1
        rule = RULES[order]
        if via:
            findings.append(EvadedFinding(rule.id, rule.description, line, column, via))
        else:
            findings.append(Finding(rule.id, rule.description, line, column))
    findings.sort(key=lambda f: (f.line, f.column, f.rule_id))
    return findings


def is_clean(text: str) -> bool:
    """True if no rule finds a secret in text, as written or once normalised."""
    data, lowered, hits = _prepare(text, "is_clean")
    return next(_found(data, lowered, hits), None) is None and not _hidden_spans(data, 0)


def redact(text: str) -> str:
    """The text with every secret replaced by ``[secret: rule-id]``.

    What the desk and the CLI print of a memory goes through this, so a credential
    that reached a store (pasted by hand, imported) is never shown. A hidden one
    is replaced where it stands in ``text``, its disguise included (for base64,
    the characters that encode it); where a raw and a hidden span overlap, both
    go under one replacement.
    """
    data, raw, hidden = _spans(text, "redact")
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
        out += f"[secret: {RULES[order].id}]".encode()
        taken_until = stop
    out += data[taken_until:]
    return out.decode("utf-8", "surrogatepass")
