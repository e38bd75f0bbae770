"""SGLangEngine: the :class:`~reference_impl.engine.Engine` protocol on SGLang (docs/sglang.md).

The protocol layer (assembler, store, app) is the one the mock uses; this module only turns a
:class:`GenerationRequest` into SGLang input and SGLang output into engine chunks:

* **prompt** — the model's own chat template (``tokenizer.apply_chat_template``) with the
  request's function tools passed to it; ``tool_choice: "none"`` shows the model no tools, a named
  choice (or ``allowed_tools``) only those tools. For ``required`` / named choices the tool-call
  grammar that SGLang's own ``FunctionCallParser.get_structure_constraint`` builds (a structural tag
  in the model's native call format) constrains decoding, as SGLang's chat endpoint does;
* **grammars** — a strict ``text.format`` ``json_schema`` goes to SGLang as its ``json_schema``
  sampling parameter; a ``tool_choice`` forcing a ``custom`` tool makes the whole output that
  tool's input, constrained by its grammar: a regex as SGLang's ``regex``, a Lark grammar as its
  ``ebnf`` prefixed ``%llguidance {}`` (so SGLang reads it as LLGuidance's Lark). That is OpenAI's
  dialect only on SGLang's ``llguidance`` grammar backend (``--grammar-backend llguidance``, the
  in-process default here; a remote server must be started with it): on another backend a
  grammar tool is refused (400) rather than served in another dialect (docs/custom-tools.md);
* **output** — SGLang's reasoning parser (``--reasoning-parser``) splits reasoning from the answer
  and its function-call parser (``--tool-call-parser``) extracts calls with streamed arguments:
  reused, not rewritten (:class:`~reference_impl.sglang.output.OutputParser`, sans-I/O);
* **usage** — from SGLang's ``meta_info``: ``prompt_tokens``, ``completion_tokens``,
  ``cached_tokens`` and ``reasoning_tokens`` (when SGLang counted none although reasoning text came
  out, the tokens generated while the parser was inside the reasoning are counted instead);
* **limits** — ``max_output_tokens`` is SGLang's ``max_new_tokens`` exactly (a ``length`` finish
  ends the response ``incomplete``); with ``parallel_tool_calls: false`` the first call is the last:
  a second one aborts generation;
* **cancel** — closing the chunk iterator (client disconnect, background cancel) aborts the SGLang
  request (:meth:`Backend.abort`), so the scheduler stops decoding it.

Two backends (:mod:`reference_impl.sglang.backends`): ``sglang.Engine`` in-process
(``async_generate`` streaming) and a running SGLang server's native ``/generate`` (so this front end
can sit before SGLang's router and many GPU workers). ``sglang`` and ``transformers`` are imported
lazily: everything else in ``reference_impl`` works without them (``pip install
responses-conformance[sglang]``).
"""

from __future__ import annotations

import copy
import json
import queue
import uuid
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

import anyio

from ..engine import (
    Chunk,
    CustomTool,
    EngineError,
    Final,
    FinishReason,
    FunctionTool,
    GenerationRequest,
    Message,
    ToolCallDelta,
)
from .output import OutputParser, sglang_tools
from .prompt_limits import (
    INPUT_RESERVE,
    check_has_input,
    classified,
    longest_token,
    output_room,
    refuse_before_tokenizing,
    template_error,
)

__all__ = ["Backend", "PromptBuilder", "SGLangConfig", "SGLangEngine"]

# Parsers that need the model's special tokens in the text (harmony markers like <|channel|>).
_NEEDS_SPECIAL_TOKENS = frozenset({"gpt-oss"})


@dataclass(frozen=True, slots=True)
class SGLangConfig:
    """What the engine needs besides a backend (SGLang's own option names)."""

    model_path: str  # where the tokenizer and chat template come from
    served_model_name: str | None = None
    tokenizer_path: str | None = None
    reasoning_parser: str | None = None
    tool_call_parser: str | None = None
    context_length: int | None = None
    chat_template_kwargs: Mapping[str, Any] = field(default_factory=dict)
    constrain_tool_choice: bool = True  # grammar-constrain required / named tool choices
    # SGLang's --grammar-backend; custom tools' grammars need "llguidance" (OpenAI's dialect)
    grammar_backend: str | None = None

    @property
    def model_name(self) -> str:
        return self.served_model_name or self.model_path


