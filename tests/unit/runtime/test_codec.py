"""The frame codec against the shared vectors (tests/vectors/frames.json), whole and split at every byte."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from runtime.host.codec import Decoder, Frame, FrameTooLarge, Item, Malformed, Stray, encode

VECTORS = json.loads((Path(__file__).resolve().parents[2] / "vectors" / "frames.json").read_text())


def _normalize(items: list[Item]) -> list[dict[str, Any]]:
    """Items as the vectors write them, adjacent strays merged."""
    out: list[dict[str, Any]] = []
    for item in items:
        if isinstance(item, Stray):
            if out and out[-1]["kind"] == "stray":
                out[-1]["data"] += item.data
            else:
                out.append({"kind": "stray", "data": item.data})
        elif isinstance(item, Frame):
            out.append({"kind": "message", "message": item.message})
        elif isinstance(item, Malformed):
            out.append({"kind": "malformed", "code": item.code})
    for entry in out:
        if entry["kind"] == "stray":
            entry["data_b64"] = base64.b64encode(entry.pop("data")).decode()
    return out


def _decode(chunks: list[bytes], max_frame: int) -> list[dict[str, Any]]:
    decoder = Decoder(max_frame)
    items: list[Item] = []
    for chunk in chunks:
        items.extend(decoder.feed(chunk))
    return _normalize(items)


@pytest.mark.parametrize("vector", [pytest.param(v, id=v["name"]) for v in VECTORS["decode"]])
def test_decode_whole(vector: dict[str, Any]) -> None:
    data = base64.b64decode(vector["input_b64"])
    assert _decode([data], vector["max_frame"]) == vector["expect"]


@pytest.mark.parametrize("vector", [pytest.param(v, id=v["name"]) for v in VECTORS["decode"]])
def test_decode_split_at_every_byte(vector: dict[str, Any]) -> None:
    data = base64.b64decode(vector["input_b64"])
    for cut in range(1, len(data)):
        got = _decode([data[:cut], data[cut:]], vector["max_frame"])
        assert got == vector["expect"], f"split at byte {cut}"


@pytest.mark.parametrize("vector", [pytest.param(v, id=v["name"]) for v in VECTORS["decode"]])
def test_decode_one_byte_at_a_time(vector: dict[str, Any]) -> None:
    data = base64.b64decode(vector["input_b64"])
    got = _decode([data[i : i + 1] for i in range(len(data))], vector["max_frame"])
    assert got == vector["expect"]


@pytest.mark.parametrize("vector", [pytest.param(v, id=v["name"]) for v in VECTORS["encode"]])
def test_encode(vector: dict[str, Any]) -> None:
    frame = encode(vector["message"])
    assert frame == base64.b64decode(vector["frame_b64"])
    assert _decode([frame], 1024) == [{"kind": "message", "message": vector["message"]}]


@pytest.mark.parametrize(
    ("message", "error"),
    [
        pytest.param({"no": "type"}, ValueError, id="no type"),
        pytest.param({"type": 3}, ValueError, id="type not a string"),
        pytest.param({"type": "x", "pad": "y" * 100}, FrameTooLarge, id="over the limit"),
    ],
)
def test_encode_refuses(message: dict[str, Any], error: type[Exception]) -> None:
    with pytest.raises(error):
        encode(message, max_frame=64)


def test_oversized_frame_is_not_buffered() -> None:
    decoder = Decoder(max_frame=16)
    items = list(decoder.feed(b"\x1eTP1:1000000:" + b"x" * 5000))
    assert [type(i) for i in items] == [Malformed]
    assert len(decoder._buf) == 0  # the payload is skipped as it arrives, not kept
    rest = b"x" * (1000000 - 5000) + b"\n" + encode({"type": "after"})
    assert _normalize(list(decoder.feed(rest))) == [{"kind": "message", "message": {"type": "after"}}]


def test_the_frame_limit_is_16_mib_and_a_larger_frame_is_refused_with_its_size_and_the_limit() -> None:
    from runtime.host.constants import MAX_FRAME_BYTES

    assert MAX_FRAME_BYTES == 16 * 1024 * 1024
    skeleton = len(encode({"type": "x", "pad": ""}, max_frame=1 << 30)) - len(f"\x1eTP1:{0}:\n")
    fits = {"type": "x", "pad": "y" * (MAX_FRAME_BYTES - skeleton - 2)}  # the header's length has more digits
    assert len(encode(fits)) > MAX_FRAME_BYTES - 64
    with pytest.raises(FrameTooLarge, match=f"over the limit of {MAX_FRAME_BYTES}"):
        encode({"type": "x", "pad": "y" * MAX_FRAME_BYTES})
    oversized = encode({"type": "x", "pad": "y" * MAX_FRAME_BYTES}, max_frame=1 << 30)
    items = list(Decoder().feed(oversized + encode({"type": "after"})))
    assert isinstance(items[0], Malformed) and items[0].code == "too_large"
    payload = len(oversized) - len(f"\x1eTP1:{MAX_FRAME_BYTES}:\n")  # (lengths of the same digit count)
    assert items[0].detail == f"frame of {payload} bytes is over the limit of {MAX_FRAME_BYTES}"
    assert isinstance(items[1], Frame) and items[1].message == {"type": "after"}
