"""Tests for core.domain.secrets: every rule finds a fake token and ignores its near-misses.

No complete token is written in this file: every one is a rule's prefix plus a
body drawn at test time from a seeded ``random.Random``, so the repository
never holds a string that a secret scanner (ours or gitleaks) would flag.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import random
import string
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from core.domain.secrets import RULES, Finding, Rule, is_clean, scan, shannon_entropy

ROOT = Path(__file__).resolve().parents[2]

UPPER = string.ascii_uppercase
LOWER = string.ascii_lowercase
DIGITS = string.digits
LETTERS = string.ascii_letters
ALNUM = LETTERS + DIGITS
HEX = "0123456789abcdef"
URLSAFE = ALNUM + "_-"
BASE32 = UPPER + "234567"
BECH32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"


def body(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def rng_for(name: str) -> random.Random:
    return random.Random(zlib.crc32(name.encode()))


def pem(rng: random.Random, kind: str = "RSA PRIVATE KEY", lines: int = 6) -> str:
    raw = base64.b64encode(rng.randbytes(48 * lines)).decode()
    middle = "\n".join(raw[i : i + 64] for i in range(0, len(raw), 64))
    return "-----" + "BEGIN " + kind + "-----\n" + middle + "\n-----" + "END " + kind + "-----"


Maker = Callable[[random.Random], str]

# One fake token per rule, prefix + random body in the rule's alphabet.
FAKE: dict[str, Maker] = {
    "aws-access-token": lambda r: "AKIA" + body(r, BASE32, 16),
    "github-pat": lambda r: "ghp_" + body(r, ALNUM, 36),
    "github-oauth": lambda r: "gho_" + body(r, ALNUM, 36),
    "github-app-token": lambda r: "ghs_" + body(r, ALNUM, 36),
    "github-refresh-token": lambda r: "ghr_" + body(r, ALNUM, 36),
    "github-fine-grained-pat": lambda r: (
        "github_pat_" + body(r, ALNUM, 22) + "_" + body(r, ALNUM, 59)
    ),
    "gitlab-pat-routable": lambda r: (
        "glpat-" + body(r, URLSAFE, 36) + "." + body(r, LOWER + DIGITS, 9)
    ),
    "gitlab-pat": lambda r: "glpat-" + body(r, URLSAFE, 20),
    "gitlab-ptt": lambda r: "glptt-" + body(r, HEX, 40),
    "gitlab-runner-authentication-token": lambda r: "glrt-" + body(r, URLSAFE, 20),
    "slack-bot-token": lambda r: (
        "xoxb-" + body(r, DIGITS, 11) + "-" + body(r, DIGITS, 12) + "-" + body(r, ALNUM, 24)
    ),
    "slack-legacy-bot-token": lambda r: "xoxb-" + body(r, DIGITS, 12) + "-" + body(r, ALNUM, 24),
    "slack-user-token": lambda r: (
        "xoxp-" + "-".join(body(r, DIGITS, 12) for _ in range(3)) + "-" + body(r, HEX, 32)
    ),
    "slack-app-token": lambda r: (
        "xapp-1-A"
        + body(r, UPPER + DIGITS, 10)
        + "-"
        + body(r, DIGITS, 13)
        + "-"
        + body(r, HEX, 64)
    ),
    "slack-webhook-url": lambda r: (
        "https://hooks.slack.com/services/T"
        + body(r, UPPER + DIGITS, 8)
        + "/B"
        + body(r, UPPER + DIGITS, 10)
        + "/"
        + body(r, ALNUM, 24)
    ),
    "stripe-access-token": lambda r: "sk_" + "live_" + body(r, ALNUM, 24),
    "gcp-api-key": lambda r: "AIza" + body(r, URLSAFE, 35),
    "openai-api-key": lambda r: (
        "sk-proj-" + body(r, URLSAFE, 74) + "T3BlbkFJ" + body(r, URLSAFE, 73) + body(r, ALNUM, 1)
    ),
    "anthropic-api-key": lambda r: "sk-ant-api03-" + body(r, URLSAFE, 93) + "AA",
    "anthropic-admin-api-key": lambda r: "sk-ant-admin01-" + body(r, URLSAFE, 93) + "AA",
    "huggingface-access-token": lambda r: "hf_" + body(r, LETTERS, 34),
    "huggingface-organization-api-token": lambda r: "api_org_" + body(r, LETTERS, 34),
    "npm-access-token": lambda r: "npm_" + body(r, ALNUM, 36),
    "pypi-upload-token": lambda r: "pypi-AgEIcHlwaS5vcmc" + body(r, URLSAFE, 70),
    "private-key": pem,
    "sendgrid-api-token": lambda r: "SG." + body(r, URLSAFE, 22) + "." + body(r, URLSAFE, 43),
    "shopify-access-token": lambda r: "shpat_" + body(r, HEX, 32),
    "shopify-custom-access-token": lambda r: "shpca_" + body(r, HEX, 32),
    "shopify-private-app-access-token": lambda r: "shppa_" + body(r, HEX, 32),
    "shopify-shared-secret": lambda r: "shpss_" + body(r, HEX, 32),
    "digitalocean-pat": lambda r: "dop_v1_" + body(r, HEX, 64),
    "digitalocean-access-token": lambda r: "doo_v1_" + body(r, HEX, 64),
    "age-secret-key": lambda r: "AGE-SECRET-KEY-1" + body(r, BECH32, 58),
    "databricks-api-token": lambda r: "dapi" + body(r, HEX, 32),
    "vault-service-token": lambda r: "hvs." + body(r, URLSAFE, 95),
    "vault-batch-token": lambda r: "hvb." + body(r, URLSAFE, 150),
    "hashicorp-tf-api-token": lambda r: body(r, ALNUM, 14) + ".atlasv1." + body(r, URLSAFE, 65),
    "grafana-api-key": lambda r: "eyJrIjoi" + body(r, ALNUM, 80),
    "grafana-cloud-api-token": lambda r: "glc_" + body(r, ALNUM + "+/", 60) + "=",
    "grafana-service-account-token": lambda r: "glsa_" + body(r, ALNUM, 32) + "_" + body(r, HEX, 8),
    "linear-api-key": lambda r: "lin_api_" + body(r, ALNUM, 40),
    "doppler-api-token": lambda r: "dp.pt." + body(r, ALNUM, 43),
    "pulumi-api-token": lambda r: "pul-" + body(r, HEX, 40),
    "postman-api-token": lambda r: "PMAK-" + body(r, HEX, 24) + "-" + body(r, HEX, 34),
    "perplexity-api-key": lambda r: "pplx-" + body(r, ALNUM, 48),
    "jwt": lambda r: (
        "eyJ" + body(r, ALNUM, 30) + ".eyJ" + body(r, ALNUM, 60) + "." + body(r, URLSAFE, 43)
    ),
    # the secret is the password alone: it starts after the scheme and the user
    "url-password": lambda r: URL_USER + body(r, ALNUM, 20) + "@db.example.org:5432/app",
    # more vendor prefixes, and structure that can be nothing but a credential
    "groq-api-key": lambda r: "gsk_" + body(r, ALNUM, 52),
    "sentry-user-token": lambda r: "sntryu_" + body(r, HEX, 64),
    "doppler-service-token": lambda r: "dp.st.prd." + body(r, ALNUM, 43),
    "replicate-api-token": lambda r: "r8_" + body(r, ALNUM, 37),
    "atlassian-api-token": lambda r: "ATATT3" + body(r, URLSAFE, 186),
    "google-oauth-client-secret": lambda r: "GOCSPX-" + body(r, URLSAFE, 28),
    "mailgun-api-key": lambda r: "key-" + body(r, HEX, 32),
    "chat-webhook-url": lambda r: AT["chat-webhook-url"] + body(r, URLSAFE, 68),
    "otpauth-secret": lambda r: AT["otpauth-secret"] + body(r, BASE32, 32) + "&issuer=Acme",
    "dsn-password": lambda r: AT["dsn-password"] + body(r, ALNUM, 18) + "@tcp(10.0.0.9:3306)/shop'",
    "basic-auth": lambda r: AT["basic-auth"] + b64("svc:" + body(r, ALNUM, 18)),
    "docker-auth": lambda r: AT["docker-auth"] + b64("ci:" + body(r, ALNUM, 20)) + '"}',
    "bearer-token": lambda r: AT["bearer-token"] + body(r, ALNUM, 40),
    "connection-string-password": lambda r: AT["connection-string-password"] + body(r, ALNUM, 16),
    "netrc-password": lambda r: AT["netrc-password"] + body(r, ALNUM, 20),
    "pgpass-password": lambda r: AT["pgpass-password"] + body(r, ALNUM, 20),
    "cli-password": lambda r: AT["cli-password"] + body(r, ALNUM, 16),
    # the likely tier: a secret's name or a password word, and a value like a secret's
    "secret-assignment": lambda r: AT["secret-assignment"] + body(r, ALNUM, 20),
    "password-in-prose": lambda r: AT["password-in-prose"] + body(r, ALNUM, 15) + "7",
    "secret-directive": lambda r: AT["secret-directive"] + body(r, ALNUM, 20),
    "shell-set-secret": lambda r: AT["shell-set-secret"] + body(r, ALNUM, 24),
    "session-cookie": lambda r: AT["session-cookie"] + body(r, ALNUM, 32),
    "aws-secret-key-pair": lambda r: (
        "AKIA" + body(r, BASE32, 9) + "EXAMPLE / " + body(r, ALNUM + "/+", 40)
    ),
    "url-signature": lambda r: AT["url-signature"] + body(r, URLSAFE, 43),
    "cli-secret-flag": lambda r: AT["cli-secret-flag"] + body(r, ALNUM, 40),
    "login-pair": lambda r: AT["login-pair"] + body(r, ALNUM, 14) + "-9",
    "telegram-bot-token": lambda r: (
        AT["telegram-bot-token"] + "57062" + "09187:AA" + body(r, URLSAFE, 33)
    ),
    "printed-secret": lambda r: AT["printed-secret"] + body(r, ALNUM, 24),
    "call-password-argument": lambda r: AT["call-password-argument"] + body(r, ALNUM, 14) + '!")',
    "password-field-input": lambda r: AT["password-field-input"] + body(r, ALNUM, 14) + '!")',
    "docker-pat": lambda r: "dckr_pat_" + body(r, ALNUM, 27),
    "new-relic-user-key": lambda r: "NRAK-" + body(r, UPPER + DIGITS, 27),
    "new-relic-insert-key": lambda r: "NRII-" + body(r, URLSAFE, 32),
    "openai-style-api-key": lambda r: "sk-" + body(r, ALNUM, 48),
    "wifi-password": lambda r: AT["wifi-password"] + body(r, ALNUM, 16) + ";;",
    "terraform-default": lambda r: AT["terraform-default"] + body(r, ALNUM, 20) + '" }',
    "otp-seed": lambda r: AT["otp-seed"] + body(r, BASE32, 30) + "7Q",
    "postman-api-key": lambda r: AT["postman-api-key"] + body(r, ALNUM, 32) + '"}]',
    "tailscale-key": lambda r: "tskey-auth-" + body(r, ALNUM, 12) + "-" + body(r, ALNUM, 40),
    "mercadopago-access-token": lambda r: (
        "APP_USR-"
        + body(r, DIGITS, 16)
        + "-"
        + body(r, DIGITS, 6)
        + "-"
        + body(r, HEX, 32)
        + "-"
        + body(r, DIGITS, 9)
    ),
    "rubygems-api-token": lambda r: "rubygems_" + body(r, HEX, 48),
    "okta-api-token": lambda r: AT["okta-api-token"] + body(r, URLSAFE, 42),
    "ipsec-psk": lambda r: AT["ipsec-psk"] + body(r, ALNUM, 16) + '"',
    "command-token": lambda r: AT["command-token"] + body(r, ALNUM, 40),
    "device-password": lambda r: AT["device-password"] + body(r, ALNUM, 14) + "$",
    "password-comparison": lambda r: AT["password-comparison"] + body(r, ALNUM, 12) + '!")',
    "tsig-key-secret": lambda r: AT["tsig-key-secret"] + b64(body(r, ALNUM, 32)) + '";',
    "uci-secret": lambda r: AT["uci-secret"] + body(r, ALNUM, 18) + "'",
    "backblaze-application-key": lambda r: "K005" + body(r, ALNUM, 27),
    "config-password-line": lambda r: (
        AT["config-password-line"] + " ".join(body(r, LOWER, 4) for _ in range(4))
    ),
    "sql-password": lambda r: AT["sql-password"] + body(r, ALNUM, 14) + "!';",
    "kubernetes-patch-secret": lambda r: AT["kubernetes-patch-secret"] + b64(body(r, ALNUM, 16)),
    "composer-auth": lambda r: AT["composer-auth"] + body(r, HEX, 40) + '"}}',
    "postfix-sasl-password": lambda r: AT["postfix-sasl-password"] + body(r, ALNUM, 14),
    "wallet-private-key": lambda r: AT["wallet-private-key"] + "0x" + body(r, HEX, 64) + "']",
    "recovery-key": lambda r: AT["recovery-key"] + "-".join(body(r, DIGITS, 6) for _ in range(8)),
    "seed-phrase": lambda r: AT["seed-phrase"] + " ".join(body(r, LOWER, 5) for _ in range(12)),
    "pin-code": lambda r: AT["pin-code"] + "730518",
    "command-word-password": lambda r: AT["command-word-password"] + body(r, ALNUM, 15) + "7",
    "ppp-secret": lambda r: AT["ppp-secret"] + body(r, ALNUM, 13) + '7"  *',
    "auth-file-password": lambda r: AT["auth-file-password"] + body(r, ALNUM, 13) + "7",
    "user-password-line": lambda r: AT["user-password-line"] + body(r, ALNUM, 13) + "7",
    "backup-codes": lambda r: AT["backup-codes"] + "73051862 " + body(r, DIGITS, 8),
    "admin-password-pair": lambda r: AT["admin-password-pair"] + body(r, ALNUM, 13) + "7!",
    "webhook-path-token": lambda r: AT["webhook-path-token"] + body(r, ALNUM, 40) + "7Qa",
    "discord-bot-token": lambda r: (
        AT["discord-bot-token"]
        + "MTA"
        + body(r, ALNUM, 21)
        + "."
        + body(r, URLSAFE, 6)
        + "."
        + body(r, URLSAFE, 34)
        + "7Qa"
    ),
    "token-in-prose": lambda r: AT["token-in-prose"] + body(r, ALNUM, 30) + "7Qa",
    "table-password-column": lambda r: AT["table-password-column"] + body(r, ALNUM, 13) + "7!",
    "xml-password-element": lambda r: AT["xml-password-element"] + body(r, ALNUM, 13) + "7</Pass>",
    "named-secret-element": lambda r: (
        AT["named-secret-element"] + body(r, ALNUM, 22) + "7</string>"
    ),
    "secret-setter-call": lambda r: AT["secret-setter-call"] + body(r, ALNUM, 15) + '7")',
    "wifi-key-content": lambda r: AT["wifi-key-content"] + body(r, ALNUM, 12) + "7",
    "square-access-token": lambda r: "EAAA" + body(r, ALNUM, 56),
    "square-secret": lambda r: "sq0csp-" + body(r, ALNUM, 43),
}
URL_USER = "postgres://app:"
#: what comes before the secret in a rule's fake token
AT = {
    "url-password": URL_USER,
    "chat-webhook-url": "https://discord.com/api/webhooks/957661049170346988/",
    "otpauth-secret": "otpauth://totp/Acme:ops?secret=",
    "dsn-password": "'app:",
    "basic-auth": "Authorization: Basic ",
    "docker-auth": '{"auth": "',
    "bearer-token": "Authorization: Bearer ",
    "connection-string-password": "Server=db;User Id=app;Password=",
    "netrc-password": "machine db.example.org login app password ",
    "pgpass-password": "db.example.org:5432:app:app:",
    "cli-password": "sshpass -p ",
    "secret-assignment": "DB_PASSWORD=",
    "password-in-prose": "passwort lautet ",
    "secret-directive": "requirepass ",
    "shell-set-secret": "set -x API_TOKEN ",
    "session-cookie": "Cookie: sessionid=",
    "aws-secret-key-pair": "AKIA" + "A" * 9 + "EXAMPLE / ",
    "url-signature": "https://acct.blob.core.windows.net/c/f?sv=2022-11-02&sig=",
    "cli-secret-flag": "--token ",
    "login-pair": "login is admin / ",
    "telegram-bot-token": "TeleBot(",
    "printed-secret": "$ cat config/master.key\n",
    "call-password-argument": 'new FtpClient("ftp.example.org", "acme", "',
    "password-field-input": 'find(By.id("password")).sendKeys("',
    "wifi-password": "WIFI:T:WPA;S:Home;" + "P:",
    "terraform-default": 'variable "db_password" { default = "',
    "otp-seed": "TOTP seed: ",
    "postman-api-key": '"apikey": [{"key": "value", "value": "',
    "okta-api-token": "Authorization: SSWS ",
    "ipsec-psk": '203.0.113.10 %any : PSK "',
    "command-token": "ngrok config add-authtoken ",
    "device-password": "username admin privilege 15 password 0 ",
    "password-comparison": 'if (password.equals("',
    "tsig-key-secret": 'algorithm hmac-sha256; secret "',
    "uci-secret": "option key '",
    "config-password-line": "password ",
    "sql-password": "CREATE USER 'wp'@'%' IDENTIFIED BY '",
    "kubernetes-patch-secret": "path: /data/admin-password\nvalue: ",
    "composer-auth": '{"github-oauth": {"github.com": "',
    "postfix-sasl-password": "[smtp.example.org]:587 alerts@example.org:",
    "wallet-private-key": "accounts: ['",
    "recovery-key": "BitLocker recovery key: ",
    "seed-phrase": "seed phrase: ",
    "pin-code": "my PIN is ",
    "command-word-password": "rclone config create nas sftp user kids pass ",
    "ppp-secret": '# /etc/ppp/chap-secrets\n"dialup"  *  "',
    "auth-file-password": "# auth.txt\nmarta\n",
    "user-password-line": "# /etc/rsyncd.secrets\nnasbackup:",
    "backup-codes": "Backup codes for the admin account: ",
    "admin-password-pair": "WordPress: admin / ",
    "webhook-path-token": "https://ha.example-home.net/api/webhook/",
    "discord-bot-token": 'bot.run("',
    "token-in-prose": "the vercel token is ",
    "table-password-column": "name,url,username,password\nNetflix,https://n.example,fam@example.org,",
    "xml-password-element": '<Pass encoding="base64">',
    "named-secret-element": "<key>BackendSharedSecret</key><string>",
    "secret-setter-call": '.username("svc").password("',
    "wifi-key-content": "    Key Content            : ",
}
#: where the secret starts in a rule's fake token, when not at its first character
SECRET_AT = {rule_id: len(before) for rule_id, before in AT.items()}


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


# Other shapes a rule covers: (rule id, maker).
VARIANTS: list[tuple[str, Maker]] = [
    ("aws-access-token", lambda r: "ASIA" + body(r, BASE32, 16)),
    ("aws-access-token", lambda r: "ABIA" + body(r, BASE32, 16)),
    ("aws-access-token", lambda r: "A3TX" + body(r, BASE32, 16)),
    ("github-app-token", lambda r: "ghu_" + body(r, ALNUM, 36)),
    (
        "slack-user-token",
        lambda r: (
            "xoxe-" + "-".join(body(r, DIGITS, 10) for _ in range(3)) + "-" + body(r, ALNUM, 30)
        ),
    ),
    (
        "slack-webhook-url",
        lambda r: (
            "hooks.slack.com/workflows/T"
            + body(r, UPPER + DIGITS, 8)
            + "/A"
            + body(r, UPPER + DIGITS, 10)
            + "/"
            + body(r, DIGITS, 9)
            + "/"
            + body(r, ALNUM, 24)
        ),
    ),
    ("stripe-access-token", lambda r: "rk_" + "prod_" + body(r, ALNUM, 60)),
    ("openai-api-key", lambda r: "sk-" + body(r, ALNUM, 20) + "T3BlbkFJ" + body(r, ALNUM, 20)),
    (
        "openai-api-key",
        lambda r: "sk-svcacct-" + body(r, URLSAFE, 58) + "T3BlbkFJ" + body(r, URLSAFE, 57) + "A",
    ),
    ("npm-access-token", lambda r: "NPM_" + body(r, ALNUM, 36)),  # gitleaks: (?i)
    ("private-key", lambda r: pem(r, "OPENSSH PRIVATE KEY")),
    ("private-key", lambda r: pem(r, "EC PRIVATE KEY", lines=3)),
    ("private-key", lambda r: pem(r, "PGP PRIVATE KEY BLOCK")),
    ("private-key", lambda r: pem(r, "ENCRYPTED PRIVATE KEY")),
    ("databricks-api-token", lambda r: "dapi" + body(r, HEX, 32) + "-2"),
    ("vault-service-token", lambda r: "s." + body(r, DIGITS, 2) + body(r, ALNUM, 22)),
    ("grafana-cloud-api-token", lambda r: "GLC_" + body(r, ALNUM, 40)),  # gitleaks: (?i)
]

# Near-misses that must stay clean: (rule id, why, maker).
NEAR_MISSES: list[tuple[str, str, Maker]] = [
    (
        "call-password-argument",
        "a client's data",
        lambda r: 'client.get("acme", "v4lue-' + body(r, ALNUM, 8) + '")',
    ),
    (
        "password-field-input",
        "no password field",
        lambda r: 'find(By.id("name")).sendKeys("Ab' + body(r, ALNUM, 8) + '1")',
    ),
    ("printed-secret", "a listing", lambda r: "$ cat config/master.key\nNo such file or directory"),
    (
        "telegram-bot-token",
        "too short",
        lambda r: "TeleBot(57062" + "09187:AA" + body(r, ALNUM, 30),
    ),
    ("docker-pat", "too short", lambda r: "dckr_pat_" + body(r, ALNUM, 20)),
    ("url-password", "a plain word", lambda r: "postgres://app:password@db.example.org/app"),
    # (six characters are enough now: "hunter2" in a URL is a password)
    ("url-password", "too short", lambda r: "redis://:" + body(r, ALNUM, 5) + "@cache:6379"),
    ("groq-api-key", "too short", lambda r: "gsk_" + body(r, ALNUM, 51)),
    ("sentry-user-token", "not hex", lambda r: "sntryu_" + body(r, UPPER, 64)),
    ("doppler-service-token", "too short", lambda r: "dp.st." + body(r, ALNUM, 30)),
    ("replicate-api-token", "too short", lambda r: "r8_" + body(r, ALNUM, 36)),
    ("atlassian-api-token", "too short", lambda r: "ATATT3" + body(r, ALNUM, 100)),
    ("google-oauth-client-secret", "too short", lambda r: "GOCSPX-" + body(r, ALNUM, 27)),
    ("mailgun-api-key", "not hex", lambda r: "key-" + body(r, UPPER, 32)),
    ("chat-webhook-url", "a template", lambda r: AT["chat-webhook-url"] + "{{ webhook_token }}"),
    ("otpauth-secret", "no secret", lambda r: "otpauth://totp/Acme:ops?issuer=Acme"),
    ("dsn-password", "a format string", lambda r: "'%s:%s@tcp(%s:3306)/%s'"),
    ("basic-auth", "user:password", lambda r: AT["basic-auth"] + b64("username:password")),
    ("basic-auth", "no colon", lambda r: AT["basic-auth"] + b64(body(r, ALNUM, 20))),
    ("docker-auth", "not user:pass", lambda r: AT["docker-auth"] + b64(body(r, ALNUM, 20)) + '"'),
    ("bearer-token", "a placeholder", lambda r: AT["bearer-token"] + "YOUR_ACCESS_TOKEN"),
    ("bearer-token", "masked", lambda r: AT["bearer-token"] + "ey...[truncated]"),
    ("connection-string-password", "docs", lambda r: "Server=s;User Id=u;Password=myPassword;"),
    ("connection-string-password", "format", lambda r: "Server={0};Password={1};"),
    ("netrc-password", "a template", lambda r: "machine example.com login USER password PASSWORD"),
    ("pgpass-password", "the format", lambda r: "hostname:port:database:username:password"),
    ("cli-password", "a reference", lambda r: 'mysql -u "$DB_USER" -p"$DB_PASS" shop'),
    ("cli-password", "from stdin", lambda r: "cat pw.txt | docker login -u ci --password-stdin"),
    ("secret-assignment", "a setting", lambda r: "password_min_length: " + body(r, DIGITS, 2)),
    ("secret-assignment", "a reference", lambda r: "DB_PASSWORD=${CI_DB_PASSWORD}"),
    ("secret-assignment", "code", lambda r: 'password = os.environ["DB_PASSWORD"]'),
    ("secret-assignment", "a hash", lambda r: "password_sha256 = " + body(r, HEX, 64)),
    ("secret-assignment", "bcrypt", lambda r: 'password: "$2b$12$' + body(r, ALNUM, 53) + '"'),
    ("secret-assignment", "a uuid", lambda r: "api_key: 31d3be80-5062-4713-96a2-2c66dea2eeb6"),
    ("secret-assignment", "a path", lambda r: "GOOGLE_APPLICATION_CREDENTIALS=/var/key.json"),
    ("secret-assignment", "a word", lambda r: "password: required"),
    ("secret-assignment", "masked", lambda r: "STRIPE_SECRET_KEY=sk_live_****" + "hT2m"),
    ("secret-assignment", "public", lambda r: "NEXT_PUBLIC_MAPBOX_TOKEN=pk." + body(r, ALNUM, 40)),
    ("password-in-prose", "policy", lambda r: "The password is stored in 1Password, ask Maria."),
    ("password-in-prose", "no value", lambda r: "Passwords must be at least 12 characters long."),
    ("secret-directive", "a word", lambda r: "requirepass foobared"),
    ("shell-set-secret", "not a secret", lambda r: "set -x EDITOR " + body(r, ALNUM, 20)),
    ("session-cookie", "masked", lambda r: "Cookie: sessionid=********"),
    ("aws-secret-key-pair", "an example", lambda r: AT["aws-secret-key-pair"] + "X" * 40),
    ("url-signature", "a template", lambda r: "https://a.example/x?sig={{ sas_signature }}"),
    ("cli-secret-flag", "a reference", lambda r: "kubectl --token=$KUBE_TOKEN get pods"),
    ("login-pair", "a word", lambda r: "login is admin / password"),
    ("url-password", "no password", lambda r: "ssh://git@github.com:22/" + body(r, ALNUM, 20)),
    ("url-password", "not a URL", lambda r: "user:" + body(r, ALNUM, 20) + "@example.org"),
    ("aws-access-token", "too short", lambda r: "AKIA" + body(r, BASE32, 15)),
    ("aws-access-token", "lowercase", lambda r: "akia" + body(r, BASE32.lower(), 16)),
    ("aws-access-token", "inside a word", lambda r: "X" + "AKIA" + body(r, BASE32, 16)),
    ("aws-access-token", "low entropy", lambda r: "AKIA" + "AB" * 8),
    ("github-pat", "too short", lambda r: "ghp_" + body(r, ALNUM, 35)),
    ("github-pat", "wrong case", lambda r: "GHP_" + body(r, ALNUM, 36)),
    ("github-oauth", "too short", lambda r: "gho_" + body(r, ALNUM, 35)),
    ("github-app-token", "too short", lambda r: "ghs_" + body(r, ALNUM, 35)),
    ("github-refresh-token", "too short", lambda r: "ghr_" + body(r, ALNUM, 35)),
    ("github-fine-grained-pat", "too short", lambda r: "github_pat_" + body(r, ALNUM, 81)),
    (
        "gitlab-pat-routable",
        "too short for either gitlab rule",
        lambda r: "glpat-" + body(r, ALNUM, 19) + "." + body(r, LOWER, 9),
    ),
    ("gitlab-pat", "too short", lambda r: "glpat-" + body(r, URLSAFE, 19)),
    ("gitlab-ptt", "uppercase hex", lambda r: "glptt-" + body(r, "ABCDEF", 40)),
    ("gitlab-runner-authentication-token", "too short", lambda r: "glrt-" + body(r, ALNUM, 19)),
    (
        "slack-bot-token",
        "short team id",
        lambda r: (
            "xoxb-" + body(r, DIGITS, 9) + "-" + body(r, DIGITS, 12) + "-" + body(r, ALNUM, 24)
        ),
    ),
    (
        "slack-legacy-bot-token",
        "short secret",
        lambda r: "xoxb-" + body(r, DIGITS, 12) + "-" + body(r, ALNUM, 17),
    ),
    (
        "slack-user-token",
        "two number groups",
        lambda r: (
            "xoxp-" + body(r, DIGITS, 12) + "-" + body(r, DIGITS, 12) + "-" + body(r, LETTERS, 32)
        ),
    ),
    (
        "slack-app-token",
        "no version digit",
        lambda r: (
            "xapp-A-" + body(r, UPPER, 10) + "-" + body(r, DIGITS, 13) + "-" + body(r, HEX, 64)
        ),
    ),
    (
        "slack-webhook-url",
        "path too short",
        lambda r: (
            "https://hooks.slack.com/services/T"
            + body(r, UPPER, 8)
            + "/B"
            + body(r, UPPER, 8)
            + "/"
            + body(r, ALNUM, 10)
        ),
    ),
    (
        "slack-webhook-url",
        "documented placeholder",
        lambda r: "https://hooks.slack.com/services/T00000000/B00000000/" + "X" * 24,
    ),
    ("stripe-access-token", "test key", lambda r: "sk_" + "test_" + body(r, ALNUM, 24)),
    ("stripe-access-token", "too short", lambda r: "sk_" + "live_" + body(r, ALNUM, 9)),
    ("gcp-api-key", "too short", lambda r: "AIza" + body(r, ALNUM, 34)),
    ("gcp-api-key", "wrong case", lambda r: "AIZA" + body(r, UPPER, 35)),
    ("openai-api-key", "no T3BlbkFJ", lambda r: "sk-proj-" + body(r, LOWER, 156)),
    (
        "openai-api-key",
        "legacy too short",
        lambda r: "sk-" + body(r, ALNUM, 19) + "T3BlbkFJ",
    ),
    ("anthropic-api-key", "wrong suffix", lambda r: "sk-ant-api03-" + body(r, URLSAFE, 93) + "BB"),
    ("anthropic-api-key", "too short", lambda r: "sk-ant-api03-" + body(r, URLSAFE, 60) + "AA"),
    (
        "anthropic-admin-api-key",
        "wrong suffix",
        lambda r: "sk-ant-admin01-" + body(r, URLSAFE, 93) + "BB",
    ),
    ("huggingface-access-token", "digits in body", lambda r: "hf_" + body(r, DIGITS, 34)),
    ("huggingface-access-token", "too short", lambda r: "hf_" + body(r, LETTERS, 33)),
    (
        "huggingface-organization-api-token",
        "too short",
        lambda r: "api_org_" + body(r, LETTERS, 33),
    ),
    ("npm-access-token", "too short", lambda r: "npm_" + body(r, ALNUM, 35)),
    ("pypi-upload-token", "too short", lambda r: "pypi-AgEIcHlwaS5vcmc" + body(r, URLSAFE, 49)),
    (
        "private-key",
        "body too short",
        lambda r: "-----" + "BEGIN PRIVATE KEY-----\nanything\n-----" + "END PRIVATE KEY-----",
    ),
    ("private-key", "public key", lambda r: pem(r, "PUBLIC KEY")),
    ("private-key", "certificate", lambda r: pem(r, "CERTIFICATE")),
    ("sendgrid-api-token", "too short", lambda r: "SG." + body(r, ALNUM, 65)),
    ("shopify-access-token", "not hex", lambda r: "shpat_" + body(r, "ghijklmnopqrstuvwxyz", 32)),
    ("shopify-custom-access-token", "too short", lambda r: "shpca_" + body(r, HEX, 31)),
    ("shopify-private-app-access-token", "too short", lambda r: "shppa_" + body(r, HEX, 31)),
    ("shopify-shared-secret", "too short", lambda r: "shpss_" + body(r, HEX, 31)),
    ("digitalocean-pat", "too short", lambda r: "dop_v1_" + body(r, HEX, 63)),
    ("digitalocean-pat", "uppercase hex", lambda r: "dop_v1_" + body(r, "ABCDEF", 64)),
    ("digitalocean-access-token", "too long", lambda r: "doo_v1_" + body(r, HEX, 65)),
    ("age-secret-key", "too short", lambda r: "AGE-SECRET-KEY-1" + body(r, BECH32, 57)),
    ("age-secret-key", "lowercase", lambda r: "age-secret-key-1" + body(r, BECH32.lower(), 58)),
    ("databricks-api-token", "too short", lambda r: "dapi" + body(r, HEX, 31)),
    (
        "vault-service-token",
        "letters only (an identifier)",
        lambda r: "s." + "AcceptanceTimeoutSeconds",
    ),
    ("vault-service-token", "attribute in code", lambda r: "os." + body(r, ALNUM, 24)),
    ("vault-service-token", "too short", lambda r: "hvs." + body(r, URLSAFE, 89)),
    ("vault-batch-token", "too short", lambda r: "hvb." + body(r, URLSAFE, 137)),
    (
        "hashicorp-tf-api-token",
        "wrong case",
        lambda r: body(r, ALNUM, 14) + ".ATLASV1." + body(r, URLSAFE, 65),
    ),
    (
        "hashicorp-tf-api-token",
        "low entropy",
        lambda r: body(r, ALNUM, 14) + ".atlasv1." + "x" * 65,
    ),
    ("grafana-api-key", "too short", lambda r: "eyJrIjoi" + body(r, ALNUM, 69)),
    ("grafana-cloud-api-token", "too short", lambda r: "glc_" + body(r, ALNUM, 31)),
    (
        "grafana-service-account-token",
        "not hex",
        lambda r: "glsa_" + body(r, ALNUM, 32) + "_" + body(r, "ghijkl", 8),
    ),
    ("linear-api-key", "too short", lambda r: "lin_api_" + body(r, ALNUM, 39)),
    ("doppler-api-token", "too short", lambda r: "dp.pt." + body(r, ALNUM, 42)),
    ("pulumi-api-token", "too short", lambda r: "pul-" + body(r, HEX, 39)),
    (
        "postman-api-token",
        "too short",
        lambda r: "PMAK-" + body(r, HEX, 24) + "-" + body(r, HEX, 33),
    ),
    ("perplexity-api-key", "too short", lambda r: "pplx-" + body(r, ALNUM, 47)),
    ("backblaze-application-key", "too short", lambda r: "K005" + body(r, ALNUM, 20)),
    ("config-password-line", "a word", lambda r: "password required"),
    ("sql-password", "a placeholder", lambda r: "CREATE USER x IDENTIFIED BY '<password>';"),
    (
        "kubernetes-patch-secret",
        "not a secret's name",
        lambda r: "path: /data/hostname\nvalue: " + b64(body(r, ALNUM, 16)),
    ),
    ("composer-auth", "a reference", lambda r: '{"github-oauth": {"github.com": "${GH_TOKEN}"}}'),
    ("postfix-sasl-password", "a word", lambda r: "[smtp.example.org]:587 alerts:password"),
    ("wallet-private-key", "a run", lambda r: "accounts: ['0x" + "ab" * 32 + "']"),
    ("recovery-key", "a run", lambda r: "BitLocker recovery key: " + "-".join(["000000"] * 8)),
    ("seed-phrase", "too few words", lambda r: "seed phrase: apple banana cherry"),
    ("pin-code", "a sequence", lambda r: "my PIN is " + "1234" + "56"),
    ("command-word-password", "a reference", lambda r: "rclone config create x sftp pass $NAS"),
    ("ppp-secret", "a comment", lambda r: "# /etc/ppp/chap-secrets\n# client server secret IP"),
    ("auth-file-password", "a word", lambda r: "# auth.txt\nmarta\npassword"),
    ("user-password-line", "a reference", lambda r: "chpasswd:\n  list: |\n    ubuntu:${PW}"),
    ("backup-codes", "one code", lambda r: "Backup codes: 73051862 (the rest are used)"),
    ("admin-password-pair", "a word", lambda r: "WordPress: admin / password"),
    ("square-access-token", "too short", lambda r: "EAAA" + body(r, ALNUM, 12)),
    ("square-secret", "too short", lambda r: "sq0csp-" + body(r, ALNUM, 20)),
    ("password-comparison", "empty", lambda r: 'if (password.equals("")) {'),
    ("password-comparison", "a word", lambda r: 'if pwd == "password":'),
    ("tsig-key-secret", "a reference", lambda r: 'algorithm hmac-sha256; secret "${TSIG}";'),
    ("uci-secret", "a placeholder", lambda r: "option key 'your-wifi-key'"),
    ("tailscale-key", "too short", lambda r: "tskey-auth-" + body(r, ALNUM, 12) + "-abc"),
    ("mercadopago-access-token", "a test token", lambda r: "TEST-" + body(r, DIGITS, 16)),
    ("rubygems-api-token", "too short", lambda r: "rubygems_" + body(r, HEX, 47)),
    ("okta-api-token", "a placeholder", lambda r: "Authorization: SSWS ${OKTA_API_TOKEN}"),
    ("ipsec-psk", "a reference", lambda r: ': PSK "%(psk)s"'),
    ("command-token", "a placeholder", lambda r: "ngrok config add-authtoken <your-token>"),
    ("device-password", "a hash", lambda r: "enable secret 5 $1$mERr$" + body(r, ALNUM, 22)),
    ("new-relic-user-key", "too short", lambda r: "NRAK-" + body(r, UPPER + DIGITS, 26)),
    ("new-relic-insert-key", "too short", lambda r: "NRII-" + body(r, URLSAFE, 31)),
    ("openai-style-api-key", "low entropy", lambda r: "sk-" + "abcd" * 12),
    ("openai-style-api-key", "too short", lambda r: "sk-" + body(r, ALNUM, 31)),
    ("wifi-password", "a placeholder", lambda r: "WIFI:T:WPA;S:Home;P:<password>;;"),
    (
        "terraform-default",
        "not a secret's name",
        lambda r: 'variable "db_host" {\n  default = "' + body(r, ALNUM, 20) + '"\n}',
    ),
    ("otp-seed", "no seed", lambda r: "TOTP secret: see the vault, entry OPS2FA"),
    (
        "webhook-path-token",
        "a route's name",
        lambda r: "https://ci.example.org/api/webhook/github-push-events-handler",
    ),
    ("webhook-path-token", "lowercase", lambda r: "/hooks/" + body(r, LOWER, 26)),
    ("discord-bot-token", "a variable", lambda r: "bot.run(os.environ['DISCORD_TOKEN'])"),
    (
        "discord-bot-token",
        "a placeholder",
        lambda r: 'bot.run("' + "x" * 24 + "." + "x" * 6 + "." + "x" * 27 + '")',
    ),
    (
        "token-in-prose",
        "a public key",
        lambda r: "the public key is AAAAC3NzaC1lZDI1NTE5" + body(r, ALNUM, 30) + "7Qa",
    ),
    ("token-in-prose", "a key's id", lambda r: "the key ID is " + body(r, ALNUM, 24) + "7Qa"),
    ("token-in-prose", "no mark", lambda r: "the key " + body(r, ALNUM, 24) + "7Qa"),
    ("token-in-prose", "a word", lambda r: "the secret is patience, not cleverness"),
    (
        "table-password-column",
        "a hash column",
        lambda r: "id,password_hash,created\n1,$2b$12$" + body(r, ALNUM, 53) + ",2024-01-01",
    ),
    (
        "table-password-column",
        "references and masks",
        lambda r: "service,user,password\nmail,ops,${MAIL_PASSWORD}\nvpn,ops,********",
    ),
    ("xml-password-element", "a reference", lambda r: "<password>${DB_PASSWORD}</password>"),
    ("xml-password-element", "masked", lambda r: "<Pass>********</Pass>"),
    (
        "named-secret-element",
        "a version, not a secret",
        lambda r: (
            "<key>CFBundleShortVersionString</key>\n<string>2.3." + body(r, DIGITS, 1) + "</string>"
        ),
    ),
    (
        "secret-setter-call",
        "a getter's argument",
        lambda r: 'val t = store.getToken("refresh_' + body(r, ALNUM, 8).lower() + '")',
    ),
    ("wifi-key-content", "no key=clear", lambda r: "Key Content            : " + "Absent"),
    ("otp-seed", "one letter", lambda r: "2FA key: " + "A" * 31 + "2"),
    (
        "postman-api-key",
        "a variable",
        lambda r: '"apikey": [{"key": "value", "value": "{{apiKey}}"}]',
    ),
    ("perplexity-api-key", "low entropy", lambda r: "pplx-" + "abcd" * 12),
    (
        "jwt",
        "parts too short",
        lambda r: (
            "eyJ" + body(r, ALNUM, 10) + ".eyJ" + body(r, ALNUM, 10) + "." + body(r, ALNUM, 12)
        ),
    ),
    (
        "jwt",
        "second part not JSON",
        lambda r: "eyJ" + body(r, ALNUM, 30) + "." + body(r, LOWER, 40),
    ),
]


def sentence(token: str) -> str:
    return f"first line of the memory\nPlease rotate {token} before Friday, thanks.\n"


#: rules whose secret is alone on a line after its context (what a command printed)
OWN_LINE = {
    "printed-secret",
    "table-password-column",
    "wifi-key-content",
    "seed-phrase",
    "command-word-password",
    "ppp-secret",
    "auth-file-password",
    "user-password-line",
    "config-password-line",
    "postfix-sasl-password",
    "kubernetes-patch-secret",
}


def placed(rule_id: str, token: str) -> tuple[str, int, int]:
    """A text holding the rule's fake token, and the line and column of its secret."""
    before = AT.get(rule_id, "")
    if rule_id not in OWN_LINE:
        return sentence(token), 2, 15 + SECRET_AT.get(rule_id, 0)
    text = f"first line of the memory\n{token}\n"
    return text, 2 + before.count("\n"), len(before.rsplit("\n", 1)[-1]) + 1


