"""Export active records as a Claude Code memory folder: ``memgov export claude-code PATH``.

So a user can clean their memory with memgov and hand it back to their agent.
The folder gets one topic file per active record (private records at the top,
team records under ``team/``) and a ``MEMORY.md`` index within Claude Code's
limits: at most 200 lines and 25,000 bytes, lines of at most ~150 characters.
When the records do not all fit, the index lists the ones that matter most, in
the order the store's own ``MEMORY.md`` keeps them (core.store.index.pick_key: by
type, preferences first, then by decay weight, SPEC section 7), and the report
names the rest: their files are still written. Each section lists its lines in the
store index's readable order (type, subject, attribute, condition).

A topic file::

    ---
    name: <title, else the attribute in words> (<condition>, when it has one)
    description: <the content's first line, at most 150 characters>
    type: feedback            # see below
    memgov:                   # exact type and key: an import brings back the same record
      id: testing-1a2b3c4d
      type: preference
      subject: user:alice/project:liyyro
      attribute: testing
      condition: env=production     # when it has one
    ---

    <content>

Claude Code type: preference -> feedback; a record about the user alone
(subject ``user:<x>``) -> user; reflection -> feedback; semantic whose first
line holds a web address -> reference; anything else -> project.

A record that holds a credential (in its file, or in what its topic file would
say) is left out, and the report says so by id and rule id: nothing written
holds a token. Erase or correct it in the review desk, then export again. So is
every active record that does not reach the agent (core.store.reaching, the rule
every channel applies: one the steering detector flags and no person kept), by id
and its review item: neither its file nor its line is written. An internal address
(a private IP, an ``.internal`` host) goes to the agent's own folder as the private
store keeps it: that folder is on this machine. Into a folder inside a git
repository (a repository's ``.claude/`` folder), whose commits can be pushed, a
record or a note naming one is left out the same way, by id and pattern.

Safety: the folder must be new, empty, or a previous memgov export
(``.memgov-export.json`` lists every file it wrote, with a hash). A previous
export that changed since (the agent wrote or edited a file) is refused: import
it first, so nothing the agent learnt is lost. Everything is written to a
temporary folder next to PATH and renamed into place, so PATH holds the old
export or the new one, never half of one (:mod:`core.importers.claude_code.export_folder`).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

import yaml

from core.domain import gate, secrets
from core.domain.data import AsData
from core.domain.record import Memory
from core.domain.shown import shown_title, titled
from core.domain.words import counted
from core.importers.claude_code.entries import without_type_prefix
from core.importers.claude_code.export_folder import check_target, write_export
from core.importers.claude_code.files import INDEX_FILE, TEAM_DIR, line_fields
from core.importers.claude_code.origin import FORMAT, exact, rebuilt
from core.importers.folder_state import FolderState, states
from core.importers.folders import FolderError
from core.importers.signature import record_signatures
from core.importers.text import slug
from core.store.config import Config
from core.store.index import DAY, ListKey, index_rank, rank_taus, sort_key, type_order
from core.store.reaching import Reaching
from core.store.secret_files import scan_file
from core.store.store import Store
from core.store.workspace import Workspace

#: libyaml's emitter where PyYAML has it (what PyYAML's own Python emitter writes, at
#: a tenth of the time: front matter for 10,000 records took 18 s)
_DUMPER: type[yaml.SafeDumper] = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

DESCRIPTION_CHARS = 150
SECTIONS = (
    ("user", "User"),
    ("feedback", "Feedback"),
    ("project", "Project"),
    ("reference", "Reference"),
)
_URL = re.compile(r"https?://", re.IGNORECASE)


@dataclass(frozen=True)
class ExportReport(AsData):
    folder: str
    files: tuple[str, ...]  # topic files written, relative to the folder
    indexed: tuple[str, ...]  # the ones MEMORY.md lists
    not_indexed: tuple[str, ...]  # the ones over the index caps
    index_lines: int
    index_bytes: int
    replaced_previous: bool
    warnings: tuple[str, ...] = ()
    #: records not exported, with why: ``<id>: holds a credential (rule ids)``, or names
    #: an internal address and the folder is in a git repository
    left_out: tuple[str, ...] = ()

    def render(self) -> str:
        verb = "replaced the previous export in" if self.replaced_previous else "exported to"
        lines = [
            f"{verb} {self.folder}: {counted(len(self.files), 'memory file')}; {INDEX_FILE} "
            f"lists {len(self.indexed)} in {counted(self.index_lines, 'line')}, "
            f"{self.index_bytes:,} bytes"
        ]
        if self.not_indexed:
            lines.append(
                f"not in {INDEX_FILE} (over its caps; the agent finds them only by searching; "
                "consolidate to make room):"
            )
            lines += [f"  {rel}" for rel in self.not_indexed[:20]]
            if len(self.not_indexed) > 20:
                lines.append(f"  ... and {len(self.not_indexed) - 20} more (--json lists them)")
        lines += [f"warning: {w}" for w in self.warnings]
        lines += [f"left out: {entry}" for entry in self.left_out]
        if any(_SHARED in entry for entry in self.left_out):
            lines.append(
                "  the private store keeps them: export to the agent's own folder outside the "
                "repository, or correct them without the address"
            )
        if any(_SHARED not in entry for entry in self.left_out):
            lines.append(
                "  erase or correct them in the review desk ('memgov queue --kind secret'; "
                "a withheld one: --kind quarantine), then export again"
            )
        return "\n".join(lines)


@dataclass(frozen=True)
class _Out:
    """One topic file to write."""

    rel: str
    name: str  # the title, else the attribute in words (without the condition)
    condition: str | None
    hook: str
    kind: str  # Claude Code type
    team: bool
    #: where the index keeps it: (type order, minus its weight's logarithm, id, file)
    pick: tuple[int, float, str, str]
    listed: ListKey  # where its section lists it (core.store.index.sort_key)
    front: str  # the front matter block, "---" to "---"
    content: str
    #: the file as the agent wrote it, given back (core.importers.claude_code.origin.rebuilt)
    kept: str | None = None
    slot: str | None = None  # where the folder's index listed it (its state's template)
    index_text: str | None = None  # that line, when memgov changed nothing it shows
    #: its record's id, type and key, for the export's marker (the memgov block's fields)
    record: dict[str, str] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return self.kept if self.kept is not None else f"{self.front}\n\n{self.content}\n"

    @property
    def title(self) -> str:
        """The name with the condition (core.domain.shown.titled)."""
        return titled(self.name, self.condition)


def export_claude_code(source: Workspace | Store, path: Path) -> ExportReport:
    """Write the active records of the stores (a workspace: private and team) to PATH."""
    stores = list(source.stores) if isinstance(source, Workspace) else [source]
    if not stores:
        raise FolderError("no store to export from; pass one with --store")
    folder = Path(path).expanduser().absolute()
    replaced, warnings = check_target(folder, stores)
    warnings += _left_behind(stores)
    config = next((s.config for s in stores if s.config.scope == "private"), stores[0].config)
    state = kept_state(stores)
    outs, notes, left_out = _plan(stores, state.key if state else None)
    repository = repository_of(folder)
    if repository is not None:  # its commits can be pushed: no internal address goes in
        outs, notes, shared_out = _without_internal_addresses(outs, notes, repository)
        left_out += shared_out
    if state is not None and state.index:
        indexes, indexed, left, dropped = _from_template(state, outs, notes, config)
        warnings += dropped
    else:
        index, indexed, left = _fit_index(outs, config)
        indexes = {INDEX_FILE: index}
    files = {o.rel: o.text for o in outs}
    files.update(indexes)
    index = indexes.get(INDEX_FILE, "")
    records = {o.rel: o.record for o in outs if o.kept is not None}
    write_export(folder, files, stores, stores[0].now(), records)
    return ExportReport(
        folder=str(folder),
        files=tuple(sorted(o.rel for o in outs)),
        indexed=tuple(o.rel for o in indexed),
        not_indexed=tuple(o.rel for o in left),
        index_lines=len(index.splitlines()),
        index_bytes=len(index.encode("utf-8")),
        replaced_previous=replaced,
        warnings=tuple(warnings),
        left_out=tuple(left_out),
    )


# ----------------------------------------------------------------------- planning
def claude_type(memory: Memory) -> str:
    about_user = re.fullmatch(r"user:[^/]+", memory.subject) is not None
    if memory.type in ("preference", "reflection"):
        return "user" if about_user and memory.type == "preference" else "feedback"
    if about_user:
        return "user"
    if memory.type == "semantic" and _URL.search(memory.hook):
        return "reference"
    return "project"


def kept_state(stores: list[Store]) -> FolderState | None:
    """The imported folder whose files and index the export gives back: of the private
    store's folder states (core.importers.folder_state), the one most active records
    came from (None: none did)."""
    private = next((s for s in stores if s.config.scope == "private"), None)
    found = states(private, FORMAT) if private is not None else []
    if not found:
        return None
    counts: Counter[str] = Counter()
    for store in stores:
        for memory in store.memories.with_status("active"):
            if memory.origin and memory.origin.get("format") == FORMAT:
                counts[memory.origin.get("folder", "")] += 1
    best = max(found, key=lambda st: (counts[st.key], st.key))
    return best if counts[best.key] else None


def _plan(
    stores: list[Store], kept_key: str | None
) -> tuple[list[_Out], dict[str, str], list[str]]:
    """The topic files to write, the notes of the kept folder's index (slot -> line),
    and the records left out because they hold a credential (``<id>: holds a
    credential (rule ids)``). A record from the kept folder (``kept_key``) goes back
    under its own file name, as the agent wrote it where memgov changed nothing."""
    outs = []
    notes: dict[str, str] = {}
    left_out = []
    taken: set[str] = set()
    ordered: list[tuple[Store, Memory, bool]] = []
    # the catalog flags each file whose text holds a credential: only those are
    # scanned again for their rule ids (core.store.catalog)
    flagged = {store.root: _flagged(store) for store in stores}
    for store in stores:
        reaching = Reaching(store)
        for memory in sorted(store.memories.with_status("active"), key=lambda m: m.id):
            if reaching.withheld(memory) is not None:  # what recall withholds, too
                left_out.append(f"{memory.id}: withheld from the agent (steering-{memory.id})")
                continue
            origin = memory.origin or {}
            own = bool(kept_key) and origin.get("folder") == kept_key and "file" in origin
            ordered.append((store, memory, own))
    # the kept folder's own file names are taken first: a new record never takes one
    for _store, memory, own in ordered:
        if own and memory.origin and not _is_index(memory.origin["file"]):
            taken.add(memory.origin["file"].casefold())
    for store, memory, own in ordered:
        if own and memory.origin and _is_index(memory.origin["file"]):
            line = note_line(memory)
            if secrets.scan(line):
                left_out.append(f"{memory.id}: holds a credential (a note of {INDEX_FILE})")
            else:
                notes[memory.origin["slot"]] = line
            continue
        now = store.now()
        team = store.config.scope == "team"
        rank = log_weight(memory, now, store.config)
        out = _kept_topic(memory, team, rank) if own else None
        out = out or _topic(memory, team, rank, taken)
        rules = set()
        if memory.path in flagged[store.root]:
            rules = {f.rule_id for f in scan_file(store.root / memory.path)}
        # the content is the record's, which the catalog scanned with its file: what
        # is new is the front matter (a secret cannot straddle the "---" between)
        rules |= {f.rule_id for f in secrets.scan(out.front if out.kept is None else out.kept)}
        if rules:  # a record left out keeps no file name
            taken.discard(out.rel.casefold())
            left_out.append(f"{memory.id}: holds a credential ({', '.join(sorted(rules))})")
            continue
        outs.append(out)
    return outs, notes, left_out


#: what a record left out of an export into a git repository says
_SHARED = "names an internal address"


def repository_of(folder: Path) -> Path | None:
    """The git work tree ``folder`` is in (a repository's ``.claude/`` folder, a home
    kept in git), or None: what is written there can be committed and pushed, so it
    may leave the machine; the agent's own folder (``~/.claude/projects/...``) is in
    none."""
    for parent in (folder, *folder.parents):
        if (parent / ".git").exists():
            return parent
    return None


def _without_internal_addresses(
    outs: list[_Out], notes: dict[str, str], repository: Path
) -> tuple[list[_Out], dict[str, str], list[str]]:
    """The files and index notes that name no internal address, and one line for each
    left out (by id and pattern, never the address): the export goes into a git
    repository, whose commits leave the machine when pushed. A private store keeps
    them; the agent's own folder outside a repository gets them."""
    why = f"{_SHARED}, and the folder is in the git repository {repository}"
    kept, left_out = [], []
    for out in outs:
        found = gate.sensitive_patterns(out.text)
        if found:
            left_out.append(f"{out.record.get('id', out.rel)}: {why} ({', '.join(found)})")
        else:
            kept.append(out)
    clean = {}
    for slot, line in notes.items():
        found = gate.sensitive_patterns(line)
        if found:
            left_out.append(f"a note of {INDEX_FILE} ({slot}): {why} ({', '.join(found)})")
        else:
            clean[slot] = line
    return kept, clean, left_out


