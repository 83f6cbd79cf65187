"""The memory of each JavaScript target of the tab (the page, its workers, the sandbox's frame and worker),
read over the browser's CDP session: each target's JS heap after a GC (`Runtime.getHeapUsage`: the used
heap and the array buffers' backing stores; a Wasm memory is in neither). Targets are attached without
flattening, so their answers come back as `Target.receivedMessageFromTarget` events (Playwright's CDP
session has no session ids). `Runtime.queryObjects` would find the Wasm memories, but it crashes the
renderer in a worker that has one (Chromium 156): those are in the renderers' private memory only.
"""

from __future__ import annotations

import contextlib
import json
import time
from dataclasses import dataclass
from typing import Any

from playwright.sync_api import Browser, CDPSession, Error, Page

KINDS = ("page", "iframe", "worker")  # not the service worker (the offline cache), not the browser's own
ANSWER_S = 30.0


@dataclass(frozen=True)
class TargetMemory:
    kind: str
    url: str
    heap_used: int  # JS heap after a GC
    backing: int  # the array buffers' backing stores


class _Target:
    """One attached target: requests by id, answered through the browser session's events."""

    def __init__(self, cdp: CDPSession, page: Page, session_id: str, answers: dict[str, dict[int, Any]]) -> None:
        self._cdp, self._page, self._session, self._answers = cdp, page, session_id, answers
        self._next = 0

    def send(self, method: str, params: dict[str, Any] | None = None) -> Any:
        self._next += 1
        ident = self._next
        message = json.dumps({"id": ident, "method": method, "params": params or {}})
        self._cdp.send("Target.sendMessageToTarget", {"sessionId": self._session, "message": message})
        deadline = time.monotonic() + ANSWER_S
        while ident not in self._answers.get(self._session, {}):
            if time.monotonic() > deadline:
                raise TimeoutError(f"{method}: no answer from the target in {ANSWER_S:.0f} s")
            self._page.wait_for_timeout(10)
        answer = self._answers[self._session].pop(ident)
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error']}")
        return answer.get("result", {})

    def memory(self, kind: str, url: str) -> TargetMemory:
        self.send("HeapProfiler.collectGarbage")
        heap = self.send("Runtime.getHeapUsage")
        return TargetMemory(kind, url, int(heap["usedSize"]), int(heap.get("backingStorageSize", 0)))


def tab_targets(browser: Browser, page: Page) -> list[TargetMemory]:
    """Every page, frame and worker target the browser has (only one tab is open when this is read)."""
    cdp = browser.new_browser_cdp_session()
    answers: dict[str, dict[int, Any]] = {}

    def received(event: dict[str, Any]) -> None:
        message = json.loads(event["message"])
        if "id" in message:
            answers.setdefault(event["sessionId"], {})[int(message["id"])] = message

    cdp.on("Target.receivedMessageFromTarget", received)
    out: list[TargetMemory] = []
    try:
        for info in cdp.send("Target.getTargets")["targetInfos"]:
            if info["type"] not in KINDS:
                continue
            session = cdp.send("Target.attachToTarget", {"targetId": info["targetId"], "flatten": False})["sessionId"]
            out.append(_Target(cdp, page, session, answers).memory(info["type"], info["url"]))
            with contextlib.suppress(Error):  # the target detached itself once read (a worker's session can)
                cdp.send("Target.detachFromTarget", {"sessionId": session})
    finally:
        cdp.detach()
    return out
