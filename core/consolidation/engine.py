"""The deterministic engine: step 3 of consolidation (seed 6.4 "整合").

On the input records (active, used within ``unused_days``), in this order:

1. merge duplicates: same key (scope, subject, attribute, condition) and the
   same value. The survivor is an existing file (most sources, then oldest),
   never a new near-copy; it keeps every source, its confidence rises with
   independent tasks (noisy OR, as the pipeline does), and the others become
   ``superseded`` (their files stay, their index lines go). Same text is an
   exact duplicate (automatic); same value in other words needs approval;
2. read the daily-log messages since the last baseline: a message that
   restates a record's ``value`` reconfirms it (``verified_at``, source
   added; automatic when the match is unambiguous), a message that negates it
   ("不再用 X", "no longer X", "X 改成 Y") disproves it: the record is retired
   (``superseded``, needs approval, reversible by rollback; erasure stays a
   person's deletion request);
3. relative dates -> absolute, anchored on the statement's own day: the
   source's daily log, else ``created_at`` (automatic when both agree);
   ``2027/3/14`` -> ``2027-03-14``;
4. links in a record's text to a record this batch or an earlier decision
   superseded are repointed at its replacement.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from datetime import date, datetime
from typing import Any

from core.consolidation.model import Edit, Gathered, Proposal, Signal
from core.domain import dates
from core.domain.record import Memory, Source
from core.domain.values import noisy_or, normalise, same_value
from core.domain.words import counted

LOG_DATE_RE = re.compile(r"(\d{4}-\d{2}-\d{2})\.md$")
LINK_RE = re.compile(r"\]\(([^)\s]+\.md)\)")
_NEG_BEFORE = (
    r"(?<![A-Za-z])(?:no longer(?: use| using)?|not(?: use| using)?|don'?t(?: use)?|do not(?: use)?"
    r"|never(?: use)?|stop(?:ped)? using|instead of|rather than|switched from|moved from"
    r"|不再(?:用|使用)?|不用|别用|别再用|不要用|停用|弃用|不是)\s*"
)
_NEG_AFTER = (
    r"\s*(?:is wrong|is outdated|is deprecated|no longer works|doesn'?t work|changed to"
    r"|replaced by|不对|错了|已废弃|废弃了|过时了|不行了|不能用了|改成|换成|改为|->|→)"
)


def record_summary(memory: Memory) -> dict[str, Any]:
    return {
        "kind": "record",
        "id": memory.id,
        "path": memory.path,
        "status": memory.status,
        "key": list(memory.key),
        "value": memory.value,
        "hook": memory.hook,
        "sources": len(memory.all_sources),
        "confidence": memory.confidence,
        "created_at": memory.created_at.isoformat(),
        "verified_at": memory.verified_at.isoformat(),
    }


def combined_confidence(survivor: Memory, others: Iterable[Memory]) -> float:
    """Noisy OR over independent tasks, capped like the pipeline's merges."""
    confidence = survivor.confidence
    tasks = {s.task for s in survivor.all_sources}
    for other in others:
        theirs = {s.task for s in other.all_sources}
        confidence = noisy_or(confidence, other.confidence, independent=bool(theirs - tasks))
        tasks |= theirs
    return round(confidence, 4)


def log_date(source: Source | None, task_logs: dict[str, list[str]] | Any) -> date | None:
    """The day of the daily log a source points into, if it says."""
    if source is None:
        return None
    candidates = [source.log] if source.log else list(task_logs.get(source.task, ()))[:1]
    for rel in candidates:
        match = LOG_DATE_RE.search(rel or "")
        if match:
            return date.fromisoformat(match[1])
    return None


NEGATED_BEFORE = re.compile(f"{_NEG_BEFORE}$", re.IGNORECASE)
NEGATED_AFTER = re.compile(_NEG_AFTER, re.IGNORECASE)


def _word_char(text: str, at: int) -> bool:
    return 0 <= at < len(text) and text[at].isascii() and (text[at].isalnum() or text[at] == "_")


