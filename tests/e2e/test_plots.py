"""Plots: run_python imports the bundled pygal (installed in the sandbox only because the code imports
it, from the app's own wheels: a run that does not import it does not have it), writes an SVG and PNG
bytes, and all show as images in the call's card (as <img src="data:image/png…">: each SVG is drawn
to a PNG, so its script never runs; test_untrusted_images.py opens them), again after a reload; a
vision model gets the PNG in the next request. Leaves screenshots (test-results/plot-desktop.png,
plot-phone.png)."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from scripts.fakes.fake_llm import FakeLLM
from scripts.fakes.replies import Reply
from tests.e2e.conftest import RESULTS
from tests.e2e.media import png
from tests.e2e.ui import REPLY_TIMEOUT_MS, messages, send, wait_ready

RUN_TIMEOUT_MS = 180_000  # the first run boots the sandbox's Pyodide and unpacks pygal
CHAT = "/api/v1/chat/completions"
PNG_BYTES = png(30, 20, (20, 160, 90))
PLOT_CODE = f"""
import pygal
chart = pygal.Bar(title="Tides", width=480, height=300)
chart.x_labels = ["mon", "tue", "wed"]
chart.add("high", [3.1, 2.7, 3.4])
chart.add("low", [0.4, 0.6, 0.2])
chart.render_to_file("tides.svg")
open("bars.png", "wb").write({PNG_BYTES!r})
open("evil.svg", "w").write('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
    '<script>window.parent.document.title = "pwned"</script><rect width="10" height="10" fill="tomato"/></svg>')
print("plotted")
"""


def _widths(page: Page) -> dict[str, tuple[int, int]]:
    """Each tool image's natural width (0: not decoded) and shown width, by name; all PNGs from data: URLs."""
    got = page.eval_on_selector_all(
        '[data-testid="tool-image"]',
        "els => els.map((e) => [e.dataset.name, e.naturalWidth, e.clientWidth, e.src.slice(0, 22)])",
    )
    assert all(src == "data:image/png;base64," for *_, src in got), got
    return {name: (natural, shown) for name, natural, shown, _ in got}


PROBE_CODE = "import importlib.util\nprint('pygal installed:', importlib.util.find_spec('pygal') is not None)"


def test_a_plot_from_run_python_shows_in_its_card_and_reaches_a_vision_model(chat: Page, fake: FakeLLM) -> None:
    # A run that does not import pygal does not get it (nor pays for unpacking it).
    fake.script([Reply.tool_call("run_python", {"code": PROBE_CODE}), Reply.text("Probed.")])
    send(chat, "Is pygal there?")
    probe = chat.locator('[data-testid="tool-call"][data-tool="run_python"]').last
    expect(probe).to_have_attribute("data-status", "ok", timeout=RUN_TIMEOUT_MS)
    expect(probe).to_contain_text("pygal installed: False")
    expect(messages(chat, "assistant").last).to_have_text("Probed.", timeout=REPLY_TIMEOUT_MS)
    fake.script([Reply.tool_call("run_python", {"code": PLOT_CODE}), Reply.text("Here is the chart.")])
    send(chat, "Plot the tides")
    card = chat.locator('[data-testid="tool-call"][data-tool="run_python"]').last
    expect(card).to_have_attribute("data-status", "ok", timeout=RUN_TIMEOUT_MS)
    images = card.get_by_test_id("tool-image")
    expect(images).to_have_count(3, timeout=REPLY_TIMEOUT_MS)
    expect(messages(chat, "assistant").last).to_have_text("Here is the chart.", timeout=REPLY_TIMEOUT_MS)
    for image in images.all():
        expect(image).to_have_js_property("complete", True)
    widths = _widths(chat)
    assert widths["bars.png"] == (30, 30) and widths["evil.svg"] == (10, 10), widths
    assert widths["tides.svg"][0] > 0 and widths["tides.svg"][1] >= 400, "pygal's 100%-wide SVG gets the card's width"
    assert chat.title() != "pwned"
    # The model (gpt-4o-mini takes images) got the PNG after the tool result; SVGs are named, not sent.
    follow_up = fake.requests_to(CHAT, "POST")[-1].json()["messages"]
    assert [m["role"] for m in follow_up[-3:]] == ["assistant", "tool", "user"]
    shown = follow_up[-1]["content"]
    assert "- tides.svg (not sent as an image" in shown[0]["text"]
    assert [(i.media_type, i.data) for i in fake.images_received(CHAT)[-1]] == [("image/png", PNG_BYTES)]
    RESULTS.mkdir(exist_ok=True)
    chat.keyboard.press("Escape")  # no panel over the chat
    card.get_by_test_id("tool-image").last.scroll_into_view_if_needed()
    chat.screenshot(path=str(RESULTS / "plot-desktop.png"))
    chat.reload()
    wait_ready(chat)
    restored = chat.locator('[data-testid="tool-call"][data-tool="run_python"]').last.get_by_test_id("tool-image")
    expect(restored).to_have_count(3, timeout=REPLY_TIMEOUT_MS)
    for image in restored.all():
        expect(image).to_have_js_property("complete", True)
    assert _widths(chat)["tides.svg"][1] >= 400
    chat.set_viewport_size({"width": 390, "height": 844})
    restored.first.scroll_into_view_if_needed()
    chat.screenshot(path=str(RESULTS / "plot-phone.png"))
    chat.set_viewport_size({"width": 1280, "height": 800})
    chat.get_by_test_id("permission-mode").select_option("ask")
