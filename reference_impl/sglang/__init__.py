"""``responses-reference``: the protocol layer on SGLang (an optional extra, imported lazily).

* :mod:`.cli` — the ``responses-reference`` command;
* :mod:`.engine` — :class:`~reference_impl.sglang.engine.SGLangEngine`, the
  :class:`~reference_impl.engine.Engine` protocol on SGLang (prompt, sampling parameters, usage);
* :mod:`.output` — :class:`~reference_impl.sglang.output.OutputParser`: SGLang's text deltas to
  engine chunks through SGLang's own reasoning and tool-call parsers;
* :mod:`.backends` — where it sends token ids: an ``sglang.Engine`` in this process, or a running
  SGLang server over HTTP.

This package is ``reference_impl.sglang``; ``import sglang`` anywhere still means SGLang itself.
"""