def by_id(rule_id: str) -> int:
    return [rule.id for rule in RULES].index(rule_id)


# --- the rule table ----------------------------------------------------------------


def test_at_least_30_rules_with_unique_ids() -> None:
    ids = [rule.id for rule in RULES]
    assert len(RULES) >= 30
    assert len(ids) == len(set(ids))


def test_every_rule_has_a_fake_token() -> None:
    assert set(FAKE) == {rule.id for rule in RULES}


def test_keywords_are_lowercase_and_present() -> None:
    for rule in RULES:
        assert rule.keywords, rule.id
        assert all(k == k.lower() and k for k in rule.keywords), rule.id


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.id)
def test_fake_token_matches_rule_pattern_and_a_keyword(rule: Rule) -> None:
    token = FAKE[rule.id](rng_for(rule.id))
    assert rule.pattern.search(token), rule.id
    assert any(k in token.lower() for k in rule.keywords), rule.id
    if rule.entropy is not None:
        assert shannon_entropy(token) > rule.entropy


# --- every rule finds its fake token ----------------------------------------------------


@pytest.mark.parametrize("rule_id", sorted(FAKE))
def test_rule_finds_fake_token_with_line_and_column(rule_id: str) -> None:
    token = FAKE[rule_id](rng_for(rule_id))
    text, line, column = placed(rule_id, token)
    findings = scan(text)
    assert [(f.rule_id, f.line, f.column) for f in findings] == [(rule_id, line, column)]
    assert not is_clean(text)


