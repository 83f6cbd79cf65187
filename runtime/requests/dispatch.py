"""Host ``request`` → handler, through one table (``methods``), and the reply for each outcome.

A handler gets the ``Ports`` (``runtime.requests.ports``) and the request's ``params``, checked here
against its method's params ``TypedDict`` (``runtime.requests.method``), and returns the ``result``
(its result ``TypedDict``). A failure replies ``ok: false`` with ``error: {"code", "message",
"retryable"}``: ``RequestError`` (``bad_params``, ...), a store error (``not_found``, ``invalid``,
...), a skill error (its reason), a provider error (its code), ``cancelled`` or ``internal``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from runtime.errors import ProviderError, TidepoolError
from runtime.host.messages import Reply, ReplyError, Request, RuntimeMessage
from runtime.host.outgoing import fit_reply
from runtime.requests.method import Table
from runtime.requests.params import RequestError
from runtime.requests.ports import Ports

log = logging.getLogger(__name__)

ErrorBody = ReplyError


class Requests:
    """The host requests in flight: each runs as its own task, so a ``cancel`` can stop it."""

    def __init__(
        self, ports: Ports, send: Callable[[RuntimeMessage], None], shares_files: Callable[[], bool] = lambda: False
    ) -> None:
        self._ports = ports
        self._send = send
        self._shares_files = shares_files  # the host reads a too-large result from a file (host/outgoing.py)
        self._tasks: dict[str, asyncio.Task[None]] = {}

    def start(self, message: Request) -> None:
        request_id = message["id"]
        task = asyncio.ensure_future(self._answer(request_id, message["method"], message.get("params") or {}))
        self._tasks[request_id] = task
        task.add_done_callback(lambda _: self._tasks.pop(request_id, None))

    def cancel(self, request_id: str) -> None:
        task = self._tasks.get(request_id)
        if task:
            task.cancel()

    def running(self) -> list[asyncio.Task[None]]:
        return list(self._tasks.values())

    async def _answer(self, request_id: str, method: str, params: dict[str, Any]) -> None:
        try:
            result, error = await answer(self._ports, method, params)
        except asyncio.CancelledError:
            result, error = None, {"code": "cancelled", "message": "the request was cancelled", "retryable": False}
        reply: Reply = {"type": "reply", "id": request_id, "ok": error is None}
        if error is None:
            reply["result"] = result
        else:
            reply["error"] = error
        self._send(fit_reply(reply) if self._shares_files() else reply)


_METHODS: Table = {}


def methods() -> Table:
    """The one table of request methods (built on first use: handler modules import lazily)."""
    if not _METHODS:
        from runtime.requests import (
            agents,
            backup,
            branches,
            chats,
            checkpoints,
            context,
            images,
            memory,
            runtime_info,
            sessions,
            skills,
        )

        for table in (
            runtime_info.METHODS,
            sessions.METHODS,
            branches.METHODS,
            memory.METHODS,
            skills.METHODS,
            context.METHODS,
            images.METHODS,
            checkpoints.METHODS,
            chats.METHODS,
            backup.METHODS,
            agents.METHODS,
        ):
            overlap = set(table) & set(_METHODS)
            if overlap:
                raise ValueError(f"request methods defined twice: {sorted(overlap)}")
            _METHODS.update(table)
    return _METHODS


async def answer(ports: Ports, method: str, params: dict[str, Any]) -> tuple[Any, ErrorBody | None]:
    """Run ``method``; ``(result, None)`` or ``(None, error)``."""
    entry = methods().get(method)
    if entry is None:
        return None, {"code": "unknown_method", "message": f"no method {method!r}", "retryable": False}
    try:
        problem = entry.problem(params)
        if problem:
            raise RequestError("bad_params", f"{method}: params {problem}")
        return await entry.handler(ports, params), None
    except ProviderError as exc:
        return None, {"code": exc.code, "message": exc.message, "retryable": exc.retryable}
    except TidepoolError as exc:
        return None, {"code": exc.code, "message": exc.message, "retryable": False}
    except asyncio.CancelledError:
        return None, {"code": "cancelled", "message": "the request was cancelled", "retryable": False}
    except Exception as exc:
        log.exception("request %s failed", method)
        return None, {"code": "internal", "message": f"{type(exc).__name__}: {exc}", "retryable": False}
