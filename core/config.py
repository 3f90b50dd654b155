"""The store's config file, ``memgov.yaml``: thresholds, time constants, people."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

from core.errors import ValidationError

CONFIG_FILE = "memgov.yaml"


@dataclass(frozen=True)
class Config:
    """Everything a store can be tuned by. Defaults follow the spec and the seed."""

    scope: str = "private"  # which scope this store holds: private or team
    owner: str | None = None  # private store: the user it belongs to (subject user:<owner>)
    maintainers: tuple[str, ...] = ()  # team store: who decides team items
    team_store: str | None = None  # private store: path of the team store it promotes to
    theta: float = 0.6  # write gate threshold (SPEC 5)
    w0: float = 1.0  # decay: initial weight (SPEC 7)
    tau1_days: float = 30.0  # decay: time constant for days since last use
    tau2_days: float = 60.0  # decay: for days since verification (2 * tau1 by default)
    unused_days: int = 30  # not a consolidation input after this many days unused
    index_line_chars: int = 150
    index_max_lines: int = 200
    index_max_bytes: int = 25_000
    extra: dict[str, Any] = field(default_factory=dict)

    def to_yaml(self) -> str:
        data = asdict(self)
        data["maintainers"] = list(self.maintainers)
        extra = data.pop("extra")
        data.update(extra)
        head = "# memgov store configuration. Changes to a team store's config go through review.\n"
        return head + yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


_NUMBERS = {
    "theta": (0.0, 1.0),
    "w0": (0.0, 1e9),
    "tau1_days": (1e-9, 1e9),
    "tau2_days": (1e-9, 1e9),
    "unused_days": (0, 1e9),
    "index_line_chars": (1, 1e9),
    "index_max_lines": (1, 1e9),
    "index_max_bytes": (1, 1e9),
}

#: index limits: a fraction would break slicing and line counting
_INTEGERS = {"index_line_chars", "index_max_lines", "index_max_bytes"}


def load_config(root: Path) -> Config:
    path = root / CONFIG_FILE
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except FileNotFoundError:
        raise ValidationError(
            "is missing", path=path, hint="run 'memgov init' to create a store here"
        ) from None
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise ValidationError(
            f"cannot be parsed: {type(exc).__name__}",
            path=path,
            hint="fix the YAML or recreate it with 'memgov init'",
        ) from None
    if not isinstance(raw, dict):
        raise ValidationError("must be a mapping of settings", path=path)
    known = {f for f in Config.__dataclass_fields__ if f != "extra"}
    values: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in known:
            extra[str(key)] = value
            continue
        if key in _NUMBERS:
            low, high = _NUMBERS[key]
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not low <= value <= high
            ):
                raise ValidationError(
                    f"must be a number from {low:g} to {high:g}, got {value!r}",
                    path=path,
                    field=key,
                )
            if key in _INTEGERS and not isinstance(value, int):
                raise ValidationError(
                    f"must be a whole number, got {value!r}", path=path, field=key
                )
        values[key] = value
    scope = values.get("scope", "private")
    if scope not in ("private", "team"):
        raise ValidationError(
            f"unknown scope {scope!r}",
            path=path,
            field="scope",
            hint="a store holds private or team memories",
        )
    maint = values.get("maintainers") or []
    if not isinstance(maint, list) or not all(isinstance(m, str) for m in maint):
        raise ValidationError(
            "must be a list of user names or emails", path=path, field="maintainers"
        )
    values["maintainers"] = tuple(maint)
    for key in ("owner", "team_store"):
        if values.get(key) is not None and not isinstance(values[key], str):
            raise ValidationError("must be text", path=path, field=key)
    if "tau1_days" in values and "tau2_days" not in values:
        values["tau2_days"] = 2 * float(values["tau1_days"])
    return Config(**values, extra=extra)
