r"""The likely tier: a secret's name or a password word, and a value that looks like one.

Two rules carry most of it, both ``local`` (matched where a keyword occurs, so
their cost is the keywords' occurrences, not the text's length):

* ``secret-assignment``: a secret-named key (:mod:`.names`) given a value in any
  of the forms env, YAML, JSON, TOML, INI and code use (``KEY=v``, ``key: v``,
  ``"key": "v"``, ``key = 'v'``, ``key := v``, ``key => v``, ``$c['key'] = 'v'``,
  ``<key>v</key>``, ``<add key="K" value="v"/>``, ``define('K', 'v')``, escaped
  JSON, a Kubernetes ``name: KEY`` / ``value: v`` pair). Its keywords must be followed,
  within a key's length, by ``=``, ``:`` or a line break (the prefilter's tail),
  so "token budget" in prose costs nothing.
* ``password-in-prose``: a password word in one of the seed's languages
  ("password", "Passwort", "contraseña", "senha", "mot de passe", "пароль",
  "密码", "口令", "密钥", "パスワード", "비밀번호", ...) followed, in the same clause,
  by "is", "es", "est", "lautet", "是", "は", "는", ``:``, "改成了" ... and a value, or by
  the value at once ("密码 X"). A value in prose must mix a letter with a digit
  or a symbol (:func:`.values.plausible`, ``strict``).

And a few narrower ones: server directives (``requirepass X``, ``bind_pw X``, an
SNMP community), ``set -x KEY value``, session cookies, an AWS secret key
written after its key id, a URL's ``sig=`` signature, and "login is user / pass".

What was taken from detect-secrets' ``KeywordDetector`` (read, not copied):
its list of secret words and its per-file-type assignment forms (quoted and
unquoted, ``:=``, ``=>``, ``$c['key']``), and its refusal of values that are
code or a reference. From gitleaks' ``generic-api-key`` rule: the idea of a
name that *ends* in a secret word (``..._token``), the allowlist of words that
make it a setting instead (``_type``, ``_length``, ``_file``, ``_id``), and
refusing hashes, UUIDs and versions. Not taken: gitleaks' entropy threshold
(a person's password is short and low in entropy; here the value's form
decides) and detect-secrets' high-entropy string plugins (every hash and
digest would be a finding).
"""

from __future__ import annotations

import re

from core.domain.secrets.calls import CALL_RULES
from core.domain.secrets.configs import CONFIG_RULES, named_value
from core.domain.secrets.names import KEY_QUALIFIERS, names_key, names_secret
from core.domain.secrets.personal import PERSONAL_RULES
from core.domain.secrets.placeholders import looks_sequential, mostly_runs, shannon_entropy
from core.domain.secrets.rule import Rule, line_start, make_rule
from core.domain.secrets.structure import value_check
from core.domain.secrets.values import HASH_WORDS, MIN_LENGTH, is_hash, plausible, trim

_KEY_CHARS = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
_LETTERS = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")


def _back(data: bytes, pos: int, chars: frozenset[int], limit: int) -> int:
    """Where the run of ``chars`` that ends at ``pos`` starts (at most ``limit`` long)."""
    stop = max(0, pos - limit)
    while pos > stop and data[pos - 1] in chars:
        pos -= 1
    return pos


# --- secret-assignment -----------------------------------------------------------

