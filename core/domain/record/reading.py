"""A record file's text: front matter and body split, YAML read, errors placed.

:func:`parse_memory` reads one Markdown file with YAML front matter into a
:class:`Memory`; :func:`split_front_matter` splits it (the layout memgov writes
takes a fast path, :mod:`core.domain.fastyaml`). A YAML error becomes a
:class:`ValidationError` (:func:`yaml_error`) that says where and names the field
when it can (:func:`field_at_line`), never quoting the file: an alias or a tag in
it may be a credential.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.domain import fastyaml
from core.domain.errors import ValidationError
from core.domain.record.fields import FIELD_ORDER, TOOL_RE, environment_field
from core.domain.record.mapping import memory_from_mapping
from core.domain.record.model import Memory

if TYPE_CHECKING:
    import yaml

_DELIMITER = re.compile(r"^-{3,}[ \t]*(?:\r?\n|\Z)", re.MULTILINE)


def _load_yaml(block: str) -> Any:
    """A front-matter block's YAML, on libyaml's C loader when present (python-frontmatter's
    handler did only this, and importing it cost every command that opens a store)."""
    import yaml

    return yaml.load(block, Loader=fastyaml.full_loader())


#: the fixed wording of datetime's range errors: safe to repeat, it quotes nothing
_SAFE_CONSTRUCTOR_ERROR = re.compile(
    r"[a-z ]{3,30} (?:must be in \d+\.\.\d+|is out of range for month)"
)
#: a quoted piece of a YAML error message: kept when it is one character or a token
#: name ('<block end>'), dropped when it could be a piece of the file (an alias, a tag)
_QUOTED = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"")


def _unquote(match: re.Match[str]) -> str:
    text = match.group()
    inner = text[1:-1]
    if len(inner) <= 2 or re.fullmatch(r"<[a-z ]{1,30}>", inner):
        return text
    return "(a name from the file)"


#: raw in a front-matter block (not as a YAML escape): what no field may hold, and a
#: carriage return that is not part of a Windows line end
_RAW_BAD = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
_KEY_LINE = re.compile(r"(?P<indent>[ -]*)(?P<key>[A-Za-z_][A-Za-z0-9_]*)[ \t]*:")
_SOURCE_KEYS = ("task", "message_index", "evidence", "log", "file", "line")


def field_at_line(block: str, line: int) -> str | None:
    """The record field that the 0-based ``line`` of a front-matter ``block`` belongs
    to: a known field's name (``subject``, ``source.evidence``, ``sources[1].task``),
    never text of the file; None when it cannot tell."""
    lines = block.split("\n")
    if not 0 <= line < len(lines):
        return None
    nested: str | None = None
    tool: str | None = None  # the key on the line itself, for environment.<tool>
    entries = 0
    for number in range(line, max(line - 200, -1), -1):
        match = _KEY_LINE.match(lines[number])
        if match is None:
            continue
        key, indent = match["key"], match["indent"]
        if not indent:
            if key not in FIELD_ORDER:
                return None
            if key == "environment" and tool is not None:
                return environment_field(tool, 0) if TOOL_RE.match(tool) else key
            if nested is None or key not in ("source", "sources"):
                return key
            return f"source.{nested}" if key == "source" else f"sources[{entries - 1}].{nested}"
        if tool is None and number == line:
            tool = key
        if nested is None and key in _SOURCE_KEYS:
            nested = key
        if indent.strip().startswith("-"):
            entries += 1
    return None


def yaml_error(
    exc: yaml.YAMLError,
    *,
    path: Path | str | None,
    first_line: int = 1,
    what: str = "front matter",
    block: str | None = None,
) -> ValidationError:
    """A YAML error as a ValidationError: where, and what YAML says, without the
    pieces of the file its message may quote (an alias or tag may be a credential).
    Given the ``block`` that was read, a memory's field is named by where YAML stopped."""
    import yaml  # an error of YAML's: it is loaded

    line: int | None = None
    exact = False  # YAML stopped at the bad character itself, not somewhere after it
    if isinstance(exc, yaml.reader.ReaderError) and block is not None:
        exact = True
        if fastyaml.full_loader().__name__.startswith(
            "C"
        ):  # libyaml counts bytes of the UTF-8 text
            line = block.encode("utf-8", "surrogatepass")[: exc.position].count(b"\n")
        else:
            line = block[: exc.position].count("\n")
    mark = getattr(exc, "problem_mark", None)
    if mark is not None:
        line = mark.line
        exact = "escape" in str(getattr(exc, "problem", ""))
    field = field_at_line(block, line) if block is not None and line is not None and exact else None
    if isinstance(exc, yaml.reader.ReaderError) and isinstance(exc.character, int):
        return ValidationError(
            f"{what} holds a character YAML does not allow (U+{exc.character:04X})"
            + (f" at line {line + first_line}" if line is not None else ""),
            path=path,
            field=field,
            hint="remove the control character",
        )
    where = f" at line {line + first_line}" if line is not None else ""
    problem = getattr(exc, "problem", None) or "cannot be parsed"
    problem = _QUOTED.sub(_unquote, str(problem))[:200]
    return ValidationError(
        f"{what} is not valid YAML{where}: {problem}",
        path=path,
        field=field,
        hint="fix the YAML between the '---' lines" if what == "front matter" else "fix the YAML",
    )


