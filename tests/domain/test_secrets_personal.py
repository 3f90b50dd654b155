"""The rules for what a person keeps (core/domain/secrets/personal.py) and the value
forms added beside them: each catches its form and leaves its near misses alone."""

from __future__ import annotations

import pytest

from core.domain.secrets import scan


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
        ("nmcli dev wifi connect HomeNet psk Gx8!fr2Lq0", "command-word-password"),
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
