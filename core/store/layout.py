"""Where a store keeps what: the folder names and size limits every store module shares.

A store folder is untrusted input: local state (lock, journal, cache) lives in
``.git/memgov/``, which no clone, pull or push carries; ``.memgov/`` is its old
place, ignored and reported when committed.
"""

import hashlib

MEMORY_DIR = "memories"
STATE_DIR = ".memgov"  # the old place of local state: ignored, and reported when committed
LOCAL_STATE = ".git/memgov"  # where local state lives: git never transfers what is in .git
#: the folders besides memories/ whose files memgov writes (and where a killed writer may
#: leave a temporary file; memories/ is walked by every load anyway)
WRITTEN_FOLDERS = ("logs", "requests", "decisions", "held", "sync", "proposals", "quarantine")
MAX_FILE_BYTES = 1024 * 1024  # a memory file larger than this is not read at all


def memory_path(memory_id: str) -> str:
    """Where a new memory's file goes: ``memories/<shard>/<id>.md``, the shard the
    first two hex digits of the id's SHA-1 (256 folders, as git shards its objects).

    Why shards: every commit writes a new tree object for each folder it changes,
    and git's index rewrites a folder's cache-tree entry; with one flat folder that
    is a tree listing every memory (560 KB at 10,000 memories, 5.6 MB at 100,000)
    on every write. A shard lists about 1/256 of them. Files written before shards
    (``memories/<id>.md``) stay where they are; a store reads both, and any depth.
    """
    shard = hashlib.sha1(memory_id.encode("utf-8", "surrogateescape")).hexdigest()[:2]
    return f"{MEMORY_DIR}/{shard}/{memory_id}.md"


def memory_paths(memory_id: str) -> tuple[str, str]:
    """The places a memory's file may be: its shard, and the flat folder of old stores."""
    return memory_path(memory_id), f"{MEMORY_DIR}/{memory_id}.md"