def _flagged(store: Store) -> set[str]:
    """The files the catalog flags as holding a credential (core.store.catalog)."""
    return {m.path for m in store.memories.with_secrets()}


def _is_index(rel: str) -> bool:
    return rel in (INDEX_FILE, f"{TEAM_DIR}/{INDEX_FILE}")


def note_line(memory: Memory) -> str:
    """A note of MEMORY.md as the index shows it: its line as the agent wrote it
    when memgov changed nothing, else a bullet of the record's content."""
    origin = memory.origin or {}
    if origin.get("note") is not None and origin.get("sig") == record_signatures(memory)["sig"]:
        return origin["note"]
    return "- " + " ".join(memory.content.split())


def _kept_topic(memory: Memory, team: bool, rank: float) -> _Out | None:
    """The record back under its own file name: byte for byte where memgov changed
    nothing (core.importers.claude_code.origin), else its front matter around the new content,
    else front matter written again; None when the origin cannot give the file back."""
    origin = memory.origin or {}
    out = _topic(memory, team, rank, set())
    rel = origin["file"]
    sigs = record_signatures(memory)
    unchanged = origin.get("sig") == sigs["sig"]
    # the agent's index line names the title and its own description, which a new
    # statement leaves as they were
    index_text = origin.get("index") if origin.get("keys") == sigs["keys"] else None
    if exact(origin) and origin.get("keys") == sigs["keys"]:
        kept = rebuilt(origin, memory.content) if not unchanged else None
        if unchanged:
            kept = rebuilt(origin, memory.content)
        return replace(out, rel=rel, kept=kept, slot=origin["slot"], index_text=index_text)
    front = _front_again(origin.get("front"), out)
    if exact(origin):
        again = {**origin, "front": front[4:-3] if front.startswith("---\n") else front}
        kept = rebuilt(again, memory.content)
    else:
        kept = f"{front}\n\n{memory.content.strip()}\n"
    return replace(out, rel=rel, kept=kept, front=front, slot=origin["slot"])


