r"""The likely tier in tables and exports: a password column, a password element.

* ``table-password-column``: a table pasted as text (CSV, TSV, a Markdown or pipe
  table: a password manager's export, a spreadsheet of shared accounts) whose header
  names a secret in one of its cells (``password``, ``login_password``, ``Passwort``,
  ``密码``, ...): every row's cell in that column that can be a password
  (:func:`.values.typed`: the column says what it is, so a plain word is one).
* ``xml-password-element``: an XML element that holds a password: ``<Pass>`` (FileZilla's
  site manager), ``<password>``, and KeePass's ``<Key>Password</Key><Value>...``.
* ``wifi-key-content``: the ``Key Content`` line ``netsh wlan show profile key=clear``
  prints (a Wi-Fi network's passphrase).
* ``named-secret-element``: an app's configuration that names a value by a key: an
  iOS ``Info.plist``'s ``<key>AppSecret</key><string>...</string>``, an Android
  manifest's ``<meta-data android:name="...SECRET_KEY" android:value="..."/>``, where
  the key names a secret (:func:`.names.names_secret`).

Memgov's own, written after the misses of a blind corpus (password managers' exports,
spreadsheets of a family's accounts, Windows' Wi-Fi profile); none of gitleaks' or
detect-secrets' rules reads a table's header.
"""

from __future__ import annotations

import re

from core.domain.secrets.configs import named_value
from core.domain.secrets.names import names_secret
from core.domain.secrets.rule import Rule, line_start, make_rule
from core.domain.secrets.values import typed

_SEPARATORS = (b"\t", b"|", b",", b";")
_HEADER_REACH = 400  # how far into its header line a column's name may be
_MAX_ROWS = 500
_HEADER_WORDS = (
    "password",
    "passwd",
    "pwd",
    "passwort",
    "kennwort",
    "contraseña",
    "senha",
    "mot de passe",
    "密码",
    "密碼",
    "パスワード",
    "비밀번호",
    "пароль",
)  # fmt: skip  (not "pin" nor "secret": inside every other word of code, "mapping", ...)
_HEADER = "|".join(re.escape(w) for w in _HEADER_WORDS)
# a header line that holds a secret's name and a separator, then the rows that follow it
# (matched where each header word is: the header line is read back from it)
_TABLE = (
    rf"(?:{_HEADER})[^\n]{{0,400}}\n"
    r"((?:[^\n]{0,2000}(?:\t|\||,|;)[^\n]{0,2000}(?:\r?\n|$)){1,500})"
)
_RULE_ROW = re.compile(rb"^[\s|:+-]*$")  # a Markdown table's ``|---|:--|``


def _cells(line: bytes, sep: bytes) -> list[tuple[int, int]]:
    """Each cell's (start, stop) in the line, a CSV's double quotes kept together and left
    out of the span; a Markdown row's outer pipes and the spaces around a cell left out."""
    cells: list[tuple[int, int]] = []
    start = 0
    quoted = False
    for i, byte in enumerate(line):
        if byte == 0x22:  # "
            quoted = not quoted
        elif not quoted and line[i : i + 1] == sep:
            cells.append((start, i))
            start = i + 1
    cells.append((start, len(line)))
    if sep == b"|" and len(cells) > 1 and not line[cells[0][0] : cells[0][1]].strip():
        cells = cells[1:]  # (a leading pipe)
    if sep == b"|" and len(cells) > 1 and not line[cells[-1][0] : cells[-1][1]].strip():
        cells = cells[:-1]  # (a trailing one)
    trimmed = []
    for a, b in cells:
        while a < b and line[a] in b' \t"\r':
            a += 1
        while b > a and line[b - 1] in b' \t"\r':
            b -= 1
        trimmed.append((a, b))
    return trimmed


_COLUMN_NAME = re.compile(r"[^\W\d][\w .()/#&-]{0,39}")
_MIN_COLUMNS = 3


