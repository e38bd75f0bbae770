"""Streams for the SSE decoder's tests: chunked feeding, and random streams with the events the
WHATWG rules give them, written independently of the decoder (tests/conformance/sse/)."""

from __future__ import annotations

from collections.abc import Iterable

from hypothesis import strategies as st

from conformance.sse import SSEDecoder, SSEEvent

__all__ = [
    "TEXT",
    "common_heavy_blocks",
    "decode_in_chunks",
    "decode_split",
    "expected_events",
    "random_streams",
]


def decode_in_chunks(stream: bytes, size: int, **limits: int) -> list[SSEEvent]:
    decoder = SSEDecoder(**limits)
    events: list[SSEEvent] = []
    for start in range(0, len(stream), size):
        events += decoder.feed(stream[start : start + size])
    return events + decoder.close()


def decode_split(stream: bytes, cuts: Iterable[int], **limits: int) -> list[SSEEvent]:
    decoder = SSEDecoder(**limits)
    events: list[SSEEvent] = []
    start = 0
    for cut in sorted(cuts):
        events += decoder.feed(stream[start:cut])
        start = cut
    events += decoder.feed(stream[start:])
    return events + decoder.close()


TEXT = st.text(
    st.characters(exclude_categories=["Cs"], exclude_characters="\r\n"), max_size=12
) | st.sampled_from(["é世🙂", "a\u2028b", "\u2029\x85", " lead", "[DONE]", "x:y"])


@st.composite
def random_blocks(draw: st.DrawFn) -> list[list[str]]:
    """Random event blocks, each a list of lines (without line ends)."""
    blocks = []
    for _ in range(draw(st.integers(0, 5))):
        lines = []
        for _ in range(draw(st.integers(0, 4))):
            kind = draw(
                st.sampled_from(["data", "data", "event", "id", "retry", "comment", "x", "bare"])
            )
            if kind == "bare":  # a field without a colon: the line names it, its value is empty
                lines.append(draw(st.sampled_from(["data", "event", "x", "dat"])))
            elif kind == "retry":
                lines.append(f"retry: {draw(st.integers(0, 10**6))}")
            elif kind == "comment":
                lines.append(":" + draw(TEXT))
            elif kind == "id":
                lines.append("id: " + draw(TEXT).replace("\x00", ""))
            else:
                lines.append(f"{kind}:{draw(st.sampled_from(['', ' ']))}{draw(TEXT)}")
        blocks.append(lines)
    return blocks


def expected_events(blocks: list[list[str]]) -> list[SSEEvent]:
    """What the rules say the blocks decode to, written independently of the decoder."""
    out: list[SSEEvent] = []
    for lines in blocks:
        data: list[str] = []
        fields: dict[str, str | int | None] = {"event": None, "id": None, "retry": None}
        for line in lines:
            if line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "data":
                data.append(value)
            elif name in ("event", "id"):
                fields[name] = value
            elif name == "retry":
                fields["retry"] = int(value)
        if data:
            out.append(SSEEvent("\n".join(data), index=len(out), **fields))  # type: ignore[arg-type]
    return out


@st.composite
def random_streams(draw: st.DrawFn) -> tuple[bytes, list[SSEEvent], int]:
    """A stream, its events, and the size of its largest event block."""
    blocks = draw(random_blocks())
    bom = draw(st.booleans())
    terminate_last = draw(st.booleans())
    out = bytearray(b"\xef\xbb\xbf" if bom else b"")
    largest = 0
    previous_end = b""
    lines = [line for block in blocks for line in [*block, ""]]
    if lines and not terminate_last:
        lines.pop()  # the final blank line: close() must dispatch the last event anyway
    for number, line in enumerate(lines):
        end = draw(st.sampled_from([b"\n", b"\r", b"\r\n"]))
        if previous_end == b"\r" and end == b"\n" and not line:
            end = b"\r"  # a CR then a LF would be one line end, not an empty line
        if number == len(lines) - 1 and not terminate_last and draw(st.booleans()):
            end = b""  # the last line may lack its line end
        out += line.encode() + end
        previous_end = end
    size = 0
    for number, line in enumerate(lines):
        is_last_unterminated = number == len(lines) - 1 and bytes(out[-1:]) not in (b"\n", b"\r")
        size = 0 if not line else size + len(line.encode()) + (0 if is_last_unterminated else 1)
        largest = max(largest, size)
    return bytes(out), expected_events(blocks), largest


NAME = st.sampled_from(["response.output_text.delta", "x", "", " lead", "é"])


@st.composite
def common_heavy_blocks(draw: st.DrawFn) -> list[list[str]]:
    """Mostly `event:`+`data:` blocks as servers write them, some spelled otherwise, some without
    `event:`, with comments or blank runs between: the shapes the fast split must get right or
    hand over to the line rules."""
    blocks = []
    for _ in range(draw(st.integers(0, 12))):
        shape = draw(
            st.sampled_from(["canonical"] * 6 + ["no_space", "data_only", "comment", "two_data"])
        )
        name, data = draw(NAME), draw(TEXT)
        if shape == "canonical":
            blocks.append([f"event: {name}", f"data: {data}"])
        elif shape == "no_space":
            blocks.append([f"event:{name}", f"data:{data}"])
        elif shape == "data_only":
            blocks.append([f"data: {data}"])
        elif shape == "comment":
            blocks.append([": keep-alive"])
        else:
            blocks.append([f"event: {name}", f"data: {data}", f"data: {data}"])
    return blocks
