/**
 * The adapter with its two sides recorded, for the adapter's tests (one copy): frames it writes to
 * the runtime (decoded, and the raw bytes), posts to the main thread, and `until` to wait for a
 * condition without fixed sleeps.
 */

import { encodeFrame, FrameDecoder, type WireMessage } from "../../src/protocol/codec";
import { Adapter, type AdapterIO } from "../../src/worker/adapter";
import type { WorkerToMain } from "../../src/protocol/main-worker-messages";

/** Wait until `check()` holds; `detail()` says what was seen when it never does. */
export async function until(check: () => boolean, detail: () => string = () => "", ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms; ${detail()}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

export class AdapterHarness {
  readonly toRuntime: WireMessage[] = [];
  readonly toMain: WorkerToMain[] = [];
  readonly rawBytes: Uint8Array[] = [];
  private readonly decoder = new FrameDecoder();
  readonly adapter: Adapter;

  constructor(extra: Partial<Omit<AdapterIO, "toRuntime" | "toMain">> = {}) {
    this.adapter = new Adapter({
      toRuntime: (bytes) => {
        this.rawBytes.push(bytes);
        for (const item of this.decoder.feed(bytes)) if (item.kind === "message") this.toRuntime.push(item.message);
      },
      toMain: (m) => this.toMain.push(m),
      appOrigin: "http://127.0.0.1:1",
      ...extra,
    });
  }

  fromRuntime(message: WireMessage): void {
    this.adapter.onRuntimeBytes(encodeFrame(message));
  }

  /** What the adapter sent the runtime of this type (and id). */
  sent(type: string, id?: string): WireMessage[] {
    return this.toRuntime.filter((m) => m.type === type && (id === undefined || m.id === id));
  }

  until(check: () => boolean, ms = 5000): Promise<void> {
    return until(check, () => `sent so far: ${JSON.stringify(this.toRuntime)}`, ms);
  }
}
