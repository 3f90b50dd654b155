"""The scanner measured on a labelled corpus of credentials and near misses.

``tests/fixtures/credentials/tuning.jsonl`` was written, blind to the rules, by
someone asked for credentials as people write them (``.env``, YAML, JSON, INI,
code, connection strings, headers, command lines, ``.netrc``/``.pgpass``, prose
in nine languages) and for near misses (placeholders, references, masked
values, hashes, digests, UUIDs, versions, paths, documentation's examples,
policy sentences). The rules were tuned on it; the floors below pin what they
reach, so a change that loses a credential or flags a near miss fails here.
``bench/credential_corpus.py`` prints the same numbers for any corpus file.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from core.domain.secrets import redact, scan
from core.domain.secrets.scanner import text_spans

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "credentials" / "tuning.jsonl"
ROWS = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line]
CREDENTIALS = [r for r in ROWS if r["label"] == "credential"]
NEAR_MISSES = [r for r in ROWS if r["label"] == "near-miss"]

# What the rules still miss or flag, by id, and why (everything else is caught or clean).
MISSED: dict[str, str] = {}  # (c-0335, a key file `cat` shows, is the printed-secret rule's)
FLAGGED = {
    "c-0111": "an AWS access key id alone (a certain vendor rule, kept as gitleaks has it)",
}


def caught(row: dict[str, str]) -> bool:
    """A finding on the secret's line, or a secret span over its first character."""
    text, secret = row["text"], row["secret"]
    at = text.find(secret)
    assert at >= 0, row["id"]
    line = text.count("\n", 0, at) + 1
    if any(f.line == line for f in scan(text)):
        return True
    first = len(text[:at].encode("utf-8"))
    _data, raw, hidden = text_spans(text, "scan")
    return any(start <= first < stop for start, _order, stop, _via in raw + hidden)


def test_the_corpus_is_what_it_says() -> None:
    assert len(ROWS) == 481
    assert len(CREDENTIALS) == 255 and len(NEAR_MISSES) == 226
    assert len({r["id"] for r in ROWS}) == len(ROWS)
    assert all(r["secret"] for r in CREDENTIALS)


def test_credentials_are_caught() -> None:
    missed = {r["id"] for r in CREDENTIALS if not caught(r)}
    assert missed == set(MISSED)
    share = 1 - len(missed) / len(CREDENTIALS)
    assert share >= 1.0  # 255 of 255 (was 254: a secret printed by a command is a rule now)


def test_near_misses_are_not_flagged() -> None:
    flagged = {r["id"] for r in NEAR_MISSES if scan(r["text"])}
    assert flagged == set(FLAGGED)
    assert len(flagged) / len(NEAR_MISSES) <= 0.005  # 1 of 226


@pytest.mark.parametrize("family", sorted({r["family"] for r in CREDENTIALS}))
def test_every_credential_family_is_caught(family: str) -> None:
    rows = [r for r in CREDENTIALS if r["family"] == family]
    missed = [r["id"] for r in rows if not caught(r)]
    assert set(missed) <= set(MISSED), family
    assert len(missed) * 10 <= len(rows), family  # at least 90% of each family


def test_both_tiers_are_used() -> None:
    tiers = Counter(f.tier for r in CREDENTIALS for f in scan(r["text"]))
    assert set(tiers) == {"certain", "likely"}
    assert tiers["likely"] >= 100 and tiers["certain"] >= 100


def test_prose_and_key_value_credentials_are_likely_and_structure_certain() -> None:
    tier_of = {}
    for r in CREDENTIALS:
        for f in scan(r["text"]):
            tier_of.setdefault(r["family"], set()).add(f.tier)
    assert tier_of["prose"] == {"likely"}
    for family in ("netrc", "pgpass", "auth-header-basic", "dotnet-connection-string"):
        assert "certain" in tier_of[family], family


def test_redaction_hides_every_caught_credential() -> None:
    """``redact`` replaces the value, likely or certain: no caught secret is left."""
    for r in CREDENTIALS:
        if r["id"] in MISSED:
            continue
        shown = redact(r["text"])
        assert "[secret: " in shown, r["id"]
        assert r["secret"] not in shown, r["id"]


