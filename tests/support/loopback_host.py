"""A stand-in for the browser adapter: executes the runtime's ``http_request`` frames with aiohttp.

Like the real adapter it adds the provider key itself (only for ``auth: "provider"`` and only under the
provider's base URL), streams the body back as ``http_chunk`` frames, and aborts a request on ``cancel``.
Used with the scripted OpenAI-compatible server in ``scripts/fakes`` on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import base64

import aiohttp

from tests.support.recording import Message, RecordingHost


class LoopbackAdapter(RecordingHost):
    timeout_s = 15.0  # real HTTP to the fake provider
    def __init__(self, base_url: str, key: str | None) -> None:
        super().__init__()
        self.base_url = base_url.rstrip("/")
        self.key = key
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._session: aiohttp.ClientSession | None = None

    def on_message(self, message: Message) -> None:
        if message["type"] == "http_request":
            task = asyncio.get_running_loop().create_task(self._perform(message))
            self._tasks[message["id"]] = task
        elif message["type"] == "cancel" and message["id"] in self._tasks:
            self._tasks[message["id"]].cancel()

    async def _perform(self, request: Message) -> None:
        rid = request["id"]
        headers = dict(request["headers"])
        if request["auth"] == "provider" and self.key and request["url"].startswith(self.base_url + "/"):
            headers["Authorization"] = f"Bearer {self.key}"
        if self._session is None:
            self._session = aiohttp.ClientSession()
        timeout = aiohttp.ClientTimeout(sock_read=request["timeout_s"], sock_connect=request["timeout_s"])
        try:
            async with self._session.request(
                request["method"], request["url"], headers=headers, data=request["body"], timeout=timeout
            ) as response:
                head = {k.lower(): v for k, v in response.headers.items()}
                self.send({"type": "http_head", "id": rid, "status": response.status, "headers": head})
                async for chunk in response.content.iter_any():
                    self.send({"type": "http_chunk", "id": rid, "data": base64.b64encode(chunk).decode()})
            self.send({"type": "http_end", "id": rid})
        except asyncio.CancelledError:
            self.send({"type": "http_error", "id": rid, "kind": "aborted", "message": "cancelled"})
        except (aiohttp.ClientError, OSError, TimeoutError) as exc:
            self.send({"type": "http_error", "id": rid, "kind": "network", "message": str(exc) or type(exc).__name__})
        finally:
            self._tasks.pop(rid, None)

    async def close(self) -> None:
        for task in list(self._tasks.values()):
            task.cancel()
        await asyncio.sleep(0)
        if self._session is not None:
            await self._session.close()
        await super().close()
