"""The queue screen's keys, each with an id (a keymap file may rebind it; ``?`` and
the command palette list them with their tooltips)."""

from __future__ import annotations

from textual.binding import Binding, BindingType

QUEUE_BINDINGS: list[BindingType] = [
    Binding(
        "enter",
        "open",
        "Open",
        priority=True,
        id="queue.open",
        tooltip="Open the item with its evidence side by side",
    ),
    Binding("j", "down", "Down", show=False, id="queue.down", tooltip="Next item"),
    Binding("k", "up", "Up", show=False, id="queue.up", tooltip="Previous item"),
    Binding("g", "first", "First", show=False, id="queue.first", tooltip="The first item"),
    Binding(
        "G", "last", "Last", show=False, key_display="G", id="queue.last", tooltip="The last item"
    ),
    Binding(
        "left_square_bracket",
        "kind(-1)",
        "Prev kind",
        key_display="[",
        id="queue.prev_kind",
        tooltip="Previous kind of item",
    ),
    Binding(
        "right_square_bracket",
        "kind(1)",
        "Next kind",
        key_display="]",
        id="queue.next_kind",
        tooltip="Next kind of item",
    ),
    Binding(
        "slash",
        "search",
        "Search",
        key_display="/",
        id="queue.search",
        tooltip="Filter by ids, titles, subjects and contents",
    ),
    Binding(
        "s",
        "scope",
        "Scope",
        id="queue.scope",
        tooltip="Show all scopes, only private, or only team items",
    ),
    Binding("a", "about", "About me", id="queue.about", tooltip="Everything remembered about you"),
    Binding(
        "h",
        "history",
        "History",
        id="queue.history",
        tooltip="Any memory's timeline and supersedes chain",
    ),
    Binding("m", "health", "Health", id="queue.health", tooltip="Counts and signals"),
    Binding(
        "p",
        "problems",
        "Problems",
        id="queue.problems",
        tooltip="Files the store could not read",
    ),
    Binding(
        "space",
        "mark",
        "Mark",
        show=False,  # in ? and the palette; the status line says what marks do
        id="queue.mark",
        tooltip="Mark the item, to decide several conflicts, deletions or secrets at once",
    ),
    Binding(
        "D",
        "decide_marked",
        "Decide marked",
        show=False,
        key_display="D",
        id="queue.decide_marked",
        tooltip="Decide every marked item the same way, in one commit",
    ),
    Binding(
        "R", "reload", "Reload", show=False, id="queue.reload", tooltip="Read the stores again"
    ),
    Binding(
        "S",
        "sync",
        "Sync",
        show=False,
        key_display="S",
        id="queue.sync",
        tooltip="Sync the team stores with their remotes: fetch, merge, push",
    ),
    Binding(
        "escape",
        "clear_search",
        "Clear",
        show=False,
        id="queue.clear",
        tooltip="Clear the search, then the kind and scope filters",
    ),
]
