r"""Whether a value found beside a secret's name is a secret, or only looks like a place for one.

:func:`plausible` is asked about every value a structure or likely rule finds
(the password of a ``.netrc`` line, the value of ``DB_PASSWORD=...``, the word
after "the password is"). It refuses, in this order:

* an empty or short value (under six characters), one with a space, a
  non-ASCII character (``你的密码``, ``＜パスワード＞``), a URL or an e-mail;
* a placeholder: ``<...>``, ``your-...-here``, ``changeme``, ``example``,
  ``TODO``, ``REPLACE_ME`` (an identifier in capitals), ``xxxx`` or a run of one
  character, ``...``;
* a reference: ``${VAR}``, ``$VAR``, ``{{ ... }}``, ``{name}``, ``%(x)s``, ``%s``,
  ``!Ref``/``!ENV``, ``op://``, ``vault:``, ``secret://``, ``arn:``, and code
  (``os.environ[...]``, ``process.env.X``, ``f.read()``, ``settings.PASSWORD``, a
  type: ``tuple[str, str]``, ``SecretStr``), Terraform's ``var.x``/``local.x``,
  Windows' ``%VAR%``, Kubernetes' ``secretKeyRef``/``valueFrom``;
* masked: ``***``, ``•``, ``…``, ``sk-...abcd``, ``(hidden)``;
* a hash: bcrypt ``$2b$``, ``$argon2``, crypt ``$6$``, ``pbkdf2_``, ``{SSHA}``; hex of
  32, 40, 64 or 128 digits where the name or the words before it say hash,
  digest, checksum, sha or md5 (always, in prose: there a hex string is a
  digest more often than a key);
* an integrity string (``sha512-...``), a UUID, a version (``v1.2.3``,
  ``2.4.0-rc.3``), a path (``/etc/...``, ``~/.ssh/...``, ``C:\...``, a file name);
* base64 of text with a space in it (encoded words: a token inside them is found
  by the evasion layer) or of a placeholder;
* a boolean, a number, a word (letters only, in one case or capitalised:
  ``true``, ``none``, ``required``, ``Password``), an identifier
  (``db_password``, ``myPassword``).

:func:`typed` is the looser test for a value given right after a command's
password flag (``redis-cli -a`` and a word): there a short plain word is a password.

In prose (``strict``), a value must also mix a letter with a digit or a symbol:
"the password is stored" names no password.

Nothing here keeps, prints or raises with a value.
"""

from __future__ import annotations

import binascii
import json
import re
import unicodedata
from base64 import b64decode

from core.domain.secrets.names import names_secret
from core.domain.secrets.placeholders import (
    looks_sequential,
    mostly_runs,
    mostly_sequence,
    shannon_entropy,
)

MIN_LENGTH = 6