_KV_KEYWORDS = (
    "pass", "pwd", "pw", "secret", "token", "key", "credential", "psk", "clave", "senha",
    "contrase", "kennwort", "wachtwoord", "密码", "密碼", "口令", "密钥", "パスワード",
    "비밀번호", "암호", "арол", "_sk", "mdp", "authcode", "auth_code", "parol", "community",
    "_auth",
)  # fmt: skip
_NOT_KEY = r"""\s=:"'\x60<>(){}\[\],;\\"""
_CLOSE = r"""["'\]\x60\\]{0,3}"""  # what closes a key: quotes, ``']``, an escaped quote
_KV_TAIL = rf"""[^{_NOT_KEY}]{{0,40}}{_CLOSE}[ \t]{{0,4}}(?:[=:>,]|\r?\n|value|：)"""
_KV = (
    rf"""(?P<key>[^{_NOT_KEY}]{{1,48}}?){_CLOSE}[ \t]{{0,4}}"""
    # = : => := ; a typed binding (``api_secret: &str =``); "key": "K", "value": "v"
    # (Postman); "key", "v" (define, put); <key>v; key="K" value="v"; name: K / value: v
    r"""(?P<sep>=>|:=|:[ \t]*(?:&(?:'static[ \t]+)?str|[Ss]tr(?:ing)?|SecretStr|bytes)[ \t]*="""
    r"""|[=:](?![=:])|：|(?<=")[ \t]*,[ \t]*"value"[ \t]*:|(?<=['"]),"""
    r"""|(?<=[A-Za-z])>|[ \t]+value[ \t]*="""
    r"""|[ \t]*\r?\n[ \t]*(?:-[ \t]*)?value[ \t]*:)[ \t]{0,8}"""
    # (a literal's prefix: Rust's b"", Python's r'')
    r"""(?:(?:[bB][rR]?|[rR][bB]?|[uU])(?=["']))?"""
    r"""(?:\\"([^"\\\n]{0,512})\\"|\"\"\"([^"\n]{1,512})\"\"\"|"([^"\n]{0,512})"|'([^'\n]{0,512})'"""
    r"""|\x60([^\x60\n]{0,512})\x60|([^\s"'\x60<]{1,512}))"""
)


_CALL = re.compile(rb"[A-Za-z_]\([ \t]*['\"]\Z")
# after a value: ``+`` (a string concatenated), or a next line of one indented run of
# token characters (YAML folds a plain scalar onto it)
_CONTINUED = re.compile(rb"[ \t]*\+|\r?\n[ \t]{1,64}[A-Za-z0-9+/=_-]{1,512}[ \t]*(?:\r?\n|$)")


def _back_letters(data: bytes, pos: int) -> int:
    """Where a key in another script starts (``пароль``, ``접속 암호``'s ``암호``,
    ``数据库密码``): the letters (not the punctuation) that end at ``pos``."""
    if pos == 0 or data[pos - 1] < 0x80:
        return pos
    before = data[max(0, pos - 48) : pos].decode("utf-8", "ignore")
    start = len(before)
    while start > 0 and before[start - 1].isalpha():
        start -= 1
    return pos - len(before[start:].encode("utf-8"))


def _value_group(match: re.Match[bytes]) -> int:
    for group in range(match.re.groups, 0, -1):
        if match.start(group) >= 0:
            return group
    return 0


def _assignment(data: bytes, match: re.Match[bytes]) -> tuple[int, int] | None:
    key_start = _back_letters(data, _back(data, match.start(), _KEY_CHARS, 64))
    if key_start > 2 and data[key_start - 1] == 0x20:
        word = _back(data, key_start - 1, _LETTERS, 20)
        if key_start - 1 - word >= 2:
            key_start = word  # "App Secret: ...", "API key: ..."
    key = data[key_start : match.end("key")].decode("utf-8", "replace")
    if match.group("sep") == b"," and (
        not _CALL.search(data, max(0, key_start - 8), key_start)
        or _value_group(match) == match.re.groups
    ):
        return None  # "key", "v" only as a call's first two, quoted: define("K", "v")
    secret_name = names_secret(key) or _under_a_secret(data, key_start, key)
    if not (secret_name or _names_a_key(key) or _bare_key(data, key_start, key)):
        return None
    if _not_an_assignment(data, key_start, match):
        return None
    group = _value_group(match)
    start, stop = match.span(group)
    if _CONTINUED.match(data, match.end()):
        return None  # a literal joined to the next ("..." +) or a plain scalar folded on
    value = _cut(data, key_start, trim(data[start:stop].decode("utf-8", "replace")),
                 unquoted=group == match.re.groups)  # fmt: skip
    end = start + len(value.encode("utf-8"))  # (what follows a value cut short is context)
    line_end = data.find(b"\n", end, end + 80)
    context = (
        data[max(0, key_start - 40) : key_start].decode("utf-8", "replace")
        + key
        + data[end : end + 80 if line_end == -1 else line_end].decode("utf-8", "replace")
    )
    if not plausible(value, context=context):
        return None
    if not secret_name and not _random(value):
        return None  # a key of another kind (``PAY_NOTIFY_KEY``): only a random value
    if _CIPHERTEXT.search(data, max(0, key_start - 300), key_start):
        return None
    return start, start + len(value.encode("utf-8"))


