"""The write gate (SPEC section 5, seed 4): score = min(s1, s2, s3, s4) >= theta.

A minimum, not a weighted sum: the four criteria do not compensate each other.
s1 (stable) and s2 (reusable) are probabilities from the caller, usually a
model. One the caller does not give is settled by the gate (:func:`settle`), never
refused for being missing: from the user's own words, at its memory type's default
(:data:`SETTLED`), except that a memory expiring within a week is not stable; from
anything else (the agent's, a tool's or a page's words, a source that does not
resolve) at 0, since only the caller can judge those. A settled criterion says so
(``settled``: the rule). s3 is 1 when the source pointer resolves
to its evidence. s4 is 0 on any secret, and on an internal address (a private IP, an
``.internal``/``.corp``/``.lan``/``.intranet`` host) where the words are shared (a
team store): in a private store, which never leaves the machine, an internal address
is data of the user's project (:func:`evaluate`'s ``shared``). Before scoring,
content that can be derived from the current state is excluded outright (seed
3.2): memory is not a second copy of the code, the git history or a log.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field

from core.domain import secrets
from core.domain.data import AsData, shown_as

CRITERIA = {
    "s1": "stable: still true next week",
    "s2": "reusable: future tasks will use it",
    "s3": "has a source: the pointer resolves to its evidence",
    "s4": "authorised: no secrets or sensitive data",
}


#: what a score the caller does not give is settled at, by the memory's type, when the
#: source is the user's own message: (s1 stable, s2 reusable). A preference the user
#: states holds until they change it and steers every later task; a fact holds until
#: the state changes (it is checked against it at recall); an episode stays what
#: happened but fewer tasks need it; a lesson is advisory, and just passes theta 0.6.
SETTLED: dict[str, tuple[float, float]] = {
    "preference": (0.8, 0.8),
    "semantic": (0.7, 0.7),
    "episodic": (0.8, 0.6),
    "reflection": (0.6, 0.6),
}
#: the role of a logged message whose words a missing score is settled from
SETTLES_FROM = "user"
#: a memory that expires within this many days is not stable (s1: still true next week)
STABLE_DAYS = 7
#: the rules that settle a missing score, by id (a criterion's ``settled``)
SETTLE_RULES = {
    "type-default": "the user's own words: the default of the memory's type",
    "expires-within-a-week": "it expires within a week: not still true next week",
    "not-the-users-words": "the source is not the user's own message: only the caller can judge",
}


@dataclass(frozen=True)
class Criterion(AsData):
    name: str = field(metadata=shown_as(key="criterion"))
    score: float | None
    passed: bool
    why: str
    #: the rule that settled a score the caller did not give (:data:`SETTLE_RULES`);
    #: None: the caller gave it, or it is not the caller's (s3, s4)
    settled: str | None = None

    DATA_PROPERTIES = ("meaning",)

    @property
    def meaning(self) -> str:
        return CRITERIA[self.name]


@dataclass(frozen=True)
class GateResult(AsData):
    DATA_PROPERTIES = ("passed", ("score", "rounded_score"))

    theta: float
    criteria: tuple[Criterion, ...] = ()
    excluded: tuple[str, ...] = ()  # reasons the content is never memory
    secret_rules: tuple[str, ...] = field(default=())
    #: the likely credentials a person said are none (``keep_likely``): their rules
    kept_likely: tuple[str, ...] = ()

    @property
    def score(self) -> float:
        scores = [c.score for c in self.criteria]
        if not scores or any(s is None for s in scores):
            return 0.0
        return min(s for s in scores if s is not None)

    @property
    def passed(self) -> bool:
        return (
            not self.excluded and all(c.passed for c in self.criteria) and self.score >= self.theta
        )

    def reasons(self) -> list[str]:
        out = [f"excluded: {why}" for why in self.excluded]
        out += [
            f"{c.name} ({CRITERIA[c.name].split(':')[0]}): {c.why}"
            for c in self.criteria
            if not c.passed
        ]
        return out

    @property
    def rounded_score(self) -> float:
        return round(self.score, 4)


def _plain(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def quoted_in(evidence: str, line: str) -> bool:
    """Whether ``evidence`` is in ``line``, up to case, width and spacing (a quote
    copied from the message, not a paraphrase of it)."""
    quote = _plain(evidence)
    return bool(quote) and quote in _plain(line)


# -- exclusions: derivable content (kept conservative; listed in the README) ----------
_PATH = re.compile(r"^\s*(?:~|\.{1,2})?/?(?:[\w.@+-]+/)+[\w.@+-]+/?\s*$|^\s*[A-Za-z]:\\[^\n]+$")
_COMMIT = re.compile(
    r"^\s*(?:commit\s+)?(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\s*$", re.IGNORECASE
)
_TRACE_MARKERS = (
    re.compile(r"Traceback \(most recent call last\):"),
    re.compile(r"^\s+File \"[^\"]+\", line \d+", re.MULTILINE),
    re.compile(r"^\s+at [\w$.<>]+ ?\(?[^\n]*:\d+(?::\d+)?\)?$", re.MULTILINE),
    re.compile(r"^goroutine \d+ \[[\w ]+\]:$", re.MULTILINE),
)
# a shell, Python or PowerShell prompt; not "#", which starts a Markdown heading
_PROMPT = re.compile(r"^\s*(?:\$|>>>|PS [^>]*>)\s+\S")
# the state of the work at hand, not a fact about the project: "WIP ...", "TODO: ...",
# "currently editing ...". A sentence that only starts with "Currently" or "TODO"
# ("TODO comments need an issue number") states a convention and may be memory.
_DOING = r"(?:editing|working on|fixing|debugging|refactoring|implementing|migrating|writing)"
_IN_PROGRESS = re.compile(
    r"^\s*(?:currently " + _DOING + r"|right now\b|wip\b|todo\s*[:：-]|in progress\b"
    r"|now " + _DOING + r"|i am (?:now )?" + _DOING + r"|正在|进行中|当前任务|已经在改)",
    re.IGNORECASE,
)


def exclusions(content: str) -> list[str]:
    """Why this content must never be memory (empty list: it may be)."""
    text = content.strip()
    reasons = []
    if _PATH.match(text):
        reasons.append("a bare file path: read the current tree instead")
    if _COMMIT.match(text):
        reasons.append("a commit hash: git is the authority on history")
    trace_hits = sum(1 for marker in _TRACE_MARKERS if marker.search(text))
    at_lines = len(_TRACE_MARKERS[2].findall(text))
    if _TRACE_MARKERS[0].search(text) or at_lines >= 2 or trace_hits >= 2:
        reasons.append("a stack trace: the fix lives in the code, the story in the commit")
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) >= 2 and _PROMPT.match(lines[0]):
        reasons.append("a command and its output: rerun the command when it is needed")
    if _IN_PROGRESS.match(text):
        reasons.append("in-progress task state: it belongs to the task, not to memory")
    return reasons


# -- sensitive patterns beyond credentials (internal addresses) -----------------------
# An internal address is no credential: it names a machine of the user's network, which
# only matters where the words leave the machine (a team store, what is pushed or
# proposed). A private store keeps it; whatever shares words scans for it
# (:func:`unshareable`).
# not inside a longer dotted number (1.10.0.0.1), but a sentence may end after it
_PRIVATE_IP = re.compile(
    r"(?<![\d.])(?:10(?:\.\d{1,3}){3}|192\.168(?:\.\d{1,3}){2}|172\.(?:1[6-9]|2\d|3[01])"
    r"(?:\.\d{1,3}){2})(?!\d|\.\d)"
)
_INTERNAL_HOST = re.compile(
    r"\b[\w-]+(?:\.[\w-]+)*\.(?:internal|corp|intranet|lan)\b", re.IGNORECASE
)
#: each internal-address pattern by its rule id, with what it is
INTERNAL_PATTERNS = {
    "internal-ip-address": (_PRIVATE_IP, "a private IP address (RFC 1918)"),
    "internal-hostname": (_INTERNAL_HOST, "an .internal, .corp, .intranet or .lan host name"),
}


def redact_sensitive(text: str, marks: dict[str, str]) -> str:
    """``text`` with each internal address replaced by its pattern's mark."""
    text = _PRIVATE_IP.sub(marks.get("internal-ip-address", "[internal]"), text)
    return _INTERNAL_HOST.sub(marks.get("internal-hostname", "[internal]"), text)


