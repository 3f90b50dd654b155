"""The write gate alone (SPEC section 5): pure, no store, no I/O.

score = min(s1, s2, s3, s4) >= theta; derivable content is excluded before
scoring; every refusal names its criterion. Fake credentials are built at run
time from a prefix and a seeded random body, never written here in full.
"""

from __future__ import annotations

import json
import string
from typing import Any

import pytest
from conftest import ALNUM, fake_token

from core.domain import gate

THETA = 0.6


def evaluate(
    content: str = "The team deploys with pnpm, never npm.", **overrides: Any
) -> gate.GateResult:
    args: dict[str, Any] = {
        "content": content,
        "evidence": "we deploy with pnpm",
        "s1": 0.9,
        "s2": 0.9,
        "source_resolves": True,
        "theta": THETA,
    }
    args.update(overrides)
    return gate.evaluate(**args)


# ------------------------------------------------------------------ the score
def test_a_clean_candidate_passes_with_every_criterion_named() -> None:
    result = evaluate()
    assert result.passed
    assert [c.name for c in result.criteria] == ["s1", "s2", "s3", "s4"]
    assert all(c.passed for c in result.criteria)
    assert result.reasons() == []


def test_score_is_the_minimum_not_an_average() -> None:
    result = evaluate(s1=0.99, s2=0.61)
    assert result.score == pytest.approx(0.61)
    assert result.passed
    # a mean of 0.79 would pass; the minimum (0.59) does not: criteria never compensate
    low = evaluate(s1=0.99, s2=0.59)
    assert low.score == pytest.approx(0.59)
    assert not low.passed
    assert [r.split(" ")[0] for r in low.reasons()] == ["s2"]


def test_theta_is_inclusive() -> None:
    assert evaluate(s1=THETA, s2=THETA).passed
    assert not evaluate(s1=THETA - 0.001, s2=THETA).passed


def test_theta_comes_from_the_caller() -> None:
    assert evaluate(s1=0.7, s2=0.7, theta=0.6).passed
    assert not evaluate(s1=0.7, s2=0.7, theta=0.8).passed


@pytest.mark.parametrize("missing", ["s1", "s2"])
def test_without_s1_or_s2_the_gate_refuses_saying_so(missing: str) -> None:
    unknown: dict[str, Any] = {missing: None}
    result = evaluate(**unknown)
    assert not result.passed
    assert result.score == 0.0
    criterion = next(c for c in result.criteria if c.name == missing)
    assert criterion.score is None and not criterion.passed
    (reason,) = result.reasons()
    assert reason.startswith(f"{missing} (")
    assert f"no {missing} given" in reason


def test_s3_is_zero_when_the_source_does_not_resolve() -> None:
    result = evaluate(source_resolves=False)
    assert not result.passed
    s3 = next(c for c in result.criteria if c.name == "s3")
    assert (s3.score, s3.passed) == (0.0, False)
    (reason,) = result.reasons()
    assert reason.startswith("s3 (has a source)")


# ------------------------------------------------------------------ s4: secrets
TOKENS = {
    "github-pat": ("ghp_", 36, ALNUM),
    "aws-access-token": ("AKIA", 16, string.ascii_uppercase + "234567"),
    "gitlab-pat": ("glpat-", 20, ALNUM),
    "stripe-access-token": ("sk_live_", 32, ALNUM),
}


@pytest.mark.parametrize("rule", sorted(TOKENS))
@pytest.mark.parametrize("where", ["content", "evidence", "also"])
def test_s4_is_zero_on_a_secret_and_names_the_rule_not_the_value(rule: str, where: str) -> None:
    token = fake_token(*TOKENS[rule])
    text = f"Deploy with this key {token} when asked."
    result = evaluate(also=("title", text)) if where == "also" else evaluate(**{where: text})
    assert not result.passed
    s4 = next(c for c in result.criteria if c.name == "s4")
    assert (s4.score, s4.passed) == (0.0, False)
    assert rule in result.secret_rules
    assert rule in s4.why
    shown = json.dumps(result.to_dict()) + repr(result) + " ".join(result.reasons())
    assert token not in shown
    assert token[:8] not in shown


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ("The staging database is at 10.0.3.7 on port 5432", "internal-ip-address"),
        # a sentence may end right after the address
        ("The staging database is at 10.0.3.7.", "internal-ip-address"),
        ("Printers live on 192.168.20.4, ask IT first", "internal-ip-address"),
        ("The proxy is 172.20.0.1", "internal-ip-address"),
        ("Metrics are on grafana.ops.internal for the team", "internal-hostname"),
        ("Use build01.corp for release builds", "internal-hostname"),
    ],
)
def test_s4_is_zero_on_an_internal_address_where_it_is_shared(text: str, pattern: str) -> None:
    """A team store's words leave the machine (and so does an unsaid ``shared``): refused;
    a private store's never do: the address is data of the user's project, written."""
    for result in (evaluate(content=text), evaluate(content=text, shared=True)):
        assert not result.passed
        assert pattern in result.secret_rules
        (s4,) = [c for c in result.criteria if c.name == "s4"]
        assert "never leaves the machine: a team store shares it" in s4.why
    kept = evaluate(content=text, shared=False)
    assert kept.passed, kept.reasons()
    assert kept.secret_rules == ()
    (s4,) = [c for c in kept.criteria if c.name == "s4"]
    assert s4.score == 1.0 and pattern in s4.why and "private store" in s4.why
    # in the evidence or another persisted text alike
    assert evaluate(evidence=text, shared=False).passed
    assert not evaluate(evidence=text, shared=True).passed
    assert evaluate(also=(text,), shared=False).passed
    assert not evaluate(also=(text,), shared=True).passed