@pytest.mark.parametrize(
    ("rule_id", "maker"), VARIANTS, ids=[f"{rid}-{i}" for i, (rid, _) in enumerate(VARIANTS)]
)
def test_rule_variants(rule_id: str, maker: Maker) -> None:
    token = maker(rng_for(rule_id + "variant"))
    assert [(f.rule_id, f.line, f.column) for f in scan(sentence(token))] == [(rule_id, 2, 15)]


@pytest.mark.parametrize("rule_id", sorted(FAKE))
def test_token_at_very_start_and_end_of_text(rule_id: str) -> None:
    token = FAKE[rule_id](rng_for(rule_id))
    before = AT.get(rule_id, "")
    line, column = 1 + before.count("\n"), len(before.rsplit("\n", 1)[-1]) + 1
    assert [(f.rule_id, f.line, f.column) for f in scan(token)] == [(rule_id, line, column)]


CONTEXTS = [
    'key = "{}"',
    "key='{}';",
    "`{}`",
    "({})",
    "[{}]",
    "{},",
    "<{}>",
    "**{}**",
    "| {} |",
    "{}\\n",
    '"cell": "hf = \\"{}\\"\\n"',
    "token={}&x=1",
    "https://user:{}@example.org/",
    "Rotate {}.",
    "Rotate {}...",
    "Is it {}?",
    "密钥：{}。",
]


