"""The suite's cases, one module per area; each case is tagged with the check IDs it exercises.

They are written to hold for a real, non-deterministic model: no exact-text assertions; behaviour
is forced with ``tool_choice``, ``max_output_tokens`` and ``text.format``; a case whose outcome a
model may miss by chance runs at most three times and reports that it retried.
"""
