import { afterEach, describe, expect, it, vi } from "vitest";
import { MAX_REPLAY_GAP_MS, ReplayClock } from "../src/worker/http";
import {
  parseRecording,
  Recorder,
  ReplaySource,
  type RecordedExchange,
  type RecordingSink,
} from "../src/worker/recording";
import { capped, MAX_SESSION_BYTES, newestLines, parseLines } from "../src/worker/recording-store";

/** What OPFS would hold between page loads: file name -> text, as the real store writes it (JSON Lines). */
class Shelf implements RecordingSink {
  readonly files = new Map<string, string>();
  appends = 0;
  load(sessionId: string): Promise<RecordedExchange[]> {
    return Promise.resolve(parseLines(this.files.get(sessionId) ?? "", sessionId, () => undefined));
  }
  append(sessionId: string, exchange: RecordedExchange): void {
    this.appends += 1;
    this.files.set(sessionId, (this.files.get(sessionId) ?? "") + JSON.stringify(exchange) + "\n");
  }
  drop(sessionId: string): Promise<void> {
    this.files.delete(sessionId);
    return Promise.resolve();
  }
  loadLists(): Promise<RecordedExchange[]> {
    return Promise.resolve(JSON.parse(this.files.get("lists") ?? "[]") as RecordedExchange[]);
  }
  saveLists(exchanges: readonly RecordedExchange[]): void {
    this.files.set("lists", capped(exchanges));
  }
}

function call(recorder: Recorder, id: string, method: string, url: string, body: string | null): void {
  recorder.request(id, method, url, {}, body);
  recorder.head(id, 200, {});
  recorder.end(id);
}

const settled = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