@pytest.mark.parametrize("template", CONTEXTS)
def test_token_in_code_prose_and_markup_contexts(template: str) -> None:
    for rule_id in ("gcp-api-key", "stripe-access-token", "npm-access-token", "digitalocean-pat"):
        token = FAKE[rule_id](rng_for(rule_id))
        text = template.format(token)
        assert [f.rule_id for f in scan(text)] == [rule_id], (rule_id, template)


@pytest.mark.parametrize("template", ["{}.attr", "{}(x)", "{}#frag", "{}%20", "{}:8080"])
def test_token_running_into_code_is_not_a_token(template: str) -> None:
    # gitleaks' rules with an end boundary refuse these, and so do we
    for rule_id in ("gcp-api-key", "stripe-access-token", "npm-access-token", "digitalocean-pat"):
        token = FAKE[rule_id](rng_for(rule_id))
        assert scan(template.format(token)) == [], (rule_id, template)
    assert is_clean("static void GLC_" + "StateBeginUnderwaterAliasModelCaustics(ref base);")


# --- near-misses stay clean ---------------------------------------------------------------


def test_every_rule_has_a_near_miss() -> None:
    assert {rule_id for rule_id, _, _ in NEAR_MISSES} == {rule.id for rule in RULES}


@pytest.mark.parametrize(
    ("rule_id", "why", "maker"),
    NEAR_MISSES,
    ids=[f"{rid}-{why}" for rid, why, _ in NEAR_MISSES],
)
def test_near_miss_is_clean(rule_id: str, why: str, maker: Maker) -> None:
    text = sentence(maker(rng_for(rule_id + why)))
    assert scan(text) == []
    assert is_clean(text)


