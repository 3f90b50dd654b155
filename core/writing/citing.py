"""Citations: which recalled memories an agent actually used (seed section 8).

A recall records that records were *offered* (a ``use`` event); a citation records
that one of them *mattered* to the answer (a ``cite`` event). Retrieval's measures
need both: of the memories recalled, how many were never cited (unused
injections), and how often a cited memory was no longer true (stale citations).

:func:`cite_in` checks every id first (an unknown one refuses the whole call,
nothing written), then writes one ``cite`` event per memory in the store that
holds it, one transaction and commit per store. A record that is not active is
still cited (citing an expired memory is exactly the stale citation the measures
look for) and the answer says its status. Like a recall's use, a citation in a
team store is recorded only for its maintainers (:func:`records_usage`): anyone
else's is answered as not recorded, and nothing is written there.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from core.domain.data import AsData
from core.domain.errors import NotFoundError, ValidationError, shown_id
from core.domain.record import check_field, id_problem
from core.store.store import Store
from core.store.transaction import transaction
from core.store.workspace import Workspace
from core.writing.decay import records_usage

#: the most ids one citation names
MAX_CITED = 100


@dataclass(frozen=True)
class Cited(AsData):
    """One cited memory: where, its status when cited, and whether it was recorded."""

    memory_id: str
    store: str
    status: str
    recorded: bool
    note: str | None = None


def cite_in(
    workspace: Workspace,
    memory_ids: Sequence[str],
    *,
    actor: str,
    task: str | None = None,
) -> list[Cited]:
    """Record that the agent used these memories (in ``task``): see the module."""
    if not memory_ids:
        raise ValidationError("name at least one memory", where="cite", field="ids")
    if len(memory_ids) > MAX_CITED:
        raise ValidationError(f"at most {MAX_CITED} ids a citation", where="cite", field="ids")
    if task is not None:
        check_field(task, "source.task", field="task")
    found: list[tuple[str, Store]] = []
    for memory_id in dict.fromkeys(memory_ids):  # each once, in the order given
        problem = id_problem(memory_id)
        if problem is not None:
            raise ValidationError(
                f"{problem}: {memory_id[:80]!r}; nothing was cited",
                where="cite",
                field=f"ids[{list(memory_ids).index(memory_id)}]",
            )
        store = next((s for s in workspace.stores if memory_id in s.memories), None)
        if store is None:
            raise NotFoundError(
                f"no memory with id {shown_id(memory_id)} in any store given; nothing was cited"
            )
        found.append((memory_id, store))
    cited: list[Cited] = []
    for store in workspace.stores:
        mine = [memory_id for memory_id, s in found if s is store]
        if not mine:
            continue
        if not records_usage(store, actor):
            cited += [
                Cited(
                    memory_id,
                    str(store.root),
                    store.memories[memory_id].status,
                    recorded=False,
                    note="not recorded: only the team store's maintainers write to it",
                )
                for memory_id in mine
            ]
            continue
        with transaction(store, actor=actor, message=f"cite: {', '.join(mine)}") as tx:
            for memory_id in mine:
                status = tx.get(memory_id).status
                tx.event(
                    "cite",
                    (memory_id,),
                    reason=f"used in task {task}" if task else "used by the agent",
                    details={"task": task, "status": status},
                )
                note = None if status == "active" else f"cited while {status}: not current"
                cited.append(Cited(memory_id, str(store.root), status, recorded=True, note=note))
    return cited
