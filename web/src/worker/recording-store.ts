/**
 * Recordings kept between page loads, under the workspace's `recordings/` folder in OPFS: one JSON
 * Lines file per stored session (`<session id>.jsonl`, one exchange per line, in the order they
 * finished) and `model-lists.json` (the latest model-list answers). A finished exchange is appended:
 * a step costs its own exchange, not the session's. A session's file is kept under
 * MAX_SESSION_BYTES: when an append would pass it, the file is written again with its oldest lines
 * left out (down to KEEP_AFTER_TRIM of the limit, so this happens once per several MiB). Writes run
 * one at a time. Only the tab that holds the workspace saves. Nothing here is ever a reason to fail
 * a model call: a failed save is logged and the page's copy stays in memory. Files of the earlier
 * format (`<session id>.json`, one JSON array) are still read, and go with their session.
 */
import { writeAll, type SyncAccessHandle } from "./backings";
import type { RecordedExchange, RecordingSink } from "./recording";

export const MAX_SESSION_BYTES = 32 * 1024 * 1024;
export const KEEP_AFTER_TRIM = 0.75;
const LISTS_FILE = "model-lists.json";
const SESSION_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export class OpfsRecordingStore implements RecordingSink {
  private readonly pending = new Map<string, readonly RecordedExchange[]>();
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly dir: FileSystemDirectoryHandle,
    private readonly log: (message: string) => void,
  ) {}

  /** `tidepool/workspaces/<workspace>/recordings/` in OPFS (created when missing). */
  static async open(workspace: string, log: (message: string) => void): Promise<OpfsRecordingStore> {
    let dir = await navigator.storage.getDirectory();
    for (const part of ["tidepool", "workspaces", workspace, "recordings"])
      dir = await dir.getDirectoryHandle(part, { create: true });
    return new OpfsRecordingStore(dir, log);
  }

  /** Read in turn with the writes: after the appends asked for earlier, never beside one (its handle is exclusive). */
  load(sessionId: string): Promise<RecordedExchange[]> {
    if (!SESSION_NAME.test(sessionId)) return Promise.resolve([]);
    const read = this.chain.then(async () => {
      const legacy = await this.text(`${sessionId}.json`);
      const lines = await this.text(`${sessionId}.jsonl`);
      const earlier = legacy ? parseArray(legacy, `${sessionId}.json`, this.log) : [];
      return [...earlier, ...(lines ? parseLines(lines, `${sessionId}.jsonl`, this.log) : [])];
    });
    this.chain = read.then(
      () => undefined,
      () => undefined,
    );
    return read;
  }

  append(sessionId: string, exchange: RecordedExchange): void {
    if (!SESSION_NAME.test(sessionId)) return;
    const line = new TextEncoder().encode(JSON.stringify(exchange) + "\n");
    void this.enqueue(() => this.appendLine(`${sessionId}.jsonl`, line));
  }

  async drop(sessionId: string): Promise<void> {
    if (!SESSION_NAME.test(sessionId)) return;
    await this.enqueue(async () => {
      for (const name of [`${sessionId}.jsonl`, `${sessionId}.json`])
        await this.dir.removeEntry(name).catch(() => undefined);
    });
  }

  loadLists(): Promise<RecordedExchange[]> {
    return this.read(LISTS_FILE);
  }

  saveLists(exchanges: readonly RecordedExchange[]): void {
    this.later(LISTS_FILE, exchanges);
  }

  /** Resolves when every save asked for so far is written. */
  async flush(): Promise<void> {
    await this.chain;
  }

  /** Write now, or right after the write in progress (the latest exchanges win; none are skipped). */
  private later(name: string, exchanges: readonly RecordedExchange[]): void {
    const waiting = this.pending.has(name);
    this.pending.set(name, exchanges);
    if (!waiting) void this.enqueue(() => this.write(name));
  }

  private enqueue(step: () => Promise<unknown>): Promise<void> {
    this.chain = this.chain.then(step).then(
      () => undefined,
      (err: unknown) => this.log(`a recording was not saved: ${err instanceof Error ? err.message : String(err)}`),
    );
    return this.chain;
  }

  private async write(name: string): Promise<void> {
    const exchanges = this.pending.get(name);
    this.pending.delete(name);
    if (!exchanges) return;
    const file = await this.dir.getFileHandle(name, { create: true });
    const writable = await file.createWritable();
    try {
      await writable.write(capped(exchanges));
      await writable.close();
    } catch (err) {
      await writable.abort().catch(() => undefined);
      throw err;
    }
  }

  /** Add `line` at the end of `name`, first leaving out the oldest lines when it would pass the limit. */
  private async appendLine(name: string, line: Uint8Array): Promise<void> {
    if (line.length > MAX_SESSION_BYTES) {
      this.log(`a model call of ${line.length} bytes is too large to keep in its recording`);
      return;
    }
    const file = await this.dir.getFileHandle(name, { create: true });
    const handle = await (
      file as unknown as { createSyncAccessHandle(): Promise<SyncAccessHandle> }
    ).createSyncAccessHandle();
    try {
      const size = handle.getSize();
      if (size + line.length <= MAX_SESSION_BYTES) {
        try {
          writeAll(handle, line, size);
        } catch (err) {
          handle.truncate(size); // no half line is left behind
          throw err;
        }
      } else {
        const old = new Uint8Array(size);
        handle.read(old, { at: 0 });
        const kept = newestLines(old, Math.floor(MAX_SESSION_BYTES * KEEP_AFTER_TRIM) - line.length);
        handle.truncate(0);
        try {
          writeAll(handle, kept, 0);
          writeAll(handle, line, kept.length);
        } catch (err) {
          handle.truncate(0);
          writeAll(handle, old, 0); // the recording as it was (it fitted before)
          throw err;
        }
      }
      handle.flush();
    } finally {
      handle.close();
    }
  }

  private async text(name: string): Promise<string | null> {
    try {
      return await (await (await this.dir.getFileHandle(name)).getFile()).text();
    } catch (err) {
      if (!(err instanceof DOMException && err.name === "NotFoundError"))
        this.log(`the recording ${name} could not be read and starts again: ${String(err)}`);
      return null;
    }
  }

  private async read(name: string): Promise<RecordedExchange[]> {
    const text = await this.text(name);
    return text ? parseArray(text, name, this.log) : [];
  }
}

