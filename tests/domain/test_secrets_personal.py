"""The rules for what a person keeps (core/domain/secrets/personal.py) and the value
forms added beside them: each catches its form and leaves its near misses alone."""

from __future__ import annotations

import pytest

from core.domain.secrets import scan
from core.domain.secrets.redaction import redact


def _rules(text: str) -> list[str]:
    return [f.rule_id for f in scan(text)]


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        (
            "BitLocker recovery key: 402391-117260-651409-300135-555203-190817-673442-108361",
            "recovery-key",
        ),
        ("回復キー 402391-117260-651409-300135-555203-190817-673442-108361", "recovery-key"),
        (
            "seed phrase: wolf amber crane lumber pilot orbit velvet quiet salmon drift noble lion",
            "seed-phrase",
        ),
        (
            "助记词：wolf amber crane lumber pilot orbit velvet quiet salmon drift noble tiger",
            "seed-phrase",
        ),
        ("my debit card PIN is 730518, remind me", "pin-code"),
        ("暗証番号は 7305 です", "pin-code"),
        (
            "rclone config create nas sftp host 10.0.0.9 user kids pass Qm7vT2xLp9Rw",
            "command-word-password",
        ),
        ("iwctl station wlan0 connect HomeNet pass Gx8!fr2Lq0", "command-word-password"),
        ("iwctl station wlan0 connect HomeNet pass Gx8!fr2Lq0\nexit", "command-word-password"),
        ("$ openssl enc -aes-256-cbc -pass pass Zx9qLm2Tw8k -in n.txt", "command-word-password"),
        ("the NAS admin pass is `Rk8#dune2031` (don't share)", "password-in-prose"),
        ("Zugangsdaten: Benutzer jo.k, Passwort: „Segel2031Lk“", "password-in-prose"),
        ("mot de passe « Lune2031! » pour le portail", "password-in-prose"),
        ("打印机后台账号admin 密码ab7kq2mz9x", "password-in-prose"),
        ("Tom's laptop login is Tom@1988 btw", "password-in-prose"),
        ('# /etc/ppp/chap-secrets\n"dialup"  *  "tr4in!set"  *', "ppp-secret"),
        ("# OpenVPN auth.txt\nmarta\nZ8pq2LrT0wXy", "auth-file-password"),
        ("X-Cybozu-Authorization: " + "a2ludG9uZTpSMnhqOXZQcTBUcw==", "basic-auth"),
        ("App password for the newsletter account: qwpt zmbv lkrd hyuf", "password-in-prose"),
        ("la clave del wifi de la oficina es lantern-orchid-basket-meadow", "password-in-prose"),
        ("smtp.login('noreply@clinic.example', 'jXcSQhsxhHylLqiyzghP')", "call-password-argument"),
    ],
)
def test_a_form_a_person_keeps_is_caught(text: str, rule: str) -> None:
    assert _rules(text) == [rule]


@pytest.mark.parametrize(
    "text",
    [
        "The recovery key has eight groups of six digits (000000-...); keep it printed.",
        "seed phrase: write the twelve words on paper and never type them anywhere",
        "The PIN is 4 digits long and the PIN code 1234 is the factory default.",
        "Pin 13 is the LED; connect PIN 7 to ground, PIN is 2024 in the year field.",
        "we pass arguments to the function and pass through the proxy",
        "rclone config create nas sftp host 10.0.0.9 user kids pass ${NAS_PASS}",
        "# /etc/ppp/chap-secrets\n# client  server  secret  IP addresses",
        "auth-user-pass /etc/openvpn/auth.txt\nremote vpn.example.org 1194\ncipher AES-256-GCM",
        "jdbc.url=jdbc:mysql://#{db.host}:3306/shop?user=#{db.user}&password=#{db.pass}",
        "ClientToken: eyJ0aGVtZSI6ImRhcmsiLCJsYW5nIjoiZW4ifQ==",
        "the password is not-set-yet, ask Kim",
        "def login(user, password): return getUserNameById(user)",
    ],
)
def test_its_near_misses_are_left_alone(text: str) -> None:
    assert scan(text) == []


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("crypto isakmp key Yv0wfYkP9XVm8nbB address 203.0.113.10", "device-password"),
        ("radius-server host 10.0.0.20 key Rad1us#Sec", "device-password"),
        ("    auth_type PASS\n    auth_pass kA1v3d!", "device-password"),
        (
            "ldapsearch -x -H ldaps://dc01 -D 'cn=svc' -w 'T3x9_+s7rVAT15' -b 'dc=corp'",
            "cli-password",
        ),
        ("sftp://backup:Zim@2023backup@nas02.office.lan/volume1", "url-password"),
        ('DATA_SOURCE_NAME: "exporter:sY557KAR3rqqWonj@(mysql:3306)/"', "dsn-password"),
        ('let signing_key = b"hh78sEf5fwwJuBYJfE4IBb3Bl9jeQDFp";', "secret-assignment"),
        ("$env:ARM_CLIENT_SECRET = 'ZJx8Q~BpcmyJi3DP0QZYsLt7s6bv'", "secret-assignment"),
        ('snmp_community = "Sn#mpRW2024"', "secret-assignment"),
        ("阿里云子账号的登录密码我设成 Aliyun#Ops2025 了", "password-in-prose"),
        ("the iDRAC password was reset to calvin2026 after the update", "password-in-prose"),
        ("Backup codes for the admin account: 69316175 86422164 03043041", "backup-codes"),
        ("# /etc/rsyncd.secrets\nnasbackup:Matcha#Latte8", "user-password-line"),
        ("- WordPress: admin / Paris75011!", "admin-password-pair"),
        ("vercel deploy --prod --token l44K8uoIqW7Wwef034bMquts", "cli-secret-flag"),
    ],
)
def test_a_form_of_the_tenth_round_is_caught(text: str, rule: str) -> None:
    assert _rules(text) == [rule]