_PLACEHOLDER = re.compile(
    r"example|placeholder|redacted|dummy|sample|changeme|change_me|change-me|set-me|setme"
    r"|replace|your[_.-]|[_-]here(?![a-z])|^(?-i:my[A-Z][a-z]{2,})|(?<![a-z])(?:todo|tbd)(?![a-z])|fixme"
    r"|fill[_-]?in|insert[_-]"
    r"|^x{3,}(?![a-wyz0-9])|x{4,}$|^(?:secret|password|passwd|token|pass|pwd|none|null|nil|undefined)$"
    r"|^(?:password|secret|test)\d{0,4}$"
    r"|A-Z|a-z|0-9",
    re.IGNORECASE,
)
_REFERENCE = re.compile(
    r"^(?:\$|%\(|%[sdr]$|\{|\(|!(?=[A-Za-z][A-Za-z_.-]*(?:[\s|]|$))|@|[&*](?=[A-Za-z_][\w.-]*$)|<|＜|\[|op://|vault:|secret://|secrets://|ref\+|sm://|"
    r"arn:|awssm|gcp:|azure:|env:|file:|keyring:|enc\[)"
    r"|\$\{|#\{|\{\{|\{[^{}\s]*\}|%\([^)]*\)[sdr]|[\w.]\(|\)$|\w\[|\]"
    r"|^(?:os\.|process\.env|env\.|ENV\b|System\.|config\.|settings\.|self\.|this\.)"
    r"|^(?:var|local|module|data)\.\w|^%\w+%$|secretKeyRef|valueFrom|secretRef|configMapKeyRef",
    re.IGNORECASE,
)
# a secret manager's address: a reference however random what follows looks
_MANAGED = re.compile(
    r"^(?:op://|vault:|secrets?://|ref\+|sm://|arn:aws[\w-]*:|awssm|gcp:|azure:|keyring:)",
    re.IGNORECASE,
)
_MASKED = re.compile(r"\*{3,}|•|…|\.{3}|\(hidden\)|\[truncated\]|^\*+$")
_HASH_FORMAT = re.compile(
    r"^(?:\$2[abxy]?\$\d\d\$|\$argon2|\$[156y]\$|\$5\$|\$pbkdf2|pbkdf2_|\$scrypt|scrypt:"
    r"|\{(?:SSHA|SHA|SMD5|MD5|CRYPT|SSHA256|SSHA512|PBKDF2)[^}]*\}"
    r"|SCRAM-SHA-(?:1|256|512)\$|md5[0-9a-f]{32}$|grub\.pbkdf2\.)",
    re.IGNORECASE,
)
_HEX = re.compile(r"[0-9a-fA-F]+")
_HEX_SIZES = frozenset({32, 40, 64, 128})
HASH_WORDS = re.compile(
    r"hash|digest|checksum|sha-?\d|sha\b|md5|fingerprint|etag|commit|integrity|哈希|摘要|校验|ハッシュ"
    r"|フィンガープリント|指纹|指紋|fingerabdruck|empreinte|huella|지문|отпечат",
    re.IGNORECASE,
)
_INTEGRITY = re.compile(r"^(?:sha\d{1,3}|md5|blake2b?)[-:=]", re.IGNORECASE)
_UUID = re.compile(
    r"^\{?[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\}?$"
)
# (and a package's coordinates, ``group:artifact:1.2.3``)
_VERSION = re.compile(r"^(?:[\w.-]+:)?[vV]?\d+(?:\.\d+){1,3}(?:[-+.][0-9A-Za-z.+-]*)?$")
_PATH = re.compile(
    # (a leading ``/`` alone in base64 is no path: ``/RizK...A=``)
    r"^(?:/(?![A-Za-z0-9+]{16,}={0,2}$)|~/|\./|\.\./|[A-Za-z]:[\\/]|\\\\)"
    r"|^[\w.-]*/[\w./-]*\.[A-Za-z]{1,5}$"
    r"|^[\w-]+\.(?:json|pem|key|crt|txt|yaml|yml|env|cfg|conf|ini|p12|pfx|jks|md|toml|xml"
    r"|csv|log|py|js|ts|sh|sql)$|^[\w.-]+:/"  # (and ``name:/path``, systemd's credentials)
    r"|^(?-i:[a-z0-9_.-]+(?:/[a-z0-9_.-]+){2,}/?)$",  # a vault or an API path: lowercase
    re.IGNORECASE,
)
# a hash's or a cipher's name, said where a password's value would be ("SHA-256")
_ALGORITHM = re.compile(
    r"sha-?\d{1,3}|md5|bcrypt|scrypt|argon2(?:id|i|d)?|pbkdf2(?:-sha\d+)?|blake2[bs]?|ntlm"
    r"|crc32|aes-?\d{3}(?:-[a-z]{3})?|rsa-?\d{4}|hmac-sha\d+",
    re.IGNORECASE,
)
_ENCRYPTED = re.compile(r"ENC[\[(]|\{AQAAAB|\$ANSIBLE_VAULT|vault:v\d+:")
# a key meant to be public (Stripe's and Mapbox's publishable keys)
# (and Datadog's browser client tokens, ``pub`` and 32 hex digits)
_PUBLISHABLE = re.compile(r"^pk[._](?:live_|test_)?|^pub[0-9a-f]{32}$")
_URL_OR_MAIL = re.compile(r"://|^[^@\s]+@[\w-]+(?:\.[\w-]+)+$")
_WORD = re.compile(r"[A-Za-z]+")
_IDENTIFIER = re.compile(
    r"_*(?:[a-z]+(?:[_-][a-z]+)*|[A-Z]+(?:[_-][A-Z]+)*)_*|[A-Za-z][a-z]+(?:[A-Z][a-z]+)+"
)
_LETTER = re.compile(r"[A-Za-z]")
_APP_PASSWORD = re.compile(r"[a-z]{4}(?:-[a-z]{4}){3}|[a-z]{4}(?: [a-z]{4}){3}")
_BRAND = re.compile(r"\d[A-Z][a-z]+$")
_OTHER = re.compile(r"[^A-Za-z]")
_PIN = re.compile(r"(?=[^!#$%&*@^~?]*[!#$%&*@^~?])(?=\D*\d\D*\d)[\d!#$%&*@^~?]+")
_TRAILING = ".,;:)]}>\x60\"'。，、）"


