"""Tiny *scripted* models: real Qwen2 checkpoints whose greedy output is fixed text, built offline.

Why: the SGLang CPU tests need a model that SGLang serves for real (its scheduler, sampler,
detokenizer, parsers) and whose output is exact, so tests and the conformance suite can rely on it —
with no download (../shared/notes/sglang-on-cpu.md). Three models are built at test time:

* ``plain`` — ChatML; thinks Qwen3-style (``<think>…</think>``) and answers; served with
  ``--reasoning-parser qwen3``.
* ``tools`` — ChatML with tools; calls them Qwen2.5-style (``<tool_call>{…}</tool_call>``, two
  parallel calls to ``get_weather``, one to ``get_time`` when it is the first tool declared), answers
  after a tool result; served with ``--tool-call-parser qwen25``.
* ``gpt_oss`` — labelled ``model_type: gpt_oss`` (so SGLang takes its harmony path) with the
  o200k_harmony tokenizer; answers on the ``analysis`` then the ``final`` channel.

**How the output is scripted.** The chat template ends the prompt with a *trigger* token that says
which script to play (the plain answer, a tool call, an endless story when the prompt asks for a
story, the answer after a tool result). The network is one Qwen2 decoder layer:

* embeddings are one-hot codes of the tokens the scripts use (every other token shares a zero code)
  plus a constant dimension, tied to the LM head;
* attention copies the *previous* token's code into a second block of dimensions: queries and keys
  are constant (biases only), and RoPE (theta 10, twelve frequencies, phases offset by one step) makes
  the score peak at distance exactly one — the margin holds over 8k positions;
* the MLP holds one unit per transition: ``current → next`` where a token's successor is unique,
  ``(previous, current) → next`` where it is not (a SiLU unit that fires only when both codes are
  present). A default unit votes for EOS, so an unknown context ends the turn.

So each output token depends on the last two tokens. A script may repeat a token as long as no pair
repeats with a different successor; where a phrase repeats (``<tool_call>`` twice, harmony's
``<|channel|>`` twice), the script spells the neighbouring text differently (segments are tokenized
one by one, so ``ass`` + ``istant`` decodes to "assistant" with other ids). :func:`build` checks the
greedy output with transformers before it returns.

Command line (used by ``benchmarks/perf/sglang_side_by_side.py --cpu``)::

    python tests/sglang/scripted_models.py --out DIR [plain tools gpt_oss]
"""

from __future__ import annotations

import argparse
import json
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "KINDS",
    "ModelSpec",
    "Script",
    "build",
    "expected_text",
]

KINDS = ("plain", "tools", "gpt_oss")

HEAD_DIM = 64
ROPE_THETA = 10.0
ROPE_FREQUENCIES = 12  # the highest ones; chosen for the best margin at distance 1 up to 8k
QK_AMPLITUDE = 12.0
CONTEXT_LENGTH = 4096


@dataclass(frozen=True, slots=True)
class Script:
    """What the model says after ``trigger``: ``segments`` (tokenized one by one) then EOS; with
    ``loop_from`` it goes back to that segment instead and never stops (until ``max_tokens``)."""

    trigger: str
    segments: tuple[str, ...]
    loop_from: int | None = None  # segment index the script loops back to, instead of EOS


@dataclass(frozen=True, slots=True)
class ModelSpec:
    kind: str
    scripts: dict[str, Script]
    eos: str
    special_tokens: tuple[str, ...]  # special (skipped when decoding): EOS, chat markers, triggers
    added_tokens: tuple[str, ...] = ()  # not special: they must survive detokenization
    chat_template: str = ""
    extra_eos: tuple[str, ...] = ()
    config_extra: dict[str, Any] = field(default_factory=dict)


def _words(text: str) -> tuple[str, ...]:
    """Split into segments at spaces, keeping each space with the word after it."""
    parts = text.split(" ")
    return (
        (parts[0], *(" " + p for p in parts[1:])) if parts[0] else tuple(" " + p for p in parts[1:])
    )


# --- the scripts -------------------------------------------------------------------------------

