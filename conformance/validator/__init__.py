"""The stream validator: a sans-I/O state machine over one Responses event stream.

One :class:`StreamValidator` per stream; ``feed(event)`` judges one decoded event, ``close()`` the
end of the stream (no terminal event, items left open, an ``error`` not followed by
``response.failed``). Everything it enforces is a check of :mod:`conformance.catalog`, citing
SPEC.md §1–§3.

The validator keeps, per output item, only what later events are compared against: its id and
type, its parts and their delta pieces, so memory is linear in the streamed text and the work per
event is constant (deltas are joined once, at their ``.done``). It does no I/O and shares nothing
with the servers it judges (the one rule of the architecture, tests/conformance/test_import_contract.py).

One state, one table of handlers: :class:`~.state.StreamState` holds what a stream's judgement
remembers, and each event type has one handler, a plain function ``(state, event, index)``
(the way openai-python's ``ResponseStreamState`` keeps one accumulator and one ``handle_event``).
The handlers live by concern:

- :mod:`.core` — the façade: ``feed`` / ``close``, the handler table;
- :mod:`.lifecycle` — lifecycle and terminal events, ``error``;
- :mod:`.items` — output items, added and done;
- :mod:`.parts` — content parts and reasoning summary parts, their text;
- :mod:`.values` — single-valued streams (arguments, code, diffs, shell);
- :mod:`.fastpath` — the one seam of the judge's speed work, the fast path for deltas (off with
  ``fast=False``, the reference path);
- :mod:`.model`, :mod:`.state`, :mod:`.tables` — what it remembers, and what it knows of the
  event families.
"""

from __future__ import annotations

from .core import PROFILES, StreamValidator
from .fastpath import FastPath

__all__ = ["PROFILES", "FastPath", "StreamValidator"]
