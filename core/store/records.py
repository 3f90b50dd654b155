"""A store's records as a mapping that reads what it is asked for.

:class:`Records` answers ``store.memories``: by id, by key, by status, by
subject, through the catalog's indexed columns (:mod:`core.store.catalog`); a
record is built from its row only when asked for, and kept until its file
changes. Iterating every record (doctor, metrics, export) still costs every
record: the other questions cost what they touch.

:class:`View` is a transaction's view: the records as they will be once the
transaction applies (its changes and removals over :class:`Records`), asked
the same questions.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping
from typing import TYPE_CHECKING

from core.domain.errors import ValidationError
from core.domain.record import Memory
from core.store.catalog import Catalog, memory_from_row

if TYPE_CHECKING:
    from core.store.snapshot import Problem

Key = tuple[str, str, str, str | None]


def _kept(memory_id: str, rels: list[str]) -> str | None:
    """Of several files that claim one id, the one named after it (doctor reports the
    others as duplicates)."""
    if not rels:
        return None
    return next((r for r in rels if r.endswith(f"/{memory_id}.md")), rels[0])


class Records(Mapping[str, Memory]):
    """The readable records of a store, by id (see the module docstring)."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self._memo: dict[str, Memory] = {}  # rel -> the record built from its row
        self._stamps: dict[str, tuple[int, int, int]] = {}  # rel -> its row's stat data

    def forget(self, rels: Iterable[str] | None = None) -> None:
        """Drop built records whose files changed (all of them: None)."""
        if rels is None:
            self._memo.clear()
        else:
            for rel in rels:
                self._memo.pop(rel, None)

    def stale(self, memories: Iterable[Memory]) -> set[str]:
        """Of these records, the files whose stat data differ from their rows now (an
        edit in place since the last sync): read again into the catalog."""
        changed = []
        for memory in memories:
            stamp = self._stamps.get(memory.path)
            try:
                st = os.lstat(self.catalog.root / memory.path)
            except OSError:
                changed.append(memory.path)
                continue
            if stamp != (st.st_mtime_ns, st.st_size, st.st_ino):
                changed.append(memory.path)
        if not changed:
            return set()
        found = self.catalog.recheck(changed)
        self.forget(changed)
        return found

    def _build(self, rows: Iterable[tuple[str, str, str, str, int, int, int]]) -> list[Memory]:
        """Records from their rows, one per id (the kept file)."""
        by_id: dict[str, list[tuple[str, str, str]]] = {}
        for rel, memory_id, meta, content, mtime, size, ino in rows:
            by_id.setdefault(memory_id, []).append((rel, meta, content))
            if self._stamps.get(rel) != (mtime, size, ino):
                # another process (or this one) changed the row since it was built
                self._memo.pop(rel, None)
                self._stamps[rel] = (mtime, size, ino)
        out = []
        for memory_id, found in by_id.items():
            if len(found) > 1 or not found[0][0].endswith(f"/{memory_id}.md"):
                keep = _kept(memory_id, self.catalog.rels_of(memory_id))
                found = [f for f in found if f[0] == keep]
                if not found:  # the kept file is not among these rows
                    continue
            rel, meta, content = found[0]
            memory = self._memo.get(rel) or self._from_row(rel, meta, content)
            if memory is not None:
                out.append(memory)
        return out

    def _from_row(self, rel: str, meta: str, content: str) -> Memory | None:
        """A record built from its row, validated field by field; a row that does not
        validate is never trusted: the file is read again (None: it is not a record)."""
        try:
            memory = memory_from_row(rel, meta, content)
        except (ValidationError, ValueError, TypeError, KeyError, RecursionError):
            self.catalog.recheck([rel], reparse=True)
            row = next(self.catalog.memory_rows("rel = ?", (rel,)), None)
            if row is None:
                return None
            try:
                memory = memory_from_row(rel, row[2], row[3])
            except (ValidationError, ValueError, TypeError, KeyError, RecursionError):
                return None
        self._memo[rel] = memory
        return memory

    def _where(self, where: str, args: Iterable[object] = ()) -> list[Memory]:
        return self._build(self.catalog.memory_rows(where, args))

    # Mapping
    def __getitem__(self, memory_id: str) -> Memory:
        keep = _kept(memory_id, self.catalog.rels_of(memory_id))
        if keep is None:
            raise KeyError(memory_id)
        found = self._where("rel = ?", (keep,))
        if not found:
            raise KeyError(memory_id)
        return found[0]

    def __contains__(self, memory_id: object) -> bool:
        return isinstance(memory_id, str) and bool(self.catalog.rels_of(memory_id))

    def __iter__(self) -> Iterator[str]:
        return iter(self.catalog.ids())

    def __len__(self) -> int:
        return self.catalog.count()

    def summaries(self) -> dict[str, tuple[str, str]]:
        """{id: (subject, status)} of every record, no record built (a listing)."""
        return self.catalog.summaries()

    def all(self) -> list[Memory]:
        """Every record (what doctor, metrics and export need)."""
        return self._where("")

    def values(self) -> list[Memory]:  # type: ignore[override]
        return self.all()

    def items(self) -> list[tuple[str, Memory]]:  # type: ignore[override]
        return [(m.id, m) for m in self.all()]

    def from_folder(self, key: str) -> list[Memory]:
        """The records an agent's folder gave (``origin.folder`` is ``key``): one
        query over the rows' front matter, no other record built."""
        return self._where("json_extract(meta, '$.origin.folder') = ?", (key,))

    # questions the catalog answers from its indexes
    def by_key(self, key: Key) -> list[Memory]:
        _scope, subject, attribute, _condition = key
        return [
            m
            for m in self._where("subject = ? AND attribute = ?", (subject, attribute))
            if m.key == key
        ]

    def by_subject_attribute(self, subject: str, attribute: str) -> list[Memory]:
        return self._where("subject = ? AND attribute = ?", (subject, attribute))

    def with_status(self, *statuses: str) -> list[Memory]:
        marks = ", ".join("?" * len(statuses))
        return self._where(f"status IN ({marks})", statuses)

    def with_subject(self, prefix: str) -> list[Memory]:
        """Records whose subject starts with ``prefix`` (all: an empty prefix)."""
        if not prefix:
            return self.all()
        # a range of the (subject, attribute) index: [prefix, the next string after
        # every one that starts with it); sqlite compares UTF-8 bytes, code point order
        last = ord(prefix[-1])
        if last < 0x10FFFF and not 0xD7FF <= last < 0xE000:
            found = self._where(
                "subject >= ? AND subject < ?", (prefix, prefix[:-1] + chr(last + 1))
            )
        else:
            found = self._where("subject >= ?", (prefix,))
        return [m for m in found if m.subject.startswith(prefix)]

    def at(self, rels: Iterable[str]) -> dict[str, Memory]:
        """{file: its record} of these readable files (a file claiming an id another
        file holds is left out when it is not the kept one), from their rows."""
        wanted = sorted(set(rels))
        found: dict[str, Memory] = {}
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            built = self._where(f"rel IN ({', '.join('?' * len(chunk))})", chunk)
            found.update((m.path, m) for m in built)
        return found

    def superseding(self, memory_id: str) -> list[Memory]:
        """The records that say they supersede ``memory_id``."""
        return self._where("supersedes = ?", (memory_id,))

    def search(self, text: str, *, limit: int | None = None) -> list[str]:
        """Ids of the records whose id, subject, attribute, title, value or content
        holds ``text`` (ASCII letters in either case; a credential never matches), in
        path order, each once: :meth:`core.store.catalog.Catalog.search`."""
        seen: dict[str, None] = {}
        for memory_id, _rel in self.catalog.search(text, limit=limit):
            seen.setdefault(memory_id, None)
        return list(seen)

    def holding_text(self, needle: str) -> set[str]:
        """Ids of the records whose file text holds ``needle``."""
        return self.catalog.text_holders(needle)

    def citing(self, quote: str) -> set[str]:
        """Ids of the records one of whose sources quotes ``quote``."""
        return self.catalog.text_holders(quote, column="evidence")

    def with_secrets(self) -> list[Memory]:
        rels = set(self.catalog.secret_rels())
        return self._where(f"rel IN ({', '.join('?' * len(rels))})", sorted(rels)) if rels else []

    def problems(self) -> list[Problem]:
        return self.catalog.problems()


