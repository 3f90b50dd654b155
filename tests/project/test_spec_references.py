"""Every citation of the specification resolves: each "SPEC section N" (and "SPEC N",
"SPEC sections 5 to 8") and each "seed N.M" that the code and the documents name has
its heading in ``docs/spec.md``, since a reader of the repository has neither the
specification nor the Chinese text it was written from."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "docs" / "spec.md"
#: where citations are written: the code, the documents, the demo's scenarios
SEARCHED = ("core", "tui", "docs")
SUFFIXES = {".py", ".md", ".yaml", ".tcss"}

NUMBER = r"\d{1,2}(?:\.\d{1,2})?"
#: a citation and the numbers it lists ("SPEC sections 2 and 3", "seed 6.4 and 6.5")
CITATION = re.compile(
    rf"\b(SPEC|seed)(?: sections?)? ({NUMBER}(?:(?:, | and | to ){NUMBER}\b)*)(?![\w.]*\w)"
)
HEADING = re.compile(rf"^#+ (Section|Seed) ({NUMBER}):", re.M)


def cited(text: str) -> set[tuple[str, str]]:
    """(``section`` or ``seed``, number) for each citation in ``text``; a range
    ("sections 5 to 8") names every section in it."""
    found: set[tuple[str, str]] = set()
    for source, listed in CITATION.findall(text):
        kind = "section" if source == "SPEC" else "seed"
        for first, last in re.findall(rf"({NUMBER})(?: to ({NUMBER}))?", listed):
            if last:
                found |= {(kind, str(n)) for n in range(int(first), int(last) + 1)}
            else:
                found.add((kind, first))
    return found


def headings() -> set[tuple[str, str]]:
    return {(kind.lower(), number) for kind, number in HEADING.findall(SPEC.read_text("utf-8"))}


def citing_files() -> list[Path]:
    return sorted(
        path
        for top in SEARCHED
        for path in (ROOT / top).rglob("*")
        if path.suffix in SUFFIXES and path.is_file() and "__pycache__" not in path.parts
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The review queue (SPEC section 10): what", {("section", "10")}),
        ("(SPEC sections 2 and 3). Each", {("section", "2"), ("section", "3")}),
        ("(SPEC sections 5 to 8).", {("section", str(n)) for n in (5, 6, 7, 8)}),
        ("(SPEC 2, seed 5.1: lines", {("section", "2"), ("seed", "5.1")}),
        ("(SPEC 9, seed 6.4 and 6.5)", {("section", "9"), ("seed", "6.4"), ("seed", "6.5")}),
        ("(seed 8, issue 18)", {("seed", "8")}),
        ("(SPEC section 10, steps 2 and 3 of", {("section", "10")}),
        ("the seed's measures; a seed=7 and random seed 20261112", set()),
    ],
)
def test_a_citation_names_its_sections(text: str, expected: set[tuple[str, str]]) -> None:
    assert cited(text) == expected


def test_every_cited_section_has_its_heading_in_the_spec_page() -> None:
    have = headings()
    missing = sorted(
        f"{path.relative_to(ROOT)}: {kind} {number}"
        for path in citing_files()
        for kind, number in cited(path.read_text("utf-8"))
        if (kind, number) not in have
    )
    assert not missing, "no heading in docs/spec.md for:\n" + "\n".join(missing)


def test_the_spec_page_says_what_the_seed_is() -> None:
    text = SPEC.read_text("utf-8")
    assert "**The seed** is the original specification" in text
    assert ("section", "10") in headings() and ("seed", "8.1") in headings()
    others = [p for p in (ROOT / "docs").glob("*.md") if p != SPEC]
    assert any("](spec.md)" in p.read_text("utf-8") for p in others), "no document links it"
