"""One git identity per actor, whichever path made the commit ("commit
authors switch between two addresses for one person").

The commits are made the ways memgov makes them, on real repositories: a write
(the commit object written in process), a decision, a consolidation batch (its
branch written by ``git fast-import``), its approval and baseline tag, an erasure
(the history rewritten), a request, a recovery; then ``git log --all`` must name
every actor with one ``name <address>``, memgov the committer of all of them.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from conftest import FIXED_NOW, FakeClock, MakeMemory, add_memories, git, record_file
from support_decisions import stores, the_item
from support_desk import workspace

from core.consolidation.consolidate import consolidate
from core.demo import AGENT, OWNER
from core.review.decide import decide
from core.store.events import FIRST_SHARD, Event, append_events
from core.store.gitstore import COMMITTER, actor_identity, actor_of
from core.store.journal import JOURNAL_FILE
from core.store.layout import memory_path
from core.store.store import Store
from core.store.transaction import transaction
from core.writing.pipeline import candidate_from_dict, remember

MEMGOV = f"{COMMITTER[0]} <{COMMITTER[1]}>"


def idents(root: Path, *, role: str = "a") -> set[str]:
    """Every ``name <address>`` of the authors (``a``) or committers (``c``) of every
    commit reachable from any ref, and the taggers of the tags."""
    out = git(root, "log", "--all", f"--format=%{role}n <%{role}e>")
    found = {line for line in out.splitlines() if line}
    if role == "c":
        tags = git(root, "for-each-ref", "refs/tags", "--format=%(taggername) %(taggeremail)")
        found |= {line for line in tags.splitlines() if line}
    return found


def one_address_per_actor(found: set[str]) -> None:
    by_name: dict[str, set[str]] = defaultdict(set)
    by_address: dict[str, set[str]] = defaultdict(set)
    for ident in found:
        name, _, address = ident.removesuffix(">").rpartition(" <")
        by_name[name].add(address)
        by_address[address].add(name)
    assert all(len(a) == 1 for a in by_name.values()), by_name
    assert all(len(n) == 1 for n in by_address.values()), by_address


def test_every_path_gives_an_actor_one_address(demo: Path) -> None:
    private, team = stores(demo)
    ws = workspace(demo)
    # the same two actors as the demo's, typed in other cases: one actor to every rule
    # (core.domain.policy.same_actor), so one author
    log, _ = private.log_message(
        task="tr_x", index=1, role="user", text="we deploy on Fridays", actor=AGENT.upper()
    )
    remember(
        private,
        candidate_from_dict(
            {
                "content": "Deploys happen on Fridays.",
                "type": "semantic",
                "scope": "private",
                "subject": "project:liyyro",
                "attribute": "deploy_day",
                "s1": 0.9,
                "s2": 0.9,
                "source": {
                    "task": "tr_x",
                    "message_index": 1,
                    "evidence": "we deploy on Fridays",
                    "log": log,
                },
            }
        ),
        actor=AGENT.upper(),
    )
    batch = the_item(demo, "consolidation")
    decide(ws, the_item(demo, "conflict", scope="team").id, approve=True, option="newer",
           actor=OWNER.upper())  # fmt: skip
    decide(ws, batch.id, approve=True, actor=f" {OWNER} ")
    decide(ws, the_item(demo, "deletion").id, approve=True, actor=OWNER)  # history rewritten
    decide(ws, the_item(demo, "promotion", title="promote to team: Package manager").id,
           approve=True, actor=OWNER)  # fmt: skip

    for root in (private.root, team.root):
        authors = idents(root)
        one_address_per_actor(authors)
        assert idents(root, role="c") == {MEMGOV}
    assert idents(private.root) == {
        f"{OWNER} <{OWNER}@memgov.invalid>",
        f"{AGENT} <{AGENT}@memgov.invalid>",
        "memgov-sweep <memgov-sweep@memgov.invalid>",
        # the batch's own commit is gone with its branch once decided; the baseline
        # before it was tagged by memgov-consolidate's run
    }
    assert idents(team.root) == {
        f"{OWNER} <{OWNER}@memgov.invalid>",
        f"{AGENT} <{AGENT}@memgov.invalid>",
        "wang.lead <wang.lead@example.com>",
    }


def test_a_batch_written_by_fast_import_has_the_writes_author(
    store: Store, clock: FakeClock
) -> None:
    """git cleans an identity (``bot.`` is named ``bot``); the batch's commit, written
    through ``git fast-import``, is cleaned the same way as the in-process commit."""
    actor = "Bot."
    log, _ = store.log_message(
        task="tr_1", index=1, role="user", text="the freeze starts next Friday", actor=actor
    )
    clock.advance(minutes=2)
    remember(
        store,
        candidate_from_dict(
            {
                "content": "The freeze starts next Friday.",
                "type": "semantic",
                "scope": "private",
                "subject": "project:x",
                "attribute": "freeze",
                "s1": 0.9,
                "s2": 0.9,
                "source": {
                    "task": "tr_1",
                    "message_index": 1,
                    "evidence": "the freeze starts next Friday",
                    "log": log,
                },
            }
        ),
        actor=actor,
    )
    clock.advance(days=1)
    report = consolidate(store, actor=actor.lower())
    assert report.status == "pending" and report.batch
    branch = git(store.root, "log", "-1", "--format=%an <%ae>", f"memgov/batch/{report.batch}")

    assert branch.strip() == "bot <bot.@memgov.invalid>"
    found = idents(store.root)
    one_address_per_actor(found)
    assert found == {"tester <tester@example.com>", "bot <bot.@memgov.invalid>"}


def test_a_recovery_is_memgovs_own_commit(store: Store, make_memory: MakeMemory) -> None:
    """A recovery commits as ``memgov``: the committer's identity, not a second one."""
    add_memories(store, make_memory())
    root = store.root
    offset = (root / FIRST_SHARD).stat().st_size
    append_events(
        root / FIRST_SHARD,
        [Event(id="ev-half", ts=FIXED_NOW.isoformat(), actor="x", action="create",
               memory_ids=("mem-9",), to_status="active")],
    )  # fmt: skip
    half = record_file(root, "mem-9")
    half.parent.mkdir(exist_ok=True)
    half.write_text(make_memory(id="mem-9").to_markdown())
    store.state_dir.mkdir(exist_ok=True)
    (store.state_dir / JOURNAL_FILE).write_text(
        json.dumps(
            {
                "phase": "files",
                "actor": "crash@example.com",
                "message": "crashed change",
                "paths": [memory_path("mem-9")],
                "created": [memory_path("mem-9")],
                "events": ["ev-half", "ev-half-2"],
                "events_file": FIRST_SHARD,
                "events_offset": offset,
            }
        )
    )
    with transaction(store, actor="tester@example.com", message="next"):
        pass

    recovered = git(root, "log", "--format=%an <%ae>|%cn <%ce>|%s")
    assert f"{MEMGOV}|{MEMGOV}|recover: roll back an interrupted change" in recovered.splitlines()
    assert actor_identity("memgov") == actor_identity("Memgov") == COMMITTER


def test_history_names_a_commits_author_as_its_events_name_the_actor(
    demo: Path, demo_cli: Callable[..., tuple[int, str, str]]
) -> None:
    private, _team = stores(demo)
    pnpm = next(m for m in private.memories.values() if m.attribute == "package_manager")

    code, out, _ = demo_cli("history", pnpm.id, "--store", str(demo))

    assert code == 0
    commits = [line for line in out.splitlines() if "  commit  " in line]
    assert commits and all(f"  {AGENT}: " in line for line in commits[:3]), commits
    assert "@memgov.invalid" not in out
    for actor in (AGENT, OWNER, "wang.lead@example.com", "memgov", "Bot."):
        name, email = actor_identity(actor)
        assert actor_of(name, email) == actor.lower()  # the actor, as policy compares it
