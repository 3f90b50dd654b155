"""Each command imports only what it uses (the issue "every operation costs what
it touches"): the parser imports no command's implementation, the desk's
toolkit loads only for the desk, gitpython only where a repository is opened.

Each case runs ``tui.cli.main`` in a fresh interpreter and reads ``sys.modules``
afterwards: what was imported, never how long it took.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.domain.record import STATUSES
from core.review.items import KINDS
from tui.cli.arguments import ITEM_KINDS
from tui.cli.arguments import STATUSES as LISTED_STATUSES

ROOT = Path(__file__).resolve().parents[2]
NOW = "2027-06-01T10:00:00+08:00"

PROBE = """
import io, json, sys
argv, stdin = json.loads(sys.argv[1]), sys.argv[2]
sys.stdin = io.StringIO(stdin)
from tui.cli import main
try:
    code = main(argv)
except SystemExit as exc:
    code = exc.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""

#: the desk's toolkit, gitpython (and gitdb under it), YAML and front matter
DESK = ("textual", "rich", "tui.app", "tui.screens", "tui.render")
GITPYTHON = ("git", "gitdb")
YAML = ("yaml", "frontmatter")
#: the web server of ``memgov serve`` (textual-serve and aiohttp under it)
SERVE = ("textual_serve", "aiohttp")
#: the MCP server's SDK: only `memgov mcp` imports it
MCP = ("mcp", "mcp_types", "pydantic", "tui.mcp")


def loaded(argv: list[str], stdin: str = "", env: dict[str, str] | None = None) -> set[str]:
    """The modules ``memgov ARGV`` imported, run in a fresh interpreter."""
    result = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(argv), stdin],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "MEMGOV_ACTOR": "startup@example.com",
            "MEMGOV_NOW": NOW,
            **(env or {}),
        },
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout.strip().splitlines()[-1])
    return set(data["modules"])