PLAIN_REASONING = "The user asks a question. A short and friendly reply fits best here."
PLAIN_ANSWER = "Hello! The sky on a clear day is blue, because air scatters blue light most."
STORY = (
    "Once upon a time a lighthouse keeper found a bottle on the rocks, read its note by lamp "
    "light, and sailed"
)
TOOL_ANSWER = "It is 21 degrees and sunny in Paris right now."
# Tool calls in SGLang's qwen25 format (`structure_info`: `<tool_call>\n{"name":"NAME",
# "arguments":` … `}\n</tool_call>`), cut into pieces that are each one added token of the
# tokenizer, all different: so no token repeats and the two parallel calls cannot collide.
WEATHER_CALLS = (
    "<tool_call>\n",
    '{"name":"get_weather", "arguments":',
    '{"city": "Paris", "unit": "celsius"}',
    "}\n</tool_call>",
    '\n<tool_call>\n{"name":"get_weather",',
    ' "arguments":{"city": "Tokyo",',
    ' "unit": "celsius"}}',
    "\n</tool_call>",
)
TIME_CALL = (
    '<tool_call>\n{"name":"get_time", "arguments":',
    '{"timezone": "Europe/Paris"}}\n</tool_call>',
)


CHATML_SPECIAL = ("<|endoftext|>", "<|im_start|>", "<|im_end|>")
TRIGGERS = {
    "plain": "<|script_plain|>",
    "story": "<|script_story|>",
    "weather": "<|script_weather|>",
    "time": "<|script_time|>",
    "answer": "<|script_tool_answer|>",
}

# ChatML (Qwen2.5 / Qwen3 style) with the script trigger at the end of the generation prompt.
CHATML_TEMPLATE = r"""
{%- macro text(content) -%}
{%- if content is string -%}{{ content }}{%- elif content -%}{%- for part in content -%}{%- if part.text is defined -%}{{ part.text }}{%- endif -%}{%- endfor -%}{%- endif -%}
{%- endmacro -%}
{%- if tools -%}
<|im_start|>system
You may call one or more functions. Function signatures within <tools></tools>:
<tools>
{%- for tool in tools %}
{{ tool | tojson }}
{%- endfor %}
</tools>
For each call, return <tool_call>
{"name": <name>, "arguments": <args>}
</tool_call><|im_end|>
{% endif -%}
{%- for message in messages -%}
{%- if message.role == 'tool' -%}
<|im_start|>user
<tool_response>
{{ text(message.content) }}
</tool_response><|im_end|>
{% elif message.role == 'assistant' -%}
<|im_start|>assistant
{{ text(message.content) }}
{%- for call in message.tool_calls or [] %}
{%- set fn = call.function if call.function is defined else call %}
<tool_call>
{"name": "{{ fn.name }}", "arguments": {{ fn.arguments if fn.arguments is string else fn.arguments | tojson }}}
</tool_call>
{%- endfor %}<|im_end|>
{% else -%}
<|im_start|>{{ message.role }}
{{ text(message.content) }}<|im_end|>
{% endif -%}
{%- endfor -%}
{%- if add_generation_prompt -%}
{%- set last = messages[-1] if messages else none -%}
{%- set last_text = text(last.content) if last else '' -%}
<|im_start|>assistant
{% if last and last.role == 'tool' and TRIGGER_ANSWER -%}TRIGGER_ANSWER
{%- elif tools and TRIGGER_WEATHER -%}{% if (tools[0].function.name if tools[0].function is defined else tools[0].name) == 'get_time' %}TRIGGER_TIME{% else %}TRIGGER_WEATHER{% endif %}
{%- elif 'story' in last_text -%}TRIGGER_STORY
{%- else -%}TRIGGER_PLAIN
{%- endif -%}
{%- endif -%}
"""


def _chatml_template(triggers: dict[str, str]) -> str:
    template = CHATML_TEMPLATE.strip()
    for key in ("answer", "weather", "time", "story", "plain"):
        value = triggers.get(key, "")
        # `{% if ... and TRIGGER %}` needs a truthy literal; an unused trigger becomes ''.
        template = template.replace(
            f"and TRIGGER_{key.upper()}", f"and {json.dumps(bool(value))}".lower()
        )
        template = template.replace(f"TRIGGER_{key.upper()}", value)
    return template


