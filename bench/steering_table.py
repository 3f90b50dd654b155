"""Write ``core/domain/steering/analysed.json``: each gated regex of the steering
detector's rules split into its alternatives, with the literals each needs, as
``core.domain.steering.analysis.analyse`` works them out (the detector reads it instead
of parsing about 1,000 alternatives in each process); and ``supersets.json``: each
alternative as the compiled set reads it (``core.domain.steering.superset``). Run it
after changing a rule:

    .venv/bin/python bench/steering_table.py

``tests/domain/test_steering_analysis.py`` and ``test_steering_compiled.py`` fail until
the tables are made again.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.domain import steering
from core.domain.steering import analysis, engine, superset


def main() -> int:
    assert steering.RULES  # every rule module imported: every gated regex made
    text = analysis.table_text(engine.gated_regexes())
    analysis.TABLE_FILE.write_text(text, encoding="utf-8")
    print(f"{analysis.TABLE_FILE}: {len(engine.gated_regexes())} regexes, {len(text)} bytes")
    alternatives = engine.alternatives()
    text = superset.table_text(alternatives)
    superset.TABLE_FILE.write_text(text, encoding="utf-8")
    print(f"{superset.TABLE_FILE}: {len(alternatives)} alternatives, {len(text)} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
