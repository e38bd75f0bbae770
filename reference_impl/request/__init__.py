"""A ``POST /v1/responses`` body in, an engine's :class:`~reference_impl.engine.GenerationRequest`
out: every check with OpenAI's 400s, and the input's normalization (sans-I/O).

* :mod:`.validation` — the body's fields (``validate_create_body``);
* :mod:`.tool_validation` — ``tools``, ``tool_choice`` and the JSON Schemas a request carries;
* :mod:`.tool_kinds` — tool kinds beyond ``function`` (custom, namespace, tool search) and the
  engine's view of them;
* :mod:`.grammar` — custom tools' grammars compiled as OpenAI reads them (LLGuidance's Lark and
  regex dialects), cached by text;
* :mod:`.item_shapes` — the shape of every input item type, field by field;
* :mod:`.field_errors` — the 400s every check shares (wrong type, value outside its enum);
* :mod:`.inputs` — ``input`` → stored input items → the conversation a response sees;
* :mod:`.messages` — those items → engine messages, and the
  :class:`~reference_impl.engine.GenerationRequest` of a validated body;
* :mod:`.prompts` — ``prompt`` templates rendered into a body (``--prompts FILE``).
"""
