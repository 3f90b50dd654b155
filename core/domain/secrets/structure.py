r"""The certain tier beyond vendor prefixes: structure that can be nothing but a credential.

Each rule's regex finds the structure; its check (:func:`value_check`) takes the
value (the last group that matched) and asks :func:`.values.plausible` whether it
can be a secret, so the documentation's ``user:password@localhost``,
``Password=myPassword``, ``machine example.com login USERNAME password PASSWORD``
or ``Bearer YOUR_TOKEN`` is no finding. ``Authorization: Basic`` and a Docker
``auth`` are base64 that must decode to ``user:password`` (a password that is
itself plausible).

These are memgov's own rules, written after reading gitleaks' ``generic`` rules
and detect-secrets' ``BasicAuthDetector`` and ``KeywordDetector`` (no code taken):
from gitleaks the idea that a credential's *context* (a header, a flag, a
connection string's key) is what makes a short value certain; from
detect-secrets the quoted and unquoted value forms of each file type.
"""

from __future__ import annotations

import binascii
import re
from base64 import b64decode

from core.domain.secrets.placeholders import mostly_runs, shannon_entropy
from core.domain.secrets.rule import END, Rule, SpanCheck, make_rule
from core.domain.secrets.values import anonymous_jwt, plausible, trim, typed

# A value after a flag or a key: quoted, or up to the next space.
_VALUE = r"""(?:'([^'\n]{1,256})'|"([^"\n]{1,256})"|([^\s'"\x60]{1,256}))"""


def _last_group(match: re.Match[bytes]) -> int:
    for group in range(match.re.groups, 0, -1):
        if match.start(group) >= 0:
            return group
    return 0


def value_check(
    *, hex_is_hash: bool = False, minimum: int = 0, uuid_ok: bool = False, strict: bool = False
) -> SpanCheck:
    """A check taking the last group that matched as the value (trailing sentence
    punctuation dropped) and keeping it if :func:`.values.plausible` (``strict``: as
    in prose)."""

    def check(data: bytes, match: re.Match[bytes]) -> tuple[int, int] | None:
        group = _last_group(match)
        start, stop = match.span(group)
        value = trim(data[start:stop].decode("utf-8", "replace"))
        if len(value) < minimum or not plausible(
            value, hex_is_hash=hex_is_hash, uuid_ok=uuid_ok, strict=strict
        ):
            return None
        return start, start + len(value.encode("utf-8"))

    return check


