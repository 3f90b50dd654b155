"""``memgov doctor``: validate a whole store without changing anything.

Errors make the exit status 1; warnings (a long index, a large file) are
shown but do not, unless ``--strict``.

A store is untrusted input, so doctor also reports, as errors: a
record whose file holds a credential (any status: superseded and expired files
are still on disk; the rule ids, lines and columns, never the value), a
symbolic link anywhere in the store folder outside ``.git``, local state
tracked by git (anything under ``.memgov/``), and request files and quarantine
files that do not parse. Records that try to steer the agent (core.domain.steering)
are warnings, each with its rules and spans, and each is a review item.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from core.domain.data import AsData
from core.domain.errors import StoreError
from core.domain.record import Memory
from core.reports.event_summary import Summary, event_summary
from core.store import gitstore, logs, requests, team_state
from core.store.events import is_event_log
from core.store.fsutil import entry_problem, escaped_name, name_problem
from core.store.index import INDEX_FILE, check_index, parse_index, read_index_text, render_index
from core.store.journal import JOURNAL_FILE
from core.store.proposals import read_proposals
from core.store.quarantine import quarantine_problems
from core.store.secret_files import file_hits, how_to_fix
from core.store.snapshot import Snapshot
from core.store.store import MEMORY_DIR, STATE_DIR, Store
from core.writing.quarantine import flagged_records

#: missing index lines reported one by one; more are one finding
_MISSING_SHOWN = 3


@dataclass(frozen=True)
class Finding(AsData):
    severity: str  # error | warning
    path: str
    reason: str
    field: str | None = None

    def render(self) -> str:
        where = self.path + (f": field '{self.field}'" if self.field else "")
        return f"{self.severity:<7} {where}: {self.reason}"


def diagnose(store: Store) -> list[Finding]:
    """Every error and warning of the store, in the order checked. An interrupted
    change is finished or undone first; nothing else is changed."""
    found: list[Finding] = []
    root = store.root
    journal = store.state_dir / JOURNAL_FILE
    journal_rel = os.path.relpath(journal, root).replace(os.sep, "/")
    try:
        # finishes or undoes an interrupted change first; every file's stat data checked
        snap = store.refresh(full=True)
    except StoreError as exc:  # e.g. a journal memgov did not write: nothing is read
        found.append(Finding("error", journal_rel if journal.exists() else ".", str(exc)))
        found += _links(root, reported=set())
        found += _tracked_state(store)
        return found
    for problem in snap.problems:
        found.append(Finding("error", problem.path, problem.reason, problem.field))
    for warning in snap.warnings:
        path, _, reason = warning.partition(": ")
        found.append(Finding("warning", path, reason))
    memories = snap.memories
    found += _secrets(store, snap)
    found += _history_secrets(store, reported={f.path for f in found})
    found += _steering(store)
    if store.config.scope == "team":
        found += _team(store)
    found += _links(root, reported={p.path for p in snap.problems})
    found += _tracked_state(store)
    found += _requests(store, memories)
    found += _index(store, memories)
    summary = event_summary(store)
    found += _event_log(memories, summary)
    found += _supersedes(memories, summary.erased)
    found += _sources(store, memories)
    found += _git(store, journal, journal_rel)
    return found


def _requests(store: Store, memories: dict[str, Memory]) -> list[Finding]:
    """Request files that do not parse, and open requests for a record this store
    does not have (they can never be decided)."""
    found = []
    for path, reason in requests.request_problems(store):
        found.append(Finding("error", path, reason))
    for request in requests.load_requests(store, status="open"):
        if request.memory_id not in memories:
            found.append(
                Finding(
                    "warning",
                    request.path,
                    f"open {request.named} {request.id} is for {request.memory_id}, "
                    "which has no record in this store (erased, or never here): it can never "
                    "be decided; remove the file with a commit",
                    "memory_id",
                )
            )
    return found


def _index(store: Store, memories: dict[str, Memory]) -> list[Finding]:
    """The index: its limits, pointers that resolve to active records, and a line for
    each active record it should list."""
    found = []
    text, unreadable = read_index_text(store.root)
    if unreadable is not None:
        found.append(Finding("error", INDEX_FILE, unreadable))
    text = text or ""
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
    return found + _missing_lines(store, memories, listed)


def _missing_lines(store: Store, memories: dict[str, Memory], listed: set[str]) -> list[Finding]:
    """Active records the index should list but does not: one finding each, or one
    for them all when there are more than a few."""
    # within its caps the index keeps the active memories that matter most (by type,
    # then weight: core.store.index.pick_key), then says how many more there are: a
    # memory it leaves out has no line, by design
    due = {line.target for line in parse_index(render_index(memories.values(), store.config))}
    missing = sorted(
        m.id
        for m in memories.values()
        if m.status == "active" and m.path in due and m.path not in listed
    )
    if len(missing) <= _MISSING_SHOWN:
        return [
            Finding(
                "error",
                INDEX_FILE,
                f"active memory {memory_id} has no "
                f"index line; rerun the last change or 'memgov reindex'",
            )
            for memory_id in missing
        ]
    # an index an older memgov wrote in its order, or edited by hand: one finding
    return [
        Finding(
            "error",
            INDEX_FILE,
            f"{len(missing):,} active memories it should list have no index line "
            f"({', '.join(missing[:_MISSING_SHOWN])} ...): it is not what memgov writes "
            f"from the records (an older memgov's order, or a hand edit); run "
            f"'memgov reindex'",
        )
    ]


def _event_log(memories: dict[str, Memory], summary: Summary) -> list[Finding]:
    """The event log: its unreadable lines, and each record's status against the last
    transition that was not rolled back (of the log's summary, kept by shard:
    core.reports.event_summary)."""
    found = []
    for bad_line in summary.bad:
        where = f"line {bad_line.line}: " if bad_line.line else ""
        found.append(Finding("error", bad_line.file, where + bad_line.reason))
    last_status = summary.last_status
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
    return found


def _supersedes(memories: dict[str, Memory], erased: set[str]) -> list[Finding]:
    """Supersedes chains: each cycle once, and a record's own pointer to one that is
    not in the store and was never erased (``erased``: the ids of every ``-> deleted``)."""
    found = []
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
    return found


def _sources(store: Store, memories: dict[str, Memory]) -> list[Finding]:
    """Sources of every record not erased that resolve to no log line or file: errors
    for an active record, warnings for the others. Each log is checked and parsed once
    (:func:`core.store.logs.resolving`, one source at a time), not once a source."""
    found = []
    tasks = logs.task_index(store.root)
    each = [
        (memory, number, source)
        for memory in memories.values()
        if memory.status not in ("deleted",)
        for number, source in enumerate(memory.all_sources)
    ]
    resolved = logs.resolving(
        store.root,
        ([source] for _memory, _number, source in each),
        task_logs=tasks,
        outside_ok=store.config.scope == "private",
    )
    for (memory, number, source), resolves in zip(each, resolved, strict=True):
        if not resolves:
            found.append(
                Finding(
                    "warning" if memory.status != "active" else "error",
                    memory.path,
                    f"source {number + 1} (task {source.task}) "
                    "does not resolve to a log line or file",
                    "source",
                )
            )
    return found


def _git(store: Store, journal: Path, journal_rel: str) -> list[Finding]:
    """Git: an interrupted change (its journal), a failing ``git status``, and record,
    index or event log files changed and not committed."""
    found = []
    if journal.exists():
        found.append(
            Finding(
                "error",
                journal_rel,
                "a change was interrupted; the next write finishes or undoes it",
            )
        )
    try:  # git itself, not through gitpython: doctor never loads it
        status = gitstore.run(store.root, "status", "--porcelain")
        lines = status.decode("utf-8", "replace").splitlines()
        dirty = [line for line in lines if line.strip()]
    except Exception as exc:
        found.append(Finding("error", ".git", f"git status failed: {type(exc).__name__}"))
        dirty = []
    for entry in dirty:
        path = escaped_name(entry[3:])
        if path.startswith(MEMORY_DIR) or path == INDEX_FILE or is_event_log(path):
            found.append(
                Finding(
                    "warning",
                    path,
                    "changed outside memgov and not "
                    "committed (git status: " + entry[:2].strip() + ")",
                )
            )
    return found


def _team(store: Store) -> list[Finding]:
    """A team clone's record of its history (core.store.team_state): commits no listed
    maintainer signed, erasures its history still holds, identity not verified."""
    found = []
    for row in team_state.untrusted_rows(store.state_dir):
        files = [f for f in row.get("files", []) if isinstance(f, str)]
        short = row["commit"][:10]
        found.append(
            Finding(
                "error",
                files[0] if files else ".",
                f"changed on the remote by commit {short} by {row.get('author', '?')}, "
                f"{row['why']}"
                + (f" (and {len(files) - 1} more file(s))" if len(files) > 1 else "")
                + ": untrusted, so not taken here; a maintainer ratifies or rejects it "
                f"(memgov team ratify|reject {short})",
            )
        )
    for row in team_state.history_rows(store.state_dir):
        found.append(
            Finding(
                "warning",
                ".git",
                f"erased by a decision that arrived by sync ({', '.join(row['erased'][:5])}): "
                "the files are gone, but this clone's git history still holds their content, "
                "as does every clone and fork made before the erasure",
            )
        )
    for bad in read_proposals(store.root)[1]:
        found.append(
            Finding(
                "error",
                bad.ref,
                f"a proposal branch memgov will not offer for review: {bad.problem}",
            )
        )
    remote = gitstore.run(store.root, "config", "--get", "remote.origin.url", check=False)
    if remote.strip() and not store.config.signers:
        found.append(
            Finding(
                "warning",
                "memgov.yaml",
                "identity is self-declared: no maintainer has a signing key, so memgov "
                "cannot tell who made a team commit (add each maintainer's SSH key)",
                "signers",
            )
        )
    return found


def _secrets(store: Store, snap: Snapshot) -> list[Finding]:
    """Every record file (any status) and every unreadable file of ``memories/`` that
    holds a credential: the rule ids and where, never the value (of the snapshot the
    full check made: not built again)."""
    found = []
    for hit in file_hits(store, snap):
        rules = ", ".join(hit.rules)
        if hit.memory is not None:
            reason = (
                f"holds a credential ({rules}; {hit.where()}; the record is "
                f"{hit.memory.status}): " + how_to_fix(hit.memory.id)
            )
        else:
            reason = (
                f"holds a credential ({rules}; {hit.where()}) and is not a readable record: "
                "remove the credential from the file or delete the file"
            )
        found.append(Finding("error", hit.path, reason))
    return found


def _history_secrets(store: Store, *, reported: set[str]) -> list[Finding]:
    """Every file, of any folder, and every earlier version of it in the git history,
    that holds a credential (core.store.secret_history): the rules and the commit,
    never the value. A record file that holds one now is :func:`_secrets`'s
    (``reported``): its review item's erasure or correction rewrites its history too."""
    from core.store import gitstore
    from core.store.secret_history import history_hits

    found = []
    for hit in history_hits(store):
        if hit.path in reported:
            continue  # the record as it is: reported above, with its review item
        rules = ", ".join(hit.rules)
        now = gitstore.run(store.root, "rev-parse", f"HEAD:{hit.path}", check=False).strip()
        current = now.decode("ascii", "replace") == hit.blob
        since = f"commit {hit.commit[:12]}" if hit.commit else "an unreachable commit"
        where = "holds" if current else f"held, in an earlier version ({since}),"
        found.append(
            Finding(
                "error",
                hit.path,
                f"{where} a credential ({rules}); every clone of this repository keeps it "
                f"in its history: {_history_fix(store)}",
            )
        )
    return found


