"""MEMORY.md within its caps keeps what matters most: with more active
records than 200 lines or 25,000 bytes allow, it holds preferences first, then the
other types, each by decay weight, lists what it keeps by type and subject, and its
last line says how many more there are and how to recall them. Every write (which
reads only the first rows of the catalog's ordered index), a full render, doctor,
``memgov reindex`` and export agree on that order; doctor does not warn about an
index memgov cut to fit, and still warns about one edited by hand over the caps."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.domain.record import Memory
from core.importers.claude_code.export import export_claude_code
from core.reports.doctor import diagnose
from core.reports.metrics import health
from core.store.config import CONFIG_FILE, Config
from core.store.index import (
    INDEX_FILE,
    index_rank,
    overflow_line,
    parse_index,
    render_index,
)
from core.store.store import Store
from core.store.transaction import transaction
from core.writing.decay import recall, weight
from tests.conftest import ACTOR, FIXED_NOW, MakeMemory, add_memories, commit_count, events, git

Cli = Callable[..., tuple[int, str, str]]


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Cli:
    from tui.cli import main

    monkeypatch.setenv("MEMGOV_NOW", FIXED_NOW.isoformat())

    def run(*argv: str) -> tuple[int, str, str]:
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return run


def _configured(store: Store, **settings_: object) -> Store:
    """The store with these settings in its committed config, opened again."""
    path = store.root / CONFIG_FILE
    text = "".join(
        line
        for line in path.read_text(encoding="utf-8").splitlines(keepends=True)
        if line.split(":", 1)[0] not in settings_
    )
    path.write_text(text + "".join(f"{k}: {v}\n" for k, v in settings_.items()), encoding="utf-8")
    git(store.root, "add", CONFIG_FILE)
    git(store.root, "commit", "-qm", "config")
    return Store(store.root, clock=store.clock)


def _index(store: Store) -> str:
    return (store.root / INDEX_FILE).read_text(encoding="utf-8")


def _listed(store: Store) -> list[str]:
    """The ids MEMORY.md lists, in its order."""
    return [
        line.target.rsplit("/", 1)[1].removesuffix(".md") for line in parse_index(_index(store))
    ]


def _full_render(store: Store) -> str:
    fresh = Store(store.root, clock=store.clock)
    return render_index(fresh.load().memories.values(), fresh.config)


def _index_findings(store: Store) -> list[str]:
    return [f.render() for f in diagnose(Store(store.root)) if f.path == INDEX_FILE]


def _aged(make_memory: MakeMemory, memory_id: str, *, days: float, **fields: object) -> Memory:
    when = FIXED_NOW - timedelta(days=days)
    return make_memory(id=memory_id, created_at=when, verified_at=when, **fields)


# ------------------------------------------------------------------- what is kept
def test_over_the_caps_preferences_come_first_then_the_heaviest(
    store: Store, make_memory: MakeMemory
) -> None:
    store = _configured(store, index_max_lines=5)
    semantic = [
        _aged(
            make_memory,
            f"fact-{n}",
            days=n * 7,
            type="semantic",
            subject=f"project:{'zyx'[n % 3]}",
            attribute=f"fact_{n}",
            confidence=0.95,
        )
        for n in range(6)
    ]
    preferences = [  # light: old and unsure, yet kept first
        _aged(make_memory, f"pref-{n}", days=300, attribute=f"pref_{n}", confidence=0.3)
        for n in range(2)
    ]
    reflection = _aged(make_memory, "lesson", days=0, type="reflection", attribute="lesson")
    add_memories(store, *semantic, *preferences, reflection)

    now = store.now()
    heaviest = sorted(semantic, key=lambda m: -weight(m, now, store.config))[:2]
    kept = _listed(store)
    assert set(kept) == {"pref-0", "pref-1", *(m.id for m in heaviest)}
    # listed by type (preferences first), then subject and attribute
    assert kept[:2] == ["pref-0", "pref-1"]
    assert kept[2:] == [m.id for m in sorted(heaviest, key=lambda m: (m.subject, m.attribute))]
    assert _index(store).endswith(overflow_line(5, store.config))
    assert _index(store) == _full_render(store)
    assert _index_findings(store) == []


def test_a_record_recalled_moves_up_by_its_weight(store: Store, make_memory: MakeMemory) -> None:
    store = _configured(store, index_max_lines=3)
    add_memories(
        store,
        *(_aged(make_memory, f"m-{n}", days=10 + n, attribute=f"a_{n}") for n in range(6)),
    )
    assert _listed(store) == ["m-0", "m-1"]
    # a use of the lightest makes it the heaviest (d1 is days since last use)
    recall(store, subject_prefix=None, attribute="a_5", actor=ACTOR)
    assert _listed(store) == ["m-0", "m-5"]
    assert _index(store) == _full_render(store)


def test_an_index_that_fits_lists_every_active_record_in_a_readable_order(
    store: Store, make_memory: MakeMemory
) -> None:
    add_memories(
        store,
        _aged(make_memory, "b-fact", days=1, type="semantic", subject="project:b", attribute="x"),
        _aged(make_memory, "a-fact", days=90, type="semantic", subject="project:a", attribute="y"),
        _aged(make_memory, "lesson", days=0, type="reflection", attribute="lesson"),
        _aged(make_memory, "event", days=0, type="episodic", attribute="standup"),
        _aged(make_memory, "pref", days=400, attribute="tables", confidence=0.2),
        _aged(make_memory, "prod", days=3, attribute="deploy", condition="env=production"),
        _aged(make_memory, "stage", days=1, attribute="deploy", condition="env=staging"),
    )
    assert _listed(store) == ["prod", "stage", "pref", "a-fact", "b-fact", "event", "lesson"]
    assert "more active memor" not in _index(store)


def test_the_note_says_how_many_more_and_how_to_recall_them(
    store: Store, make_memory: MakeMemory
) -> None:
    store = _configured(store, index_max_lines=3)
    add_memories(store, *(make_memory(id=f"m-{n}", attribute=f"a_{n}") for n in range(103)))
    last = _index(store).splitlines()[-1]
    assert last == (
        "- … and 101 more active memories not listed (this index keeps within 3 lines and "
        "25,000 bytes): recall them by subject with 'memgov recall SUBJECT' or the MCP tool recall"
    )


# -------------------------------------------------------------- the static rank
_TIMES = st.floats(min_value=0, max_value=3_000, allow_nan=False)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(0.01, 1.0), _TIMES, _TIMES, st.one_of(st.none(), _TIMES)),
        min_size=2,
        max_size=8,
    ),
    st.sampled_from([(30.0, 60.0), (1.0, 2.0), (365.0, 30.0)]),
)
def test_the_rank_orders_records_as_their_weight_does_at_any_later_time(
    specs: list[tuple[float, float, float, float | None]], taus: tuple[float, float]
) -> None:
    """ln(weight) is the rank less what ``now`` takes from every record alike: for any
    ``now`` after the records' times, the heavier record has the higher rank."""
    config = Config(tau1_days=taus[0], tau2_days=taus[1])
    start = datetime(2020, 1, 1, tzinfo=FIXED_NOW.tzinfo)
    memories = []
    for n, (confidence, created, verified, used) in enumerate(specs):
        memories.append(
            Memory(
                id=f"m-{n}",
                type="semantic",
                scope="private",
                status="active",
                subject="project:p",
                attribute=f"a_{n}",
                content="x",
                confidence=confidence,
                created_at=start + timedelta(days=created),
                verified_at=start + timedelta(days=verified),
                last_used_at=None if used is None else start + timedelta(days=used),
            )
        )
    for later in (3_000, 3_500, 9_000):
        now = start + timedelta(days=later)
        for a in memories:
            for b in memories:
                wa, wb = (weight(m, now, config) for m in (a, b))
                if wb > 1e-300 and wa > wb * (1 + 1e-9):  # (a weight years old is 0.0)
                    assert index_rank(a, config) > index_rank(b, config)


