"""The index as an agent is given it: ``MEMORY.md``, checked line by line.

The file on disk is untrusted (a hand edit, a push to a team store): a line
there may point at a record that is no longer active, carry a credential, or be
no index line at all (prose that talks to the agent). :func:`index_for_agents`
keeps only the lines that point at an active record, each written again from
the record (its title with its condition, redacted, within the line's width),
within the index's caps, with the last line saying how many active records it
does not list. Only what reaches the agent is kept (core.store.reaching, the rule
every channel applies): a record the steering detector flags and no person kept
has no line, even where the file lists it. It costs what the file holds: one
look-up per line, and one count, never a read of the store. A file that cannot be
read is written anew from the records.

This is what the SessionStart hook prints (core.reports.session_start, by type): the index
an agent loads first.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from core.store.index import fit_index, index_line, parse_index, read_index_text, render_index
from core.store.reaching import Reaching
from core.store.store import Store


def index_for_agents(store: Store) -> str:
    """The store's index for an agent's system prompt (see the module's docstring)."""
    config = store.config
    text, _problem = read_index_text(store.root)
    records = store.memories
    reaching = Reaching(store)
    if text is None:  # none yet, or unreadable: the records say what it holds
        return render_index((m for m in records.values() if reaching.reaches(m)), config)
    lines: list[str] = []
    seen: set[str] = set()
    for line in parse_index(text):
        memory_id = PurePosixPath(line.target).stem
        if memory_id in seen or memory_id not in records:
            continue
        memory = records[memory_id]
        if memory.path != line.target or not reaching.reaches(memory):
            continue
        seen.add(memory_id)
        lines.append(index_line(memory, config.index_line_chars) + "\n")
    total = store.catalog.count_active()
    if total - len(lines) <= _EXACT:  # few not listed: the withheld are not counted
        for memory_id in set(reaching.hints()) - seen:
            found = records.get(memory_id)
            if found is not None and found.status == "active" and not reaching.reaches(found):
                total -= 1
    return fit_index(iter(lines), max(total, len(lines)), config)


#: up to how many active records not listed the last line's count leaves out the
#: withheld ones exactly (more: the index is over its caps, and the count of those
#: not listed may count a withheld one too, as core.store.prepared.index_text's does)
_EXACT = 256
