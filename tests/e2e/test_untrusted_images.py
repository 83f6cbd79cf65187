"""What the browser renders from bytes a run made: a plot may not steal the key.

A run_python call writes SVGs whose `<script>` and `onload` would mark the app's storage (localStorage,
IndexedDB), its title and a URL this test watches. Their card shows each as a PNG drawn from it, from a
`data:` URL (never a `blob:` URL of the app's origin), at the SVG's own size (or the card's width when it
has none); opened in a tab of its own, as "Open image in new tab" does, each is an image document of an
opaque origin and nothing of the SVG runs. Downloads (the workspace zip, a session export, the recording)
are `application/octet-stream` blobs whose object URLs are revoked once the download has started. Last, the
attack as reported, as a control: a same-origin `blob:` of the same SVG, opened the same way, does run and
is seen by the same markers.
"""

from __future__ import annotations

import base64

from playwright.sync_api import BrowserContext, Page, expect

from scripts.fakes.fake_llm import FakeLLM
from scripts.fakes.replies import Reply
from tests.e2e.conftest import App
from tests.e2e.media import png
from tests.e2e.ui import REPLY_TIMEOUT_MS, messages, send

RUN_TIMEOUT_MS = 180_000  # the module's first run boots the sandbox's Pyodide
WATCH = "/__svg_ran__"
MARK = "svg-ran"


def hostile_svg(size: str, server: str, extra: str = "") -> str:
    """An SVG that, wherever it runs, sets the title, writes a localStorage key and an IndexedDB database
    named MARK, and fetches WATCH on the app's server."""
    run = (
        f"document.title='pwned';try{{localStorage.setItem('{MARK}',String(origin))}}catch(e){{}};"
        f"try{{indexedDB.open('{MARK}')}}catch(e){{}};fetch('{server}{WATCH}?'+encodeURIComponent(origin))"
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" {size} onload="{run}">'
        f"<script>{run}</script>{extra}"
        '<rect width="100%" height="100%" fill="tomato"/><circle cx="50%" cy="50%" r="25%" fill="navy"/></svg>'
    )


# Records every object URL the page makes, with its blob's type (a wrapper of the browser's function).
RECORD_OBJECT_URLS = """() => {
  if (window.__objectUrls) return;
  window.__objectUrls = [];
  const make = URL.createObjectURL.bind(URL);
  URL.createObjectURL = (blob) => { const url = make(blob); window.__objectUrls.push([url, blob.type]); return url; };
}"""
SHOWN = """els => els.map((e) => ({name: e.dataset.name, src: e.src, natural: e.naturalWidth,
  naturalHeight: e.naturalHeight, width: e.clientWidth, height: e.clientHeight, fit: getComputedStyle(e).objectFit}))"""


def _ran(app: App, page: Page) -> list[str]:
    """Every trace of the SVG having run with the app's origin (empty: it did not)."""
    traces = [r for r in app.traffic.requests if WATCH in r]
    if page.title() == "pwned":
        traces.append("title")
    if page.evaluate(f"() => localStorage.getItem('{MARK}')") is not None:
        traces.append("localStorage")
    if page.evaluate(f"async () => (await indexedDB.databases()).some((d) => d.name === '{MARK}')"):
        traces.append("indexedDB")
    return traces


def _open_as_a_tab(context: BrowserContext, src: str) -> dict[str, object]:
    """Open `src` as a top-level document of its own tab (what "Open image in new tab" does) and say what it is."""
    tab = context.new_page()
    try:
        tab.goto(src)
        tab.wait_for_timeout(300)  # an onload or a script would have run by now
        return tab.evaluate(
            "() => ({origin, type: document.contentType, scripts: document.scripts.length, title: document.title,"
            " svg: document.querySelectorAll('svg').length})"
        )
    finally:
        tab.close()


