"""Every command's arguments, without its implementation.

Building the parser imports nothing a command runs: each command is named by
its module in :mod:`tui.cli` and its function (``"writing:cmd_remember"``), and
:func:`tui.cli.parser.main` imports that one module after parsing. So
``memgov --help`` loads argparse and this file, and ``memgov remember`` loads
the write pipeline but not the desk, the review queue or the importers (a test
in ``tests/e2e/test_startup.py`` keeps it so).

The functions are grouped like the command modules, in the order ``memgov
--help`` lists the commands (:data:`COMMANDS`).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

#: adds a sub-command with the common options: ``add(name, "module:function", help)``
Adder = Callable[[str, str, str], argparse.ArgumentParser]

#: the kinds of the review queue (core.review.kinds; written out because parsing imports
#: no core.review: tests/review/test_review_kinds.py checks they are the registry's)
ITEM_KINDS = (
    "conflict",
    "promotion",
    "deletion",
    "consolidation",
    "secret",
    "stale",
    "held",
    "quarantine",
    "untrusted",
)
#: the folder formats memgov imports from and syncs with, and those it exports to
#: (:data:`core.importers.formats.FORMATS`, a test checks they agree; the registry
#: itself loads the importers, which --help must not)
FOLDER_FORMATS = ("claude-code", "codex")
EXPORT_FORMATS = ("claude-code",)
#: a record's statuses (:data:`core.domain.record.STATUSES`, a test checks they agree)
STATUSES = ("active", "superseded", "conflict", "expired", "deleted")


# -- stores: tui.cli.stores ------------------------------------------------------------


def add_init(add: Adder) -> None:
    p = add("init", "stores:cmd_init", "create an empty store (a git repository with config)")
    p.add_argument("--scope", choices=("private", "team"), default="private")
    p.add_argument("--owner", help="private store: the user it belongs to")
    p.add_argument("--maintainer", action="append", help="team store: a maintainer (repeat)")
    p.add_argument("--team-store", help="private store: path of its team store")


def add_doctor(add: Adder) -> None:
    p = add("doctor", "stores:cmd_doctor", "validate the whole store without changing it")
    p.add_argument("--strict", action="store_true", help="warnings fail too")


def add_scrub_history(add: Adder) -> None:
    add(
        "scrub-history",
        "stores:cmd_scrub_history",
        "rewrite a private store's history without the credentials doctor finds in it "
        "(every version of every file; a team store's history is never rewritten)",
    )


def add_reindex(add: Adder) -> None:
    add(
        "reindex",
        "stores:cmd_reindex",
        "write MEMORY.md again from the records (after a hand edit, or an older memgov's)",
    )


def add_health(add: Adder) -> None:
    add(
        "health",
        "measures:cmd_health",
        "the store's health and the seed's measures (repeats, precision, stale citations, "
        "hit rate, unused injections, interception), with the reverse signals",
    )


def add_labels(add: Adder) -> None:
    p = add(
        "labels",
        "measures:cmd_labels",
        "the samples waiting for a person's label (repeated explanations, precision, stale "
        "citations); label one with memgov decide",
    )
    p.add_argument("--measure", action="append", choices=("repeat", "precision", "citation"))


def add_redteam(add: Adder) -> None:
    p = add(
        "redteam",
        "measures:cmd_redteam",
        "replay a synthetic corpus of credentials and poisoned texts through the write gate; "
        "record the share it stopped (a redteam event)",
    )
    p.add_argument("--dry-run", action="store_true", help="report only, record nothing")


# -- the desk: tui.cli.desk ------------------------------------------------------------


def add_demo(add: Adder) -> None:
    p = add(
        "demo", "desk:cmd_demo", "build a demo store from the seed's scenarios and open the desk"
    )
    p.add_argument("--no-open", action="store_true", help="build it, do not open the desk")
    p.add_argument("--force", action="store_true", help="replace an existing demo store")
    p.add_argument(
        "--lang",
        choices=("zh", "en"),
        help="the language of what the demo's people say and its records hold: zh (the "
        "seed's, the default) or en, the same scenarios in English",
    )


def add_review(add: Adder) -> None:
    add("review", "desk:cmd_review", "open the review desk on the configured stores")


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        port = 0
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (1 to 65535)")
    return port


def add_serve(add: Adder) -> None:
    p = add(
        "serve",
        "serve:cmd_serve",
        "serve the review desk to a browser (each browser session runs the desk on "
        "these stores as this actor)",
    )
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="the address to listen on (default 127.0.0.1: this machine only; any other "
        "gives the desk, with this actor's authority, to whoever reaches it)",
    )
    p.add_argument("--port", type=_port, default=8000, help="default 8000")


def add_cite(add: Adder) -> None:
    p = add(
        "cite",
        "writing:cmd_cite",
        "record that recalled memories were used (a cite event each: the retrieval measures)",
    )
    p.add_argument("ids", nargs="+", metavar="ID")
    p.add_argument("--task", help="the task they were used in")


def add_mcp(add: Adder) -> None:
    add(
        "mcp",
        "agents:cmd_mcp",
        "serve these stores to an agent over MCP (stdio): remember, recall and requests, "
        "never a decision",
    )


# -- connecting an agent: tui.cli.setup, tui.cli.hooks -----------------------------

#: the agents memgov sets up, and the hook events it answers (core.api.setup.HOOKS)
SETUP_AGENTS = ("claude-code", "codex")
HOOK_EVENTS = ("session-start", "user-prompt", "post-tool", "session-end", "turn-end")


def add_setup(add: Adder) -> None:
    p = add(
        "setup",
        "setup:cmd_setup",
        "connect an agent: memgov's MCP server and hooks in its settings, merged with what "
        "is there (--remove takes them out)",
    )
    p.add_argument("agent", choices=SETUP_AGENTS)
    p.add_argument(
        "--user",
        action="store_true",
        help="every project: ~/.claude/settings.json and ~/.claude.json, or Codex's "
        "~/.codex/hooks.json and config.toml (default: the project's .claude/settings.json "
        "and .mcp.json, or .codex/hooks.json and .codex/config.toml)",
    )
    p.add_argument(
        "--project", metavar="DIR", help="the project folder (default: the current folder)"
    )
    p.add_argument("--remove", action="store_true", help="take memgov's entries out again")


def add_hook(add: Adder) -> None:
    p = add(
        "hook",
        "hooks:cmd_hook",
        "what an agent's hook runs, the event's JSON on stdin: session-start prints the "
        "index, user-prompt and post-tool log, session-end and turn-end (Codex's Stop) sync "
        "and read the transcript; never fails the session",
    )
    p.add_argument("event", choices=HOOK_EVENTS)


# -- reading: tui.cli.memories ---------------------------------------------------------


def add_history(add: Adder) -> None:
    p = add("history", "memories:cmd_history", "one memory's events, commits and supersedes chain")
    p.add_argument("id")


def add_list(add: Adder) -> None:
    p = add("list", "memories:cmd_list", "list memories")
    p.add_argument("--status", action="append", choices=STATUSES)
    p.add_argument("--subject", help="subject prefix")


def add_recall(add: Adder) -> None:
    p = add(
        "recall",
        "memories:cmd_recall",
        "active memories for a key, ranked by weight (records use)",
    )
    p.add_argument(
        "query", help="SUBJECT_PREFIX, optionally #ATTRIBUTE (e.g. project:liyyro#deploy_command)"
    )
    p.add_argument("--attribute")
    p.add_argument("--limit", type=int, default=10)
    p.add_argument("--no-usage", action="store_true", help="do not record a usage event")
    p.add_argument("--task", help="the task recalling, kept with the use (the hit rate's tasks)")


# -- writing: tui.cli.writing ----------------------------------------------------------


def add_remember(add: Adder) -> None:
    p = add("remember", "writing:cmd_remember", "run a candidate (JSON) through the write pipeline")
    p.add_argument(
        "file",
        nargs="?",
        help="JSON file, or - for stdin (default): one candidate, or a list of them "
        "(one commit, one outcome per candidate); s1 and s2 left out are settled by "
        "the gate: the memory type's default from the user's own message, else 0",
    )
    p.add_argument(
        "--keep-likely",
        action="store_true",
        help="you, a person, say the likely credentials the scan finds in these "
        "candidates are none (a word that only looks like a password): they are kept in "
        "a private store; a certain credential is refused all the same",
    )


def add_scan(add: Adder) -> None:
    p = add("scan", "writing:cmd_scan", "scan text for credentials (rule ids only, never values)")
    p.add_argument("file", nargs="?", help="file to scan, or - for stdin (default)")


def add_sweep(add: Adder) -> None:
    p = add(
        "sweep",
        "writing:cmd_sweep",
        "expire what is past expires_at or learnt in an old environment",
    )
    p.add_argument(
        "--env",
        action="append",
        metavar="TOOL=VERSION",
        help="the current version of a tool (repeat); reflections learnt with "
        "another version expire",
    )
    p.add_argument("--dry-run", action="store_true")


def add_log(add: Adder) -> None:
    p = add("log", "writing:cmd_log", "append a message to today's daily log (raw evidence)")
    p.add_argument("--task", help="the task or conversation (required with TEXT)")
    p.add_argument("--index", type=int, help="message index in the task (required with TEXT)")
    p.add_argument("--role", default="user")
    p.add_argument(
        "--transcript",
        metavar="FILE",
        help="read a Claude Code session transcript or a Codex rollout into the daily logs, "
        "each message with its role (a second run adds nothing already there)",
    )
    p.add_argument(
        "--format",
        choices=("claude-code", "codex"),
        help="the transcript's format (default: found from its content)",
    )
    p.add_argument("text", nargs="?")


# -- review: tui.cli.review ------------------------------------------------------------


def add_queue(add: Adder) -> None:
    p = add(
        "queue",
        "review:cmd_queue",
        "the review queue: conflicts, promotions, deletions, batches",
    )
    p.add_argument("--kind", action="append", choices=ITEM_KINDS)


def add_show(add: Adder) -> None:
    p = add("show", "review:cmd_show", "one review item with its evidence")
    p.add_argument("item")


def add_decide(add: Adder) -> None:
    p = add("decide", "review:cmd_decide", "decide a review item (recorded, committed, revertible)")
    p.add_argument(
        "item",
        help="the item's id; - reads a JSON list of decisions from stdin and decides them "
        'in one transaction and one commit: [{"item": ID, "approve": true, "option": '
        '"newer", "reason": "..."}, ...] (keys: item, approve or reject, option, reason, '
        "conditions, content)",
    )
    p.add_argument("--approve", action="store_true")
    p.add_argument("--reject", action="store_true", help="for a conflict: defer")
    p.add_argument(
        "--option",
        choices=(
            "newer",
            "older",
            "parallel",
            "neither",
            "defer",
            "erase",
            "correct",
            "withdraw",
            "rerequest",
            "expire",
            "redact",
            "keep",
            "drop",
            "learn",
            "forget",
            "agent",
            "memgov",
            "release",
            "confirm",
            "reusable",
            "true",
            "stale",
        ),
        help="conflict: newer, older, parallel, neither or defer; secret in a record: "
        "erase or correct; promotion, with --reject: withdraw (who asked, or the owner) "
        "or rerequest (ask again for the record that replaced the requested one); stale "
        "report: expire or correct (--reject keeps the record, verified now); held memory: "
        "redact or keep (an internal address; --reject drops it), learn (re-learned after "
        "its erasure; --reject forgets it) or agent (changed on both sides; --reject keeps "
        "memgov's version); quarantine: release (a held candidate; --reject discards it), "
        "or erase or correct (a stored record; --reject keeps it); a label (memgov "
        "labels): confirm (a repeat; --reject dismisses it), reusable (precision; --reject: "
        "noise), true, expire or correct (a citation; stale for a record no longer current)",
    )
    p.add_argument(
        "--shown",
        metavar="HASH",
        help="the hash 'memgov show ITEM' printed: decide only if the item is still what "
        "you were shown (otherwise nothing is decided, exit 1)",
    )
    p.add_argument(
        "--id",
        metavar="DECISION",
        dest="decision_id",
        help="the decision id a --dry-run of this decision named: the decision takes it, "
        "and writes the record ids that dry run named",
    )
    p.add_argument(
        "--content",
        metavar="FILE",
        help="--option correct: the corrected text (- for stdin); for a secret in a "
        "record it defaults to the record with each credential replaced by "
        "[secret: rule-id], for a stale report it is required",
    )
    p.add_argument(
        "--condition",
        action="append",
        metavar="ID=CONDITION",
        help="parallel: the condition under which each record holds (repeat)",
    )
    p.add_argument("--reason")
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="say what the decision would change (transitions, erasures, files, what it "
        "discards) and write nothing",
    )
    p.add_argument(
        "--file",
        action="append",
        metavar="PATH",
        help="consolidation batch: decide only the changes to this file (repeat); "
        "the rest of the batch is decided the other way",
    )


def add_revert(add: Adder) -> None:
    p = add(
        "revert",
        "review:cmd_revert",
        "undo a decision (not an erasure) as a new event and commit",
    )
    p.add_argument("decision")
    p.add_argument("--reason")


def add_requests(add: Adder) -> None:
    for kind, verb in (("delete", "erasure"), ("promote", "promotion to the team store")):
        p = add(f"request-{kind}", f"review:cmd_request_{kind}", f"ask for the {verb} of a memory")
        p.add_argument("id")
        p.add_argument("--reason", required=True)
    p = add(
        "report-stale",
        "review:cmd_report_stale",
        "report that a memory is wrong or out of date: a review item a person decides "
        "(expire, correct or keep)",
    )
    p.add_argument("id")
    p.add_argument("--reason", required=True, help="what the user said, or why it no longer holds")


# -- consolidation: tui.cli.consolidation ----------------------------------------------


def add_consolidate(add: Adder) -> None:
    p = add(
        "consolidate",
        "consolidation:cmd_consolidate",
        "orient, gather, consolidate, prune: propose a "
        "batch of changes for review (automatic ones may apply by policy)",
    )
    p.add_argument("--dry-run", action="store_true", help="show the batch, keep nothing")
    p.add_argument("--diff", action="store_true", help="print each file's diff")


def add_rollback(add: Adder) -> None:
    p = add(
        "rollback",
        "consolidation:cmd_rollback",
        "return the store to an approved baseline (a new commit with events; history is kept)",
    )
    p.add_argument(
        "baseline",
        nargs="?",
        help="baseline/NNNN, NNNN or N (default: the one before the last approved batch "
        "still in effect; a batch a revert undid is not put back)",
    )
    p.add_argument("--list", action="store_true", help="list the baselines")
    p.add_argument("--reason", help="why (kept in the decision record and the events)")


# -- transfer: tui.cli.transfer --------------------------------------------------------


def add_import(add: Adder) -> None:
    p = add(
        "import",
        "transfer:cmd_import",
        "review what agents already remembered: import their "
        "memory folder through the write pipeline (the folder is never modified)",
    )
    p.add_argument("format", choices=FOLDER_FORMATS)
    p.add_argument(
        "path",
        nargs="+",
        help="the agent's memory folder; several: each imported on its own, then a "
        "summary table of them all",
    )
    p.add_argument("--dry-run", action="store_true", help="say what would happen, change nothing")
    p.add_argument(
        "--mapping",
        help="YAML file correcting subject/attribute/type per file, for every PATH "
        "(default: each PATH's own memgov-import.yaml)",
    )


def add_sync(add: Adder) -> None:
    p = add(
        "sync",
        "transfer:cmd_sync",
        "alone: every team store with a remote fetches, merges and pushes; with a format "
        "and PATH: two ways with an agent's memory folder (what it wrote comes in, what "
        "people decided goes back; Codex: erasures), safe from a hook after every session",
    )
    p.add_argument("format", nargs="?", choices=FOLDER_FORMATS)
    p.add_argument("path", nargs="?", help="the agent's memory folder")


def add_team(add: Adder) -> None:
    p = add(
        "team",
        "team:cmd_team",
        "a team store over a git remote: init, clone, ratify or reject an untrusted commit",
    )
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    init = actions.add_parser(
        "init", help="a new team store (at --store) whose remote is an empty repository"
    )
    init.add_argument("--remote", required=True, metavar="URL", help="any git URL")
    init.add_argument("--maintainer", action="append", help="a maintainer (repeat; default: you)")
    init.add_argument("--signing-key", metavar="KEY", help="your SSH key: commits are signed")
    clone = actions.add_parser("clone", help="clone a team store, verify its history")
    clone.add_argument("url", metavar="URL")
    clone.add_argument("path", nargs="?", metavar="PATH", help="default: the URL's last part")
    clone.add_argument("--signing-key", metavar="KEY", help="your SSH key: commits are signed")
    ratify = actions.add_parser(
        "ratify", help="a maintainer accepts an untrusted commit's changes as their own"
    )
    ratify.add_argument("commit", metavar="COMMIT")
    ratify.add_argument("--reason", required=True)
    reject = actions.add_parser(
        "reject", help="a maintainer undoes an untrusted commit's changes (a signed commit)"
    )
    reject.add_argument("commit", metavar="COMMIT")
    reject.add_argument("--reason", required=True)
    check = actions.add_parser(
        "check-push", help="the pre-push hook: scan what git is about to push (refs on stdin)"
    )
    check.add_argument("hook_args", nargs="*", help=argparse.SUPPRESS)
    for sub in (init, clone, ratify, reject, check):  # the common options after the action too
        sub.add_argument("--store", action="append", metavar="PATH", default=argparse.SUPPRESS)
        sub.add_argument("--as", dest="actor", metavar="USER", default=argparse.SUPPRESS)
        sub.add_argument("--json", action="store_true", default=argparse.SUPPRESS)


def add_export(add: Adder) -> None:
    p = add(
        "export",
        "transfer:cmd_export",
        "write the active records back as an agent's memory folder",
    )
    p.add_argument("format", choices=EXPORT_FORMATS)
    p.add_argument("path", help="an empty folder, or a previous export")


#: each command's parser, in the order the help lists them
COMMANDS: tuple[Callable[[Adder], None], ...] = (
    add_init,
    add_demo,
    add_review,
    add_serve,
    add_mcp,
    add_setup,
    add_hook,
    add_doctor,
    add_health,
    add_labels,
    add_redteam,
    add_reindex,
    add_scrub_history,
    add_history,
    add_list,
    add_remember,
    add_scan,
    add_sweep,
    add_recall,
    add_cite,
    add_queue,
    add_show,
    add_decide,
    add_consolidate,
    add_rollback,
    add_revert,
    add_requests,
    add_import,
    add_sync,
    add_team,
    add_export,
    add_log,
)