def _front_again(original: str | None, out: _Out) -> str:
    """The original front matter's own fields, with ``name``, ``description`` and
    ``type`` from the record and its ``memgov:`` block: what a decision changed."""
    meta: dict[str, Any] = {}
    if original:
        lines = original.splitlines()
        try:
            parsed = yaml.safe_load(original)
        except yaml.YAMLError:
            parsed = line_fields(lines)
        if isinstance(parsed, dict):
            meta = parsed
    fresh = yaml.safe_load(out.front.strip("-\n")) or {}
    nested = meta.get("metadata")
    for name in ("name", "description", "type"):
        if isinstance(nested, dict) and name in nested and name not in meta:
            nested[name] = fresh[name]
        else:
            meta[name] = fresh[name]
    meta["memgov"] = fresh["memgov"]
    text = yaml.dump(meta, Dumper=_DUMPER, sort_keys=False, allow_unicode=True, width=1000)
    return f"---\n{text}---"


def _from_template(
    state: FolderState, outs: list[_Out], notes: dict[str, str], config: Config
) -> tuple[dict[str, str], list[_Out], list[_Out], list[str]]:
    """Each index of the kept folder from its template: its own lines as they were,
    each record's line where it stood (as it was, or written again when memgov
    changed what it shows; a line a sync hid comes back once its record is active
    again), the lines of records no longer active left out; the
    records the folder did not list, after them in sections, within the caps.
    (indexes, listed, not listed, warnings)."""
    by_slot = {o.slot: o for o in outs if o.slot}
    width = config.index_line_chars
    indexes: dict[str, str] = {}
    listed: list[_Out] = []
    gone: list[str] = []
    for rel, template in sorted(state.index.items()):
        lines: list[str] = []
        for line in template.lines:
            slot = line.get("slot") or line.get("hidden") or ""
            if "text" in line:
                lines.append(line["text"])
            elif (out := by_slot.get(slot)) is not None:
                lines.append(out.index_text or index_line(out, width))
                listed.append(out)
            elif slot in notes:
                lines.append(notes[slot])
            elif "slot" in line:
                gone.append(line["slot"])
            # a hidden line (a sync took it out) whose record is still not active: out
        text = "\n".join(lines)
        indexes[rel] = text + ("\n" if template.final_newline and lines else "")
    seen = {id(o) for o in listed}
    # a file of the folder its index did not list stays unlisted, as the agent kept it
    rest = [o for o in outs if id(o) not in seen and o.slot is None]
    main = indexes.get(INDEX_FILE, "")
    used_lines, used_bytes = len(main.splitlines()), len(main.encode("utf-8"))
    more = replace(
        config,
        index_max_lines=max(config.index_max_lines - used_lines - 1, 0),
        index_max_bytes=max(config.index_max_bytes - used_bytes - 1, 0),
    )
    extra, chosen, left = _fit_index(rest, more) if rest else ("", [], [])
    if extra:
        main = (main if main.endswith("\n") or not main else main + "\n") + ("\n" if main else "")
        indexes[INDEX_FILE] = main + extra
    warnings = []
    if gone:
        shown = ", ".join(gone[:8]) + (" ..." if len(gone) > 8 else "")
        warnings.append(
            f"{counted(len(gone), 'line')} of the imported {INDEX_FILE} left out ({shown}): "
            "memgov holds no active record for them (never imported, held for review, "
            "or superseded, expired or erased since); the import report says why for each"
        )
    return indexes, listed + chosen, left, warnings