def test_a_likely_finding_redacts_the_value_only() -> None:
    password = "Zh4ng" + "san-19" + "88x"  # (in pieces: this file, scanned, holds none)
    shown = redact(f"DB_PASSWORD={password}\nthe staging password is {password} - ok")
    assert shown == (
        "DB_PASSWORD=[secret: secret-assignment]\n"
        "the staging password is [secret: password-in-prose] - ok"
    )


PW = "Kq9x" + "Vb2mLp"  # (in pieces: this file, scanned, holds no password)


@pytest.mark.parametrize(
    ("template", "rule_id"),
    [
        ('<add key="SmtpPassword" value="{}" />', "secret-assignment"),
        ("<password>{}</password>", "secret-assignment"),
        ("define('DB_PASSWORD', '{}');", "secret-assignment"),
        ('props.put("password", "{}");', "secret-assignment"),
        ('{{\\"password\\":\\"{}\\"}}', "secret-assignment"),
        ("db_pw = {}", "secret-assignment"),
        ("x-api-key: {}", "secret-assignment"),
        ("la password è {}", "password-in-prose"),
        ("het wachtwoord is {}", "password-in-prose"),
        ("密碼是：{}", "password-in-prose"),
        ('the wifi password is "{}"', "password-in-prose"),
        ("password is: {}", "password-in-prose"),
        ("sqlcmd -S srv -U sa -P {}", "cli-password"),
        ('echo "{}" | sudo -S apt update', "cli-password"),
        ("openssl pkcs12 -passin pass:{}", "cli-password"),
        # forms the second blind corpus showed (written anew here, not copied)
        ('[{{"key": "apiToken", "value": "{}", "enabled": true}}]', "secret-assignment"),
        ('"auth": {{"apikey": [{{"key": "value", "value": "{}"}}]}}', "postman-api-key"),
        (
            'variable "admin_password" {{\n  type = string\n  default = "{}"\n}}',
            "terraform-default",
        ),
        ("WIFI:S:Gästenetz;T:WPA;P:{};H:false;;", "wifi-password"),
        ("snmp read-write community: {}", "secret-directive"),
        ("飞书应用 App Secret：{}，回调已配置", "secret-assignment"),
        ("smtp://relay:{}#1@mail.corp.lan:587", "url-password"),
        ("NAS login: admin / {}", "login-pair"),
        ("Zugangsdaten Router : admin / {}", "login-pair"),
        ("后台账号 root / {}，改完重启", "login-pair"),
        ("Логин deploy, пароль {}", "password-in-prose"),
        ("restic repo passphrase for the backups = {}", "password-in-prose"),
        ("DBPASS={}", "secret-assignment"),
        ("# sshpass: {}", "secret-assignment"),
    ],
)
def test_more_forms_than_the_corpus_has(template: str, rule_id: str) -> None:
    text = template.format(PW)
    (finding,) = scan(text)
    assert finding.rule_id == rule_id
    assert PW not in redact(text)


@pytest.mark.parametrize(
    "text",
    [
        'init.add_argument("--signing-key", metavar="KEY", help="your SSH key")',
        '("slack-bot-token", "base64x")',
        "_CREDENTIALS: tuple[tuple[str, str, str], ...] = (",
        "api_key: SecretStr = Field()",
        "Password manager is 1Password, ask Maria.",
        "[secret: aws-access-token]=x",
        "password, user = get_login()",
        # a public demo key in a URL's query: the value ends at ``&``
        "https://api.nasa.gov/planetary/apod?api_key=DEMO_KEY&count=5&thumbs=false",
    ],
)
def test_code_around_secret_names_is_no_secret(text: str) -> None:
    assert scan(text) == []


SHORT = "to" + "or"  # (in pieces, as PW)


@pytest.mark.parametrize(
    "command",
    [
        "redis-cli -h 10.0.0.7 -a {} ping",
        "sqlcmd -S db01 -U sa -P {} -Q 'select 1'",
        "wget --user=ci --password={} https://dl.example.org/a.tgz",
        "mysql -u root -p{} shop",
    ],
)
def test_a_short_plain_password_on_a_command_line_is_caught(command: str) -> None:
    (finding,) = scan(command.format(SHORT))
    assert finding.rule_id == "cli-password"