_NEGATED = re.compile(
    rb"(?:\xe4\xb8\x8d\xe6\x98\xaf|\xe5\xb9\xb6\xe9\x9d\x9e|\xe6\x97\xa0|\xe6\xb2\xa1\xe6\x9c\x89"
    rb"|\bnot(?: an?| the)?|\bkeine?|\bno es)[ \t]*\Z",
    re.IGNORECASE,
)  # (不是, 并非: "is not a"; 无, 没有: "without")


def _not_an_assignment(data: bytes, key_start: int, match: re.Match[bytes]) -> bool:
    """Where a key and a value are no secret given: ``[secret: rule-id]`` (what
    redaction left), inside an ARN or a path (but PowerShell's ``$env:NAME``), inside a
    template's ``{{ }}``, a shell's ``${NAME:?message}``, or a key said not to be one
    ("不是密钥：...")."""
    before = data[key_start - 1 : key_start]
    if before in (b"[", b"/"):
        return True
    if before == b":" and data[key_start - 2 : key_start - 1].isalnum():
        return data[max(0, key_start - 5) : key_start].lower() != b"$env:"
    line = data[line_start(data, key_start) : key_start]
    if line.count(b"{{") > line.count(b"}}"):
        return True
    sep = match.end("sep")
    if data[key_start - 2 : key_start] == b"${" and data[sep : sep + 16].lstrip()[:1] == b"?":
        return True
    return bool(
        _NEGATED.search(data, max(0, key_start - 16), key_start)
        or _NEGATED.search(data, max(0, match.start() - 16), match.start())
    )  # (before the key, or before its secret word: "不是密钥")


def _under_a_secret(data: bytes, key_start: int, key: str) -> bool:
    """A bare ``Key`` or ``Secret`` under an object whose name makes it a secret's
    (``"Jwt": { "Key": ... }``, .NET's ``Jwt:Key``)."""
    if key.strip("\"'").lower() not in ("key", "signingkey", "code"):
        return False
    parents = _PARENT.findall(data, max(0, key_start - 200), key_start)
    return bool(parents) and parents[-1].decode("ascii", "replace").lower() in KEY_QUALIFIERS


_PARENT = re.compile(rb"[\"']?([A-Za-z]{2,20})[\"']?[ \t]*:[ \t]*\{")


def _bare_key(data: bytes, key_start: int, key: str) -> bool:
    """A bare ``key`` (rclone's, a tool's section): a secret if its value is random, but
    not a cache's (``cache:`` / ``key: deps-...``)."""
    if key.strip("\"'").lower() != "key":
        return False
    return b"cache" not in data[max(0, key_start - 120) : key_start].lower()


def _names_a_key(key: str) -> bool:
    """A key of no known kind (``PAY_NOTIFY_KEY``) or an ``..._SK`` (a secret key beside
    its ``..._AK``): a secret if its value is random."""
    lowered = key.lower()
    return (
        (lowered[-3:] == "key" and names_key(key))
        or lowered.endswith(("_sk", "-sk", ".sk"))
        or lowered == "sk"
    )