def plain_spec() -> ModelSpec:
    think = ("<think>", "\n", *_words(PLAIN_REASONING), "\n", "</think>", "\n\n")
    scripts = {
        "plain": Script(TRIGGERS["plain"], (*think, *_words(PLAIN_ANSWER))),
        # The story thinks briefly, then tells the same sentences forever.
        "story": Script(
            TRIGGERS["story"],
            ("<think>", "Story", " time", ".", "</think>", *_words(" " + STORY), ","),
            loop_from=5,
        ),
    }
    triggers = {k: TRIGGERS[k] for k in ("plain", "story")}
    return ModelSpec(
        kind="plain",
        scripts=scripts,
        eos="<|im_end|>",
        special_tokens=(*CHATML_SPECIAL, *triggers.values()),
        added_tokens=("<think>", "</think>", "<tool_call>", "</tool_call>"),
        chat_template=_chatml_template(triggers),
    )


def tools_spec() -> ModelSpec:
    scripts = {
        "plain": Script(TRIGGERS["plain"], _words(PLAIN_ANSWER)),
        "story": Script(TRIGGERS["story"], (*_words(STORY), ","), loop_from=0),
        "weather": Script(TRIGGERS["weather"], WEATHER_CALLS),
        "time": Script(TRIGGERS["time"], TIME_CALL),
        "answer": Script(TRIGGERS["answer"], _words(TOOL_ANSWER)),
    }
    return ModelSpec(
        kind="tools",
        scripts=scripts,
        eos="<|im_end|>",
        special_tokens=(*CHATML_SPECIAL, *TRIGGERS.values()),
        added_tokens=(
            "<think>",
            "</think>",
            "<tool_call>",
            "</tool_call>",
            *WEATHER_CALLS,
            *TIME_CALL,
        ),
        chat_template=_chatml_template(TRIGGERS),
    )


# --- tokenizers --------------------------------------------------------------------------------

CORPUS_EXTRA = (
    "In one short sentence: what colour is a clear daytime sky? Write a detailed story of at "
    "least 600 words about a lighthouse keeper who finds a message in a bottle. Do not stop "
    "early. What is the weather in Paris right now? Use celsius. Get the weather in Paris and in "
    "Tokyo. My favourite colour is teal. Name one fruit, one animal. Remember this code word. "
    "A bat and a ball cost 1.10 in total. If three cats catch three mice in three minutes, how "
    "many cats catch 100 mice? You are a terse assistant. Answer in one sentence. First note: "
    "apples. Second note: pears. Third: say OK in one word. Say hi. system user assistant tool"
)


def _chatml_tokenizer(spec: ModelSpec, out: Path) -> Any:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    texts = ["".join(s.segments) for s in spec.scripts.values()]
    corpus = [*texts * 20, CORPUS_EXTRA * 5, spec.chat_template]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=1200,
        special_tokens=list(spec.special_tokens),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(corpus, trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        eos_token=spec.eos,
        pad_token="<|endoftext|>",
        bos_token=None,
        unk_token=None,
    )
    fast.add_tokens(list(spec.added_tokens), special_tokens=False)
    fast.chat_template = spec.chat_template
    fast.save_pretrained(out)
    return fast


# --- weights -----------------------------------------------------------------------------------


@dataclass(slots=True)
class _Plan:
    """Token-id transitions: ``first[cur] = next`` and ``pairs[(prev, cur)] = next``."""

    first: dict[int, int] = field(default_factory=dict)
    pairs: dict[tuple[int, int], int] = field(default_factory=dict)
    codes: dict[int, int] = field(default_factory=dict)  # token id → code index

    def code(self, token: int) -> int:
        return self.codes.setdefault(token, len(self.codes))


