/**
 * Record and replay model traffic. A *recording* (JSON, `format: "tidepool.recording"`) holds every
 * provider request of one stored session — method, URL, headers (never a key: the adapter adds it
 * only when sending, and any auth header is dropped here too), body — and its raw response bytes as
 * they arrived (base64 chunks with their time since the request started), or the transport error.
 * A `ReplaySource` answers provider requests from a recording with no network, each from the recorded
 * exchanges that match it (method, URL and body: see the class).
 */

export interface RecordedChunk {
  t_ms: number;
  data: string; // base64
}

export interface RecordedExchange {
  request: { method: string; url: string; headers: Record<string, string>; body: string | null };
  started: string;
  response: {
    status: number;
    headers: Record<string, string>;
    head_ms: number;
    chunks: RecordedChunk[];
    end_ms: number | null;
  } | null;
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
 * belong to all of them (replay answers them by URL): per URL the latest answered one and, after it, a
 * later failure, so a refused list never replaces a good one. With a sink, what a session recorded
 * survives reloads and is exported with what this page adds.
 */
export class Recorder {
  private session = "";
  private readonly calls = new Map<string, RecordedExchange[]>(); // session id -> its exchanges
  private readonly loading = new Map<string, Promise<void>>();
  private readonly loaded = new Set<string>(); // sessions whose earlier recording is in front of this page's
  private lists: RecordedExchange[] = []; // GETs: see keptLists
  private listsLoaded: Promise<void> = Promise.resolve();
  private readonly open = new Map<string, { exchange: RecordedExchange; t0: number; session: string | null }>();

  private sink: RecordingSink | null = null;

  /** Keep recordings in `sink` from now on (this tab holds the workspace), and read what it has. */
  attach(sink: RecordingSink): void {
    this.sink = sink;
    // What earlier page loads kept is older than anything this page already has.
    this.listsLoaded = sink.loadLists().then(
      (found) => void (this.lists = keptLists([...found, ...this.lists])),
      () => undefined,
    );
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
    const exchanges = [...this.lists, ...(this.calls.get(this.session) ?? [])];
    return {
      format: "tidepool.recording",
      version: 1,
      provider,
      base_url: baseUrl,
      model,
      exchanges: structuredClone(exchanges),
    };
  }

  private finished(id: string): void {
    const entry = this.open.get(id);
    this.open.delete(id);
    if (!entry) return;
    if (entry.session === null) {
      this.lists = keptLists([...this.lists, entry.exchange]);
      this.sink?.saveLists(this.lists);
    }
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
    this.loading.set(
      sessionId,
      sink.load(sessionId).then(settle, () => settle([])),
    );
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

/**
 * The model lists worth keeping from `all` (oldest first): per URL, the latest one that was answered
 * and, when a failure came after it, that failure too (replay prefers the answered one).
 */
export function keptLists(all: readonly RecordedExchange[]): RecordedExchange[] {
  const keep = new Set<RecordedExchange>();
  const byUrl = new Map<string, RecordedExchange[]>();
  for (const exchange of all) {
    const same = byUrl.get(exchange.request.url);
    if (same) same.push(exchange);
    else byUrl.set(exchange.request.url, [exchange]);
  }
  for (const same of byUrl.values()) {
    const good = same.filter(answered).at(-1);
    if (good) keep.add(good);
    keep.add(same.at(-1) as RecordedExchange);
  }
  return all.filter((exchange) => keep.has(exchange));
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
  if (!r || r.format !== "tidepool.recording" || r.version !== 1)
    throw new Error("this file is not a Tidepool recording (format tidepool.recording, version 1)");
  if (typeof r.provider !== "string" || typeof r.base_url !== "string" || !Array.isArray(r.exchanges)) {
    throw new Error("the recording has no provider, base_url or exchanges");
  }
  return r as Recording;
}

/** What a replay answers one request with: a recorded exchange, or why the recording has none. */
export type ReplayAnswer = { status: "found"; exchange: RecordedExchange } | { status: "missing"; reason: string };

/**
 * Answers provider requests from a recording (docs/recording.md, "How replay matches"). A request is
 * answered only by recorded exchanges with its method and URL:
 * - a GET (a model list) by the latest of them that was answered (status < 400, complete), else the
 *   latest of them (its failure replays); a failed model list never shadows a good one, and a GET can
 *   be asked any number of times;
 * - any other request (a model call, Ollama's /api/show) by the first unused one whose body is the
 *   request's body, else the first unused one (so model calls keep their recorded order, each URL on
 *   its own: a model-info call never takes a chat's answer); when all are used, a used one with the
 *   same body that was answered (asking the same again gets the same answer).
 */
export class ReplaySource {
  private readonly used = new Set<RecordedExchange>();

  constructor(readonly recording: Recording) {}

  /** The model the recording's calls were made with: its `model`, else the first model call's. */
  get model(): string | null {
    if (this.recording.model) return this.recording.model;
    for (const exchange of this.recording.exchanges) {
      const named = bodyModel(exchange.request.body);
      if (named) return named;
    }
    return null;
  }

  answer(method: string, url: string, body: string | null): ReplayAnswer {
    const verb = method.toUpperCase();
    const same = this.recording.exchanges.filter(
      (e) => e.request.method.toUpperCase() === verb && e.request.url === url,
    );
    if (same.length === 0) return { status: "missing", reason: `the recording has no ${verb} ${url}: ${this.holds()}` };
    if (verb === "GET")
      return { status: "found", exchange: same.filter(answered).at(-1) ?? (same.at(-1) as RecordedExchange) };
    const unused = same.filter((e) => !this.used.has(e));
    const pick =
      unused.find((e) => e.request.body === body) ??
      unused[0] ??
      same.find((e) => e.request.body === body && answered(e));
    if (!pick) {
      const n = same.length;
      return {
        status: "missing",
        reason: `the recording has no answer left for ${verb} ${url}: it holds ${n} such call${n === 1 ? "" : "s"}, all used`,
      };
    }
    this.used.add(pick);
    return { status: "found", exchange: pick };
  }

  /** What the recording does hold, for a miss: each method and URL with its count. */
  private holds(): string {
    const counts = new Map<string, number>();
    for (const e of this.recording.exchanges) {
      const key = `${e.request.method.toUpperCase()} ${e.request.url}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    if (counts.size === 0) return "it holds no requests";
    return `it holds ${[...counts].map(([key, n]) => `${n} × ${key}`).join(", ")}`;
  }
}

/** Whether a recorded exchange got a whole answer that is not an HTTP error. */
function answered(exchange: RecordedExchange): boolean {
  const response = exchange.response;
  return exchange.error === null && response !== null && response.status < 400 && response.end_ms !== null;
}

/** The model a chat call's body names (one with `messages`; Ollama's /api/show names a model too). */
function bodyModel(body: string | null): string | null {
  if (!body) return null;
  try {
    const value: unknown = JSON.parse(body);
    if (typeof value !== "object" || value === null || !Array.isArray((value as { messages?: unknown }).messages))
      return null;
    const model = (value as { model?: unknown }).model;
    return typeof model === "string" && model ? model : null;
  } catch {
    return null;
  }
}
