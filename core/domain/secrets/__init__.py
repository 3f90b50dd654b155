r"""Client-side secret scanner: high-confidence credential rules, never the value.

Every rule is a hand port of a gitleaks rule (github.com/gitleaks/gitleaks,
``config/gitleaks.toml``) whose secret has a distinctive prefix or shape: the
rule ids, regexes, keywords and entropy thresholds are gitleaks' own. Generic
keyword rules (``password = ...``, ``<service>_key = <32 hex>``) are left out on
purpose: they are what makes a scanner noisy, and a blocked write must be
worth blocking.

How a text is scanned, like gitleaks:

1. Keywords prefilter. Each rule names lowercase keywords; a rule none of
   whose keywords occurs in the lowercased text is skipped. Where they occur
   only a few times, the regex only runs on the lines that hold them.
2. The regex finds candidates; the secret is the match (``secret_group`` 0).
3. Entropy: a secret whose Shannon entropy is at or below the rule's threshold
   is dropped (gitleaks skips ``entropy <= threshold``).
4. Allowlists: the rule's own (AWS ``...EXAMPLE``, Vault ``s.`` + letters) and
   a global one for documented placeholders: ``EXAMPLE``/``placeholder``-ish
   words, values that are mostly runs of one character, sequential alphabets
   and digits, template variables.
5. One finding per secret span: where two rules claim overlapping text, the
   earlier start wins, then the rule listed first in ``RULES``.

The scan runs over the UTF-8 bytes of the text (every secret is ASCII; bytes
lowercase and search several times faster than a non-ASCII ``str``); lines
and columns are counted back in characters.

Evasions: a token hidden with an invisible character, bidi controls, combining
marks or accented letters, full-width or look-alike letters, URL or backslash
escapes, a line break in the middle, or base64 is found too, as an
``EvadedFinding`` that says how (see :mod:`core.domain.secrets.hidden` for the
tells, the normalisation and the bounds). Text with no tell costs a few extra
passes, not a second scan.

Never leak: a ``Finding`` holds the rule, line and column only. Nothing here
logs, and no exception raised here carries any part of the scanned text.

The package, in the order a scan uses it: :mod:`.rules` (the rule table and
its deviations from gitleaks), :mod:`.placeholders` (entropy and the
placeholder allowlist), :mod:`.matching` (the keyword prefilter and the raw
scan), :mod:`.charsets`, :mod:`.edits`, :mod:`.normalise` and :mod:`.tells`
(undoing evasions), :mod:`.hidden` (every evaded secret, base64 included),
:mod:`.scanner` (:func:`scan`, :func:`is_clean`) and :mod:`.redaction`
(:func:`redact`). The public API is imported from here:
``from core.domain import secrets; secrets.scan(text)``.
"""

from core.domain.secrets.placeholders import shannon_entropy
from core.domain.secrets.redaction import redact, redact_marked
from core.domain.secrets.rules import RULES, Rule
from core.domain.secrets.scanner import EvadedFinding, Finding, is_clean, scan

__all__ = [
    "RULES",
    "EvadedFinding",
    "Finding",
    "Rule",
    "is_clean",
    "redact",
    "redact_marked",
    "scan",
    "shannon_entropy",
]
