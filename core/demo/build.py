"""Building the demo: its two stores, then its scenarios' steps, one after the other."""

from __future__ import annotations

import shutil
from pathlib import Path

from core.demo.cast import LANG_FILE, LANGS, MAINTAINERS, OWNER, START, DemoClock
from core.demo.scenario import SCENARIOS, TEXTS, Scenario, texts_by_language
from core.demo.steps import Stage, check, run
from core.domain.errors import StoreError
from core.store.store import Store


def demo_language(target: Path | str) -> str | None:
    """The language of the demo built in ``target`` (None: no demo there, or one built
    before the demo had languages, or a marker that names none of :data:`LANGS`)."""
    marker = Path(target) / LANG_FILE
    try:
        if marker.is_symlink() or marker.stat().st_size > 64:
            return None
        text = marker.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text if text in LANGS else None


def is_demo(target: Path | str) -> bool:
    """Whether ``target`` holds a demo's two stores (as :func:`build_demo` makes them)."""
    target = Path(target)
    return (target / "private" / "memgov.yaml").is_file() and (
        target / "team" / "memgov.yaml"
    ).is_file()


def _demo_in_place(target: Path, *, force: bool, lang: str | None) -> list[Store] | None:
    """The demo already in ``target``, opened as it is; None when there is none, or
    ``force`` cleared what was there. Anything else there is kept and refused."""
    if target.exists() and not target.is_dir():
        raise StoreError(f"{target}: not a folder; choose an empty or new folder for the demo")
    if not (target.exists() and any(target.iterdir())):
        return None
    if force:
        shutil.rmtree(target)
        return None
    if not is_demo(target):
        raise StoreError(
            f"{target}: exists and is not a demo store; choose another "
            f"path or pass --force to replace it"
        )
    built = demo_language(target)
    if lang is not None and built is not None and built != lang:
        raise StoreError(
            f"{target}: holds the {built} demo; pass --force to replace it "
            f"with the {lang} one (its decisions are lost)"
        )
    return [Store(target / "private"), Store(target / "team")]


def _new_stores(target: Path, clock: DemoClock) -> dict[str, Store]:
    """The team's store (the liyyro project's) and liys05's private store beside it."""
    team = Store.init(
        target / "team",
        scope="team",
        maintainers=MAINTAINERS,
        actor=MAINTAINERS[1],
        clock=clock,
    )
    # liys05 acts as the owner's name, the one actor the store's rules (and the desk,
    # with --as liys05) know: one author address in every commit
    private = Store.init(
        target / "private",
        scope="private",
        owner=OWNER,
        team_store="../team",
        actor=OWNER,
        clock=clock,
        default_actor=OWNER,  # the command line acts as the demo's user (memgov.yaml)
    )
    return {"private": private, "team": team}


def build_demo(
    target: Path | str,
    *,
    force: bool = False,
    lang: str | None = None,
    scenarios: list[Scenario] | None = None,
) -> list[Store]:
    """The demo's two stores in ``target``: ``target/private`` and ``target/team``.

    A demo already there is opened as it is (decisions made on it stay), unless
    ``force`` replaces it; ``lang`` (``zh``, the default, or ``en``) given for a
    demo of another language is an error that says to pass ``force``. Anything
    else in a non-empty ``target`` is never replaced without ``force``.
    ``scenarios`` (the demo's own by default) are checked whole before anything
    is written."""
    if lang is not None and lang not in LANGS:
        raise StoreError(f"--lang {lang!r}: the demo is built in {' or '.join(LANGS)}")
    texts = TEXTS if scenarios is None else texts_by_language(scenarios)
    steps = [step for scenario in scenarios or SCENARIOS for step in scenario.steps]
    for step in steps:
        check(step, {"private", "team"}, texts[LANGS[0]])
    target = Path(target)
    kept = _demo_in_place(target, force=force, lang=lang)
    if kept is not None:
        return kept
    lang = lang or LANGS[0]
    clock = DemoClock(START)
    stores = _new_stores(target, clock)
    stage = Stage(target=target, stores=stores, clock=clock, texts=texts[lang])
    for step in steps:
        run(stage, step)
    (target / LANG_FILE).write_text(lang + "\n", encoding="ascii")  # last: the demo is whole
    return [stores["private"], stores["team"]]
