"""The demo: two stores built from the specification's own scenarios, through the real
pipeline.

``build_demo(PATH)`` makes ``PATH/private`` (liys05's store) and ``PATH/team``
(the liyyro project's team store), and fills them the way agents would: daily
logs first, then candidates through :func:`core.writing.pipeline.remember`, a sweep,
requests. Nothing is written behind the pipeline's back except the one record
that a person pasted into a file by hand before scanning existed (it carries a
fake token, made up at run time, so that the promotion desk has a hit to block).

What happens is data: each file in ``core/demo/scenarios/`` is one scenario, its
steps written in the small vocabulary of :mod:`core.demo.steps` and read by
:mod:`core.demo.scenario`; :mod:`core.demo.build` makes the stores and runs the steps.

The scenarios are in Chinese, and so is the demo by default (``lang="zh"``);
``lang="en"`` builds the same scenarios in English (:data:`TEXTS`): the same
records, kinds, keys, values where they are not words, requests and queue, only
what people said and what the records say in English. Every quote is the logged
message itself, so each source resolves to a line that holds its evidence.
"""

from core.demo.build import build_demo, demo_language, is_demo
from core.demo.cast import (
    AGENT,
    LANG_FILE,
    LANGS,
    MAINTAINERS,
    OWNER,
    START,
    TZ,
    DemoClock,
    fake_token,
)
from core.demo.scenario import TEXTS

__all__ = [
    "AGENT",
    "LANGS",
    "LANG_FILE",
    "MAINTAINERS",
    "OWNER",
    "START",
    "TEXTS",
    "TZ",
    "DemoClock",
    "build_demo",
    "demo_language",
    "fake_token",
    "is_demo",
]
