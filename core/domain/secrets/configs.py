r"""The likely tier in particular tools' files: a password where one tool's format puts it.

* ``config-password-line``: a line ``password <value>`` (msmtp's, mutt's, fetchmail's
  configuration), one value to the end of the line.
* ``sql-password``: ``CREATE USER ... IDENTIFIED BY '...'`` (MySQL, Oracle) and
  ``WITH [ENCRYPTED] PASSWORD '...'`` (PostgreSQL).
* ``kubernetes-patch-secret``: a JSON patch (kustomize) that replaces a Secret's
  ``/data/<secret name>`` with a value.
* ``composer-auth``: Composer's ``auth.json`` (``"github-oauth": {"github.com": "..."}``).
* ``postfix-sasl-password``: a line of Postfix's ``sasl_passwd``
  (``[smtp.host]:587 user:password``).
* ``wallet-private-key``: 64 hex digits after ``0x`` where a wallet's key goes
  (Hardhat's ``accounts: ['0x...']``, ``PRIVATE_KEY=0x...``).

The value must pass :func:`.values.plausible` (or, in prose-like lines, its ``strict``
form). Memgov's own rules, written after the misses of blind corpora.
"""

from __future__ import annotations

import re

from core.domain.secrets.names import names_secret
from core.domain.secrets.rule import Rule, make_rule
from core.domain.secrets.structure import value_check

_VALUE = r"""(?:'([^'\n]{1,256})'|"([^"\n]{1,256})"|([^\s'"\x60]{1,256}))"""
_LIKELY = value_check(hex_is_hash=False)
_STRICT = value_check(hex_is_hash=False, strict=True)


def named_value(data: bytes, match: re.Match[bytes]) -> tuple[int, int] | None:
    """The value (the last group) where the first group is a secret's name."""
    if not names_secret(match.group(1).decode("ascii", "replace")):
        return None
    return _LIKELY(data, match)


def _wallet_key(data: bytes, match: re.Match[bytes]) -> tuple[int, int] | None:
    start, stop = match.span(1)
    digits = data[start + 2 : stop]
    return (start, stop) if len(set(digits.lower())) >= 10 else None


# fmt: off
CONFIG_RULES: tuple[Rule, ...] = (
    make_rule("config-password-line", "A password on its own configuration line",
              r"(?m:^)[ \t]{0,16}(?:password|passwd)[ \t]+"
              r"([^\s'\"]{6,128}|[a-z]{4}(?: [a-z]{4}){3})[ \t]*\r?$",
              ("password", "passwd"), tier="likely", check=_STRICT, evades=False),
    make_rule("sql-password", "A password set in SQL (CREATE USER, ALTER ROLE)",
              (r"\bIDENTIFIED[ \t]+(?:WITH[ \t]+\S{1,64}[ \t]+)?BY[ \t]+'([^'\n]{1,128})'",
               r"\bWITH[ \t]+(?:ENCRYPTED[ \t]+)?PASSWORD[ \t]+'([^'\n]{1,128})'"),
              ("identified", "password '"), ignore_case=True, tier="likely", check=_LIKELY,
              evades=False),
    make_rule("kubernetes-patch-secret", "A Secret's value set by a JSON patch",
              r"\bpath:[ \t]*/(?:data|stringData)/([\w.-]{1,64})[ \t]*\r?\n[ \t]{0,16}"
              r"value:[ \t]*" + _VALUE,
              ("/data/", "/stringdata/"), tier="likely", check=named_value, multiline=True,
              evades=False),
    make_rule("composer-auth", "A token in Composer's auth.json",
              r"\"(?:github-oauth|gitlab-token|gitlab-oauth|bitbucket-oauth)\"[ \t]*:[ \t]*\{"
              r"[ \t\r\n]{0,16}\"[^\"\n]{1,100}\"[ \t]*:[ \t]*\"([^\"\n]{8,256})\"",
              ("github-oauth", "gitlab-token", "gitlab-oauth", "bitbucket-oauth"),
              tier="likely", check=_LIKELY, evades=False),
    make_rule("postfix-sasl-password", "A password in Postfix's sasl_passwd",
              r"(?m:^)[ \t]{0,16}\[[^\]\s]{1,253}\](?::\d{1,5})?[ \t]+[^\s:]{1,128}:(\S{1,256})"
              r"[ \t]*\r?$",
              ("]:587", "]:465", "]:25", "]:2525"), tier="likely", check=_LIKELY, evades=False),
    make_rule("wallet-private-key", "A wallet's private key (64 hex digits after 0x)",
              r"\b(?:accounts|private_?key|privatekey|deployer_?key|wallet_?key)\b[^\n]{0,30}?"
              r"['\"]?(0x[0-9a-fA-F]{64})(?![0-9a-fA-F])",
              ("accounts", "privatekey", "private_key", "deployer", "wallet"), ignore_case=True,
              tier="likely", check=_wallet_key, evades=False),
)
# fmt: on
