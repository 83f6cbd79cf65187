/**
 * The frames of docs/protocol.md for the TypeScript side. Their one definition is Python
 * (runtime/host/messages.py, events.py, constants.py); the types, tag lists and field tables are
 * generated from it into messages.gen.ts and constants.gen.ts (`npm run protocol:gen`). This module
 * adds what only TypeScript needs: checking what the runtime sent (`parseRuntimeMessage`). Request
 * methods and their results are in requests.ts. Unknown fields are ignored; unknown types are reported as `unknown_type` so the
 * adapter can skip them with a debug log (forward compatible).
 */

import type { WireMessage } from "./codec";
import type { Decision } from "./constants.gen";
import { RUNTIME_MESSAGE_SHAPES, SHAPES } from "./message-shapes.gen";
import type { HostMessage, RuntimeMessage, UiEvent } from "./messages.gen";
import { fieldProblem } from "./validate";

export * from "./constants.gen";
export * from "./messages.gen";

export type ApprovalDecision = Decision;
export type UiEventKind = UiEvent["kind"];
export type RuntimeMessageType = RuntimeMessage["type"];
export type HostMessageType = HostMessage["type"];

export type ParsedRuntimeMessage =
  | { ok: true; message: RuntimeMessage }
  | { ok: false; reason: "unknown_type"; type: string }
  | { ok: false; reason: "bad_fields"; type: string; detail: string; id: string | null };

/** Narrow a decoded frame to a RuntimeMessage, or say why not (`detail`: what is wrong with its fields). */
export function parseRuntimeMessage(wire: WireMessage): ParsedRuntimeMessage {
  if (!Object.hasOwn(RUNTIME_MESSAGE_SHAPES, wire.type)) return { ok: false, reason: "unknown_type", type: wire.type };
  const table = SHAPES[RUNTIME_MESSAGE_SHAPES[wire.type as RuntimeMessageType]];
  const detail = table ? fieldProblem(wire, table, SHAPES) : "no definition";
  if (detail !== null) {
    const id = typeof wire.id === "string" ? wire.id : null;
    return { ok: false, reason: "bad_fields", type: wire.type, detail, id };
  }
  return { ok: true, message: wire as unknown as RuntimeMessage };
}