def _left_behind(stores: list[Store]) -> list[str]:
    """Warnings for records that are not active, hence not exported, but still open."""
    warnings = []
    for store in stores:
        for status, advice in (
            ("conflict", "decide them in the review desk ('memgov queue'), then export again"),
            ("expired", "re-verify them if they still hold"),
        ):
            ids = sorted(m.id for m in store.memories.with_status(status))
            if ids:
                warnings.append(
                    f"{len(ids)} {store.config.scope} "
                    f"{'record' if len(ids) == 1 else 'records'} in status {status} "
                    f"{'was' if len(ids) == 1 else 'were'} not "
                    f"exported ({', '.join(ids[:5])}{' ...' if len(ids) > 5 else ''}): {advice}"
                )
    return warnings


def log_weight(memory: Memory, now: datetime, config: Config) -> float:
    """ln of the record's decay weight now (core.writing.decay.weight, never cut to 0.0
    for a record years old): its store's static rank (core.store.index.index_rank) less
    what ``now`` takes from every record of the store alike, so records of two stores
    compare by weight, and one store's keep the order of its own index."""
    tau1, tau2 = rank_taus(config)
    w0 = math.log(config.w0) if config.w0 > 0 else -math.inf
    return w0 + index_rank(memory, config) - now.timestamp() / DAY * (1 / tau1 + 1 / tau2)


