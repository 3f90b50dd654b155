r"""The likely tier in what a person keeps: codes, phrases and small files of their own.

* ``recovery-key``: a BitLocker recovery key (eight groups of six digits), said
  where a recovery key is named.
* ``seed-phrase``: a wallet's seed (recovery, mnemonic) phrase: twelve to
  twenty-four lowercase words after its name.
* ``pin-code``: a card's or a phone's PIN said in prose ("my PIN is" and its digits,
  "暗証番号は" and them): four to eight digits, not a run or a sequence.
* ``command-word-password``: a password given to a command as a bare word and its
  value (rclone's ``pass X``, nmcli's ``password X``), on a command's line.
* ``ppp-secret``: a line of PPP's ``chap-secrets`` / ``pap-secrets`` (client, server,
  secret, addresses), in a text that names the file.
* ``auth-file-password``: the password line of OpenVPN's ``auth-user-pass`` file (a
  user name on one line, the password on the next), in a text that names it.
* ``user-password-line``: ``user:password`` lines where a file or a setting holds them
  (rsync's ``secrets file``, cloud-init's ``chpasswd``).
* ``backup-codes``: an account's backup (recovery) codes, two or more after their name.
* ``admin-password-pair``: a well-known login (``admin``, ``root``, ...), `` / `` and a
  password ("WordPress: admin / ..."), with no word saying "login" before it.

Memgov's own rules, written after the misses of a blind corpus: none of the scanners
read for the others (gitleaks, detect-secrets) has them. Each is anchored on the words
or the file that say what the value is; the value must still read as a secret.
"""

from __future__ import annotations

import itertools
import re

from core.domain.secrets.placeholders import mostly_runs
from core.domain.secrets.rule import Rule, line_start, make_rule
from core.domain.secrets.structure import value_check

_LIKELY = value_check(hex_is_hash=False)
_STRICT = value_check(hex_is_hash=False, strict=True)
_SEED_LENGTHS = frozenset({12, 15, 18, 21, 24})


def _seed_phrase(data: bytes, match: re.Match[bytes]) -> tuple[int, int] | None:
    """Twelve, fifteen, ... twenty-four words, not one word over and over."""
    start, stop = match.span(1)
    words = data[start:stop].split()
    if len(words) not in _SEED_LENGTHS or len(set(words)) < len(words) // 2:
        return None
    return start, stop


def _recovery_key(data: bytes, match: re.Match[bytes]) -> tuple[int, int] | None:
    """Forty-eight digits that are no run of one or two digits over and over."""
    start, stop = match.span(1)
    return (start, stop) if len(set(data[start:stop])) >= 6 else None


def _pin(data: bytes, match: re.Match[bytes]) -> tuple[int, int] | None:
    """Digits that are no run (``0000``), no sequence (``1234``, ``9876``) and no year."""
    start, stop = match.span(1)
    value = data[start:stop].decode("ascii")
    steps = {(int(b) - int(a)) % 10 for a, b in itertools.pairwise(value)}
    if steps in ({1}, {9}) or mostly_runs(value) or re.fullmatch(r"(?:19|20)\d\d", value):
        return None
    return start, stop


_PIN_WORDS = (
    r"(?-i:\bPIN\b)|\bpin[ \t-]?(?:code|number)\b|\bPIN-Code\b|\bcode PIN\b|PIN码|PIN 码"
    r"|暗証番号|비밀번호|pinコード|\bcódigo pin\b"
)
_PIN_MARK = r"[ \t]*(?:(?:is|was|es|est|ist|lautet|é)\b|:|：|=|是|は|는|为)[ \t]*"
# a value on a command's line: what follows a bare ``pass``/``password`` word, on a line
# that starts with a command (the rule is matched at each word, and this reads back)
_COMMAND_LINE = re.compile(rb"[ \t]{0,8}(?:\$[ \t]+|sudo[ \t]+)?[a-z][\w.-]{1,30}[ \t][^\n]{0,200}")


def _command_word(data: bytes, match: re.Match[bytes]) -> tuple[int, int] | None:
    """A bare password word's value, on a command's line."""
    if not _COMMAND_LINE.fullmatch(data, line_start(data, match.start()), match.start()):
        return None
    return _STRICT(data, match)


def _codes(data: bytes, match: re.Match[bytes]) -> tuple[int, int] | None:
    """The first of two or more codes, none of them a run or a sequence."""
    start, stop = match.span(1)
    first = data[start:stop].decode("ascii")
    return None if mostly_runs(first) or len(set(first)) < 4 else (start, stop)