def sensitive_patterns(text: str) -> list[str]:
    """The rule ids of the internal addresses in ``text``."""
    return [rule for rule, (pattern, _what) in INTERNAL_PATTERNS.items() if pattern.search(text)]


def internal_addresses(text: str) -> list[secrets.Finding]:
    """Where ``text`` names an internal address, by rule id, line and column (never the
    address), as the secret scanner says where a credential is."""
    found = []
    for rule, (pattern, what) in INTERNAL_PATTERNS.items():
        for match in pattern.finditer(text):
            start = match.start()
            line = text.count("\n", 0, start) + 1
            column = start - (text.rfind("\n", 0, start) + 1) + 1
            found.append(secrets.Finding(rule, f"an internal address: {what}", line, column))
    return sorted(found, key=lambda f: (f.line, f.column, f.rule_id))


def unshareable(text: str) -> list[secrets.Finding]:
    """What must not leave the machine in ``text``: each credential (never memory at all)
    and each internal address (memory of a private store only). What a promotion, a
    proposal or anything else bound for a team store scans."""
    return [*secrets.scan(text), *internal_addresses(text)]


def is_internal(rule: str) -> bool:
    """Whether a scan's rule id is an internal address (not a credential)."""
    return rule in INTERNAL_PATTERNS


@dataclass(frozen=True)
class Settled:
    """A score the caller did not give, settled by a rule of :data:`SETTLE_RULES`."""

    score: float
    rule: str
    why: str


