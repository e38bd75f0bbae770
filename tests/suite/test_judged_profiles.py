"""A case that provokes a feature outside Open Responses is judged without `openresponses`."""

from conformance.suite.probe import judged_profiles

DECLARED = ("core", "tools", "openresponses", "custom-tools", "hosted:web_search")


def test_openresponses_kept_for_cases_it_defines() -> None:
    assert "openresponses" in judged_profiles(DECLARED, ("core",))
    assert "openresponses" in judged_profiles(DECLARED, ("tools",))


def test_openresponses_dropped_for_custom_and_hosted_cases() -> None:
    for case in (("custom-tools",), ("hosted:web_search",), ("tools", "hosted:mcp")):
        judged = judged_profiles(DECLARED, case)
        assert "openresponses" not in judged
        assert judged == frozenset(DECLARED) - {"openresponses"}


def test_nothing_added_when_not_declared() -> None:
    assert judged_profiles(("core",), ("hosted:mcp",)) == frozenset({"core"})
