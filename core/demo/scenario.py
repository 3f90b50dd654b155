"""The demo's scenarios, read from the YAML files beside this module.

Each file in ``scenarios/`` is one scenario: a ``title``, what it shows (``about``),
the words its people say and its records hold in each language (``texts``), and its
``steps``, each a mapping of one step kind (see :mod:`core.demo.steps`) to its
arguments. The files run in the order of their names, one after the other, so their
numbers are the order of events in the demo. They are read with ``yaml.safe_load``:
data only, nothing in them is run as code.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from core.demo.cast import LANGS
from core.domain.errors import StoreError

FOLDER = Path(__file__).with_name("scenarios")


@dataclass(frozen=True)
class Step:
    """One thing that happens: its kind, its arguments, and where it is written."""

    kind: str
    args: Mapping[str, Any]
    where: str


@dataclass(frozen=True)
class Scenario:
    name: str
    title: str
    about: str
    #: text key -> language -> the words
    texts: Mapping[str, Mapping[str, str]]
    steps: tuple[Step, ...]


def _mapping(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise StoreError(f"{where}: expected a mapping")
    return value


def _step(raw: Any, where: str) -> Step:
    step = _mapping(raw, where)
    if len(step) != 1:
        raise StoreError(f"{where}: a step is one kind and its arguments, not {sorted(step)}")
    ((kind, args),) = step.items()
    return Step(kind, _mapping(args, f"{where} ({kind})"), where)


def _texts(raw: Any, where: str) -> dict[str, dict[str, str]]:
    texts: dict[str, dict[str, str]] = {}
    for key, words in _mapping(raw, f"{where}: texts").items():
        said = _mapping(words, f"{where}: texts.{key}")
        if set(said) != set(LANGS) or not all(isinstance(v, str) for v in said.values()):
            raise StoreError(f"{where}: texts.{key} needs words in each of {', '.join(LANGS)}")
        texts[key] = dict(said)
    return texts


def read_scenario(path: Path) -> Scenario:
    data = _mapping(yaml.safe_load(path.read_text("utf-8")), path.name)
    unknown = set(data) - {"title", "about", "texts", "steps"}
    if unknown:
        raise StoreError(f"{path.name}: unknown fields {sorted(unknown)}")
    steps = data.get("steps") or []
    if not isinstance(steps, list):
        raise StoreError(f"{path.name}: steps is a list")
    return Scenario(
        name=path.stem,
        title=str(data.get("title", "")),
        about=str(data.get("about", "")),
        texts=_texts(data.get("texts") or {}, path.name),
        steps=tuple(_step(raw, f"{path.name} step {n}") for n, raw in enumerate(steps, 1)),
    )


def read_scenarios(folder: Path = FOLDER) -> list[Scenario]:
    """Every scenario in ``folder``, in the order of the files' names."""
    return [read_scenario(path) for path in sorted(folder.glob("*.yaml"))]


def texts_by_language(scenarios: list[Scenario]) -> dict[str, dict[str, str]]:
    """language -> text key -> words, over all ``scenarios`` (a key is said once)."""
    texts: dict[str, dict[str, str]] = {lang: {} for lang in LANGS}
    for scenario in scenarios:
        for key, words in scenario.texts.items():
            if key in texts[LANGS[0]]:
                raise StoreError(f"{scenario.name}: texts.{key} is said in another scenario")
            for lang in LANGS:
                texts[lang][key] = words[lang]
    return texts


def text_keys(value: Any) -> Iterator[str]:
    """The text keys a step's arguments name (``{text: KEY}``), at any depth."""
    if isinstance(value, dict):
        if "text" in value:
            yield str(value["text"])
        for inner in value.values():
            yield from text_keys(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from text_keys(inner)


SCENARIOS = read_scenarios()
#: what people said and what the records say, per language; the keys, kinds and the
#: order of events are the same in both
TEXTS = texts_by_language(SCENARIOS)
