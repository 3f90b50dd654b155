"""The index as an agent is given it: ``MEMORY.md``, checked line by line.

The file on disk is untrusted (a hand edit, a push to a team store): a line
there may point at a record that is no longer active, carry a credential, or be
no index line at all (prose that talks to the agent). :func:`index_for_agents`
keeps only the lines that point at an active record, each written again from
the record (its title with its condition, redacted, within the line's width),
within the index's caps, with the last line saying how many active records it
does not list. It costs what the file holds: one look-up per line, and one
count, never a read of the store. A file that cannot be read is written anew
from the records.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from core.store.index import fit_index, index_line, parse_index, read_index_text, render_index
from core.store.store import Store


def index_for_agents(store: Store) -> str:
    """The store's index for an agent's system prompt (see the module's docstring)."""
    config = store.config
    text, _problem = read_index_text(store.root)
    records = store.memories
    if text is None:  # none yet, or unreadable: the records say what it holds
        return render_index(records.values(), config)
    lines: list[str] = []
    seen: set[str] = set()
    for line in parse_index(text):
        memory_id = PurePosixPath(line.target).stem
        if memory_id in seen or memory_id not in records:
            continue
        memory = records[memory_id]
        if memory.status != "active" or memory.path != line.target:
            continue
        seen.add(memory_id)
        lines.append(index_line(memory, config.index_line_chars) + "\n")
    total = store.catalog.count_active()
    return fit_index(iter(lines), max(total, len(lines)), config)
