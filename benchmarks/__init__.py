"""Three parts, one folder each:

- :mod:`benchmarks.responses_bench` — ``responses-bench``, the load tool users run (Locust);
- :mod:`benchmarks.perf` — the project's own performance benchmarks (judge, client, mock, schema,
  stores, proxy, side-by-side runs), each ``python -m benchmarks.perf.NAME``;
- :mod:`benchmarks.vendors` — the vendor-matrix harness (``python -m benchmarks.vendors``).
"""
