"""The SSE parser on recorded provider streams, fed in random splits and with every line ending."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from runtime.providers.sse import SSEEvent, SSEParser

STREAMS = Path(__file__).resolve().parents[2] / "fixtures" / "streams"
RECORDED = sorted(STREAMS.glob("*.sse"))


def _parse(chunks: list[bytes]) -> tuple[list[SSEEvent], int]:
    parser = SSEParser()
    events: list[SSEEvent] = []
    for chunk in chunks:
        events.extend(parser.feed(chunk))
    events.extend(parser.close())
    return events, parser.comments


def _random_splits(data: bytes, rng: random.Random) -> list[bytes]:
    chunks, i = [], 0
    while i < len(data):
        n = rng.choice([1, 2, 3, 7, 64, 500])
        chunks.append(data[i : i + n])
        i += n
    return chunks


def _expected(data: bytes) -> tuple[list[str], int]:
    """The data payloads and the comment count, read naively from an LF-only recording."""
    blocks = [b for b in data.decode().split("\n\n") if b.strip()]
    payloads = []
    comments = 0
    for block in blocks:
        lines = block.split("\n")
        comments += sum(1 for line in lines if line.startswith(":"))
        data_lines = [line[len("data: ") :] for line in lines if line.startswith("data: ")]
        if data_lines:
            payloads.append("\n".join(data_lines))
    return payloads, comments


@pytest.mark.parametrize("path", [pytest.param(p, id=p.name) for p in RECORDED])
@pytest.mark.parametrize(
    "newline", [pytest.param(b"\n", id="LF"), pytest.param(b"\r\n", id="CRLF"), pytest.param(b"\r", id="CR")]
)
def test_recorded_stream_in_random_splits(path: Path, newline: bytes) -> None:
    raw = path.read_bytes()
    payloads, comments = _expected(raw)
    data = raw.replace(b"\n", newline)
    rng = random.Random(f"{path.name}{newline!r}")
    for _ in range(25):
        events, seen_comments = _parse(_random_splits(data, rng))
        assert [e.data for e in events] == payloads
        assert seen_comments == comments
    assert payloads[-1] == "[DONE]"
    assert all(json.loads(p) for p in payloads[:-1])


def test_every_byte_split_of_a_small_stream() -> None:
    data = b': keep-alive\r\n\r\ndata: {"a":\r\ndata: 1}\r\n\r\nevent: note\nid: 7\ndata: x\n\ndata: [DONE]\n\n'
    want = [SSEEvent('{"a":\n1}'), SSEEvent("x", "note", "7"), SSEEvent("[DONE]", "message", "7")]
    for cut in range(len(data) + 1):
        assert _parse([data[:cut], data[cut:]])[0] == want, f"split at {cut}"


@pytest.mark.parametrize(
    ("data", "want"),
    [
        pytest.param(b"data:no-space\n\n", ["no-space"], id="no space after colon"),
        pytest.param(b"data:  two\n\n", [" two"], id="only one space is stripped"),
        pytest.param(b"data\n\n", [""], id="field without colon"),
        pytest.param(b"\xef\xbb\xbfdata: bom\n\n", ["bom"], id="byte order mark"),
        pytest.param(b"data: a\n\n\n\ndata: b\n\n", ["a", "b"], id="extra blank lines"),
        pytest.param(b"retry: 100\nfoo: bar\n\n", [], id="no data, no event"),
        pytest.param(b"data: unterminated", [], id="event without its blank line is dropped"),
        pytest.param("data: é☃\n\n".encode(), ["é☃"], id="utf-8"),
    ],
)
def test_edge_cases(data: bytes, want: list[str]) -> None:
    for cut in range(len(data) + 1):
        assert [e.data for e in _parse([data[:cut], data[cut:]])[0]] == want


def test_line_limit() -> None:
    parser = SSEParser(max_line=100)
    with pytest.raises(ValueError, match="over 100"):
        parser.feed(b"data: " + b"x" * 200)
