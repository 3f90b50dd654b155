"""``keymap:`` in memgov.yaml: typos are warned about, never ignored."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path

from support_desk import settle, workspace
from textual.binding import Binding
from textual.dom import DOMNode

import tui.app
import tui.screens
from tui.app import MemgovDesk
from tui.keymap import binding_ids, workspace_keymap
from tui.screens.queue.table import QueueTable


def desk_binding_ids() -> set[str | None]:
    modules = [
        importlib.import_module(m.name)
        for m in pkgutil.walk_packages(tui.screens.__path__, "tui.screens.")
    ] + [tui.app]
    found: set[str | None] = set()
    for module in modules:
        for cls in vars(module).values():
            if (
                inspect.isclass(cls)
                and issubclass(cls, DOMNode)
                and cls.__module__ == module.__name__
                and cls is not QueueTable  # Textual's table keys: no id, as Textual's had
            ):
                found |= {b.id for b in cls.__dict__.get("BINDINGS", []) if isinstance(b, Binding)}
    return found


def test_the_list_of_binding_ids_is_every_binding_of_the_desk() -> None:
    assert desk_binding_ids() == set(binding_ids())


def with_keymap(demo: Path, text: str) -> Path:
    config = demo / "private" / "memgov.yaml"
    config.write_text(config.read_text(encoding="utf-8") + text, encoding="utf-8")
    return config


KEYMAP = """
keymap:
  conflict.nwer: "1"
  conflict.older: "2"
  queue.search: ["f"]
  queue.scope: 7
"""


def test_doctor_warns_about_each_entry_that_names_no_binding_or_no_key(
    demo: Path, demo_cli
) -> None:
    before, _out, _err = demo_cli("doctor", "--store", str(demo / "private"))
    with_keymap(demo, KEYMAP)
    code, out, _err = demo_cli("doctor", "--store", str(demo / "private"))
    assert code == before  # warnings: the verdict is the same
    assert "field 'keymap.conflict.nwer': no key of the desk has this id" in out
    assert "did you mean 'conflict.newer'?" in out
    assert "field 'keymap.queue.search': not a key" in out
    assert "keymap.conflict.older" not in out and "keymap.queue.scope" not in out


def test_the_desk_uses_the_good_entries_and_says_which_it_ignored(demo: Path) -> None:
    config = with_keymap(demo, KEYMAP)
    keymap, warnings = workspace_keymap(workspace(demo).stores)
    assert keymap == {"conflict.older": "2", "queue.scope": "7"}
    assert [w.split(": field ")[0] for w in warnings] == [str(config)] * 2


async def test_the_desk_notifies_the_ignored_entries_when_it_opens(demo: Path) -> None:
    with_keymap(demo, KEYMAP)
    space = workspace(demo)
    keymap, warnings = workspace_keymap(space.stores)
    app = MemgovDesk(
        space, actor="liys05", cursor_blink=False, keymap=keymap, keymap_warnings=warnings
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        notes = [n for n in app._notifications if n.title == "Keymap: entries ignored"]
        assert len(notes) == 1
        assert "keymap.conflict.nwer" in notes[0].message
        assert "did you mean 'conflict.newer'?" in notes[0].message
        screen = app.screen
        await pilot.press("7")  # queue.scope remapped from s to 7
        await pilot.pause()
        assert getattr(screen, "scope", None) != "all"
