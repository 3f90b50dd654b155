"""Agent-facing text tells the truth: the index (``MEMORY.md``), plain-text
``memgov list`` and ``memgov recall``, and an export (its index and its files) name a
record by its title with its condition, in the words of one function
(:func:`core.domain.shown.shown_title`); never a credential (the condition redacted
too); never a superseded, conflicted or expired record as current."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest
from support_decisions import stores, the_item

from core.domain.shown import shown_title, titled
from core.importers import CLAUDE_CODE, import_folder
from core.importers.claude_code.export import export_claude_code
from core.reports.doctor import diagnose
from core.store.index import INDEX_FILE, index_line, parse_index
from core.store.store import Store
from core.store.transaction import transaction
from core.store.workspace import open_workspace
from tests.conftest import ACTOR, FIXED_NOW, MakeMemory, add_memories, fake_token

Cli = Callable[..., tuple[int, str, str]]


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Cli:
    """``cli(*argv)``: ``memgov`` in process, the tests' clock pinned."""
    from tui.cli import main

    monkeypatch.setenv("MEMGOV_NOW", FIXED_NOW.isoformat())

    def run(*argv: str) -> tuple[int, str, str]:
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return run


def _index(root: Path) -> str:
    return (root / INDEX_FILE).read_text(encoding="utf-8")


# ---------------------------------------------------------------- the words
def test_shown_title_is_the_title_with_its_condition(make_memory: MakeMemory) -> None:
    plain = make_memory(attribute="deploy_command", title=None)
    assert shown_title(plain) == "Deploy command"
    production = make_memory(attribute="deploy_command", condition="env=production")
    assert shown_title(production) == "Deploy command (env=production)"
    titled_one = make_memory(title="How we deploy", condition="env=production")
    assert shown_title(titled_one) == "How we deploy (env=production)"
    # a title that already says it does not say it twice
    said = make_memory(title="Deploy (env=production)", condition="env=production")
    assert shown_title(said) == "Deploy (env=production)"


def test_a_cut_keeps_the_condition_whole() -> None:
    long = "A very long title " * 6
    cut = titled(long, "env=staging", room=40)
    assert len(cut) <= 40 and cut.endswith("… (env=staging)")
    assert titled("Short", "env=staging", room=40) == "Short (env=staging)"
    assert titled(long, None, room=20) == long[:19].rstrip() + "…"


def test_an_index_line_keeps_the_condition_of_a_long_title(make_memory: MakeMemory) -> None:
    memory = make_memory(title="Deploy command " * 10, condition="env=production")
    memory = memory.with_changes(path="memories/aa/mem-1.md")
    line = index_line(memory, 150)
    assert len(line) <= 150
    assert "… (env=production)](memories/aa/mem-1.md)" in line


def test_a_condition_holding_a_credential_is_redacted(make_memory: MakeMemory) -> None:
    token = fake_token("ghp_", 36)
    memory = make_memory(condition=f"token={token}", title=f"Registry {token}")
    shown = shown_title(memory)
    assert token not in shown
    assert shown == "Registry [secret: github-pat] (token=[secret: github-pat])"


# ------------------------------------------------- a "parallel" decision, everywhere
def test_a_parallel_decision_reads_apart_in_the_index_list_recall_and_export(
    demo: Path, demo_cli: Cli, tmp_path: Path
) -> None:
    """The seed's deploy-command conflict decided "parallel": the two records of one
    key each say their condition (there were two "Deploy command" lines)."""
    item = the_item(demo, "conflict", scope="team")
    newer, older = sorted(item.records, key=lambda r: r.memory.created_at, reverse=True)
    ids = (newer.memory.id, older.memory.id)
    code, _out, err = demo_cli(
        *("decide", item.id, "--approve", "--option", "parallel"),
        *("--condition", f"{ids[0]}=env=production", "--condition", f"{ids[1]}=env=staging"),
        *("--reason", "both hold", "--store", str(demo), "--as", "liys05"),
    )
    assert code == 0, err
    _private, team = stores(demo)
    title = newer.memory.display_title
    wanted = {ids[0]: f"{title} (env=production)", ids[1]: f"{title} (env=staging)"}

    # the index
    lines = {
        line.target.rsplit("/", 1)[1].removesuffix(".md"): line
        for line in parse_index(_index(team.root))
    }
    assert {i: lines[i].title for i in ids} == wanted
    assert [f.render() for f in diagnose(Store(team.root)) if f.path == INDEX_FILE] == []

    # memgov list and memgov recall, plain text
    code, out, _ = demo_cli("list", "--store", str(team.root))
    assert code == 0
    for memory_id, shown in wanted.items():
        (line,) = [li for li in out.splitlines() if li.startswith(memory_id)]
        assert f" — {shown}: " in line and " active " in line
    code, out, _ = demo_cli(
        "recall", team.memories[ids[0]].subject, "--no-usage", "--store", str(team.root)
    )
    assert code == 0
    recalled = [li for li in out.splitlines() if f"#{newer.memory.attribute}" in li]
    assert [li.split(" — ", 1)[1].split(":", 1)[0] for li in recalled] == [
        wanted[ids[0]],
        wanted[ids[1]],
    ]

    # export: its index and its topic files
    out_dir = tmp_path / "export"
    export_claude_code(open_workspace([team.root]), out_dir)
    index = (out_dir / INDEX_FILE).read_text(encoding="utf-8")
    for memory_id, shown in wanted.items():
        (topic,) = [p for p in out_dir.rglob("*.md") if f"id: {memory_id}\n" in p.read_text()]
        assert f"\nname: {shown}\n" in topic.read_text()
        assert f"- [{shown}]({topic.relative_to(out_dir).as_posix()})" in index


