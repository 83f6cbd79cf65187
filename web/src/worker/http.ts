/**
 * Executes the runtime's `http_request` frames with fetch and streams the answer back as
 * `http_head` / `http_chunk` (base64) / `http_end`, or `http_error`. The egress rule decides where a
 * request may go and whether the provider key is added; the key itself never leaves this module's
 * caller-provided getter and is never logged or framed.
 *
 * `timeout_s` bounds the wait for the response head and every gap between body chunks (an idle
 * timeout), so a long but live stream is not cut off.
 */

import { toBase64 } from "../protocol/base64";
import { offlineReason } from "../protocol/offline";
import type { HostMessage, HttpErrorKind, RuntimeMessage } from "../protocol/messages";
import { decideEgress, type EgressPolicy } from "./egress";
import type { HttpFailureKind } from "../protocol/main-worker-messages";
import type { Recorder, ReplaySource } from "./recording";

export type HttpRequestMessage = Extract<RuntimeMessage, { type: "http_request" }>;

export interface HttpCredentials {
  policy: EgressPolicy;
  key: string | null;
}

export interface HttpFailure {
  url: string;
  kind: HttpFailureKind;
  status: number | null;
  message: string;
}

export interface HttpHost {
  send(message: HostMessage): void;
  credentials(): HttpCredentials;
  /** A provider request that failed or answered >= 400: the UI explains it in connection-status. */
  failure(info: HttpFailure): void;
  /** Records every provider request and its raw answer (recording-export). */
  recorder?: Recorder;
  /** When set, provider requests are answered from this recording, with no network. */
  replay?: () => ReplaySource | null;
}

const CHUNK_BYTES = 512 * 1024;
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
const DEFAULT_TIMEOUT_S = 60;
const BODILESS = new Set(["GET", "HEAD"]);
const DROPPED_HEADERS = new Set(["authorization", "cookie", "host", "content-length", "connection"]);

type StopReason = "timeout" | "aborted";

interface InFlight {
  controller: AbortController;
  stop: StopReason | null;
  timer: ReturnType<typeof setTimeout> | null;
}

export class HttpExecutor {
  private readonly inflight = new Map<string, InFlight>();

  constructor(private readonly host: HttpHost) {}

  start(req: HttpRequestMessage): void {
    if (this.inflight.has(req.id)) {
      this.fail(req.id, "refused", `request id ${req.id} is already in flight`);
      return;
    }
    const { policy, key } = this.host.credentials();
    const decision = decideEgress(req.url, req.auth ?? "none", policy);
    if (decision.kind === "refused") {
      this.fail(req.id, "refused", decision.reason);
      return;
    }
    const source = decision.kind === "provider" ? (this.host.replay?.() ?? null) : null;
    if (source) {
      void this.replayed(req, decision.url, source);
      return;
    }
    if (decision.kind === "provider")
      this.host.recorder?.request(req.id, req.method, decision.url, req.headers ?? {}, req.body ?? null);
    const headers = requestHeaders(req.headers ?? {});
    if (decision.kind === "provider" && decision.authorize && key) headers.set("Authorization", `Bearer ${key}`);
    const entry: InFlight = { controller: new AbortController(), stop: null, timer: null };
    this.inflight.set(req.id, entry);
    const timeoutMs = Math.max(1, (req.timeout_s ?? DEFAULT_TIMEOUT_S) * 1000);
    void this.run(req, decision.url, headers, entry, timeoutMs, decision.kind === "provider");
  }

  cancel(id: string): void {
    this.abort(id, "aborted");
  }

  cancelAll(): void {
    for (const id of [...this.inflight.keys()]) this.abort(id, "aborted");
  }

  private abort(id: string, reason: StopReason): void {
    const entry = this.inflight.get(id);
    if (!entry || entry.stop) return;
    entry.stop = reason;
    entry.controller.abort();
  }

