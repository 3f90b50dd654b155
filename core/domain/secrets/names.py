"""Whether a key names a secret: ``DB_PASSWORD``, ``clientSecret``, ``api-key``, ``密码``.

A key is split into words (``_ - .``, spaces, camelCase); it names a secret
when its last word (a trailing number, or ``base``/``value``/``b64`` after a
secret word, left aside) is one of :data:`SECRET_WORDS` in one of the seed's
languages (or ends in one, glued: ``DBPASS``, ``sshpass``), or is ``key``
after a qualifier that makes a key a secret one (``api``, ``secret``,
``private``, ``signing``, ...). A name that says ``public`` or ``publishable``
names no secret; neither does one that ends in another word
(``password_min_length``, ``token_type``, ``secret_id``, ``POSTGRES_PASSWORD_FILE``):
that is the *name* of a setting about a secret.
"""

from __future__ import annotations

import re

SECRET_WORDS = frozenset(
    {
        "password", "passwd", "pwd", "pw", "pass", "passe", "passphrase", "passcode", "passwort",
        "wachtwoord",
        "kennwort", "secret", "token", "credential", "credentials", "psk", "senha",
        "contrasena", "contraseña", "clave", "apikey", "secretkey", "privatekey", "authtoken",
        "accesstoken", "apitoken", "apisecret", "clientsecret", "appsecret", "authtok", "parol",
        "mdp",
    }
)  # fmt: skip
_CJK_WORDS = ("密码", "密碼", "口令", "密钥", "パスワード", "비밀번호", "пароль", "Пароль", "암호")
KEY_QUALIFIERS = frozenset(
    {
        "api", "secret", "private", "signing", "sign", "encryption", "encrypt", "crypt",
        "master", "app", "auth", "session", "account", "hmac", "jwt", "shared", "role",
        "license", "storage", "cipher", "aes", "admin", "root", "service", "sas", "bot",
        "consumer", "x", "access", "client", "cookie", "webhook", "sendgrid", "stripe",
    }
)  # fmt: skip
_TRAILING = frozenset({"base", "value", "b64", "base64", "raw", "plain", "plaintext"})
_NOT_SECRET = frozenset({"public", "publishable", "pub", "example", "sample", "dummy", "fake"})
_TOKEN_KINDS_NOT_SECRET = frozenset(
    {"page", "next", "continuation", "cursor", "pagination", "sync", "csrf", "xsrf", "max",
     "num", "input", "output", "prompt", "completion", "total", "id", "cancellation"}
)  # fmt: skip
_VERSION_WORD = re.compile(r"v\d{1,2}")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SPLIT = re.compile(r"[\s_.\-]+")


def words(key: str) -> list[str]:
    """The key's words, lowercased: ``SMTP_PASSWORD`` and ``smtpPassword`` alike."""
    return [w.lower() for w in _SPLIT.split(_CAMEL.sub(" ", key)) if w]


def names_secret(key: str) -> bool:
    """Whether ``key`` is the name of a secret (see the module)."""
    if key.strip("\"' ") == "_auth":
        return True  # npm's ``_auth`` (base64 of user:password)
    if any(word in key for word in _CJK_WORDS):
        return key.rstrip("0123456789").endswith(_CJK_WORDS)
    parts = [w for w in words(key) if not _VERSION_WORD.fullmatch(w)]  # ``API_V3_KEY``
    while parts and (parts[-1].isdigit() or parts[-1] in _TRAILING):
        parts.pop()
    if not parts or _NOT_SECRET.intersection(parts):
        return False
    last = parts[-1]
    before = parts[-2] if len(parts) > 1 else ""
    if last == "key":
        if before == "access":
            return "secret" in parts
        return before in KEY_QUALIFIERS
    if last == "token" and before in _TOKEN_KINDS_NOT_SECRET:
        return False
    if "community" in (last, before) and ("snmp" in parts or before in ("ro", "rw")):
        return last in ("community", "string")  # an SNMP community: its password
    if last == "code" and before in ("auth", "authorization", "access", "secret", "app"):
        return True  # ``authCode``: a mail service's client password (QQ, 163)
    if last in _PLACES and (before in SECRET_WORDS or _glued(before)):
        return True  # ``PASSWORD_PROD``, ``MOT_DE_PASSE_BDD``: a secret and where it is for
    return last in SECRET_WORDS or _glued(last)


# what may follow a secret word in a name and leave it a secret's
_PLACES = frozenset(
    {"db", "bdd", "database", "prod", "production", "staging", "stage", "dev", "test", "qa",
     "admin", "root", "main", "primary", "master", "smtp", "mail", "ftp", "sftp", "ssh", "mysql",
     "pg", "postgres", "redis", "ldap", "vpn", "wifi", "old", "new", "current",
     "acesso", "acceso", "acces", "accès", "zugang"}
)  # fmt: skip


# a secret word glued to what it is for: ``DBPASS``, ``rootpassword``, ``sshpass``, ``botsecret``
_GLUED = re.compile(r"[a-z]{2,12}(?:password|passwd|passwort|pass|pwd|secret|token|psk)")
_GLUED_WORDS = frozenset(
    {"bypass", "compass", "encompass", "surpass", "overpass", "underpass", "trespass", "impass",
     "subpass", "multipass", "firstpass", "onepass", "twopass"}
)  # fmt: skip


def _glued(word: str) -> bool:
    return bool(_GLUED.fullmatch(word)) and word not in _GLUED_WORDS


# what a key is that is not a secret one: a database's, a cache's, a map's, a site's
_KEY_KINDS_NOT_SECRET = frozenset(
    {"cache", "sort", "partition", "primary", "foreign", "object", "s3", "idempotency",
     "routing", "lookup", "map", "i18n", "translation", "message", "row", "index", "dedup",
     "unique", "composite", "group", "shard", "site", "hash", "entry", "dict", "json", "item",
     "table", "column", "field", "prefix", "name", "host", "file", "path", "ssh", "gpg", "kms"}
)  # fmt: skip


def names_key(key: str) -> bool:
    """Whether ``key`` names a key of no known kind (``PAY_NOTIFY_KEY``): a secret if
    its value is random (:mod:`.likely`), where a secret's name needs no more."""
    parts = [w for w in words(key) if not _VERSION_WORD.fullmatch(w)]
    while parts and (parts[-1].isdigit() or parts[-1] in _TRAILING):
        parts.pop()
    if len(parts) < 2 or parts[-1] != "key" or _NOT_SECRET.intersection(parts):
        return False
    return parts[-2] not in _KEY_KINDS_NOT_SECRET
