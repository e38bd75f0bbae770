"""The exit codes of every ``responses-conformance`` sub-command (docs/cli.md#exit-codes), and of
the exit code a report's index records for each target.

- :data:`EXIT_OK` (0) — conformant, passed;
- :data:`EXIT_VIOLATIONS` (1) — violations found;
- :data:`EXIT_BROKEN` (2) — the run itself broke (bad arguments or configuration, a file that
  cannot be read or decoded, an unreachable target).
"""

from __future__ import annotations

__all__ = ["EXIT_BROKEN", "EXIT_OK", "EXIT_VIOLATIONS"]

EXIT_OK = 0
EXIT_VIOLATIONS = 1
EXIT_BROKEN = 2
