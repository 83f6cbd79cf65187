/**
 * The frames of docs/protocol.md for the TypeScript side. Their one definition is Python
 * (runtime/host/messages.py, events.py, constants.py); the types, tag lists and field tables are
 * generated from it into messages.gen.ts and constants.gen.ts (`npm run protocol:gen`). This module
 * adds what only TypeScript needs: checking what the runtime sent (`parseRuntimeMessage`) and the
 * `list_models` reply. Unknown fields are ignored; unknown types are reported as `unknown_type` so the
 * adapter can skip them with a debug log (forward compatible).
 */

import { isJsonObject, type WireMessage } from "./codec";
import type { Decision } from "./constants.gen";
import { RUNTIME_MESSAGE_SHAPES, SHAPES, type HostMessage, type RuntimeMessage, type UiEvent } from "./messages.gen";
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

/** One model in the `list_models` reply. */
export interface ModelInfo {
  id: string;
  name: string;
  context_length: number | null;
  prompt_price: number | null;
  completion_price: number | null;
  tools: boolean | null;
  reasoning: boolean | null;
  vision: boolean | null;
}

const finite = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

export function parseModels(result: unknown): ModelInfo[] | null {
  if (!isJsonObject(result) || !Array.isArray(result.models)) return null;
  const models: ModelInfo[] = [];
  for (const m of result.models) {
    if (!isJsonObject(m) || typeof m.id !== "string") continue;
    models.push({
      id: m.id,
      name: typeof m.name === "string" && m.name ? m.name : m.id,
      context_length: finite(m.context_length) ? m.context_length : null,
      prompt_price: finite(m.prompt_price) ? m.prompt_price : null,
      completion_price: finite(m.completion_price) ? m.completion_price : null,
      tools: typeof m.tools === "boolean" ? m.tools : null,
      reasoning: typeof m.reasoning === "boolean" ? m.reasoning : null,
      vision: typeof m.vision === "boolean" ? m.vision : null,
    });
  }
  return models;
}