def _plan(sequences: Sequence[tuple[list[int], int | None]], eos: int) -> _Plan:
    """Transitions for token sequences ``[trigger, out1, …, outN]``, each followed by EOS or, with
    a loop index ``j``, by ``out[j+1]`` again (forever)."""
    steps: list[tuple[int, int, int]] = []  # (previous, current, next); previous -1: unknown
    for ids, loop in sequences:
        seq = list(ids)
        if loop is None:
            seq.append(eos)
        else:
            seq += ids[1 + loop :] * 2  # two laps show every context of the cycle
        steps += [(seq[i - 1] if i else -1, seq[i], seq[i + 1]) for i in range(len(seq) - 1)]
    successors: dict[int, set[int]] = {}
    for _prev, cur, nxt in steps:
        successors.setdefault(cur, set()).add(nxt)
    plan = _Plan()
    plan.code(eos)
    for prev, cur, nxt in steps:
        plan.code(cur)
        plan.code(nxt)
        if len(successors[cur]) == 1:
            plan.first[cur] = nxt
            continue
        if prev < 0:
            raise ValueError(f"trigger token {cur} has several successors: use one per script")
        plan.code(prev)
        known = plan.pairs.setdefault((prev, cur), nxt)
        if known != nxt:
            raise ValueError(
                f"the pair ({prev}, {cur}) is followed by both {known} and {nxt}: spell one "
                "occurrence differently"
            )
    return plan


def _rope_frequencies() -> Any:
    import torch

    half = HEAD_DIM // 2
    return ROPE_THETA ** (-torch.arange(half, dtype=torch.float64) / half)


def _weights(plan: _Plan, vocab: int, eos: int) -> tuple[dict[str, Any], dict[str, int]]:
    import torch

    n_codes = len(plan.codes)
    hidden = HEAD_DIM * max(1, math.ceil((2 * n_codes + 1) / HEAD_DIM))
    heads = hidden // HEAD_DIM
    const = 2 * n_codes  # the constant dimension; codes in [0, n), previous-token codes in [n, 2n)
    rules = len(plan.first) + len(plan.pairs) + 1
    inter = max(64, rules)
    f32 = torch.float32

    embed = torch.zeros(vocab, hidden, dtype=f32)
    embed[:, const] = 1.0
    for token, code in plan.codes.items():
        embed[token, code] = 1.0

    # Attention: constant q/k through biases; RoPE makes the score peak at distance 1.
    theta = _rope_frequencies()
    q_bias = torch.zeros(heads, HEAD_DIM, dtype=torch.float64)
    k_bias = torch.zeros(heads, HEAD_DIM, dtype=torch.float64)
    half = HEAD_DIM // 2
    for i in range(ROPE_FREQUENCIES):
        # score(d) ∝ Σ cos((d - 1)·θ_i): the query is the key turned back by one position.
        q_bias[:, i] = QK_AMPLITUDE * math.cos(theta[i])
        q_bias[:, i + half] = -QK_AMPLITUDE * math.sin(theta[i])
        k_bias[:, i] = QK_AMPLITUDE
    # Values: head h carries codes [h*64, h*64+64) of the (normalized) current token, and o_proj
    # writes them into the previous-token block.
    v_weight = torch.zeros(hidden, hidden, dtype=f32)
    o_weight = torch.zeros(hidden, hidden, dtype=f32)
    for code in range(n_codes):
        v_weight[code, code] = 1.0  # v dims are laid out head after head, like the codes
        o_weight[n_codes + code, code] = 1.0

    # Residual scale: every position holds one code (1), the constant (1) and about one previous
    # code (attention output of a normalized code, times the norm's scale below).
    rms0 = math.sqrt(2.0 / hidden)
    prev_value = 1.0 / rms0  # v of a normalized one-hot code
    scale1 = math.sqrt((2.0 + prev_value**2) / hidden)  # rms after attention
    cur_in = 1.0 / scale1  # a code as the MLP sees it
    prev_in = prev_value / scale1
    const_in = 1.0 / scale1

    gain = 40.0
    gate = torch.zeros(inter, hidden, dtype=f32)
    up = torch.zeros(inter, hidden, dtype=f32)
    down = torch.zeros(hidden, inter, dtype=f32)
    unit_out = 0.5 * gain  # silu(gain * 0.5) ≈ 0.5 * gain when a unit fires, times up (1)
    target = 12.0  # the next token's code gets this much; the current code keeps 1
    row = 0
    for cur, nxt in plan.first.items():
        gate[row, plan.codes[cur]] = gain / cur_in
        gate[row, const] = -0.5 * gain / const_in
        up[row, const] = 1.0 / const_in
        down[plan.codes[nxt], row] = target / unit_out
        row += 1
    for (prev, cur), nxt in plan.pairs.items():
        gate[row, plan.codes[cur]] = gain / cur_in
        gate[row, n_codes + plan.codes[prev]] = gain / prev_in
        gate[row, const] = -1.5 * gain / const_in
        up[row, const] = 1.0 / const_in
        down[plan.codes[nxt], row] = target / unit_out
        row += 1
    # Default: EOS gets 3 (beats the current token's 1, loses to any transition's 12).
    gate[row, const] = gain / const_in
    up[row, const] = 1.0 / const_in
    down[plan.codes[eos], row] = 3.0 / gain

    ones = torch.ones(hidden, dtype=f32)
    tensors = {
        "model.embed_tokens.weight": embed,
        # Sharp logits: the scripted token leads by ~85 nats, so sampling at temperature 1 (the
        # servers' default) still follows the script.
        "model.norm.weight": ones * 10.0,
        "model.layers.0.input_layernorm.weight": ones.clone(),
        "model.layers.0.post_attention_layernorm.weight": ones.clone(),
        "model.layers.0.self_attn.q_proj.weight": torch.zeros(hidden, hidden, dtype=f32),
        "model.layers.0.self_attn.q_proj.bias": q_bias.reshape(-1).to(f32),
        "model.layers.0.self_attn.k_proj.weight": torch.zeros(hidden, hidden, dtype=f32),
        "model.layers.0.self_attn.k_proj.bias": k_bias.reshape(-1).to(f32),
        "model.layers.0.self_attn.v_proj.weight": v_weight,
        "model.layers.0.self_attn.v_proj.bias": torch.zeros(hidden, dtype=f32),
        "model.layers.0.self_attn.o_proj.weight": o_weight,
        "model.layers.0.mlp.gate_proj.weight": gate,
        "model.layers.0.mlp.up_proj.weight": up,
        "model.layers.0.mlp.down_proj.weight": down,
    }
    sizes = {"hidden_size": hidden, "num_attention_heads": heads, "intermediate_size": inter}
    return tensors, sizes