def test_word_start_rules_need_a_boundary_before() -> None:
    for rule in RULES:
        if rule.word_start:
            token = FAKE[rule.id](rng_for(rule.id))
            assert scan("x" + token) == [], rule.id


def test_tokens_running_on_are_not_cut_short() -> None:
    rng = rng_for("run-on")
    assert is_clean("dop_v1_" + body(rng, HEX, 64) + "abc")
    assert is_clean("AIza" + body(rng, ALNUM, 35) + "Q")
    assert is_clean("sk-ant-api03-" + body(rng, URLSAFE, 93) + "AAx")


# --- allowlist: documented placeholders -------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
        # (split after the "= ": this file, scanned, holds no assignment of a secret)
        "aws_secret_access_key = " + "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "AKIA" + "I44QH8DHBEXAMPLE",
        "token: ghp_" + "x" * 36,
        "GITHUB_TOKEN=ghp_" + "X" * 36,
        "sk_" + "live_" + "0" * 24,
        "npm_" + "0" * 36,
        "dop_v1_" + "0" * 64,
        "sk-ant-api03-" + "x" * 93 + "AA",
        "hf_" + "abcdefghijklmnopqrstuvwxyz" + "ABCDEFGH",
        "AIza" + "Sy" + "abcdefghijklmnopqrstuvwxyz" + "1234567",
        "dapi" + "0123456789abcdef" * 2,
        "pul-" + "0123456789" * 4,
        "github_pat_" + ("your_token_here_" * 6)[:82],
        "sk_" + "live_" + "EXAMPLE" + body(rng_for("example"), ALNUM, 16),
        "lin_api_" + "PLACEHOLDER" + body(rng_for("placeholder"), ALNUM, 29),
        "dp.pt." + "REDACTED" + body(rng_for("redacted"), ALNUM, 35),
        "token: ${GITHUB_TOKEN}",
        "token: {{ secrets.NPM_TOKEN }}",
        "token: <your-api-key>",
        "export OPENAI_API_KEY=$OPENAI_API_KEY",
        "-----" + "BEGIN RSA PRIVATE KEY-----\n"
        "{{ .Values.tls.privateKeyBody | b64dec | indent 4 | trim | nospace }}\n"
        "-----" + "END RSA PRIVATE KEY-----",
        "-----"
        + "BEGIN PRIVATE KEY-----\n"
        + ("x" * 64 + "\n") * 3
        + "-----"
        + "END PRIVATE KEY-----",
    ],
)
def test_placeholders_are_clean(text: str) -> None:
    assert scan(text) == []
    assert is_clean(text)


