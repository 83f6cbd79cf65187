/**
 * Recordings kept between page loads: one JSON file per stored session under the workspace's
 * `recordings/` folder in OPFS (`<session id>.json`, the exchanges in order) and `model-lists.json`
 * (the latest model-list answers). Saves are coalesced (while a file is being written, only its latest contents wait) and a
 * session's file is kept under MAX_SESSION_BYTES by dropping its oldest exchanges. Only the tab that
 * holds the workspace saves. Nothing here is ever a reason to fail a model call: a failed save is
 * logged and the page's copy stays in memory.
 */

import type { RecordedExchange, RecordingSink } from "./recording";

export const MAX_SESSION_BYTES = 32 * 1024 * 1024;
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
    for (const part of ["tidepool", "workspaces", workspace, "recordings"]) dir = await dir.getDirectoryHandle(part, { create: true });
    return new OpfsRecordingStore(dir, log);
  }

  async load(sessionId: string): Promise<RecordedExchange[]> {
    return SESSION_NAME.test(sessionId) ? this.read(`${sessionId}.json`) : [];
  }

  save(sessionId: string, exchanges: readonly RecordedExchange[]): void {
    if (SESSION_NAME.test(sessionId)) this.later(`${sessionId}.json`, exchanges);
  }

  async drop(sessionId: string): Promise<void> {
    if (!SESSION_NAME.test(sessionId)) return;
    const name = `${sessionId}.json`;
    this.pending.delete(name);
    await this.enqueue(() => this.dir.removeEntry(name).catch(() => undefined));
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

  private async read(name: string): Promise<RecordedExchange[]> {
    try {
      const file = await (await this.dir.getFileHandle(name)).getFile();
      const value: unknown = JSON.parse(await file.text());
      return Array.isArray(value) ? (value as RecordedExchange[]) : [];
    } catch (err) {
      if (!(err instanceof DOMException && err.name === "NotFoundError")) this.log(`the recording ${name} could not be read and starts again: ${String(err)}`);
      return [];
    }
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