def _cut(data: bytes, key_start: int, value: str, *, unquoted: bool) -> str:
    """An unquoted value up to where the next field starts: ``;Name=`` in a connection
    string, ``&`` or ``#`` in a URL's query, a full-width mark (``Secret：v，回调地址``)."""
    if not unquoted:
        return value
    field = _NEXT_FIELD.search(value)
    if field is not None:
        value = value[: field.start()]
    if data[key_start - 1 : key_start] in (b"?", b"&"):
        value = value.split("&", 1)[0].split("#", 1)[0]
    return _WIDE_PUNCTUATION.split(value, 1)[0]


# what encrypts or hashes the values it holds: a SealedSecret's, SOPS', Ansible Vault's,
# a SCRAM verifier's
_CIPHERTEXT = re.compile(
    rb"encryptedData|\bsops\b|ENC\[|\$ANSIBLE_VAULT|SCRAM-SHA-\d+\$|iterationCount|storedKey",
    re.IGNORECASE,
)


_WIDE_PUNCTUATION = re.compile("[，。；、）（：！？　]")
# an unquoted value's end where a connection string's next field starts (``;Name=``)
_NEXT_FIELD = re.compile(r";[ \t]*[A-Za-z][\w ]{0,40}=")


def _random(value: str) -> bool:
    """Long, with letters and digits, and of a random string's entropy."""
    return (
        len(value) >= 16
        and any(c.isdigit() for c in value)
        and any(c.isalpha() for c in value)
        and shannon_entropy(value) >= 3.5
    )


# --- password-in-prose -------------------------------------------------------------

