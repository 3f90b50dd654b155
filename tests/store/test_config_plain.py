"""``memgov.yaml`` as ``memgov init`` writes it is read without PyYAML, and reads
exactly as YAML reads it.

:func:`core.store.config.plain_config` drops comment lines and hands the rest to
the front-matter fast path, which declines (None) anything outside its subset;
then PyYAML reads the file as before. Whatever the fast path accepts must be what
``yaml.safe_load`` gives, with the same types, and the config built from it the
same ``Config`` (its checks and its errors included).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from core.domain.errors import ValidationError
from core.store import config as config_module
from core.store.config import Config, load_config_text, plain_config

ROOT = Path(__file__).resolve().parents[2]


def strict_equal(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(strict_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(strict_equal(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def by_yaml(text: str, monkeypatch: pytest.MonkeyPatch) -> Config | str:
    """The config PyYAML's path builds (the fast path switched off), or its error."""
    with monkeypatch.context() as mp:
        mp.setattr(config_module, "plain_config", lambda _text: None)
        try:
            return load_config_text(text, path="memgov.yaml")
        except ValidationError as exc:
            return f"{exc.field}: {exc.message}"


def agrees(text: str, monkeypatch: pytest.MonkeyPatch) -> bool:
    """Whether the fast path took the text; asserts it reads as YAML reads it."""
    fast = plain_config(text)
    if fast is not None:
        assert strict_equal(fast, yaml.safe_load(text)), text
    try:
        built: Config | str = load_config_text(text, path="memgov.yaml")
    except ValidationError as exc:
        built = f"{exc.field}: {exc.message}"
    assert built == by_yaml(text, monkeypatch), text
    return fast is not None


INIT_TEXTS = [
    Config().to_yaml(),
    Config(owner="me@example.com").to_yaml(),
    Config(
        scope="team",
        maintainers=("lead@example.com", "b@example.com"),
        team_store=None,
        theta=0.75,
        tau1_days=10.0,
        index_max_lines=50,
    ).to_yaml(),
    Config(owner="me@example.com", team_store="/srv/team", default_actor="me").to_yaml(),
]


@pytest.mark.parametrize("text", INIT_TEXTS)
def test_what_init_writes_takes_the_fast_path(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # maintainers as a list of names is YAML's flow or block list: the fast path reads
    # only [] of those, so a team's config with maintainers goes to YAML (still agreeing)
    took = agrees(text, monkeypatch)
    assert took == ("maintainers: []" in text), text


@pytest.mark.parametrize(
    "text",
    [
        "# c\nscope: team\n  # an indented comment\nmaintainers: []\n",
        "a: 'x\n# not a comment: inside a quoted value\nb'\n",
        "a: x\n# c\n  y\n",
        "theta: 0.7 # a trailing comment\n",
        "# only a comment\n",
        "",
        "\n\n",
        "scope: private\r\n# c\r\ntheta: 0.5\r\n",
        "extra:\n# c\n  inner: 1\n  other: two\n",
        "---\nscope: private\n",
        "scope: private\n...\n",
        "\ufeff# c\nscope: private\n",
        "agent_memory_consent: true\n",
        "theta: 1.5\n",
        "theta: yes\n",
        "scope: null\n",
        "owner: ~\n",
        "index_max_lines: 012\n",
        "tau1_days: 7\n",
        "theta: -.5\n",
        "#x\n#y\nw0: 2.\n",
        "\t# tab\nscope: private\n",
    ],
)
def test_hand_edited_configs_read_as_yaml_reads_them(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    agrees(text, monkeypatch)


LINES = st.one_of(
    st.sampled_from(
        [
            "# memgov store configuration.",
            "  # indented",
            "#",
            "scope: private",
            "scope: team",
            "theta: 0.6",
            "theta: '0.6'",
            "w0: 1",
            "unused_days: 30",
            "unused_days: 30.5",
            "maintainers: []",
            "maintainers:",
            "- lead@example.com",
            "  - x",
            "team_store: null",
            "owner: me@example.com",
            "owner: 'me'",
            "extra:",
            "  inner: 1",
            "- a: b",
            "  c: d",
            "a: 'x",
            "b'",
            "desk_reason: prefilled",
            "known_hosts: []",
            "",
            "   ",
        ]
    ),
    st.builds(
        lambda k, v: f"{k}: {v}",
        st.sampled_from(["theta", "owner", "scope", "extra_key", "index_max_bytes"]),
        st.text(max_size=10).filter(lambda s: "\n" not in s and "\r" not in s),
    ),
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=st.lists(LINES, max_size=10).map("\n".join))
@example(text=INIT_TEXTS[0].replace("\n", "\n# between\n", 3))
def test_any_config_reads_as_yaml_reads_it(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    agrees(text, monkeypatch)


def test_a_store_config_is_read_without_pyyaml(tmp_path: Path) -> None:
    """The file ``memgov init`` writes is read, in a fresh interpreter, with no part of
    PyYAML imported; one the fast path declines imports it (the probe can fail)."""
    plain = tmp_path / "plain.yaml"
    plain.write_text(Config(owner="me@example.com").to_yaml(), encoding="utf-8")
    flowing = tmp_path / "flowing.yaml"
    flowing.write_text("scope: team\nmaintainers: [lead@example.com]\n", encoding="utf-8")
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from core.store.config import load_config_text\n"
        "for name in sys.argv[1:]:\n"
        "    load_config_text(Path(name).read_text(), path=name)\n"
        "    print(any(m == 'yaml' or m.startswith('yaml.') for m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(plain), str(flowing)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    assert done.stdout.split() == ["False", "True"]