@pytest.mark.parametrize(
    "text",
    [
        "pass it with the --password flag, never in a file",
        "mysql -u root -p shop",
        "redis-cli -a $REDIS_PASSWORD ping",
        "curl -u user:pass https://api.example.org/",
        "chmod 600 ~/.aws/credentials ~/.pgpass ~/.netrc",
        "password_hash_algo = argon2id",
        "Server=%DB_HOST%;User Id=%DB_USER%;Password=%DB_PASS%",
        "password = var.db_password",
        "admin_pw = local.generated_admin_pw",
        "密码通过 K8s Secret 注入：secretKeyRef.name=mysql-secret",
        "bypass: 10.0.0.0/8,localhost",
        "sk-...abcd is how the console shows the key",
    ],
)
def test_near_forms_stay_clean(text: str) -> None:
    assert scan(text) == []


def test_an_otp_seed_and_vendor_keys_are_caught() -> None:
    seed = "JBSW" + "Y3DPEHPK3PXQ"  # (in pieces, as PW)
    assert [f.rule_id for f in scan(f"TOTP secret for the ops account: {seed}")] == ["otp-seed"]
    assert [f.rule_id for f in scan("the key: sk-" + "Zp4q" * 12)] == []  # a run, no key
    key = "sk-" + "x4K8Onq6kUK5BmElIBc5Kt694rPncFRduxvLddLV"
    assert [f.rule_id for f in scan(f"我的 key 是 {key}，为什么报 429")] == ["openai-style-api-key"]
    nr = "NRAK-" + "ZYD6GACSSIVKXUWB1B5S2OD20TQ"
    assert [f.rule_id for f in scan(f"New Relic key: {nr}")] == ["new-relic-user-key"]


# ``blind.jsonl`` was written by someone who saw no rule, measured once (248 of 295
# caught, 3 of 253 near misses flagged), then used to tune the rules by the shapes its
# misses show (truncated private keys, webhook keys that are UUIDs, more command-line
# and prose forms, passwords passed to calls, secrets a command printed). Its floors pin
# what they reach now; what it still misses or flags is listed.
BLIND = CORPUS.parent / "blind.jsonl"
BLIND_ROWS = [json.loads(line) for line in BLIND.read_text(encoding="utf-8").splitlines() if line]
BLIND_MISSED = {
    "b-0131": "a password given in the reply to a question on the line before",
    "b-0262": "a wallet's seed phrase",
}
BLIND_FLAGGED = {
    "b-0427": "an AWS access key id alone (a certain vendor rule, as gitleaks has it)",
}


def test_the_blind_corpus_is_caught_and_its_near_misses_clean() -> None:
    credentials = [r for r in BLIND_ROWS if r["label"] == "credential"]
    near = [r for r in BLIND_ROWS if r["label"] == "near-miss"]
    assert (len(credentials), len(near)) == (295, 253)
    missed = {r["id"] for r in credentials if not caught(r)}
    assert missed == set(BLIND_MISSED)
    assert len(missed) <= 5  # 290 of 295 (98.3%); was 248 (84.1%) when measured blind
    flagged = {r["id"] for r in near if scan(r["text"])}
    assert flagged == set(BLIND_FLAGGED)
    assert len(flagged) / len(near) <= 0.004  # 1 of 253; was 3 when measured blind


@pytest.mark.parametrize(
    "family", sorted({r["family"] for r in BLIND_ROWS if r["label"] == "credential"})
)
def test_every_blind_credential_family_is_caught(family: str) -> None:
    rows = [r for r in BLIND_ROWS if r["label"] == "credential" and r["family"] == family]
    missed = [r["id"] for r in rows if not caught(r)]
    assert len(missed) * 9 <= len(rows), family  # at least 8 of 9 of each family


# ``blind2.jsonl`` was written by another person who saw no rule, after the rules above
# were tuned on ``blind.jsonl``, and measured once: 234 of 253 caught (92.5%), 3 of 227
# near misses flagged (1.3%). Then tuned on by the forms its misses show (Postman's
# key/value pairs, short passwords after a command's flag, login / password pairs, a
# Terraform default, Wi-Fi QR text, glued names as ``DBPASS``): all caught, none flagged.
BLIND2_ROWS = [
    json.loads(line)
    for line in (CORPUS.parent / "blind2.jsonl").read_text(encoding="utf-8").splitlines()
    if line
]


