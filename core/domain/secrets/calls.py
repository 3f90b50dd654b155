r"""The likely tier in code: a password passed to a call as a string literal.

* ``call-password-argument``: two string literals side by side among a call's
  arguments, a login and then its password (``Client::new("admin", "...")``,
  ``new FtpClient(host, "acme", "...")``, ``createDataSource(url, "crm", "...")``,
  ``mail.start(helo, "alerts@...", "...", :login)``), where the call's name says it
  logs in or connects (``connect``, ``login``, ``auth``, ``credential``, ``client``,
  ``smtp``, ``ftp``, ``mail``, ``datasource``, ...), or where the first literal
  names a password field (``page.fill("#password", "...")``).
* ``password-comparison``: a password compared with a literal
  (``password.equals("...")``, ``if pwd == "..."``): a login written in code.
* ``secret-setter-call``: a literal given to a method or a function whose name names
  a secret (``.password("...")`` and ``.clientSecret("...")`` of a builder,
  ``set_password(:mqtt, "...")``, ``.rconPassword("...")``), its only or last argument.
* ``password-field-input``: a literal typed into a password field by a UI test
  (``By.id("password")).sendKeys("...")``, ``find_element(..., "pwd").send_keys(...)``).

The value must read as a password in prose does (a letter with a digit or a symbol:
:func:`.values.plausible`, ``strict``); the login must be one word (no space, no
``/``, no format directive). Memgov's own rules, written after the misses of a blind
corpus: no scanner read here has them.
"""

from __future__ import annotations

import re

from core.domain.secrets.names import names_secret
from core.domain.secrets.rule import Rule, make_rule
from core.domain.secrets.values import plausible, trim

# a call's name that logs in or connects
_CALLS_LOGIN = re.compile(
    r"connect|login|logon|signin|sign_in|auth|credential|client|smtp|imap|ftp|mail|datasource"
    r"|pdo|mysqli|bind|session|ssh|ldap|database|\bdb\b|pool|engine",
    re.IGNORECASE,
)
# methods that take data, not a login: a client's ``get("/k", "v")`` is no login
_DATA_METHODS = re.compile(
    r"(?:^|[.:>])(?:get|set|put|post|patch|delete|request|fetch|send|emit|log|print|printf"
    r"|format|add|append|push|insert|update|replace|split|join|render|t|tr|translate|assert\w*"
    r"|expect|equal|eq|is|has|find|query|exec|execute|call|invoke|publish|subscribe)$",
    re.IGNORECASE,
)
_PASSWORD_FIELD = re.compile(r"passw|pwd|passcode|密码|パスワード|비밀번호", re.IGNORECASE)
_NAME_CHARS = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.:$>-")


def _call_name(data: bytes, pos: int) -> str:
    """The name of the call whose arguments hold ``pos``: the word chain before the
    unmatched ``(`` to its left on the same line (empty if none)."""
    depth = 0
    line_start = max(data.rfind(b"\n", 0, pos) + 1, pos - 400)  # (a call's start is near)
    i = pos - 1
    while i >= line_start:
        byte = data[i]
        if byte == 0x29:  # )
            depth += 1
        elif byte == 0x28:  # (
            if depth == 0:
                stop = i
                while stop > line_start and data[stop - 1] == 0x20:
                    stop -= 1
                start = stop
                while start > line_start and data[start - 1] in _NAME_CHARS:
                    start -= 1
                return data[start:stop].decode("ascii", "replace").rstrip("-")
            depth -= 1
        i -= 1
    return ""


def _login_then_password(data: bytes, match: re.Match[bytes]) -> tuple[int, int] | None:
    login = match.group(2).decode("utf-8", "replace")
    start, stop = match.span(4)
    value = trim(data[start:stop].decode("utf-8", "replace"))
    if not plausible(value, strict=True) or _PASSWORD_FIELD.search(value):
        return None
    name = _call_name(data, match.start())
    if not name:
        return None  # a tuple or a list of strings, no call
    if _PASSWORD_FIELD.search(login):
        return start, start + len(value.encode("utf-8"))  # fill("#password", "...")
    if any(c.isspace() for c in login) or "/" in login or "%" in login or len(login) > 64:
        return None
    if not _CALLS_LOGIN.search(name) or _DATA_METHODS.search(name):
        return None
    return start, start + len(value.encode("utf-8"))