def settle(
    name: str, *, memory_type: str, role: str | None, expires_in_days: float | None = None
) -> Settled:
    """Settle ``name`` (s1 or s2), which the caller did not give, from what the gate
    sees: the memory's type, the role of its source message (None: no logged message,
    e.g. a file or a pointer that does not resolve), and the days until it expires."""
    if role != SETTLES_FROM:
        said = (
            f"the source is a message of role {role}" if role else "the source is no logged message"
        )
        return Settled(
            0.0,
            "not-the-users-words",
            f"not given, and {said}, not the user's own words: send {name} (how "
            f"{CRITERIA[name].split(':')[0]} it is, a probability 0..1) or point the source "
            "at the user's message",
        )
    if name == "s1" and expires_in_days is not None and expires_in_days < STABLE_DAYS:
        return Settled(
            0.0,
            "expires-within-a-week",
            f"not given, and it expires within {STABLE_DAYS} days: not still true next week",
        )
    score = SETTLED.get(memory_type, (0.0, 0.0))[0 if name == "s1" else 1]
    return Settled(
        score,
        "type-default",
        f"not given: settled at {score:.2f}, the default for a {memory_type} memory from "
        "the user's own words",
    )


def _s4_why(rules: tuple[str, ...], internal: tuple[str, ...]) -> str:
    """Why s4 fails: a credential is never memory; an internal address is not shared."""
    if rules and internal:
        return "secrets are never memory, and internal addresses never leave the machine"
    if rules:
        return "secrets are never memory"
    return (
        "an internal address never leaves the machine: a team store shares it (a private "
        "store keeps it: write it there)"
    )