# --- lines and columns -----------------------------------------------------------------------


def test_line_three_with_lf_and_crlf() -> None:
    token = FAKE["github-pat"](rng_for("lines"))
    for newline in ("\n", "\r\n"):
        text = newline.join(["one", "two", f"three {token} four", "five"])
        assert [(f.line, f.column) for f in scan(text)] == [(3, 7)]


def test_column_counts_characters_not_bytes() -> None:
    token = FAKE["aws-access-token"](rng_for("columns"))
    text = f"记忆\n第二行\n密钥是：{token}，请轮换。"
    assert [(f.rule_id, f.line, f.column) for f in scan(text)] == [("aws-access-token", 3, 5)]
    # astral characters and one that lowercases to two characters
    text = f"🔑 İstanbul {token}"
    assert [(f.line, f.column) for f in scan(text)] == [(1, 12)]


def test_lone_surrogates_do_not_break_the_scan() -> None:
    token = FAKE["npm-access-token"](rng_for("surrogate"))
    text = f"bad \ud800 char then {token}"
    assert [(f.rule_id, f.column) for f in scan(text)] == [("npm-access-token", 17)]


def test_many_findings_sorted_by_line_then_column() -> None:
    rng = rng_for("many")
    lines: list[str] = []
    expected: list[tuple[str, int]] = []
    for rule_id in sorted(FAKE):
        if rule_id == "private-key" or rule_id in OWN_LINE:
            continue
        lines.append(f"{len(lines)}: {FAKE[rule_id](rng)} and {FAKE['github-pat'](rng)}")
        expected += [(rule_id, len(lines)), ("github-pat", len(lines))]
    findings = scan("\n".join(lines))
    assert [(f.rule_id, f.line) for f in findings] == expected
    keys = [(f.line, f.column, f.rule_id) for f in findings]
    assert keys == sorted(keys)


