"""The live conformance suite: cases against any Responses server, grouped in profiles, with
reports per check ID.

- :mod:`.targets` — targets from flags or a TOML file;
- :mod:`.embedded` — the embedded mock, started as a separate process;
- :mod:`.http` — the HTTP client with per-request deadlines and event caps;
- :mod:`.probe` — a case's handle: requests, the judge on every answer, recorded verdicts;
- :mod:`.plugin`, :mod:`.runner` — pytest over the cases for one target (each declared in the
  section module of its checks, :mod:`conformance.sections.cases`);
- :mod:`.results` — per case, then per check; :mod:`.reporting` — JSON, JUnit XML, HTML.
"""