  private arm(id: string, entry: InFlight, ms: number): void {
    if (entry.timer !== null) clearTimeout(entry.timer);
    entry.timer = setTimeout(() => this.abort(id, "timeout"), ms);
  }

  private async run(
    req: HttpRequestMessage,
    url: string,
    headers: Headers,
    entry: InFlight,
    timeoutMs: number,
    isProvider: boolean,
  ): Promise<void> {
    const { id } = req;
    this.arm(id, entry, timeoutMs);
    let answering = false; // the head went out: a failure from here on is a reply dropped midway
    try {
      const response = await fetch(url, {
        method: req.method,
        headers,
        body: BODILESS.has(req.method.toUpperCase()) ? null : (req.body ?? null),
        signal: entry.controller.signal,
        credentials: "omit",
        redirect: "error",
        cache: cacheMode(req.method),
        referrerPolicy: "no-referrer",
      });
      const head = responseHeaders(response);
      this.host.recorder?.head(id, response.status, head);
      this.host.send({ type: "http_head", id, status: response.status, headers: head });
      answering = true;
      if (isProvider && response.status >= 400) {
        this.host.failure({ url, kind: "status", status: response.status, message: response.statusText });
      }
      await this.pump(id, entry, response, timeoutMs);
      this.host.recorder?.end(id);
      this.host.send({ type: "http_end", id });
    } catch (err) {
      const kind: HttpErrorKind =
        entry.stop ?? (err instanceof ResponseTooLarge ? "network" : answering ? "dropped" : await probe(url));
      const message = errorMessage(kind, url, err, timeoutMs);
      if (isProvider && kind !== "aborted")
        this.host.failure({ url, kind: kind === "refused" ? "network" : kind, status: null, message });
      this.host.recorder?.error(id, kind, message);
      this.fail(id, kind, message);
    } finally {
      if (entry.timer !== null) clearTimeout(entry.timer);
      this.inflight.delete(id);
    }
  }

  private async pump(id: string, entry: InFlight, response: Response, timeoutMs: number): Promise<void> {
    if (!response.body) return;
    const reader = response.body.getReader();
    let total = 0;
    for (;;) {
      this.arm(id, entry, timeoutMs);
      const { done, value } = await reader.read();
      if (done) return;
      total += value.length;
      if (total > MAX_RESPONSE_BYTES) {
        await reader.cancel();
        throw new ResponseTooLarge();
      }
      for (let at = 0; at < value.length; at += CHUNK_BYTES) {
        const data = toBase64(value.subarray(at, at + CHUNK_BYTES));
        this.host.recorder?.chunk(id, data);
        this.host.send({ type: "http_chunk", id, data });
      }
    }
  }

  /**
   * Answer from a recording: its head, its chunks and its end at the times they came (each wait
   * capped at MAX_REPLAY_GAP_MS, so a recording of a slow afternoon replays in minutes), or its error.
   */
  private async replayed(req: HttpRequestMessage, url: string, source: ReplaySource): Promise<void> {
    const found = source.answer(req.method, url, req.body ?? null);
    if (found.status === "missing") {
      this.fail(req.id, "replay", found.reason); // the replay's own failure, never the provider's
      return;
    }
    const exchange = found.exchange;
    const entry: InFlight = { controller: new AbortController(), stop: null, timer: null };
    this.inflight.set(req.id, entry);
    const clock = new ReplayClock();
    try {
      const response = exchange.response;
      if (response) {
        await clock.until(response.head_ms);
        if (!entry.stop)
          this.host.send({ type: "http_head", id: req.id, status: response.status, headers: response.headers });
        for (const chunk of response.chunks) {
          await clock.until(chunk.t_ms);
          if (entry.stop) break;
          this.host.send({ type: "http_chunk", id: req.id, data: chunk.data });
        }
        if (response.end_ms !== null) await clock.until(response.end_ms);
      }
      if (entry.stop) this.fail(req.id, entry.stop, "the request was cancelled");
      else if (exchange.error || !response || response.end_ms === null) {
        this.fail(
          req.id,
          exchange.error?.kind === "timeout" ? "timeout" : "network",
          exchange.error?.message ?? "the recorded answer was cut off",
        );
      } else this.host.send({ type: "http_end", id: req.id });
    } finally {
      this.inflight.delete(req.id);
    }
  }