def _history_fix(store: Store) -> str:
    if store.config.scope == "team":
        return (
            "rotate the credential now (it was shared with every clone); a team store's "
            "history is never rewritten"
        )
    return (
        "rotate the credential, then rewrite the history without it "
        "(memgov scrub-history: every version of every file, a commit each rewritten, "
        "nothing else changed)"
    )


def _steering(store: Store) -> list[Finding]:
    """Records that try to steer the agent (each rule and its span: warnings, each a
    review item) and quarantine files that cannot be read (held candidates waiting are
    review items, not problems: the queue lists them)."""
    found = []
    for memory, assessment in flagged_records(store):
        rules = "; ".join(
            f"{f.rule} at “{f.shown}”" if f.shown else f.rule for f in assessment.flags[:4]
        )
        found.append(
            Finding(
                "warning",
                memory.path,
                f"tries to steer the agent ({rules}): erase, correct or keep it "
                f"(memgov show steering-{memory.id}; memgov decide steering-{memory.id} ...)",
            )
        )
    for path, reason in quarantine_problems(store):
        found.append(Finding("error", path, reason))
    return found


#: a name of printable ASCII but the backslash: nothing to escape, nothing hostile
_PLAIN_NAME = re.compile(r"[\x20-\x5b\x5d-\x7e]*\Z")


