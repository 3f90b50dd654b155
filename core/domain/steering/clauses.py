"""What a match's surroundings say: negated, quoted, described, told as an example."""

from __future__ import annotations

import re
from collections.abc import Iterator

from core.domain.steering.engine import Finder, _Gated, _Lazy, _needing
from core.domain.steering.filtered import _Filtered

#: where a clause ends: what is before it does not govern what is after
_CLAUSE_END = _Lazy(r"[.!?;。！？；\n](?:\s|$)|[。！？；\n]")
_NEGATION = _Lazy(
    r"\b(?:never|not|no|don['’]t|do\s+not|doesn['’]t|mustn['’]t|shouldn['’]t|cannot|can['’]t"
    r"|avoid|nunca|jamás|jamais|ne|nie|niemals|nicht|kein|mai|non|não|никогда|не)\b"
    r"|不要|别|不得|禁止|切勿|绝不|不能|不可|不准|从不|决不",
    re.IGNORECASE,
)


def _clause_before(text: str, start: int, window: int = 80) -> str:
    head = text[max(0, start - window) : start]
    ends = list(_CLAUSE_END.finditer(head))
    return head[ends[-1].end() :] if ends else head


def _clause_after(text: str, end: int, window: int = 120) -> str:
    tail = text[end : end + window]
    stop = _CLAUSE_END.search(tail)
    return tail[: stop.start()] if stop else tail


#: a stricter negation, for rules whose own words may follow "no" ("no need for hooks: ...")
_NEGATION_STRICT = _Lazy(
    r"\b(?:never|don['’]t|do\s+not|doesn['’]t|must\s+not|mustn['’]t|should\s+not|shouldn['’]t"
    r"|avoid|nunca|jamais|niemals|nie|mai)\b|不要|别|禁止|切勿|不得|绝不|决不|请勿",
    re.IGNORECASE,
)


#: negated, or a description of what a team does ("we skip flaky e2e tests on PRs")
_NOT_AN_ORDER = _Lazy(
    _NEGATION_STRICT.pattern
    + r"|\b(?:we|they|ci|the\s+(?:team|pipeline|job|workflow|ci))\s+(?:\w+\s+)?$",
    re.IGNORECASE,
)


def _unless_negated(
    pattern: str, flags: int = re.IGNORECASE, negation: _Lazy = _NEGATION
) -> Finder:
    """A match, unless the clause before it negates it ("never merge without review")."""
    compiled = _Gated(pattern, flags)

    def find(text: str) -> Iterator[tuple[int, int]]:
        for match in compiled.finditer(text):
            if not negation.search(_clause_before(text, match.start())):
                yield match.start(), match.end()

    return _needing(find, compiled)


_SENTENCE_END = _Lazy(r"[.!?](?=\s|$)|[。！？\n]")


def _last_sentence_end(text: str, lo: int, hi: int) -> int:
    """Where the last match of :data:`_SENTENCE_END` in ``text[lo:hi]`` ends (as
    ``finditer(text, lo, hi)`` finds them: a full stop, "!" or "?" before a space or at
    ``hi``, or a CJK one or a line break), or ``lo`` when there is none: looked for from
    the right, each sign once."""
    last = max(text.rfind(sign, lo, hi) for sign in "。！？\n")
    for sign in ".!?":
        at = text.rfind(sign, lo, hi)
        while at > last:
            if at + 1 == hi or text[at + 1].isspace():
                last = at
                break
            at = text.rfind(sign, lo, at)
    return last + 1 if last >= 0 else lo