class Backend(Protocol):
    """Where token ids go to be decoded: ``sglang.Engine`` or a server's ``/generate``."""

    def stream(
        self,
        input_ids: list[int],
        sampling_params: dict[str, Any],
        rid: str,
        require_reasoning: bool = False,
    ) -> AsyncIterator[dict[str, Any]]:
        """SGLang's output dicts for the request; each ``text`` is the *new* text only.
        ``require_reasoning`` makes SGLang count reasoning tokens (``meta_info``)."""
        ...

    async def abort(self, rid: str) -> None:
        """Stop decoding ``rid`` on the SGLang side."""
        ...

    async def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class Prompt:
    input_ids: list[int]
    tools: list[dict[str, Any]]  # the chat tools the model was shown
    sampling_params: dict[str, Any]
    custom: CustomTool | None = None  # the custom tool whose input the whole output is


class PromptBuilder:
    """Request → token ids and SGLang sampling parameters (sans-I/O apart from loading the
    tokenizer once)."""

    def __init__(self, config: SGLangConfig, tokenizer: Any | None = None) -> None:
        self.config = config
        if tokenizer is None:
            from transformers import AutoTokenizer

            tokenizer = AutoTokenizer.from_pretrained(config.tokenizer_path or config.model_path)
        self.tokenizer = tokenizer
        self.context_length = config.context_length or _context_length(config.model_path)
        self.longest_token = longest_token(tokenizer)  # shared by the copies: one vocabulary

    def visible_tools(self, request: GenerationRequest) -> list[FunctionTool]:
        choice = request.tool_choice
        if choice == "none":
            return []
        tools = list(request.tools)
        if isinstance(choice, Mapping):
            if choice.get("type") == "function":
                return [t for t in tools if t.name == choice.get("name")]
            if choice.get("type") == "allowed_tools":
                allowed = {
                    t.get("name") for t in choice.get("tools") or () if isinstance(t, Mapping)
                }
                return [t for t in tools if t.name in allowed]
        return tools

    @staticmethod
    def forced_custom(request: GenerationRequest) -> CustomTool | None:
        """The custom tool ``tool_choice: {type: custom, name}`` forces, if any."""
        choice = request.tool_choice
        if isinstance(choice, Mapping) and choice.get("type") == "custom":
            for tool in request.custom_tools:
                if tool.name == choice.get("name"):
                    return tool
        return None

    def render(self, request: GenerationRequest) -> tuple[str, list[dict[str, Any]]]:
        custom = self.forced_custom(request)
        if custom is not None:  # the model is shown the one tool it must call
            tools = [_custom_chat_tool(custom)]
        else:
            tools = [_chat_tool(t) for t in self.visible_tools(request)]
        kwargs = dict(self.config.chat_template_kwargs)
        if request.reasoning_effort is not None:
            kwargs.setdefault("reasoning_effort", request.reasoning_effort)
        check_has_input(request.messages)
        messages = [_chat_message(m) for m in request.messages]
        try:
            text = self.tokenizer.apply_chat_template(
                messages, tools=tools or None, add_generation_prompt=True, tokenize=False, **kwargs
            )
        except Exception as error:  # the template refuses these turns (prompt_limits.py)
            raise template_error(error) from error
        return str(text), tools

    def input_ids(
        self, request: GenerationRequest, *, bounded: bool = False
    ) -> tuple[list[int], list[dict[str, Any]]]:
        """The prompt's token ids and the tools shown; ``bounded``: refused as
        ``context_length_exceeded`` when certainly too long, before tokenizing it whole
        (prompt_limits.py)."""
        text, tools = self.render(request)
        if bounded:
            refuse_before_tokenizing(
                text, self.context_length - INPUT_RESERVE, self.longest_token, self._encode
            )
        return list(self._encode(text)), tools

    def _encode(self, text: str) -> Any:
        return self.tokenizer.encode(text, add_special_tokens=False)

    def build(self, request: GenerationRequest) -> Prompt:
        ids, tools = self.input_ids(request, bounded=True)
        room = output_room(self.context_length, len(ids))
        limit = request.max_output_tokens
        params: dict[str, Any] = {
            # SPEC §3: max_output_tokens counts every output token, reasoning included.
            "max_new_tokens": min(limit, room) if limit is not None else room,
            "skip_special_tokens": not (
                {self.config.reasoning_parser, self.config.tool_call_parser} & _NEEDS_SPECIAL_TOKENS
            ),
        }
        if request.temperature is not None:
            params["temperature"] = request.temperature
        if request.top_p is not None:
            params["top_p"] = request.top_p
        fmt = request.text_format or {}
        custom = self.forced_custom(request)
        if custom is not None:
            params.update(self.grammar(custom))
            return Prompt(ids, [], params, custom)
        if fmt.get("type") == "json_schema" and isinstance(fmt.get("schema"), Mapping):
            params["json_schema"] = json.dumps(fmt["schema"])
        elif fmt.get("type") == "json_object":
            params["json_schema"] = '{"type": "object"}'
        elif tools and self.config.tool_call_parser and self.config.constrain_tool_choice:
            constraint = _tool_constraint(self.config.tool_call_parser, tools, request)
            if constraint is not None:
                params.update(constraint)
        return Prompt(ids, tools, params)

    def grammar(self, tool: CustomTool) -> dict[str, Any]:
        """A custom tool's grammar as SGLang sampling parameters for its llguidance backend
        (``llguidance_backend.py``: ``regex`` is compiled as a regex; ``ebnf`` is read with
        ``any_to_lark``, which keeps a text as Lark where a line starts ``%llguidance``)."""
        if tool.syntax is None or tool.definition is None:
            return {}  # free text
        if self.config.grammar_backend != "llguidance":
            raise EngineError(
                f"The custom tool {tool.name!r} has a {tool.syntax} grammar, which this server "
                "passes to SGLang's llguidance grammar backend (OpenAI's dialect); SGLang runs "
                f"{self.config.grammar_backend or 'its default backend'!r}: start SGLang with "
                "--grammar-backend llguidance.",
                code="invalid_request",
            )
        if tool.syntax == "regex":
            return {"regex": tool.definition}
        return {"ebnf": "%llguidance {}\n" + tool.definition}


