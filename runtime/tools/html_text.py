"""HTML → readable text for ``web_fetch``: no scripts, styles or tags; block elements become line
breaks, headings get '#', list items '- ', links keep their URLs. Its own module so ``html.parser``
(about 0.1 s to import in Pyodide) is imported on the first fetched page, not on the way to ``ready``.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

_SKIP = frozenset({"script", "style", "noscript", "template", "svg", "iframe", "object", "canvas"})
_BLOCK = frozenset(
    {"p", "div", "section", "article", "main", "header", "footer", "nav", "aside", "br", "hr", "tr", "table",
     "ul", "ol", "dl", "dt", "dd", "blockquote", "figure", "figcaption", "form", "address", "details",
     "summary", "h1", "h2", "h3", "h4", "h5", "h6", "li", "pre", "title"}
)  # fmt: skip
_ITEMS = frozenset({"li", "dt", "dd", "tr"})  # the next item's start breaks the line; no blank line between


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
