"""The project's own performance benchmarks, each ``python -m benchmarks.perf.NAME --help``.

Numbers from them go into closing notes and docs; tests run each briefly for shape, never for
speed (speed is measured on a quiet machine, not asserted). Shared by them: ``servers`` (start,
read, stop a server process), ``process_cpu`` (the CPU of a process or a process tree),
``cli_args`` (option types) and ``errors`` (the tree of their exceptions, base ``PerfError``)."""
