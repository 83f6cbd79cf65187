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
from html.parser import HTMLParser
from typing import Annotated
from urllib.parse import quote, urljoin, urlsplit

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

_SKIP = frozenset({"script", "style", "noscript", "template", "svg", "iframe", "object", "canvas"})
_BLOCK = frozenset(
    {"p", "div", "section", "article", "main", "header", "footer", "nav", "aside", "br", "hr", "tr", "table",
     "ul", "ol", "dl", "dt", "dd", "blockquote", "figure", "figcaption", "form", "address", "details",
     "summary", "h1", "h2", "h3", "h4", "h5", "h6", "li", "pre", "title"}
)  # fmt: skip
_ITEMS = frozenset({"li", "dt", "dd", "tr"})  # the next item's start breaks the line; no blank line between
_TEXT_TYPES = ("text/", "application/json", "application/xml", "application/xhtml+xml", "application/javascript")


class _TextExtractor(HTMLParser):
    """HTML → text: block elements become line breaks, headings get '#', list items '- ', links keep URLs."""

    def __init__(self, base_url: str) -> None:
        super().__init__(convert_charrefs=True)
        self.base_url = base_url
        self.out: list[str] = []
        self.title = ""
        self._skip_depth = 0
        self._in_title = False
        self._pre = 0
        self._href: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = True
            return
        if tag in _SKIP:
            self._skip_depth += 1
            return
        if self._skip_depth:
            return
        if tag in _BLOCK:
            self.out.append("\n")
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            self.out.append("#" * int(tag[1]) + " ")
        elif tag == "li":
            self.out.append("- ")
        elif tag == "pre":
            self._pre += 1
        elif tag == "a":
            href = dict(attrs).get("href") or ""
            self._href = urljoin(self.base_url, href) if href and not href.startswith("#") else None
        elif tag in ("td", "th"):
            self.out.append(" | ")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
            return
        if tag in _SKIP:
            self._skip_depth = max(0, self._skip_depth - 1)
            return
        if self._skip_depth:
            return
        if tag == "pre":
            self._pre = max(0, self._pre - 1)
        if tag == "a" and self._href:
            if urlsplit(self._href).scheme in ("http", "https"):
                self.out.append(f" ({self._href})")
            self._href = None
        if tag in _BLOCK and tag not in _ITEMS:
            self.out.append("\n")

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
            return
        if self._skip_depth:
            return
        self.out.append(data if self._pre else re.sub(r"\s+", " ", data))

    def text(self) -> str:
        # Outside <pre> whitespace runs are already one space; a single leading space is layout, not indent.
        lines = [_unindent(line.rstrip()) for line in "".join(self.out).split("\n")]
        body = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
        title = " ".join(self.title.split())
        return f"# {title}\n\n{body}" if title and body else (title or body)


def _unindent(line: str) -> str:
    return line[1:] if line.startswith(" ") and not line.startswith("  ") else line


def html_to_text(markup: str, base_url: str = "") -> str:
    """Readable text from an HTML document: no scripts, styles or tags."""
    parser = _TextExtractor(base_url)
    parser.feed(markup)
    parser.close()
    return parser.text()


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