# --------------------------------------------------- every writer agrees, always
@pytest.mark.parametrize("seed", [1, 5])
def test_after_every_change_the_index_is_the_render_of_every_record(
    store: Store, make_memory: MakeMemory, seed: int
) -> None:
    """Creates, uses, re-verifications, expiries and erasures of records of mixed types,
    confidences and ages, and a change of the decay constants: after each write,
    MEMORY.md (the first catalog rows merged with the changed records) is what a render
    of every record gives."""
    store = _configured(store, index_max_lines=6)
    rng = random.Random(seed)
    live: list[str] = []
    for step in range(45):
        action = rng.choice(["create"] * 3 + ["use", "verify", "expire", "erase"])
        if step == 25:
            store = _configured(store, tau1_days=2, tau2_days=400)
        if action == "create" or not live:
            memory_id = f"m-{step}"
            add_memories(
                store,
                _aged(
                    make_memory,
                    memory_id,
                    days=rng.uniform(0, 200),
                    type=rng.choice(["preference", "semantic", "episodic", "reflection"]),
                    subject=rng.choice(["project:a", "project:b", "user:alice"]),
                    attribute=f"a_{step}",
                    confidence=rng.choice([0.3, 0.6, 0.9]),
                    condition=rng.choice([None, None, "env=production"]),
                ),
            )
            live.append(memory_id)
        else:
            memory_id = rng.choice(live)
            when = FIXED_NOW - timedelta(days=rng.uniform(0, 100))
            with transaction(store, actor=ACTOR, message=action) as tx:
                current = tx.get(memory_id)
                if action == "use":
                    tx.update(memory_id, action="use", reason="x", last_used_at=when)
                elif action == "verify":
                    tx.update(memory_id, action="verify", reason="x", verified_at=when)
                elif action == "expire" and current.status == "active":
                    tx.transition(memory_id, "expired", action="sweep", reason="x")
                elif action == "erase":
                    tx.erase(memory_id, action="delete", reason="x")
                    live.remove(memory_id)
        assert _index(store) == _full_render(store), step
    assert "more active memor" in _index(store)
    assert _index_findings(store) == []