def test_the_second_blind_corpus_is_caught_and_its_near_misses_clean() -> None:
    credentials = [r for r in BLIND2_ROWS if r["label"] == "credential"]
    near = [r for r in BLIND2_ROWS if r["label"] == "near-miss"]
    assert (len(credentials), len(near)) == (253, 227)
    assert sum(1 for r in credentials if caught(r)) == 253
    assert sum(1 for r in near if scan(r["text"])) == 0


# ``blind3.jsonl``: a third person, no rule seen, 60 vendors; measured once after the
# tuning on ``blind2.jsonl``: 322 of 349 caught (92.3%), 7 of 278 near misses flagged
# (2.5%). Then tuned on by the forms its misses show (network devices' configurations,
# IPsec PSKs, Okta's SSWS, Tailscale, Mercado Pago, RubyGems, ngrok, typed bindings,
# ``..._SK``, Korean particles, hashes' formats, ciphertexts); what it still misses or
# flags is listed.
BLIND3_MISSED = {
    "c-0285": "recovery codes under a heading, no value form",
    "c-0548": "a device token in Chinese prose with no secret word",
}
BLIND3_FLAGGED = {
    "c-0474": "an AWS access key id alone (a certain vendor rule, as gitleaks has it)",
}
BLIND3_ROWS = [
    json.loads(line)
    for line in (CORPUS.parent / "blind3.jsonl").read_text(encoding="utf-8").splitlines()
    if line
]


# ``blind4.jsonl``: a fourth person, no rule seen; measured once after the tuning on
# ``blind3.jsonl``: 292 of 305 caught (95.7%), 4 of 266 near misses flagged (1.5%); the
# scanner at the start of that session: 283 (92.8%) and 6. Then tuned on (a JSON
# ``Key`` under ``Jwt``, ``authCode``, triple quotes, a password compared in code, BIND's
# TSIG keys, OpenWrt's ``option key``, "is still", Japanese quotes, a SCRAM verifier).
BLIND4_ROWS = [
    json.loads(line)
    for line in (CORPUS.parent / "blind4.jsonl").read_text(encoding="utf-8").splitlines()
    if line
]
BLIND4_MISSED = {
    "c-0285": "a Rails master key printed on the line after its file's name, no command",
}
BLIND4_FLAGGED = {"c-0463": "an AWS access key id alone"}


def test_the_fourth_blind_corpus_is_caught_and_its_near_misses_clean() -> None:
    credentials = [r for r in BLIND4_ROWS if r["label"] == "credential"]
    near = [r for r in BLIND4_ROWS if r["label"] == "near-miss"]
    assert (len(credentials), len(near)) == (305, 266)
    assert {r["id"] for r in credentials if not caught(r)} == set(BLIND4_MISSED)
    assert {r["id"] for r in near if scan(r["text"])} == set(BLIND4_FLAGGED)


def test_the_third_blind_corpus_is_caught_and_its_near_misses_clean() -> None:
    credentials = [r for r in BLIND3_ROWS if r["label"] == "credential"]
    near = [r for r in BLIND3_ROWS if r["label"] == "near-miss"]
    assert (len(credentials), len(near)) == (349, 278)
    assert {r["id"] for r in credentials if not caught(r)} == set(BLIND3_MISSED)
    assert {r["id"] for r in near if scan(r["text"])} == set(BLIND3_FLAGGED)


def _rows(name: str) -> list[dict[str, object]]:
    path = CORPUS.parent / f"{name}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