async def _classified(
    stream: AsyncIterator[dict[str, Any]],
) -> AsyncIterator[dict[str, Any]]:
    """``stream`` with SGLang's refusals of a too-long request as ``context_length_exceeded``."""
    try:
        async for out in stream:
            yield out
    except EngineError as error:
        raise classified(error) from error


def _context_length(model_path: str) -> int:
    try:
        from transformers import AutoConfig

        config = AutoConfig.from_pretrained(model_path)
    except Exception:  # a remote path without a config: SGLang still enforces its own limit
        return 32768
    for key in ("max_position_embeddings", "n_positions", "max_sequence_length"):
        value = getattr(config, key, None)
        if isinstance(value, int) and value > 0:
            return value
    return 32768


def _chat_tool(tool: FunctionTool) -> dict[str, Any]:
    function: dict[str, Any] = {"name": tool.name}
    if tool.description is not None:
        function["description"] = tool.description
    function["parameters"] = dict(tool.parameters or {"type": "object", "properties": {}})
    if tool.strict is not None:
        function["strict"] = tool.strict
    return {"type": "function", "function": function}


def _custom_chat_tool(tool: CustomTool) -> dict[str, Any]:
    """A custom tool as chat templates know tools: a function of one string (as SGLang's own
    /v1/responses shows it). The model's output is the input itself, not a call in the model's
    format: the grammar (or nothing, for free text) constrains it from its first token."""
    function: dict[str, Any] = {"name": tool.name}
    if tool.description is not None:
        function["description"] = tool.description
    function["parameters"] = {
        "type": "object",
        "properties": {"input": {"type": "string"}},
        "required": ["input"],
    }
    return {"type": "function", "function": function}


