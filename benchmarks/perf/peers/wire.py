"""Truth from the wire: loopback packets with kernel timestamps, reassembled into HTTP/1.1 + SSE.

Capture (:class:`LoopbackCapture`) is an ``AF_PACKET`` socket on ``lo`` (needs root or
CAP_NET_RAW) with a classic-BPF filter on the mock's TCP port and ``SO_TIMESTAMPNS``: each packet
carries the time the kernel saw it, so how late this process reads it does not matter. On loopback
a packet's timestamp is its send time to within the kernel's path (microseconds).

Parsing (:func:`exchanges`) is sans-I/O: packets in, one :class:`WireExchange` per HTTP request out —
when the request's first byte went on the wire and when each SSE event of its response was
complete on the wire (the packet holding the event's closing blank line).
"""

from __future__ import annotations

import bisect
import ctypes
import re
import socket
import struct
import threading
from dataclasses import dataclass, field

#: event types that carry output tokens (the mock's text scenario only sends text deltas)
DELTA_TYPES = frozenset(
    {
        b"response.output_text.delta",
        b"response.refusal.delta",
        b"response.reasoning_text.delta",
        b"response.reasoning_summary_text.delta",
    }
)
TERMINAL_TYPES = frozenset({b"response.completed", b"response.incomplete", b"response.failed"})

Packet = tuple[float, bytes]  # (kernel timestamp, the frame from the Ethernet header on)

_ETH_P_ALL = 0x0003
_SO_TIMESTAMPNS = 35
_SO_ATTACH_FILTER = 26
_SO_RCVBUFFORCE = 33
_PACKET_OUTGOING = 4
_TYPE_RE = re.compile(rb'"type"\s*:\s*"([^"]+)"')


def bpf_tcp_port(port: int) -> list[tuple[int, int, int, int]]:
    """Classic BPF for ``ip and tcp port PORT`` (what ``tcpdump -dd`` prints), unfragmented."""
    return [
        (0x28, 0, 0, 12),  # ldh [12]           ethertype
        (0x15, 0, 10, 0x0800),  # jeq IPv4
        (0x30, 0, 0, 23),  # ldb [23]           protocol
        (0x15, 0, 8, 6),  # jeq TCP
        (0x28, 0, 0, 20),  # ldh [20]           flags + fragment offset
        (0x45, 6, 0, 0x1FFF),  # jset fragment -> drop
        (0xB1, 0, 0, 14),  # ldxb 4*([14]&0xf)  IP header length
        (0x48, 0, 0, 14),  # ldh [x+14]         source port
        (0x15, 2, 0, port),
        (0x48, 0, 0, 16),  # ldh [x+16]         destination port
        (0x15, 0, 1, port),
        (0x06, 0, 0, 0x40000),  # accept
        (0x06, 0, 0, 0),  # drop
    ]