def _typed_into_password(data: bytes, match: re.Match[bytes]) -> tuple[int, int] | None:
    line_start = data.rfind(b"\n", max(0, match.start() - 160), match.start()) + 1
    before = data[max(line_start, match.start() - 160) : match.start(2)]  # (and the field)
    if not _PASSWORD_FIELD.search(before.decode("utf-8", "replace")):
        return None
    start, stop = match.span(2)
    value = trim(data[start:stop].decode("utf-8", "replace"))
    if not plausible(value, strict=True) or _PASSWORD_FIELD.search(value):
        return None  # (the field's name, ``"#password"``, is no value typed into it)
    return start, start + len(value.encode("utf-8"))


def _compared(data: bytes, match: re.Match[bytes]) -> tuple[int, int] | None:
    start, stop = match.span(2)
    value = data[start:stop].decode("utf-8", "replace")
    return (start, stop) if plausible(value, strict=True, hex_is_hash=False) else None


_TYPED = r"""[ \t]*\([ \t]*(?:[^,()\n]{0,80},[ \t]*)?(["'])([^"'\n\\]{6,128})\1[ \t]*[,)]"""

# names that read or check a secret rather than give one (``getToken("k")``)
_NOT_SETTER = re.compile(r"^(?:get|has|is|check|verify|validate|hash|encode|decode|parse)",
                         re.IGNORECASE)  # fmt: skip


def _setter(data: bytes, match: re.Match[bytes]) -> tuple[int, int] | None:
    """A literal given to a call whose whole name (the chain's last link) names a secret."""
    name = re.split(r"[.:>$-]", _call_name(data, match.start(1)))[-1]
    if _NOT_SETTER.match(name) or not names_secret(name):
        return None
    begin, stop = match.span(2)
    value = trim(data[begin:stop].decode("utf-8", "replace"))
    if not plausible(value, hex_is_hash=False):
        return None
    return begin, begin + len(value.encode("utf-8"))


# fmt: off
CALL_RULES: tuple[Rule, ...] = (
    # the second literal is matched in a lookahead, so that it can be the next pair's first
    make_rule("call-password-argument", "A login and its password passed to a call",
              r"""(["'])([^"'\n\\]{1,128})\1[ \t]*,[ \t]*"""
              r"""(?=(["'])([^"'\n\\]{6,128})\3[ \t]*[,)])""",
              ("connect", "login", "logon", "auth", "credential", "client", "mysql", "jdbc",
               "bind"),
              tier="likely", check=_login_then_password, evades=False),
    make_rule("secret-setter-call", "A secret given to a call named for it",
              r"""(?:password|passwd|secret|apikey|api_key|token)[ \t]*\("""
              r"""(?:[^()"'\n]{0,60},[ \t]*)?(["'])([^"'\n\\]{6,128})\1[ \t]*\)""",
              ("password(", "passwd(", "secret(", "apikey(", "api_key(", "token("),
              ignore_case=True, tier="likely", check=_setter, local=True, evades=False),
    make_rule("password-field-input", "A password typed into a field by a UI test",
              tuple(m + _TYPED for m in ("sendKeys", "send_keys", ".type", ".fill", "fill_in",
                                         "setValue", "set_value")),
              ("sendkeys", "send_keys", ".type(", "fill_in", "setvalue", "set_value", ".fill("),
              tier="likely", check=_typed_into_password, evades=False),
    make_rule("password-comparison", "A password compared with a literal (a login that is code)",
              r"""\b(?:password|passwd|pwd|passcode|pw)\w{0,12}[ \t]*(?:===?|\.equals\(|"""
              r"""\.equalsIgnoreCase\()[ \t]*(["'])([^"'\n\\]{4,128})\1""",
              ("password", "passwd", "pwd", "passcode", "pw"), ignore_case=True, tier="likely",
              check=_compared, local=True, evades=False),
)
# fmt: on
