"""The memory record (SPEC section 2): one Markdown file with YAML front matter.

Parsing validates every field and raises :class:`ValidationError` naming the
file and the field. Serialising writes the fields in a fixed order so that
files diff cleanly in git.

The package, by seam: :mod:`.fields` (the fields, their choices and text rules,
ids), :mod:`.model` (:class:`Memory` and :class:`Source`, always valid, and their
serialising), :mod:`.mapping` (front matter to a checked :class:`Memory`) and
:mod:`.reading` (a file's text split, its YAML read, errors placed). Everything
public is imported from here: ``from core.domain.record import Memory``.
"""

from core.domain.record.fields import (
    CONTENT_MAX_CHARS,
    ENVIRONMENT_MAX,
    FIELD_ORDER,
    ID_RE,
    LARGE_FILE_CHARS,
    MULTI_LINE_BAD,
    ONE_LINE_BAD,
    ORIGIN_KEYS,
    REQUIRED,
    SCOPES,
    STATUSES,
    TEXT_FIELDS,
    TOOL_RE,
    TRUST,
    TYPES,
    check_field,
    check_text,
    describe,
    environment_field,
    id_problem,
    is_clean,
    origin_problem,
    shown_word,
    text_problem,
    validate_id,
)
from core.domain.record.mapping import memory_from_mapping, parse_time
from core.domain.record.model import (
    Memory,
    Source,
    check_memory,
    check_source,
    content_hash,
    normal_hash,
)
from core.domain.record.reading import (
    field_at_line,
    parse_memory,
    split_front_matter,
    yaml_error,
)

__all__ = [
    "CONTENT_MAX_CHARS",
    "ENVIRONMENT_MAX",
    "FIELD_ORDER",
    "ID_RE",
    "LARGE_FILE_CHARS",
    "MULTI_LINE_BAD",
    "ONE_LINE_BAD",
    "ORIGIN_KEYS",
    "REQUIRED",
    "SCOPES",
    "STATUSES",
    "TEXT_FIELDS",
    "TOOL_RE",
    "TRUST",
    "TYPES",
    "Memory",
    "Source",
    "check_field",
    "check_memory",
    "check_source",
    "check_text",
    "content_hash",
    "describe",
    "environment_field",
    "field_at_line",
    "id_problem",
    "is_clean",
    "memory_from_mapping",
    "normal_hash",
    "origin_problem",
    "parse_memory",
    "parse_time",
    "shown_word",
    "split_front_matter",
    "text_problem",
    "validate_id",
    "yaml_error",
]
