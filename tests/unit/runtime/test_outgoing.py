"""A reply too large for one frame goes to the host as a file (runtime/host/outgoing.py), whole."""

from __future__ import annotations

import json
from pathlib import Path

from runtime.host.codec import encode
from runtime.host.messages import Reply
from runtime.host.outgoing import fit_reply


def test_a_reply_that_fits_is_sent_as_it_is(tmp_path: Path) -> None:
    reply: Reply = {"type": "reply", "id": "h3", "ok": True, "result": {"text": "short"}}
    assert fit_reply(reply, tmp_path, max_frame=1024) is reply
    assert list(tmp_path.iterdir()) == []


def test_a_reply_over_the_limit_names_a_file_holding_its_whole_result(tmp_path: Path) -> None:
    result = {"format": "markdown", "text": "é long line\n" * 500}
    reply: Reply = {"type": "reply", "id": "h4", "ok": True, "result": result}
    fitted = fit_reply(reply, tmp_path / "outgoing", max_frame=1024)
    assert fitted == {"type": "reply", "id": "h4", "ok": True, "result_file": str(tmp_path / "outgoing" / "h4.json")}
    assert json.loads(Path(fitted["result_file"]).read_text(encoding="utf-8")) == result
    assert len(encode(fitted, 1024)) < 1024


def test_an_error_reply_is_never_moved_to_a_file(tmp_path: Path) -> None:
    reply: Reply = {"type": "reply", "id": "h5", "ok": False, "error": {"code": "x", "message": "m" * 2000}}
    assert fit_reply(reply, tmp_path, max_frame=1024) is reply
