"""§1.5 Annotations (docs/spec.md#s1-5, the offsets in #s1-7): ``stream.annotation.offsets``.

A citation's offsets lie inside the text it annotates: ``0 <= start_index <= end_index <=
len(text)`` for ``url_citation`` (and ``container_file_citation``), ``0 <= index <= len(text)``
for ``file_citation`` / ``file_path`` ([OAPI] ``UrlCitationBody``, ``FileCitationBody``). Judged
in the finished message's ``output_text`` parts (``content_part.done`` and ``output_item.done``);
offsets count Unicode code points (what Python's ``len`` counts and what the recorded
``url_citation`` offsets of [REC] openai-web-search-tool.1 fit). The stream validator's per-tool
rules (:class:`.s1_7_hosted_tools.ToolRules`) hand it each finished part; the annotations' order
and their match with ``annotation.added`` are §2.8's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..catalog.registry import Level, register
from .s2_1_sequence import _Coverage, _Report

__all__ = ["ANNOTATION_OFFSETS", "declare_examples", "judge_offsets"]

ANNOTATION_OFFSETS = register(
    "stream.annotation.offsets",
    Level.MUST,
    "§1.7, §1.5 [OAPI] UrlCitationBody (start_index, end_index), FileCitationBody.index; [REC] "
    "openai-web-search-tool.1",
    "a citation's offsets lie inside the text it annotates: 0 <= start_index <= end_index <= "
    "len(text) (url / container file citations), 0 <= index <= len(text) (file citations, paths)",
)
_SPAN_CITATIONS = frozenset({"url_citation", "container_file_citation"})
_POINT_CITATIONS = frozenset({"file_citation", "file_path"})


def judge_offsets(
    report: _Report,
    coverage: _Coverage | None,
    part: Mapping[str, Any],
    index: int,
    where: str,
) -> None:
    """One finished content part's citations against its text (``where``: the part's path);
    an ``output_text`` part with annotations marks the check applied."""
    if part.get("type") != "output_text":
        return
    text = part.get("text")
    annotations = part.get("annotations")
    if not isinstance(text, str) or not isinstance(annotations, list):
        return
    if annotations and coverage is not None:
        coverage.applied.add(ANNOTATION_OFFSETS.id)
    size = len(text)
    for ai, ann in enumerate(annotations):
        if type(ann) is not dict and not isinstance(ann, Mapping):
            continue
        kind = ann.get("type")
        if not isinstance(kind, str):
            continue
        path = f"{where}.annotations[{ai}]"
        if kind in _SPAN_CITATIONS:
            start, end = ann.get("start_index"), ann.get("end_index")
            if type(start) is int and type(end) is int and not 0 <= start <= end <= size:
                _bad(report, index, path, size, f"start_index {start}, end_index {end}")
        elif kind in _POINT_CITATIONS:
            at = ann.get("index")
            if type(at) is int and not 0 <= at <= size:
                _bad(report, index, path, size, f"index {at}")


def _bad(report: _Report, index: int, path: str, size: int, actual: str) -> None:
    expected = f"offsets within the part's text (0..{size})"
    report(ANNOTATION_OFFSETS, index, expected, actual, path=path)


def declare_examples() -> None:
    """The failing example and the passing near miss (conformance.examples)."""
    from ..examples.offline_tools import CITE, web_search_stream
    from ..examples.registry import example
    from ..examples.stream_samples import S

    example(
        ANNOTATION_OFFSETS.id,
        S(
            lambda: web_search_stream(annotation={**CITE, "end_index": 40}),
            "a url_citation ending past the 12-character text",
        ),
        S(
            lambda: web_search_stream(annotation={**CITE, "end_index": 12}),
            "a url_citation ending exactly at the text's end",
        ),
        also=(),
    )
