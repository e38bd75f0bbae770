"""``responses-bench``: Locust load tests of any Responses server, every stream judged.

Entry point :func:`benchmarks.responses_bench.cli.main`; the modules, in the order a run uses them:
``cli`` / ``options`` / ``units`` / ``workload`` / ``arrivals`` (the run's plan, checked before any
load), ``locustfile`` / ``runtime`` / ``loadshape`` / ``users`` (the Locust process), ``exchange`` /
``ws_exchange`` / ``ws_socket`` / ``meter`` (one request on the wire, timed and judged),
``histogram`` / ``aggregate`` / ``slo`` (numbers), ``report`` / ``plots`` (the outputs);
``errors`` draws the tree of the exceptions they raise (base :class:`~.errors.BenchError`).
"""