def trim(value: str) -> str:
    """The value without the sentence punctuation or brackets that close it."""
    return value.rstrip(_TRAILING)


def _is_word(value: str) -> bool:
    return bool(
        _WORD.fullmatch(value)
        and (value.islower() or value.isupper() or value.istitle() or len(value) < 8)
    )


_BASE64 = re.compile(r"[A-Za-z0-9+/]{8,}={0,2}|[A-Za-z0-9_-]{8,}={0,2}")


def _settings(decoded: str) -> bool:
    """Base64 of a JSON object whose keys name no secret (``{"theme":"dark"}`` in a
    cookie or a client's state): data, not a credential."""
    if not decoded.startswith("{"):
        return False
    try:
        parsed = json.loads(decoded)
    except ValueError:
        return False
    keys: list[str] = []
    stack: list[object] = [parsed]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            keys.extend(str(k) for k in node)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return isinstance(parsed, dict) and not any(names_secret(k) for k in keys)


def anonymous_jwt(value: str) -> bool:
    """A JWT whose claims say the role is ``anon``: Supabase's anonymous key, published
    in every web page of the project by design."""
    parts = value.split(".")
    if len(parts) != 3 or not parts[1].startswith("ey"):
        return False
    try:
        claims = b64decode(parts[1] + "=" * (-len(parts[1]) % 4), altchars=b"-_")
    except (binascii.Error, ValueError):
        return False
    return re.search(rb'"role"\s*:\s*"anon"', claims) is not None


def _random_letters(value: str) -> bool:
    """Twelve letters or more of both cases, with the few vowels of a random string
    (``jXcSQhsxhHylLq...``; an identifier, ``getUserNameById``, has a word's share)."""
    if len(value) < 12 or not (value.isascii() and value.isalpha()):
        return False
    if value.islower() or value.isupper():
        return False
    vowels = sum(c in "aeiouAEIOU" for c in value)
    return vowels / len(value) < 0.25


def _decoded(value: str) -> str | None:
    """What a base64 value decodes to, if that is printable ASCII text."""
    if not _BASE64.fullmatch(value):
        return None
    raw = value.replace("-", "+").replace("_", "/")
    try:
        text = b64decode(raw + "=" * (-len(raw) % 4), validate=True).decode("ascii")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    return text if text.replace("\n", " ").replace("\t", " ").isprintable() else None


def is_hash(value: str, context: str = "", *, prose: bool = False) -> bool:
    """A password hash's format, or hex of a digest's size in a hash's context."""
    if _HASH_FORMAT.match(value) or _INTEGRITY.match(value):
        return True
    if len(value) in _HEX_SIZES and _HEX.fullmatch(value):
        return prose or bool(HASH_WORDS.search(context))
    return False


def _latin(value: str) -> bool:
    """ASCII, or accented Latin letters among ASCII ones (``Contraseña2024``)."""
    if value.isascii():
        return True
    return all(c.isascii() or (c.isalpha() and "LATIN" in unicodedata.name(c, "")) for c in value)


def _fold(value: str) -> str:
    if value.isascii():
        return value
    return "".join(c for c in unicodedata.normalize("NFKD", value) if c.isascii())


def _stands_for_one(value: str) -> bool:
    """A value with a space, a URL, an algorithm's name, a publishable key, a
    placeholder, a hash's or an encrypted value's form, a mask, or a reference (a
    generated key may start with ``&`` or hold ``p(``: no reference is that random)."""
    return bool(
        any(c.isspace() for c in value)
        or _URL_OR_MAIL.search(value)
        or _ALGORITHM.fullmatch(value)
        or _PUBLISHABLE.match(value)
        or _PLACEHOLDER.search(value)
        or _HASH_FORMAT.match(value)
        or _INTEGRITY.match(value)
        or _MASKED.search(value)
        or _ENCRYPTED.match(value)  # as SOPS, jasypt, Jenkins or Ansible Vault write it
        or _MANAGED.match(value)
        or (_REFERENCE.search(value) and not _random_string(value))
    )


def _run_on(value: str) -> bool:
    """Sixteen lowercase letters or more run together (``correcthorsebatterystaple``, a
    Gmail app password without its spaces): no name or word a setting takes."""
    return len(value) >= 16 and value.islower() and value.isalpha()


