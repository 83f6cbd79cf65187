"""A reply too large for one frame reaches the host through the file system, never cut or dropped.

A host that declared the ``files`` capability shares the runtime's file system (the adapter runs in the
same worker as Pyodide). For it, a ``reply`` whose frame would be over ``MAX_FRAME_BYTES`` (a long
session exported, a huge session opened) is written as JSON to ``OUTGOING_DIR/<id>.json`` and the frame
carries ``result_file`` (that path) instead of ``result``; the host reads the file, removes it and
answers its caller with what it holds. Other hosts get the ``frame_too_large`` error as before.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from runtime.host.codec import DEFAULT_MAX_FRAME, FrameTooLarge, encode
from runtime.host.constants import OUTGOING_DIR
from runtime.host.messages import Reply


def fit_reply(reply: Reply, directory: Path = Path(OUTGOING_DIR), max_frame: int = DEFAULT_MAX_FRAME) -> Reply:
    """``reply`` when it fits in one frame, else a reply naming the file that holds its result."""
    if "result" not in reply:
        return reply
    try:
        encode(reply, max_frame)
        return reply
    except FrameTooLarge:
        pass
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{re.sub(r'[^A-Za-z0-9_-]', '_', reply['id'])}.json"
    path.write_text(json.dumps(reply["result"], ensure_ascii=False), encoding="utf-8")
    return {"type": "reply", "id": reply["id"], "ok": reply["ok"], "result_file": str(path)}
