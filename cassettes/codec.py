"""The on-disk format (docs/cassettes.md): one exchange per JSON Lines file.

Line 1 is the request, then the response head, then one line per body chunk (or WebSocket frame)
as it arrived, then the end::

    {"type":"request","format":"responses-cassette/1","seq":1,"at":1764600000.5,"method":"POST",
     "target":"/v1/responses","headers":[["content-type","application/json"]],"body":"{...}"}
    {"type":"response","t":0.012,"status":200,"headers":[["content-type","text/event-stream"]]}
    {"type":"chunk","t":0.013,"data":"event: response.created\\ndata: {...}\\n\\n"}
    {"type":"end","t":0.2,"outcome":"complete"}

(each record on one line). Bytes that are not UTF-8 are written ``body_b64`` / ``data_b64``.
"""

from __future__ import annotations

import base64
import json
import math
from pathlib import Path
from typing import Any

from cassettes.errors import CassetteError
from cassettes.model import FORMAT, Chunk, Exchange, Frame, Headers

__all__ = [
    "CassetteError",
    "chunk_line",
    "decode_exchange",
    "encode_exchange",
    "end_line",
    "exchange_filename",
    "frame_line",
    "request_line",
    "response_line",
]


def _bytes_field(key: str, data: bytes) -> dict[str, str]:
    try:
        return {key: data.decode("utf-8")}
    except UnicodeDecodeError:
        return {f"{key}_b64": base64.b64encode(data).decode("ascii")}


def _t(value: float) -> float:
    return round(value, 6)


def _line(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"


def request_line(exchange: Exchange) -> str:
    """The exchange's first line: the request record."""
    head: dict[str, Any] = {"type": "request", "format": FORMAT, "seq": exchange.seq}
    if exchange.at is not None:
        head["at"] = round(exchange.at, 6)
    if exchange.websocket:
        head["websocket"] = True
    head |= {
        "method": exchange.method,
        "target": exchange.target,
        "headers": [list(p) for p in exchange.request_headers],
    }
    head |= _bytes_field("body", exchange.request_body)
    if exchange.source:
        head["source"] = exchange.source
    return _line(head)


def response_line(exchange: Exchange) -> str:
    """The response-head record (an exchange with a ``status``)."""
    return _line(
        {
            "type": "response",
            "t": _t(exchange.response_t),
            "status": exchange.status,
            "headers": [list(p) for p in exchange.response_headers],
        }
    )


def chunk_line(chunk: Chunk) -> str:
    return _line({"type": "chunk", "t": _t(chunk.t)} | _bytes_field("data", chunk.data))


def frame_line(frame: Frame) -> str:
    record: dict[str, Any] = {"type": "frame", "t": _t(frame.t), "from": frame.sender}
    if frame.opcode != "text":
        record["opcode"] = frame.opcode
    return _line(record | _bytes_field("data", frame.data))


def end_line(end_t: float, outcome: str) -> str:
    return _line({"type": "end", "t": _t(end_t), "outcome": outcome})


def encode_exchange(exchange: Exchange) -> str:
    """The exchange as the text of its file."""
    lines = [request_line(exchange)]
    if exchange.status is not None:
        lines.append(response_line(exchange))
    lines += [chunk_line(chunk) for chunk in exchange.chunks]
    lines += [frame_line(frame) for frame in exchange.frames]
    lines.append(end_line(exchange.end_t, exchange.outcome))
    return "".join(lines)


def exchange_filename(exchange: Exchange) -> str:
    """``000001-POST-responses.jsonl``: the sequence number, method and a slug of the path."""
    slug = "-".join(
        p for p in exchange.path.split("/") if p and p != "v1" and len(p) <= 40 and p.isascii()
    )
    slug = "".join(c if c.isalnum() or c in "-_." else "_" for c in slug)[:60] or "root"
    method = "WS" if exchange.websocket else exchange.method.upper()
    return f"{exchange.seq:06d}-{method}-{slug}.jsonl"


def _fail(path: Path | str, line: int, what: str) -> CassetteError:
    return CassetteError(f"{path}:{line}: {what}")


def _str(record: dict[str, Any], key: str, where: tuple[Path | str, int]) -> str:
    value = record.get(key)
    if not isinstance(value, str):
        raise _fail(*where, f"{key!r} must be a string")
    return value


def _num(record: dict[str, Any], key: str, where: tuple[Path | str, int]) -> float:
    value = record.get(key, 0.0)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise _fail(*where, f"{key!r} must be a finite number")
    if value < 0:
        raise _fail(*where, f"{key!r} must be >= 0")
    return float(value)


def _headers(record: dict[str, Any], where: tuple[Path | str, int]) -> Headers:
    value = record.get("headers", [])
    if not isinstance(value, list) or not all(
        isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) for x in p) for p in value
    ):
        raise _fail(*where, "'headers' must be a list of [name, value] strings")
    return [(k.lower(), v) for k, v in value]