def test_a_credential_fails_s4_in_a_private_store_too() -> None:
    token = fake_token("ghp_", 36, ALNUM, seed=11)
    for shared in (False, True):
        result = evaluate(
            content=f"The staging host 10.0.3.7 takes the token {token}", shared=shared
        )
        assert not result.passed
        assert "github-pat" in result.secret_rules
        assert ("internal-ip-address" in result.secret_rules) is shared
        assert token not in json.dumps(result.to_dict())


def test_internal_addresses_say_where_never_what() -> None:
    text = "one line\nthe cache is on 10.20.30.40 and grafana.ops.internal"
    found = gate.internal_addresses(text)
    assert [(f.rule_id, f.line, f.column) for f in found] == [
        ("internal-ip-address", 2, 17),
        ("internal-hostname", 2, 33),
    ]
    assert "10.20.30.40" not in repr(found) and "grafana" not in repr(found)
    assert gate.unshareable("nothing here") == []
    assert [f.rule_id for f in gate.unshareable(text)] == [
        "internal-ip-address",
        "internal-hostname",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Use Node 20.11.1 for the web app.",
        "The public resolver 8.8.8.8 is blocked in CI.",
        "Python 3.10.12 is the oldest version we support.",
        "Internal tools are listed in the handbook.",
        "The AWS example key AKIAIOSFODNN7EXAMPLE is only a placeholder.",
    ],
)
def test_s4_passes_text_that_only_looks_sensitive(text: str) -> None:
    result = evaluate(content=text)
    assert result.passed, result.reasons()


# ------------------------------------------------------------ exclusions
EXCLUDED = {
    "a bare file path": [
        "src/core/domain/gate.py",
        "./scripts/deploy.sh",
        "~/.config/memgov/",
        "C:\\Users\\me\\repo\\main.py",
    ],
    "a commit hash": ["3f9c2ab", "commit 3f9c2ab1d4e5f60718293a4b5c6d7e8f90a1b2c3"],
    "a stack trace": [
        'Traceback (most recent call last):\n  File "app.py", line 3, in <module>\n'
        "    main()\nValueError: boom",
        "java.lang.NullPointerException\n    at com.acme.App.run(App.java:12)\n"
        "    at com.acme.App.main(App.java:5)",
    ],
    "a command and its output": [
        "$ pnpm test\n  42 passed, 0 failed",
        ">>> import sys\n'3.11'",
        "PS C:\\repo> git status\nOn branch main",
    ],
    "in-progress task state": [
        "Currently editing gate.py to add the IP rule",
        "WIP: port the parser to the new lexer",
        "TODO: finish the migration before Friday",
        "I am now fixing the flaky login test",
        "正在修改登录模块",
    ],
}


@pytest.mark.parametrize(
    ("kind", "text"), [(kind, text) for kind, texts in EXCLUDED.items() for text in texts]
)
def test_derivable_content_is_refused_with_that_reason(kind: str, text: str) -> None:
    assert any(why.startswith(kind) for why in gate.exclusions(text)), gate.exclusions(text)
    result = evaluate(content=text, s1=1.0, s2=1.0)  # perfect scores do not let it in
    assert not result.passed
    assert any(r.startswith(f"excluded: {kind}") for r in result.reasons())


@pytest.mark.parametrize(
    "text",
    [
        # a sentence that mentions a path
        "The deploy config lives in infra/deploy.yaml; change it there, not in CI.",
        "Keep generated files out of src/ and under build/.",
        # preferences that mention git
        "Prefers git rebase over merge commits on feature branches.",
        "Never force-push to main with git; open a revert PR instead.",
        "Commit messages follow Conventional Commits (feat:, fix:).",
        # a Markdown heading is not a root shell prompt
        "# Deploy\nUse pnpm deploy, never npm run deploy.",
        # sentences that start like task state but state a convention or a fact
        "TODO comments must reference an issue number.",
        "Currently the team deploys on Fridays only.",
        "A stack trace alone is not a bug report: ask for the steps.",
        "deadbeef is the sentinel value the firmware uses.",
    ],
)
def test_near_misses_pass(text: str) -> None:
    assert gate.exclusions(text) == []
    assert evaluate(content=text).passed


def test_refusal_explains_every_failing_criterion_at_once() -> None:
    token = fake_token(*TOKENS["github-pat"])
    result = evaluate(content=f"ghp key {token}", s1=None, s2=0.2, source_resolves=False)
    named = [r.split(" ")[0] for r in result.reasons()]
    assert named == ["s1", "s2", "s3", "s4"]


def test_result_to_dict_is_json_with_each_criterion_and_its_meaning() -> None:
    data = json.loads(json.dumps(evaluate(s2=0.3).to_dict()))
    assert data["passed"] is False
    assert data["score"] == 0.3
    assert data["theta"] == THETA
    assert [c["criterion"] for c in data["criteria"]] == ["s1", "s2", "s3", "s4"]
    s2 = data["criteria"][1]
    assert s2["meaning"] == gate.CRITERIA["s2"]
    assert s2["passed"] is False
    assert "0.30 < theta 0.60" in s2["why"]