def _topic(memory: Memory, team: bool, rank: float, taken: set[str]) -> _Out:
    kind = claude_type(memory)
    base = f"{TEAM_DIR}/" if team else ""
    stem = f"{kind}_{slug(without_type_prefix(memory.title or memory.attribute), limit=60)}"
    rel = f"{base}{stem}.md"
    number = 2
    while rel.casefold() in taken:
        rel = f"{base}{stem}_{number}.md"
        number += 1
    taken.add(rel.casefold())
    block: dict[str, str] = {
        "id": memory.id,
        "type": memory.type,
        "subject": memory.subject,
        "attribute": memory.attribute,
    }
    if memory.condition:
        block["condition"] = memory.condition
    if memory.value:
        block["value"] = memory.value
    hook = _cut(" ".join(memory.hook.split()), DESCRIPTION_CHARS)
    # the words of the store's own index, list and recall (a record holding a credential
    # is left out of the export: its front matter is scanned next)
    meta = {"name": shown_title(memory), "description": hook, "type": kind, "memgov": block}
    front = yaml.dump(meta, Dumper=_DUMPER, sort_keys=False, allow_unicode=True, width=1000)
    return _Out(
        record=block,
        rel=rel,
        name=memory.display_title,
        condition=memory.condition,
        hook=hook,
        kind=kind,
        team=team,
        pick=(type_order(memory.type), -rank, memory.id, rel),
        listed=sort_key(memory),
        front=f"---\n{front}---",
        content=memory.content.strip(),
    )


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(limit - 1, 0)].rstrip() + "…"