class LoopbackCapture:
    """Records every TCP packet to or from ``port`` on ``lo`` in a thread, until :meth:`stop`."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.packets: list[Packet] = []
        self._stop = threading.Event()
        sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(_ETH_P_ALL))
        prog = bpf_tcp_port(port)
        insns = b"".join(struct.pack("HBBI", *i) for i in prog)
        self._buf = ctypes.create_string_buffer(insns)
        fprog = struct.pack("HL", len(prog), ctypes.addressof(self._buf))
        sock.setsockopt(socket.SOL_SOCKET, _SO_ATTACH_FILTER, fprog)
        try:
            sock.setsockopt(socket.SOL_SOCKET, _SO_RCVBUFFORCE, 64 << 20)
        except OSError:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 << 20)
        sock.setsockopt(socket.SOL_SOCKET, _SO_TIMESTAMPNS, 1)
        sock.bind(("lo", 0))
        # packets that matched before the filter was attached: drain them
        sock.setblocking(False)
        try:
            while True:
                sock.recv(65536)
        except BlockingIOError:
            pass
        sock.settimeout(0.2)
        self._sock = sock
        self._thread = threading.Thread(target=self._run, name="wire-capture", daemon=True)

    def start(self) -> LoopbackCapture:
        self._thread.start()
        return self

    def _run(self) -> None:
        sock, out = self._sock, self.packets
        space = socket.CMSG_SPACE(16)
        while not self._stop.is_set():
            try:
                data, anc, _flags, addr = sock.recvmsg(65600, space)
            except TimeoutError:
                continue
            except OSError:
                break
            if addr[2] == _PACKET_OUTGOING:  # lo shows each packet twice: keep the received one
                continue
            ts = None
            for level, kind, raw in anc:
                if level == socket.SOL_SOCKET and kind == _SO_TIMESTAMPNS:
                    sec, nsec = struct.unpack("qq", raw[:16])
                    ts = sec + nsec * 1e-9
            if ts is not None:
                out.append((ts, data))

    def stop(self) -> list[Packet]:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(5)
        self._sock.close()
        return self.packets


@dataclass
class WireExchange:
    """One request/response on one connection, as the wire saw it: when its parts were on the wire,
    not their bytes (those are a cassette's :class:`cassettes.Exchange`)."""

    request_at: float  # the request's first byte
    request_sent: float  # its last byte
    status: int = 0
    events: list[tuple[float, bytes]] = field(default_factory=list)  # (complete at, type)

    @property
    def deltas(self) -> list[float]:
        return [t for t, kind in self.events if kind in DELTA_TYPES]

    @property
    def finished(self) -> bool:
        return any(kind in TERMINAL_TYPES for _, kind in self.events)


class _Stream:
    """One direction's bytes, in sequence order, with the timestamp of the segment of each."""

    def __init__(self) -> None:
        self.segments: list[tuple[int, float, bytes]] = []

    def add(self, seq: int, ts: float, payload: bytes) -> None:
        self.segments.append((seq, ts, payload))

    def assemble(self) -> tuple[bytes, list[int], list[float]]:
        """(bytes, the end offset of each piece, when it was readable); retransmissions kept once."""
        if not self.segments:
            return b"", [], []
        base = self.segments[0][0]
        rel = sorted(((seq - base) % (1 << 32), ts, p) for seq, ts, p in self.segments)
        chunks: list[bytes] = []
        ends: list[int] = []
        stamps: list[float] = []
        have = rel[0][0]
        start = have
        for off, ts, payload in rel:
            if off + len(payload) <= have:
                continue  # a retransmission of bytes already placed
            if off > have:
                break  # a hole (a packet the capture missed): stop at what is contiguous
            piece = payload[have - off :]
            chunks.append(piece)
            have += len(piece)
            ends.append(have - start)
            # a byte is readable only once every byte before it has arrived
            stamps.append(max(ts, stamps[-1]) if stamps else ts)
        return b"".join(chunks), ends, stamps


def _time_at(ends: list[int], stamps: list[float], offset: int) -> float:
    """When the byte at ``offset`` was on the wire."""
    return stamps[min(bisect.bisect_right(ends, offset), len(stamps) - 1)]


StreamKey = tuple[int, int, bool]  # (client port, connection number on that port, upstream?)


def split_tcp(packets: list[Packet], port: int) -> dict[StreamKey, _Stream]:
    """Per connection and direction, the payload segments (a client SYN starts a new connection)."""
    streams: dict[StreamKey, _Stream] = {}
    generation: dict[int, int] = {}
    for ts, frame in packets:
        if len(frame) < 34 or frame[12:14] != b"\x08\x00":
            continue
        ihl = (frame[14] & 0x0F) * 4
        if frame[23] != 6:
            continue
        tcp = 14 + ihl
        total = struct.unpack_from("!H", frame, 16)[0]
        sport, dport, seq = struct.unpack_from("!HHI", frame, tcp)
        doff = (frame[tcp + 12] >> 4) * 4
        payload = frame[tcp + doff : 14 + total]
        if dport == port and frame[tcp + 13] & 0x12 == 0x02:  # SYN without ACK: a new connection
            generation[sport] = generation.get(sport, 0) + 1
        if not payload:
            continue
        if dport == port:
            key = (sport, generation.get(sport, 0), True)
        elif sport == port:
            key = (dport, generation.get(dport, 0), False)
        else:
            continue
        streams.setdefault(key, _Stream()).add(seq, ts, payload)
    return streams


def _headers(raw: bytes) -> tuple[int, dict[bytes, bytes]]:
    lines = raw.split(b"\r\n")
    parts = lines[0].split(b" ", 2)
    status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        headers[name.strip().lower()] = value.strip()
    return status, headers


def parse_requests(data: bytes, ends: list[int], stamps: list[float]) -> list[WireExchange]:
    out = []
    pos = 0
    while True:
        head_end = data.find(b"\r\n\r\n", pos)
        if head_end < 0:
            break
        _, headers = _headers(data[pos:head_end])
        body_end = head_end + 4 + int(headers.get(b"content-length", b"0") or 0)
        if body_end > len(data):
            break
        out.append(WireExchange(_time_at(ends, stamps, pos), _time_at(ends, stamps, body_end - 1)))
        pos = body_end
    return out


def parse_responses(
    data: bytes, ends: list[int], stamps: list[float], into: list[WireExchange]
) -> None:
    """Fill each exchange's status and SSE events from the server's side of the connection."""
    pos = 0
    for ex in into:
        head_end = data.find(b"\r\n\r\n", pos)
        if head_end < 0:
            return
        ex.status, headers = _headers(data[pos:head_end])
        pos = head_end + 4
        if b"chunked" not in headers.get(b"transfer-encoding", b"").lower():
            pos += int(headers.get(b"content-length", b"0") or 0)
            continue
        # de-chunk, remembering where each body byte was in the raw stream
        body = bytearray()
        body_map: list[tuple[int, int]] = []  # (body offset, raw offset) of each chunk's start
        while True:
            line_end = data.find(b"\r\n", pos)
            if line_end < 0:
                break
            size = int(data[pos:line_end].split(b";")[0] or b"0", 16)
            pos = line_end + 2
            if size == 0:
                trailer_end = data.find(b"\r\n", pos)
                pos = trailer_end + 2 if trailer_end >= 0 else len(data)
                break
            body_map.append((len(body), pos))
            body += data[pos : pos + size]
            pos += size + 2
        starts = [b for b, _ in body_map]
        text = bytes(body).replace(b"\r\n", b"\n")
        if len(text) != len(body):  # CRLF framing: offsets no longer line up, fall back per event
            starts, body_map = [0], [(0, pos)]
        cursor = 0
        while True:
            end = text.find(b"\n\n", cursor)
            if end < 0:
                break
            block = text[cursor:end]
            last = end + 1  # the closing newline's body offset
            i = bisect.bisect_right(starts, last) - 1
            raw_off = body_map[i][1] + (last - body_map[i][0])
            kind = b""
            for line in block.split(b"\n"):
                if line.startswith(b"event:"):
                    kind = line[6:].strip()
                    break
            if not kind:
                m = _TYPE_RE.search(block)
                kind = m.group(1) if m else b""
            if kind:
                ex.events.append((_time_at(ends, stamps, raw_off), kind))
            cursor = end + 2


def exchanges(packets: list[Packet], port: int) -> list[WireExchange]:
    """Every request to ``port`` the packets hold, with its response's event times."""
    streams = split_tcp(packets, port)
    out: list[WireExchange] = []
    for (client_port, gen, upstream), stream in streams.items():
        if not upstream:
            continue
        exs = parse_requests(*stream.assemble())
        down = streams.get((client_port, gen, False))
        if down is not None:
            parse_responses(*down.assemble(), exs)
        out.extend(exs)
    out.sort(key=lambda e: e.request_at)
    return out
