"""Memories that try to steer the agent: a deterministic, explainable detector.

A web page, an e-mail or a tool result the agent read can be written down as a
"memory" that steers every later session. :func:`assess` is what the write gate and
the doctor call: it reads a memory's text (and, given them, its type, the role of its
source message and the hosts the store knows) and returns each :class:`Flag` with the
rule that fired and the span it fired on, so a person sees exactly why. Nothing here
is learned or random: the same text gives the same flags, and every rule is a row of
:data:`RULES` with what it must catch and the near misses it must leave alone (the
tests run both).

Families, as the issue names them:

- ``instruction``: text that addresses the agent with instructions (overriding
  earlier ones, lifting its restrictions, taking orders from a page, an e-mail or a
  claimed administrator, asking for its system prompt, "from now on you ...", role or
  system markers, delayed triggers, keeping things from the user or lying to them
  (concealment: "don't bring it up", "leave it out of the summary"), answers scripted
  in advance ("if the user asks why, reply that ..."), skipping confirmation, leaving
  out warnings, slipping links into every answer, keeping risks and flaws from the
  user, claiming a rank over the user, the system prompt, CLAUDE.md or the other
  memories, a memory that keeps itself (copied into new memories, restored when
  removed), permission granted by a forged authority, a new persona, a third party
  given the user's authority, verdicts fixed in advance such as approving unread, a
  recommendation steered by running a competitor down), in
  English, Chinese, Japanese, Korean, Russian, French, German, Spanish, Portuguese and
  Italian;
- ``action``: commands with side effects (fetch and run, sending data or secrets to a
  URL or an address, disabling checks, destroying data, installing from a URL or an
  unlisted index, changing credentials or access, weakening security: open permissions,
  a shell for a stranger, secrets made public or shown unmasked, security scans,
  endpoint defences, audit trails, branch protection, SECURITY.md or CODEOWNERS
  removed, linters silenced, failing tests skipped, cluster-admin for a default
  account, commits under a borrowed identity, a look-alike "fork" of a package);
- ``hidden``: what a person reading the memory would not see (zero-width and bidi
  characters, tag characters, look-alike letters, HTML comments and hidden elements,
  Markdown comments, encoded blobs (base64, hex, percent-encoding, ``\\x`` escapes,
  base32, rot13) that decode to text or to code that runs, images that carry data);
- ``provenance`` (:func:`provenance_flags`): a preference or feedback that did not
  come from the user's own words;
- ``link`` (:func:`link_flags`): a link to a host the store's config does not know.

Strength, and how :func:`assess` weighs provenance
--------------------------------------------------

Each rule is ``strong`` or ``weak``. A strong rule (a role or system marker,
overriding instructions, lifting restrictions, taking orders from someone other than
the user, keeping things from the user, and every action and hidden rule) is a sign
of steering whoever wrote it; so are the signs a user would never write about their own
agent (concealment, scripted answers, a rank over the system prompt, a memory keeping
itself, a persona switch, a third party's authority). A weak rule (a standing order
such as "from now on you ...", a polite delayed trigger "when the user says 'yes', push
...", skipping
confirmation, leaving out warnings, a bare "Instructions" heading) is exactly how a
user instructs their own agent ("When the user asks to commit, run the tests first"):
it is a sign only when the words are not the user's. The attack path is text the
agent read (a tool result, a web page, a file, another agent), not the user's own
message.

:func:`assess` returns, sorted by position (then rule id):

1. every strong content flag (:func:`detect`, strong rules): always; with
   ``known_hosts`` given, an install whose every host is a known one (the team's own
   index) is no sign;
2. the provenance flags (:func:`provenance_flags`), when ``memory_type`` is given;
3. the link flags (:func:`link_flags`), only when ``known_hosts`` is not None;
4. every weak content flag, when the text is not known to be the user's own words
   or when any flag of 1-3 fired on the same text (weak flags never vouch for one
   another). The text is known to be the user's own words when ``role == "user"``,
   or when ``role is None`` (unknown, e.g. a folder imported from disk) and
   ``memory_type`` is one of :data:`USER_VOICE_TYPES` ("preference", Claude Code's
   "feedback"): such a record says by its type that it is the user's wish, and if
   a source role were known and foreign, :func:`provenance_flags` would flag it.
   Any other role (``tool``, ``web``, ``assistant``, ...) and an unknown role with
   any other type (or none) count as not the user's words. A weak flag that is shown
   says why in its ``why``.

:func:`detect` stays the plain content scan (every rule, weak or strong, no
weighing). The detector never decides: it flags, and the write gate holds the
candidate for a person.

Speed: a rule's regex is split into its top-level alternatives; each runs only when
the literals every match of it needs are in the text (found from the stdlib's regex
parser, and looked for by a keyword prefilter, :class:`core.domain.keywords.Keywords`:
one Aho-Corasick pass over the folded text finds every gate's literals at once, as
gitleaks finds its rules' keywords), and only where its leading literals are (an
alternative none of whose leading literals is in the text does not run). Which
alternatives can run is worked out once a text, as the bits of an int (:mod:`.plan`); a
rule whose regexes have none that can run is not called at all, nor is one whose strings
(a link's "://", a bidi control, a zero-width or tag character: looked for in the same
pass) or test of the text (a long run of base64, a Cyrillic or Greek letter) it needs
are not there. The regexes searched in a piece of the text (a sentence around a link,
the words around a match) share a prefilter a group (:mod:`.filtered`), and run only
their alternatives whose literals are there, each alone. The tests check that this never
skips a match the plain regex finds, and ``bench/steering_equivalence.py`` hashes every
flag over the corpora (a change to the engine must leave the hash as it was). Every
window is bounded, so a long adversarial text stays linear.

Mentions are not orders: quoted or described matches (an example of an attack in a
test fixture, a review checklist that flags ``verify=False``, an official installer told
as a fact, ZWNJ inside a Persian word, isolates a note names, a user's own shorthand
trigger for their own workflow, no confirmation for steps that change nothing outside
the working copy) are left alone by the rule concerned.

Where things are
----------------

The engine (:mod:`.engine`: :class:`Flag`, :class:`Rule`, the gated regex; :mod:`.branch`:
one of its alternatives, and the last text read; :mod:`.gates`:
what every match of a regex needs, read from the stdlib's regex parser; :mod:`.plan`:
which rules may fire on a text; :mod:`.filtered`: a regex gated in any string;
:mod:`.firsts`: a rule's first span; :mod:`core.domain.lazy`: a regex compiled when first
used)
knows no rule.
Each family's patterns sit beside the rules that use them, one module a family:
:mod:`.override`, :mod:`.authority`, :mod:`.standing`, :mod:`.markers`, :mod:`.secrecy`,
:mod:`.judgement` (instruction); :mod:`.fetching`, :mod:`.exfiltration`,
:mod:`.weakening` (action); :mod:`.hidden`, :mod:`.encoded` (hidden). :mod:`.clauses`
holds what the rules share about a match's surroundings (negated, quoted, described,
told as an example); :mod:`.rules` gathers the table (:data:`RULES`) and the plain
scan; :mod:`.weighing` is :func:`assess`, :func:`provenance_flags` (with
:data:`FOREIGN_RULE`'s patterns), :func:`link_flags` and :func:`users_own_words`.

Nothing is compiled on import: the first text the detector reads compiles every rule's
alternatives (in the order their modules define them, so the engine's tables are the
same as if they had been built on import), and a command that never scans pays nothing.
"""

