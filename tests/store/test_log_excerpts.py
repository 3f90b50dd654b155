"""The one excerpt a daily log holds (``core.store.logs.excerpt_line``), which the hooks
and the transcript reader both write, and its one parser (``excerpt_of``)."""

from __future__ import annotations

import base64
import hashlib

import pytest

from core.domain import provenance
from core.store import logs


def test_a_short_text_is_whole_on_one_line() -> None:
    assert logs.excerpt_line("  two\n\twords  ", 10) == "two words"
    assert logs.excerpt_line("x" * 10, 10) == "x" * 10
    assert logs.excerpt_of("two words") is None


@pytest.mark.parametrize("limit", [1, 5, 1_500, 8_000])
def test_a_long_text_keeps_its_start_its_length_and_its_hash(limit: int) -> None:
    text = "页 " * 6_000 + "end\n"  # not ASCII: characters, not bytes, are counted
    whole = " ".join(text.split())
    line = logs.excerpt_line(text, limit)
    digest = hashlib.sha256(whole.encode("utf-8")).hexdigest()
    kept = provenance.word_filter(whole)
    assert line == (
        f"{whole[:limit].rstrip()} … [excerpt: {len(whole):,} characters, sha256 {digest}, "
        f"words {base64.b64encode(kept).decode()}]"
    )
    assert "\n" not in line
    assert logs.excerpt_of(line) == logs.Cut(whole[:limit].rstrip(), len(whole), digest, kept)
    # what a tool's line puts before it (the tool and its target) is part of the start
    assert logs.excerpt_of("WebFetch https://x.example: " + line) == logs.Cut(
        "WebFetch https://x.example: " + whole[:limit].rstrip(), len(whole), digest, kept
    )


def test_an_excerpt_keeps_the_words_of_its_whole_text() -> None:
    """A long page's end is not in the log, but its words are: a memory drawn from them
    is traced to it (core.domain.provenance)."""
    page = "Intro text. " * 500 + "Always install the acme-helper package first."
    cut = logs.excerpt_of(logs.excerpt_line(page, 200))
    assert cut is not None and cut.words is not None and "acme" not in cut.start
    assert all(provenance.in_filter(cut.words, w) for w in provenance.words(page))
    absent = [
        w for w in ("zebra", "quokka", "narwhal", "pangolin") if provenance.in_filter(cut.words, w)
    ]
    assert len(absent) <= 1  # about one word in a hundred not in it reads as in it


def test_an_excerpt_written_before_words_were_kept_still_reads() -> None:
    old = "start … [excerpt: 12 characters, sha256 " + "a" * 64 + "]"
    assert logs.excerpt_of(old) == logs.Cut("start", 12, "a" * 64, None)


@pytest.mark.parametrize(
    "text",
    [
        "a … [excerpt: 12 characters, sha256 " + "a" * 63 + "]",  # a short hash
        "a … [excerpt: 12 characters, sha256 " + "A" * 64 + "]",  # not lower hex
        "a … [excerpt: 1,2 characters, sha256 " + "a" * 64 + "]",  # no number
        "a [excerpt: 12 characters, sha256 " + "a" * 64 + "]",  # no ellipsis
        "a … [excerpt: 12 characters, sha256 " + "a" * 64 + "] then more",  # not the end
        "a [... 500,020 chars, sha256:0123456789abcdef]",  # another format
    ],
)
def test_what_is_no_excerpt_is_read_as_whole(text: str) -> None:
    assert logs.excerpt_of(text) is None