  private fail(id: string, kind: HttpErrorKind, message: string): void {
    this.host.send({ type: "http_error", id, kind, message });
  }
}

/**
 * `no-store` keeps GET answers out of the HTTP cache. A POST answer is never served from that cache
 * anyway, and `no-store` would also make the browser skip its CORS preflight cache: every model
 * request would wait for an OPTIONS round trip first (time to first token).
 */
function cacheMode(method: string): RequestCache {
  return method.toUpperCase() === "POST" ? "default" : "no-store";
}

/** The longest pause a replay keeps between two recorded moments. */
export const MAX_REPLAY_GAP_MS = 5000;

/** Waits until a recorded time (ms since the request started); always at least one task apart. */
export class ReplayClock {
  private readonly t0 = performance.now();
  private recorded = 0; // the recorded time reached so far
  private shift = 0; // ms of recorded pauses skipped by the cap

  async until(recordedMs: number): Promise<void> {
    const gap = Math.max(0, recordedMs - this.recorded);
    this.shift += Math.max(0, gap - MAX_REPLAY_GAP_MS);
    this.recorded = Math.max(this.recorded, recordedMs);
    const wait = this.t0 + this.recorded - this.shift - performance.now();
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, wait)));
  }
}

class ResponseTooLarge extends Error {
  constructor() {
    super(`the response is over ${MAX_RESPONSE_BYTES / 1024 / 1024} MiB`);
  }
}

function requestHeaders(raw: Record<string, string>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (DROPPED_HEADERS.has(name.toLowerCase())) continue;
    try {
      headers.set(name, value);
    } catch {
      // An invalid header name or value is dropped rather than failing the request.
    }
  }
  return headers;
}

function responseHeaders(response: Response): Record<string, string> {
  const out: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    out[name.toLowerCase()] = value;
  });
  return out;
}

function errorMessage(kind: HttpErrorKind, url: string, err: unknown, timeoutMs: number): string {
  const origin = safeOrigin(url);
  if (kind === "timeout") return `no answer from ${origin} within ${Math.round(timeoutMs / 1000)} s`;
  if (kind === "aborted") return "the request was cancelled";
  if (err instanceof ResponseTooLarge) return err.message;
  const detail = err instanceof Error ? err.message : String(err);
  if (kind === "dropped") return `the connection to ${origin} closed in the middle of the answer (${detail})`;
  const offline = kind === "unreachable" ? offlineReason(url, appOrigin(), deviceOnline()) : null;
  if (offline !== null) return offline;
  if (kind === "unreachable")
    return `nothing answers at ${origin}: the connection was refused or the host cannot be reached (${detail})`;
  if (kind === "cors")
    return `${origin} answered, but the browser withheld the reply: the server does not allow this page's origin (${detail})`;
  return `could not reach ${origin}: the browser blocked the request (CORS) or the server is unreachable (${detail})`;
}

function appOrigin(): string {
  return typeof location === "undefined" ? "" : location.origin;
}

function deviceOnline(): boolean {
  return typeof navigator === "undefined" || navigator.onLine;
}

const PROBE_TIMEOUT_MS = 3000;

/**
 * Why a request got no answer at all: a `no-cors` request to the same URL reaches any server that
 * listens (its opaque answer is enough), so when it fails too nothing is listening there; when it
 * gets through, the server answered and the browser kept the reply from this page (CORS).
 */
async function probe(url: string): Promise<HttpErrorKind> {
  try {
    await fetch(url, {
      method: "GET",
      mode: "no-cors",
      credentials: "omit",
      cache: "no-store",
      redirect: "manual",
      referrerPolicy: "no-referrer",
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
    return "cors";
  } catch {
    return "unreachable";
  }
}

function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