_PROSE_KEYWORDS = (
    "password", "passwort", "passwd", "kennwort", "wachtwoord", "senha", "contrase",
    "mot de passe", "密码", "密碼", "口令", "密钥", "パスワード", "비밀번호", "패스워드", "арол",
    "окен", "シークレット", "トークン", "passcode", "clave", "パス", "비번", "pw",
    "clientsecret", "client secret", "passphrase", "授权码", "security token", "auth token",
    "access token", "api token", "bot token", "appsecret", "app secret", "corpsecret",
    "secret access key", "access key secret", "secret key", "secretkey", "schlüssel", "共有鍵",
    "psk", "pre-shared key", "预共享密钥", "root token", "vault token", "token do",
    "token del", "token de", "mdp",
    # (slang and shorthands people type in a chat)
    "pswd", "passwrd", "la contra", "contra del", "contra de", "ぱすわーど", "mm是", "mm 是",
)  # fmt: skip
# a shorthand and its mark together ("pass" alone is in every other English sentence):
# the value right after them
_MARKED = ("pass is", "pass:", "pass =", "pass=", "pass →", "login is")
# the keywords that name a key or a secret, not a password: after them, hex of a
# digest's size is the secret (a WeChat AppSecret), unless a hash word is near
_KEY_WORDS = re.compile(r"secret|key|密钥|秘钥|シークレット|schlüssel|鍵|psk", re.IGNORECASE)
_STOP = r"""[\n,;.!?:=/@"'\x60()\[\]{}<>|]|。|，|；|：|、|＝"""
# (a parenthesis in it: "Senha do painel (admin): ...")
_GAP = rf"(?:(?!{_STOP})[^\n]|\([^()\n]{{1,30}}\)){{0,60}}?"
_MARK = (
    r"(?:(?:[ \t]+(?:is|are|was|were|es|era|é|è|est|ist|lautet|war|c['’]est)(?![A-Za-z])"
    r"(?:[ \t]+(?:still|now|currently|just|also|again|jetzt|nun|ahora|maintenant|désormais"
    r"|agora|set[ \t]+to|changed[ \t]+to"
    r"|reset[ \t]+to|updated[ \t]+to|rotated[ \t]+to))?"
    r"|[ \t]+(?:(?:has[ \t]+been|got)[ \t]+)?(?:reset|changed|updated|rotated|set)[ \t]+to"
    r"|[ \t]*,[ \t]*c['’]est"
    # (changed to: поменял на, cambiada a, changé en, mudei para)
    r"|[ \t]+(?:поменял|изменил|сменил)(?:а|и)?[ \t]+на"
    r"|[ \t]+(?:cambiad[ao]|cambié|changé|mudei|mudada|alterada|trocada)[ \t]+(?:a|en|pour|para)"
    r"|[ \t]+\((?=[^()\s=:]{8,128}\))"  # (a password in brackets after its word)
    r"|[ \t]*(?:是|为|為|は|는|은|改成了|改为|改成|换成|换为|变成|变为|更新为|重置为|设为|设置为"
    r"|设成|重置成|设定为|设定成|更新成|设置成"
    r"|→|—|->|=>))[ \t]*(?::|：)?"
    r"|[ \t]*(?::|：|＝|=|、|，))[ \t]*"
)
# a value: ASCII without quotes (``[!#-&(-_a-~]``), at most 128 characters, perhaps quoted
_PROSE_VALUE = (
    r"(?:[\"'\x60]|“|「|『|(?:«|„|‘|‚)[ \t]?)?"  # (« ... », „...“ and ‘...’ too)
    r"([a-z]{4}(?: [a-z]{4}){3}(?![ \t]?[a-z])"  # (an app password)
    r"|[A-Za-z0-9!#$%&*+./=?@^_~-][!#-&(-_a-~]{5,127})(?![!#-&(-_a-~])"
)
# (``pw`` as a word; a client's secret as a word: "ClientSecret", not "...secrets")
_PROSE_SPECIAL = {
    "pw": "(?<![a-z])pw",
    "psk": "(?<![a-z])psk(?![a-z])",
    "mdp": "(?<![a-z])mdp(?![a-z])",
    **{k: f"(?<![a-z]){k}" for k in ("la contra", "contra del", "contra de", "mm是", "mm 是")},
} | {
    # (Spanish and Portuguese "token de/del/do": not "token deploys", "token docs")
    k: k + "(?![a-z])" for k in ("clientsecret", "client secret", "token de", "token del",
                                 "token do")
}  # fmt: skip
_PROSE_WORDS = "|".join(_PROSE_SPECIAL.get(k, k) for k in _PROSE_KEYWORDS)
# (a word's ending: ``passwords``, ``contraseña``, ``пароль``, ``паролем``, ``비밀번호를``)
_ENDING = "(?:[a-z]|ñ|ь|я|е|м|ю|и|를|을|이|가|を|が)"  # (and particles: 비밀번호를 ...)
_PROSE = (
    # (after a shorthand, a value holding a digit or a sign: "pass: `backoff`" is a word)
    rf"(?:(?<![a-z])(?:{'|'.join(_MARKED)})[ \t]*(?=\S{{0,40}}[0-9!#$%&*+=?@^_~])"
    rf"|(?:{_PROSE_WORDS})"
    # (in Chinese, Japanese and Korean, the value may follow its word: 密码 and the value)
    rf"(?:(?<=码|碼|ド|호|令)(?=[A-Za-z0-9])|{_ENDING}{{0,12}}+"
    rf"(?:{_GAP}{_MARK}|[^\n]{{0,60}}?(?:→|⇒)[ \t]*|[ \t]+|(?=「|『|“)))){_PROSE_VALUE}"
)


# (shared with :mod:`.tokens`: a value in prose, and the words that say a name is none)
PROSE_VALUE, NEGATED = _PROSE_VALUE, _NEGATED

_GLUED_NAME = re.compile(r"\w+[_-][\w-]+")
_BARE_MARK = re.compile(r"\S+?[ \t]*(?:[ \t]is|:|：|是|为|は|=|[ \t])[ \t]*")


