"""``python -m benchmarks.vendors``: the vendor matrix command (:mod:`benchmarks.vendors.cli`)."""

import sys

from .cli import main

sys.exit(main())
