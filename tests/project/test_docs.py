"""The README and ``docs/`` keep up with the code: the README stays short; every
command, sub-command, option and choice of ``memgov``'s parser is documented; every
key of every desk screen is in ``docs/desk.md`` with its binding id and what it does;
and no document names a file, a link target or a module that does not exist."""

from __future__ import annotations

import argparse
import importlib
import inspect
import pkgutil
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.binding import Binding
from textual.dom import DOMNode

import tui.app
import tui.screens
from tui.cli.parser import build_parser
from tui.keymap import binding_ids
from tui.screens.queue.table import QueueTable

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
DESK = ROOT / "docs" / "desk.md"
CLI = ROOT / "docs" / "cli.md"

#: the repository's top-level folders: a code path starting with one names a file here
TOP = (".ci", "bench", "core", "docs", "screenshots", "tests", "tui")
#: how the desk documents a key Textual names otherwise
KEY_SHOWN = {
    "left_square_bracket": "[",
    "right_square_bracket": "]",
    "slash": "/",
    "question_mark": "?",
    "plus": "+",
    "equals_sign": "=",
    "minus": "-",
}


def documents() -> list[Path]:
    return [README, *DOCS]


def text_of(*paths: Path) -> str:
    return "\n".join(p.read_text("utf-8") for p in paths)


# ------------------------------------------------------------------------ the README
def test_the_readme_is_at_most_300_lines() -> None:
    lines = README.read_text("utf-8").splitlines()
    assert len(lines) <= 300, f"README.md has {len(lines)} lines; move the detail to docs/"


def test_the_readme_keeps_the_two_commands_and_links_every_document() -> None:
    readme = README.read_text("utf-8")
    assert "python3 -m venv .venv && .venv/bin/pip install -q -e . && .venv/bin/memgov demo" in (
        readme
    )
    ci_command = (
        "python3 -m venv .venv && .venv/bin/pip install -q -e '.[test]' && .venv/bin/pytest"
    )
    assert ci_command in readme
    assert ci_command in (ROOT / ".ci" / "run").read_text("utf-8")
    assert "](screenshots/" in readme
    for doc in DOCS:
        assert f"](docs/{doc.name})" in readme, f"README.md links no {doc.name}"


# ----------------------------------------------------------------- the command line
def sub_parsers(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            yield from action.choices.values()


def commands() -> list[tuple[str, argparse.ArgumentParser]]:
    """Every command and sub-command (``memgov team ratify``) with its parser."""
    found: list[tuple[str, argparse.ArgumentParser]] = []
    for parser in sub_parsers(build_parser()):
        found.append((parser.prog, parser))
        found += [(sub.prog, sub) for sub in sub_parsers(parser)]
    return found


def documented(action: argparse.Action) -> bool:
    return action.help != argparse.SUPPRESS and not isinstance(action, argparse._HelpAction)


def test_every_command_and_sub_command_is_documented() -> None:
    cli = CLI.read_text("utf-8")
    names = [name for name, _ in commands()]
    assert "memgov decide" in names and "memgov team ratify" in names
    missing = [name for name in names if f"`{name}" not in cli]
    assert not missing, f"not in docs/cli.md: {missing}"


@pytest.mark.parametrize(("name", "parser"), commands(), ids=lambda v: str(v)[:30])
def test_every_option_and_choice_of_a_command_is_in_its_documentation(
    name: str, parser: argparse.ArgumentParser
) -> None:
    """Each option (``--dry-run``) and each choice (``--kind untrusted``, ``codex``) is
    in the lines of docs/cli.md that name the command, or in the paragraph on the
    options every command takes."""
    lines = CLI.read_text("utf-8").splitlines()
    own = "\n".join(line for line in lines if f"`{name}" in line or f"{name} " in line)
    common = "\n".join(lines[: next(i for i, x in enumerate(lines) if x.startswith("|"))])
    missing: list[str] = []
    for action in parser._actions:
        if not documented(action):
            continue
        for option in action.option_strings:
            if option.startswith("--") and option not in own and option not in common:
                missing.append(option)
        for choice in action.choices or ():
            if not isinstance(action, argparse._SubParsersAction) and str(choice) not in own:
                missing.append(f"{'/'.join(action.option_strings) or action.dest} {choice}")
    assert not missing, f"{name}: not in its lines of docs/cli.md: {missing}"


def test_the_options_every_command_takes_are_documented() -> None:
    cli = CLI.read_text("utf-8")
    for option in ("--store", "--as", "--json", "--version", "$MEMGOV_STORE", "$MEMGOV_ACTOR"):
        assert option in cli, option


# ------------------------------------------------------------------------- the desk
def desk_bindings() -> list[tuple[str, Binding]]:
    """Every binding of every screen and dialog of the desk, with its class's name."""
    modules = [
        importlib.import_module(m.name)
        for m in pkgutil.walk_packages(tui.screens.__path__, "tui.screens.")
    ] + [tui.app]
    found: list[tuple[str, Binding]] = []
    for module in modules:
        for cls in vars(module).values():
            if (
                inspect.isclass(cls)
                and issubclass(cls, DOMNode)
                and cls.__module__ == module.__name__
                and cls is not QueueTable  # Textual's table keys: no id, as Textual's had
            ):
                found += [
                    (cls.__name__, b)
                    for b in cls.__dict__.get("BINDINGS", [])
                    if isinstance(b, Binding)
                ]
    return found


def shown_keys(binding: Binding) -> list[str]:
    return [KEY_SHOWN.get(key, key) for key in binding.key.split(",")]


def test_every_key_of_every_screen_is_in_the_desk_documentation() -> None:
    """docs/desk.md has a row for each binding: its id, each of its keys and what it
    does (the binding's description)."""
    rows = [line for line in DESK.read_text("utf-8").splitlines() if line.startswith("|")]
    bindings = desk_bindings()
    assert len(bindings) > 50
    missing: list[str] = []
    for screen, binding in bindings:
        row = next((r for r in rows if f"| `{binding.id}` |" in r), None)
        if row is None:
            missing.append(f"{screen}: no row for {binding.id}")
            continue
        for key in shown_keys(binding):
            if f"`{key}`" not in row:
                missing.append(f"{screen}: {binding.id}'s key {key!r} not in its row")
        if binding.description.casefold() not in row.casefold():
            missing.append(f"{screen}: {binding.id}'s description {binding.description!r}")
    assert not missing, "\n".join(missing)


def test_every_binding_id_a_keymap_may_name_is_in_the_desk_documentation() -> None:
    desk = DESK.read_text("utf-8")
    assert not [i for i in sorted(binding_ids()) if f"`{i}`" not in desk]


# ------------------------------------------------------------------ names of files
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
CODE = re.compile(r"`([^`\n]+)`")
FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)
PATH = re.compile(r"[A-Za-z0-9_.\-/]+")
MODULE = re.compile(r"(?:core|tui)(?:\.[A-Za-z_]\w*)+")