# ------------------------------------------------------------------------- index
def index_line(out: _Out, limit: int) -> str:
    """``- [name (condition)](file.md) — hook`` in at most ``limit`` characters (a long
    name is cut before its condition)."""

    def plain(text: str) -> str:
        return text.replace("[", "(").replace("]", ")").replace("\n", " ")

    room = min(max(limit - len(out.rel) - 6, 10), 80)
    condition = plain(out.condition) if out.condition else None
    head = f"- [{titled(plain(out.name), condition, room)}]({out.rel})"
    hook = _cut(out.hook, limit - len(head) - 3)
    return f"{head} — {hook}" if len(hook) > 1 else head


def render_index(chosen: list[_Out], limit: int) -> str:
    chosen = sorted(chosen, key=lambda o: (o.listed, o.rel))
    groups = [(title, [o for o in chosen if not o.team and o.kind == k]) for k, title in SECTIONS]
    groups.append(("Team", [o for o in chosen if o.team]))
    lines: list[str] = []
    for title, group in groups:
        if group:
            lines += ([""] if lines else []) + [f"## {title}"]
            lines += [index_line(o, limit) for o in group]
    return "\n".join(lines) + "\n" if lines else ""


def _fit_index(outs: list[_Out], config: Config) -> tuple[str, list[_Out], list[_Out]]:
    """The index of the records that matter most that fit the caps (by type, then
    weight: :attr:`_Out.pick`); (text, listed, left out). Each candidate costs its own
    line (and its section's heading, the first time): the lines and bytes of
    :func:`render_index` are counted as they grow."""
    titles = dict(SECTIONS)
    chosen: list[_Out] = []
    left: list[_Out] = []
    lines = size = 0
    sections: set[str] = set()
    width = config.index_line_chars
    for out in sorted(outs, key=lambda o: o.pick):
        if lines >= config.index_max_lines:
            left.append(out)
            continue
        section = "Team" if out.team else titles[out.kind]
        more_lines, more_bytes = 1, len(index_line(out, width).encode("utf-8")) + 1
        if section not in sections:  # "## Section", after a blank line unless first
            more_lines += 1 + (1 if lines else 0)
            more_bytes += len(f"## {section}".encode()) + 1 + (1 if lines else 0)
        if (
            lines + more_lines <= config.index_max_lines
            and size + more_bytes <= config.index_max_bytes
        ):
            chosen.append(out)
            sections.add(section)
            lines, size = lines + more_lines, size + more_bytes
        else:
            left.append(out)
    text = render_index(chosen, width)
    assert len(text.splitlines()) == lines and len(text.encode("utf-8")) == size
    return text, chosen, left


# ------------------------------------------------------------------ for a sync
def file_text(memory: Memory, team: bool) -> str:
    """The record's file as an export writes it into its own folder (its origin's
    file: byte for byte where memgov changed nothing; core.importers.claude_code.sync)."""
    out = _kept_topic(memory, team, 0.0) if memory.origin and "file" in memory.origin else None
    return (out or _topic(memory, team, 0.0, set())).text


def record_line(memory: Memory, team: bool, limit: int) -> str:
    """The record's line in its folder's MEMORY.md: as the agent wrote it where memgov
    changed nothing it shows, else written again."""
    out = _kept_topic(memory, team, 0.0) if memory.origin and "file" in memory.origin else None
    out = out or _topic(memory, team, 0.0, set())
    return out.index_text or index_line(out, limit)
