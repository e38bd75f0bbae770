"""The vendor matrix: real third-party Responses servers judged on this machine
(the published matrix: docs/vendors/matrix.md).

``python -m benchmarks.vendors run`` installs every target at a pinned version into its own
virtualenv (never the project's), starts it on loopback (127.0.0.1 only) — the SGLang-backed
ones on SGLang 0.5.23 serving a *scripted* model on CPU — runs the live conformance suite
(``responses-conformance run``) against it with the profiles it claims, and merges the JSON
indexes into one HTML matrix and one Markdown summary, each failure with its evidence and a
one-command reproduction. ``--slice ci`` runs the small slice that CI gates on; it compares the
verdicts with the committed matrix, so a change in the suite's verdicts shows up.

The harness talks to every server over HTTP only and runs the judge as a subprocess: like the
rest of ``benchmarks/``, it may read the judge's reports, never import the judged.
"""