def mentions(text: str, value: str) -> tuple[bool, bool]:
    """(mentioned, negated): does ``text`` name ``value`` as a whole word, and is a
    mention negated ("不再用 X", "no longer X", "X 改成 ...")? No regex is compiled
    per value: a store has thousands of them."""
    low, needle = text.casefold(), value.casefold()
    found = negated = False
    start = low.find(needle)
    while start != -1:
        end = start + len(needle)
        edges_ok = not (_word_char(value, 0) and _word_char(low, start - 1)) and not (
            _word_char(value, len(value) - 1) and _word_char(low, end)
        )
        if edges_ok:
            found = True
            if NEGATED_BEFORE.search(text[max(start - 30, 0) : start]) or NEGATED_AFTER.match(
                text, end, end + 30
            ):
                negated = True
        start = low.find(needle, start + 1)
    return found, negated


def _probes(text: str) -> set[str]:
    """Lookup keys of a text: ASCII words, and each pair of non-ASCII characters."""
    low = text.casefold()
    found = set(re.findall(r"[a-z0-9_]+", low))
    for run in re.findall(r"[^\x00-\x7f\s]+", low):
        found.update(run[i : i + 2] for i in range(max(len(run) - 1, 1)))
    return found


def _probe(value: str) -> str:
    low = value.casefold()
    if low[:1].isascii():
        word = re.match(r"[a-z0-9_]+", low)
        return word.group(0) if word else low[:2]
    return low[:2]


