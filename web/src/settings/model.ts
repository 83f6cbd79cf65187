/** The app's settings as plain values, their defaults, and what each key-storage mode means. */

import {
  PERMISSION_MODES as MODES,
  PROVIDER_DEFAULT_BASE_URLS,
  PROVIDER_KINDS,
  REASONING_EFFORTS,
  type PermissionMode,
  type ProviderKind,
  type ReasoningEffort,
} from "../protocol/messages";
import type { AgentSettings } from "../protocol/main-worker-messages";

export type KeyStorage = "encrypted" | "session";

/** The words Settings → Advanced shows for each effort the runtime knows (runtime/host/constants.py). */
export const REASONING_LABELS: Record<ReasoningEffort, string> = {
  auto: "Auto (medium for models that reason)",
  off: "Off",
  low: "Low",
  medium: "Medium",
  high: "High",
};

export function isReasoningEffort(value: unknown): value is ReasoningEffort {
  return typeof value === "string" && (REASONING_EFFORTS as readonly string[]).includes(value);
}

export interface AppSettings {
  provider: ProviderKind;
  baseUrl: string;
  model: string | null;
  permissionMode: PermissionMode;
  keyStorage: KeyStorage;
  reasoning: ReasoningEffort;
  /** The context window to ask for (tokens; Ollama's num_ctx); null: the model's maximum up to 8192. */
  contextLength: number | null;
  /** The most tokens one answer may take (max_tokens); null: the provider's default (a local server: ¼ of the window, ≤ 2048). */
  maxOutput: number | null;
  /** Where "Connect with OpenRouter" sends the person (and exchanges the code). */
  authBase: string;
}

const PROVIDER_LABELS: Record<ProviderKind, { label: string; keyRequired: boolean }> = {
  openrouter: { label: "OpenRouter", keyRequired: true },
  ollama: { label: "Ollama (local)", keyRequired: false },
  /** llama.cpp's llama-server, LM Studio, vLLM, LiteLLM…: named after its host, key optional. */
  "openai-compatible": { label: "OpenAI-compatible server (llama.cpp, LM Studio, vLLM…)", keyRequired: false },
  /** Answers model requests from a recording file (replay-file-input): no network, for tests and bug reports. */
  replay: { label: "Replay a recording", keyRequired: false },
};

/** Every provider kind the runtime knows (runtime/host/constants.py), in its order, with what the settings show. */
export const PROVIDERS: readonly { kind: ProviderKind; label: string; defaultBaseUrl: string; keyRequired: boolean }[] =
  PROVIDER_KINDS.map((kind) => ({ kind, ...PROVIDER_LABELS[kind], defaultBaseUrl: PROVIDER_DEFAULT_BASE_URLS[kind] }));

const MODE_LABELS: Record<PermissionMode, string> = {
  ask: "Ask (default)",
  "auto-edit": "Auto-edit",
  "full-auto": "Full auto",
  "read-only": "Read-only",
};

/** Every mode the runtime knows (runtime/host/constants.py), in its order, with the words the settings show. */
export const PERMISSION_MODES: readonly { mode: PermissionMode; label: string }[] = MODES.map((mode) => ({
  mode,
  label: MODE_LABELS[mode],
}));

export const KEY_STORAGE_HELP: Record<KeyStorage, string> = {
  encrypted:
    "Remembered on this device: encrypted with AES-GCM under a non-extractable browser key in IndexedDB. " +
    "Protects against the key being read in plain text from disk, backups or storage dumps. It does not " +
    "protect against code running in this page (e.g. a malicious extension) or someone using this browser profile.",
  session:
    "Session only: kept in this tab's memory and never written anywhere. Closing the tab forgets it; " +
    "nothing on disk can leak it, but you enter it again on every visit.",
};

export const DEFAULT_AUTH_BASE = "https://openrouter.ai";

export function providerInfo(kind: ProviderKind): (typeof PROVIDERS)[number] {
  const info = PROVIDERS.find((p) => p.kind === kind);
  if (!info) throw new Error(`unknown provider ${kind}`);
  return info;
}

export function defaultSettings(): AppSettings {
  return {
    provider: "openrouter",
    baseUrl: providerInfo("openrouter").defaultBaseUrl,
    model: null,
    permissionMode: "ask",
    keyStorage: "encrypted",
    reasoning: "auto",
    contextLength: null,
    maxOutput: null,
    authBase: DEFAULT_AUTH_BASE,
  };
}

/** A context window someone typed or stored: a whole number of tokens from 512 up, else null (the default). */
export function parseContextLength(value: unknown): number | null {
  const n = typeof value === "string" ? Number(value.trim() || NaN) : value;
  return typeof n === "number" && Number.isInteger(n) && n >= 512 && n <= 10_000_000 ? n : null;
}

/** An output limit someone typed or stored: a whole number of tokens from 16 up, else null (the default). */
export function parseMaxOutput(value: unknown): number | null {
  const n = typeof value === "string" ? Number(value.trim() || NaN) : value;
  return typeof n === "number" && Number.isInteger(n) && n >= 16 && n <= 1_000_000 ? n : null;
}

/** How the provider is named to people: a server of one's own by its host ("127.0.0.1:8081"), others by name. */
export function providerName(kind: ProviderKind, baseUrl: string): string {
  if (kind !== "openai-compatible") return providerInfo(kind).label;
  try {
    return new URL(baseUrl).host;
  } catch {
    return baseUrl || "the server";
  }
}

export function isProviderKind(value: string): value is ProviderKind {
  return PROVIDERS.some((p) => p.kind === value);
}

export function isPermissionMode(value: string): value is PermissionMode {
  return PERMISSION_MODES.some((m) => m.mode === value);
}

/** Merge a stored (possibly older or damaged) record over the defaults, keeping only valid values. */
export function sanitizeSettings(stored: unknown): AppSettings {
  const base = defaultSettings();
  if (typeof stored !== "object" || stored === null) return base;
  const s = stored as Record<string, unknown>;
  const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);
  const provider = str(s.provider);
  const mode = str(s.permissionMode);
  return {
    provider: provider && isProviderKind(provider) ? provider : base.provider,
    baseUrl: str(s.baseUrl) ?? base.baseUrl,
    model: str(s.model),
    permissionMode: mode && isPermissionMode(mode) ? mode : base.permissionMode,
    keyStorage: s.keyStorage === "session" ? "session" : "encrypted",
    reasoning: isReasoningEffort(s.reasoning) ? s.reasoning : base.reasoning,
    contextLength: parseContextLength(s.contextLength),
    maxOutput: parseMaxOutput(s.maxOutput),
    authBase: str(s.authBase) ?? base.authBase,
  };
}

/** What the agent worker is told of the settings (never the key, which travels beside them). */
export function agentSettings(settings: AppSettings): AgentSettings {
  const { provider, baseUrl, model, permissionMode, reasoning, contextLength, maxOutput } = settings;
  return {
    provider: { kind: provider, base_url: baseUrl },
    model,
    permission_mode: permissionMode,
    reasoning,
    context_length: contextLength,
    max_output: maxOutput,
  };
}
