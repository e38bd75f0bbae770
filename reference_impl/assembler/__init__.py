"""The response assembler: engine chunks in, Responses stream events and the Response object out
(sans-I/O; the only place on the server side that knows event order).

* :mod:`.stream` — :class:`~reference_impl.assembler.stream.ResponseAssembler`, one per response;
* :mod:`.items` — items and content parts while open and as closed, sequence numbers, the
  ``obfuscation`` padding of delta events (the assembler's base class);
* :mod:`.tools` — tool call items: streamed function / custom calls and the built-in calls an
  engine hands over whole;
* :mod:`.response_object` — the Response object's fixed part and its ``usage``.
"""
