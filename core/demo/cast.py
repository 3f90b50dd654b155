"""Who acts in the demo and when: its people and agent, its pinned clock, and the
made-up credentials some of its scenarios carry."""

from __future__ import annotations

import random
import string
from collections.abc import Mapping
from datetime import datetime, timedelta, timezone
from typing import Any

from core.domain.errors import StoreError

TZ = timezone(timedelta(hours=8))
LANGS = ("zh", "en")
#: a demo's language, written beside its two stores (never read as anything else)
LANG_FILE = ".memgov-demo"
OWNER = "liys05"
MAINTAINERS = ("liys05", "wang.lead@example.com")
AGENT = "agent:claude-code"
START = datetime(2026, 8, 18, 9, 30, tzinfo=TZ)

#: the actors a scenario may name, by role: the stores' rules know each by its name
ACTORS = {
    "owner": OWNER,
    "maintainer": MAINTAINERS[1],
    "agent": AGENT,
    "sweep": "memgov-sweep",
    "consolidation": "memgov-consolidate",
}


class DemoClock:
    """The demo's clock: it says what a scenario's step set it to, never the real time,
    so two builds of the demo are the same to the byte."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def at(self, when: datetime) -> None:
        self.now = when


def fake_token(prefix: str, length: int, seed: int) -> str:
    """A made-up credential, built at run time so none sits in our sources."""
    rng = random.Random(seed)
    return prefix + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(length))


def made_token(spec: Mapping[str, Any]) -> str:
    """The credential a scenario describes: ``prefix``, then groups of digits each
    followed by a dash (``digit_groups``, drawn from ``seed``), then ``length`` letters
    and digits (:func:`fake_token` with the same ``seed``)."""
    unknown = set(spec) - {"prefix", "digit_groups", "length", "seed"}
    if unknown:
        raise StoreError(f"demo token: unknown fields {sorted(unknown)}")
    seed = int(spec["seed"])
    digits = random.Random(seed)
    groups = [
        "".join(digits.choice(string.digits) for _ in range(int(size)))
        for size in spec.get("digit_groups", ())
    ]
    prefix = str(spec["prefix"]) + "".join(f"{group}-" for group in groups)
    return fake_token(prefix, int(spec["length"]), seed=seed)