def test_a_plot_shows_as_a_drawn_png_and_nothing_of_it_runs_wherever_it_is_opened(
    connected_app: App, chat: Page, fake: FakeLLM
) -> None:
    server = connected_app.url.rstrip("/")
    fixed = hostile_svg('width="24" height="16"', server)
    fluid = hostile_svg(
        'viewBox="0 0 400 300"',
        server,
        '<foreignObject width="100" height="50"><div xmlns="http://www.w3.org/1999/xhtml">'
        f'<img src="x" onerror="{MARK}"/></div></foreignObject>',
    )
    code = (
        f"open('fixed.svg', 'w').write({fixed!r})\nopen('fluid.svg', 'w').write({fluid!r})\n"
        f"open('dot.png', 'wb').write({png(12, 8)!r})\nprint('drawn')"
    )
    chat.evaluate(RECORD_OBJECT_URLS)
    fake.script([Reply.tool_call("run_python", {"code": code}), Reply.text("Drawn.")])
    send(chat, "Draw the plots")
    card = chat.locator('[data-testid="tool-call"][data-tool="run_python"]').last
    expect(card).to_have_attribute("data-status", "ok", timeout=RUN_TIMEOUT_MS)
    images = card.get_by_test_id("tool-image")
    expect(images).to_have_count(3, timeout=REPLY_TIMEOUT_MS)
    expect(messages(chat, "assistant").last).to_have_text("Drawn.", timeout=REPLY_TIMEOUT_MS)
    for image in images.all():
        expect(image).to_have_js_property("complete", True)
    shown = {i["name"]: i for i in images.evaluate_all(SHOWN)}
    # Every image is a PNG from a data: URL: the SVGs were drawn, none is of the app's origin.
    assert all(str(i["src"]).startswith("data:image/png;base64,") for i in shown.values()), {
        n: str(i["src"])[:40] for n, i in shown.items()
    }
    assert base64.b64decode(str(shown["dot.png"]["src"]).split(",", 1)[1]) == png(12, 8)
    assert all(int(i["natural"]) > 0 for i in shown.values()), shown
    assert (shown["fixed.svg"]["width"], shown["fixed.svg"]["height"]) == (24, 16), shown["fixed.svg"]
    fluid_shown = shown["fluid.svg"]
    assert int(fluid_shown["width"]) >= 400, "an SVG without a width gets the card's width"
    # Drawn in its viewBox's ratio, and shown in it (contained when the card's height limit is reached).
    assert abs(int(fluid_shown["naturalHeight"]) / int(fluid_shown["natural"]) - 0.75) < 0.01, fluid_shown
    assert fluid_shown["fit"] == "contain"
    assert chat.evaluate("() => window.__objectUrls") == [], "no object URL was made to show them"
    # Opened in a tab of its own, each is an image of an opaque origin: no SVG, no script, no title.
    for name, image in shown.items():
        opened = _open_as_a_tab(connected_app.context, str(image["src"]))
        assert (opened["origin"], opened["type"], opened["scripts"], opened["svg"]) == ("null", "image/png", 0, 0), (
            name,
            opened,
        )
        assert opened["title"] != "pwned", (name, opened)
    assert _ran(connected_app, chat) == []


def test_downloads_are_octet_stream_and_their_urls_are_revoked(connected_app: App, chat: Page) -> None:
    chat.evaluate(RECORD_OBJECT_URLS)
    chat.evaluate("() => { window.__objectUrls.length = 0; }")
    with chat.expect_download(timeout=REPLY_TIMEOUT_MS) as recording:
        chat.get_by_test_id("recording-export").click()
    assert recording.value.suggested_filename.endswith(".json")
    current = chat.locator('[data-testid="session-entry"][aria-current="true"]')
    current.hover()
    with chat.expect_download(timeout=REPLY_TIMEOUT_MS) as export:
        current.get_by_test_id("session-export-md").click()
    assert export.value.suggested_filename.endswith(".md")
    chat.get_by_test_id("files-open").click()
    with chat.expect_download(timeout=REPLY_TIMEOUT_MS) as zipped:
        chat.get_by_test_id("workspace-export").click()
    assert zipped.value.suggested_filename.endswith(".zip")
    assert zipped.value.path().read_bytes()[:2] == b"PK"
    chat.keyboard.press("Escape")
    made = chat.evaluate("() => window.__objectUrls")
    assert [t for _, t in made] == ["application/octet-stream"] * 3, made
    chat.wait_for_timeout(1_500)
    read = "async (urls) => Promise.all(urls.map((u) => fetch(u).then(() => 'read', () => 'revoked')))"
    fetched = chat.evaluate(read, [u for u, _ in made])
    assert fetched == ["revoked"] * 3


def test_the_same_svg_as_a_same_origin_blob_runs_and_is_caught(connected_app: App, chat: Page) -> None:
    """The control: the markers see an SVG that runs with the app's origin (the attack as it was reported)."""
    server = connected_app.url.rstrip("/")
    url = chat.evaluate(
        "(svg) => URL.createObjectURL(new Blob([svg], {type: 'image/svg+xml'}))",
        hostile_svg('width="24" height="16"', server),
    )
    opened = _open_as_a_tab(connected_app.context, url)
    try:
        assert opened["origin"] == server and opened["title"] == "pwned", opened
        chat.wait_for_timeout(500)
        assert {"localStorage", "indexedDB"} <= set(_ran(connected_app, chat)), _ran(connected_app, chat)
        assert [r for r in connected_app.traffic.requests if WATCH in r]
    finally:
        chat.evaluate(f"() => {{ localStorage.removeItem('{MARK}'); indexedDB.deleteDatabase('{MARK}'); }}")
        connected_app.traffic.requests[:] = [r for r in connected_app.traffic.requests if WATCH not in r]