def test_the_export_of_conditions_imports_back_as_the_same_titles(
    store: Store, make_memory: MakeMemory, tmp_path: Path
) -> None:

    add_memories(
        store,
        make_memory(id="prod", attribute="deploy", title="Deploy", condition="env=production"),
        make_memory(id="stage", attribute="deploy", title="Deploy", condition="env=staging"),
    )
    export_claude_code(store, tmp_path / "export")
    fresh = Store.init(tmp_path / "fresh", owner=ACTOR, actor=ACTOR)
    import_folder(CLAUDE_CODE, open_workspace([fresh.root]), tmp_path / "export", actor=ACTOR)
    again = Store(fresh.root).memories.values()
    assert sorted((m.title, m.condition) for m in again) == [
        ("Deploy", "env=production"),
        ("Deploy", "env=staging"),
    ]


# ------------------------------------------------------------ never a secret
def test_a_credential_in_a_condition_reaches_no_agent_facing_text(
    store: Store, make_memory: MakeMemory, cli: Cli, tmp_path: Path
) -> None:
    token = fake_token("ghp_", 36, seed=11)
    add_memories(
        store,
        make_memory(id="reg", attribute="registry", condition=f"token={token}"),
        make_memory(id="plain", attribute="format"),
    )
    index = _index(store.root)  # a link's text has no brackets: ( ) for [ ]
    assert token not in index and "[Registry (token=(secret: github-pat))](" in index
    for argv in (("list",), ("recall", "user:", "--no-usage")):
        code, out, _ = cli(*argv, "--store", str(store.root))
        assert code == 0 and token not in out
        assert "(token=[secret: github-pat])" in out
    report = export_claude_code(store, tmp_path / "export")
    assert any(entry.startswith("reg: holds a credential") for entry in report.left_out)
    for path in (tmp_path / "export").rglob("*"):
        if path.is_file():
            assert token not in path.read_text(encoding="utf-8")


# ------------------------------------------------- never a record that is not current
def _of_every_status(store: Store, make_memory: MakeMemory) -> None:
    """One key's records in every status but deleted: only ``now`` is current."""
    old = FIXED_NOW - timedelta(days=3)
    add_memories(
        store,
        make_memory(id="now", value="tables", content="Use tables."),
        make_memory(id="was", value="lists", content="Use lists.", created_at=old, verified_at=old),
        make_memory(id="odd-a", attribute="tone", value="dry", content="Be dry."),
        make_memory(id="odd-b", attribute="tone", value="warm", content="Be warm."),
        make_memory(id="gone", attribute="editor", value="vim", content="Use vim."),
    )
    with transaction(store, actor=ACTOR, message="test: statuses") as tx:
        tx.transition("was", "superseded", action="supersede", reason="test")
        tx.update("now", action="update", reason="test", supersedes="was")
        tx.transition("odd-a", "conflict", action="conflict", reason="test")
        tx.transition("odd-b", "conflict", action="conflict", reason="test")
        tx.transition("gone", "expired", action="expire", reason="test")


def test_only_active_records_are_indexed_recalled_and_exported(
    store: Store, make_memory: MakeMemory, cli: Cli, tmp_path: Path
) -> None:
    _of_every_status(store, make_memory)
    store = Store(store.root)
    listed = [line.target for line in parse_index(_index(store.root))]
    assert listed == [store.memories["now"].path]

    code, out, _ = cli("recall", "user:", "--no-usage", "--store", str(store.root), "--json")
    assert code == 0 and [r["id"] for r in json.loads(out)] == ["now"]
    code, out, _ = cli("recall", "user:", "--no-usage", "--store", str(store.root))
    assert code == 0 and len(out.splitlines()) == 1 and "Use tables." in out

    report = export_claude_code(store, tmp_path / "export")
    assert len(report.files) == 1 == len(report.indexed)
    texts = [p.read_text() for p in (tmp_path / "export").rglob("*.md")]
    assert not any(word in text for text in texts for word in ("lists", "Be dry", "warm", "vim"))


def test_plain_list_shows_each_record_s_status(
    store: Store, make_memory: MakeMemory, cli: Cli
) -> None:
    """``memgov list`` without --status lists every record; the one current record
    is the only one whose status column says active."""
    _of_every_status(store, make_memory)
    code, out, _ = cli("list", "--store", str(store.root))
    assert code == 0
    status = {line.split()[0]: line.split()[1] for line in out.splitlines()}
    assert status == {
        "now": "active",
        "was": "superseded",
        "odd-a": "conflict",
        "odd-b": "conflict",
        "gone": "expired",
    }