def test_more_hits_than_windows_still_finds_all() -> None:
    rng = rng_for("windows")
    tokens = [FAKE["gitlab-pat"](rng) for _ in range(200)]
    text = "\n".join(f"note {t} end" for t in tokens)
    findings = scan(text)
    assert [(f.rule_id, f.line, f.column) for f in findings] == [
        ("gitlab-pat", i + 1, 6) for i in range(200)
    ]


def test_pem_block_line_and_column() -> None:
    block = pem(rng_for("pem-block"))
    text = f"config:\n  key: |\n    {block}\n"
    assert [(f.rule_id, f.line, f.column) for f in scan(text)] == [("private-key", 3, 5)]


# --- one finding per span -------------------------------------------------------------------------


def test_more_specific_rule_wins_on_the_same_span() -> None:
    token = FAKE["gitlab-pat-routable"](rng_for("routable"))
    assert [f.rule_id for f in scan(token)] == ["gitlab-pat-routable"]
    assert by_id("gitlab-pat-routable") < by_id("gitlab-pat")


# --- entropy ------------------------------------------------------------------------------------


def test_shannon_entropy() -> None:
    assert shannon_entropy("") == 0.0
    assert shannon_entropy("aaaa") == 0.0
    assert shannon_entropy("ab") == pytest.approx(1.0)
    assert shannon_entropy("abcd") == pytest.approx(2.0)
    assert shannon_entropy("aab") == pytest.approx(0.9183, abs=1e-4)


