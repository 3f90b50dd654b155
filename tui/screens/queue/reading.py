"""The read of the queue, in a worker (the screen starts it: on mount, on ``R``, and
whenever the stores change); what it reads is shown on the UI thread as it comes.

The first read shows the queue in outline at once (its conflict sets from the
catalog's columns, no record built: :func:`core.review.queue.outline_queue`; such an
item opens once its records are read), then every kind but secrets with their
records and evidence, then scans the record files for secrets (the slow part of a
first read) and adds those items.

After a decision the worker reads again only the items the decision touched
(:func:`core.review.queue.find_items`) and the items that opened or closed besides
(the open ids, :func:`core.review.queue.open_ids`, against the ids shown): the queue
is not built again (``R`` does that, and shows an item someone else changed in
place); no queue is built on the UI thread.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any, Protocol

from textual.message import Message
from textual.worker import Worker, get_current_worker

from core.api.review import (
    KINDS,
    Decision,
    Item,
    Kind,
    build_queue,
    conflict_texts,
    find_items,
    open_ids,
    outline_queue,
    view,
)
from core.api.stores import Workspace, scan_file
from core.domain.errors import MemgovError
from tui.messages import WorkerDone
from tui.render import failure_text
from tui.screens.desk import Desk

#: what the first read shows before the secret scan of every record file
FIRST_KINDS = tuple(k for k in KINDS if k != Kind.SECRET)
#: files scanned between two checks whether the read was replaced
SCAN_CHUNK = 500
#: a worker's description, given: Textual's default is the repr of its callable, here
#: with every item of the queue (20,000 items: 3 s of the UI thread per read)
WORKER_DESCRIPTION = "the queue read again"


class Shows(Protocol):
    """Where a read shows what it read (the queue screen), each call on the UI thread."""

    kinds_read: frozenset[str]

    def post_message(self, message: Message) -> bool: ...

    def queue_read(
        self, items: list[Item], texts: dict[str, str], kinds: Sequence[str], note: str
    ) -> None: ...

    def texts_read(self, texts: dict[str, str]) -> None: ...

    def done_reading(self, note: str) -> None: ...

    def read_failed(self, message: str, cancelled: bool) -> None: ...


def read_queue(
    screen: Shows,
    desk: Desk,
    items: list[Item] | None,
    decisions: Sequence[Decision],
    full: bool = False,
) -> None:
    """In the worker: the stores read again (what changed on disk), then the items
    the decisions touched, then the queue; each shown as soon as it is read. A failure
    is a notification, never an exit."""
    worker = get_current_worker()
    try:
        QueueRead(screen, desk, worker).run(items, decisions, full)
    except MemgovError as exc:
        screen.read_failed(str(exc), worker.is_cancelled)
    except Exception as exc:  # a git error, an OSError: a notification, never an exit
        screen.read_failed(failure_text(exc), worker.is_cancelled)


class QueueRead:
    """One read of the queue, in its worker (replaced by the next: ``cancelled``)."""

    def __init__(self, screen: Shows, desk: Desk, worker: Worker[Any]) -> None:
        self.screen = screen
        self.desk = desk
        self.workspace = desk.workspace
        self.worker = worker
        self.first = not screen.kinds_read
        self.every_kind = screen.kinds_read >= set(KINDS)

    def cancelled(self) -> bool:
        return self.worker.is_cancelled

    def show(self, then: Callable[[], None]) -> bool:
        if self.cancelled():
            return False
        self.screen.post_message(WorkerDone(then))
        return True

    def run(self, items: list[Item] | None, decisions: Sequence[Decision], full: bool) -> None:
        screen, workspace = self.screen, self.workspace
        with self.desk.store_lock:
            if self.cancelled():  # replaced while it waited
                return
            reread(workspace, full=full)
            outline = self.outline()
            catalog_texts: dict[str, str] = {}
            if not (decisions and self.every_kind):
                # what search looks in, from the catalog's rows: contents are found
                # from the outline on, and no record is built for it
                catalog_texts = conflict_texts(workspace)
                if outline is not None:
                    texts = {i.id: catalog_texts.get(i.id) or view.search_text(i) for i in outline}
                    self.show(partial(screen.texts_read, texts))
            if decisions and items is not None and self.after_decisions(items, decisions):
                return
            queue = (
                build_queue(workspace, kinds=FIRST_KINDS) if self.first else build_queue(workspace)
            )
        texts = {i.id: catalog_texts.get(i.id) or view.search_text(i) for i in queue}
        kinds = FIRST_KINDS if self.first else KINDS
        note = "scanning files for secrets…" if self.first else ""
        if self.show(partial(screen.queue_read, queue, texts, kinds, note)) and self.first:
            self.add_secrets(queue, texts)

    def outline(self) -> list[Item] | None:
        """On the first read, at once: the queue in outline, while the records are read."""
        if not self.first:
            return None
        outline = outline_queue(self.workspace)
        self.show(partial(self.screen.queue_read, outline, {}, (), "reading the records…"))
        return outline

    def after_decisions(self, items: list[Item], decisions: Sequence[Decision]) -> bool:
        """The items the decisions touched shown again; with every kind read, what
        opened or closed besides too, and the read is done (True)."""
        changed = refetch(self.workspace, items, decisions)
        if self.every_kind:  # the rest as it was: only what opened or closed besides
            changed |= opened_or_closed(self.workspace, items, changed)
        self.show(partial(self.desk.items_changed, changed))
        if self.every_kind:
            self.show(partial(self.screen.done_reading, ""))
        return self.every_kind

    def add_secrets(self, queue: list[Item], texts: dict[str, str]) -> None:
        """The first read's last stage: the record files scanned, the secrets' items added."""
        lock = self.desk.store_lock
        if not warm_secret_scan(self.workspace, lock, self.cancelled):
            return
        with lock:
            if self.cancelled():
                return
            secrets = build_queue(self.workspace, kinds=[Kind.SECRET])
        texts.update((i.id, view.search_text(i)) for i in secrets)
        merged = view.merge(queue, {i.id: i for i in secrets})
        self.show(partial(self.screen.queue_read, merged, texts, KINDS, ""))


def reread(workspace: Workspace, *, full: bool = False) -> None:
    """Each store as it is on disk now: under its lock, a crash finished or undone,
    and only the files changed since the last read parsed again (``full``: every
    file's stat data checked, so an edit in place is seen: core.store.catalog)."""
    for store in workspace.stores:
        try:
            with store.locked():
                store.reread(full=full)
        except Exception:
            store.forget()  # what it held is not the store as it is: read it again next time
            raise


def refetch(
    workspace: Workspace, items: Sequence[Item], decisions: Sequence[Decision]
) -> dict[str, Item | None]:
    """The decisions' items and every item showing a record they changed, each built
    alone as it is now (None: closed)."""
    touched: set[str] = set()
    for d in decisions:
        touched |= set(d.before) | set(d.after) | set(d.erased)
        touched |= {c["id"] for c in d.created} | {t["id"] for t in d.touched}
    decided = dict.fromkeys(d.item for d in decisions)
    ids = [*decided, *(i.id for i in items if i.id not in decided and view.memory_ids(i) & touched)]
    found = find_items(workspace, ids)
    return {item_id: found.get(item_id) for item_id in ids}


def opened_or_closed(
    workspace: Workspace, items: Sequence[Item], known: Mapping[str, Item | None]
) -> dict[str, Item | None]:
    """Besides the items ``known`` (read again): the items open now that ``items`` does
    not hold, each built, and those it holds that are no longer open (None). The open
    ids come from the catalog and the request files (core.review.queue.open_ids): no
    other item is built."""
    now = open_ids(workspace)
    held = {i.id for i in items}
    new = [i for i in sorted(now - held) if i not in known]
    changed: dict[str, Item | None] = dict(find_items(workspace, new))
    changed.update((i, None) for i in held - now if i not in known)
    return changed


def warm_secret_scan(workspace: Workspace, lock: Any, cancelled: Callable[[], bool]) -> bool:
    """Scan every record file for secrets, a chunk at a time and without holding the
    store lock while scanning (the scan remembers each file by its stat data, so the
    queue's own scan afterwards costs a look-up per file). False: replaced meanwhile."""
    with lock:  # the catalog flags the files whose text holds a credential
        paths = [s.root / m.path for s in workspace.stores for m in s.memories.with_secrets()]
    for start in range(0, len(paths), SCAN_CHUNK):
        if cancelled():
            return False
        for path in paths[start : start + SCAN_CHUNK]:
            scan_file(path)
    return not cancelled()