def _chat_message(message: Message) -> dict[str, Any]:
    # Chat templates know system / user / assistant / tool; "developer" is a system turn to them.
    role = "system" if message.role == "developer" else message.role
    out: dict[str, Any] = {"role": role, "content": message.content}
    if message.tool_calls:
        out["tool_calls"] = [
            {
                "id": call.get("call_id"),
                "type": "function",
                "function": {"name": call.get("name"), "arguments": call.get("arguments", "")},
            }
            for call in message.tool_calls
        ]
    if message.tool_call_id is not None:
        out["tool_call_id"] = message.tool_call_id
    if message.reasoning:
        out["reasoning_content"] = message.reasoning
    return out


def _tool_constraint(
    parser_name: str, tools: list[dict[str, Any]], request: GenerationRequest
) -> dict[str, Any] | None:
    """SGLang's own grammar for a required / named tool choice, as sampling parameters; None when
    the choice is ``auto`` or the parser has no grammar in the model's native format."""
    choice = request.tool_choice
    if choice == "required" or (
        isinstance(choice, Mapping) and choice.get("type") == "allowed_tools"
    ):
        if isinstance(choice, Mapping) and choice.get("mode") != "required":
            return None
        sg_choice: Any = "required"
    elif isinstance(choice, Mapping) and choice.get("type") == "function":
        from sglang.srt.entrypoints.openai.protocol import ToolChoice

        sg_choice = ToolChoice(function={"name": str(choice.get("name"))})
    else:
        return None
    from sglang.srt.function_call.function_call_parser import FunctionCallParser

    parser = FunctionCallParser(sglang_tools(tools), parser_name, tool_choice=None)
    if not parser.owns_tool_format():
        return None
    constraint = parser.get_structure_constraint(
        sg_choice, parallel_tool_calls=request.parallel_tool_calls
    )
    if constraint is None:
        return None
    kind, value = constraint
    if kind == "structural_tag":
        return {"structural_tag": json.dumps(value.model_dump(by_alias=True))}
    if kind == "json_schema":
        return {"json_schema": json.dumps(value)}
    if kind == "ebnf" and isinstance(value, str):
        return {"ebnf": value}
    return None


PROMPT_THREADS = 4  # prompts rendered and tokenized at once; more wait their turn
T = TypeVar("T")