def test_entropy_threshold_drops_low_entropy_secrets() -> None:
    rule = RULES[by_id("github-pat")]
    assert rule.entropy == 3
    low = "ghp_" + "aB" * 18  # matches the regex, entropy 1.4
    assert rule.pattern.fullmatch(low)
    assert shannon_entropy(low) <= 3
    assert is_clean(low)


# --- never leak the value ----------------------------------------------------------------------


def test_finding_has_no_value_field() -> None:
    names = {f.name for f in dataclasses.fields(Finding)}
    # (and the tier: certain or likely)
    assert names == {"rule_id", "description", "line", "column", "tier"}


@pytest.mark.parametrize("rule_id", sorted(FAKE))
def test_findings_never_leak_the_secret(rule_id: str) -> None:
    rng = random.Random(zlib.crc32(b"leak" + rule_id.encode()))
    token = FAKE[rule_id](rng)
    findings = scan(placed(rule_id, token)[0])
    assert findings
    rendered = " ".join(
        [
            repr(findings),
            str(findings),
            *map(str, findings),
            json.dumps([f.to_dict() for f in findings]),
        ]
    )
    # the token minus its fixed prefix: any 8 characters of the random body
    rule = RULES[by_id(rule_id)]
    prefix = max((k for k in rule.keywords if token.lower().startswith(k)), key=len, default="")
    # (or, where the secret follows its context, "Authorization: Bearer ", the secret)
    secret_body = token[max(len(prefix), SECRET_AT.get(rule_id, 0)) :].replace("\n", "")
    assert secret_body[:8] not in rendered
    for i in range(0, len(secret_body) - 8, 4):
        assert secret_body[i : i + 8] not in rendered


def test_to_dict() -> None:
    token = FAKE["slack-bot-token"](rng_for("dict"))
    (finding,) = scan(sentence(token))
    assert finding.to_dict() == {
        "rule": "slack-bot-token",
        "description": finding.description,
        "line": 2,
        "column": 15,
        "tier": "certain",  # (the tiers came later; every vendor token is certain)
    }
    assert str(finding) == "slack-bot-token at line 2, column 15"


def test_errors_do_not_carry_the_text() -> None:
    token = FAKE["github-pat"](rng_for("errors"))
    for bad in (token.encode(), bytearray(token.encode()), [token]):
        with pytest.raises(TypeError) as info:
            scan(bad)  # type: ignore[arg-type]
        assert token[4:12] not in str(info.value)
        with pytest.raises(TypeError) as info:
            is_clean(bad)  # type: ignore[arg-type]
        assert token[4:12] not in str(info.value)


# --- clean text, our own repository, speed -----------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "",
        "The key point: they asked for money. This service retries.",
        "import os\nprint(os.environ['HOME'])\nself.s.update(items)\n",
        '{"id": "mem-0123", "type": "fact", "text": "staging deploys need review"}',
        "- item one\n- item two\n\n-----\n\n[docs](https://example.org)",
        "Asia-Pacific region ASIAPACIFIC and msg.send(sg.value)",
        "记忆治理层会在写入前检查密钥。",
    ],
)
def test_ordinary_text_is_clean(text: str) -> None:
    assert scan(text) == []
    assert is_clean(text)


SCANNER_FILES = sorted(
    p.relative_to(ROOT).as_posix() for p in (ROOT / "core" / "domain" / "secrets").glob("*.py")
)


@pytest.mark.parametrize(
    "path",
    [
        *SCANNER_FILES,
        "tests/domain/test_secrets.py",
        "bench/bench_scan.py",
        # the likely tier reads code: a type annotation is no value
        "core/writing/redteam.py",
        "tests/domain/test_credential_corpus.py",
        "bench/credential_corpus.py",
        "docs/how-it-decides.md",
    ],
)
def test_our_own_files_are_clean(path: str) -> None:
    file = ROOT / path
    if not file.exists():
        pytest.skip(f"{path} not present")
    assert scan(file.read_text(encoding="utf-8")) == []


def test_a_megabyte_of_keyword_look_alikes_holds_no_finding() -> None:
    """(Its speed is bench/bench_scan.py's to measure: no timing here.)"""
    rng = rng_for("speed")
    words = ("the", "agent", "key", "they", "money", "asia", "msg.send", "os.path", "self.s", "-")
    text = " ".join(rng.choice(words) for _ in range(200_000))
    assert scan(text) == []