def heading_anchors(path: Path) -> set[str]:
    """GitHub's anchors for a Markdown file's headings."""
    anchors: set[str] = set()
    for line in path.read_text("utf-8").splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            anchors.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return anchors


def placeholder(token: str) -> bool:
    return any(c in token for c in "<>*{}") or bool(re.search(r"YYYY|NNNN|\.\.\.|/xx/", token))


def code_paths(text: str) -> Iterator[str]:
    """The repository paths named in code: spans and fenced blocks, each word that starts
    with a top-level folder (``tests/e2e/test_serve.py``), and bare ``*.py`` file names."""
    chunks = CODE.findall(FENCE.sub("", text)) + FENCE.findall(text)
    for chunk in chunks:
        for word in chunk.split():
            if placeholder(word):
                continue
            match = PATH.match(word.strip("\"'(),;:"))
            if match is None:
                continue
            token = match.group(0).rstrip(".:,")
            in_repo = "/" in token and token.split("/")[0] in TOP
            if in_repo or ("/" not in token and token.endswith(".py")):
                yield token


def every_file_name() -> set[str]:
    return {
        p.name
        for top in TOP
        for p in (ROOT / top).rglob("*.py")
        if "__pycache__" not in p.parts and ".stores" not in p.parts
    }


@pytest.mark.parametrize("doc", documents(), ids=lambda p: p.name)
def test_every_link_of_a_document_names_a_file_that_exists(doc: Path) -> None:
    missing: list[str] = []
    prose = CODE.sub("", FENCE.sub("", doc.read_text("utf-8")))  # a link in code is an example
    for target in LINK.findall(prose):
        if re.match(r"[a-z]+:", target) or target.startswith("~"):
            continue
        path, _, anchor = target.partition("#")
        file = (doc.parent / path).resolve() if path else doc
        if not file.exists():
            missing.append(target)
        elif anchor and file.suffix == ".md" and anchor not in heading_anchors(file):
            missing.append(f"{target} (no such heading)")
    assert not missing, f"{doc.name}: {missing}"


@pytest.mark.parametrize("doc", documents(), ids=lambda p: p.name)
def test_every_code_path_of_a_document_exists(doc: Path) -> None:
    names = every_file_name()
    missing = sorted(
        {
            token
            for token in code_paths(doc.read_text("utf-8"))
            if not ((ROOT / token).exists() if "/" in token else token in names)
            and not made_by_the_project(token)
        }
    )
    assert not missing, f"{doc.name} names files that do not exist: {missing}"


def made_by_the_project(token: str) -> bool:
    """A path git ignores (``bench/.stores/``: the benches build it; a fresh clone has
    none) is named by the docs as where something is made, not as a file that is there."""
    ignored = [
        line.strip().lstrip("/")
        for line in (ROOT / ".gitignore").read_text("utf-8").splitlines()
        if line.strip() and not line.startswith("#") and "*" not in line
    ]
    return any(token == path or token.startswith(path.rstrip("/") + "/") for path in ignored)


def module_named(dotted: str) -> tuple[Path, list[str]] | None:
    """The source file of the longest module prefix of ``dotted``, and the names after it
    (``core.hooksPath``, a git setting, names no module of memgov's: not checked)."""
    parts = dotted.split(".")
    if not any(ROOT.joinpath(*parts[:2]).with_suffix(s).exists() for s in ("", ".py")):
        return ROOT, []
    for n in range(len(parts), 0, -1):
        base = ROOT.joinpath(*parts[:n])
        for file in (base.with_suffix(".py"), base / "__init__.py"):
            if file.is_file():
                return file, parts[n:]
        if base.is_dir() and n == len(parts):
            return base, []
    return None


@pytest.mark.parametrize("doc", documents(), ids=lambda p: p.name)
def test_every_module_a_document_names_exists(doc: Path) -> None:
    """``core.store.fsutil.read_entry``: the module exists and defines the name."""
    missing: list[str] = []
    for chunk in CODE.findall(doc.read_text("utf-8")):
        for dotted in MODULE.findall(chunk):
            found = module_named(dotted)
            if found is None:
                missing.append(dotted)
                continue
            file, rest = found
            if rest and (
                file.is_dir()
                or not re.search(
                    rf"^\s*(?:def|class|async def)\s+{rest[0]}\b|^\s*{rest[0]}\b\s*[:=]",
                    file.read_text("utf-8"),
                    re.M,
                )
            ):
                missing.append(dotted)
    assert not missing, f"{doc.name} names modules or names that do not exist: {missing}"