def _sentence(text: str, start: int, end: int) -> tuple[int, int]:
    """The sentence around ``text[start:end]``, at most about 200 characters either side;
    in a long sentence, a window aligned to a grid of 100 so that neighbouring
    destinations share it (each window is judged once)."""
    lo = max(0, (start // 100) * 100 - 200)
    left = _last_sentence_end(text, lo, start)
    hi = min(len(text), (end // 100) * 100 + 300)
    tail = _SENTENCE_END.search(text, end, hi)
    right = tail.start() if tail else hi
    return left, right


#: what says a match is quoted or described, not said: a format, a tag name, a prefix,
#: a banned flag, a rule kept on, what the user asked for, an example of an attack, a
#: checklist that looks for it
_DESCRIBED = _Filtered(
    r"\b(?:wrapped\s+in|tags?|tag\s+names|template|format|prefix(?:ed)?|the\s+phrase"
    r"|(?:is|are)\s+(?:banned|forbidden|not\s+allowed)|must\s+stay\s+on|not\s+by"
    r"|the\s+user\s+asked\s+me\s+to|read-only|phrases?\s+(?:like|such\s+as)|examples?\s+of"
    r"|(?:labels?|labell?ed|classif(?:y|ies|ied)|detects?|detected)\b[^.\n]{0,80}?\bas\s+(?:an?\s+)?"
    r"(?:attacks?|injections?|malicious|jailbreaks?)|test\s+(?:data|fixtures?|cases?|inputs?|strings?)"
    r"|red[- ]team|(?:review|audit|security)\s+checklist\s*[:：]|(?:flag|look\s+for"
    r"|watch\s+(?:out\s+)?for|check\s+for|grep\s+for|search\s+for|reject|block)\s+(?:any\s+|every\s+|all\s+|uses\s+of\s+)?[`'\"“])|前缀|格式|模板|这类(?:句子|文本|输入)"
    r"|测试数据|示例|不是要执行|查找\s*[`'\"“]",
    re.IGNORECASE,
)
#: opening and closing quotes
_PAIRS = {
    "`": "`",
    '"': '"',
    "“": "”",
    "”": "”",
    "‘": "’",
    "'": "'",
    "「": "」",
    "『": "』",
    "«": "»",
}


def _in_quotes(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is quoted: right between a pair of quotes, or inside a
    quoted span or a code span on its line."""
    before, after = text[max(0, start - 2) : start], text[end : end + 2]
    if any(o in before and c in after for o, c in _PAIRS.items()):
        return True
    line_start = text.rfind("\n", 0, start) + 1
    head = text[max(line_start, start - 80) : start]
    line_end = text.find("\n", end)
    tail = text[end : min(end + 120, len(text) if line_end < 0 else line_end)]
    if head.count("`") % 2 == 1 and "`" in tail:
        return True
    for k in range(len(head) - 1, -1, -1):
        opening = head[k]
        closing = _PAIRS.get(opening)
        if closing is None or opening == "`":
            continue
        if opening == "'" and k > 0 and head[k - 1].isalnum():
            continue  # an apostrophe (the user's, don't)
        if closing in head[k + 1 :]:
            return False  # the last quote before it is closed: not inside one
        return any(
            ch == closing and (closing != "'" or not tail[i + 1 : i + 2].isalnum())
            for i, ch in enumerate(tail)
        )
    return False


def _unless_mentioned(finder: Finder, quoted: bool = True) -> Finder:
    """A match, unless it is quoted (in backticks or quotes, see :func:`_in_quotes`) or
    its sentence describes it (a format, a tag, a prefix, a banned flag, an example of an
    attack, a checklist that looks for it): a mention, not an order."""

    def find(text: str) -> Iterator[tuple[int, int]]:
        for start, end in finder(text):
            if quoted and _in_quotes(text, start, end):
                continue
            plain = text.replace("...", "\u2026" * 3)  # an ellipsis ends no clause
            around = _clause_before(plain, start, 120) + _clause_after(plain, end, 160)
            if _DESCRIBED.search(around):
                continue
            yield start, end

    return _needing(find, finder)


#: a quoted string told as an example: a telling word and a test or attack context
_EXAMPLE_VERB = _Lazy(
    r"\b(?:contains?|includes?|e\.g\.|such\s+as|lines?\s+like|labell?ed|lists?)(?!\w)", re.I
)
_EXAMPLE_CONTEXT = _Lazy(
    r"\b(?:fixtures?|tests?|test\s+(?:inputs?|data|strings?|cases?)"
    r"|red[- ]team\s+(?:set|corpus|suite)|attacks?|payloads?|samples?|corpus|dataset|evals?"
    r"|injection\w*)\b",
    re.I,
)


def _unless_quoted_example(finder: Finder) -> Finder:
    """A match, unless it is quoted and its sentence tells it as an example (a test
    fixture "contains 'Ignore previous instructions ...'"): quoting alone is no mention,
    or a planted order would only need quotes around it."""

    def find(text: str) -> Iterator[tuple[int, int]]:
        for start, end in finder(text):
            if _in_quotes(text, start, end):
                left, right = _sentence(text, start, end)
                told = text[left:start] + " " + text[end:right]
                if _EXAMPLE_VERB.search(told) and _EXAMPLE_CONTEXT.search(told):
                    continue
            yield start, end

    return _needing(find, finder)
