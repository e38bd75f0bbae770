"""Examples of the live checks of the ``stateless-reasoning`` profile (those of
``conversations`` and ``compaction`` are in their section modules,
:mod:`conformance.sections.s4_5_conversation_endpoints` and :mod:`conformance.sections.s4_6_compaction`):
a misbehaving server per check (``tests/suite/broken_state_servers.py``, listed in
``broken_servers.LIVE``), and the embedded mock as the near miss. Most are defects the issue
measured: no `encrypted_content`, bogus `include` values accepted."""

from __future__ import annotations

from .live import live

for _id, _server, _note in (
    ("live.stateless.encrypted_present", "encrypted_dropped",
     "a server that never returns `encrypted_content`, whatever `include` asks"),
    ("live.stateless.encrypted_absent", "encrypted_always",
     "a server that returns `encrypted_content` although `include` did not ask for it"),
    ("live.stateless.encrypted_accepted", "encrypted_not_round_tripping",
     "a server whose own blobs are refused when sent back"),
    ("live.stateless.encrypted_tampered", "tampered_accepted",
     "a server that accepts an altered `encrypted_content` (it never authenticates the blob)"),
    ("live.stateless.history_items", "shell_items_refused",
     "a server that knows no `shell_call` items in an agent's history"),
    ("live.include.unknown", "include_unchecked",
     "a server that ignores an `include` value OpenAI does not define"),
):  # fmt: skip
    live(_id, _server, _note)
