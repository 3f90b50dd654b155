"""The evidence a reviewer reads: each record's sources resolved, and what the
sources favour in a conflict (SPEC section 10, steps 2 and 3 of adjudication).

:class:`Evidence` reads what it needs from one store on first use only (the
task index of the daily logs, the index's lines, the requests, the team
copies), so the queue builds it once per store and :func:`core.review.queue.get_item`
pays only for what one item shows.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cached_property

from core.domain.record import Memory
from core.review.items import ConditionHints, ConflictAnalysis, Key, RecordEvidence, SourceEvidence
from core.store import logs, team_state
from core.store.decisions import copies_by_record
from core.store.index import INDEX_FILE, line_span, read_index_text
from core.store.requests import Request, open_requests
from core.store.store import Store

# words in the evidence that suggest the values hold at different times or in different places
SEQUENTIAL_HINTS = re.compile(
    r"from next week|starting|from now on|switched|no longer|instead"
    r"|改用|从下周|以后|不再|换成",
    re.IGNORECASE,
)
PARALLEL_HINTS = re.compile(
    r"\b(?:production|prod|staging|testing|test env|dev(?:elopment)?)\b"
    r"|生产|测试|预发|开发环境",
    re.IGNORECASE,
)


class Evidence:
    """What evidence-building needs from one store, each part read once, when needed."""

    def __init__(self, store: Store, workspace_stores: Iterable[Store] = ()) -> None:
        self.store = store
        self.workspace_stores = list(workspace_stores) or [store]

    @cached_property
    def tasks(self) -> dict[str, list[str]]:
        return logs.task_index(self.store.root)

    @cached_property
    def index_text(self) -> str:
        return read_index_text(self.store.root)[0] or ""  # doctor reports an unreadable index

    def index_line(self, path: str) -> int | None:
        """The number of the index line that points at ``path`` (None: none does)."""
        span = line_span(self.index_text, path)
        return None if span is None else self.index_text.count("\n", 0, span[0]) + 1

    def replaced_by(self, memory_id: str) -> str | None:
        """The record that supersedes ``memory_id`` (an indexed query)."""
        found = self.store.memories.superseding(memory_id)
        return found[0].id if found else None

    @cached_property
    def untrusted(self) -> dict[str, list[str]]:
        """A team clone's files changed by commits no listed maintainer signed, each
        with what the desk says of it until a maintainer re-decides the commit."""
        if self.store.config.scope != "team":
            return {}
        found: dict[str, list[str]] = {}
        for row in team_state.untrusted_rows(self.store.state_dir):
            note = (
                f"UNTRUSTED: a change on the remote, not taken here: commit "
                f"{row['commit'][:10]} by {row.get('author', '?')}, {row['why']}"
            )
            for path in row.get("files", []):
                if isinstance(path, str):
                    found.setdefault(path, []).append(note)
        return found

    @cached_property
    def requests(self) -> list[Request]:
        """The store's open requests (a decided one is no item and points nowhere)."""
        return open_requests(self.store)

    @cached_property
    def _open_by_memory(self) -> dict[str, list[Request]]:
        found: dict[str, list[Request]] = {}
        for request in self.requests:
            found.setdefault(request.memory_id, []).append(request)
        return found

    @cached_property
    def copies(self) -> dict[str, list[tuple[Store, str]]]:
        return copies_by_record(self.workspace_stores)

    def team_copies(self, memory_id: str) -> list[tuple[Store, str]]:
        """The team copies of a promoted private record (decision records read once)."""
        return self.copies.get(memory_id, [])

    def of(self, memory: Memory) -> RecordEvidence:
        """A record with its sources resolved in the store's logs and what points at it."""
        sources = tuple(
            SourceEvidence(
                s,
                logs.resolve(
                    self.store.root,
                    s,
                    # the task index of every log only for a source that names no log
                    task_logs=self.tasks if s.log is None and s.file is None else None,
                    outside_ok=self.store.config.scope == "private",
                ),
            )
            for s in memory.all_sources
        )
        pointers = []
        line = self.index_line(memory.path)
        if line is not None:
            pointers.append(f"{INDEX_FILE} line {line}")
        if memory.supersedes:
            pointers.append(f"supersedes {memory.supersedes}")
        replacement = self.replaced_by(memory.id)
        if replacement is not None:
            pointers.append(f"superseded by {replacement}")
        pointers += [
            f"{r.named} {r.id} ({r.status})" for r in self._open_by_memory.get(memory.id, ())
        ]
        pointers += self.untrusted.get(memory.path, [])
        return RecordEvidence(memory, str(self.store.root), sources, tuple(pointers))


def weigh(key: Key, records: Iterable[RecordEvidence]) -> ConflictAnalysis:
    """Which record the sources favour (newer, verified more recently, more sources,
    higher confidence: one vote each), and hints from reading the evidence about
    conditions. The reader decides."""
    recs = list(records)
    if not recs:
        return ConflictAnalysis(key)
    newest = max(recs, key=lambda r: r.memory.created_at)
    verified = max(recs, key=lambda r: r.memory.verified_at)
    most = max(recs, key=lambda r: len(r.sources))
    surest = max(recs, key=lambda r: r.memory.confidence)
    votes: dict[str, list[str]] = {r.memory.id: [] for r in recs}
    votes[newest.memory.id].append("newer")
    votes[verified.memory.id].append("verified more recently")
    if len({len(r.sources) for r in recs}) > 1:
        votes[most.memory.id].append("more sources")
    if len({r.memory.confidence for r in recs}) > 1:
        votes[surest.memory.id].append("higher confidence")
    favoured = max(recs, key=lambda r: (len(votes[r.memory.id]), r.memory.created_at))
    hints = {}
    for r in recs:
        text = " ".join(
            [s.source.evidence for s in r.sources]
            + [line for s in r.sources if s.excerpt for _n, line in s.excerpt.lines]
        )
        hints[r.memory.id] = ConditionHints(
            sequential=tuple(sorted({m.group(0).lower() for m in SEQUENTIAL_HINTS.finditer(text)})),
            parallel=tuple(sorted({m.group(0).lower() for m in PARALLEL_HINTS.finditer(text)})),
        )
    return ConflictAnalysis(
        key=key,
        favoured=favoured.memory.id,
        why=tuple(votes[favoured.memory.id]),
        votes={k: tuple(v) for k, v in votes.items()},
        condition_hints=hints,
        newer=newest.memory.id,
        older=min(recs, key=lambda r: r.memory.created_at).memory.id,
    )
