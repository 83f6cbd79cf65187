"""Code in replies: highlighted (the highlighter loads only once a reply holds code), still sanitized,
and each block copies its code."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from scripts.fakes.fake_llm import FakeLLM
from scripts.fakes.replies import Reply
from tests.e2e.conftest import KEY, MODEL, App
from tests.e2e.ui import REPLY_TIMEOUT_MS, connect_openrouter, eventually, send_for_reply, wait_ready

PYTHON = 'def tide(hour):\n    return "high" if hour < 6 else "low"\n'
HOSTILE_HTML = '<img src=x onerror="document.title=\'pwned\'"><script>document.title="pwned"</script>'
REPLY = f"Here it is:\n\n```python\n{PYTHON}```\n\nAnd some HTML:\n\n```html\n{HOSTILE_HTML}\n```\n"


def _highlighter_requests(app: App) -> list[str]:
    return [r for r in app.traffic.requests if "/assets/highlighter" in r]


def test_code_blocks_are_highlighted_lazily_sanitized_and_copied(connected_app: App, fake: FakeLLM) -> None:
    fake.reset(api_key=KEY)
    app = connected_app
    page: Page = app.page
    app.context.grant_permissions(["clipboard-read", "clipboard-write"])
    wait_ready(page)
    assert not _highlighter_requests(app), "the first paint does not load the highlighter"
    fake.script([Reply.text(REPLY)])
    reply = send_for_reply(page, "Show me code")
    expect(reply.locator("pre code").first).to_contain_text("def tide", timeout=REPLY_TIMEOUT_MS)
    expect(reply.locator("pre code .hljs-keyword").first).to_have_text("def", timeout=REPLY_TIMEOUT_MS)
    assert _highlighter_requests(app), "the highlighter came once a reply held code"
    html_block = reply.locator("pre code").nth(1)
    expect(html_block).to_contain_text("<script>")  # shown as text
    expect(reply.locator("img, script")).to_have_count(0)
    assert page.title() != "pwned"
    wait_ready(page)
    copies = reply.get_by_test_id("code-copy")
    expect(copies).to_have_count(2)
    copies.first.click()
    eventually(page, lambda: page.evaluate("navigator.clipboard.readText()") == PYTHON, what="the code copied")


def test_code_in_a_long_reply_is_highlighted_where_it_is(app: App, fake: FakeLLM) -> None:
    """A reply too long to be drawn again whole at its end, its code drawn before the highlighter came (its
    first block asks for it while the rest streams in): that code is highlighted in place once it comes."""
    page: Page = app.page
    wait_ready(page)
    connect_openrouter(page, f"{fake.base_url}/api/v1", KEY, MODEL)
    wait_ready(page)
    assert not _highlighter_requests(app), "the first paint does not load the highlighter"
    section = "## Part {n}\n\nSome words before the code.\n\n```python\ndef part_{n}():\n    return {n}\n```\n\n"
    text = "".join(section.format(n=n) for n in range(2_400))  # past the 200,000 characters drawn again whole
    fake.script([Reply.text(text, chunk_chars=16_384)])
    reply = send_for_reply(page, "Show me a lot of code")
    expect(reply.locator("pre code")).to_have_count(2_400, timeout=REPLY_TIMEOUT_MS)
    wait_ready(page)
    expect(reply.locator("pre code:not(:has(.hljs-keyword))")).to_have_count(0, timeout=REPLY_TIMEOUT_MS)
    expect(reply.locator("pre code").last.locator(".hljs-keyword").first).to_have_text("def")
    expect(reply.get_by_test_id("code-copy")).to_have_count(2_400)
    # Drawn again from the store after a reload, before the highlighter has come again: highlighted once it comes.
    page.reload()
    wait_ready(page)
    stored = page.locator('[data-testid="message"][data-role="assistant"]').last
    expect(stored.locator("pre code")).to_have_count(2_400, timeout=REPLY_TIMEOUT_MS)
    expect(stored.locator("pre code:not(:has(.hljs-keyword))")).to_have_count(0, timeout=REPLY_TIMEOUT_MS)
    # In blocks, as it streamed (stored-reply.ts), each drawn as markdown with its copy buttons.
    expect(stored.locator(".md-waiting")).to_have_count(0, timeout=REPLY_TIMEOUT_MS)
    assert stored.locator(".md-done > .md-block").count() > 10
    expect(stored.get_by_test_id("code-copy")).to_have_count(2_400)