def _random_string(value: str) -> bool:
    """A generated secret: 32 characters or more of letters, digits and symbols, with the
    entropy of a random string (no reference or code reaches it)."""
    if len(value) < 32 or "${" in value or "{{" in value:
        return False
    classes = (
        any(c.islower() for c in value)
        + any(c.isupper() for c in value)
        + any(c.isdigit() for c in value)
        + any(not c.isalnum() for c in value)
    )
    return classes >= 4 and shannon_entropy(value) >= 4.6


def _passphrase(value: str, *, strict: bool = False) -> bool:
    """Three or more words of letters joined by ``-`` (``correct-horse-battery-staple``),
    none of them a word that names a secret, a setting or a place to fill in; in prose
    (``strict``), words of four letters or more ("not-set-yet" is no passphrase)."""
    parts = value.split("-")
    shortest = 4 if strict else 3
    return (
        len(parts) >= 3
        and all(len(p) >= shortest and p.isalpha() and p.islower() for p in parts)
        and not any(_SETTING_WORDS.match(p) for p in parts)
    )


_SETTING_WORDS = re.compile(
    r"pass|secret|key|token|auth|cred|conf|name|user|admin|prod|dev|test|stag|local|default"
    r"|example|sample|here|hier|your|votre|enter|insert|fill|only|mysql|postgres|redis|mongo"
    r"|kube|system|service|account|app|api|web|server|client|data|file|path|eintragen|aqui"
)


def typed(value: str) -> bool:
    """Whether a value given right after a command's password flag (``-a`` or
    ``--password=`` and a word) is one: four characters or more, plain words allowed
    (the flag says what it is), but no placeholder, reference, mask or number."""
    if len(value) >= MIN_LENGTH and plausible(value, hex_is_hash=False):
        return True
    if not 4 <= len(value) < 64 or not value.isascii() or value.isdigit() or " " in value:
        return False
    if _PLACEHOLDER.search(value) or _REFERENCE.search(value) or _MASKED.search(value):
        return False
    return not (mostly_runs(value) or looks_sequential(value) or _IDENTIFIER_WORDS.search(value))


# a name, not a value: ``db_password``, ``PASSWORD``, ``pass-file``
_IDENTIFIER_WORDS = re.compile(r"[_-]|^[A-Z]+$|(?i:pass|secret|token|key)")


def plausible(
    value: str,
    *,
    context: str = "",
    strict: bool = False,
    hex_is_hash: bool = True,
    uuid_ok: bool = False,
) -> bool:
    """Whether ``value`` can be a secret (see the module); ``context``: its name and
    the words before it, for a hash; ``strict``: found in prose; ``uuid_ok``: where
    the structure says password (a ``.netrc`` line, a webhook's key), a UUID is one."""
    if len(value) < MIN_LENGTH or len(value) > 1024 or not _latin(value):
        return False
    if _APP_PASSWORD.fullmatch(value):
        return True  # an app-specific password (Apple's, Google's): four groups of letters
    if _stands_for_one(value) or anonymous_jwt(value):
        return False
    if mostly_runs(value) or mostly_sequence(value):
        return False
    if hex_is_hash and is_hash(value, context, prose=strict):
        return False
    if (_UUID.match(value) and not uuid_ok) or _VERSION.match(value) or _PATH.search(value):
        return False
    folded = _fold(value)  # accents aside: ``contraseña`` is a word as ``password`` is
    if value.isdigit() or (_is_word(folded) and not _run_on(value)):
        return False
    if _IDENTIFIER.fullmatch(folded) and not (_passphrase(value, strict=strict) or _run_on(value)):
        return False
    decoded = _decoded(value)
    for _level in range(2):  # base64 of words (a token inside is the evasion layer's) or of
        if decoded is None:  # a placeholder, or that encoded again
            break
        if (
            any(c.isspace() for c in decoded.strip())
            or _settings(decoded)
            or _PLACEHOLDER.search(decoded)
            or mostly_runs(decoded)
            or looks_sequential(decoded)
        ):
            return False
        decoded = _decoded(decoded.strip())
    if strict:  # and not a name with a digit in front ("1Password", "3Com"); or digits
        # with a symbol that is no date's or number's ("736789#")
        mixed = bool(_LETTER.search(value) and _OTHER.search(value))
        return (
            mixed or bool(_PIN.fullmatch(value)) or _random_letters(value)
        ) and not _BRAND.match(value)
    return True
