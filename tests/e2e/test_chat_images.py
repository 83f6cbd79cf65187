"""Images in messages: pasted or dropped into the message box for a model that takes images, shown as
thumbnails before and after sending (and after a reload), sent to the provider as image parts; a model
that takes none is said so and the image can go to the workspace instead; any other file dropped on the
chat goes to the workspace and is named in the message. Leaves screenshots (test-results/images-*.png)."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from scripts.fakes.fake_llm import FakeLLM
from scripts.fakes.replies import Reply
from tests.e2e.conftest import KEY, MODEL, RESULTS, App
from tests.e2e.media import drop, paste, png
from tests.e2e.ui import REPLY_TIMEOUT_MS, choose_model, close_settings, configure_provider, messages, send, wait_ready

CHAT = "/api/v1/chat/completions"
TEXT_ONLY = "meta-llama/llama-3.2-3b-instruct:free"
PHONE = {"width": 390, "height": 844}


def _connect(page: Page, fake: FakeLLM, model: str) -> None:
    wait_ready(page)
    configure_provider(page, "openrouter", f"{fake.base_url}/api/v1", KEY)
    expect(page.get_by_test_id("connection-status")).to_have_attribute("data-state", "ok", timeout=REPLY_TIMEOUT_MS)
    choose_model(page, model)
    close_settings(page)


def _decoded(page: Page, testid: str) -> list[int]:
    """The natural widths of the images with this test id (0: not decoded); each is a PNG from a data: URL
    (never a blob: URL, which would be a document of the app's origin when opened)."""
    got = page.eval_on_selector_all(f'[data-testid="{testid}"]', "els => els.map((e) => [e.naturalWidth, e.src])")
    assert all(src.startswith("data:image/png;base64,") for _, src in got), [src[:30] for _, src in got]
    return [width for width, _ in got]


def test_a_pasted_image_goes_to_a_vision_model_and_stays_with_the_message(app: App, fake: FakeLLM) -> None:
    page = app.page
    _connect(page, fake, MODEL)
    red, blue = png(40, 30), png(20, 20, (30, 60, 220))
    paste(page, [("red.png", "image/png", red)])
    paste(page, [("blue.png", "image/png", blue)])
    attachments = page.get_by_test_id("composer-attachment")
    expect(attachments).to_have_count(2)
    page.locator('[data-testid="composer-attachment"][data-name="blue.png"]').get_by_test_id(
        "composer-attachment-remove"
    ).click()
    expect(attachments).to_have_count(1)
    expect(attachments.first).to_have_attribute("data-name", "red.png")
    fake.script([Reply.text("A red rectangle.")])
    send(page, "What colour is this?")
    expect(messages(page, "assistant").last).to_contain_text("A red rectangle.", timeout=REPLY_TIMEOUT_MS)
    expect(attachments).to_have_count(0)
    user = messages(page, "user").last
    expect(user.get_by_test_id("message-image")).to_have_count(1)
    assert _decoded(page, "message-image") == [40]
    # The provider got the text and the image, as OpenAI-format parts, bytes unchanged.
    body = fake.requests_to(CHAT, "POST")[-1].json()
    parts = body["messages"][-1]["content"]
    assert parts[0] == {"type": "text", "text": "What colour is this?"}
    assert [(i.media_type, i.data) for i in fake.images_received(CHAT)[-1]] == [("image/png", red)]
    RESULTS.mkdir(exist_ok=True)
    page.screenshot(path=str(RESULTS / "images-desktop.png"))
    # After a reload the stored message shows its image again (read back from the store).
    page.reload()
    wait_ready(page)
    expect(messages(page, "user").last.get_by_test_id("message-image")).to_have_count(1, timeout=REPLY_TIMEOUT_MS)
    expect(page.get_by_test_id("message-image").first).to_have_js_property("complete", True)
    assert _decoded(page, "message-image") == [40]
    # The next turn sends the earlier image again: the model sees the whole conversation.
    fake.script([Reply.text("Still red.")])
    send(page, "And now?")
    expect(messages(page, "assistant").last).to_contain_text("Still red.", timeout=REPLY_TIMEOUT_MS)
    assert [i.data for i in fake.images_received(CHAT)[-1]] == [red]
    page.set_viewport_size(PHONE)
    paste(page, [("blue.png", "image/png", blue)])
    expect(attachments).to_have_count(1)
    page.screenshot(path=str(RESULTS / "images-phone.png"))


def test_a_model_without_vision_attaches_nothing_and_offers_the_workspace(app: App, fake: FakeLLM) -> None:
    page = app.page
    _connect(page, fake, TEXT_ONLY)
    paste(page, [("chart.png", "image/png", png(10, 10))])
    notice = page.get_by_test_id("composer-attachment-notice")
    expect(notice).to_contain_text("does not take images")
    expect(notice).to_contain_text(TEXT_ONLY)
    expect(page.get_by_test_id("composer-attachment")).to_have_count(0)
    page.get_by_test_id("composer-attachment-to-workspace").click()
    expect(page.get_by_test_id("chat-input")).to_have_value("Attached: `chart.png` (in the workspace)")
    page.get_by_test_id("files-open").click()
    expect(page.locator('[data-testid="file-entry"][data-path="chart.png"]')).to_have_count(1)


def test_a_file_dropped_on_the_chat_goes_to_the_workspace_and_is_named(app: App, fake: FakeLLM) -> None:
    page = app.page
    _connect(page, fake, MODEL)
    page.get_by_test_id("chat-input").fill("Summarize this")
    drop(page, ".scroller", [("notes.csv", "text/csv", b"day,tide\nmon,high\n")])
    expect(page.get_by_test_id("chat-input")).to_have_value("Summarize this\nAttached: `notes.csv` (in the workspace)")
    expect(page.get_by_test_id("composer-attachment")).to_have_count(0)
    fake.script([Reply.text("Two rows.")])
    page.get_by_test_id("chat-input").press("Enter")
    expect(messages(page, "assistant").last).to_contain_text("Two rows.", timeout=REPLY_TIMEOUT_MS)
    sent = fake.requests_to(CHAT, "POST")[-1].json()["messages"][-1]["content"]
    assert sent == "Summarize this\nAttached: `notes.csv` (in the workspace)"
    assert fake.images_received(CHAT)[-1] == []
    page.get_by_test_id("files-open").click()
    expect(page.locator('[data-testid="file-entry"][data-path="notes.csv"]')).to_have_count(1)
    # An image dropped on the message box itself is attached; one dropped beside it goes to the workspace.
    page.keyboard.press("Escape")
    drop(page, '[data-testid="chat-input"]', [("photo.png", "image/png", png(12, 12))])
    expect(page.get_by_test_id("composer-attachment")).to_have_count(1)
