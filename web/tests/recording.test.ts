import { describe, expect, it } from "vitest";
import { parseRecording, Recorder, ReplaySource } from "../src/worker/recording";

describe("recordings", () => {
  it("keep requests and raw chunks with timing, and never an auth header", () => {
    const recorder = new Recorder();
    recorder.request("h1", "POST", "https://openrouter.ai/api/v1/chat/completions", { "Content-Type": "application/json", Authorization: "Bearer sk-x", "X-Api-Key": "k" }, "{}");
    recorder.head("h1", 200, { "content-type": "text/event-stream" });
    recorder.chunk("h1", "ZGF0YQ==");
    recorder.end("h1");
    recorder.request("h2", "POST", "https://openrouter.ai/api/v1/chat/completions", {}, "{}");
    recorder.error("h2", "network", "could not reach");
    const rec = recorder.export("openrouter", "https://openrouter.ai/api/v1", "m");
    expect(JSON.stringify(rec)).not.toMatch(/sk-x|authorization|api-key/i);
    const [first, second] = rec.exchanges;
    expect(first?.response?.chunks[0]?.data).toBe("ZGF0YQ==");
    expect(typeof first?.response?.chunks[0]?.t_ms).toBe("number");
    expect(first?.response?.end_ms).not.toBeNull();
    expect(second?.error).toEqual({ kind: "network", message: "could not reach" });
  });

  it("replay POSTs in order and GETs by URL, then say there is nothing left", () => {
    const recorder = new Recorder();
    for (const [id, method, url] of [["a", "GET", "u/models"], ["b", "POST", "u/chat"], ["c", "POST", "u/chat"]] as const) {
      recorder.request(id, method, url, {}, method === "POST" ? id : null);
      recorder.head(id, 200, {});
      recorder.end(id);
    }
    const source = new ReplaySource(parseRecording(JSON.stringify(recorder.export("ollama", "u", null))));
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
});