def _data(record: dict[str, Any], key: str, where: tuple[Path | str, int]) -> bytes:
    if f"{key}_b64" in record:
        try:
            return base64.b64decode(_str(record, f"{key}_b64", where), validate=True)
        except ValueError as error:
            raise _fail(*where, f"'{key}_b64' is not base64") from error
    value = record.get(key, "")
    if not isinstance(value, str):
        raise _fail(*where, f"{key!r} must be a string")
    return value.encode("utf-8", errors="surrogateescape")


def decode_exchange(text: str, path: Path | str = "<cassette>") -> Exchange:
    """An exchange from the text of its file; :class:`CassetteError` when it is malformed."""
    exchange: Exchange | None = None
    ended = False
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        where = (path, number)
        try:
            record = json.loads(raw)
        except json.JSONDecodeError as error:
            raise _fail(path, number, f"not JSON ({error.msg})") from error
        except ValueError as error:  # an integer of more digits than Python converts
            raise _fail(path, number, f"not JSON ({error})") from error
        except RecursionError as error:
            raise _fail(path, number, "not JSON (nested too deeply)") from error
        if not isinstance(record, dict):
            raise _fail(path, number, "a record must be a JSON object")
        kind = record.get("type")
        if exchange is None:
            if kind != "request":
                raise _fail(path, number, "the first record must be the request")
            if record.get("format") != FORMAT:
                raise _fail(path, number, f"unknown format {record.get('format')!r} ({FORMAT})")
            seq = record.get("seq")
            if not isinstance(seq, int) or isinstance(seq, bool) or seq < 0:
                raise _fail(path, number, "'seq' must be an integer >= 0")
            at = record.get("at")
            exchange = Exchange(
                seq=seq,
                method=_str(record, "method", where).upper(),
                target=_str(record, "target", where),
                request_headers=_headers(record, where),
                request_body=_data(record, "body", where),
                websocket=record.get("websocket") is True,
                at=_num(record, "at", where) if at is not None else None,
                source=str(record.get("source") or path),
            )
            continue
        if ended:
            raise _fail(path, number, "a record after the end")
        t = _num(record, "t", where)
        if kind == "response":
            status = record.get("status")
            if not isinstance(status, int) or isinstance(status, bool) or not 100 <= status < 600:
                raise _fail(path, number, "'status' must be an HTTP status")
            exchange.status = status
            exchange.response_headers = _headers(record, where)
            exchange.response_t = t
        elif kind == "chunk":
            exchange.chunks.append(Chunk(t, _data(record, "data", where)))
        elif kind == "frame":
            sender = record.get("from")
            opcode = record.get("opcode", "text")
            if sender not in ("client", "server") or opcode not in ("text", "binary", "close"):
                raise _fail(path, number, "a frame needs 'from' client|server, opcode text|binary")
            exchange.frames.append(Frame(t, sender, _data(record, "data", where), opcode))
        elif kind == "end":
            exchange.end_t = t
            outcome = record.get("outcome", "complete")
            if not isinstance(outcome, str):
                raise _fail(path, number, "'outcome' must be a string")
            exchange.outcome = outcome
            ended = True
        else:
            raise _fail(path, number, f"unknown record type {kind!r}")
    if exchange is None:
        raise _fail(path, 1, "empty exchange file")
    if not ended:
        exchange.outcome = "incomplete: no end record"
    return exchange
