"""Workload sources of ``responses-bench``: files of every usual format, traces, synthetic text.

- :mod:`.readers`: JSONL, a JSON array (ShareGPT), CSV, Parquet — streamed and checked up front;
- :mod:`.records`: the fields read from a record (documented there and in docs/bench.md);
- :mod:`.lengths`: input / output token-length distributions;
- :mod:`.words`: synthetic prompts, trace blocks (``hash_ids``) and shared-prefix pools.
"""

from __future__ import annotations

from ..errors import WorkloadError
from .lengths import Lengths, parse_lengths
from .readers import FORMATS, MAX_RECORD_BYTES, PARQUET_HINT, Loaded, detect, read_entries
from .records import Entry

__all__ = [
    "FORMATS",
    "MAX_RECORD_BYTES",
    "PARQUET_HINT",
    "Entry",
    "Lengths",
    "Loaded",
    "WorkloadError",
    "detect",
    "parse_lengths",
    "read_entries",
]
