/**
 * The main thread's runtime `request`s in flight, by frame id: an attached file is stored in the
 * runtime's file system (incoming.ts) and named by path in `params`; the reply (its result inline, or
 * in the file the runtime named with `result_file`) answers the UI request, and the attachment is
 * removed. A request that cannot be sent or answered fails at once with a reason, never silently.
 */

import type { Attachment } from "../protocol/main-worker-messages";
import type { Incoming } from "./incoming";
import type { WorkerToMain } from "../protocol/main-worker-messages";

type Params = Record<string, unknown>;

export interface RuntimeReply {
  ok: boolean;
  result?: unknown;
  result_file?: string;
  error?: unknown;
}

export class UiRequests {
  private readonly pending = new Map<string, { requestId: string; attachment: string | null }>();

  constructor(
    private readonly toMain: (message: WorkerToMain) => void,
    private readonly incoming: Incoming | undefined,
  ) {}

  /** The params to send as frame `id` for UI request `requestId`, or null when it already failed. */
  open(id: string, requestId: string, params: Params, file: Attachment | undefined): Params | null {
    let attachment: string | null = null;
    let sent = params;
    if (file) {
      if (!this.incoming) return this.fail(requestId, "unavailable", "files cannot be handed to the runtime here");
      try {
        attachment = this.incoming.store(id, file);
        sent = { ...params, path: attachment, size: file.data.length };
      } catch (err) {
        return this.fail(requestId, "storage_failed", `the file could not be handed to the runtime: ${String(err)}`);
      }
    }
    this.pending.set(id, { requestId, attachment });
    return sent;
  }

  has(id: string): boolean {
    return this.pending.has(id);
  }

  /** Fail the UI request behind frame `id` (not sent, a broken or refused answer); false when unknown. */
  failById(id: string, code: string, message: string): boolean {
    const requestId = this.settle(id);
    if (requestId === undefined) return false;
    this.fail(requestId, code, message);
    return true;
  }

  /** Answer the UI request behind frame `id` with the runtime's reply; false when unknown. */
  answer(id: string, reply: RuntimeReply): boolean {
    const requestId = this.settle(id);
    if (requestId === undefined) return false;
    if (!reply.ok) {
      this.fail(requestId, errorCode(reply.error), describeError(reply.error));
      return true;
    }
    let value = reply.result;
    if (reply.result_file !== undefined) {
      try {
        if (!this.incoming) throw new Error("files cannot be read from the runtime here");
        value = JSON.parse(new TextDecoder().decode(this.incoming.take(reply.result_file))) as unknown;
      } catch (err) {
        this.fail(
          requestId,
          "internal",
          `the runtime's answer could not be read from ${reply.result_file}: ${String(err)}`,
        );
        return true;
      }
    }
    this.toMain({ type: "reply", requestId, result: { ok: true, value } });
    return true;
  }

  fail(requestId: string, code: string, message: string): null {
    this.toMain({ type: "reply", requestId, result: { ok: false, code, message } });
    return null;
  }

  /** Forget frame `id` and remove its attachment; its UI request id, or undefined. */
  private settle(id: string): string | undefined {
    const entry = this.pending.get(id);
    if (!entry) return undefined;
    this.pending.delete(id);
    if (entry.attachment !== null) this.incoming?.remove(entry.attachment);
    return entry.requestId;
  }
}

function errorCode(error: unknown): string {
  if (typeof error === "object" && error !== null) {
    const code = (error as Record<string, unknown>).code;
    if (typeof code === "string" && code) return code;
  }
  return "error";
}

/** The runtime's error payload (a string or `{code, message}`) as a sentence for a person. */
export function describeError(error: unknown): string {
  if (typeof error === "string" && error) return error;
  if (typeof error === "object" && error !== null) {
    const record = error as Record<string, unknown>;
    if (typeof record.message === "string" && record.message) return record.message;
  }
  return "the runtime reported an error without details";
}
