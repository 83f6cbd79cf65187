"""web_fetch: a web page through the app's same-origin proxy, as readable text marked untrusted.

The request goes to ``/api/proxy?url=<quoted>`` (a path: the adapter resolves it against the app's
origin; its egress rule allows nothing else without credentials). HTML becomes plain text without
scripts, styles or markup; the result is bounded and wrapped in ``<untrusted_content>`` so the model
treats it as data, never as instructions (``runtime.tools.untrusted``). A page that comes with a non-2xx
status is an error whose page text is wrapped the same way; the proxy's own refusals are shown as is.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Annotated
from urllib.parse import quote, urlsplit

from runtime.errors import HostHttpError
from runtime.tools.base import HttpResult, ToolContext, ToolDefinition, ToolError, tool
from runtime.tools.untrusted import NOTES, wrap_untrusted

log = logging.getLogger(__name__)

PROXY_PATH = "/api/proxy"
MAX_FETCH_BYTES = 2_000_000
MAX_TEXT_CHARS = 40_000
FETCH_TIMEOUT_S = 30.0
MAX_ERROR_PAGE_CHARS = 2_000
UNTRUSTED_NOTE = NOTES["web"]

_TEXT_TYPES = ("text/", "application/json", "application/xml", "application/xhtml+xml", "application/javascript")


def proxy_url(url: str) -> str:
    """The same-origin proxy path that fetches ``url``."""
    return f"{PROXY_PATH}?url={quote(url, safe='')}"


def _charset(content_type: str) -> str:
    match = re.search(r"charset=[\"']?([\w.:-]+)", content_type, re.IGNORECASE)
    return match.group(1) if match else "utf-8"


def _decode(response: HttpResult, url: str) -> str:
    content_type = response.headers.get("content-type", "").lower()
    mime = content_type.split(";")[0].strip()
    if mime and not (mime.startswith(_TEXT_TYPES) or mime.endswith(("+xml", "+json"))):
        raise ToolError(f"{url} is {mime}, not text or HTML; web_fetch shows text only")
    try:
        raw = response.body.decode(_charset(content_type), errors="replace")
    except LookupError:
        raw = response.body.decode("utf-8", errors="replace")
    if "html" in content_type or (not content_type and raw.lstrip()[:15].lower().startswith(("<!doctype", "<html"))):
        from runtime.tools.html_text import html_to_text  # on first use: html.parser costs ~0.1 s to import

        return html_to_text(raw, url)
    return raw


@tool("network")
async def web_fetch(ctx: ToolContext, url: Annotated[str, "The http(s) URL of the page to fetch"]) -> str:
    """Fetch a web page and return its readable text (HTML is converted; scripts and styles are dropped)."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ToolError(f"{url!r} is not an http(s) URL")
    url = parts.geturl()
    try:
        response = await ctx.fetch(proxy_url(url), timeout_s=FETCH_TIMEOUT_S, max_bytes=MAX_FETCH_BYTES)
    except HostHttpError as e:
        raise ToolError(f"fetching {url} failed ({e.kind}): {e.message}") from None
    if not 200 <= response.status < 300:
        raise ToolError(_failure(response, url))
    text = _decode(response, url)
    if len(text) > MAX_TEXT_CHARS:
        text = text[:MAX_TEXT_CHARS] + f"\n[truncated: the page has {len(text):,} characters of text]"
    if not text.strip():
        text = "(the page has no readable text)"
    return wrap_untrusted(text, url, "web")


def _failure(response: HttpResult, url: str) -> str:
    """The error for a non-2xx answer: the proxy's own refusal as is, an upstream page wrapped as untrusted."""
    failed = f"fetching {url} failed with HTTP {response.status}"
    if "x-proxy-error" in response.headers:
        try:
            message = str(json.loads(response.body).get("message", ""))
        except (ValueError, AttributeError):
            message = response.headers["x-proxy-error"]
        return f"{failed}: {message}" if message else failed
    try:
        text = _decode(response, url).strip()
    except ToolError:
        return failed
    if not text:
        return failed
    if len(text) > MAX_ERROR_PAGE_CHARS:
        text = text[:MAX_ERROR_PAGE_CHARS] + "\n[truncated]"
    return f"{failed}; the page says:\n{wrap_untrusted(text, url, 'web')}"


TOOLS: tuple[ToolDefinition, ...] = (web_fetch,)
