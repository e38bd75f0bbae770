"""The clients the harness runs and their flows: what each flow does, its request budget.

A flow's **budget** is the most requests it may make through the relay (a client that loops —
compacting on every turn, retrying for ever — is a failure, with the count as evidence); its
**deadline** is ``--timeout`` (default :data:`DEFAULT_DEADLINE` seconds) for the whole flow.
Budgets are generous over what each flow needs against a server that works (in brackets).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["CLIENTS", "DEFAULT_DEADLINE", "ClientSpec", "FlowSpec", "client_names"]

DEFAULT_DEADLINE = 180.0


@dataclass(frozen=True, slots=True)
class FlowSpec:
    name: str
    description: str
    budget: int


@dataclass(frozen=True, slots=True)
class ClientSpec:
    name: str
    title: str
    kind: Literal["codex", "node", "python"]
    packages: tuple[str, ...]  # node: package names; python: pins (NAME[EXTRAS]==VERSION)
    flows: tuple[FlowSpec, ...]
    node_dir: str | None = None  # under conformance/clients/node
    marker: str = ""  # a file that exists once the node packages are installed
    min_node: int = 20


CLIENTS: dict[str, ClientSpec] = {
    spec.name: spec
    for spec in (
        ClientSpec(
            "codex", "Codex CLI", "codex", ("@openai/codex",),
            (
                FlowSpec("greeting", "codex exec --json: one answer, no tool [1]", 4),
                FlowSpec("tool-loop", "a shell command run and its output sent back [2]", 8),
                FlowSpec("file-edit", "a command that writes a file in the workdir [2]", 8),
                FlowSpec("exec-resume", "codex exec, then exec resume --last recalls a fact [2]", 6),
                FlowSpec(
                    "compaction",
                    "auto-compaction (a limit above the first turn's input): the resumed turn "
                    "compacts once and still recalls the fact [3]",
                    10,
                ),
                FlowSpec(
                    "compaction-remote",
                    "the same with a provider named OpenAI: remote compaction v2 (a "
                    "compaction_trigger item, one compaction output item) [3]",
                    10,
                ),
            ),
            node_dir="codex", marker="node_modules/@openai/codex/bin/codex.js", min_node=18,
        ),
        ClientSpec(
            "agents-sdk", "OpenAI Agents SDK", "python",
            ("openai-agents==0.24.0", "openai[realtime]==3.63.0"),
            (
                FlowSpec("runner-tools", "Runner.run_sync with a function tool [2]", 8),
                FlowSpec("streamed", "Runner.run_streamed with a function tool [2]", 8),
                FlowSpec(
                    "conversation-session",
                    "OpenAIConversationsSession: two turns, the second recalls the first [~8]",
                    24,
                ),
            ),
        ),
        ClientSpec(
            "vercel-ai", "Vercel AI SDK", "node", ("ai", "@ai-sdk/openai"),
            (
                FlowSpec(
                    "generate-text",
                    "generateText with a tool, stepCountIs(4), the provider options of the "
                    "captured reasoning flow [2]",
                    8,
                ),
                FlowSpec("stream-text", "streamText with a tool, stepCountIs(4) [2]", 8),
                FlowSpec(
                    "two-turns",
                    "generateText with a tool (store: true), then a second turn on its "
                    "messages: the stored output sent as item_reference items [3]",
                    10,
                ),
            ),
            node_dir="js", marker="node_modules/ai/package.json",
        ),
        ClientSpec(
            "openai-python", "openai (Python)", "python",
            ("openai[realtime]==3.63.0",),  # [realtime]: the websockets responses.connect() needs
            (
                FlowSpec(
                    "stream",
                    "responses.stream, get_final_response, then a stream chained on it at once "
                    "(previous_response_id) [2]",
                    6,
                ),
                FlowSpec(
                    "tools",
                    "a function call, its output sent back (store: false), with the "
                    "parameters of the captured function-tools flow [2]",
                    6,
                ),
                FlowSpec("parse", "responses.parse into a pydantic model [1]", 4),
                FlowSpec("connect", "responses.connect(): one response over WebSocket [1]", 4),
            ),
        ),
        ClientSpec(
            "openai-node", "openai (Node)", "node", ("openai",),
            (
                FlowSpec(
                    "stream",
                    "responses.stream, finalResponse, then a stream chained on it at once "
                    "(previous_response_id) [2]",
                    6,
                ),
                FlowSpec(
                    "tools",
                    "a function call, its output sent back (store: false), with the "
                    "parameters of the captured function-tools flow [2]",
                    6,
                ),
                FlowSpec("parse", "responses.parse with zodTextFormat [1]", 4),
                FlowSpec("websocket", "ResponsesWS: one response over WebSocket [1]", 4),
            ),
            node_dir="js", marker="node_modules/openai/package.json",
        ),
    )
}  # fmt: skip


def client_names() -> list[str]:
    return list(CLIENTS)