# fmt: off
PERSONAL_RULES: tuple[Rule, ...] = (
    make_rule("recovery-key", "A BitLocker recovery key (eight groups of six digits)",
              r"(?<![\d-])(\d{6}(?:-\d{6}){7})(?![\d-])",
              ("bitlocker", "recovery key", "recovery password", "回復キー", "回复密钥",
               "恢复密钥", "wiederherstellungsschl", "clé de récupération",
               "clave de recuperación", "복구 키"),
              tier="likely", check=_recovery_key, evades=False),
    make_rule("seed-phrase", "A wallet's seed phrase (twelve to twenty-four words)",
              r"(?:\b(?:seed|recovery|secret|backup|mnemonic)[ \t]+(?:phrase|words)\b|\bmnemonic\b"
              r"|助记词|助記詞|シードフレーズ|リカバリーフレーズ|시드[ \t]?문구|복구[ \t]?문구"
              r"|frase[ \t]+(?:semilla|de[ \t]+recuperación|secreta)"
              r"|phrase[ \t]+de[ \t]+récupération)"
              r"[^\n:=]{0,60}?(?::|：|=|\bis\b|是|は)[ \t]*(?:\r?\n[ \t]*)?[\"'\x60]?"
              r"((?-i:[a-z]{3,8})(?:[ \t]+(?-i:[a-z]{3,8})){11,23})(?![ \t]*[A-Za-z])",
              ("seed phrase", "seed words", "recovery phrase", "recovery words",
               "secret phrase", "backup phrase", "mnemonic", "助记词", "助記詞",
               "シードフレーズ", "リカバリーフレーズ", "시드", "복구", "frase", "phrase de"),
              ignore_case=True, tier="likely", check=_seed_phrase, evades=False),
    make_rule("pin-code", "A PIN said in prose",
              rf"(?:{_PIN_WORDS})[^\n\d:=]{{0,24}}?{_PIN_MARK}(\d{{4,8}})"
              r"(?!\d|[.,:/-]\d|[ \t]*(?:digits|chiffres|Stellen|dígitos|位|桁|자리))",
              ("pin", "暗証番号", "비밀번호"), ignore_case=True, tier="likely", check=_pin,
              evades=False),
    make_rule("command-word-password", "A password given to a command as a bare word",
              r"[ \t](?:pass|password|passwd|psk|passphrase)[ \t]+"
              r"([^\s'\"\x60-][^\s'\"\x60]{5,127})(?=[ \t]|\r?(?:\n|\Z))",
              (" pass ", " password ", " passwd ", " psk ", " passphrase "),
              tier="likely", local=True, check=_command_word, evades=False,
              tail=r"[ \t]*[^\s'\"\x60-][^\s'\"\x60]{5}"),
    make_rule("ppp-secret", "A secret in PPP's chap-secrets or pap-secrets",
              r"(?:chap|pap)-secrets\b[^\0]{0,400}?(?m:^)[ \t]*(?!#)"
              r"(?:\"[^\"\n]{1,64}\"|[^\s\"#]{1,64})"
              r"[ \t]+(?:\"[^\"\n]{0,64}\"|\S{1,64})[ \t]+(?:\"([^\"\n]{1,128})\"|([^\s\"]{1,128}))"
              r"(?:[ \t]+\S{1,64})*[ \t]*\r?(?m:$)",
              ("chap-secrets", "pap-secrets"), tier="likely", multiline=True, check=_LIKELY,
              evades=False),
    make_rule("auth-file-password", "The password line of an OpenVPN auth-user-pass file",
              r"(?:auth[-_]user[-_]pass|\bauth\.txt\b|\bpass(?:word)?\.txt\b)[^\n]{0,120}\r?\n"
              r"[ \t]*[^\s#;]{1,128}[ \t]*\r?\n[ \t]*([^\s#;]{6,128})[ \t]*(?:\r?\n|$)",
              ("auth-user-pass", "auth_user_pass", "auth.txt", "pass.txt", "password.txt"),
              ignore_case=True, tier="likely", multiline=True, check=_LIKELY, evades=False),
    make_rule("user-password-line", "A user:password line of a secrets file or chpasswd",
              r"(?:rsyncd?\.secrets|secrets[ \t]+file|\bchpasswd\b)[^\0]{0,300}?(?m:^)[ \t]*"
              r"(?:-[ \t]*)?(?!#)[a-z_][\w.-]{0,31}:([^\s:]{6,128})[ \t]*\r?(?m:$)",
              ("rsyncd.secrets", "rsync.secrets", "secrets file", "chpasswd"),
              ignore_case=True, tier="likely", multiline=True, check=_LIKELY, evades=False),
    make_rule("backup-codes", "An account's backup codes",
              r"(?:(?:backup|recovery|2fa|mfa)[ \t]+codes?\b|备用码|恢复码|バックアップコード"
              r"|복구[ \t]?코드|codes[ \t]+de[ \t]+(?:secours|respaldo|recuperación)|backup-codes)"
              r"[^\n\d]{0,60}?(?::|：|\bare\b)[ \t]*(?:\r?\n[ \t]*)?"
              r"(\d{6,10}|\d{4}[ \t]\d{4}|[a-z0-9]{4,5}-[a-z0-9]{4,5})"
              r"(?:[ \t,;、]+|\r?\n[ \t]*(?:-[ \t]*)?)"
              r"(?:\d{6,10}|\d{4}[ \t]\d{4}|[a-z0-9]{4,5}-[a-z0-9]{4,5})\b",
              ("backup code", "recovery code", "2fa code", "mfa code", "备用码", "恢复码",
               "バックアップコード", "복구", "codes de", "backup-codes"),
              ignore_case=True, tier="likely", check=_codes, evades=False),
    make_rule("admin-password-pair", "A well-known login and its password",
              r"\b(?:admin|root|administrator|sa|pi|ubuntu|postgres|guest|operator|superuser)"
              r"(?:[ \t]+/[ \t]*|[ \t]*/[ \t]+)([!#-&(-.0-~]{6,128})(?![ \t]*/)",
              ("admin /", "root /", "administrator /", "sa /", "pi /", "ubuntu /", "postgres /",
               "guest /", "operator /", "superuser /", "admin/ ", "root/ "),
              ignore_case=True, tier="likely", check=_STRICT, evades=False),
)
# fmt: on
