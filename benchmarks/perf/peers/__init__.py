"""Accuracy and cost of responses-bench against its peers: GuideLLM, AIPerf and a
plain Locust user next to ``responses-bench`` (with and without ``--no-validate``), against
``responses-mock`` with known latency, truth taken on the wire.

    python -m benchmarks.perf.peers [--streams 4,16,64] [--seconds 8] [--repeat 2] [--report-dir DIR]

See docs/bench-peers.md for the method and the published table.
"""