def _decodes_to_login(data: bytes, match: re.Match[bytes]) -> tuple[int, int] | None:
    """Base64 of ``user:password`` with a plausible password: the base64's span."""
    group = _last_group(match)
    start, stop = match.span(group)
    raw = data[start:stop]
    try:
        decoded = b64decode(raw + b"=" * (-len(raw) % 4), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    user, colon, password = decoded.partition(":")
    if not colon or not decoded.isprintable() or " " in user or password == user:
        return None
    # (the structure says password: a plain word is one, ``pi:raspberry``, as after a flag)
    return (start, stop) if typed(password) else None


def not_anonymous(data: bytes, match: re.Match[bytes]) -> tuple[int, int] | None:
    """A JWT, unless it is an anonymous one (:func:`.values.anonymous_jwt`)."""
    start, stop = match.span()
    return None if anonymous_jwt(data[start:stop].decode("ascii", "replace")) else (start, stop)


_CERTAIN = value_check()
# where the structure itself says password or key (a .netrc line, a webhook's path), a
# UUID is the secret (Heroku's API keys, WeCom's and Feishu's webhook keys are UUIDs)
_PLACED = value_check(uuid_ok=True)


def _cli_password(data: bytes, match: re.Match[bytes]) -> tuple[int, int] | None:
    """A command line's password: after a command's own flag (``redis-cli -a``) or
    one joined to it (``--password=``), a short plain word is one (:func:`typed`);
    after a spaced generic option (``--password flag``) it must look like one."""
    start, stop = match.span(_last_group(match))
    value = trim(data[start:stop].decode("utf-8", "replace"))
    flag = data[match.start() : start].rstrip(b"'\"")
    spaced_option = flag.lstrip()[:1] in (b"-", b"/") and flag[-1:] in (b" ", b"\t")
    if not (plausible(value, hex_is_hash=False) if spaced_option else typed(value)):
        return None
    return start, start + len(value.encode("utf-8"))


def _webhook_key(data: bytes, match: re.Match[bytes]) -> tuple[int, int] | None:
    """A webhook URL's key: any value but a placeholder (``XXXX``, ``$TOKEN``)."""
    start, stop = match.span(_last_group(match))
    value = data[start:stop].decode("utf-8", "replace")
    if _WEBHOOK_PLACEHOLDER.search(value) or mostly_runs(value):
        return None
    return start, stop


_WEBHOOK_PLACEHOLDER = re.compile(r"x{4,}|X{4,}|0{6,}|your|token|example|placeholder", re.I)
_SCHEME = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+.-")
_WORD = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def _generated_token(data: bytes, match: re.Match[bytes]) -> tuple[int, int] | None:
    """A generated token (a webhook path's last segment, a bot's token): letters of both
    cases and digits, a random string's entropy (a route's name, ``/webhook/github-events``,
    is not)."""
    start, stop = match.span(_last_group(match))
    value = data[start:stop].decode("ascii", "replace")
    classes = (
        any(c.islower() for c in value)
        + any(c.isupper() for c in value)
        + any(c.isdigit() for c in value)
    )
    if classes < 3 or shannon_entropy(value) < 4.0 or not plausible(value):
        return None
    return start, stop


def _url_password(data: bytes, match: re.Match[bytes]) -> tuple[int, int] | None:
    """A URL's password, where a scheme (a letter, then 1 to 20 of ``[a-zA-Z0-9+.-]``,
    not inside a word) comes before the ``://``."""
    begin = match.start()
    start = begin
    while start > 0 and begin - start < 21 and data[start - 1] in _SCHEME:
        start -= 1
    while start < begin - 1 and not chr(data[start]).isalpha():
        start += 1  # the scheme starts with a letter
    if begin - start < 2 or (start > 0 and data[start - 1] in _WORD):
        return None
    if _QUERY.search(match.group(1)):
        return None  # ``host:port?to=a@b``: a query, no password
    return _PLACED(data, match)


_QUERY = re.compile(rb"\?[^=]*=")


# fmt: off
STRUCTURE_RULES: tuple[Rule, ...] = (
    # More vendor prefixes than gitleaks' list here holds.
    # Square: access tokens (``EAAA``, legacy ``sq0atp-``) and OAuth secrets (``sq0csp-``).
    make_rule("square-access-token", "Square access token",
              r"(?:EAAA|sq0atp-)[\w-]{22,60}" + END, ("eaaa", "sq0atp-"), entropy=3,
              word_start=True, evades=False),
    make_rule("square-secret", "Square OAuth secret", r"sq0csp-[\w-]{43}" + END, ("sq0csp-",),
              entropy=3, word_start=True, evades=False),
    make_rule("groq-api-key", "Groq API key", r"gsk_[A-Za-z0-9]{52}" + END, ("gsk_",),
              entropy=3, word_start=True, evades=False),
    make_rule("sentry-user-token", "Sentry user auth token", r"sntryu_[a-f0-9]{64}" + END,
              ("sntryu_",), entropy=3, word_start=True, evades=False),
    make_rule("doppler-service-token", "Doppler service token",
              r"dp\.st\.(?:[a-z0-9_-]{2,35}\.)?[a-zA-Z0-9]{40,44}" + END, ("dp.st.",),
              entropy=3, word_start=True, evades=False),
    make_rule("replicate-api-token", "Replicate API token", r"r8_[A-Za-z0-9]{37}" + END,
              ("r8_",), entropy=3, word_start=True, evades=False),
    make_rule("atlassian-api-token", "Atlassian API token", r"ATATT3[A-Za-z0-9_\-=]{150,220}",
              ("atatt3",), entropy=3, word_start=True, evades=False),
    make_rule("google-oauth-client-secret", "Google OAuth client secret",
              r"GOCSPX-[\w-]{28}" + END, ("gocspx-",), entropy=3, word_start=True,
              evades=False),
    make_rule("mailgun-api-key", "Mailgun API key", r"key-[0-9a-f]{32}" + END, ("key-",),
              entropy=3, word_start=True, evades=False),
    # Chat webhooks whose URL is the credential.
    make_rule("chat-webhook-url", "Chat webhook URL (Discord, WeCom, Feishu, DingTalk, Teams)",
              (r"discord(?:app)?\.com/api/webhooks/\d{5,30}/([\w-]{60,90})",
               r"qyapi\.weixin\.qq\.com/cgi-bin/webhook/send\?key=([\w-]{20,64})",
               r"open\.(?:feishu\.cn|larksuite\.com)/open-apis/bot/v2/hook/([\w-]{16,64})",
               r"oapi\.dingtalk\.com/robot/send\?access_token=([0-9a-f]{64})",
               r"webhook\.office\.com/webhookb2/[\w@.-]{1,200}/IncomingWebhook/([0-9a-zA-Z]{20,64})/",
               r"hooks\.zapier\.com/hooks/catch/\d{1,12}/([0-9A-Za-z]{5,64})",
               r"chat\.googleapis\.com/v1/spaces/[^\s/]{1,64}/messages\?[^\s]{0,300}?token=([\w%-]{20,256})",
               r"api\.telegram\.org/bot(\d{6,12}:[\w-]{30,40})",
               r"https?://[^\s/]{1,100}/hooks/([a-z0-9]{26})(?![A-Za-z0-9_-])",
               r"maker\.ifttt\.com/(?:trigger/[\w-]{1,100}/(?:json/)?with/key|use)/([\w-]{16,64})"),
              ("/api/webhooks/", "qyapi.weixin", "/open-apis/bot/", "oapi.dingtalk", "webhookb2",
               "zapier", "/v1/spaces/", "api.telegram.org/bot", "/hooks/", "maker.ifttt.com"),
              check=_webhook_key, evades=False),
    # (a home server's or an app's own webhook: its path's token is the credential)
    make_rule("webhook-path-token", "A generated token in a webhook URL's path",
              r"/(?:api/)?(?:webhooks?|hooks?)/([A-Za-z0-9_-]{24,128})(?![\w-])",
              ("/webhook/", "/webhooks/", "/hook/", "/hooks/"), tier="likely",
              check=_generated_token, evades=False),
    # Discord's bot token (three dot-separated parts), where Discord or a bot is named
    make_rule("discord-bot-token", "Discord bot token",
              r"(?<![\w.-])([A-Za-z0-9_-]{23,28}\.[\w-]{6,7}\.[\w-]{27,40})(?![\w.-])",
              ("discord", "bot.run(", "client.run(", "bot_token"), ignore_case=True,
              check=_generated_token, evades=False),
    make_rule("telegram-bot-token", "Telegram bot token",
              r"(?<![\w:])(\d{8,10}:AA[\w-]{33})(?![\w-])",
              ("telebot", "bot_token", "botfather"),
              check=_PLACED, evades=False),
    make_rule("docker-pat", "Docker personal or organisation access token",
              r"dckr_(?:pat|oat)_[\w-]{27,64}" + END, ("dckr_pat_", "dckr_oat_"), entropy=3,
              word_start=True, evades=False),
    make_rule("otpauth-secret", "One-time password seed in an otpauth:// URL",
              r"otpauth://[a-z]{4}/[^\s?]{0,200}\?(?:[^\s#]{0,500}&)?secret=([A-Za-z2-7]{16,128})",
              ("otpauth://",), ignore_case=True, check=_CERTAIN, evades=False),
    # A password in a URL's user info (scheme://user:password@host), a connection
    # string's. Not a gitleaks rule (its generic ones are left out): memgov's own, since
    # a private store keeps an internal host's address but never the password to it.
    # The secret is the password alone: a placeholder or a plain word is no finding.
    # (Matched where each ``://`` is, the scheme checked before it: cheaper than a
    # regex searched through every line that holds a URL.)
    make_rule("url-password", "Password in a URL",
              # (a password may hold ``@``: the user info ends at the authority's last one)
              r"://[^\s:/?#@'\"<>]{0,64}:([^\s/'\"<>]{6,128}?)@(?![^\s/?#'\"<>]{0,253}@)",
              ("://",), check=_url_password, local=True, evades=False),
    # Go's DSN: user:password@tcp(host:port)/db (or ``@(host:port)``, the protocol left out).
    make_rule("dsn-password", "Password in a Go database DSN",
              r"[\"'\x60]([^\s:\"'@/\x60]{1,64}):([^\s\"'@\x60]{1,128})@(?:tcp|unix)?\(",
              ("@tcp(", "@unix(", "@("), check=_CERTAIN, evades=False),
    # (and a header of a vendor's that takes the base64 with no scheme before it:
    # kintone's X-Cybozu-Authorization)
    make_rule("basic-auth", "HTTP Basic credentials (user:password in base64)",
              (r"\bbasic[ \t]{1,8}([A-Za-z0-9+/]{6,1024}={0,2})(?![A-Za-z0-9+/=])",
               r"authorization[\"']?[ \t]{0,4}[:=][ \t]{0,4}[\"']?"
               r"([A-Za-z0-9+/]{6,1024}={0,2})(?![A-Za-z0-9+/=])"),
              ("basic", "authorization"), ignore_case=True, check=_decodes_to_login,
              evades=False),
    make_rule("docker-auth", "Docker registry auth (user:password in base64)",
              r"\"auth\"\s*:\s*\"([A-Za-z0-9+/]{6,}={0,2})\"", ('"auth"',),
              check=_decodes_to_login, evades=False),
    make_rule("okta-api-token", "Okta API token in an Authorization header (SSWS)",
              r"\bSSWS[ \t]+([\w-]{40,44})(?![\w-])", ("ssws",), check=_webhook_key,
              evades=False),
    make_rule("tsig-key-secret", "A TSIG key's secret (BIND's rndc or a DNS update key)",
              r"\balgorithm[ \t]+\"?hmac-[\w-]{2,20}\"?;\s{0,40}secret[ \t]+"
              r"\"([A-Za-z0-9+/=]{16,512})\"",
              ("algorithm",), ignore_case=True, check=_CERTAIN, local=True, evades=False),
    make_rule("ipsec-psk", "Pre-shared key in an IPsec secrets file",
              r"(?<![\w-]):[ \t]*(?:PSK|EAP|XAUTH)[ \t]+" + _VALUE, ("psk", "eap", "xauth"),
              check=_CERTAIN, evades=False),
    make_rule("bearer-token", "Bearer token in an Authorization header",
              r"\bbearer[ \t]+\{?['\"]?([A-Za-z0-9._~+/=-]{12,4096})", ("bearer",),
              ignore_case=True, check=_CERTAIN, evades=False),
    make_rule("connection-string-password",
              "Password or key in a connection string (ADO.NET, ODBC, Azure, JDBC)",
              r"[;&?][ \t]{0,8}(?:password|pwd|accountkey|sharedaccesskey|accesskey|sharedsecret)"
              r"[ \t]{0,8}=[ \t]{0,8}([^;\"'<>\s&]{1,512})",
              ("password", "pwd", "accountkey", "sharedaccesskey", "accesskey", "sharedsecret"),
              ignore_case=True, check=_PLACED, evades=False),
    make_rule("netrc-password", "Password in a .netrc entry",
              (r"\bmachine\s{1,64}\S{1,256}\s{1,64}(?:login\s{1,64}\S{1,256}\s{1,64})?password"
               r"\s{1,64}(\S{1,256})",
               r"\bdefault\s{1,64}(?:login\s{1,64}\S{1,256}\s{1,64})?password\s{1,64}(\S{1,256})",
               r"(?m:^)[ \t]{0,64}login\s{1,64}\S{1,256}\s{1,64}password\s{1,64}(\S{1,256})"),
              ("password", "login"), multiline=True, check=_PLACED, evades=False),
    # (a field may hold ``\:`` or ``\\``, as .pgpass escapes them)
    make_rule("pgpass-password", "Password in a .pgpass line",
              r"(?<![^\s\x60\"'])(?:[^\s:\x60\"']{1,255}|\[[0-9A-Fa-f:.]{2,64}\]):(?:\d{1,5}|\*):(?:[^\s:\x60\"'\\]|\\.){1,255}"
              r":(?:[^\s:\x60\"'\\]|\\.){1,255}:((?:[^\s:\x60\"'\\]|\\.){1,255})(?=[\s\x60\"']|$)",
              (":5432:", ":5433:", ":5434:", ":5435:", ":5439:", ":6432:", ":*:", ":25060:",
               "pgpass"),
              check=_PLACED, evades=False),
    make_rule("cli-password", "Password given to a command on its command line",
              (r"\bsshpass\s+-p\s*" + _VALUE,
               r"\bmysql(?:dump|admin|sh|import|check)?\b[^\n|;&]{0,200}?\s-p" + _VALUE,
               r"--(?:[a-z]{1,12}-)?pass(?:word|wd)?[= ]" + _VALUE,
               r"\b(?:curl|wget)\b[^\n|;&]{0,200}?\s(?:-u|--user)[ =]['\"]?[^\s:'\"]{1,64}:"
               + _VALUE,
               r"\b(?:PGPASSWORD|MYSQL_PWD)=" + _VALUE,
               r"\bredis-cli\b[^\n|;&]{0,200}?\s-a\s+" + _VALUE,
               r"\bhtpasswd(?:[ \t]+-[a-zA-Z]{1,5})*[ \t]+-[a-zA-Z]{0,4}b[a-zA-Z]{0,4}"
               r"(?:[ \t]+-[a-zA-Z]{1,5})*[ \t]+\S{1,256}[ \t]+\S{1,64}[ \t]+" + _VALUE,
               r"\b(?:mosquitto_passwd|rabbitmqctl)\b[^\n|;&]{0,60}?\s(?:-b\s+\S{1,256}|add_user"
               r"|change_password)\s+[^\s-]\S{0,63}\s+" + _VALUE,
               r"\b[a-z]{0,4}freerdp\b[^\n|;&]{0,200}?\s/p:" + _VALUE,
               r"(?:\s|^)/pass(?:word)?:" + _VALUE,
               r"pass(?:word)?(?:-file)?[ =]<\([ \t]*(?:echo|printf)[ \t]+(?:-n[ \t]+)?" + _VALUE,
               r"\bnet\s+use\b[^\n|;&]{0,200}?/user:\S{1,128}\s+" + _VALUE,
               r"\bnet\s+use\s+(?:[A-Za-z]:\s+|\*\s+)?\\\\\S{1,256}\s+" + _VALUE + r"\s+/user:",
               r"\b(?:psexec(?:64)?|rdesktop|ipmitool)\b[^\n|;&]{0,200}?\s-[pP]\s+" + _VALUE,
               r"\bmosquitto_(?:pub|sub|rr)\b[^\n|;&]{0,200}?\s(?:-P|--pw)\s+" + _VALUE,
               r"\s-(?:src|dest)?(?:store|key)pass(?:word)?[ \t]+" + _VALUE,
               r"\s-(?:ssl)?password[ \t]+(?:pass:)?" + _VALUE,
               r"\b(?:docker|podman|buildah|skopeo|nerdctl|oras)\s+login\b[^\n|;&]{0,200}?\s-p\s+"
               + _VALUE,
               r"\b(?:sqlcmd|bcp)\b[^\n|;&]{0,200}?\s-P\s*" + _VALUE,
               r"\bmongo(?:sh|dump|restore)?\b[^\n|;&]{0,200}?\s-p\s+" + _VALUE,
               r"\bsmbclient\b[^\n|;&]{0,200}?\s-U\s+[^\s%]{1,64}%" + _VALUE,
               r"-pass(?:in|out)?\s+pass:" + _VALUE,
               r"(?i:convertto-securestring)\s+(?:-String\s+)?" + _VALUE,
               r"\bldap(?:search|modify|add|delete|passwd|whoami|compare|modrdn)\b[^\n|;&]{0,200}?"
               r"\s-w\s+" + _VALUE,
               r"\baz\s+login\b[^\n|;&]{0,200}?\s(?:-p|--password)\s+" + _VALUE,
               r"\bopenssl\b[^\n|;&]{0,200}?\s-k\s+" + _VALUE,
               r"-(?:passwd|password)-on-stdin\b[^\n|;&]{0,80}?<<<[ \t]*" + _VALUE,
               r"\brclone\s+obscure\s+" + _VALUE,
               r"\becho\s+" + _VALUE
               + r"\s*\|\s*(?:sudo\s+)?(?:passwd\b|chpasswd|sudo\s+-S"
               r"|[^\n|]{0,200}--password-stdin)"),
              ("--password", " -p", " -a ", " -u ", "--user", "pgpassword=", "mysql_pwd=",
               "htpasswd", "-pass", "convertto-securestring", "passwd", "| sudo -s", "storepass",
               "-keypass", "rabbitmqctl", "xfreerdp", "wfreerdp", "-freerdp", "/pass", "/user:",
               "<(echo", "<(printf", "ldap", "az login", "openssl", "<<<", "rclone obscure",
               "mosquitto_"),
              check=_cli_password, evades=False),
    # a Wi-Fi network's QR code text: ``WIFI:T:WPA;S:name;P:password;;``
    make_rule("wifi-password", "Wi-Fi password in a network's QR code text",
              r"\bWIFI:(?:[^;\n]{0,100};){0,6}?P:((?:\\.|[^;\\\n]){1,64});", ("wifi:",),
              ignore_case=True, check=_CERTAIN, evades=False),
)
# fmt: on
