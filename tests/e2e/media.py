"""Images and files for the chat's end-to-end tests: real PNG bytes, and paste/drop as a browser does
them (a `DataTransfer` holding `File`s, dispatched as `paste` / `drop` events)."""

from __future__ import annotations

import base64
import struct
import zlib

from playwright.sync_api import Page


def png(width: int, height: int, rgb: tuple[int, int, int] = (200, 40, 40)) -> bytes:
    """A real, decodable PNG of one colour."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    row = b"\x00" + bytes(rgb) * width
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    pixels = zlib.compress(row * height)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


_DISPATCH = """
([selector, kind, files]) => {
  const data = new DataTransfer();
  for (const [name, type, b64] of files) {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    data.items.add(new File([bytes], name, { type }));
  }
  const target = document.querySelector(selector);
  const event = kind === "paste"
    ? new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true })
    : new DragEvent(kind, { dataTransfer: data, bubbles: true, cancelable: true });
  target.dispatchEvent(event);
}
"""


def _files(files: list[tuple[str, str, bytes]]) -> list[list[str]]:
    return [[name, mime, base64.b64encode(data).decode()] for name, mime, data in files]


def paste(page: Page, files: list[tuple[str, str, bytes]]) -> None:
    """Paste files into the message box, as copying an image and pressing Ctrl+V does."""
    page.evaluate(_DISPATCH, ['[data-testid="chat-input"]', "paste", _files(files)])


def drop(page: Page, selector: str, files: list[tuple[str, str, bytes]]) -> None:
    """Drag files over `selector` and drop them there."""
    page.evaluate(_DISPATCH, [selector, "dragover", _files(files)])
    page.evaluate(_DISPATCH, [selector, "drop", _files(files)])
