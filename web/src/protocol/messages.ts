/**
 * The messages of docs/protocol.md, one discriminated union per direction.
 *
 * Runtime → host messages arrive from an untrusted byte stream, so they are defined once as field
 * guards (RUNTIME_FIELDS, EVENT_FIELDS) and their TypeScript types are derived from those guards:
 * what the parser checks and what the type promises cannot drift apart. Host → runtime messages are
 * built here, so they are plain types. Unknown fields are ignored; unknown types are reported as
 * `unknown` so the adapter can skip them with a debug log (forward compatible).
 */

import { isJsonObject, type JsonObject, type WireMessage } from "./codec";

export const PROTOCOL_VERSION = 1;

type Guard<T> = (value: unknown) => value is T;
type Fields = Record<string, Guard<unknown>>;
type FromFields<F extends Fields> = { [K in keyof F]: F[K] extends Guard<infer T> ? T : never };
type Tagged<S extends Record<string, Fields>, Tag extends string> = {
  [K in keyof S & string]: { [P in Tag]: K } & FromFields<S[K]>;
}[keyof S & string];

const str: Guard<string> = (v): v is string => typeof v === "string";
const num: Guard<number> = (v): v is number => typeof v === "number" && Number.isFinite(v);
const bool: Guard<boolean> = (v): v is boolean => typeof v === "boolean";
const anything: Guard<unknown> = (_v): _v is unknown => true;
const orNull =
  <T>(g: Guard<T>): Guard<T | null> =>
  (v): v is T | null =>
    v === null || g(v);
const optional =
  <T>(g: Guard<T>): Guard<T | undefined> =>
  (v): v is T | undefined =>
    v === undefined || g(v);
const oneOf =
  <const T extends readonly string[]>(...values: T): Guard<T[number]> =>
  (v): v is T[number] =>
    typeof v === "string" && values.includes(v);
const listOf =
  <T>(g: Guard<T>): Guard<T[]> =>
  (v): v is T[] =>
    Array.isArray(v) && v.every(g);
const stringMap: Guard<Record<string, string>> = (v): v is Record<string, string> =>
  isJsonObject(v) && Object.values(v).every((x) => typeof x === "string");

export const TOOL_EFFECTS = ["read", "write", "network", "execute", "memory"] as const;
const toolInfo = (v: unknown): v is ToolInfo =>
  isJsonObject(v) && str(v.name) && optional(str)(v.description) && optional(oneOf(...TOOL_EFFECTS))(v.effect);
export interface ToolInfo extends JsonObject {
  name: string;
  description?: string;
  effect?: (typeof TOOL_EFFECTS)[number];
}

export const TURN_END_REASONS = ["stop", "aborted", "max_rounds", "error"] as const;

/** UI events (`event.kind`) carried by the runtime's `event` message. */
export const EVENT_FIELDS = {
  ready: { models_known: anything, tools: optional(listOf(toolInfo)) },
  session_opened: { session_id: str, title: optional(str), resumed_turn: optional(orNull(str)) },
  notice: { code: str, text: str },
  turn_started: { turn_id: str },
  text_delta: { turn_id: str, text: str },
  reasoning_delta: { turn_id: str, text: str },
  reply_finished: { turn_id: str, finish_reason: str },
  tool_started: { turn_id: str, call_id: str, name: str, arguments: anything },
  tool_finished: {
    turn_id: str,
    call_id: str,
    name: str,
    ok: bool,
    result: anything,
    arguments: optional(anything),
    status: optional(oneOf("ok", "error", "denied")),
  },
  approval_needed: {
    turn_id: str,
    call_id: str,
    name: str,
    arguments: anything,
    effect: optional(str),
    preview: optional(str),
  },
  usage: {
    turn_id: optional(orNull(str)),
    prompt_tokens: optional(orNull(num)),
    completion_tokens: optional(orNull(num)),
    total_tokens: optional(orNull(num)),
    cost: optional(orNull(num)),
  },
  turn_finished: { turn_id: str, reason: oneOf(...TURN_END_REASONS) },
  error: { turn_id: optional(orNull(str)), code: str, message: str, retryable: optional(bool) },
} satisfies Record<string, Fields>;

export type UiEvent = Tagged<typeof EVENT_FIELDS, "kind">;
export type UiEventKind = UiEvent["kind"];

const uiEvent: Guard<UiEvent> = (v): v is UiEvent => {
  if (!isJsonObject(v) || typeof v.kind !== "string" || !Object.hasOwn(EVENT_FIELDS, v.kind)) return false;
  return matches(v, EVENT_FIELDS[v.kind as UiEventKind]);
};

