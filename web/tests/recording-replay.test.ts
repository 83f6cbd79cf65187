import { describe, expect, it } from "vitest";
import type { HostMessage } from "../src/protocol/messages";
import { HttpExecutor, type HttpRequestMessage } from "../src/worker/http";
import {
  keptLists,
  Recorder,
  ReplaySource,
  type RecordedExchange,
  type Recording,
  type RecordingSink,
} from "../src/worker/recording";

const OLLAMA = "http://127.0.0.1:11434";
const TAGS = `${OLLAMA}/api/tags`;
const SHOW = `${OLLAMA}/api/show`;
const CHAT = `${OLLAMA}/api/chat`;

/** One recorded exchange: answered with `status` (and `text` as its one chunk), or refused (status null). */
function exchange(
  method: string,
  url: string,
  body: string | null,
  status: number | null,
  text = "",
): RecordedExchange {
  return {
    request: { method, url, headers: {}, body },
    started: "",
    response:
      status === null
        ? null
        : { status, headers: {}, head_ms: 0, chunks: text ? [{ t_ms: 0, data: btoa(text) }] : [], end_ms: 1 },
    error: status === null ? { kind: "network", message: "could not reach 127.0.0.1:11434" } : null,
  };
}

function recording(exchanges: RecordedExchange[], model: string | null = null): Recording {
  return { format: "tidepool.recording", version: 1, provider: "ollama", base_url: OLLAMA, model, exchanges };
}

const chat = (model: string, said: string): string =>
  JSON.stringify({ model, messages: [{ role: "user", content: said }] });

/** The recorded answer's one chunk, as text; "" for a recorded failure, the reason for a miss. */
function said(source: ReplaySource, method: string, url: string, body: string | null): string {
  const found = source.answer(method, url, body);
  if (found.status === "missing") return `missing: ${found.reason}`;
  const chunk = found.exchange.response?.chunks[0]?.data;
  return chunk ? atob(chunk) : "";
}

describe("replay matching", () => {
  it.each([
    ["refused, then answered", [exchange("GET", TAGS, null, null), exchange("GET", TAGS, null, 200, "good")]],
    ["answered, then refused", [exchange("GET", TAGS, null, 200, "good"), exchange("GET", TAGS, null, null)]],
    ["answered, then HTTP 500", [exchange("GET", TAGS, null, 200, "good"), exchange("GET", TAGS, null, 500, "bad")]],
  ])("answer a model list with the good one when the recording holds a failure too (%s)", (_, lists) => {
    const source = new ReplaySource(recording(lists));
    expect(said(source, "GET", TAGS, null)).toBe("good");
    expect(said(source, "GET", TAGS, null)).toBe("good"); // a model list can be asked again
  });

  it("replay a model list's failure when the recording has nothing better", () => {
    const source = new ReplaySource(
      recording([exchange("GET", TAGS, null, 500, "first"), exchange("GET", TAGS, null, 500, "latest")]),
    );
    expect(said(source, "GET", TAGS, null)).toBe("latest");
  });

  it("keep each URL's calls apart: model-info calls never take a chat's answer, and match by body", () => {
    const source = new ReplaySource(
      recording([
        exchange("POST", SHOW, '{"model": "a"}', 200, "show a"),
        exchange("POST", SHOW, '{"model": "b"}', 200, "show b"),
        exchange("POST", CHAT, chat("a", "hi"), 200, "hello"),
        exchange("POST", CHAT, chat("a", "more"), 200, "more"),
      ]),
    );
    expect(said(source, "POST", CHAT, chat("a", "hi, with today's date"))).toBe("hello"); // the first unused chat
    expect(said(source, "POST", SHOW, '{"model": "b"}')).toBe("show b"); // its body, not the first unused
    expect(said(source, "POST", SHOW, '{"model": "a"}')).toBe("show a");
    expect(said(source, "POST", SHOW, '{"model": "b"}')).toBe("show b"); // all used: the same body again
    expect(said(source, "POST", CHAT, chat("a", "more"))).toBe("more");
    expect(said(source, "POST", CHAT, chat("a", "even more"))).toBe(
      `missing: the recording has no answer left for POST ${CHAT}: it holds 2 such calls, all used`,
    );
  });

  it("say what the recording holds when it has no such request", () => {
    const source = new ReplaySource(
      recording([exchange("GET", TAGS, null, 200, "x"), exchange("POST", CHAT, "{}", 200, "y")]),
    );
    expect(said(source, "POST", `${OLLAMA}/v1/chat/completions`, "{}")).toBe(
      `missing: the recording has no POST ${OLLAMA}/v1/chat/completions: it holds 1 × GET ${TAGS}, 1 × POST ${CHAT}`,
    );
  });

  it.each([
    ["its model field", recording([exchange("POST", CHAT, chat("b", "hi"), 200)], "a"), "a"],
    [
      "its first chat call, not a model-info call",
      recording([exchange("POST", SHOW, '{"model": "x"}', 200), exchange("POST", CHAT, chat("b", "hi"), 200)]),
      "b",
    ],
    ["nothing", recording([exchange("GET", TAGS, null, 200)]), null],
  ])("take the model from %s", (_, rec, model) => {
    expect(new ReplaySource(rec).model).toBe(model);
  });
});