class DeterministicEngine:
    name = "deterministic"

    def propose(self, g: Gathered) -> list[Proposal]:
        retired: dict[str, str | None] = {}  # id -> the record that replaces it, if any
        proposals = self._merges(g, retired)
        proposals += self._signals(g, retired)
        proposals += self._dates(g, retired)
        proposals += self._links(g, retired)
        return proposals

    # ------------------------------------------------------------- duplicates
    def _merges(self, g: Gathered, retired: dict[str, str | None]) -> list[Proposal]:
        by_key: dict[tuple[str, str, str, str | None], list[Memory]] = defaultdict(list)
        for memory in g.input_records():
            by_key[memory.key].append(memory)
        out = []
        for members in by_key.values():
            groups: list[list[Memory]] = []
            for memory in sorted(members, key=lambda m: (m.created_at, m.id)):
                home = next((grp for grp in groups if same_value(grp[0], memory)), None)
                if home is None:
                    groups.append([memory])
                else:
                    home.append(memory)
            out += [self._merge(grp, retired) for grp in groups if len(grp) > 1]
        return out

    def _merge(self, group: list[Memory], retired: dict[str, str | None]) -> Proposal:
        survivor = sorted(group, key=lambda m: (-len(m.all_sources), m.created_at, m.id))[0]
        others = [m for m in group if m.id != survivor.id]
        added = tuple(s for m in others for s in m.all_sources)
        newest = max(m.verified_at for m in group)
        changes: dict[str, Any] = {"confidence": combined_confidence(survivor, others)}
        if newest > survivor.verified_at:
            changes["verified_at"] = newest.isoformat()
        exact = all(
            normalise(m.content) == normalise(survivor.content)
            and (m.type, m.title, m.expires_at)
            == (survivor.type, survivor.title, survivor.expires_at)
            for m in others
        )
        for m in others:
            retired[m.id] = survivor.id
        sources = len({s.key for m in group for s in m.all_sources})
        wording = (
            "the same text"
            if exact
            else f"the same value ({survivor.value or survivor.hook!r}) in other words; "
            f"the survivor's wording is kept, the others stay readable in their files"
        )
        return Proposal(
            action="merge-exact" if exact else "merge",
            automatic=exact,
            reason=(
                f"{len(group)} records of key {survivor.subject} #{survivor.attribute} hold "
                f"{wording}: merged into {survivor.id} (an existing file: most sources, then "
                f"oldest) keeping all {sources} sources; "
                + ", ".join(m.id for m in others)
                + " superseded, their index lines go"
            ),
            edits=(
                Edit(
                    survivor.id,
                    "merge",
                    to_status="active",
                    add_sources=added,
                    set=changes,
                    details={"merged": [m.id for m in others]},
                ),
                *(
                    Edit(m.id, "supersede", to_status="superseded", details={"by": survivor.id})
                    for m in others
                ),
            ),
            evidence=tuple(record_summary(m) for m in group),
        )

    # ------------------------------------------------------ daily-log signals
    def _signals(self, g: Gathered, retired: dict[str, str | None]) -> list[Proposal]:
        index: dict[str, list[Memory]] = defaultdict(list)
        for memory in g.input_records():
            value = (memory.value or "").strip()
            if memory.id in retired or len(value) < 2 or (value.isascii() and len(value) < 3):
                continue
            index[_probe(value)].append(memory)
        said: dict[str, tuple[list[Signal], list[Signal]]] = {}
        for signal in g.signals:
            candidates = {m.id: m for p in _probes(signal.text) for m in index.get(p, ())}
            for memory in candidates.values():
                if signal.when(memory.verified_at) <= memory.verified_at or any(
                    (s.task, s.message_index) == (signal.task, signal.message_index)
                    for s in memory.all_sources
                ):
                    continue
                found, negated = mentions(signal.text, (memory.value or "").strip())
                if found:
                    yes, no = said.setdefault(memory.id, ([], []))
                    (no if negated else yes).append(signal)
        out = []
        for memory_id, (yes, no) in said.items():
            memory = g.records[memory_id]
            last_yes = max((s.when(memory.verified_at) for s in yes), default=None)
            last_no = max((s.when(memory.verified_at) for s in no), default=None)
            if last_no is not None and (last_yes is None or last_no >= last_yes):
                retired[memory_id] = None
                out.append(self._retire(g, memory, no))
            elif yes and last_yes is not None:
                out.append(self._reconfirm(memory, yes, last_yes))
        return out

    def _retire(self, g: Gathered, memory: Memory, no: list[Signal]) -> Proposal:
        newest = max(no, key=lambda s: (s.day, s.time))
        backed = [
            m.id
            for m in g.input_records()
            if (m.subject, m.attribute) == (memory.subject, memory.attribute)
            and m.id != memory.id
            and m.value
            and mentions(newest.text, m.value) == (True, False)
        ]
        also = f"; the same message supports {', '.join(backed)}" if backed else ""
        return Proposal(
            action="retire",
            automatic=False,
            reason=(
                f'a newer message disproves its value {memory.value!r}: "{newest.text}" '
                f"({newest.log}:{newest.line}, task {newest.task}){also}. Retired: "
                f"active -> superseded, the file stays, the index line goes; rollback restores it"
            ),
            edits=(
                Edit(
                    memory.id,
                    "retire",
                    to_status="superseded",
                    details={"disproved_by": [f"{s.log}:{s.line}" for s in no], "backs": backed},
                ),
            ),
            evidence=(record_summary(memory), *(s.to_dict() for s in no)),
        )

    def _reconfirm(self, memory: Memory, yes: list[Signal], last: datetime) -> Proposal:
        tasks = {s.task for s in memory.all_sources}
        words = [w for w in re.split(r"[_\-\s.:/]+", memory.attribute.lower()) if len(w) >= 3]
        value = memory.value or ""
        distinctive = len(value) >= 6 and bool(re.search(r"[\s./`_\-0-9]", value))

        def strong(s: Signal) -> bool:
            text = s.text.casefold()
            return (
                s.task in tasks
                or distinctive
                or any(re.search(rf"\b{re.escape(w)}", text) for w in words)
            )

        sure = all(strong(s) for s in yes)
        changes = {"verified_at": last.isoformat()} if last > memory.verified_at else {}
        return Proposal(
            action="reconfirm",
            automatic=sure,
            reason=(
                f"{counted(len(yes), 'newer message')} "
                f"{'restates' if len(yes) == 1 else 'restate'} its value {value!r}: "
                f"verified_at -> {last:%Y-%m-%d}, "
                f"{'its source' if len(yes) == 1 else 'their sources'} added"
                + (
                    ""
                    if sure
                    else "; the value alone matched (no shared task or attribute word): "
                    "confirm the message is about this record"
                )
            ),
            edits=(
                Edit(
                    memory.id,
                    "reconfirm",
                    to_status="active",
                    add_sources=tuple(s.source() for s in yes),
                    set=changes,
                ),
            ),
            evidence=(record_summary(memory), *(s.to_dict() for s in yes)),
        )

    # ------------------------------------------------------------------ dates
    def _dates(self, g: Gathered, retired: dict[str, str | None]) -> list[Proposal]:
        out = []
        for memory in g.input_records():
            if memory.id in retired:
                continue
            text = memory.content + "\n" + (memory.title or "")
            said = log_date(memory.source, g.task_logs)
            written = memory.created_at.date()
            anchor = said or written
            pairs = dates.absolutise(text, anchor)[1]
            if pairs:
                agree = said is not None and said == written
                where = (
                    f"its source's daily log, {said}, the day it was written"
                    if agree
                    else f"its source's daily log ({said}); it was written {written}"
                    if said
                    else f"created_at ({written}); no daily log dates its source"
                )
                out.append(
                    Proposal(
                        action="absolute-dates",
                        automatic=agree,
                        reason=(
                            "relative dates made absolute, anchored on "
                            + where
                            + ": "
                            + ", ".join(f"{was!r} -> {now!r}" for was, now in pairs)
                            + ("" if agree else "; check the anchor")
                        ),
                        edits=(
                            Edit(
                                memory.id,
                                "rewrite-dates",
                                transform="absolute-dates",
                                params={"anchor": anchor.isoformat()},
                            ),
                        ),
                        evidence=(
                            record_summary(memory),
                            {
                                "kind": "anchor",
                                "date": anchor.isoformat(),
                                "from": "log" if said else "created_at",
                                "written": str(written),
                            },
                            *({"kind": "date", "was": w, "now": n} for w, n in pairs),
                        ),
                    )
                )
            formats = dates.fix_formats(text)[1]
            if formats:
                out.append(
                    Proposal(
                        action="date-format",
                        automatic=True,
                        reason="dates written as ISO 8601: "
                        + ", ".join(f"{was!r} -> {now!r}" for was, now in formats),
                        edits=(Edit(memory.id, "fix-date-format", transform="date-format"),),
                        evidence=(record_summary(memory),),
                    )
                )
        return out

    # ------------------------------------------------------------------ links
    def _links(self, g: Gathered, retired: dict[str, str | None]) -> list[Proposal]:
        replaced_by = {
            m.supersedes: m.id for m in g.records.values() if m.supersedes and m.status == "active"
        }
        replaced_by.update({k: v for k, v in retired.items() if v})
        by_path = {m.path: m for m in g.records.values()}
        out = []
        for memory in g.input_records():
            if memory.id in retired:
                continue
            mapping: dict[str, str] = {}
            for target in LINK_RE.findall(memory.content):
                name = target.rsplit("/", 1)[-1].removesuffix(".md")
                linked = by_path.get(target) or g.records.get(name)
                if linked is None or linked.id not in replaced_by:
                    continue
                if linked.status == "active" and linked.id not in retired:
                    continue
                new = g.records[replaced_by[linked.id]]
                mapping[target] = new.path if "/" in target else new.path.rsplit("/", 1)[-1]
            if mapping:
                out.append(
                    Proposal(
                        action="repoint-link",
                        automatic=True,
                        reason="links to superseded records repointed at their replacements: "
                        + ", ".join(f"{a} -> {b}" for a, b in mapping.items()),
                        edits=(
                            Edit(
                                memory.id,
                                "repoint-links",
                                transform="repoint-links",
                                params={"map": mapping},
                            ),
                        ),
                        evidence=(record_summary(memory),),
                    )
                )
        return out
