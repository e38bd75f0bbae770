"""The matrix's pins and targets: exact versions, no banned release, slices that exist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from benchmarks.vendors.catalog import BANNED, LOCKS, SGLANG_MODELS, SLICES, TARGETS, VENDORS
from conformance.suite.targets import ALL_PROFILES


def _requirements(lock: str) -> list[tuple[str, list[str]]]:
    """A lock's requirements, ``(name==version, [its sha256 hashes])`` each: lines joined where
    they end in a backslash (pip's continuation), comments and blank lines left out."""
    text = re.sub(r"\\\n", " ", (LOCKS / lock).read_text())
    out = []
    for line in text.splitlines():
        line = line.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        pin, *options = line.split()
        hashes = [o.removeprefix("--hash=sha256:") for o in options if o.startswith("--hash=")]
        assert len(hashes) == len(options), f"{lock}: {line[:80]}"  # nothing but hashes
        out.append((pin, hashes))
    return out


def test_every_third_party_vendor_is_pinned_exactly_with_a_hash_and_a_lock() -> None:
    for vendor in VENDORS.values():
        assert re.fullmatch(r"\d+(\.\d+)+", vendor.version), vendor
        if vendor.lock:
            assert re.fullmatch(r"[0-9a-f]{64}", vendor.wheel_sha256), vendor
            requirements = _requirements(vendor.lock)
            # pip's hash-checking mode (venvs.py installs with --require-hashes): every
            # requirement pinned with == and at least one sha256 of its files
            for pin, hashes in requirements:
                assert re.fullmatch(r"[A-Za-z0-9._-]+==[^=\s]+", pin), (vendor.lock, pin)
                assert hashes and all(re.fullmatch(r"[0-9a-f]{64}", h) for h in hashes), pin
            # the vendor's own wheel is left out: it is installed from the checked file
            names = {pin.partition("==")[0].lower().replace("_", "-") for pin, _ in requirements}
            assert vendor.distribution not in names, vendor.lock


def test_no_banned_release_is_pinned_anywhere() -> None:
    assert ("litellm", "1.82.7") in BANNED and ("litellm", "1.82.8") in BANNED
    for vendor in VENDORS.values():
        assert (vendor.distribution, vendor.version) not in BANNED
        if vendor.lock:
            for pin, _ in _requirements(vendor.lock):
                name, _, version = pin.partition("==")
                assert (name.lower(), version) not in BANNED, pin


def test_targets_declare_known_profiles_and_the_ci_slice_has_sglang_and_a_bridge() -> None:
    for target in TARGETS.values():
        assert target.vendor in VENDORS
        assert set(target.profiles) <= set(ALL_PROFILES) and "core" in target.profiles
        assert target.claim
    ci = [TARGETS[name] for name in SLICES["ci"]]
    assert any(t.kind == "sglang" for t in ci)
    assert any(t.kind in ("litellm", "open-responses-server") for t in ci)
    assert set(SLICES["full"]) == set(TARGETS)


def test_the_mock_claims_every_profile_the_embedded_run_serves() -> None:
    from conformance.suite.targets import EMBEDDED_PROFILES

    assert set(TARGETS["mock"].profiles) == set(EMBEDDED_PROFILES)
    assert "websocket:steering" in TARGETS["mock"].profiles  # it steers (docs/websocket.md)


def test_the_reference_targets_declare_what_tox_e_sglang_judges_them_on() -> None:
    """The matrix's reference-* and tests/sglang's PROFILES are the same claims (one judged by
    the harness, one by CI), so neither can drift from the other."""
    import importlib.util
    import sys

    path = Path(__file__).resolve().parents[1] / "sglang" / "sglang_support.py"
    spec = importlib.util.spec_from_file_location("sglang_support_profiles", path)
    assert spec is not None and spec.loader is not None
    support = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = support  # its dataclasses look their module up
    try:
        spec.loader.exec_module(support)
    finally:
        del sys.modules[spec.name]
    for kind, declared in support.PROFILES.items():
        target = TARGETS[f"reference-{kind.replace('_', '-')}"]
        assert target.profiles == declared, kind
        assert {"conversations", "compaction", "websocket"} <= set(declared)
        assert ("stateless-reasoning" in declared) == SGLANG_MODELS[kind].thinks
        # SGLang native keeps the profiles SGLang claims
        assert TARGETS[f"sglang-{kind.replace('_', '-')}"].profiles == support.NATIVE_PROFILES[kind]
    for name in ("conversations", "compaction", "websocket", "stateless-reasoning"):
        assert name in TARGETS["reference-plain"].claim


def test_the_suite_is_given_each_target_where_its_routes_are(tmp_path: Path) -> None:
    # The family's rule (docs/cli.md): an origin alone means /v1, so a target at the root
    # (open-responses-server) is named by its endpoint; the suite resolves it back to the root.
    from benchmarks.vendors.run import targets_toml
    from benchmarks.vendors.stack import Launched
    from conformance.suite.targets import load_targets

    for name in ("ors-plain", "sglang-plain"):
        spec = TARGETS[name]
        (tmp_path / "t.toml").write_text(
            targets_toml(spec, Launched("http://127.0.0.1:9" + spec.path, "m"))
        )
        (target,) = load_targets(tmp_path / "t.toml")
        assert target.base_url == "http://127.0.0.1:9" + spec.path, name


def test_serve_prints_the_url_the_suite_takes(capsys: pytest.CaptureFixture[str]) -> None:
    # `python -m benchmarks.vendors serve` prints `export BASE_URL=…` for pasting into
    # `responses-conformance run --base-url $BASE_URL`: for a server at the root that is its
    # endpoint, the same URL the harness's own targets file gives the suite.
    from benchmarks.vendors import serve as serve_mod
    from benchmarks.vendors.services import Service
    from benchmarks.vendors.stack import Launched

    for name, printed in (("ors-plain", "http://127.0.0.1:9/responses"),
                          ("sglang-plain", "http://127.0.0.1:9/v1")):  # fmt: skip
        spec = TARGETS[name]
        exited = Service.__new__(Service)
        exited.proc = None  # a server that is not running: _wait returns at once
        rc = serve_mod._wait(spec, Launched("http://127.0.0.1:9" + spec.path, "m"), [exited],
                             Path("/tmp"), lambda _: None)  # fmt: skip
        assert rc == 1
        assert f"export BASE_URL={printed} " in capsys.readouterr().out, name
