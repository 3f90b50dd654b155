r"""Client-side secret scanner: credentials in two tiers, never the value.

*Certain* rules are blocked everywhere: every gitleaks rule whose secret has a
distinctive prefix or shape, hand-ported (``config/gitleaks.toml``: the rule
ids, regexes, keywords and entropy thresholds are gitleaks' own; :mod:`.rules`),
a few more prefixes, and structure that can be nothing but a credential
(:mod:`.structure`: a URL's password, ``Authorization: Basic`` that decodes to
``user:password``, ``Bearer``, connection strings' ``Password=``/``AccountKey=``,
``.netrc`` and ``.pgpass`` lines, Docker's ``auth``, passwords on command lines).
*Likely* rules (:mod:`.likely`, :mod:`.calls`) find a secret-named key (:mod:`.names`),
a password word in prose, in the seed's languages, a secret a command printed, or a
password passed to a call with its login, and keep the value only if it
looks like a secret (:mod:`.values`: no placeholder, reference, mask, hash, UUID,
version, path, integrity string or plain word). A :class:`Finding` carries its
``tier``; redaction replaces a likely value as it does a certain one.

Taken as data, never as code, from detect-secrets (``KeywordDetector``: its
secret words, its assignment forms per file type, its refusal of code and
references as values; ``BasicAuthDetector``: the URL password) and gitleaks
(``generic-api-key``: a name that *ends* in a secret word, the setting words
that make it a setting instead, and hashes, UUIDs and versions refused). Not
taken: an entropy threshold for the likely tier (a person's password is short
and plain; the value's form decides) and the high-entropy string plugins (every
digest would be a finding). Why a name is the context: "a password is a key"
(the seed's s4), and the corpus of credentials people write without a vendor
prefix (``tests/fixtures/credentials``) is mostly ``NAME=value`` and prose.

How a text is scanned, like gitleaks:

1. Keywords prefilter (:mod:`.prefilter`: one Aho-Corasick pass over the
   lowercased bytes). Each rule names lowercase keywords; a rule none of
   whose keywords occurs in the lowercased text is skipped. Where they occur
   only a few times, the regex only runs on the lines that hold them; a likely
   rule's regex is matched at each occurrence (its keyword must be followed by
   ``=``, ``:`` or a line break within a key's length), so a likely rule costs
   what its keywords' occurrences cost, not a pass over the text. A rule whose
   every match lies on one line may be searched for by a rarer needle that
   every match holds (a JWT's ``.ey``), or, where its keyword is common, run on
   the lines of the text's base64 runs only (AWS and Vault tokens: 20 base64
   characters in a row); each such shortcut holds for the regex it was worked
   out for (a digest) and lapses if the regex changes.
2. The regex finds candidates; the secret is the match (``secret_group`` 0), or
   what the rule's check keeps of it (the value alone).
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

Never leak: a ``Finding`` holds the rule, tier, line and column only. Nothing here
logs, and no exception raised here carries any part of the scanned text.

The package, in the order a scan uses it: :mod:`.rule` (a rule), :mod:`.rules`
(the table and its deviations from gitleaks), :mod:`.structure`, :mod:`.likely`, :mod:`.calls`,
:mod:`.names` and :mod:`.values` (the tiers beyond prefixes), :mod:`.placeholders`
(entropy and the placeholder allowlist), :mod:`.prefilter` (the keyword pass),
:mod:`.matching` (the raw scan), :mod:`.charsets`, :mod:`.edits`, :mod:`.normalise`
and :mod:`.tells` (undoing evasions), :mod:`.hidden` (every evaded secret, base64 included),
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
