"""benchmarks/vendors/proxied.py: the failing IDs it compares come from the published matrix (the
run itself needs a started vendor: docs/proxy.md, "In front of a vendor")."""

from __future__ import annotations

import json

import pytest

from benchmarks.vendors import proxied


def test_failing_ids_of_a_matrix_target() -> None:
    index = json.loads(proxied.MATRIX.read_text())
    for name, entry in index["targets"].items():
        found = proxied.failing(index, name)
        outcomes = {c["outcome"] for cid, c in entry["checks"].items() if cid in found}
        assert outcomes <= {"fail", "xpass"}
        assert proxied._model(name)  # the suite command needs the matrix's model
    one = {"targets": {"t": {"checks": {"a": {"outcome": "fail"}, "b": {"outcome": "pass"},
                                        "c": {"outcome": "xpass"}, "d": {"outcome": "xfail"}}}}}  # fmt: skip
    assert proxied.failing(one) == {"a", "c"}


def test_unknown_target_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        proxied.main(["no-such-target", "--base-url", "http://127.0.0.1:9/v1"])
    assert stop.value.code == 2