describe("recordings", () => {
  it("keep requests and raw chunks with timing, and never an auth header", async () => {
    const recorder = new Recorder();
    recorder.request(
      "h1",
      "POST",
      "https://openrouter.ai/api/v1/chat/completions",
      { "Content-Type": "application/json", Authorization: "Bearer sk-x", "X-Api-Key": "k" },
      "{}",
    );
    recorder.head("h1", 200, { "content-type": "text/event-stream" });
    recorder.chunk("h1", "ZGF0YQ==");
    recorder.end("h1");
    recorder.request("h2", "POST", "https://openrouter.ai/api/v1/chat/completions", {}, "{}");
    recorder.error("h2", "network", "could not reach");
    const rec = await recorder.export("openrouter", "https://openrouter.ai/api/v1", "m");
    expect(JSON.stringify(rec)).not.toMatch(/sk-x|authorization|api-key/i);
    const [first, second] = rec.exchanges;
    expect(first?.response?.chunks[0]?.data).toBe("ZGF0YQ==");
    expect(typeof first?.response?.chunks[0]?.t_ms).toBe("number");
    expect(first?.response?.end_ms).not.toBeNull();
    expect(second?.error).toEqual({ kind: "network", message: "could not reach" });
  });

  it("replay POSTs in order and GETs by URL, then say there is nothing left", async () => {
    const recorder = new Recorder();
    for (const [id, method, url] of [
      ["a", "GET", "u/models"],
      ["b", "POST", "u/chat"],
      ["c", "POST", "u/chat"],
    ] as const) {
      recorder.request(id, method, url, {}, method === "POST" ? id : null);
      recorder.head(id, 200, {});
      recorder.end(id);
    }
    const source = new ReplaySource(parseRecording(JSON.stringify(await recorder.export("ollama", "u", null))));
    const body = (method: string, url: string): string | null | undefined => {
      const found = source.answer(method, url, null);
      return found.status === "found" ? found.exchange.request.body : undefined;
    };
    expect(body("POST", "u/chat")).toBe("b");
    expect(source.answer("GET", "u/models", null)).toMatchObject({
      status: "found",
      exchange: { request: { url: "u/models" } },
    });
    expect(source.answer("GET", "u/models", null)).toMatchObject({
      status: "found",
      exchange: { request: { url: "u/models" } },
    });
    expect(body("POST", "u/chat")).toBe("c");
    expect(source.answer("POST", "u/chat", null)).toEqual({
      status: "missing",
      reason: "the recording has no answer left for POST u/chat: it holds 2 such calls, all used",
    });
  });

  it.each([
    ["not json", /not JSON/],
    ['{"format": "other"}', /not a Tidepool recording/],
    ['{"format": "tidepool.recording", "version": 1}', /no provider/],
  ])("refuse %j with a reason", (text, reason) => {
    expect(() => parseRecording(text)).toThrow(reason);
  });

  it("belong to the session open when each call started, model lists to every session", async () => {
    const recorder = new Recorder();
    call(recorder, "l", "GET", "u/models", null);
    recorder.setSession("A");
    call(recorder, "a1", "POST", "u/chat", "a1");
    recorder.setSession("B");
    call(recorder, "b1", "POST", "u/chat", "b1");
    const b = await recorder.export("ollama", "u", null);
    expect(b.exchanges.map((e) => e.request.body)).toEqual([null, "b1"]);
    recorder.setSession("A");
    expect((await recorder.export("ollama", "u", null)).exchanges.map((e) => e.request.body)).toEqual([null, "a1"]);
  });

  it("survive a reload through their sink, with the new page's calls after the old ones", async () => {
    const shelf = new Shelf();
    const first = new Recorder();
    first.attach(shelf);
    first.setSession("A");
    call(first, "l", "GET", "u/models", null);
    call(first, "a1", "POST", "u/chat", "a1");
    await settled();
    const second = new Recorder(); // the page was reloaded
    second.setSession("A");
    call(second, "a2", "POST", "u/chat", "a2");
    second.attach(shelf);
    const exported = await second.export("ollama", "u", null);
    expect(exported.exchanges.map((e) => `${e.request.method} ${e.request.body ?? e.request.url}`)).toEqual([
      "GET u/models",
      "POST a1",
      "POST a2",
    ]);
    await settled();
    expect((await shelf.load("A")).map((e) => e.request.body)).toEqual(["a1", "a2"]); // the new page's call appended once
    expect(shelf.appends).toBe(2);
    await second.forget("A");
    expect(shelf.files.has("A")).toBe(false);
  });

  it("add each finished call to its session's file on its own: a call costs itself, not the session", async () => {
    const shelf = new Shelf();
    const recorder = new Recorder();
    recorder.attach(shelf);
    recorder.setSession("A");
    await settled();
    const sizes: number[] = [];
    for (let i = 0; i < 30; i++) {
      const before = shelf.files.get("A")?.length ?? 0;
      call(recorder, `c${i}`, "POST", "u/chat", `call ${i} `.repeat(100));
      sizes.push((shelf.files.get("A")?.length ?? 0) - before);
    }
    expect(shelf.appends).toBe(30);
    expect(Math.max(...sizes)).toBeLessThan(2 * Math.min(...sizes)); // the 30th write is the size of the 1st
  });

  it("append a call that was still running when the earlier recording was read, once it ends", async () => {
    const shelf = new Shelf();
    shelf.append("A", {
      request: { method: "POST", url: "u/chat", headers: {}, body: "old" },
      started: "",
      response: null,
      error: null,
    });
    const recorder = new Recorder();
    recorder.setSession("A");
    recorder.request("r", "POST", "u/chat", {}, "running"); // before the sink is there
    call(recorder, "d", "POST", "u/chat", "done");
    recorder.attach(shelf);
    await settled();
    expect((await shelf.load("A")).map((e) => e.request.body)).toEqual(["old", "done"]);
    recorder.head("r", 200, {});
    recorder.end("r");
    expect((await shelf.load("A")).map((e) => e.request.body)).toEqual(["old", "done", "running"]);
    expect((await recorder.export("ollama", "u", null)).exchanges.map((e) => e.request.body)).toEqual([
      "old",
      "running",
      "done",
    ]);
  });

  it("read a file whose last line was torn by a killed tab, leaving out only that line", () => {
    const whole = JSON.stringify({
      request: { method: "POST", url: "u", headers: {}, body: "kept" },
      started: "",
      response: null,
      error: null,
    });
    const seen: string[] = [];
    const read = parseLines(`${whole}\n${whole.slice(0, 20)}`, "A.jsonl", (m) => seen.push(m));
    expect(read.map((e) => e.request.body)).toEqual(["kept"]);
    expect(seen.join(" ")).toMatch(/1 unreadable line/);
  });

  it("trim a full file to its newest whole lines", () => {
    const bytes = new TextEncoder().encode("one\ntwo\nthree\nfour\ntor");
    expect(new TextDecoder().decode(newestLines(bytes, 11))).toBe("three\nfour\n");
    expect(new TextDecoder().decode(newestLines(bytes, 4))).toBe("");
    expect(new TextDecoder().decode(newestLines(bytes, 100))).toBe("one\ntwo\nthree\nfour\n");
  });

  it("keep the model lists' file under its size limit by leaving out the oldest answers", () => {
    const big = "x".repeat(MAX_SESSION_BYTES / 4);
    const exchanges = ["1", "2", "3", "4", "5"].map((body) => ({
      request: { method: "POST", url: "u", headers: {}, body: body + big },
      started: "",
      response: null,
      error: null,
    }));
    const kept = JSON.parse(capped(exchanges)) as RecordedExchange[];
    expect(kept.length).toBeLessThan(5);
    expect(kept.at(-1)?.request.body?.startsWith("5")).toBe(true);
  });
});

describe("replay timing", () => {
  afterEach(() => vi.useRealTimers());

  it("waits the recorded gaps, each capped", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "performance"] });
    const clock = new ReplayClock();
    const reached: number[] = [];
    const play = (async () => {
      for (const t of [40, 40, 140, 140 + MAX_REPLAY_GAP_MS * 3, 140 + MAX_REPLAY_GAP_MS * 3 + 10]) {
        await clock.until(t);
        reached.push(Math.round(performance.now()));
      }
    })();
    await vi.runAllTimersAsync();
    await play;
    expect(reached).toEqual([40, 40, 140, 140 + MAX_REPLAY_GAP_MS, 150 + MAX_REPLAY_GAP_MS]);
  });
});
