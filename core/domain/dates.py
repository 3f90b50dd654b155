"""Relative dates -> absolute dates (seed 6.4: "把相对日期换成绝对日期").

:func:`absolutise` rewrites expressions such as "yesterday", "next week",
"3 days ago", "昨天", "上周三", "下个月" into absolute dates computed from an
anchor (the day the statement was made). :func:`fix_formats` turns
``2027/3/14`` and ``2027.3.14`` into ISO ``2027-03-14``.

Conventions, chosen so that a reader can check every rewrite by hand:

- a day becomes ``YYYY-MM-DD``; a week becomes "the week of <its Monday>"
  (Chinese: "<Monday> 那一周"); a month ``YYYY-MM``; a year ``YYYY``
  (Chinese: ``YYYY年``);
- "next Friday" / "下周五" is the Friday of next week (weeks start on Monday),
  "last Friday" / "上周五" the Friday of last week, "this Friday" / "本周五"
  the Friday of the anchor's week; "周末" (weekend) is its Saturday;
- vague words ("recently", "soon", "最近", "不久") and bare weekday names
  ("on Friday", "周五") are left alone: they cannot be pinned to a date;
- nothing inside inline code or fenced code blocks is touched (a command
  such as ``git log --since=yesterday`` must stay as it is).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, timedelta

_WEEKDAYS_EN = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAYS_ZH = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6, "末": 5}
_ZH_DIGITS = {
    "一": 1,
    "两": 2,
    "二": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
    "十": 10,
}
_EN_NUMBERS = {
    "one": 1,
    "a": 1,
    "an": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
}

CODE_RE = re.compile(r"```.*?(?:```|\Z)|`[^`\n]*`", re.DOTALL)


def _monday(day: date) -> date:
    return day - timedelta(days=day.weekday())


def _month(day: date, delta: int) -> str:
    index = day.year * 12 + day.month - 1 + delta
    return f"{index // 12:04d}-{index % 12 + 1:02d}"


def _shift_months(day: date, delta: int) -> date:
    index = day.year * 12 + day.month - 1 + delta
    year, month = index // 12, index % 12 + 1
    for dom in (day.day, 30, 29, 28):
        try:
            return date(year, month, dom)
        except ValueError:
            continue
    raise AssertionError("unreachable")  # pragma: no cover


def _zh_number(text: str) -> int | None:
    if text.isdigit():
        return int(text)
    if text in _ZH_DIGITS:
        return _ZH_DIGITS[text]
    if len(text) == 2 and text[0] == "十" and text[1] in _ZH_DIGITS:  # 十五
        return 10 + _ZH_DIGITS[text[1]]
    if len(text) in (2, 3) and text[1:2] == "十" and text[0] in _ZH_DIGITS:  # 二十, 二十五
        return _ZH_DIGITS[text[0]] * 10 + (_ZH_DIGITS[text[2]] if len(text) == 3 else 0)
    return None


def _en_number(text: str) -> int | None:
    text = text.lower()
    return int(text) if text.isdigit() else _EN_NUMBERS.get(text)


_Rule = tuple[re.Pattern[str], Callable[[re.Match[str], date], str | None]]

_WEEK_OFFSET = {"last": -1, "this": 0, "next": 1, "上": -1, "本": 0, "这": 0, "下": 1}


def _en_week(m: re.Match[str], a: date) -> str:
    return f"the week of {_monday(a) + timedelta(weeks=_WEEK_OFFSET[m['w'].lower()])}"


def _en_weekday(m: re.Match[str], a: date) -> str:
    monday = _monday(a) + timedelta(weeks=_WEEK_OFFSET[m["w"].lower()])
    return (monday + timedelta(days=_WEEKDAYS_EN.index(m["d"].lower()))).isoformat()


def _en_ago(m: re.Match[str], a: date) -> str | None:
    n = _en_number(m["n"])
    if n is None:
        return None
    sign = -1 if m["dir"].lower() == "ago" else 1
    unit = m["u"].lower().rstrip("s")
    if unit == "day":
        return (a + timedelta(days=sign * n)).isoformat()
    if unit == "week":
        return (a + timedelta(weeks=sign * n)).isoformat()
    if unit == "month":
        return _shift_months(a, sign * n).isoformat()
    return str(a.year + sign * n)


def _en_in(m: re.Match[str], a: date) -> str | None:
    n = _en_number(m["n"])
    if n is None:
        return None
    unit = m["u"].lower().rstrip("s")
    if unit == "day":
        return "on " + (a + timedelta(days=n)).isoformat()
    if unit == "week":
        return "by " + (a + timedelta(weeks=n)).isoformat()
    return "by " + _shift_months(a, n).isoformat()


def _zh_week(m: re.Match[str], a: date) -> str:
    return f"{_monday(a) + timedelta(weeks=_WEEK_OFFSET[m['w']])} 那一周"


def _zh_weekday(m: re.Match[str], a: date) -> str:
    monday = _monday(a) + timedelta(weeks=_WEEK_OFFSET[m["w"]])
    return (monday + timedelta(days=_WEEKDAYS_ZH[m["d"]])).isoformat()


def _zh_ago(m: re.Match[str], a: date) -> str | None:
    n = _zh_number(m["n"])
    if n is None:
        return None
    sign = -1 if m["dir"].endswith("前") else 1  # 前, 以前
    unit = m["u"]
    if unit == "天":
        return (a + timedelta(days=sign * n)).isoformat()
    if unit in ("周", "个星期", "星期", "个礼拜", "礼拜"):
        return (a + timedelta(weeks=sign * n)).isoformat()
    if unit in ("个月", "月"):
        return _shift_months(a, sign * n).isoformat()
    return f"{a.year + sign * n}年"


_EN = r"(?<![\w-])(?:{})(?![\w-])"
_ZH_WEEK = r"(?:周|星期|个星期|礼拜|个礼拜)"

RULES: tuple[_Rule, ...] = (
    # English, longest phrases first
    (
        re.compile(_EN.format(r"the day before yesterday"), re.I),
        lambda m, a: (a - timedelta(days=2)).isoformat(),
    ),
    (
        re.compile(_EN.format(r"the day after tomorrow"), re.I),
        lambda m, a: (a + timedelta(days=2)).isoformat(),
    ),
    (
        re.compile(
            _EN.format(
                r"(?P<w>last|this|next) (?P<d>monday|tuesday|wednesday|thursday|"
                r"friday|saturday|sunday)"
            ),
            re.I,
        ),
        _en_weekday,
    ),
    (re.compile(_EN.format(r"(?P<w>last|this|next) week"), re.I), _en_week),
    (
        re.compile(_EN.format(r"(?P<w>last|this|next) month"), re.I),
        lambda m, a: _month(a, _WEEK_OFFSET[m["w"].lower()]),
    ),
    (
        re.compile(_EN.format(r"(?P<w>last|this|next) year"), re.I),
        lambda m, a: str(a.year + _WEEK_OFFSET[m["w"].lower()]),
    ),
    (
        re.compile(
            _EN.format(
                r"(?P<n>\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten) "
                r"(?P<u>days?|weeks?|months?|years?) (?P<dir>ago|later|from now)"
            ),
            re.I,
        ),
        _en_ago,
    ),
    (
        re.compile(
            _EN.format(
                r"in (?P<n>\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten)"
                r" (?P<u>days?|weeks?|months?)"
            ),
            re.I,
        ),
        _en_in,
    ),
    (re.compile(_EN.format(r"yesterday"), re.I), lambda m, a: (a - timedelta(days=1)).isoformat()),
    (re.compile(_EN.format(r"tomorrow"), re.I), lambda m, a: (a + timedelta(days=1)).isoformat()),
    (
        re.compile(_EN.format(r"today|tonight|this morning|this afternoon|this evening"), re.I),
        lambda m, a: a.isoformat(),
    ),
    # Chinese
    (re.compile(r"大前天"), lambda m, a: (a - timedelta(days=3)).isoformat()),
    (re.compile(r"大后天"), lambda m, a: (a + timedelta(days=3)).isoformat()),
    (re.compile(r"前天"), lambda m, a: (a - timedelta(days=2)).isoformat()),
    (re.compile(r"(?<!先天)后天(?!性)"), lambda m, a: (a + timedelta(days=2)).isoformat()),
    (re.compile(r"昨天|昨日"), lambda m, a: (a - timedelta(days=1)).isoformat()),
    (re.compile(r"明天|明日"), lambda m, a: (a + timedelta(days=1)).isoformat()),
    (re.compile(r"今天|今日|今晚|今早"), lambda m, a: a.isoformat()),
    (re.compile(rf"(?P<w>[上下本这]){_ZH_WEEK}(?P<d>[一二三四五六日天末])"), _zh_weekday),
    (re.compile(rf"(?P<w>上|下|本|这)(?:个)?{_ZH_WEEK}(?![期年刊])"), _zh_week),
    (re.compile(r"上个?月"), lambda m, a: _month(a, -1)),
    (re.compile(r"下个?月"), lambda m, a: _month(a, 1)),
    (re.compile(r"(?:本|这个)月"), lambda m, a: _month(a, 0)),
    (re.compile(r"前年"), lambda m, a: f"{a.year - 2}年"),
    (re.compile(r"去年"), lambda m, a: f"{a.year - 1}年"),
    (re.compile(r"今年"), lambda m, a: f"{a.year}年"),
    (re.compile(r"明年"), lambda m, a: f"{a.year + 1}年"),
    (
        re.compile(
            r"(?P<n>\d+|[一两二三四五六七八九十]{1,3})\s*"
            r"(?P<u>天|周|个星期|星期|个礼拜|礼拜|个月|年)(?P<dir>前|后|以前|以后)"
        ),
        _zh_ago,
    ),
)


DATE_FORMAT_RE = re.compile(r"(?<![\d/.-])(\d{4})([/.])(\d{1,2})\2(\d{1,2})(?![\d/]|\.\d)")


def _outside_code(text: str) -> list[tuple[int, int]]:
    """Spans of ``text`` that are not code (inline or fenced)."""
    spans, start = [], 0
    for m in CODE_RE.finditer(text):
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, len(text)))
    return spans


def _rewrite(
    text: str, rules: tuple[_Rule, ...], anchor: date
) -> tuple[str, list[tuple[str, str]]]:
    out: list[str] = []
    found: list[tuple[str, str]] = []
    cursor = 0
    for low, high in _outside_code(text):
        out.append(text[cursor:low])
        part = text[low:high]
        for pattern, make in rules:

            def sub(
                m: re.Match[str], make: Callable[[re.Match[str], date], str | None] = make
            ) -> str:
                new = make(m, anchor)
                if new is None:
                    return m.group(0)
                found.append((m.group(0), new))
                return new

            part = pattern.sub(sub, part)
        out.append(part)
        cursor = high
    return "".join(out), found


#: a cheap first look (most texts hold no relative date): every rule above needs one
#: of these words, or, for Chinese, a match of ZH_TRIGGER
EN_KEYS = (
    "yesterday",
    "today",
    "tonight",
    "tomorrow",
    "ago",
    "later",
    "from now",
    "last ",
    "this ",
    "next ",
    "in ",
)
ZH_TRIGGER = re.compile(
    r"[昨今明去]|前[天年]|后天|[上下本这]个?(?:周|星期|礼拜|月)|(?:天|周|星期|礼拜|月|年)以?[前后]"
)
DATE_HINT = re.compile(r"\d{4}[/.]\d")


def _triggered(text: str) -> bool:
    low = text.casefold()
    return any(k in low for k in EN_KEYS) or (
        not text.isascii() and ZH_TRIGGER.search(text) is not None
    )


def absolutise(text: str, anchor: date) -> tuple[str, list[tuple[str, str]]]:
    """``text`` with relative dates made absolute; and the (was, now) pairs."""
    if not _triggered(text):
        return text, []
    return _rewrite(text, RULES, anchor)


def _iso(m: re.Match[str], _anchor: date) -> str | None:
    try:
        return date(int(m[1]), int(m[3]), int(m[4])).isoformat()
    except ValueError:
        return None


def fix_formats(text: str) -> tuple[str, list[tuple[str, str]]]:
    """``2027/3/14`` and ``2027.3.14`` -> ``2027-03-14`` (valid dates only)."""
    if not DATE_HINT.search(text):
        return text, []
    return _rewrite(text, ((DATE_FORMAT_RE, _iso),), date.min)


def has_relative(text: str) -> bool:
    return bool(absolutise(text, date(2000, 1, 3))[1])
