"""Reading a request's ``params``: each reader raises ``RequestError("bad_params", ...)`` with the
field's name when the value is missing or of the wrong kind."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from runtime.errors import TidepoolError


class RequestError(TidepoolError):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def text(params: Mapping[str, Any], key: str, *, default: str | None = None, empty: bool = False) -> str:
    value = params.get(key, default)
    if not isinstance(value, str) or (not empty and not value.strip()):
        raise RequestError("bad_params", f"params.{key} must be a non-empty string")
    return value


def optional_text(params: Mapping[str, Any], key: str) -> str | None:
    value = params.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise RequestError("bad_params", f"params.{key} must be a string")
    return value


def integer(params: Mapping[str, Any], key: str, *, default: int | None = None, low: int = 0, high: int = 10**9) -> int:
    value = params.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise RequestError("bad_params", f"params.{key} must be a whole number from {low} to {high}")
    return value


def flag(params: Mapping[str, Any], key: str, *, default: bool | None = None) -> bool:
    value = params.get(key, default)
    if not isinstance(value, bool):
        raise RequestError("bad_params", f"params.{key} must be true or false")
    return value


def optional_flag(params: Mapping[str, Any], key: str) -> bool | None:
    return None if params.get(key) is None else flag(params, key)


def optional_tags(params: Mapping[str, Any], key: str = "tags") -> list[str] | None:
    value = params.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        raise RequestError("bad_params", f"params.{key} must be a list of strings")
    return value