@pytest.mark.parametrize(
    "text",
    [
        "mysql_root_password: \"{{ lookup('hashi_vault', 'secret=kv/data/mysql:root') }}\"",
        "  password: ${REDIS_PASSWORD:?required}",
        "- 飞书应用的 tenant_key 之外还有个 open_id，不是密钥：ou_0b144e4810a2f8c24036a6be6ccd07e8",
        'implementation("io.jsonwebtoken:jjwt-api:0.12.5")',
        "同步用户 password=e10adc3949ba59abbe56e057f20f883e（MD5，迁移时要重新加盐）",
        "DD_CLIENT_TOKEN=pub6eb8874b196d7418489657585e731297",
        "cache:\n  key: deps-a0397a82788f9be1e62a716231b618aa8d19b08b",
        '{"password": "arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/db-AbCdEf"}',
        "api_key: !env_var OPENAI_API_KEY",
    ],
)
def test_a_near_miss_of_the_tenth_round_is_left_alone(text: str) -> None:
    assert scan(text) == []


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ('"Password": "!Vq8rTmw3LzKx2p"', "secret-assignment"),  # (no YAML tag: a digit)
        ("machine pypi.internal\n  login ops\n  password **Hw8mzQ2Lk", "netrc-password"),
        ("redis://spider:Qq123456789!@127.0.0.1:6379/0", "url-password"),
        ("Authorization: Basic cGk6cmFzcGJlcnJ5", "basic-auth"),  # pi:raspberry
        ("mosquitto_pub -h 10.0.0.4 -u ha -P Vq8rTmw3LzKx -t t -m on", "cli-password"),
        ("пароль = Vq8rTmw3LzKx2p", "secret-assignment"),
        ("접속 암호 = Vq8r-Tmw3!Lz", "secret-assignment"),
        ("Kennwort für das NAS ist jetzt Vq8r@2026", "password-in-prose"),
        ("mdp du compte admin : Vq8rTmw3LzKx2p", "password-in-prose"),
        ("пароль от роутера поменял на vq8r&tmw3", "password-in-prose"),
        ("the lab wifi password (Vq8rTmw3!) for the cluster", "password-in-prose"),
        ("the client's secret is Vq8rTmw3LzKx2pHn7Dc4Ws9Bq – paste it", "token-in-prose"),
        ("https://ha.example.net/api/webhook/Vq8rTmw3LzKx2pHn7Dc4Ws9BqYt6", "webhook-path-token"),
        ("recovery codes for the account: 5514 5463, 5231 8901", "backup-codes"),
    ],
)
def test_a_form_of_the_twelfth_round_is_caught(text: str, rule: str) -> None:
    assert _rules(text) == [rule]


def test_a_secret_found_once_is_found_again_where_the_text_repeats_it() -> None:
    text = (
        "$settings['hash_salt'] = 'Vq8rTmw3LzKx';\n"
        "$databases['default']['default']['password'] = 'Vq8rTmw3LzKx';\n"
        "(the same, quoted in a note: Vq8rTmw3LzKx; not inside aVq8rTmw3LzKx)\n"
    )
    found = [(f.line, f.rule_id) for f in scan(text)]
    assert found == [(1, "secret-assignment"), (2, "secret-assignment"), (3, "secret-assignment")]
    assert "Vq8rTmw3LzKx" not in redact(text).replace("aVq8rTmw3LzKx", "")


@pytest.mark.parametrize(
    "text",
    [
        "DB_PASSWORD=12345678",
        "DB_PASSWORD=123456789a",
        "token: dapi0123456789abcdef0123456789abcdef",
        "kubeadm join 10.0.0.10:6443 --token abcdef.0123456789abcdef",
        "api_key: !env_var OPENAI_API_KEY",
        "the public key is AAAAC3NzaC1lZDI1NTE5AAAAIHk3Qw8bQzR9xT2",
        "RECAPTCHA_SITE_KEY=6LeVo-r2_ICf24MuTjPMiJFfh6COZp8VOGOGszB_",
        "阿里云 AccessKeyId（仅 ID，无 Secret）：LTAI5tyd3NG63i3LK69ddC11",
        "Authorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==",  # (a space: RFC 7617's example)
        "パスワードの有効期限が7日後に切れます (user=svc_backup)",
        "# age: X25519 secret keys (bech32).",
        "- pass: `keys`\n- fail: `none`",
        "the login is required before the checkout; compass: north-north-west",
        "密码学课程的作业在 Moodle 上",
    ],
)
def test_a_near_miss_of_the_twelfth_round_is_left_alone(text: str) -> None:
    assert scan(text) == []
