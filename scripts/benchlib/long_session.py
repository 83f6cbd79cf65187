"""Issue 25: a long session's view (the tab's memory with it: `tab_memory.py`).

Opening: one state database (the runtime's schema, `Store`) with a 50-message and a 5,000-message session
(user questions, markdown answers), put in OPFS before boot; in the booted app, click the session's
`session-entry` → its last answer in the DOM and the next frame painted. The two are opened in turn,
`runs` times each; median; baseline the 50-message session. The newest session (a short one) is open after boot.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from playwright.sync_api import Browser, BrowserContext, Page

from runtime.store.store import Store

from .common import BLANK, READY_WATCH, Row, Samples, boot_ready_ms, snapshot_stored, wait_idle

LIMIT_MS = 120_000
MIB = 1 << 20

SEED = """
async (url) => {
  let dir = await navigator.storage.getDirectory();
  for (const p of ["tidepool", "workspaces", "default", "state"]) {
    dir = await dir.getDirectoryHandle(p, { create: true });
  }
  const response = await fetch(url);
  const writable = await (await dir.getFileHandle("current.sqlite", { create: true })).createWritable();
  await response.body.pipeTo(writable);
}
"""

# Awaits `ready()` as the page changes (at once when it already holds), then a painted frame.
_UNTIL_PAINTED = """
  const untilPainted = async (ready, limit, what) => {
    await new Promise((resolve, reject) => {
      if (ready()) return resolve();
      const timer = setTimeout(() => reject(new Error(`${what} after ${limit} ms`)), limit);
      const observer = new MutationObserver(() => {
        if (ready()) { clearTimeout(timer); observer.disconnect(); resolve(); }
      });
      observer.observe(document.body, { childList: true, subtree: true });
    });
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  };
"""

OPEN = """
async ([id, text, limit]) => {""" + _UNTIL_PAINTED + """
  const entry = document.querySelector(`[data-testid="session-entry"][data-session-id="${id}"]`);
  if (!entry) throw new Error(`no session-entry ${id}`);
  const shown = () => {
    const all = document.querySelectorAll('[data-testid="message"][data-role="assistant"]');
    if (all.length === 0) return false;
    // a long reply drawn in blocks: its last block (its whole text read on every change would be timed too)
    const last = all[all.length - 1];
    return (last.querySelector(".md-done > .md-block:last-child") ?? last).textContent.includes(text);
  };
  const t0 = performance.now();
  entry.click();
  await untilPainted(shown, limit, `${text} not shown`);
  return performance.now() - t0;
}
"""

LONG_REPLY_SECTION = ("## Part {n}\n\nSome words about part {n}, and a list:\n\n- one\n- two with **bold**\n\n"
                      "```python\ndef part_{n}():\n    return {n}\n```\n\n")
LONG_REPLY_END = "The end of the long reply."
LONG_PASTE_END = "The answer to a long paste."

ANSWER = "Answer {turn} of {title}.\n\n- the first point, with `code`\n- a **second** point\n\nAnd a closing line."


def seed_sessions(path: Path, sessions: list[tuple[str, int, bool]]) -> dict[str, str]:
    """Sessions of `messages` stored messages each (`tools`: with a `read_file` call per turn); title → id."""
    store = Store(path)
    ids: dict[str, str] = {}
    try:
        for title, messages, tools in sessions:
            session = store.create_session(title)
            ids[title] = session.id
            per_turn = 4 if tools else 2
            with store.atomic():
                for turn in range(1, messages // per_turn + 1):
                    tid = f"{session.id}-t{turn}"
                    store.append_message(session.id, "user", f"Question {turn} of {title}?", turn_id=tid)
                    if tools:
                        cid = f"{session.id}-c{turn}"
                        call = {"id": cid, "type": "function",
                                "function": {"name": "read_file", "arguments": '{"path": "notes.md"}'}}
                        store.append_message(session.id, "assistant", "", turn_id=tid, tool_calls=[call])
                        store.ledger_append(session.id, cid, "read_file", {"path": "notes.md"}, turn_id=tid)
                        store.ledger_update(cid, status="ok", result_summary="notes")
                        store.append_message(session.id, "tool", f"notes, read in turn {turn}", turn_id=tid,
                                             tool_call_id=cid, name="read_file", meta={"ok": True, "status": "ok"})
                    store.append_message(session.id, "assistant", ANSWER.format(turn=turn, title=title), turn_id=tid)
    finally:
        store.close()
    return ids


def seed_long_reply(path: Path, title: str, chars: int) -> str:
    """A two-message session whose answer is `chars` of markdown (headings, lists, code) ending in
    LONG_REPLY_END; its id."""
    parts, size, n = [], 0, 0
    while size < chars:
        parts.append(LONG_REPLY_SECTION.format(n=n))
        size += len(parts[-1])
        n += 1
    return seed_turn(path, title, "Write it all out.", "".join(parts) + LONG_REPLY_END)


def seed_long_paste(path: Path, title: str, chars: int) -> str:
    """A two-message session whose question is `chars` of pasted lines and whose answer is LONG_PASTE_END; its id."""
    line = "    total += price(item)  # a pasted line of code, with a comment long enough to wrap\n"
    return seed_turn(path, title, line * (chars // len(line)), LONG_PASTE_END)


def seed_turn(path: Path, title: str, question: str, answer: str) -> str:
    """A session of one turn, `question` and `answer`; its id."""
    store = Store(path)
    try:
        session = store.create_session(title)
        with store.atomic():
            store.append_message(session.id, "user", question, turn_id=f"{session.id}-t1")
            store.append_message(session.id, "assistant", answer, turn_id=f"{session.id}-t1")
    finally:
        store.close()
    return session.id


def seeded_page(browser: Browser, base: str, database: Path | None) -> tuple[BrowserContext, Page]:
    ctx = browser.new_context()
    ctx.add_init_script(READY_WATCH)
    if database is not None:
        # Seeded from a page of its own, closed before the app's opens: the app's renderer process is then
        # not the one that held the database's bytes (its allocator keeps freed memory, which the memory
        # rows would count as the app's).
        ctx.route("**/__seed/current.sqlite", lambda route: route.fulfill(path=str(database)))
        seeder = ctx.new_page()
        seeder.goto(base + BLANK)
        seeder.evaluate(SEED, base + "/__seed/current.sqlite")
        seeder.close()
    page = ctx.new_page()
    boot_ready_ms(page, base)
    wait_idle(page, LIMIT_MS)
    return ctx, page


def open_ms(page: Page, session_id: str, text: str) -> float:
    entry = f'[data-testid="session-entry"][data-session-id="{session_id}"]'
    page.wait_for_selector(entry, state="attached", timeout=LIMIT_MS)  # the list is filled after `ready`
    return float(page.evaluate(OPEN, [session_id, text, LIMIT_MS]))


def measure_open(browser: Browser, base: str, runs: int) -> list[Row]:
    with tempfile.TemporaryDirectory() as tmp:
        database = Path(tmp) / "current.sqlite"
        ids = seed_sessions(database, [("short chat", 50, False), ("long chat", 5000, False)])
        ids["long reply"] = seed_long_reply(database, "long reply", MIB)
        ids["long paste"] = seed_long_paste(database, "long paste", MIB)
        ids.update(seed_sessions(database, [("other", 2, False)]))
        ctx, page = seeded_page(browser, base, database)
        snapshot_stored(page)  # the first visit's background work is done before anything is timed
        opens: dict[str, list[float]] = {"short chat": [], "long chat": [], "long reply": [], "long paste": []}
        ends = {"short chat": "Answer 25 of short chat", "long chat": "Answer 2500 of long chat",
                "long reply": LONG_REPLY_END, "long paste": LONG_PASTE_END, "other": "Answer 1 of other"}
        try:
            # `other` (the newest) is open after boot; a warm-up open loads the highlighter and draws once
            open_ms(page, ids["long chat"], ends["long chat"])
            for _ in range(runs * 2):
                for title, times in opens.items():
                    # each timed open follows the same small chat: closing what was open is part of an open
                    # (closing the 1 MiB reply took the next open 12 ms longer), the same for every row then
                    open_ms(page, ids["other"], ends["other"])
                    page.wait_for_timeout(300)
                    times.append(open_ms(page, ids[title], ends[title]))
                    page.wait_for_timeout(300)
        finally:
            ctx.close()
    short = Samples(opens["short chat"])
    note = f"{runs * 2} opens each, in turn, each after the same 2-message chat"
    return [Row("opening a 5,000-message session (click → its last answer painted)", "same, a 50-message session",
                short, Samples(opens["long chat"]), "median", "≤ 1.1 ×",
                note=f"{note}; the view opens with its last 50 messages"),
            Row("opening a chat whose reply is 1 MiB of markdown (click → its end painted)",
                "same, a 50-message session", short, Samples(opens["long reply"]), "median", "report",
                note=f"{note}; a long stored reply is drawn in blocks, those near the view first"),
            Row("opening a chat whose question is a 1 MiB paste (click → its answer painted)",
                "same, a 50-message session", short, Samples(opens["long paste"]), "median", "report",
                note=f"{note}; a long text is laid out in blocks, those near the view only")]


SEARCH = """
async ([query, ids, limit]) => {""" + _UNTIL_PAINTED + """
  const input = document.querySelector('[data-testid="session-search"]');
  const shows = () => {
    const got = [...document.querySelectorAll('[data-testid="session-entry"]')].map((e) => e.dataset.sessionId);
    return got.length === ids.length && got.every((id, i) => id === ids[i]);
  };
  const t0 = performance.now();
  input.value = query;
  input.dispatchEvent(new Event("input", { bubbles: true }));
  await untilPainted(shows, limit, `${query}: not listed`);  // at once when listed already: see search_ms
  return performance.now() - t0;
}
"""
TYPING_PAUSE_MS = 150  # the sessions panel asks once typing pauses this long (web/src/ui/panels/sessions.ts)


def search_ms(page: Page, query: str, ids: list[str], everything: list[str]) -> float:
    """Typed into `session-search` → exactly `ids` listed and painted, less the panel's wait for a pause (the
    list shows `everything` before, so the timed search always changes it)."""
    page.evaluate(SEARCH, ["", everything, LIMIT_MS])  # the whole list again, then a person's pause
    page.wait_for_timeout(300)
    return float(page.evaluate(SEARCH, [query, ids, LIMIT_MS])) - TYPING_PAUSE_MS


def measure_search(browser: Browser, base: str, runs: int) -> list[Row]:
    """Issue 25, item 4: searching the chats stays instant with a 5,000-message chat stored."""
    chats = [("short chat", 50, False), ("long chat", 5000, False), ("other", 2, False)]
    with tempfile.TemporaryDirectory() as tmp:
        small, big = Path(tmp) / "small.sqlite", Path(tmp) / "big.sqlite"
        small_ids = seed_sessions(small, [chats[0], chats[2]])
        big_ids = seed_sessions(big, chats)
        pages = [seeded_page(browser, base, db) for db in (small, big)]
        for _, page in pages:
            snapshot_stored(page)
        everything = [  # the sidebar's list, newest first
            [small_ids["other"], small_ids["short chat"]],
            [big_ids["other"], big_ids["long chat"], big_ids["short chat"]],
        ]
        cases = {  # name → per page: (query, the one chat it finds)
            "word": [("short", small_ids["short chat"]), ("short", big_ids["short chat"])],
            "turn": [("answer 25 of short", small_ids["short chat"]), ("answer 2500 of long", big_ids["long chat"])],
        }
        times: dict[tuple[str, int], list[float]] = {(c, i): [] for c in cases for i in (0, 1)}
        try:
            for queries in cases.values():  # a warm-up each
                for i, (_, page) in enumerate(pages):
                    search_ms(page, queries[i][0], [queries[i][1]], everything[i])
            for n in range(runs * 4):  # ~8 ms each: n = 6 read 0.89–1.27 × for the same build
                for case, queries in cases.items():
                    for i in (0, 1) if n % 2 == 0 else (1, 0):  # each store first in every other round
                        page = pages[i][1]
                        times[case, i].append(search_ms(page, queries[i][0], [queries[i][1]], everything[i]))
        finally:
            for ctx, _ in pages:
                ctx.close()
    note = (f"{runs * 4} searches each, the stores in turn; typed → listed and painted, less the panel's "
            f"{TYPING_PAUSE_MS} ms wait for a pause")
    return [
        Row("chat search, a word of a 50-message chat, a 5,000-message chat stored too",
            "same, without the 5,000-message chat",
            Samples(times["word", 0]), Samples(times["word", 1]), "median", "≤ 1.1 ×", note=note),
        Row("chat search, words of the 5,000-message chat's 2,500th turn", "the same, the 50-message chat's 25th turn",
            Samples(times["turn", 0]), Samples(times["turn", 1]), "median", "≤ 1.1 ×", note=note),
    ]
