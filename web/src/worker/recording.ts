/**
 * Record and replay model traffic. A *recording* (JSON, `format: "tidepool.recording"`) holds every
 * provider request of this page's session — method, URL, headers (never a key: the adapter adds it
 * only when sending, and any auth header is dropped here too), body — and its raw response bytes as
 * they arrived (base64 chunks with their time since the request started), or the transport error.
 * A `ReplaySource` answers provider requests from a recording with no network: POSTs (model calls)
 * strictly in order, GETs (model lists) by URL.
 */

export interface RecordedChunk {
  t_ms: number;
  data: string; // base64
}

export interface RecordedExchange {
  request: { method: string; url: string; headers: Record<string, string>; body: string | null };
  started: string;
  response: { status: number; headers: Record<string, string>; head_ms: number; chunks: RecordedChunk[]; end_ms: number | null } | null;
  error: { kind: string; message: string } | null;
}

export interface Recording {
  format: "tidepool.recording";
  version: 1;
  provider: string;
  base_url: string;
  model: string | null;
  exchanges: RecordedExchange[];
}

const SECRET_HEADERS = /^(authorization|cookie|x-api-key|api-key|proxy-authorization)$/i;

export class Recorder {
  private readonly exchanges: RecordedExchange[] = [];
  private readonly open = new Map<string, { exchange: RecordedExchange; t0: number }>();

  request(id: string, method: string, url: string, headers: Record<string, string>, body: string | null): void {
    const clean = Object.fromEntries(Object.entries(headers).filter(([name]) => !SECRET_HEADERS.test(name)));
    const exchange: RecordedExchange = {
      request: { method, url, headers: clean, body },
      started: new Date().toISOString(),
      response: null,
      error: null,
    };
    this.exchanges.push(exchange);
    this.open.set(id, { exchange, t0: performance.now() });
  }

  head(id: string, status: number, headers: Record<string, string>): void {
    const entry = this.open.get(id);
    if (entry) entry.exchange.response = { status, headers, head_ms: this.since(entry.t0), chunks: [], end_ms: null };
  }

  chunk(id: string, data: string): void {
    const entry = this.open.get(id);
    entry?.exchange.response?.chunks.push({ t_ms: this.since(entry.t0), data });
  }

  end(id: string): void {
    const entry = this.open.get(id);
    if (entry?.exchange.response) entry.exchange.response.end_ms = this.since(entry.t0);
    this.open.delete(id);
  }

  error(id: string, kind: string, message: string): void {
    const entry = this.open.get(id);
    if (entry) entry.exchange.error = { kind, message };
    this.open.delete(id);
  }

  export(provider: string, baseUrl: string, model: string | null): Recording {
    return { format: "tidepool.recording", version: 1, provider, base_url: baseUrl, model, exchanges: structuredClone(this.exchanges) };
  }

  private since(t0: number): number {
    return Math.round(performance.now() - t0);
  }
}

/** A recording from a file; throws an Error that says what is wrong with it. */
export function parseRecording(text: string): Recording {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error("this file is not JSON: choose a recording exported with “Export recording”");
  }
  const r = value as Partial<Recording> | null;
  if (!r || r.format !== "tidepool.recording" || r.version !== 1) throw new Error("this file is not a Tidepool recording (format tidepool.recording, version 1)");
  if (typeof r.provider !== "string" || typeof r.base_url !== "string" || !Array.isArray(r.exchanges)) {
    throw new Error("the recording has no provider, base_url or exchanges");
  }
  return r as Recording;
}

export class ReplaySource {
  private nextPost = 0;
  private readonly posts: RecordedExchange[];

  constructor(readonly recording: Recording) {
    this.posts = recording.exchanges.filter((e) => e.request.method.toUpperCase() !== "GET");
  }

  /** The recorded answer for this request, or null when the recording has none left. */
  next(method: string, url: string): RecordedExchange | null {
    if (method.toUpperCase() === "GET") {
      const found = this.recording.exchanges.filter((e) => e.request.method.toUpperCase() === "GET" && e.request.url === url);
      return found.at(-1) ?? null;
    }
    return this.posts[this.nextPost++] ?? null;
  }
}