def under(modules: set[str], *packages: str) -> list[str]:
    return sorted(m for m in modules if any(m == p or m.startswith(p + ".") for p in packages))


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store with one record, written through the CLI in this process."""
    from tui.cli import main

    root = tmp_path_factory.mktemp("startup") / "store"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MEMGOV_NOW", NOW)
        assert main(["init", "--store", str(root), "--as", "startup@example.com"]) == 0
        logged = ["log", "--store", str(root), "--as", "u@example.com", "--task", "t1"]
        assert main([*logged, "--index", "0", "I use vim"]) == 0
    return root


def candidate(log: str) -> str:
    return json.dumps(
        {
            "content": "Uses vim.",
            "type": "preference",
            "scope": "private",
            "subject": "user:me",
            "attribute": "editor",
            "source": {"task": "t1", "message_index": 0, "evidence": "I use vim", "log": log},
            "s1": 0.9,
            "s2": 0.9,
            "confidence": 0.9,
        }
    )


def test_help_imports_no_command_nor_toolkit() -> None:
    modules = loaded(["--help"])
    assert under(modules, *DESK, *GITPYTHON, *YAML, *SERVE, *MCP) == []
    # the parser names each command's module; --help imports none of them
    commands = (
        "stores",
        "desk",
        "serve",
        "memories",
        "writing",
        "review",
        "consolidation",
        "transfer",
        "agents",
    )
    assert under(modules, *(f"tui.cli.{c}" for c in commands)) == []
    assert under(modules, "core.store", "core.writing", "core.review", "core.domain.secrets") == []


def test_scan_imports_the_scanner_only() -> None:
    modules = loaded(["scan"], "nothing secret here")
    assert "core.domain.secrets.scanner" in modules
    assert under(modules, *DESK, *GITPYTHON, *YAML, "core.store") == []


def test_remember_imports_the_pipeline_not_the_desk_nor_the_review(store: Path) -> None:
    log = next(p for p in (store / "logs").rglob("*.md")).relative_to(store).as_posix()
    modules = loaded(["remember", "--store", str(store)], candidate(log))
    assert "core.writing.pipeline" in modules
    assert under(modules, *DESK, *SERVE, *MCP) == []
    assert under(modules, "core.review", "core.consolidation", "core.importers") == []
    assert under(modules, "core.reports", "core.demo", "tui.cli.review", "tui.cli.desk") == []
    # the commit is git plumbing run as processes: no gitpython on the write path
    assert under(modules, *GITPYTHON) == []


def test_reading_commands_open_no_repository(store: Path) -> None:
    for argv in (
        ["list", "--store", str(store)],
        ["recall", "--store", str(store), "user:me", "--no-usage"],
    ):
        modules = loaded(argv)
        assert "core.store.store" in modules
        assert under(modules, *DESK, *GITPYTHON, *SERVE) == [], argv
        assert under(modules, "core.store.transaction", "core.store.erase") == [], argv


def test_history_opens_the_repository_and_no_desk(store: Path) -> None:
    modules = loaded(["history", "--store", str(store), "editor-00000000"])
    assert "core.reports.history" in modules
    assert under(modules, *DESK, *SERVE, "core.review", "core.consolidation") == []


#: the steering detector (its rules compile when a text is first read) and the desk
STEERING = ("core.domain.steering",)
TEXTUAL = ("textual", "tui.app", "tui.screens")


@pytest.fixture(scope="module")
def remembered(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A store holding a record the steering detector has a question about (a
    preference: whose words it is), written by ``memgov remember`` in a process of its
    own, and read once by each plain command, so its catalog is current."""
    root = tmp_path_factory.mktemp("plain") / "store"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MEMGOV_NOW": NOW}

    def memgov(*argv: str, stdin: str = "") -> str:
        done = subprocess.run(
            [sys.executable, "-m", "tui.cli", *argv, "--store", str(root)],
            input=stdin,
            capture_output=True,
            text=True,
            timeout=120,
            cwd=ROOT,
            env={**env, "MEMGOV_ACTOR": "startup@example.com"},
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    memgov("init")
    memgov("log", "--as", "u@example.com", "--task", "t1", "--index", "0", "I use vim")
    log = next(p for p in (root / "logs").rglob("*.md")).relative_to(root).as_posix()
    memgov("remember", stdin=candidate(log))
    found = [m["id"] for m in json.loads(memgov("list", "--json"))]
    assert len(found) == 1, found
    for argv in (["history", found[0]], ["recall", "user:me", "--no-usage"]):
        memgov(*argv)
    return root, found[0]


@pytest.mark.parametrize(
    "argv",
    [
        ["list"],
        ["list", "--json"],
        ["history", "ID"],
        ["history", "ID", "--json"],
        ["recall", "user:me", "--no-usage"],
    ],
)
def test_a_plain_store_command_imports_no_detector_nor_desk(
    remembered: tuple[Path, str], argv: list[str]
) -> None:
    """Reading a store whose catalog is current runs no steering rule (the catalog keeps
    each record's hint and verdict) and draws no screen: neither the detector's modules
    nor Textual load, in a real ``memgov`` process."""
    root, memory_id = remembered
    argv = [memory_id if a == "ID" else a for a in argv]
    modules = loaded([*argv, "--store", str(root)])
    assert "core.store.store" in modules, argv  # the store was opened: the probe probes
    assert under(modules, *STEERING, *TEXTUAL, "rich", "core.review") == [], argv


def test_the_probe_sees_the_detector_when_a_record_changed_behind_the_catalog(
    remembered: tuple[Path, str], tmp_path: Path
) -> None:
    """The check above can fail: a record edited behind the catalog's back is read again
    and the detector hints it, so the same probe sees the detector's modules."""
    root, memory_id = remembered
    copy = tmp_path / "copy"
    subprocess.run(["cp", "-a", str(root), str(copy)], check=True)
    record = next(copy.glob(f"memories/**/{memory_id}.md"))
    record.write_text(record.read_text(encoding="utf-8").replace("Uses vim.", "Uses vi."))
    modules = loaded(["list", "--store", str(copy)])
    assert under(modules, *STEERING), "a changed record is hinted again"


def test_serves_help_imports_no_web_server() -> None:
    """textual-serve (and aiohttp) load when ``memgov serve`` serves, not to parse it."""
    modules = loaded(["serve", "--help"])
    assert under(modules, *SERVE, *DESK, "tui.cli.serve") == []


def test_the_parsers_choices_are_the_cores_vocabularies() -> None:
    assert tuple(KINDS) == ITEM_KINDS
    assert tuple(STATUSES) == LISTED_STATUSES


def test_one_commands_parser_is_that_part_of_the_full_parser(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``memgov NAME`` builds NAME's parser alone; its help and its parse are the
    full parser's, for every command."""
    from tui.cli.parser import build_parser, command_names

    names = command_names()
    assert len(names) == len(set(names)) > 15
    full = build_parser()
    for name in names:
        helps = []
        for parser in (full, build_parser(only=name)):
            with pytest.raises(SystemExit):
                parser.parse_args([name, "--help"])
            helps.append(capsys.readouterr().out)
        assert helps[0] == helps[1], name
        assert f"memgov {name}" in helps[0]


def test_a_scan_compiles_only_the_rules_whose_keywords_occur() -> None:
    code = (
        "from core.domain import secrets\n"
        "secrets.scan('plain words, nothing to see')\n"
        "print(sum('searchers' in r.__dict__ for r in secrets.RULES))\n"
        "found = secrets.scan('token ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8')\n"
        "print(sorted(r.id for r in secrets.RULES if 'searchers' in r.__dict__),"
        " [f.rule_id for f in found])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    first, second = done.stdout.splitlines()
    assert first == "0"
    assert second == "['github-pat'] ['github-pat']"


@pytest.fixture(scope="module")
def in_conflict(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A private store with one conflict open (two values of one key), its catalog
    current, and the conflict's item id."""
    from support_conflicts import OWNER, conflict_store

    root = conflict_store(tmp_path_factory.mktemp("conflict") / "store", 1)
    done = subprocess.run(
        [sys.executable, "-m", "tui.cli", "queue", "--store", str(root), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "MEMGOV_ACTOR": OWNER},
    )
    items = json.loads(done.stdout)
    items = items if isinstance(items, list) else items["items"]
    assert len(items) == 1, items
    return root, items[0]["id"]


def test_deciding_a_conflict_loads_no_importer_nor_another_kinds_work(
    in_conflict: tuple[Path, str], tmp_path: Path
) -> None:
    """``memgov decide`` of a conflict loads the decision path and the conflict's kind:
    not the importers (the held kind's), the revert, the erasure (the secret kind's),
    nor the consolidation's planning (the batch kind's); the review door (core.api.review)
    gives each name from its module when asked. The same probe on ``memgov revert`` of
    that decision sees the revert load (the check can fail)."""
    root, item = in_conflict
    copy = tmp_path / "copy"
    subprocess.run(["cp", "-a", str(root), str(copy)], check=True)
    argv = ["decide", item, "--approve", "--option", "newer", "--reason", "r", "--json"]
    owner = {"MEMGOV_ACTOR": "owner@example.com"}
    modules = loaded([*argv, "--store", str(copy)], env=owner)
    assert "core.review.decide" in modules and "core.review.kinds.conflict" in modules
    unused = (
        "core.importers",
        "core.review.revert",
        "core.review.held",
        "core.store.erase",
        "core.consolidation.plan",
        "core.consolidation.apply",
        "core.consolidation.rollback",
    )
    assert under(modules, *unused, *DESK, *SERVE, *MCP) == []
    decided = [p.stem for p in (copy / "decisions").glob("*.json")]
    assert len(decided) == 1, decided
    # the revert of that decision loads what the decision did not
    modules = loaded(["revert", decided[0], "--reason", "back", "--store", str(copy)], env=owner)
    assert "core.review.revert" in modules


def test_the_doors_lazy_names_are_their_modules_own() -> None:
    """A door of core.api that gives its names lazily (``_WHERE``) lists for the type
    checker (its TYPE_CHECKING imports) exactly what it gives at run time, and every
    name of its ``__all__`` resolves to the object of the module it names."""
    import ast
    import importlib
    import importlib.util

    checked = 0
    for path in sorted((ROOT / "core" / "api").glob("*.py")):
        module = importlib.import_module(f"core.api.{path.stem}")
        where = getattr(module, "_WHERE", None)
        if where is None:
            continue
        checked += 1
        typed: dict[str, str] = {}
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
                for sub in node.body:
                    assert isinstance(sub, ast.ImportFrom), ast.dump(sub)
                    for alias in sub.names:
                        parent = importlib.import_module(str(sub.module))
                        full = f"{sub.module}.{alias.name}"
                        is_module = hasattr(parent, "__path__") and bool(
                            importlib.util.find_spec(full)
                        )
                        typed[alias.asname or alias.name] = (
                            full if is_module else f"{sub.module}:{alias.name}"
                        )
        assert typed == where, path.name
        for name in module.__all__:
            value = getattr(module, name)
            module_name, _, attr = where.get(name, f"{module.__name__}:{name}").partition(":")
            source = importlib.import_module(module_name)
            assert value is (getattr(source, attr) if attr else source), name
    assert checked >= 1


def test_the_held_kinds_prefix_is_the_importers() -> None:
    """The held kind names its ids' prefix without importing the importers; it is theirs."""
    from core.importers.held import PREFIX
    from core.review.kinds import held

    assert held.PREFIX == PREFIX
    assert held.KIND.prefixes == (PREFIX,)