class View(MutableMapping[str, Memory]):
    """A transaction's records: its changes and removals over :class:`Records`."""

    def __init__(self, base: Records) -> None:
        self.base = base
        self._local: dict[str, Memory] = {}
        self.gone: set[str] = set()
        #: the local records' ids by key, each with its place in ``local`` (built when
        #: first asked, kept as records are set and removed): a key's records without
        #: reading every local one, so a transaction of many writes (an import of
        #: thousands of files) is not quadratic
        self._keys: dict[Key, dict[str, int]] | None = None
        self._places: dict[str, int] = {}
        self._next_place = 0

    @property
    def local(self) -> dict[str, Memory]:
        """The records this transaction set, in the order they were first set. Read it;
        change it through the view (``view[id] = m``, ``del view[id]``) or replace it
        whole (a savepoint's rollback): the key index follows those, not a change made
        to this dict directly."""
        return self._local

    @local.setter
    def local(self, records: dict[str, Memory]) -> None:  # a savepoint's rollback
        self._local = records
        self._keys = None

    def _key_index(self) -> dict[Key, dict[str, int]]:
        if self._keys is None:
            self._keys = {}
            self._places = {}
            for place, (memory_id, memory) in enumerate(self._local.items()):
                self._places[memory_id] = place
                self._keys.setdefault(memory.key, {})[memory_id] = place
            self._next_place = len(self._places)
        return self._keys

    def _unindex(self, memory_id: str) -> None:
        old = self._local.get(memory_id)
        if self._keys is not None and old is not None:
            ids = self._keys.get(old.key)
            if ids is not None:
                ids.pop(memory_id, None)
                if not ids:
                    del self._keys[old.key]

    def _checked(self, ask: Callable[[], list[Memory]]) -> list[Memory]:
        """``ask()`` on the base, its records checked against their files first: what
        a transaction changes, it changes as the file is now."""
        found = ask()
        if self.base.stale(found):
            found = ask()
        return found

    def __getitem__(self, memory_id: str) -> Memory:
        if memory_id in self.local:
            return self.local[memory_id]
        if memory_id in self.gone:
            raise KeyError(memory_id)
        found = self._checked(lambda: [self.base[memory_id]] if memory_id in self.base else [])
        if not found:
            raise KeyError(memory_id)
        return found[0]

    def __setitem__(self, memory_id: str, memory: Memory) -> None:
        if self._keys is not None:
            self._unindex(memory_id)
            place = self._places.get(memory_id)
            if place is None:  # a new id goes last in ``local``
                place = self._places[memory_id] = self._next_place
                self._next_place += 1
            self._keys.setdefault(memory.key, {})[memory_id] = place
        self._local[memory_id] = memory
        self.gone.discard(memory_id)

    def __delitem__(self, memory_id: str) -> None:
        if memory_id not in self:
            raise KeyError(memory_id)
        if memory_id in self._local and self._keys is not None:
            self._unindex(memory_id)
            self._places.pop(memory_id, None)  # set again, it goes last, as in a dict
        self._local.pop(memory_id, None)
        self.gone.add(memory_id)

    def __contains__(self, memory_id: object) -> bool:
        if not isinstance(memory_id, str):
            return False
        if memory_id in self.local:
            return True
        return memory_id not in self.gone and memory_id in self.base

    def __iter__(self) -> Iterator[str]:
        for memory_id in self.base:
            if memory_id not in self.gone and memory_id not in self.local:
                yield memory_id
        yield from self.local

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def _over(self, ask: Callable[[], list[Memory]]) -> list[Memory]:
        return [m for m in self._checked(ask) if m.id not in self.gone and m.id not in self.local]

    def all(self) -> list[Memory]:
        return [*self._over(self.base.all), *self.local.values()]

    def values(self) -> list[Memory]:  # type: ignore[override]
        return self.all()

    def by_key(self, key: Key) -> list[Memory]:
        return [
            *self._over(lambda: self.base.by_key(key)),
            *self._local_by_key(key),
        ]

    def _local_by_key(self, key: Key) -> list[Memory]:
        """The local records of ``key``, in ``local``'s order (what reading every local
        record would give)."""
        ids = self._key_index().get(key)
        if not ids:
            return []
        found = [self._local[i] for i in sorted(ids, key=ids.__getitem__)]
        return [m for m in found if m.key == key]

    def by_subject_attribute(self, subject: str, attribute: str) -> list[Memory]:
        return [
            *self._over(lambda: self.base.by_subject_attribute(subject, attribute)),
            *(m for m in self.local.values() if (m.subject, m.attribute) == (subject, attribute)),
        ]

    def with_status(self, *statuses: str) -> list[Memory]:
        return [
            *self._over(lambda: self.base.with_status(*statuses)),
            *(m for m in self.local.values() if m.status in statuses),
        ]

    def holding_text(self, needle: str, *, besides: str | None = None) -> bool:
        """Whether a record other than ``besides`` still holds ``needle`` in its text."""
        ids = self.base.holding_text(needle) - self.gone - set(self.local) - {besides}
        if ids:
            return True
        return any(needle in m.to_markdown() for i, m in self.local.items() if i != besides)

    def citing(self, quote: str, *, besides: str | None = None) -> bool:
        """Whether a record other than ``besides`` still quotes ``quote`` in a source."""
        ids = self.base.citing(quote) - self.gone - set(self.local) - {besides}
        if ids:
            return True
        return any(
            quote == s.evidence
            for i, m in self.local.items()
            if i != besides
            for s in m.all_sources
        )