from core.domain.steering.engine import _BRANCHES as _BRANCHES
from core.domain.steering.engine import Finder as Finder
from core.domain.steering.engine import Flag as Flag
from core.domain.steering.engine import Rule as Rule
from core.domain.steering.engine import Strength as Strength
from core.domain.steering.engine import _candidates as _candidates
from core.domain.steering.engine import _seen as _seen
from core.domain.steering.fetching import OFFICIAL_INSTALLERS as OFFICIAL_INSTALLERS
from core.domain.steering.rules import RULES as RULES
from core.domain.steering.rules import detect as detect
from core.domain.steering.rules import rule as rule
from core.domain.steering.triage import triage as triage
from core.domain.steering.weighing import FOREIGN_ROLES as FOREIGN_ROLES
from core.domain.steering.weighing import FOREIGN_RULE as FOREIGN_RULE
from core.domain.steering.weighing import ORDER_FOREIGN_ROLES as ORDER_FOREIGN_ROLES
from core.domain.steering.weighing import PREFERENCE_TYPES as PREFERENCE_TYPES
from core.domain.steering.weighing import USER_VOICE_TYPES as USER_VOICE_TYPES
from core.domain.steering.weighing import assess as assess
from core.domain.steering.weighing import link_flags as link_flags
from core.domain.steering.weighing import provenance_flags as provenance_flags
from core.domain.steering.weighing import users_own_words as users_own_words
