"""Every registered check is proven on its own.

For every ID of the registry: a failing example that fires it — and no other MUST or SHOULD check
it does not list in ``also`` (and every ID it lists does fire) — and a passing near miss on which
the judge reports no MUST or SHOULD violation at all. The live (``live.*``) examples are run
against their misbehaving servers in ``tests/suite/test_live_examples.py``.

``NO_EXAMPLE_YET`` is the explicit list of IDs still without examples: it may only shrink (an ID
listed here that has examples fails the test, so the list cannot go stale).
"""

from __future__ import annotations

import pytest

import conformance.cli  # noqa: F401  (the full registry, live checks included)
from conformance.catalog.docs import anchor_text
from conformance.catalog.registry import REGISTRY, refinements
from conformance.examples import EXAMPLES, Example, failing_ids, judge, render

NO_EXAMPLE_YET: frozenset[str] = frozenset()

OFFLINE = sorted(cid for cid, ex in EXAMPLES.items() if ex.failing.kind != "live")


def reported(ids: set[str]) -> set[str]:
    """The IDs as a user sees them: a refinement reported is its published parent reported."""
    return ids | {p for i in ids if (p := REGISTRY[i].parent) is not None}


def test_every_check_has_both_examples() -> None:
    missing = sorted(set(REGISTRY) - set(EXAMPLES) - NO_EXAMPLE_YET)
    assert missing == [], f"checks without a failing and a passing example: {missing}"
    stale = sorted(NO_EXAMPLE_YET & set(EXAMPLES))
    assert stale == [], f"remove from NO_EXAMPLE_YET, they have examples now: {stale}"
    assert sorted(NO_EXAMPLE_YET - set(REGISTRY)) == []
    assert sorted(set(EXAMPLES) - set(REGISTRY)) == [], "examples of unregistered IDs"
    print(f"\n{len(EXAMPLES)} of {len(REGISTRY)} checks have both examples "
          f"({len(OFFLINE)} offline); {len(NO_EXAMPLE_YET)} listed without")  # fmt: skip


def test_every_offline_check_has_an_example() -> None:
    """The offline judge's checks have no allow-list: every one is proven."""
    offline = {cid for cid in REGISTRY if not cid.startswith("live.")}
    assert sorted(offline - set(OFFLINE)) == []


@pytest.mark.parametrize("check_id", OFFLINE)
def test_failing_example_fires_its_check_alone(check_id: str) -> None:
    ex: Example = EXAMPLES[check_id]
    fired = judge(ex.failing)
    ids = reported({v.check_id for v in fired})
    assert check_id in ids, [v.format() for v in fired]
    # a parent's example fires one of its refinements: that one is the point, not an extra
    unlisted = failing_ids(fired) - {check_id} - set(refinements(check_id)) - ex.also
    assert unlisted == set(), f"also fires {sorted(unlisted)}: list them in `also` or sharpen"
    assert ex.also <= ids, f"`also` names checks that do not fire: {sorted(ex.also - ids)}"
    assert ex.also <= set(REGISTRY)


@pytest.mark.parametrize("check_id", OFFLINE)
def test_passing_example_is_clean(check_id: str) -> None:
    ex = EXAMPLES[check_id]
    fired = judge(ex.passing)
    assert check_id not in reported({v.check_id for v in fired}), [v.format() for v in fired]
    assert failing_ids(fired) == set(), [v.format() for v in fired]


@pytest.mark.parametrize("check_id", sorted(EXAMPLES))
def test_examples_render(check_id: str) -> None:
    ex = EXAMPLES[check_id]
    assert render(ex.failing).strip() and render(ex.passing).strip()


@pytest.mark.parametrize("check_id", sorted(REGISTRY))
def test_explain_every_check(check_id: str, capsys: pytest.CaptureFixture[str]) -> None:
    from conformance.cli import main

    assert main(["explain", check_id]) == 0
    out = capsys.readouterr().out
    check = REGISTRY[check_id]
    assert out.startswith(check_id + "\n")
    for text in (check.requirement, check.level.value, check.clause):
        assert text in out
    for link in check.anchors:  # the text of every clause it cites (the first lines of a long one)
        section = anchor_text(link)
        assert section is not None and f"\n{link}:\n    {section.splitlines()[0]}\n" in out
    if check_id in EXAMPLES:
        assert "failing example" in out and "passing near miss" in out


def test_explain_unknown_id(capsys: pytest.CaptureFixture[str]) -> None:
    from conformance.cli import main

    assert main(["explain", "stream.no.such_check"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and "stream.no.such_check" in captured.err