def _no_statement(data: bytes, said: int, start: int, context: str, line: str) -> bool:
    """Where a password word and a value are no password stated: inside a template's
    or a reference's braces, in an assignment (its rule's), after a setting's name
    (``password_hash: ...``), among encrypted values (a SealedSecret's), or after a word
    that says it is none ("不是密钥"). ``said``: where the password word starts."""
    if line.count("{{") > line.count("}}") or line.count("${") > line.count("}"):
        return True
    named = context.rstrip()
    if named.endswith("=") and " " not in named[:-1].strip():
        return True  # ``password_hash_algo = x``
    glued = _GLUED_NAME.match(context)
    if glued and not names_secret(glued.group()):
        return True
    if _NEGATED.search(data, max(0, said - 16), said):
        return True  # "不是密钥：..." (is not a key)
    return bool(_CIPHERTEXT.search(data, max(0, start - 300), start))


def _stated(data: bytes, match: re.Match[bytes]) -> tuple[int, int] | None:
    start, stop = match.span(_value_group(match))
    value = trim(data[start:stop].decode("utf-8", "replace").rstrip("("))  # 로 X(으)로
    context = data[match.start() : start].decode("utf-8", "replace")
    line = data[line_start(data, start) : start].decode("utf-8", "replace")
    if _no_statement(data, match.start(), start, context, line):
        return None
    if " " in value and not context.split()[1:] and not line[: -len(context)].strip():
        return None  # ``password abcd efgh ...`` alone on its line: config-password-line's
    if value.isdigit() and len(value) >= MIN_LENGTH and _BARE_MARK.fullmatch(context):
        return (
            None if looks_sequential(value) or mostly_runs(value) else (start, stop)
        )  # "密码：" and six digits or more: a PIN said right after the word
    if _KEY_WORDS.search(context) and not HASH_WORDS.search(line):
        if is_hash(value) or not plausible(value, strict=True, hex_is_hash=False):
            return None
    elif not plausible(value, context=context, strict=True):
        return None
    return start, start + len(value.encode("utf-8"))


# --- the narrower ones -------------------------------------------------------------

_STRICT = value_check(hex_is_hash=False, strict=True)
# a login's word, then a user name, `` / `` and the password: "Jenkins admin login: admin /
# ...", "Identifiants du NAS : root / ...", "路由器后台 admin / ..."
_LOGIN_WORDS = (
    "login", "credentials", "creds", "identifiants", "zugangsdaten", "credenciales",
    "credenciais", "账号", "帐号", "登录", "后台", "ログイン", "アカウント", "계정", "логин",
    "id/pw", "id/pass",
)  # fmt: skip
_LOGIN_PAIR = (
    r"(?:\b(?:logins?|credentials|creds|identifiants|zugangsdaten|credenciales|credenciais)\b"
    r"|账号|帳號|帐号|登录|後台|后台|ログイン|アカウント|계정|логин|\bid/pw\b|\bid/pass\b)"
    r"[^\n/:：]{0,30}?(?:[ \t]+(?:is|are|sont|sind|son|são)|[ \t]*(?::|：|は|是|为|는|은))?[ \t]*"
    r"(?:\w|[\x80-\xff])[^\s/:：]{0,63}"
    r"(?:[ \t]+/[ \t]*|[ \t]*/[ \t]+)([!-.0-~]{6,128})"
)


def _seed(data: bytes, match: re.Match[bytes]) -> tuple[int, int] | None:
    """Base32 with a digit, not one letter over and over."""
    start, stop = match.span(1)
    value = data[start:stop]
    if not any(48 <= b <= 57 for b in value) or len(set(value)) < 8:
        return None
    return start, stop


_VALUE = r"""(?:'([^'\n]{1,256})'|"([^"\n]{1,256})"|([^\s'"\x60]{1,256}))"""


_LIKELY = value_check(hex_is_hash=False)
_FLAG_VALUE = r"""(?!-)(?:'([^'\n]{1,512})'|"([^"\n]{1,512})"|([^\s'"\x60]{1,512}))"""

