"""A project's key from its repository, the same on every machine.

A Claude Code folder belongs to a project: ``<repository>/.claude/memory`` is the
repository's, ``~/.claude/projects/<encoded path>/memory`` the one at that path
(Claude Code writes the path with '-' for '/', '.' and every other character that is
not a letter or a digit). The project's name in subjects (``project:<name>``) is

1. the repository's: the name of its git remote (``origin``, else the first one:
   ``git@github.com:alice/shop.git`` -> ``shop``), else its top folder's name;
2. for an encoded path no repository is found at on this machine (another
   machine's folder, a synced ``~/.claude``): the path without its home folder
   (``Users/<name>``, ``home/<name>``, ``root``, a drive letter) and the usual
   folders of checkouts (``src``, ``code``, ``projects``, ``repos``, ...):
   ``-Users-ssam-src-claude-config`` -> ``claude-config``, which is what the
   checkout's own folder is usually called, and its remote.

Never the home folder's name or a machine's user name. A repository is looked up
from the decoded path upwards, never at or above the home folder (a home kept in
git is not a project). Git's files are read, git is not run.
"""

from __future__ import annotations

import re
from pathlib import Path

#: folders that hold checkouts, not projects: left out of an encoded path's name
CONTAINERS = frozenset(
    {
        "src",
        "source",
        "sources",
        "code",
        "coding",
        "projects",
        "project",
        "repos",
        "repo",
        "repositories",
        "git",
        "github",
        "gitlab",
        "work",
        "workspace",
        "workspaces",
        "dev",
        "development",
        "developer",
        "documents",
        "desktop",
        "sites",
        "www",
    }
)
_SECTION = re.compile(r'^\s*\[\s*remote\s+"(?P<name>[^"]*)"\s*\]\s*$')
_OTHER_SECTION = re.compile(r"^\s*\[")
_URL = re.compile(r"^\s*url\s*=\s*(?P<url>\S.*?)\s*$", re.IGNORECASE)


def remote_name(url: str) -> str | None:
    """``git@github.com:alice/shop.git``, ``https://host/alice/shop/`` -> ``shop``."""
    tail = re.split(r"[/:\\]", url.strip().rstrip("/"))[-1]
    tail = tail.removesuffix(".git")
    return tail or None


def git_config(top: Path) -> Path | None:
    """The config file of the repository whose top folder is ``top``."""
    dot = top / ".git"
    try:
        if dot.is_dir():
            return dot / "config"
        if dot.is_file():  # a worktree or a submodule: "gitdir: <path>"
            text = dot.read_text(encoding="utf-8", errors="replace")
            match = re.match(r"\s*gitdir:\s*(?P<dir>.+?)\s*$", text)
            if match is None:
                return None
            gitdir = (top / match["dir"]).resolve()
            common = gitdir / "commondir"
            if common.is_file():
                gitdir = (gitdir / common.read_text(encoding="utf-8").strip()).resolve()
            return gitdir / "config"
    except OSError:
        return None
    return None


def repository_name(top: Path) -> str | None:
    """The name of the repository at ``top``: its remote's (origin first), else its top
    folder's; None when ``top`` is not a repository's top folder."""
    config = git_config(top)
    if config is None:
        return None
    urls: dict[str, str] = {}
    section: str | None = None
    try:
        lines = config.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        lines = []
    for line in lines:
        if match := _SECTION.match(line):
            section = match["name"]
        elif _OTHER_SECTION.match(line):
            section = None
        elif section is not None and (url := _URL.match(line)):
            urls.setdefault(section, url["url"])
    for name in ("origin", *urls):
        found = remote_name(urls[name]) if name in urls else None
        if found:
            return found
    return top.name or None


def repository_above(path: Path) -> str | None:
    """The name of the repository ``path`` is in (looked up from ``path`` upwards, never
    at or above the home folder), None when it is in none."""
    try:
        home = Path.home().resolve()
    except (OSError, RuntimeError):
        home = None
    for here in (path, *path.parents):
        if home is not None and (here == home or here in home.parents):
            return None
        if (here / ".git").exists():
            return repository_name(here)
    return None


def is_encoded(name: str) -> bool:
    """Whether a folder's name is a path as Claude Code encodes it (``-home-...``, or
    ``C--Users-...`` on Windows)."""
    return name.startswith("-") or bool(re.match(r"^[A-Za-z]--", name))


def encoded_name(encoded: str) -> str:
    """The project's name from Claude Code's encoded path alone (no machine asked):
    the path less its home folder and the checkout folders before the project."""
    parts = encoded.strip("-").split("-")
    if len(parts) > 1 and re.fullmatch(r"[A-Za-z]", parts[0]) and parts[1] == "":
        parts = parts[2:]  # C--Users-...: a Windows drive
    lowered = [p.casefold() for p in parts]
    if len(parts) > 2 and lowered[0] in ("users", "home"):
        parts = parts[2:]
    elif len(parts) > 1 and lowered[0] == "root":
        parts = parts[1:]
    while len(parts) > 1 and (parts[0] == "" or parts[0].casefold() in CONTAINERS):
        parts = parts[1:]
    name = "-".join(parts).strip("-")
    return name or encoded.strip("-") or "project"