def test_a_change_of_the_decay_constants_ranks_the_catalog_again(
    store: Store, make_memory: MakeMemory
) -> None:
    """Sure but long unused, or unsure and used today: which weighs more depends on
    tau. A catalog ranked under the old constants is ranked again when they change."""
    store = _configured(store, index_max_lines=2)
    sure = _aged(make_memory, "sure", days=60, attribute="sure", confidence=0.99)
    fresh = _aged(make_memory, "fresh", days=0, attribute="fresh", confidence=0.2)
    note = _aged(make_memory, "note", days=0, type="episodic", attribute="note")
    add_memories(store, sure, fresh, note)
    assert _listed(store) == ["fresh"]  # tau1 30 days: two months of disuse weigh most
    store = _configured(store, tau1_days=10_000, tau2_days=20_000)
    add_memories(store, _aged(make_memory, "note-2", days=0, type="episodic", attribute="n2"))
    assert _listed(store) == ["sure"]  # decay all but off: confidence decides
    assert _index(store) == _full_render(store)


def test_a_write_reads_the_catalog_s_first_rows_in_the_index_s_order(store: Store) -> None:
    """The index's order is one partial index of the catalog, walked from its start:
    no sort of every active row (a write costs what it touches)."""
    plan = store.catalog.db.execute(
        "EXPLAIN QUERY PLAN SELECT type_order, rank, id, rel FROM entries "
        "INDEXED BY entries_active WHERE reason IS NULL AND status = 'active' "
        "ORDER BY type_order, rank DESC, id, rel LIMIT 10"
    ).fetchall()
    text = " ".join(str(row) for row in plan)
    assert "entries_active" in text and "TEMP B-TREE" not in text


# ------------------------------------------------------------------- doctor
def test_a_large_store_whose_index_memgov_cut_is_not_warned_about(
    store: Store, make_memory: MakeMemory
) -> None:
    """A 150-character line limit and a store far past the caps: the note memgov ends
    the index with is longer than a line may be, but it is no index line."""
    store = _configured(store, index_line_chars=100)
    add_memories(store, *(make_memory(id=f"m-{n:03d}", attribute=f"a_{n:03d}") for n in range(260)))
    text = _index(store)
    assert len(text.splitlines()) <= 200 and len(text.encode()) <= 25_000
    assert len(text.splitlines()[-1]) > 100
    assert _index_findings(store) == []
    assert health(Store(store.root)).index["warnings"] == []


def test_a_hand_edited_index_over_the_caps_still_warns(
    store: Store, make_memory: MakeMemory
) -> None:
    add_memories(store, *(make_memory(id=f"m-{n:03d}", attribute=f"a_{n:03d}") for n in range(3)))
    text = _index(store)
    padding = "".join(f"- a note of mine, number {n}, " + "x" * 150 + "\n" for n in range(240))
    (store.root / INDEX_FILE).write_text(text + padding, encoding="utf-8")
    findings = " | ".join(_index_findings(store))
    assert "over the 25,000-byte cap" in findings
    assert "over the 200-line cap" in findings
    assert "240 lines over 150 characters" in findings


