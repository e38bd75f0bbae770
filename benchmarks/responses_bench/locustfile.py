"""The locustfile behind ``responses-bench``; plain Locust can run it too::

    locust -f benchmarks/responses_bench/locustfile.py --headless --host http://127.0.0.1:8000 \
        --base-url http://127.0.0.1:8000/v1 --model mock -u 4 -t 30s

Importing :mod:`benchmarks.responses_bench.runtime` registers the options and event hooks; Locust picks the user
classes and the shape up from this module's namespace.
"""

from __future__ import annotations

from benchmarks.responses_bench import runtime as _runtime  # noqa: F401 - registers the Locust event hooks
from benchmarks.responses_bench.loadshape import BenchShape
from benchmarks.responses_bench.users import ArrivalUser, ResponsesUser

__all__ = ["ArrivalUser", "BenchShape", "ResponsesUser"]
