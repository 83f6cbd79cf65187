"""Host ``request`` → handler, through one table (``methods``), and the reply for each outcome.

A handler gets the session and the request's ``params`` (an object) and returns the ``result``. A
failure replies ``ok: false`` with ``error: {"code", "message", "retryable"}``: ``RequestError``
(``bad_params``, ...), a store error (``not_found``, ``invalid``, ...), a skill error (its reason), a
provider error (its code), ``cancelled`` or ``internal``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from runtime.errors import ProviderError, TidepoolError
from runtime.host.messages import Request

if TYPE_CHECKING:
    from runtime.session import Session

log = logging.getLogger(__name__)

Handler = Callable[["Session", dict[str, Any]], Awaitable[Any]]
ErrorBody = dict[str, Any]


class Requests:
    """The host requests in flight: each runs as its own task, so a ``cancel`` can stop it."""

    def __init__(self, session: Session) -> None:
        self._session = session
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
            result, error = await answer(self._session, method, params)
        except asyncio.CancelledError:
            result, error = None, {"code": "cancelled", "message": "the request was cancelled", "retryable": False}
        reply: dict[str, Any] = {"type": "reply", "id": request_id, "ok": error is None}
        reply.update({"result": result} if error is None else {"error": error})
        self._session.transport.send(reply)


class RequestError(TidepoolError):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


_METHODS: dict[str, Handler] = {}


def methods() -> dict[str, Handler]:
    """The one table of request methods (built on first use: handler modules import lazily)."""
    if not _METHODS:
        from runtime.requests import basic, memory, sessions, skills

        for table in (basic.METHODS, sessions.METHODS, memory.METHODS, skills.METHODS):
            overlap = set(table) & set(_METHODS)
            if overlap:
                raise ValueError(f"request methods defined twice: {sorted(overlap)}")
            _METHODS.update(table)
    return _METHODS


async def answer(session: Session, method: str, params: dict[str, Any]) -> tuple[Any, ErrorBody | None]:
    """Run ``method``; ``(result, None)`` or ``(None, error)``."""
    handler = methods().get(method)
    if handler is None:
        return None, {"code": "unknown_method", "message": f"no method {method!r}", "retryable": False}
    try:
        return await handler(session, params), None
    except ProviderError as exc:
        return None, {"code": exc.code, "message": exc.message, "retryable": exc.retryable}
    except TidepoolError as exc:
        return None, {"code": exc.code, "message": exc.message, "retryable": False}
    except asyncio.CancelledError:
        return None, {"code": "cancelled", "message": "the request was cancelled", "retryable": False}
    except Exception as exc:
        log.exception("request %s failed", method)
        return None, {"code": "internal", "message": f"{type(exc).__name__}: {exc}", "retryable": False}


# ---- params ---------------------------------------------------------------------------------------------


def text(params: dict[str, Any], key: str, *, default: str | None = None, empty: bool = False) -> str:
    value = params.get(key, default)
    if not isinstance(value, str) or (not empty and not value.strip()):
        raise RequestError("bad_params", f"params.{key} must be a non-empty string")
    return value


def optional_text(params: dict[str, Any], key: str) -> str | None:
    value = params.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise RequestError("bad_params", f"params.{key} must be a string")
    return value


def integer(params: dict[str, Any], key: str, *, default: int | None = None, low: int = 0, high: int = 10**9) -> int:
    value = params.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise RequestError("bad_params", f"params.{key} must be a whole number from {low} to {high}")
    return value


def flag(params: dict[str, Any], key: str, *, default: bool | None = None) -> bool:
    value = params.get(key, default)
    if not isinstance(value, bool):
        raise RequestError("bad_params", f"params.{key} must be true or false")
    return value


def optional_flag(params: dict[str, Any], key: str) -> bool | None:
    return None if params.get(key) is None else flag(params, key)


def optional_tags(params: dict[str, Any], key: str = "tags") -> list[str] | None:
    value = params.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        raise RequestError("bad_params", f"params.{key} must be a list of strings")
    return value
