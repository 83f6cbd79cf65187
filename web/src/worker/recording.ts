/**
 * Record and replay model traffic. A *recording* (JSON, `format: "tidepool.recording"`) holds every
 * provider request of one stored session — method, URL, headers (never a key: the adapter adds it
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

/** Where finished exchanges are kept between page loads (worker/recording-store.ts), per stored session. */
export interface RecordingSink {
  load(sessionId: string): Promise<RecordedExchange[]>;
  /** Add one finished exchange after the session's earlier ones (the cost of one exchange, not of the session). */
  append(sessionId: string, exchange: RecordedExchange): void;
  drop(sessionId: string): Promise<void>;
  loadLists(): Promise<RecordedExchange[]>;
  saveLists(exchanges: readonly RecordedExchange[]): void;
}

/**
 * Every model call belongs to the stored session that was open when it started; model lists (GETs)
 * belong to all of them (replay answers them by URL), the latest answer per URL. With a sink, what a
 * session recorded survives reloads and is exported with what this page adds.
 */
export class Recorder {
  private session = "";
  private readonly calls = new Map<string, RecordedExchange[]>(); // session id -> its exchanges
  private readonly loading = new Map<string, Promise<void>>();
  private readonly loaded = new Set<string>(); // sessions whose earlier recording is in front of this page's
  private readonly lists = new Map<string, RecordedExchange>(); // GET url -> the latest answer
  private listsLoaded: Promise<void> = Promise.resolve();
  private readonly open = new Map<string, { exchange: RecordedExchange; t0: number; session: string | null }>();

  private sink: RecordingSink | null = null;

  /** Keep recordings in `sink` from now on (this tab holds the workspace), and read what it has. */
  attach(sink: RecordingSink): void {
    this.sink = sink;
    this.listsLoaded = sink.loadLists().then((found) => this.keepLists(found, false), () => undefined);
    if (this.session) this.loadEarlier(this.session);
  }

  /** The stored session that model calls from now on belong to (`session_opened`). */
  setSession(sessionId: string): void {
    this.session = sessionId;
    this.loadEarlier(sessionId);
  }

  /** The session was deleted: so is its recording. */
  forget(sessionId: string): Promise<void> {
    this.calls.delete(sessionId);
    this.loading.delete(sessionId);
    this.loaded.delete(sessionId);
    return this.sink?.drop(sessionId) ?? Promise.resolve();
  }

  request(id: string, method: string, url: string, headers: Record<string, string>, body: string | null): void {
    const clean = Object.fromEntries(Object.entries(headers).filter(([name]) => !SECRET_HEADERS.test(name)));
    const exchange: RecordedExchange = {
      request: { method, url, headers: clean, body },
      started: new Date().toISOString(),
      response: null,
      error: null,
    };
    const isList = method.toUpperCase() === "GET";
    if (!isList) this.bucket(this.session).push(exchange);
    this.open.set(id, { exchange, t0: performance.now(), session: isList ? null : this.session });
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
    this.finished(id);
  }

  error(id: string, kind: string, message: string): void {
    const entry = this.open.get(id);
    if (entry) entry.exchange.error = { kind, message };
    this.finished(id);
  }

  /** The open session's recording: its model calls (earlier page loads included) and the model lists. */
  async export(provider: string, baseUrl: string, model: string | null): Promise<Recording> {
    await Promise.all([this.listsLoaded, this.loading.get(this.session)]);
    const exchanges = [...this.lists.values(), ...(this.calls.get(this.session) ?? [])];
    return { format: "tidepool.recording", version: 1, provider, base_url: baseUrl, model, exchanges: structuredClone(exchanges) };
  }

  private finished(id: string): void {
    const entry = this.open.get(id);
    this.open.delete(id);
    if (!entry) return;
    if (entry.session === null) this.keepLists([entry.exchange], true);
    // Until what an earlier page load recorded is in front of it, the load's end appends it.
    else if (entry.session && this.loaded.has(entry.session)) this.sink?.append(entry.session, entry.exchange);
  }

  private loadEarlier(sessionId: string): void {
    if (!this.sink || !sessionId || this.loading.has(sessionId)) return;
    const mine = this.bucket(sessionId);
    const sink = this.sink;
    const settle = (earlier: RecordedExchange[]): void => {
      if (this.calls.get(sessionId) !== mine) return; // forgotten meanwhile
      const running = new Set([...this.open.values()].map((entry) => entry.exchange));
      const made = mine.filter((exchange) => !running.has(exchange)); // finished before the earlier ones were read
      mine.unshift(...earlier);
      this.loaded.add(sessionId);
      for (const exchange of made) sink.append(sessionId, exchange);
    };
    // An unreadable recording starts again empty.
    this.loading.set(sessionId, sink.load(sessionId).then(settle, () => settle([])));
  }

  private keepLists(found: readonly RecordedExchange[], save: boolean): void {
    for (const exchange of found) {
      this.lists.delete(exchange.request.url); // the latest answer goes last
      this.lists.set(exchange.request.url, exchange);
    }
    if (save) this.sink?.saveLists([...this.lists.values()]);
  }

  private bucket(sessionId: string): RecordedExchange[] {
    let list = this.calls.get(sessionId);
    if (!list) this.calls.set(sessionId, (list = []));
    return list;
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