def evaluate(
    *,
    content: str,
    evidence: str,
    s1: float | None,
    s2: float | None,
    source_resolves: bool,
    theta: float,
    also: Sequence[str] = (),
    quote_found: bool = True,
    shared: bool = True,
    vouched: bool = False,
    keep_likely: bool = False,
    settled: dict[str, Settled] | None = None,
) -> GateResult:
    """Score one candidate. ``also`` is any other text the write would persist (title,
    value, the key's fields): s4 scans it like the content and the evidence.
    ``quote_found``: the evidence is in the logged message the source points at
    (:func:`quoted_in`); a pointer that resolves to a message saying something else
    is no source. ``shared``: the words go to a store others share (a team store);
    False for a private store, which never leaves the machine: there an internal
    address is data of the user's project and only credentials fail s4.
    ``vouched``: a person keeps it although the gate doubted it (an exclusion, s1 or
    s2 under theta; a held item): neither excludes it any more; s3 and s4 still do.
    ``keep_likely``: a person says the likely credentials (the scanner's second tier)
    are none: s4 passes on them in a private store; a certain one fails it always.
    ``settled``: s1 or s2 the caller did not give, settled by :func:`settle` (one
    neither given nor settled fails, saying the caller must estimate it)."""

    def probability(name: str, value: float | None) -> Criterion:
        given = (settled or {}).get(name) if value is None else None
        if given is not None:
            ok = given.score >= theta
            why = f"{given.why} ({given.score:.2f} {'>=' if ok else '<'} theta {theta:.2f})"
            if not ok and vouched:
                kept = f"{why}; a person decided to keep it"
                return Criterion(name, theta, True, kept, given.rule)
            return Criterion(name, given.score, ok, why, given.rule)
        if value is None:
            return Criterion(
                name,
                None,
                False,
                f"no {name} given: the caller must estimate how "
                f"{CRITERIA[name].split(':')[0]} this is (a probability 0..1)",
            )
        ok = value >= theta
        why = f"{value:.2f} {'>=' if ok else '<'} theta {theta:.2f}"
        if not ok and vouched:
            return Criterion(name, theta, True, f"{why}; a person decided to keep it")
        return Criterion(name, value, ok, why)

    texts = (content, evidence, *also)
    hits = [h for text in texts for h in secrets.scan(text)]
    certain = {h.rule_id for h in hits if h.tier != "likely"}
    likely = {h.rule_id for h in hits} - certain
    kept = bool(likely) and not certain and keep_likely and not shared
    rules = tuple(sorted(certain | likely))
    internal = tuple(sorted({p for text in texts for p in sensitive_patterns(text)}))
    sensitive = internal if shared else ()
    if kept and not sensitive:
        s4 = Criterion(
            "s4",
            1.0,
            True,
            f"{', '.join(sorted(likely))}: likely a credential, and a person decided it is "
            "none (kept in a private store, which never leaves the machine)",
        )
        rules = ()
    elif rules or sensitive:
        found = ", ".join(rules + sensitive)
        why = _s4_why(rules, sensitive)
        if likely and not certain:
            why = (
                "likely a credential (a secret-named value, or a password said in words): "
                "send it again with the value left out, or a person who knows it is none "
                "keeps it in a private store (memgov remember --keep-likely, or the desk's "
                "held item of an agent's folder)"
            )
        s4 = Criterion("s4", 0.0, False, f"matches {found}: {why}")
    elif internal:
        s4 = Criterion(
            "s4",
            1.0,
            True,
            f"no secret; {', '.join(internal)}: an internal address is data of the "
            "project in a private store, which never leaves the machine",
        )
    else:
        s4 = Criterion("s4", 1.0, True, "no secret or sensitive pattern found")
    if not source_resolves:
        s3 = Criterion(
            "s3",
            0.0,
            False,
            "the source does not resolve: point it at the task "
            "and message in a daily log, or the original file",
        )
    elif not quote_found:
        s3 = Criterion(
            "s3",
            0.0,
            False,
            "the evidence is not in the message the source points at: quote that "
            "message's own words",
        )
    else:
        s3 = Criterion("s3", 1.0, True, "the source resolves to its evidence")
    return GateResult(
        theta=theta,
        criteria=(probability("s1", s1), probability("s2", s2), s3, s4),
        excluded=() if vouched else tuple(exclusions(content)),
        secret_rules=rules + sensitive,
        kept_likely=tuple(sorted(likely)) if kept else (),
    )
