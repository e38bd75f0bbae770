"""The matrix's pins and targets: exact versions, no banned release, slices that exist."""

from __future__ import annotations

import re

from benchmarks.vendors.catalog import BANNED, LOCKS, SLICES, TARGETS, VENDORS
from conformance.suite.targets import ALL_PROFILES


def test_every_third_party_vendor_is_pinned_exactly_with_a_hash_and_a_lock() -> None:
    for vendor in VENDORS.values():
        assert re.fullmatch(r"\d+(\.\d+)+", vendor.version), vendor
        if vendor.lock:
            assert re.fullmatch(r"[0-9a-f]{64}", vendor.wheel_sha256), vendor
            lines = (LOCKS / vendor.lock).read_text().splitlines()
            pins = [line for line in lines if line and not line.startswith("#")]
            assert all("==" in line for line in pins), vendor.lock
            own = f"{vendor.distribution}=={vendor.version}"
            # a constraints file pins the vendor too; an exact lock leaves the checked wheel out
            assert (own in pins) == (vendor.install == "constraints"), vendor.lock


def test_no_banned_release_is_pinned_anywhere() -> None:
    assert ("litellm", "1.82.7") in BANNED and ("litellm", "1.82.8") in BANNED
    for vendor in VENDORS.values():
        assert (vendor.distribution, vendor.version) not in BANNED
        if vendor.lock:
            for line in (LOCKS / vendor.lock).read_text().splitlines():
                name, _, version = line.partition("==")
                assert (name.strip().lower(), version.strip()) not in BANNED, line


def test_targets_declare_known_profiles_and_the_ci_slice_has_sglang_and_a_bridge() -> None:
    for target in TARGETS.values():
        assert target.vendor in VENDORS
        assert set(target.profiles) <= set(ALL_PROFILES) and "core" in target.profiles
        assert target.claim
    ci = [TARGETS[name] for name in SLICES["ci"]]
    assert any(t.kind == "sglang" for t in ci)
    assert any(t.kind in ("litellm", "open-responses-server") for t in ci)
    assert set(SLICES["full"]) == set(TARGETS)