def _secret_columns(header: bytes) -> tuple[bytes, list[int]] | None:
    """The header's separator and the indexes of the cells that name a secret: three
    columns or more, each a column's name (words, no code: a tuple of strings in source,
    ``"pass", "pwd",``, has an empty last cell and is no header)."""
    for sep in _SEPARATORS:
        if sep not in header:
            continue
        cells = _cells(header, sep)
        text = [header[a:b].decode("utf-8", "replace") for a, b in cells]
        if len(text) < _MIN_COLUMNS or not all(_COLUMN_NAME.fullmatch(t) for t in text):
            continue
        columns = [i for i, name in enumerate(text) if _names_column(name)]
        if columns:
            return sep, columns
    return None


def _names_column(name: str) -> bool:
    lowered = name.strip().lower()
    return names_secret(name) or lowered in ("pin", "pin code", "key content", "mot de passe")


def _table(data: bytes, match: re.Match[bytes]) -> list[tuple[int, int]] | None:
    start = match.start()
    if start - line_start(data, start) > _HEADER_REACH:
        return None
    header = data[line_start(data, start) : match.start(1)].rstrip(b"\r\n")
    found = _secret_columns(header)
    if found is None:
        return None
    sep, columns = found
    spans: list[tuple[int, int]] = []
    width = len(_cells(header, sep))
    pos = match.start(1)
    for line in match.group(1).split(b"\n")[:_MAX_ROWS]:
        row = line.rstrip(b"\r")
        cells = _cells(row, sep) if sep in row else []
        if cells and not _RULE_ROW.match(row) and len(cells) == width:
            for column in columns:
                if column < len(cells):
                    a, b = cells[column]
                    value = row[a:b].decode("utf-8", "replace")
                    if value and typed(value):
                        spans.append((pos + a, pos + b))
        elif not cells:
            break  # the table ends where a line has no separator
        pos += len(line) + 1
    return spans or None


def _typed_value(data: bytes, match: re.Match[bytes]) -> tuple[int, int] | None:
    start, stop = match.span(match.lastindex or 0)
    value = data[start:stop].decode("utf-8", "replace").strip()
    if not typed(value):
        return None
    begin = data.find(value.encode("utf-8"), start, stop)
    return begin, begin + len(value.encode("utf-8"))


def _wifi_key(data: bytes, match: re.Match[bytes]) -> tuple[int, int] | None:
    """The passphrase, not the word netsh prints without ``key=clear`` (``Absent``,
    ``Present``)."""
    if match.group(1).strip().lower() in (b"absent", b"present"):
        return None
    return _typed_value(data, match)


# fmt: off
TABLE_RULES: tuple[Rule, ...] = (
    make_rule("table-password-column", "A password column of a table or an export", _TABLE,
              _HEADER_WORDS, ignore_case=True, tier="likely", check=_table, local=True,
              evades=False),
    make_rule("xml-password-element", "A password in an XML element",
              (r"<(?:pass|password|passwd|pwd)\b[^<>\n]{0,200}>([^<\n]{1,256})</",
               r"<key>[ \t]*password[ \t]*</key>\s{0,40}<value\b[^<>\n]{0,200}>([^<\n]{1,256})</"),
              ("<pass", "<pwd", "<key>"), ignore_case=True, tier="likely", check=_typed_value,
              evades=False),
    make_rule("named-secret-element", "A secret named by an app's configuration key",
              (r"<key>[ \t]*([\w.-]{1,80})[ \t]*</key>\s{0,40}<string>([^<\n]{1,256})</string>",
               r"android:name[ \t]*=[ \t]*\"([\w.-]{1,120})\"\s{1,40}"
               r"android:value[ \t]*=[ \t]*\"([^\"\n]{1,256})\""),
              ("<key>", "android:name"), ignore_case=True, tier="likely", check=named_value,
              multiline=True, evades=False),
    make_rule("wifi-key-content", "A Wi-Fi passphrase netsh printed (Key Content)",
              r"\bkey content[ \t]*:[ \t]*([^\n]{1,63}?)[ \t]*(?:\r?\n|$)", ("key content",),
              ignore_case=True, tier="likely", check=_wifi_key, evades=False),
)
# fmt: on
