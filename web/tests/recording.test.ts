import { afterEach, describe, expect, it, vi } from "vitest";
import { MAX_REPLAY_GAP_MS, ReplayClock } from "../src/worker/http";
import { parseRecording, Recorder, ReplaySource, type RecordedExchange, type RecordingSink } from "../src/worker/recording";
import { capped, MAX_SESSION_BYTES } from "../src/worker/recording-store";

/** What OPFS would hold between page loads: file name -> JSON text, as the real store writes it. */
class Shelf implements RecordingSink {
  readonly files = new Map<string, string>();
  load(sessionId: string): Promise<RecordedExchange[]> {
    return Promise.resolve(JSON.parse(this.files.get(sessionId) ?? "[]") as RecordedExchange[]);
  }
  save(sessionId: string, exchanges: readonly RecordedExchange[]): void {
    this.files.set(sessionId, capped(exchanges));
  }
  drop(sessionId: string): Promise<void> {
    this.files.delete(sessionId);
    return Promise.resolve();
  }
  loadLists(): Promise<RecordedExchange[]> {
    return this.load("lists");
  }
  saveLists(exchanges: readonly RecordedExchange[]): void {
    this.save("lists", exchanges);
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
    recorder.request("h1", "POST", "https://openrouter.ai/api/v1/chat/completions", { "Content-Type": "application/json", Authorization: "Bearer sk-x", "X-Api-Key": "k" }, "{}");
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
    for (const [id, method, url] of [["a", "GET", "u/models"], ["b", "POST", "u/chat"], ["c", "POST", "u/chat"]] as const) {
      recorder.request(id, method, url, {}, method === "POST" ? id : null);
      recorder.head(id, 200, {});
      recorder.end(id);
    }
    const source = new ReplaySource(parseRecording(JSON.stringify(await recorder.export("ollama", "u", null))));
    expect(source.next("POST", "u/chat")?.request.body).toBe("b");
    expect(source.next("GET", "u/models")?.request.url).toBe("u/models");
    expect(source.next("GET", "u/models")?.request.url).toBe("u/models");
    expect(source.next("POST", "u/chat")?.request.body).toBe("c");
    expect(source.next("POST", "u/chat")).toBeNull();
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
    expect(exported.exchanges.map((e) => `${e.request.method} ${e.request.body ?? e.request.url}`)).toEqual(["GET u/models", "POST a1", "POST a2"]);
    await settled();
    expect(JSON.parse(shelf.files.get("A") ?? "[]")).toHaveLength(2);
    await second.forget("A");
    expect(shelf.files.has("A")).toBe(false);
  });

  it("keep a session's file under its size limit by leaving out the oldest calls", () => {
    const big = "x".repeat(MAX_SESSION_BYTES / 4);
    const exchanges = ["1", "2", "3", "4", "5"].map((body) => ({ request: { method: "POST", url: "u", headers: {}, body: body + big }, started: "", response: null, error: null }));
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
