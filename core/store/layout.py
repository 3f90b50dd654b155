"""Where a store keeps what: the folder names and size limits every store module shares.

A store folder is untrusted input: local state (lock, journal, cache) lives in
``.git/memgov/``, which no clone, pull or push carries; ``.memgov/`` is its old
place, ignored and reported when committed.
"""

MEMORY_DIR = "memories"
STATE_DIR = ".memgov"  # the old place of local state: ignored, and reported when committed
LOCAL_STATE = ".git/memgov"  # where local state lives: git never transfers what is in .git
#: the folders besides memories/ whose files memgov writes (and where a killed writer may
#: leave a temporary file; memories/ is walked by every load anyway)
WRITTEN_FOLDERS = ("logs", "requests", "decisions")
MAX_FILE_BYTES = 1024 * 1024  # a memory file larger than this is not read at all