def _config(
    spec: ModelSpec, vocab: int, sizes: dict[str, int], eos_ids: list[int]
) -> dict[str, Any]:
    config: dict[str, Any] = {
        "architectures": ["Qwen2ForCausalLM"],
        "model_type": "qwen2",
        "vocab_size": vocab,
        "hidden_size": sizes["hidden_size"],
        "intermediate_size": sizes["intermediate_size"],
        "num_hidden_layers": 1,
        "num_attention_heads": sizes["num_attention_heads"],
        "num_key_value_heads": sizes["num_attention_heads"],
        "head_dim": HEAD_DIM,
        "hidden_act": "silu",
        "max_position_embeddings": CONTEXT_LENGTH,
        "rms_norm_eps": 1e-6,
        "rope_theta": ROPE_THETA,
        "rope_parameters": {"rope_type": "default", "rope_theta": ROPE_THETA},
        "tie_word_embeddings": True,
        "use_sliding_window": False,
        "sliding_window": None,
        "max_window_layers": 1,
        "attention_dropout": 0.0,
        "initializer_range": 0.02,
        "torch_dtype": "float32",
        "dtype": "float32",
        "use_cache": True,
        "bos_token_id": None,
        "eos_token_id": eos_ids if len(eos_ids) > 1 else eos_ids[0],
    }
    config.update(spec.config_extra)
    return config


def _save(out: Path, tensors: dict[str, Any], config: dict[str, Any], eos_ids: list[int]) -> None:
    from safetensors.torch import save_file

    out.mkdir(parents=True, exist_ok=True)
    save_file({k: v.contiguous() for k, v in tensors.items()}, str(out / "model.safetensors"))
    (out / "config.json").write_text(json.dumps(config, indent=2))
    generation = {"eos_token_id": eos_ids, "do_sample": False, "temperature": 1.0}
    (out / "generation_config.json").write_text(json.dumps(generation, indent=2))


