"""The keyword prefilter: every keyword a text holds is found in one pass, however the
keywords overlap, and a word-start keyword only where it begins a word."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.domain.keywords import Keywords

WORDS = ("he", "she", "hers", "his", "ignore", "gnore", "igno", "忽略", "ab", "b")


def test_overlapping_keywords_are_all_found() -> None:
    keywords = Keywords((word, 1 << k, False) for k, word in enumerate(WORDS))
    found = keywords.mask("ushers")
    assert found == 1 << 0 | 1 << 1 | 1 << 2  # he, she, hers
    assert keywords.mask("ignore it") == 1 << 4 | 1 << 5 | 1 << 6
    assert keywords.mask("请忽略它") == 1 << 7
    assert keywords.mask("nothing here") == 1 << 0  # "he" in "here"
    assert keywords.mask("") == 0


def test_a_word_start_keyword_counts_only_where_a_word_begins() -> None:
    keywords = Keywords([("igno", 1, True), ("gnore", 2, False)])
    assert keywords.mask("ignore") == 3
    assert keywords.mask("please ignore") == 3
    assert keywords.mask("(ignore)") == 3
    assert keywords.mask("xignore") == 2
    assert keywords.mask("_ignore") == 2
    assert keywords.mask("9ignore") == 2
    # a character outside ASCII is taken as a separator (a prefilter lets through)
    assert keywords.mask("éignore") == 3


def test_one_text_as_two_keywords_merges_their_bits() -> None:
    keywords = Keywords([("key", 1, False), ("key", 2, False), ("key", 4, True)])
    assert keywords.mask("a key") == 7
    assert keywords.mask("akey") == 3  # the word-start one alone is held back
    assert len(keywords) == 2


def test_find_gives_each_occurrence() -> None:
    keywords = Keywords([("he", 1, False), ("she", 2, False), ("ab", 4, True)])
    assert sorted(keywords.find("she said ab cab")) == [
        (0, 3, "she"),
        (1, 3, "he"),
        (9, 11, "ab"),
    ]


def test_no_keyword_finds_nothing_and_an_empty_one_is_refused() -> None:
    assert Keywords(()).mask("anything") == 0
    assert list(Keywords(()).find("anything")) == []
    with pytest.raises(ValueError, match="never empty"):
        Keywords([("", 1, False)])


def _plain(words: list[tuple[str, bool]], text: str) -> int:
    found = 0
    for k, (word, start) in enumerate(words):
        at = text.find(word)
        while at >= 0:
            before = text[at - 1] if at else " "
            if not start or not (before.isascii() and (before.isalnum() or before == "_")):
                found |= 1 << k
                break
            at = text.find(word, at + 1)
    return found


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.text("abc _é", min_size=1, max_size=4), st.booleans()), max_size=12),
    st.text("abc _é", max_size=40),
)
def test_the_mask_is_what_a_search_for_each_keyword_gives(
    words: list[tuple[str, bool]], text: str
) -> None:
    keywords = Keywords((word, 1 << k, start) for k, (word, start) in enumerate(words))
    assert keywords.mask(text) == _plain(words, text)


def test_a_lone_surrogate_in_the_text_is_searched_past_and_refused_in_a_keyword() -> None:
    keywords = Keywords([("ab", 1, False), ("cd", 2, True), ("\ufffd", 4, False)])
    assert keywords.mask("ab\ud800 cd") == 3
    assert keywords.mask("\udfffcd") == 2  # a character outside ASCII: a separator
    assert keywords.mask("x\ud800y") == 0  # searched as U+FFFD, but not there
    assert list(keywords.find("\ud800ab\udfff\ufffd")) == [(1, 3, "ab"), (4, 5, "\ufffd")]
    with pytest.raises(ValueError, match="UTF-8"):
        Keywords([("a\udc00", 1, False)])


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.text("ab _é\ufffd", min_size=1, max_size=3), st.booleans()), max_size=8),
    st.text("ab _é\ufffd\ud800", max_size=30),
)
def test_the_mask_with_lone_surrogates_is_what_a_search_gives(
    words: list[tuple[str, bool]], text: str
) -> None:
    keywords = Keywords((word, 1 << k, start) for k, (word, start) in enumerate(words))
    assert keywords.mask(text) == _plain(words, text)