def split_front_matter(text: str, *, path: Path | str | None = None) -> tuple[dict[str, Any], str]:
    """Split a Markdown file into (front matter, body); errors name the file."""
    if not text.startswith("---"):
        raise ValidationError(
            "has no YAML front matter",
            path=path,
            hint="start the file with a '---' line, the fields, and another '---' line",
        )
    if text.startswith("---\n"):  # the layout memgov writes: try the fast path
        end = text.find("\n---\n", 3)
        if end != -1:
            meta = fastyaml.parse(text[4:end])
            if meta:
                return meta, text[end + 5 :]
    # Split by hand, not with frontmatter.loads: that strips the body (and its
    # delimiter pattern eats blank lines after the closing '---'), so a body
    # starting with indentation or a blank line would read differently here
    # than on the fast path above.
    opening = _DELIMITER.match(text)
    closing = _DELIMITER.search(text, opening.end()) if opening else None
    if opening is None or closing is None:
        raise ValidationError(
            "front matter has no closing '---' line"
            if opening
            else "has no YAML front matter: the first line must be '---'",
            path=path,
            hint="put the fields between two '---' lines, then the content",
        )
    block, body = text[opening.end() : closing.start()], text[closing.end() :]
    raw_bad = _RAW_BAD.search(block)
    if raw_bad is not None:
        # before YAML reads it: YAML folds a raw NEL or CR into a space (silently), and
        # refuses the rest without saying which field holds it
        line = block.count("\n", 0, raw_bad.start())
        raise ValidationError(
            f"front matter holds a control character (U+{ord(raw_bad.group()):04X}) at line "
            f"{line + 2}",
            path=path,
            field=field_at_line(block, line),
            hint="remove it; a field's text takes no control characters",
        )
    import yaml  # what the fast path declines: PyYAML reads it

    try:
        meta = _load_yaml(block)
    except (ValueError, TypeError, OverflowError) as exc:
        # PyYAML's constructors raise these for e.g. 2027-13-45T10:20:00+08:00; only
        # datetime's own fixed wording is kept ("month must be in 1..12"), nothing that
        # could quote the value
        said = str(exc)
        detail = f": {said}" if _SAFE_CONSTRUCTOR_ERROR.fullmatch(said) else ""
        raise ValidationError(
            f"front matter has a value YAML cannot read ({type(exc).__name__}{detail})",
            path=path,
            hint="fix the value (a date that does not exist, a number out of range), "
            "or quote it to keep it as text",
        ) from None
    except RecursionError:
        raise ValidationError(
            "front matter is nested too deeply to read",
            path=path,
            hint="a memory's fields are flat; fix the YAML between the '---' lines",
        ) from None
    except yaml.YAMLError as exc:
        raise yaml_error(exc, path=path, first_line=2, block=block) from None
    if not isinstance(meta, dict) or not meta:
        raise ValidationError("front matter is empty or not a mapping of fields", path=path)
    return meta, body


def parse_memory(text: str, *, path: Path | str | None = None, rel_path: str = "") -> Memory:
    if "\r" in text:  # a file saved with Windows line ends reads as memgov writes it
        text = text.replace("\r\n", "\n")
    meta, body = split_front_matter(text, path=path)
    return memory_from_mapping(meta, body, path=path, rel_path=rel_path)
