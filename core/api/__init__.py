"""The one door into the core for its faces (the CLI, the MCP server, the desk).

The faces (``tui``) import from this package and from :mod:`core.domain` (pure
value types and helpers) only; an import-linter contract keeps it so. Each module
here is one room of the door, named by what a face does through it, and each is a
curated list of the core's own functions and classes (its ``__all__``), with a
small function of its own where a face would otherwise compose the core's
internals.

The door is split by what each command needs, not gathered in one module, because
a command imports only what it uses (``tests/e2e/test_startup.py``): ``memgov remember``
loads :mod:`core.api.writing` and never the review; ``memgov list`` loads
:mod:`core.api.reading` and never the transaction machinery.

- :mod:`core.api.stores`: open the stores (a workspace), create one, its config.
- :mod:`core.api.writing`: remember, log, cite, record uses, sweep, the red team.
- :mod:`core.api.reading`: recall, list, history, the agents' index.
- :mod:`core.api.requests`: requests to delete, promote or report stale.
- :mod:`core.api.review`: the queue, an item, its preview, decide, revert.
- :mod:`core.api.measures`: health and the labelled measures.
- :mod:`core.api.doctor`: a store's problems, and its index written again.
- :mod:`core.api.transfer`: import, sync and export an agent's memory folder.
- :mod:`core.api.team`: team stores: set up, sync, trust, untrusted changes.
- :mod:`core.api.consolidation`: consolidate and roll back.
- :mod:`core.api.demo`: the demo's stores.
- :mod:`core.api.hooks`: an agent's hooks: the index at a session's start, the log.
- :mod:`core.api.setup`: memgov's hooks and MCP server in Claude Code's settings.
"""
