r"""The rule table: one :class:`Rule` per credential, each a port of a gitleaks rule.

``RULES`` is in priority order: where two rules claim overlapping text, the one
listed first wins (the most generic shape, JWT, is last). Each rule's regex is
compiled once, when first needed, with one byte-searcher per top-level alternative.

Deviations from gitleaks, all deliberate:

* gitleaks ends most tokens with ``(?:[\x60'"\s;]|\\[nr]|$)``, which consumes
  a character and refuses a token followed by ``.``, ``,``, ``)`` or a
  non-ASCII character: how a token ends in a sentence. Here the end is a
  lookahead, ``_END``, that also takes those (``.``, ``,``, ``:``, ``!``,
  ``?`` only if no token character follows, so ``NAME.attr`` stays unmatched).
* A leading ``\b`` is checked in code (``word_start``) rather than in the
  regex, so that ``re`` keeps the literal prefix and searches it fast.
* Stripe: live and prod keys only (``sk_test_`` keys are public in docs).
* Google: gitleaks' allowlist of sixteen public keys is not copied here
  (this file would then hold live-looking keys).
* Rule allowlist regexes must match the whole secret (gitleaks searches).
* Lines end at ``\n`` only (``\r\n`` counts once; a lone ``\r`` does not).
* One rule of memgov's own, ``url-password``: a password in a URL's user info.
"""

from __future__ import annotations

from core.domain.secrets.likely import LIKELY_RULES
from core.domain.secrets.rule import END as _END
from core.domain.secrets.rule import Rule
from core.domain.secrets.rule import make_rule as _rule
from core.domain.secrets.structure import STRUCTURE_RULES, not_anonymous
from core.domain.secrets.tables import TABLE_RULES
from core.domain.secrets.tokens import TOKEN_RULES

_GH = "[0-9a-zA-Z]{36}"