@pytest.mark.parametrize(
    ("name", "size", "caught_at_least", "flagged_at_most"),
    [
        # a fifth and a sixth person, no rule seen, measured once each after the tuning
        # on the fourth: 304 of 327 (93.0%) and 9 of 271 (3.3%); 287 of 304 (94.4%) and
        # 4 of 263 (1.5%). Then tuned on (mail clients' and Postfix's files, SQL, JSON
        # patches, Composer, wallets, B2, IFTTT, podman, ciphertexts' and published
        # samples' forms, prose in French and Portuguese): floors from there.
        ("blind5", (327, 271), 319, 3),
        ("blind6", (304, 263), 294, 3),
        # a seventh, written while the sixth was tuned on, measured once after: 286 of
        # 296 (96.6%), 4 of 268 (1.5%). Then tuned on (a BitLocker key, a seed phrase, a
        # PIN, PPP's and OpenVPN's files, a bare ``pass`` word on a command line, a
        # vendor's base64 Authorization header, an app password and a passphrase in
        # prose, ``#{...}``, base64 of settings): floors from there.
        ("blind7", (296, 268), 296, 2),
        # an eighth, ninth and tenth, written while the seventh was tuned on, measured once
        # each after it: 250 of 271 (92.3%) and 5 of 222 (2.3%); 268 of 276 (97.1%) and 7
        # of 262 (2.7%); 236 of 252 (93.7%) and 1 of 224 (0.4%). Then tuned on (Cisco's
        # and keepalived's keys, LDAP's, az's, openssl's and here-string passwords, a
        # password holding ``@`` in a URL, a DSN without its protocol, a literal's prefix,
        # PowerShell's ``$env:``, SNMP communities, PSKs, backup codes, chpasswd and
        # rsync's secrets, Square, Chinese and English "reset to", a negated name, an
        # anonymous JWT, templates and ``${X:?}``): floors from there.
        ("blind8", (271, 222), 267, 1),
        ("blind9", (276, 262), 275, 2),
        ("blind10", (252, 224), 251, 1),
        # an eleventh and a twelfth, written while the eighth to tenth were tuned on,
        # measured once after: 270 of 284 (95.1%) and 2 of 232 (0.9%); 256 of 268 (95.5%)
        # and 1 of 228 (0.4%). Then tuned on (a YAML tag's, an alias's and a TODO's forms
        # told from a value's start, a sequence in a longer password, a word as Basic's
        # password, a key in another script, "mdp", "jetzt", "поменял на", a password in
        # brackets, a generated token after "secret"/"token"/"key" in prose, a webhook
        # path's token, Discord's bot token, mosquitto's -P, a secret found once found
        # again wherever it is repeated): floors from there.
        ("blind11", (284, 232), 281, 2),
        ("blind12", (268, 228), 266, 1),
        # a thirteenth (pastes into a chat: logs, CI output, source, devices' notes) and a
        # fourteenth (the long tail: brokers, mail, VPN and Wi-Fi files, password managers'
        # exports, obscured passwords), written while the eleventh and twelfth were tuned
        # on, measured once after: 334 of 355 (94.1%) and 4 of 283 (1.4%); 377 of 433
        # (87.1%) and 6 of 362 (1.7%); never tuned on. (Then the rule that caught a
        # generated value after "secret", "token" or "key" was narrowed to the name and its
        # mark together, for the scanner's speed: 333 and 375 caught since. Then the
        # fourteenth was read: password managers' exports and tables with a password
        # column, XML password elements, netsh's Key Content: 387 of 433.)
        ("blind13", (355, 283), 337, 4),
        ("blind14", (433, 362), 388, 6),
        # a fifteenth (people who are no engineers telling an assistant their accounts,
        # in many languages and registers) and a sixteenth (what a coding agent sees:
        # project notes, terminal output, app configs, game servers, code in many
        # languages), measured once as they came in: 300 of 380 (78.9%) and 3 of 308
        # (1.0%); 308 of 332 (92.8%) and 6 of 268 (2.2%). (Then the fifteenth was read: a
        # shorthand and its mark, "pass is", "login is"; « », „ “ quotes; a value right
        # after 密码: 314 of 380. Then the sixteenth: a secret given to a call named for it,
        # an app's plist or manifest key naming a secret: 319 of 332, 337 of 355.)
        ("blind15", (380, 308), 314, 3),
        ("blind16", (332, 268), 319, 6),
    ],
)
def test_the_unseen_corpora_stay_at_their_first_measure_or_better(
    name: str, size: tuple[int, int], caught_at_least: int, flagged_at_most: int
) -> None:
    rows = _rows(name)
    credentials = [r for r in rows if r["label"] == "credential"]
    near = [r for r in rows if r["label"] == "near-miss"]
    assert (len(credentials), len(near)) == size
    assert sum(1 for r in credentials if caught(r)) >= caught_at_least
    assert sum(1 for r in near if scan(str(r["text"]))) <= flagged_at_most