/** The exchanges as JSON, the oldest left out until it fits in MAX_SESSION_BYTES. */
export function capped(exchanges: readonly RecordedExchange[]): string {
  let from = 0;
  let text = JSON.stringify(exchanges);
  while (text.length > MAX_SESSION_BYTES && from < exchanges.length) {
    from += Math.max(1, Math.ceil((exchanges.length - from) / 8));
    text = JSON.stringify(exchanges.slice(from));
  }
  return text;
}

/** The last whole lines of `data` that fit in `budget` bytes. */
export function newestLines(data: Uint8Array, budget: number): Uint8Array {
  let end = data.length;
  while (end > 0 && data[end - 1] !== 0x0a) end -= 1; // a torn last line is left out
  let start = end;
  while (start > 0) {
    let before = start - 1;
    while (before > 0 && data[before - 1] !== 0x0a) before -= 1;
    if (end - before > budget) break;
    start = before;
  }
  return data.subarray(start, end);
}

/** The exchanges of a JSON Lines recording; a line that does not parse (a torn write) is left out. */
export function parseLines(text: string, name: string, log: (message: string) => void): RecordedExchange[] {
  const out: RecordedExchange[] = [];
  let bad = 0;
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      out.push(JSON.parse(line) as RecordedExchange);
    } catch {
      bad += 1;
    }
  }
  if (bad > 0) log(`${bad} unreadable line(s) of the recording ${name} were left out`);
  return out;
}

function parseArray(text: string, name: string, log: (message: string) => void): RecordedExchange[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? (value as RecordedExchange[]) : [];
  } catch (err) {
    log(`the recording ${name} could not be read and starts again: ${String(err)}`);
    return [];
  }
}
