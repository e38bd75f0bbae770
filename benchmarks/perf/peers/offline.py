"""Offline inputs every tool gets: one prompt set (a file dataset per tool's format) and a local
tokenizer, so no peer reaches for a hub (both try to download a tokenizer and a dataset otherwise).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

_TEXT = (
    "the stream keeps a quiet harbor with care while every token arrives on time and the "
    "server measures what the client sees across loopback under load for each request"
)
WORDS = _TEXT.split(" ")

#: environment for every peer process: no hub, no telemetry, no update checks
OFFLINE_ENV = {
    "HF_HUB_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "DO_NOT_TRACK": "1",
    "TOKENIZERS_PARALLELISM": "false",
    "NO_PROXY": "127.0.0.1,localhost",
}


def prompts(n: int = 64, words: int = 24, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(words)) + f" ({i})" for i in range(n)]


#: the tokenizer's name: a Hugging Face repo id that only exists in our own offline cache
TOKENIZER_REPO = "peers-local/wordlevel"
_SNAPSHOT = "0" * 40


def write_hf_cache(hf_home: Path) -> str:
    """Lay the tokenizer out as a cached Hub snapshot under ``hf_home`` (set as HF_HOME).

    AIPerf under HF_HUB_OFFLINE resolves every tokenizer name with ``snapshot_download(...,
    local_files_only=True)``, so a plain directory path is refused as a bad repo id; a cached
    snapshot is found by both peers with no network.
    """
    repo = hf_home / "hub" / ("models--" + TOKENIZER_REPO.replace("/", "--"))
    (repo / "refs").mkdir(parents=True, exist_ok=True)
    (repo / "refs" / "main").write_text(_SNAPSHOT)
    write_tokenizer(repo / "snapshots" / _SNAPSHOT)
    return TOKENIZER_REPO


def write_tokenizer(directory: Path) -> Path:
    """A word-level Hugging Face tokenizer (tokenizer.json + config) over the prompts' words."""
    directory.mkdir(parents=True, exist_ok=True)
    vocab = {"[UNK]": 0, "[BOS]": 1, "[EOS]": 2}
    for word in [*WORDS, *"().,:;\"'!?-0123456789"]:
        vocab.setdefault(word, len(vocab))
    special = [
        {
            "id": i,
            "content": tok,
            "single_word": False,
            "lstrip": False,
            "rstrip": False,
            "normalized": False,
            "special": True,
        }
        for tok, i in list(vocab.items())[:3]
    ]
    tokenizer = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": special,
        "normalizer": None,
        "pre_tokenizer": {"type": "Whitespace"},
        "post_processor": None,
        "decoder": None,
        "model": {"type": "WordLevel", "vocab": vocab, "unk_token": "[UNK]"},
    }
    (directory / "tokenizer.json").write_text(json.dumps(tokenizer))
    (directory / "tokenizer_config.json").write_text(
        json.dumps(
            {
                "tokenizer_class": "PreTrainedTokenizerFast",
                "model_max_length": 1_000_000,
                "unk_token": "[UNK]",
                "bos_token": "[BOS]",
                "eos_token": "[EOS]",
                "clean_up_tokenization_spaces": False,
            }
        )
    )
    (directory / "special_tokens_map.json").write_text(
        json.dumps({"unk_token": "[UNK]", "bos_token": "[BOS]", "eos_token": "[EOS]"})
    )
    return directory


def write_datasets(directory: Path, output_tokens: int, n: int = 4096) -> dict[str, Path]:
    """The same prompts in each tool's file format: ours/Locust, GuideLLM, AIPerf.

    More rows than any cell sends: GuideLLM stops when its dataset runs out (64 rows gave 64
    requests at 64 streams: one burst, not a steady load)."""
    directory.mkdir(parents=True, exist_ok=True)
    texts = prompts(n)
    files = {
        "workload": [{"prompt": t} for t in texts],
        "guidellm": [{"prompt": t} for t in texts],
        "aiperf": [{"text": t} for t in texts],
    }
    out = {}
    for name, rows in files.items():
        path = directory / f"{name}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        out[name] = path
    return out
