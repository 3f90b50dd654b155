"""Input hygiene, written as the attack: memgov.yaml and MEMORY.md.

Nothing in the config or the index can crash a reader: a bad setting is reported by
its name, an alias bomb or a huge file is not walked, an index that is a link, huge
or not UTF-8 is not read; and no error message ever holds a value (a fake token is
fed in and searched for).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from conftest import ACTOR, MakeMemory, add_memories, fake_token

from core.domain.errors import StoreError, ValidationError
from core.reports import metrics
from core.store.config import CONFIG_FILE, MAX_CONFIG_BYTES, load_config
from core.store.index import INDEX_FILE, parse_index, read_index_text
from core.store.requests import file_request
from core.store.store import Store

#: fed into every field and searched for in every error (seeded: every pytest-xdist
#: worker collects the same ids)
TOKEN = fake_token("ghp_", 36, seed=20261201)


# ------------------------------------------------------------------------- 6. config
def _config(store: Store, text: str | bytes) -> Path:
    path = store.root / CONFIG_FILE
    if isinstance(text, str):
        text = text.encode("utf-8")
    path.write_bytes(text)
    return path


@pytest.mark.parametrize(
    ("text", "field"),
    [
        (f"theta: {TOKEN}\n", "theta"),
        (f"theta: [{TOKEN}]\n", "theta"),
        ("theta: 7\n", "theta"),
        (f"w0: {{{TOKEN}: 1}}\n", "w0"),
        (f"index_max_lines: '{TOKEN}'\n", "index_max_lines"),
        ("index_max_lines: 12.5\n", "index_max_lines"),
        (f"scope: {TOKEN}\n", "scope"),
        (f"scope: [{TOKEN}]\n", "scope"),
        (f"owner: [{TOKEN}]\n", "owner"),
        (f'owner: "{TOKEN}\\0"\n', "owner"),
        (f'owner: "{TOKEN}\\ud800"\n', "owner"),
        ("owner: " + "x" * 400 + "\n", "owner"),
        (f"team_store: {{{TOKEN}: 1}}\n", "team_store"),
        (f'team_store: "../{TOKEN}\\n"\n', "team_store"),
        (f"maintainers: {TOKEN}\n", "maintainers"),
        (f"maintainers: [lead, [{TOKEN}]]\n", "maintainers[1]"),
        (f'maintainers: ["{TOKEN}\\nx"]\n', "maintainers[0]"),
        (f'future_setting: "{TOKEN}\\x07"\n', "future_setting"),
        (f'"{TOKEN}\\0": 1\n', "(an unknown setting)"),
    ],
)
def test_a_wrong_config_value_names_the_file_and_the_field(
    store: Store, text: str, field: str
) -> None:
    path = _config(store, text)
    with pytest.raises(ValidationError) as info:
        load_config(store.root)
    assert info.value.path == str(path) and info.value.field == field, str(info.value)
    assert str(info.value).startswith(str(path))
    assert TOKEN not in str(info.value) and TOKEN[4:20] not in str(info.value)


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"owner: x\n" + b"# padding\n" * (MAX_CONFIG_BYTES // 10 + 1), "KiB"),
        ("owner: caf\u00e9\n".encode("latin-1"), "UTF-8"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "binary"),
    ],
)
def test_an_unreadable_config_is_a_clear_store_error(store: Store, data: bytes, words: str) -> None:
    path = _config(store, data)
    with pytest.raises(StoreError) as info:
        Store(store.root)
    assert isinstance(info.value, ValidationError) and info.value.path == str(path)
    assert words in str(info.value)


@pytest.mark.parametrize(
    "text",
    [
        "a: " + "[" * 5_000 + "]" * 5_000 + "\n",
        "a:\n" + "".join(" " * i + "b:\n" for i in range(1, 3_000)),
        # an alias bomb in an unknown setting: kept as a setting, refused, not walked
        "a: &a [x, x, x, x, x, x, x, x, x]\n"
        + "".join(
            f"{n}: &{n} [{', '.join([f'*{p}'] * 9)}]\n"
            for p, n in zip("abcdefgh", "bcdefghi", strict=True)
        ),
        f"owner: !{TOKEN} x\n",
        f"owner: *{TOKEN}\n",
    ],
)
def test_a_hostile_config_never_makes_a_traceback(store: Store, text: str) -> None:
    _config(store, text)
    started = time.monotonic()
    with pytest.raises(ValidationError) as info:
        load_config(store.root)
    assert time.monotonic() - started < 10
    assert TOKEN not in str(info.value) and info.value.path is not None


def test_a_good_config_still_reads(store: Store) -> None:
    _config(store, "owner: alice\nmaintainers: [lead@example.com]\nfuture: {a: [1, 'two']}\n")
    config = load_config(store.root)
    assert (config.owner, config.maintainers, config.extra) == (
        "alice",
        ("lead@example.com",),
        {"future": {"a": [1, "two"]}},
    )


# ----------------------------------------------------------------------- 7. MEMORY.md
@pytest.mark.parametrize(
    ("data", "words"),
    [
        ("- [Café](memories/mem-1.md) - x\n".encode("latin-1"), "not UTF-8"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)), "binary"),
    ],
)
def test_a_non_utf8_or_binary_index_crashes_nothing(
    store: Store, make_memory: MakeMemory, data: bytes, words: str
) -> None:
    add_memories(store, make_memory())
    (store.root / INDEX_FILE).write_bytes(data)
    text, problem = read_index_text(store.root)
    assert text is None and problem is not None and words in problem and "reindex" in problem
    health = metrics.health(Store(store.root))
    assert any(words in w for w in health.index["warnings"])
    parse_index(data.decode("utf-8", "surrogateescape"))  # any text parses


def test_an_index_that_is_a_link_or_huge_is_not_read(store: Store) -> None:
    index = store.root / INDEX_FILE
    index.unlink()
    outside = store.root.parent / "elsewhere.md"
    outside.write_text("- [Secret](memories/x.md) — from outside\n")
    index.symlink_to(outside)
    text, problem = read_index_text(store.root)
    assert text is None and problem is not None and "symbolic link" in problem
    index.unlink()
    assert read_index_text(store.root) == (None, None)
    index.write_bytes(b"- [x](memories/x.md)\n" * 250_000)  # 5 MB
    text, problem = read_index_text(store.root)
    assert text is None and problem is not None and "MiB" in problem


def test_the_queue_builds_over_a_non_utf8_index(store: Store, make_memory: MakeMemory) -> None:
    """The item is still there; its record just has no index line to point at."""
    from core.review.queue import build_queue
    from core.store.workspace import Workspace

    add_memories(store, make_memory())
    request = file_request(
        store, kind="delete", memory_id="mem-1", reason="no longer true", actor=ACTOR
    )
    (store.root / INDEX_FILE).write_bytes(b"- [Caf\xe9](memories/mem-1.md)\n")
    (item,) = build_queue(Workspace(stores=[Store(store.root)]))
    assert (item.kind, item.id) == ("deletion", request.id)
    assert [r.pointers for r in item.records] == [(f"delete request {request.id} (open)",)]
