/** A runtime *session view* (docs/protocol.md, `session_current`) as plain values the chat can show. */

import { isJsonObject, type JsonObject } from "../../protocol/codec";

export type HistoryCallStatus = "ok" | "error" | "denied" | "running" | "pending-approval" | "interrupted";

export interface HistoryCall {
  callId: string;
  name: string;
  arguments: unknown;
  status: HistoryCallStatus;
  result: string | null;
  /** Image files the call wrote (workspace paths). */
  images: string[];
}

export interface HistoryMessage {
  role: "user" | "assistant" | "summary";
  status: string;
  text: string;
  turnId: string | null;
  calls: HistoryCall[];
  /** The model's reasoning for this reply (shown folded above it). */
  reasoning: string;
  /** Why the reply ended when that matters (`length`: cut off; `content_filter`). */
  finishReason: string | null;
  /** The images a user message carries (bytes: the `message_image` request). */
  images: { id: number; name: string }[];
}

export interface SessionView {
  sessionId: string;
  title: string;
  messages: HistoryMessage[];
  /** How many earlier messages the session holds beyond those in `messages` (a long session). */
  earlier: number;
  pending: { callId: string; name: string; arguments: unknown }[];
  runningTurn: string | null;
}

const CALL_STATUSES: readonly HistoryCallStatus[] = ["ok", "error", "denied", "running", "pending-approval", "interrupted"];

const text = (v: unknown): string => (typeof v === "string" ? v : "");
const list = (v: unknown): JsonObject[] => (Array.isArray(v) ? v.filter(isJsonObject) : []);

function parseCall(c: JsonObject): HistoryCall | null {
  if (typeof c.call_id !== "string" || typeof c.name !== "string") return null;
  const status = CALL_STATUSES.find((s) => s === c.status) ?? "interrupted";
  const images = Array.isArray(c.images) ? c.images.filter((p): p is string => typeof p === "string") : [];
  return { callId: c.call_id, name: c.name, arguments: c.arguments, status, result: typeof c.result === "string" ? c.result : null, images };
}

function parseMessage(m: JsonObject): HistoryMessage | null {
  if (m.role !== "user" && m.role !== "assistant" && m.role !== "summary") return null;
  const calls = list(m.tool_calls)
    .map(parseCall)
    .filter((c): c is HistoryCall => c !== null);
  const finishReason = typeof m.finish_reason === "string" ? m.finish_reason : null;
  const turnId = typeof m.turn_id === "string" ? m.turn_id : null;
  const images = list(m.images)
    .filter((i) => typeof i.id === "number")
    .map((i) => ({ id: Number(i.id), name: text(i.name) || "image" }));
  return { role: m.role, status: text(m.status), text: text(m.text), turnId, calls, reasoning: text(m.reasoning), finishReason, images };
}

/** Null when the value is not a session view. */
export function parseSessionView(value: unknown): SessionView | null {
  if (!isJsonObject(value) || !isJsonObject(value.session) || typeof value.session.id !== "string") return null;
  const messages = list(value.messages)
    .map(parseMessage)
    .filter((m): m is HistoryMessage => m !== null);
  const pending = list(value.pending_approvals)
    .filter((p) => typeof p.call_id === "string" && typeof p.name === "string")
    .map((p) => ({ callId: String(p.call_id), name: String(p.name), arguments: p.arguments }));
  return {
    sessionId: value.session.id,
    title: text(value.session.title),
    messages,
    earlier: typeof value.earlier === "number" && value.earlier > 0 ? Math.floor(value.earlier) : 0,
    pending,
    runningTurn: typeof value.running_turn === "string" ? value.running_turn : null,
  };
}