# ------------------------------------------------------------------- reindex
def test_reindex_writes_an_index_an_older_memgov_wrote_and_then_nothing(
    store: Store, make_memory: MakeMemory, cli: Cli
) -> None:
    store = _configured(store, index_max_lines=4)
    add_memories(
        store, *(_aged(make_memory, f"m-{n}", days=n, attribute=f"a_{9 - n}") for n in range(8))
    )
    wanted = _index(store)
    # what an older memgov wrote: the first records by subject and attribute, any weight
    old = sorted(Store(store.root).memories.values(), key=lambda m: m.attribute)[:3]
    from core.store.index import index_line

    stale = "".join(index_line(m, 150) + "\n" for m in old) + "- … and 5 more\n"
    (store.root / INDEX_FILE).write_text(stale, encoding="utf-8")
    git(store.root, "commit", "-qam", "an older memgov's index")
    assert any("has no index line" in f for f in _index_findings(store))
    commits, logged = commit_count(store.root), len(events(store.root))

    code, out, err = cli("reindex", "--store", str(store.root), "--as", ACTOR)
    assert (code, err) == (0, "")
    size = len(wanted.encode())
    assert (
        out
        == f"{store.root}: wrote MEMORY.md, 3 active memories listed in 4 lines, {size:,} bytes\n"
    )
    assert _index(store) == wanted
    assert commit_count(store.root) == commits + 1
    (event,) = events(store.root)[logged:]
    assert event["action"] == "reindex" and event["details"]["listed"] == 3
    assert _index_findings(store) == []

    code, out, _ = cli("reindex", "--store", str(store.root), "--as", ACTOR)
    assert code == 0 and "already up to date" in out
    assert commit_count(store.root) == commits + 1


def test_doctor_says_once_that_an_index_in_another_order_needs_reindex(
    store: Store, make_memory: MakeMemory
) -> None:
    store = _configured(store, index_max_lines=9)
    add_memories(store, *(make_memory(id=f"m-{n}", attribute=f"a_{n}") for n in range(12)))
    (store.root / INDEX_FILE).write_text("", encoding="utf-8")
    git(store.root, "commit", "-qam", "an index emptied by hand")
    (finding,) = _index_findings(store)
    assert "8 active memories it should list have no index line (m-0, m-1, m-10 ...)" in finding
    assert finding.endswith("run 'memgov reindex'")


def test_reindex_of_a_team_store_is_for_its_maintainers(tmp_path: Path, cli: Cli) -> None:
    team = Store.init(
        tmp_path / "team", scope="team", maintainers=("lead@example.com",), actor="lead@example.com"
    )
    code, _out, err = cli("reindex", "--store", str(team.root), "--as", "someone@example.com")
    assert code == 1 and "may not reindex the team store" in err
    code, out, _ = cli("reindex", "--store", str(team.root), "--as", "lead@example.com")
    assert code == 0 and "already up to date" in out


# -------------------------------------------------------------------- export
def test_export_keeps_what_the_store_s_index_keeps(
    store: Store, make_memory: MakeMemory, tmp_path: Path
) -> None:
    """Its own index (Claude Code's sections) within the same caps: preferences first,
    then the heaviest, as MEMORY.md keeps them."""
    store = _configured(store, index_max_lines=6)
    add_memories(
        store,
        *(
            _aged(
                make_memory,
                f"fact-{n}",
                days=n,
                type="semantic",
                subject="project:p",
                attribute=f"fact_{n}",
                confidence=0.95,
            )
            for n in range(6)
        ),
        _aged(make_memory, "pref", days=300, attribute="tables", confidence=0.3),
    )
    report = export_claude_code(store, tmp_path / "export")
    index = (tmp_path / "export" / INDEX_FILE).read_text(encoding="utf-8")
    # "## Feedback", the preference, a blank line, "## Project", the two heaviest facts
    assert len(index.splitlines()) == 6
    indexed = {
        (tmp_path / "export" / rel).read_text().split("id: ", 1)[1].split("\n", 1)[0]
        for rel in report.indexed
    }
    assert indexed == {"pref", "fact-0", "fact-1"}
    assert indexed <= set(_listed(store))
