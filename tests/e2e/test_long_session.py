"""A long session opens with its last 50 messages and a `messages-earlier` button for the rest, which come a
page of 200 at a time, above what is shown, when the person scrolls up or presses it: the page stays
responsive whatever the session holds (every message stays stored)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import Browser, Page, expect

from runtime.store.store import Store
from scripts.benchlib.long_session import LONG_REPLY_END, LONG_REPLY_SECTION, MIB, SEED, seed_long_reply
from tests.e2e.conftest import guarded_context
from tests.e2e.ui import eventually, messages, wait_ready

# A finger drawn 100 px up the transcript (the view is already at its end: no scroll event comes).
SWIPE_UP = """(el) => {
  const at = (y) => new Touch({ identifier: 1, target: el, clientX: 200, clientY: y });
  el.dispatchEvent(new TouchEvent("touchstart", { touches: [at(500)], bubbles: true }));
  el.dispatchEvent(new TouchEvent("touchmove", { touches: [at(400)], bubbles: true }));
  el.dispatchEvent(new TouchEvent("touchend", { touches: [], bubbles: true }));
}"""


def long_session(path: Path, turns: int) -> None:
    store = Store(path)
    session = store.create_session("A long chat")
    with store.atomic():
        for turn in range(1, turns + 1):
            store.append_message(session.id, "user", f"question {turn}", turn_id=f"t{turn}")
            store.append_message(session.id, "assistant", f"answer {turn}", turn_id=f"t{turn}")
    store.close()


@contextmanager
def long_session_open(browser: Browser, server: str, tmp_path: Path, turns: int) -> Iterator[Page]:
    """The app booted on a state database holding one session of `turns` question-and-answer turns."""
    database = tmp_path / "current.sqlite"
    long_session(database, turns)
    with stored_app(browser, server, database) as page:
        yield page


@contextmanager
def stored_app(browser: Browser, server: str, database: Path) -> Iterator[Page]:
    """The app booted on `database` (put in OPFS first), its latest session open."""
    context, _ = guarded_context(browser)
    try:
        context.route("**/__seed/current.sqlite", lambda route: route.fulfill(path=str(database)))
        page = context.new_page()
        page.goto(server + "/pyodide/pyodide-lock.json")  # the app's origin, without starting the app
        page.evaluate(SEED, server + "/__seed/current.sqlite")
        page.goto(server + "/")
        wait_ready(page)
        yield page
    finally:
        context.close()


def test_a_long_session_shows_its_last_messages_and_the_earlier_ones_on_request(
    browser: Browser, server: str, tmp_path: Path
) -> None:
    with long_session_open(browser, server, tmp_path, 130) as page:  # 260 messages
        expect(messages(page, "assistant").last).to_have_text("answer 130")
        expect(messages(page, "user")).to_have_count(25)
        earlier = page.get_by_test_id("messages-earlier")
        expect(earlier).to_have_attribute("data-earlier", "210")
        expect(earlier).to_have_text("Show 200 earlier messages (210 in all)")
        # A press, not a scroll: a click scrolls the button into view, at the top, where scrolling loads the next
        # page by itself (the next test) and the button can be gone before the click lands.
        earlier.dispatch_event("click")
        expect(messages(page, "user")).to_have_count(125)
        expect(messages(page, "user").first).to_have_text("question 6")
        expect(earlier).to_have_attribute("data-earlier", "10")
        expect(earlier).to_have_text("Show the 10 earlier messages")
        earlier.dispatch_event("click")
        expect(messages(page, "user")).to_have_count(130)
        expect(messages(page, "user").first).to_have_text("question 1")
        expect(page.get_by_test_id("messages-earlier")).to_have_count(0)
        # in order, each once
        users = messages(page, "user").all_text_contents()
        assert users == [f"question {n}" for n in range(1, 131)]


def test_scrolling_up_brings_the_earlier_messages_above_without_moving_what_is_read(
    browser: Browser, server: str, tmp_path: Path
) -> None:
    with long_session_open(browser, server, tmp_path, 400) as page:  # 800 messages
        expect(messages(page, "user")).to_have_count(25)
        earlier = page.get_by_test_id("messages-earlier")
        expect(earlier).to_have_attribute("data-earlier", "750")
        reading = messages(page, "user").filter(has_text="question 380")
        page.locator(".scroller").evaluate("(el) => { el.scrollTop = 0; }")
        expect(earlier).to_have_attribute("data-earlier", "550")  # came without a click
        expect(messages(page, "user")).to_have_count(125)
        # what was at the top stays in view where it was (the page came above it), so scrolling on goes up
        # into the page that came
        expect(messages(page, "user").filter(has_text="question 376")).to_be_in_viewport()
        assert page.locator(".scroller").evaluate("(el) => el.scrollTop") > 1000
        # the next page comes when the person scrolls near the top again, not before
        page.wait_for_timeout(300)
        expect(earlier).to_have_attribute("data-earlier", "550")
        reading.scroll_into_view_if_needed()
        top = reading.bounding_box()
        page.mouse.move(400, 300)
        page.mouse.wheel(0, -200)
        page.wait_for_timeout(300)
        moved = reading.bounding_box()
        assert top is not None and moved is not None
        assert abs(moved["y"] - top["y"] - 200) < 40  # the wheel moved it, nothing else did
        page.locator(".scroller").evaluate("(el) => { el.scrollTop = 0; }")
        expect(earlier).to_have_attribute("data-earlier", "350")
        expect(messages(page, "user")).to_have_count(225)
        users = messages(page, "user").all_text_contents()
        assert users == [f"question {n}" for n in range(176, 401)]


def test_a_search_hit_shows_its_message_and_the_latest_come_back(browser: Browser, server: str, tmp_path: Path) -> None:
    with long_session_open(browser, server, tmp_path, 400) as page:  # 800 messages
        search = page.get_by_test_id("session-search")
        search.fill("ANSWER 120")
        entry = page.get_by_test_id("session-entry")
        expect(entry).to_have_count(1)
        expect(entry.locator(".session-excerpt mark")).to_have_text(["answer", "120"])
        entry.click()
        # the messages up to the hit (seq 240), not the latest: the page reads what it shows
        found = page.locator('[data-testid="message"][data-found]')
        expect(found).to_have_text("answer 120")
        expect(found).to_be_in_viewport()
        expect(messages(page, "assistant").last).to_have_text("answer 120")
        expect(messages(page, "user")).to_have_count(20)
        expect(page.get_by_test_id("messages-earlier")).to_have_attribute("data-earlier", "200")
        later = page.get_by_test_id("messages-later")
        expect(later).to_have_attribute("data-later", "560")  # messages 241-800
        expect(page.get_by_test_id("message-regenerate")).to_have_count(0)  # not the chat's last turn
        # reading on from the hit: a wheel turned down at the end draws the next messages below what is read
        page.wait_for_timeout(300)
        expect(later).to_have_attribute("data-later", "560")  # not before the person asks
        page.mouse.move(400, 300)
        page.mouse.wheel(0, 300)
        expect(later).to_have_attribute("data-later", "510")
        expect(found).to_be_in_viewport()
        expect(messages(page, "assistant").last).to_have_text("answer 145")
        page.get_by_test_id("messages-later-more").click()
        expect(later).to_have_attribute("data-later", "460")
        users = messages(page, "user").all_text_contents()
        assert users == [f"question {n}" for n in range(101, 171)]
        page.get_by_test_id("messages-latest").click()
        expect(messages(page, "assistant").last).to_have_text("answer 400")
        expect(page.get_by_test_id("messages-later")).to_have_count(0)
        expect(page.locator("[data-found]")).to_have_count(0)
        # a hit among the latest messages is marked where it is
        search.fill("question 399")
        expect(entry.locator(".session-excerpt")).to_contain_text("question 399")
        entry.click()
        expect(found).to_have_text("question 399")
        expect(page.get_by_test_id("messages-later")).to_have_count(0)
        # read on to the chat's latest message: the bar goes, and the chat is as opened, from the hit on
        search.fill("answer 360")
        expect(entry.locator(".session-excerpt")).to_contain_text("answer 360")
        entry.click()
        expect(found).to_have_text("answer 360")
        expect(later).to_have_attribute("data-later", "80")
        page.locator(".scroller").evaluate(SWIPE_UP)  # a finger drawn up at the very end, as on a phone
        expect(later).to_have_attribute("data-later", "30")
        expect(found).to_be_in_viewport()  # what came went below it: the view did not follow the bar down
        page.wait_for_timeout(300)
        expect(later).to_have_attribute("data-later", "30")  # nor did that ask for more
        page.get_by_test_id("messages-later-more").click()
        expect(later).to_have_count(0)
        expect(messages(page, "assistant").last).to_have_text("answer 400")
        assert messages(page, "user").all_text_contents() == [f"question {n}" for n in range(341, 401)]
        expect(page.get_by_test_id("message-regenerate")).to_have_count(1)  # on the chat's last turn again
        expect(page.locator("[data-found]")).to_have_text("answer 360")
        # at the very end, a key that scrolls down asks for them too; typing in the chat's box does not
        search.fill("answer 300")
        expect(entry.locator(".session-excerpt")).to_contain_text("answer 300")
        entry.click()
        expect(found).to_have_text("answer 300")
        expect(later).to_have_attribute("data-later", "200")
        page.get_by_test_id("chat-input").press("End")
        page.wait_for_timeout(300)
        expect(later).to_have_attribute("data-later", "200")
        found.click()  # the chat's view takes the keys
        page.keyboard.press("End")
        expect(later).to_have_attribute("data-later", "150")
        expect(found).to_be_in_viewport()
        # sending from a hit's messages goes after the chat's latest: those come back first
        search.fill("answer 7")
        expect(entry.locator(".session-excerpt")).to_contain_text("answer 7")
        entry.click()
        expect(found).to_have_text("answer 7")
        box = page.get_by_test_id("chat-input")
        box.fill("and the next one?")
        box.press("Enter")
        expect(messages(page, "user").last).to_have_text("and the next one?")
        expect(page.get_by_test_id("messages-later")).to_have_count(0)
        users = messages(page, "user").all_text_contents()
        assert users[-2:] == ["question 400", "and the next one?"]


# Which of the stored reply's blocks are in the chat's view, and which still wait to be drawn (their indexes).
BLOCKS = """() => {
  const view = document.querySelector(".scroller").getBoundingClientRect();
  const blocks = [...document.querySelectorAll('[data-role="assistant"] .md-done > .md-block')];
  const inView = [], waiting = [];
  blocks.forEach((block, i) => {
    const box = block.getBoundingClientRect();
    if (box.bottom > view.top && box.top < view.bottom) inView.push(i);
    if (block.classList.contains("md-waiting")) waiting.push(i);
  });
  return { count: blocks.length, inView, waiting };
}"""


def test_a_long_stored_reply_is_drawn_where_it_is_read_first(browser: Browser, server: str, tmp_path: Path) -> None:
    """A 4 MiB stored reply opens as blocks of its text, drawn as markdown while the page is idle from its start;
    the blocks the person brings into view are drawn at once, before that reaches them, and in the end all are.
    The chat opens at the reply's end, and a jump to the end lands there, though the blocks on the way were never
    laid out and the ones at the end change height as they are drawn."""
    database = tmp_path / "current.sqlite"
    seed_long_reply(database, "A long reply", 4 * MIB)
    with stored_app(browser, server, database) as page:
        reply = messages(page, "assistant").last
        last = reply.locator(".md-done > .md-block").last
        expect(last).to_contain_text(LONG_REPLY_END)
        expect(last).to_be_in_viewport()
        scroller = page.locator(".scroller")
        scroller.evaluate("(el) => { el.scrollTop = el.scrollHeight / 2; }")
        eventually(page, lambda: page.evaluate(BLOCKS)["inView"], what="blocks in the middle shown")
        assert last.evaluate("(el) => el.getBoundingClientRect().top") > 10 * page.viewport_size["height"]
        scroller.evaluate("(el) => { el.scrollTop = el.scrollHeight; }")  # a jump back to the reply's end
        eventually(
            page,
            lambda: (b := page.evaluate(BLOCKS))["inView"] and not set(b["inView"]) & set(b["waiting"]),
            what="the blocks in view drawn",
        )
        page.wait_for_timeout(300)  # drawn, they took their height: the view is still at the end
        expect(last).to_be_in_viewport()
        assert scroller.evaluate("(el) => el.scrollHeight - el.scrollTop - el.clientHeight") < 2
        blocks = page.evaluate(BLOCKS)
        assert blocks["count"] > 500, blocks["count"]
        assert blocks["waiting"] and min(blocks["waiting"]) < min(blocks["inView"]), (
            "blocks before the view still wait: the ones in view were drawn because they came into view"
        )
        expect(reply.locator(".md-waiting")).to_have_count(0, timeout=120_000)
        parts, size = 0, 0  # the seeded reply's sections, each a heading and a code block
        while size < 4 * MIB:
            size += len(LONG_REPLY_SECTION.format(n=parts))
            parts += 1
        expect(reply.locator("h2")).to_have_count(parts)
        expect(reply.get_by_test_id("code-copy")).to_have_count(parts)