# (possessive and in lookaheads: a line of many ``secret`` words costs one try each)
_PRINTED = r"[^\n]{0,1000}+\r?\n[ \t]*+([^\s$#>]\S{5,511}+)[ \t]*+(?=\r?\n|$)"
_PRINTING = (  # (each with a literal start, searched fast: one space between words)
    r"kubectl (?=[^\n]{0,200}?\bsecrets?\b)(?=[^\n]{0,400}?(?:jsonpath|go-template|base64))",
    r"vault (?:kv[ \t]+get|read)\b(?=[^\n]{0,200}?-field)",
    r"aws secretsmanager get-secret-value\b",
    r"gcloud secrets versions access\b",
    r"az keyvault secret show\b",
    r"security find-(?:generic|internet)-password\b(?=[^\n]{0,200}?[ \t]-w\b)",
    r"cat [ \t]*+(?=[^\s|;&]{0,200}?(?:\.key|token|secret|passw|credential|cookie))",
)

# fmt: off
LIKELY_RULES: tuple[Rule, ...] = (
    make_rule("secret-assignment", "A secret-named key given a value", _KV, _KV_KEYWORDS,
              ignore_case=True, tier="likely", check=_assignment, local=True, tail=_KV_TAIL,
              evades=False),
    make_rule("password-in-prose", "A password stated in prose", _PROSE,
              _PROSE_KEYWORDS + _MARKED,
              ignore_case=True, tier="likely", check=_stated, local=True, evades=False),
    make_rule("secret-directive", "A password in a server's configuration directive",
              (r"\b(?:requirepass|bind_?pw|rootpw|r[ow]community)[ \t]+" + _VALUE,
               r"\bsnmp-server[ \t]+community[ \t]+" + _VALUE,
               r"\bsnmp\b[^\n:=]{0,20}?community\b[^\n:=]{0,20}[:=][ \t]*" + _VALUE),
              ("requirepass", "bind_pw", "bindpw", "rootpw", "community"),
              ignore_case=True, tier="likely", check=_LIKELY, evades=False),
    make_rule("shell-set-secret", "A secret-named variable set in a shell",
              r"\bset[ \t]+-[a-zA-Z]{0,4}x[a-zA-Z]{0,4}[ \t]+([A-Za-z_]\w{0,63})[ \t]+" + _VALUE,
              ("set -",), tier="likely", check=named_value, evades=False),
    make_rule("session-cookie", "A session cookie's value",
              r"\b(?:set-)?cookie:[^\n]{0,300}?(?<![\w-])[\w-]{0,40}(?:sess|token|auth|sid)[\w-]{0,40}="
              r"([^;\s\"']{1,512})", ("cookie:",), ignore_case=True, tier="likely",
              check=_LIKELY, evades=False),
    make_rule("aws-secret-key-pair", "AWS secret access key written after its key ID",
              r"(?:AKIA|ASIA)[A-Z2-7]{16}[^\n]{1,24}?(?<![A-Za-z0-9/+])([A-Za-z0-9/+]{40})"
              r"(?![A-Za-z0-9/+=])", ("akia", "asia"), tier="likely", check=_LIKELY,
              evades=False),
    make_rule("url-signature", "A signature in a URL's query (a SAS or presigned URL)",
              r"[?&](?:sig|x-amz-signature|signature)=([\w%+/=-]{20,512})",
              ("sig=", "signature="), ignore_case=True, tier="likely", check=_LIKELY,
              evades=False),
    make_rule("cli-secret-flag", "A token or secret given on a command line",
              r"(?<![\w-])--([A-Za-z][\w-]{0,40}?)[= ]" + _FLAG_VALUE,
              ("--token", "--api", "--secret", "--client-secret", "--auth-token",
               "--access-token", "-secret", "-token", "-pwd", "-passphrase", "--account-key",
               "--authkey", "--auth-key", "--access-key", "-authtoken"),
              ignore_case=True, tier="likely", check=named_value, evades=False),
    # a command that prints a secret, and what it printed on the next line
    make_rule("printed-secret", "A secret printed by the command on the line before",
              tuple(c + _PRINTED for c in _PRINTING),
              ("kubectl", "-field", "aws secretsmanager", "versions access", "az keyvault",
               "find-generic-password", "find-internet-password", "master.key", "secret", "passw",
               "credential", "cookie"),
              tier="likely", multiline=True, check=_LIKELY, evades=False),
    make_rule("login-pair", "A login and its password stated in prose",
              _LOGIN_PAIR, _LOGIN_WORDS, ignore_case=True, tier="likely", check=_STRICT,
              evades=False),
    make_rule("terraform-default", "A default value of a secret-named Terraform variable",
              r"\bvariable[ \t]+\"([\w-]{1,64})\"[ \t]*\{[^}]{0,300}?\bdefault[ \t]*=[ \t]*"
              r"\"([^\"\n]{1,512})\"", ("variable",), tier="likely", check=named_value,
              local=True, evades=False),
    make_rule("otp-seed", "A one-time password's seed (base32) named in prose or config",
              r"\b(?:totp|otp|2fa|mfa|authenticator)\b[^\n]{0,40}?(?:seed|secret|key)\b[^\n]{0,80}?"
              r"(?:[:=]|：)[ \t]*[\"']?(?-i:([A-Z2-7]{16,64}))(?![A-Za-z0-9])",
              ("totp", "otp", "2fa", "mfa", "authenticator"), ignore_case=True, tier="likely",
              check=_seed, evades=False),
    make_rule("postman-api-key", "An API key in a Postman collection's auth block",
              r"\"apikey\"[ \t]*:[ \t]*\[[^\]]{0,600}?\"key\"[ \t]*:[ \t]*\"value\"[ \t]*,"
              r"[ \t]*\"value\"[ \t]*:[ \t]*\"([^\"\n]{1,512})\"", ('"apikey"',), tier="likely",
              check=_LIKELY, local=True, evades=False),
    make_rule("uci-secret", "A key or password in an OpenWrt (UCI) configuration",
              r"\boption[ \t]+(?:key|password|psk|secret|auth_secret|sae_password)[ \t]+" + _VALUE,
              ("option key", "option password", "option psk", "option secret",
               "option auth_secret", "option sae_password"), tier="likely", check=_LIKELY,
              evades=False),
    make_rule("command-token", "A token given to a command that keeps it",
              r"\bngrok\b[^\n|;&]{0,60}?\bauthtoken[ \t]+" + _FLAG_VALUE, ("authtoken",),
              tier="likely", check=_LIKELY, evades=False),
    make_rule("device-password", "A password in a router's or a switch's configuration",
              (r"\b(?:password|secret)[ \t]+0[ \t]+" + _VALUE,
               r"\benable[ \t]+(?:password|secret)[ \t]+" + _VALUE,
               r"\blocal-user[ \t]+\S{1,64}[ \t]+password[ \t]+(?:cipher|simple)[ \t]+" + _VALUE,
               r"\bplain-text-password-value[ \t]+" + _VALUE,
               r"\bcrypto[ \t]+isakmp[ \t]+key[ \t]+(?:[06][ \t]+)?" + _VALUE,
               r"\b(?:radius|tacacs)-server\b[^\n]{0,80}?[ \t]key[ \t]+(?:[07][ \t]+)?" + _VALUE,
               r"\bauth_pass[ \t]+" + _VALUE),
              ("password 0", "secret 0", "enable password", "enable secret", "local-user",
               "plain-text-password-value", "isakmp key", "radius-server", "tacacs-server",
               "auth_pass"), tier="likely", check=_LIKELY, evades=False),
    *CALL_RULES,
    *CONFIG_RULES,
    *PERSONAL_RULES,
)
# fmt: on