class SGLangEngine:
    """The Engine over a :class:`Backend` (in-process ``sglang.Engine`` or remote ``/generate``).

    The chat template and the tokenizer run in worker threads, at most ``prompt_threads`` at
    once, never on the event loop: one 7.9 MB input (under the 8 MiB body limit) took 8 s to
    render and tokenize there, and stopped every other request of the server meanwhile (issue
    #39). Each thread borrows a tokenizer of its own (copies made as needed, at most
    ``prompt_threads``): a Hugging Face fast tokenizer used by two threads at once raises
    ``RuntimeError: Already borrowed`` (huggingface/tokenizers#537, vllm-project/vllm#40949)."""

    def __init__(
        self,
        backend: Backend,
        config: SGLangConfig,
        *,
        tokenizer: Any | None = None,
        prompt_threads: int = PROMPT_THREADS,
    ) -> None:
        self.backend = backend
        self.config = config
        self.prompts = PromptBuilder(config, tokenizer)
        self._prompt_threads = anyio.CapacityLimiter(prompt_threads)
        self._spare: queue.SimpleQueue[PromptBuilder] = queue.SimpleQueue()
        self._spare.put(self.prompts)
        # Copies are made from one no thread encodes with (a tokenizer in use may not be copied);
        # a tokenizer that cannot be copied is shared, one thread at a time.
        self._pristine: Any | None
        try:
            self._pristine = copy.deepcopy(self.prompts.tokenizer)
        except Exception:
            self._pristine = None

    def _borrowed(
        self, method: Callable[[PromptBuilder, GenerationRequest], T]
    ) -> Callable[[GenerationRequest], T]:
        """``method`` run on a prompt builder no other thread is using (a worker thread's)."""

        def run(request: GenerationRequest) -> T:
            try:
                builder = self._spare.get(block=self._pristine is None)
            except queue.Empty:
                builder = copy.copy(self.prompts)
                builder.tokenizer = copy.deepcopy(self._pristine)
            try:
                return method(builder, request)
            finally:
                self._spare.put(builder)

        return run

    def model_ids(self) -> Sequence[str]:
        return [self.config.model_name]

    async def _in_prompt_thread(
        self, method: Callable[[PromptBuilder, GenerationRequest], T], request: GenerationRequest
    ) -> T:
        """``method`` on a prompt thread. Its refusal is raised again from here, without the
        thread's frames: crossing the thread, the error and the frames of its traceback form a
        cycle (anyio's frame holds the future that holds the error), which only the cyclic
        collector frees, and an idle server runs it rarely — each refused 4 MiB prompt kept its
        request and rendered text until then (issue #39)."""
        try:
            return await anyio.to_thread.run_sync(
                self._borrowed(method), request, limiter=self._prompt_threads
            )
        except EngineError as error:
            raise error.with_traceback(None) from None

    async def count_input_tokens(self, request: GenerationRequest) -> int:
        ids, _tools = await self._in_prompt_thread(PromptBuilder.input_ids, request)
        return len(ids)

    async def generate(self, request: GenerationRequest) -> AsyncIterator[Chunk]:
        prompt = await self._in_prompt_thread(PromptBuilder.build, request)
        parser = OutputParser(
            self.config.reasoning_parser,
            self.config.tool_call_parser if prompt.tools else None,
            prompt.tools,
            custom=prompt.custom,
        )
        rid = uuid.uuid4().hex
        finished = False
        meta: Mapping[str, Any] = {}
        counted_reasoning = 0
        completion = 0
        stopped_for_parallel = False
        try:
            stream = self.backend.stream(
                prompt.input_ids,
                prompt.sampling_params,
                rid,
                require_reasoning=self.config.reasoning_parser is not None,
            )
            async for out in _classified(stream):
                meta = out.get("meta_info") or meta
                if "error" in out:
                    raise classified(EngineError(str(out["error"]), code="server_error"))
                chunks = parser.feed(out.get("text") or "")
                now = int(meta.get("completion_tokens", completion))
                if parser.reasoning_active:
                    counted_reasoning += now - completion
                completion = now
                for chunk in chunks:
                    if (
                        isinstance(chunk, ToolCallDelta)
                        and not request.parallel_tool_calls
                        and chunk.index > 0
                    ):
                        stopped_for_parallel = True
                        break
                    yield chunk
                if stopped_for_parallel or meta.get("finish_reason") is not None:
                    break
            for chunk in parser.finish():
                if (
                    isinstance(chunk, ToolCallDelta)
                    and not request.parallel_tool_calls
                    and chunk.index > 0
                ):
                    continue
                yield chunk
            finished = True
        finally:
            if not finished or stopped_for_parallel:
                await self.backend.abort(rid)
        yield self._final(meta, parser, counted_reasoning, completion, stopped_for_parallel)

    def _final(
        self,
        meta: Mapping[str, Any],
        parser: OutputParser,
        counted_reasoning: int,
        completion: int,
        stopped_for_parallel: bool,
    ) -> Final:
        reason = meta.get("finish_reason")
        kind = reason.get("type") if isinstance(reason, Mapping) else reason
        if kind == "abort" and not stopped_for_parallel:
            message = reason.get("message") if isinstance(reason, Mapping) else None
            error = EngineError(str(message or "SGLang aborted the request."), code="server_error")
            raise classified(error)
        finish: FinishReason = "stop"
        if kind == "length" and not stopped_for_parallel:
            finish = "length"  # SPEC §4: incomplete, even in the middle of a call
        elif parser.calls:
            finish = "tool_calls"
        output = int(meta.get("completion_tokens", completion))
        reasoning = int(meta.get("reasoning_tokens") or 0) or counted_reasoning
        return Final(
            finish,
            input_tokens=int(meta.get("prompt_tokens", 0)),
            output_tokens=output,
            cached_tokens=int(meta.get("cached_tokens") or 0),
            reasoning_tokens=min(reasoning, output),
        )

    async def start(self) -> None:
        """Set the backend up in the serving loop, before the first request (the app's
        start-up calls this)."""
        start = getattr(self.backend, "start", None)
        if start is not None:
            await start()

    async def close(self) -> None:
        await self.backend.close()
