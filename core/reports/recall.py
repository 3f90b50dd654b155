"""What the stores of a workspace hold for a query, merged across the stores.

Two views, both read in the order the stores were given:

* :func:`recall_in`: each store's active records of the key, ranked by weight
  (:func:`core.writing.decay.recall`, which records their use where the actor may
  write), merged into one list ordered by weight (a stable sort: between equal
  weights the earlier store, then that store's own order, comes first) and cut to
  ``limit``;
* :func:`list_in`: every store's records filtered by status and subject prefix,
  each store's in (subject, attribute) order, the stores one after another.

Their plain-text lines (:func:`recalled_line`, :func:`listed_line`) name each record
by its title with its condition (:func:`core.domain.shown.shown_title`), as the
index does, so two records of one key that hold under different conditions read
apart; a listed record shows its status, and nothing is shown unredacted.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from core.domain.provenance import caution
from core.domain.record import Memory
from core.domain.shown import shown_title
from core.store.store import Store
from core.store.workspace import Workspace
from core.writing.decay import Recalled, recall, records_usage


def recall_in(
    workspace: Workspace,
    *,
    subject_prefix: str | None,
    attribute: str | None,
    actor: str,
    limit: int = 10,
    record_usage: bool = True,
    on_unrecorded: Callable[[Store], None] | None = None,
    withheld: list[str] | None = None,
    task: str | None = None,
) -> list[Recalled]:
    """The ``limit`` heaviest active records of the key across the workspace's stores.

    When ``record_usage`` is asked for and a store does not record ``actor``'s use
    (a team store, for anyone but its maintainers), ``on_unrecorded`` is told about
    that store before it is read. ``withheld`` gets the ids of the records left out
    because they try to steer the agent and wait for a person (their items are
    ``steering-<id>``). ``task``: the task recalling, kept in the use events (what
    the hit rate counts).
    """
    results: list[Recalled] = []
    for store in workspace.stores:
        if record_usage and on_unrecorded is not None and not records_usage(store, actor):
            on_unrecorded(store)
        results += recall(
            store,
            subject_prefix=subject_prefix,
            attribute=attribute,
            actor=actor,
            limit=limit,
            record_usage=record_usage,
            withheld=withheld,
            task=task,
        )
    results.sort(key=lambda r: -r.weight)
    return results[:limit]


def list_in(
    workspace: Workspace,
    *,
    statuses: Collection[str] | None = None,
    subject_prefix: str | None = None,
) -> list[Memory]:
    """The workspace's records of any of ``statuses`` (all when none is given) whose
    subject starts with ``subject_prefix``, store by store in key order."""
    rows: list[Memory] = []
    for store in workspace.stores:
        # an indexed query: only the subject's records are built
        found = store.memories.with_subject(subject_prefix or "")
        for memory in sorted(found, key=lambda m: (m.subject, m.attribute)):
            if statuses and memory.status not in statuses:
                continue
            if subject_prefix and not memory.subject.startswith(subject_prefix):
                continue
            rows.append(memory)
    return rows


def recalled_line(result: Recalled) -> str:
    """One recalled record as plain text: weight, type, where its type is injected,
    key, the title with its condition, and the content's first line, redacted."""
    from core.domain.secrets import redact

    memory = result.memory
    position = result.to_dict()["injection"]
    warned = caution(memory.provenance)
    return (
        f"{result.weight:6.3f} {memory.type:<10} [{position}] {memory.subject} "
        f"#{memory.attribute} — {shown_title(memory)}: {redact(memory.hook)}"
        + (f" ({warned})" if warned else "")
    )


def listed_line(memory: Memory, *, hook_chars: int = 60) -> str:
    """One listed record as plain text: id, status (a record that is not active says
    so in its own column), type, key, the title with its condition and the start of
    the content's first line, redacted."""
    from core.domain.secrets import redact

    return (
        f"{memory.id:<34} {memory.status:<10} {memory.type:<10} {memory.subject} "
        f"#{memory.attribute} — {shown_title(memory)}: {redact(memory.hook)[:hook_chars]}"
    )