/** Runtime → host. */
export const RUNTIME_FIELDS = {
  hello: { protocol: num, capabilities: optional(listOf(str)), agent: optional(str) },
  http_request: {
    id: str,
    method: str,
    url: str,
    headers: optional(orNull(stringMap)),
    body: optional(orNull(str)),
    stream: optional(bool),
    auth: optional(oneOf("provider", "none")),
    timeout_s: optional(orNull(num)),
  },
  cancel: { id: str },
  event: { event: uiEvent },
  exec_request: {
    id: str,
    code: str,
    timeout_s: optional(orNull(num)),
    files: anything,
    packages: optional(orNull(listOf(str))),
    index_urls: optional(orNull(listOf(str))),
  },
  flush_request: { id: str, what: oneOf("workspace", "state"), paths: anything },
  log: { level: str, logger: optional(str), message: str },
  reply: { id: str, ok: bool, result: anything, error: anything },
  error: { code: str, message: str, id: optional(orNull(str)) },
} satisfies Record<string, Fields>;

export type RuntimeMessage = Tagged<typeof RUNTIME_FIELDS, "type">;
export type RuntimeMessageType = RuntimeMessage["type"];

export type ParsedRuntimeMessage =
  | { ok: true; message: RuntimeMessage }
  | { ok: false; reason: "unknown_type" | "bad_fields"; type: string };

/** Narrow a decoded frame to a RuntimeMessage, or say why not. */
export function parseRuntimeMessage(wire: WireMessage): ParsedRuntimeMessage {
  if (!Object.hasOwn(RUNTIME_FIELDS, wire.type)) return { ok: false, reason: "unknown_type", type: wire.type };
  const fields: Fields = RUNTIME_FIELDS[wire.type as RuntimeMessageType];
  if (!matches(wire, fields)) return { ok: false, reason: "bad_fields", type: wire.type };
  return { ok: true, message: wire as unknown as RuntimeMessage };
}

function matches(value: JsonObject, fields: Fields): boolean {
  return Object.entries(fields).every(([name, guard]) => guard(value[name]));
}

/** Host → runtime. */
export type ProviderKind = "openrouter" | "ollama" | "replay";
export type PermissionMode = "ask" | "auto-edit" | "full-auto" | "read-only";
export type ApprovalDecision = "allow" | "allow_session" | "deny";
export type HttpErrorKind = "network" | "timeout" | "refused" | "aborted";

export type HostMessage =
  | { type: "hello"; protocol: number; capabilities: string[] }
  | { type: "http_head"; id: string; status: number; headers: Record<string, string> }
  | { type: "http_chunk"; id: string; data: string }
  | { type: "http_end"; id: string }
  | { type: "http_error"; id: string; kind: HttpErrorKind; message: string }
  | {
      type: "config";
      provider: { kind: ProviderKind; base_url: string; has_key: boolean };
      model: string | null;
      permission_mode: PermissionMode;
      page_origin: string;
      reasoning?: "auto" | "off" | "low" | "medium" | "high";
      context_length?: number | null;
      /** Package indexes run_python's micropip uses instead of PyPI (set by tests via `?package_index=`). */
      package_index_urls?: string[];
    }
  | { type: "user_message"; text: string; turn_id?: string }
  | { type: "abort_turn" }
  | { type: "approval"; call_id: string; decision: ApprovalDecision }
  | { type: "request"; id: string; method: string; params: JsonObject }
  | {
      type: "exec_result";
      id: string;
      ok: boolean;
      stdout: string;
      stderr: string;
      files: JsonObject;
      /** Files handed in that the code deleted (workspace-relative). */
      deleted?: string[];
      /** A string, or `{kind: "timeout" | "exception" | "sandbox" | "install", message}` (runtime/tools/python.py). */
      error: string | { kind: string; message: string } | null;
    }
  | { type: "reply"; id: string; ok: boolean; result?: unknown; error?: { code: string; message: string } }
  | { type: "cancel"; id: string }
  | { type: "error"; code: string; message: string; id?: string };

export type HostMessageType = HostMessage["type"];

/** Every host → runtime type (runtime/host/messages.py `HostMessage`). */
export const HOST_MESSAGE_TYPES = [
  "hello",
  "http_head",
  "http_chunk",
  "http_end",
  "http_error",
  "config",
  "user_message",
  "abort_turn",
  "approval",
  "request",
  "exec_result",
  "reply",
  "cancel",
  "error",
] as const;

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

export function parseModels(result: unknown): ModelInfo[] | null {
  if (!isJsonObject(result) || !Array.isArray(result.models)) return null;
  const models: ModelInfo[] = [];
  for (const m of result.models) {
    if (!isJsonObject(m) || typeof m.id !== "string") continue;
    models.push({
      id: m.id,
      name: typeof m.name === "string" && m.name ? m.name : m.id,
      context_length: num(m.context_length) ? m.context_length : null,
      prompt_price: num(m.prompt_price) ? m.prompt_price : null,
      completion_price: num(m.completion_price) ? m.completion_price : null,
      tools: bool(m.tools) ? m.tools : null,
      reasoning: bool(m.reasoning) ? m.reasoning : null,
      vision: bool(m.vision) ? m.vision : null,
    });
  }
  return models;
}