def _verify(
    out: Path, config: dict[str, Any], sequences: dict[str, tuple[list[int], list[int]]]
) -> None:
    """Greedy transformers output after each trigger (behind prompts of several lengths) must be
    the script exactly."""
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    plain = {k: v for k, v in config.items() if k not in ("architectures", "model_type")}
    model = Qwen2ForCausalLM.from_pretrained(out, config=Qwen2Config(**plain), dtype=torch.float32)
    model.eval()
    filler_id = 0
    for name, (trigger_ids, expected) in sequences.items():
        for pad in (0, 600):
            prompt = [filler_id] * pad + trigger_ids
            ids = torch.tensor([prompt])
            with torch.no_grad():
                result = model.generate(
                    ids,
                    max_new_tokens=len(expected),
                    do_sample=False,
                    eos_token_id=None,
                    pad_token_id=0,
                )
            got = result[0, len(prompt) :].tolist()
            if got != expected:
                raise AssertionError(
                    f"scripted model {out.name}: script {name!r} after {pad} filler tokens "
                    f"gave {got} instead of {expected}"
                )


def expected_text(kind: str, script: str) -> str:
    """The text a script produces (without EOS)."""
    spec = _spec(kind)
    return "".join(spec.scripts[script].segments)


def _spec(kind: str) -> ModelSpec:
    if kind == "plain":
        return plain_spec()
    if kind == "tools":
        return tools_spec()
    if kind == "gpt_oss":
        from harmony_model import gpt_oss_spec

        return gpt_oss_spec()
    raise ValueError(f"unknown scripted model kind {kind!r}; known: {', '.join(KINDS)}")


def build(kind: str, out: Path, *, cache: Path | None = None) -> Path:
    """Build the scripted model ``kind`` into ``out`` (skipped when ``out`` already holds it)."""
    out = Path(out)
    stamp = out / "scripted.json"
    if stamp.exists():
        return out
    spec = _spec(kind)
    encode: Callable[[str], list[int]]
    if kind == "gpt_oss":
        from harmony_model import harmony_tokenizer

        tokenizer, vocab, encode = harmony_tokenizer(out, spec, cache=cache)
    else:
        tokenizer = _chatml_tokenizer(spec, out)
        vocab = len(tokenizer)

        def encode(text: str) -> list[int]:
            return list(tokenizer.encode(text, add_special_tokens=False))

    eos = encode(spec.eos)
    assert len(eos) == 1, spec.eos
    eos_ids = [eos[0], *(encode(t)[0] for t in spec.extra_eos)]
    sequences: list[tuple[list[int], int | None]] = []
    checks: dict[str, tuple[list[int], list[int]]] = {}
    for name, script in spec.scripts.items():
        trigger = encode(script.trigger)
        pieces = [encode(seg) for seg in script.segments]
        body = [i for piece in pieces for i in piece]
        loop = None
        if script.loop_from is not None:
            loop = sum(len(p) for p in pieces[: script.loop_from])
            expected = (body + body[loop:] * 3)[: len(body) + 40]
        else:
            expected = [*body, eos[0]]
        sequences.append(([trigger[-1], *body], loop))
        checks[name] = (trigger, expected)
    plan = _plan(sequences, eos[0])
    tensors, sizes = _weights(plan, vocab, eos[0])
    config = _config(spec, vocab, sizes, eos_ids)
    _save(out, tensors, {**config, "model_type": "qwen2"}, eos_ids)
    _verify(out, config, checks)
    # The label goes on after the check (transformers would load a gpt_oss config otherwise).
    (out / "config.json").write_text(json.dumps(config, indent=2))
    stamp.write_text(json.dumps({"kind": kind, "scripts": list(spec.scripts)}))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Build the tiny scripted models for SGLang on CPU."
    )
    parser.add_argument(
        "--out", type=Path, required=True, help="folder for one sub-folder per model"
    )
    parser.add_argument("--cache", type=Path, help="folder to keep the harmony tokenizer in")
    parser.add_argument(
        "kinds", nargs="*", metavar="KIND", help=f"any of {', '.join(KINDS)} (default: all)"
    )
    args = parser.parse_args(argv)
    for kind in args.kinds or KINDS:
        path = build(kind, args.out / kind, cache=args.cache)
        print(f"{kind}: {path}")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    raise SystemExit(main())
