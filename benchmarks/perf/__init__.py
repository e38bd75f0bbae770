"""The project's own performance benchmarks, each ``python -m benchmarks.perf.NAME --help``.

Numbers from them go into closing notes and docs; tests run each briefly for shape, never for
speed (speed is measured on a quiet machine, not asserted)."""
