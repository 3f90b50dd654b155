"""``memgov doctor``: validate a whole store without changing anything.

Errors make the exit status 1; warnings (a long index, a large file) are
shown but do not, unless ``--strict``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core import gitstore, logs
from core.index import INDEX_FILE, check_index, parse_index
from core.store import JOURNAL_FILE, MEMORY_DIR, STATE_DIR, Store


@dataclass(frozen=True)
class Finding:
    severity: str  # error | warning
    path: str
    reason: str
    field: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "severity": self.severity,
            "path": self.path,
            "field": self.field,
            "reason": self.reason,
        }

    def render(self) -> str:
        where = self.path + (f": field '{self.field}'" if self.field else "")
        return f"{self.severity:<7} {where}: {self.reason}"


def diagnose(store: Store) -> list[Finding]:
    found: list[Finding] = []
    snap = store.refresh()
    root = store.root
    for problem in snap.problems:
        found.append(Finding("error", problem.path, problem.reason, problem.field))
    for warning in snap.warnings:
        path, _, reason = warning.partition(": ")
        found.append(Finding("warning", path, reason))
    memories = snap.memories

    # the index: limits, pointers that resolve, and agreement with the active records
    index_path = root / INDEX_FILE
    text = index_path.read_text(encoding="utf-8", errors="replace") if index_path.exists() else ""
    for warning in check_index(text, store.config):
        # keep the numbers: "MEMORY.md is 30,123 bytes, over the 25,000-byte cap: ..."
        found.append(Finding("warning", INDEX_FILE, warning.removeprefix(f"{INDEX_FILE}: ")))
    by_path = {m.path: m for m in memories.values()}
    listed = set()
    for line in parse_index(text):
        listed.add(line.target)
        target = by_path.get(line.target)
        if target is None:
            found.append(
                Finding(
                    "error",
                    INDEX_FILE,
                    f"line {line.number} points at {line.target}, which is not a readable memory",
                )
            )
        elif target.status != "active":
            found.append(
                Finding(
                    "error",
                    INDEX_FILE,
                    f"line {line.number} points at {line.target}, which is {target.status}",
                )
            )
    for memory in memories.values():
        if memory.status == "active" and memory.path not in listed:
            found.append(
                Finding(
                    "error",
                    INDEX_FILE,
                    f"active memory {memory.id} has no "
                    f"index line; rerun the last change or 'memgov reindex'",
                )
            )

    # the event log: unreadable lines, and status agreeing with the last transition
    events, bad = store.events()
    for bad_line in bad:
        found.append(Finding("error", "events.jsonl", f"line {bad_line.line}: {bad_line.reason}"))
    rolled_back = {
        i for e in events if e.action == "recover" for i in e.details.get("rolled_back_events", [])
    }
    last_status: dict[str, str] = {}
    for event in events:
        if event.id in rolled_back or event.to_status is None:
            continue
        for memory_id in event.memory_ids:
            last_status[memory_id] = event.to_status
    for memory in memories.values():
        recorded = last_status.get(memory.id)
        if recorded is None:
            found.append(
                Finding(
                    "error",
                    memory.path,
                    "no event records how this memory "
                    "came to be; import it with 'memgov import' or 'remember'",
                    "status",
                )
            )
        elif recorded != memory.status:
            found.append(
                Finding(
                    "error",
                    memory.path,
                    f"status is {memory.status} but the last event says {recorded}",
                    "status",
                )
            )

    # supersedes: cycles and dangling pointers
    erased = {i for e in events if e.to_status == "deleted" for i in e.memory_ids}
    reported: set[str] = set()
    for memory in memories.values():
        seen = [memory.id]
        current = memory
        while current.supersedes:
            nxt = current.supersedes
            if nxt in seen:
                cycle = seen[seen.index(nxt) :]
                if not reported.intersection(cycle):
                    found.append(
                        Finding(
                            "error",
                            memory.path,
                            "supersedes cycle: " + " -> ".join([*cycle, nxt]),
                            "supersedes",
                        )
                    )
                    reported.update(cycle)
                break
            if nxt not in memories:
                if nxt not in erased and current is memory:
                    found.append(
                        Finding(
                            "error",
                            memory.path,
                            f"supersedes {nxt}, which is not in the store",
                            "supersedes",
                        )
                    )
                break
            seen.append(nxt)
            current = memories[nxt]

    # sources: every pointer of a live record should resolve to its evidence
    tasks = logs.task_index(root)
    for memory in memories.values():
        if memory.status in ("deleted",):
            continue
        for number, source in enumerate(memory.all_sources):
            if logs.resolve(root, source, context=0, task_logs=tasks) is None:
                found.append(
                    Finding(
                        "warning" if memory.status != "active" else "error",
                        memory.path,
                        f"source {number + 1} (task {source.task}) "
                        "does not resolve to a log line or file",
                        "source",
                    )
                )

    # git: an interrupted change, or edits nobody committed
    if (root / STATE_DIR / JOURNAL_FILE).exists():
        found.append(
            Finding(
                "error",
                f"{STATE_DIR}/{JOURNAL_FILE}",
                "a change was interrupted; the next write finishes or undoes it",
            )
        )
    try:
        dirty = gitstore.status_porcelain(store.repo)
    except Exception as exc:
        found.append(Finding("error", ".git", f"git status failed: {type(exc).__name__}"))
        dirty = []
    for entry in dirty:
        path = entry[3:]
        if path.startswith(MEMORY_DIR) or path in (INDEX_FILE, "events.jsonl"):
            found.append(
                Finding(
                    "warning",
                    path,
                    "changed outside memgov and not "
                    "committed (git status: " + entry[:2].strip() + ")",
                )
            )
    return found