def _links(root: Path, *, reported: set[str]) -> list[Finding]:
    """Entries anywhere in the store folder but ``.git`` that memgov never reads:
    symbolic links (a link committed to a shared store could point anywhere), names
    that are not UTF-8 or hold a control character, named pipes, devices and sockets
    (opening a pipe waits for a writer); the ones the store already reported are not
    repeated. Paths are shown escaped (core.store.fsutil.escaped_name). An entry's
    kind is its directory entry's (no stat call but for one that is neither a file
    nor a folder), and a plain name is neither escaped nor checked again."""
    found = []
    stack: list[tuple[str, str, bool]] = [(str(root), "", True)]  # path, rel, plain
    while stack:
        folder, folder_rel, folder_plain = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            if not folder_rel and entry.name == ".git":
                continue
            plain = folder_plain and _PLAIN_NAME.match(entry.name) is not None
            raw = f"{folder_rel}/{entry.name}" if folder_rel else entry.name
            rel = raw if plain else escaped_name(raw)
            if rel in reported:
                continue
            if entry.is_symlink():
                found.append(
                    Finding(
                        "error",
                        rel,
                        "is a symbolic link; memgov neither reads nor writes through "
                        "links: replace it with the file or folder itself (git rm it if "
                        "it is committed)",
                    )
                )
                continue
            hostile = None if plain else name_problem(entry.name)
            if hostile is not None:
                found.append(
                    Finding(
                        "error",
                        rel,
                        f"{hostile}: memgov reads no such entry; rename it or remove it",
                    )
                )
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append((entry.path, raw, plain))
                    continue
                if entry.is_file(follow_symlinks=False):
                    continue
                mode = entry.stat(follow_symlinks=False).st_mode
            except OSError:
                continue
            if stat.S_ISDIR(mode):
                stack.append((entry.path, raw, plain))
            elif not stat.S_ISREG(mode):
                found.append(Finding("error", rel, entry_problem(rel, mode) or "not a file"))
    return sorted(found, key=lambda f: f.path)


def _tracked_state(store: Store) -> list[Finding]:
    """Local state committed to the repository (a cache, a journal, a lock): a clone
    brings it, so memgov ignores it; doctor says how to untrack it."""
    try:
        listed = gitstore.run(store.root, "ls-files", "-z", "--", STATE_DIR).decode(
            "utf-8", "replace"
        )
    except Exception:  # git status below reports a repository git cannot read
        return []
    return [
        Finding(
            "error",
            path,
            f"tracked by git but local state; memgov ignores it; remove it with "
            f"git rm --cached {path}",
        )
        for path in sorted(filter(None, listed.split("\0")))
    ]