/** Answers the recorder's sink from memory; `lists` is what an earlier page load kept. */
function shelf(lists: RecordedExchange[]): RecordingSink & { saved: RecordedExchange[] } {
  const sink = {
    saved: [] as RecordedExchange[],
    load: () => Promise.resolve([]),
    append: () => undefined,
    drop: () => Promise.resolve(),
    loadLists: () => Promise.resolve(lists),
    saveLists: (exchanges: readonly RecordedExchange[]) => void (sink.saved = [...exchanges]),
  };
  return sink;
}

describe("recording model lists", () => {
  it("keep the good answer when a refused one comes after it, and only the latest of each", () => {
    const all = [
      exchange("GET", TAGS, null, 200, "old"),
      exchange("GET", TAGS, null, 200, "good"),
      exchange("GET", TAGS, null, null),
      exchange("GET", TAGS, null, null),
    ];
    expect(keptLists(all)).toEqual([all[1], all[3]]);
  });

  it("never let what an earlier page load kept replace this page's newer answer", async () => {
    const recorder = new Recorder();
    recorder.request("l", "GET", TAGS, {}, null); // this page's answer ends before the stored lists are read
    recorder.head("l", 200, {});
    recorder.chunk("l", btoa("new"));
    recorder.end("l");
    const sink = shelf([exchange("GET", TAGS, null, null)]); // the last page load's list was refused
    recorder.attach(sink);
    const source = new ReplaySource(await recorder.export("ollama", OLLAMA, "a"));
    expect(said(source, "GET", TAGS, null)).toBe("new");
  });
});

/** Runs one request through the real executor with a replay; what it sent back. */
async function replayed(source: ReplaySource, method: string, url: string): Promise<HostMessage[]> {
  const sent: HostMessage[] = [];
  const http = new HttpExecutor({
    send: (m) => sent.push(m),
    credentials: () => ({ policy: { providerBaseUrl: OLLAMA, appOrigin: "http://127.0.0.1:8000" }, key: null }),
    failure: () => undefined,
    replay: () => source,
  });
  const request: HttpRequestMessage = {
    type: "http_request",
    id: "r1",
    method,
    url,
    headers: {},
    body: null,
    auth: "provider",
    stream: true,
    timeout_s: 5,
  };
  http.start(request);
  for (let i = 0; i < 50 && !sent.some((m) => m.type === "http_end" || m.type === "http_error"); i++)
    await new Promise((r) => setTimeout(r, 5));
  return sent;
}

describe("replaying through the executor", () => {
  it("answer a miss as the replay's own failure (kind replay), never as the provider's", async () => {
    const sent = await replayed(new ReplaySource(recording([exchange("GET", TAGS, null, 200)])), "POST", CHAT);
    expect(sent).toEqual([
      {
        type: "http_error",
        id: "r1",
        kind: "replay",
        message: `the recording has no POST ${CHAT}: it holds 1 × GET ${TAGS}`,
      },
    ]);
  });

  it("answer a model list with the recorded good answer after a refused one", async () => {
    const sent = await replayed(
      new ReplaySource(recording([exchange("GET", TAGS, null, null), exchange("GET", TAGS, null, 200, "{}")])),
      "GET",
      TAGS,
    );
    expect(sent.map((m) => m.type)).toEqual(["http_head", "http_chunk", "http_end"]);
  });
});