# fmt: off
_VENDOR: tuple[Rule, ...] = (
    # AWS: access key ids (AKIA long-term, ASIA STS, ABIA/ACCA, A3T legacy).
    _rule("aws-access-token", "AWS access key ID",
          r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b",
          ("a3t", "akia", "asia", "abia", "acca"),
          entropy=3, word_start=True, allow=(r".+EXAMPLE",)),
    # GitHub: classic PAT, OAuth, app (user-to-server, server-to-server), refresh,
    # fine-grained PAT.
    _rule("github-pat", "GitHub personal access token", "ghp_" + _GH, ("ghp_",), entropy=3),
    _rule("github-oauth", "GitHub OAuth access token", "gho_" + _GH, ("gho_",), entropy=3),
    _rule("github-app-token", "GitHub app token", "(?:ghu|ghs)_" + _GH, ("ghu_", "ghs_"),
          entropy=3),
    _rule("github-refresh-token", "GitHub refresh token", "ghr_" + _GH, ("ghr_",), entropy=3),
    _rule("github-fine-grained-pat", "GitHub fine-grained personal access token",
          r"github_pat_\w{82}", ("github_pat_",), entropy=3),
    # GitLab: routable PAT first (longer, more specific), then the classic forms.
    _rule("gitlab-pat-routable", "GitLab personal access token (routable)",
          r"\bglpat-[0-9a-zA-Z_-]{27,300}\.[0-9a-z]{2}[0-9a-z]{7}\b", ("glpat-",), entropy=4),
    _rule("gitlab-pat", "GitLab personal access token", r"glpat-[\w-]{20}", ("glpat-",),
          entropy=3),
    _rule("gitlab-ptt", "GitLab pipeline trigger token", r"glptt-[0-9a-f]{40}", ("glptt-",),
          entropy=3),
    _rule("gitlab-runner-authentication-token", "GitLab runner authentication token",
          r"glrt-[0-9a-zA-Z_\-]{20}", ("glrt-",), entropy=3),
    # Slack: bot (current and legacy), user, app-level tokens and incoming webhooks.
    _rule("slack-bot-token", "Slack bot token",
          r"xoxb-[0-9]{10,13}-[0-9]{10,13}[a-zA-Z0-9-]*", ("xoxb",), entropy=3),
    _rule("slack-legacy-bot-token", "Slack legacy bot token",
          r"xoxb-[0-9]{8,14}-[a-zA-Z0-9]{18,26}", ("xoxb",), entropy=2),
    _rule("slack-user-token", "Slack user token",
          r"xox[pe](?:-[0-9]{10,13}){3}-[a-zA-Z0-9-]{28,34}", ("xoxp-", "xoxe-"), entropy=2),
    _rule("slack-app-token", "Slack app-level token",
          r"xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+", ("xapp",), entropy=2, ignore_case=True),
    _rule("slack-webhook-url", "Slack webhook URL",
          r"(?:https?://)?hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{43,56}",
          ("hooks.slack.com",)),
    # Stripe: live (and prod) secret and restricted keys.
    _rule("stripe-access-token", "Stripe live secret or restricted key",
          r"(?:sk|rk)_(?:live|prod)_[a-zA-Z0-9]{10,99}" + _END,
          ("sk_live", "sk_prod", "rk_live", "rk_prod"), entropy=2, word_start=True),
    # Google: API keys.
    _rule("gcp-api-key", "Google API key", r"AIza[\w-]{35}" + _END, ("aiza",),
          entropy=4, word_start=True),
    # OpenAI: project, service-account, admin and legacy keys, all holding "T3BlbkFJ".
    _rule("openai-api-key", "OpenAI API key",
          r"(?:sk-(?:proj|svcacct|admin)-(?:[A-Za-z0-9_-]{74}|[A-Za-z0-9_-]{58})T3BlbkFJ"
          r"(?:[A-Za-z0-9_-]{74}|[A-Za-z0-9_-]{58})\b|sk-[a-zA-Z0-9]{20}T3BlbkFJ[a-zA-Z0-9]{20})"
          + _END, ("t3blbkfj",), entropy=3, word_start=True),
    # Anthropic: API and admin keys.
    _rule("anthropic-api-key", "Anthropic API key",
          r"sk-ant-api03-[a-zA-Z0-9_\-]{93}AA" + _END, ("sk-ant-api03",),
          word_start=True),
    _rule("anthropic-admin-api-key", "Anthropic admin API key",
          r"sk-ant-admin01-[a-zA-Z0-9_\-]{93}AA" + _END, ("sk-ant-admin01",),
          word_start=True),
    # Hugging Face: user and organization tokens.
    _rule("huggingface-access-token", "Hugging Face access token",
          r"hf_[a-zA-Z]{34}" + _END, ("hf_",), entropy=2, word_start=True),
    _rule("huggingface-organization-api-token", "Hugging Face organization API token",
          r"api_org_[a-zA-Z]{34}" + _END, ("api_org_",), entropy=2,
          word_start=True),
    # npm and PyPI: registry publish tokens.
    _rule("npm-access-token", "npm access token", r"npm_[a-z0-9]{36}" + _END, ("npm_",),
          entropy=2, word_start=True, ignore_case=True),
    _rule("pypi-upload-token", "PyPI upload token", r"pypi-AgEIcHlwaS5vcmc[\w-]{50,1000}",
          ("pypi-ageichlwas5vcmc",), entropy=3),
    # PEM: any private key block (RSA, EC, DSA, OpenSSH, PKCS#8, encrypted, PGP).
    # (memgov: also a block cut short, ``...`` or the text's end in place of its END
    # line, its lines broken by ``\n`` escapes in JSON: 64 characters of its body)
    _rule("private-key", "Private key",
          r"-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----"
          r"(?:[\s\S]{64,}?KEY(?: BLOCK)?-----"
          r"|(?:\s|\\[rn])*(?:[A-Za-z-]{1,40}:[^\n\\]{0,200}(?:\s|\\[rn])+)*"
          r"(?:[A-Za-z0-9+/=]{16,}(?:\s|\\[rn])*){1,}(?<=[A-Za-z0-9+/=\s]))",
          ("-----begin",), ignore_case=True, multiline=True, entropy=3),
    # SendGrid: API keys.
    _rule("sendgrid-api-token", "SendGrid API token",
          r"SG\.[a-zA-Z0-9=_\-.]{66}" + _END, ("sg.",), entropy=2, word_start=True),
    # Shopify: admin API, custom app, private app tokens and shared secrets.
    _rule("shopify-access-token", "Shopify access token", r"shpat_[a-fA-F0-9]{32}",
          ("shpat_",), entropy=2),
    _rule("shopify-custom-access-token", "Shopify custom app access token",
          r"shpca_[a-fA-F0-9]{32}", ("shpca_",), entropy=2),
    _rule("shopify-private-app-access-token", "Shopify private app access token",
          r"shppa_[a-fA-F0-9]{32}", ("shppa_",), entropy=2),
    _rule("shopify-shared-secret", "Shopify shared secret", r"shpss_[a-fA-F0-9]{32}",
          ("shpss_",), entropy=2),
    # DigitalOcean: personal access and OAuth access tokens.
    _rule("digitalocean-pat", "DigitalOcean personal access token",
          r"dop_v1_[a-f0-9]{64}" + _END, ("dop_v1_",), entropy=3, word_start=True),
    _rule("digitalocean-access-token", "DigitalOcean OAuth access token",
          r"doo_v1_[a-f0-9]{64}" + _END, ("doo_v1_",), entropy=3, word_start=True),
    # age: X25519 secret keys (bech32).
    _rule("age-secret-key", "age secret key",
          r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}", ("age-secret-key-1",)),
    # Databricks: API tokens.
    _rule("databricks-api-token", "Databricks API token",
          r"dapi[a-f0-9]{32}(?:-\d)?" + _END, ("dapi",), entropy=3, word_start=True),
    # HashiCorp: Vault service and batch tokens, Terraform Cloud API tokens.
    _rule("vault-service-token", "HashiCorp Vault service token",
          (r"hvs\.[\w-]{90,120}" + _END, r"s\.[a-zA-Z0-9]{24}" + _END), ("hvs.", "s."),
          entropy=3.5, word_start=True, allow=(r"s\.[A-Za-z]{24}",)),
    _rule("vault-batch-token", "HashiCorp Vault batch token",
          r"hvb\.[\w-]{138,300}" + _END, ("hvb.",), entropy=4, word_start=True),
    _rule("hashicorp-tf-api-token", "HashiCorp Terraform Cloud API token",
          r"[a-zA-Z0-9]{14}\.atlasv1\.[a-zA-Z0-9\-_=]{60,70}", ("atlasv1",), entropy=3.5),
    # Grafana: legacy API keys, Cloud API tokens, service account tokens.
    _rule("grafana-api-key", "Grafana API key",
          r"eyJrIjoi[A-Za-z0-9]{70,400}={0,3}" + _END, ("eyjrijoi",),
          entropy=3, word_start=True, ignore_case=True),
    _rule("grafana-cloud-api-token", "Grafana Cloud API token",
          r"glc_[A-Za-z0-9+/]{32,400}={0,3}" + _END, ("glc_",),
          entropy=3, word_start=True, ignore_case=True),
    _rule("grafana-service-account-token", "Grafana service account token",
          r"glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}" + _END, ("glsa_",),
          entropy=3, word_start=True, ignore_case=True),
    # Linear, Doppler, Pulumi, Postman, Perplexity: prefixed API tokens.
    _rule("linear-api-key", "Linear API key", r"lin_api_[a-zA-Z0-9]{40}", ("lin_api_",),
          entropy=2),
    _rule("doppler-api-token", "Doppler API token", r"dp\.pt\.[a-zA-Z0-9]{43}", ("dp.pt.",),
          entropy=2),
    _rule("pulumi-api-token", "Pulumi API token", r"pul-[a-f0-9]{40}" + _END, ("pul-",),
          entropy=2, word_start=True),
    _rule("postman-api-token", "Postman API token",
          r"PMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}" + _END, ("pmak-",),
          entropy=3, word_start=True),
    _rule("perplexity-api-key", "Perplexity API key", r"pplx-[a-zA-Z0-9]{48}\b",
          ("pplx-",), entropy=4, word_start=True),
    _rule("backblaze-application-key", "Backblaze B2 application key",
          r"K00[0-9][A-Za-z0-9]{27}" + _END, ("k00",), entropy=3, word_start=True),
    _rule("rubygems-api-token", "RubyGems API token", r"rubygems_[a-f0-9]{48}" + _END,
          ("rubygems_",), entropy=3, word_start=True),
    # Tailscale auth and API keys; Mercado Pago's production access tokens.
    _rule("tailscale-key", "Tailscale auth or API key",
          r"tskey-(?:auth|api|client|scim|webhook)-[A-Za-z0-9]{6,20}-[A-Za-z0-9]{20,64}" + _END,
          ("tskey-",), entropy=3, word_start=True),
    _rule("mercadopago-access-token", "Mercado Pago access token",
          r"APP_USR-\d{10,20}-\d{6}-[a-f0-9]{32}-\d{6,12}" + _END, ("app_usr-",), entropy=3,
          word_start=True),
    # New Relic: user (NRAK) and insert (NRII) keys.
    _rule("new-relic-user-key", "New Relic user API key", r"NRAK-[A-Z0-9]{27}" + _END,
          ("nrak-",), entropy=3, word_start=True),
    _rule("new-relic-insert-key", "New Relic insert key", r"NRII-[A-Za-z0-9_-]{32}" + _END,
          ("nrii-",), entropy=3, word_start=True),
    # ``sk-`` and 32 to 64 letters and digits: OpenAI's legacy keys and the many APIs
    # that copy its form (DeepSeek, Moonshot, DashScope, ...); after OpenAI's own forms.
    _rule("openai-style-api-key", "API key in OpenAI's form (sk-...)",
          r"sk-[A-Za-z0-9]{32,64}" + _END, ("sk-",), entropy=3, word_start=True),
    # JWT: three base64url parts, the first two JSON objects ("ey..."). Last: the
    # most generic shape, so a more specific rule on the same span wins.
    _rule("jwt", "JSON Web Token",
          r"ey[a-zA-Z0-9]{17,}\.ey[a-zA-Z0-9/\\_-]{17,}\.(?:[a-zA-Z0-9/\\_-]{10,}={0,2})?"
          + _END, ("ey",), entropy=3, word_start=True, check=not_anonymous,
          # jwt.io's sample token (sub 1234567890, "John Doe"), in every JWT tutorial
          allow=(r"ey[\w-]*\.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ"
                 r"\..*",)),
)
# fmt: on

#: every rule, in priority order: the vendor tokens, structure, then the likely tier
RULES: tuple[Rule, ...] = _VENDOR + STRUCTURE_RULES + LIKELY_RULES + TOKEN_RULES + TABLE_RULES

__all__ = ["RULES", "Rule"]
