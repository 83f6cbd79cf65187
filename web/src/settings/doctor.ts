/**
 * The connection doctor's checks, as plain logic over an injected `fetch` (so they are easy to test):
 * mixed content, reachable (a `no-cors` probe), origin (the same request with CORS: refused while the
 * probe got through means the server refuses this page), key and credits (OpenRouter `GET /key`),
 * model (exists, can call tools) and context window. An OpenAI-compatible server (llama.cpp, LM Studio,
 * vLLM…) is named by its host; its key is optional and never checked. Each result says what to do.
 */

import type { ProviderKind } from "../protocol/messages";
import type { ModelRecord } from "../protocol/requests";

export type CheckName = "mixed-content" | "reachable" | "origin" | "key" | "model" | "context" | McpCheckName;
/** A tool server's checks (mcp/doctor.ts); their results carry `server`. */
export type McpCheckName = "mcp-reachable" | "mcp-cors" | "mcp-auth" | "mcp-protocol" | "mcp-tools";
export type CheckState = "ok" | "warn" | "fail";

export interface CheckResult {
  check: CheckName;
  state: CheckState;
  text: string;
  /** The tool server a check is about; absent for the model provider's checks. */
  server?: string;
}

export interface DoctorInput {
  provider: ProviderKind;
  baseUrl: string;
  /** This page's exact origin (what Ollama's OLLAMA_ORIGINS must list). */
  pageOrigin: string;
  key: string | null;
  model: string | null;
  /** The provider's model list, or null when it could not be read. */
  models: readonly ModelRecord[] | null;
  fetch: typeof fetch;
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);
const SMALL_CONTEXT = 4096; // below it even the compact prompt and tools (~600 tokens) crowd the conversation

export function originAdvice(origin: string): string {
  return (
    `Ollama refuses requests from this page. Allow its origin with OLLAMA_ORIGINS=${origin} and restart Ollama. ` +
    `Linux (systemd): sudo systemctl edit ollama, add [Service] Environment="OLLAMA_ORIGINS=${origin}", then sudo systemctl restart ollama. ` +
    `macOS (app): launchctl setenv OLLAMA_ORIGINS "${origin}", then quit and reopen Ollama. ` +
    `Windows: setx OLLAMA_ORIGINS "${origin}", then quit Ollama from the tray and start it again. ` +
    `By hand: OLLAMA_ORIGINS=${origin} ollama serve.`
  );
}

function probeUrl(provider: ProviderKind, base: string): string {
  return provider === "ollama" ? `${base}/api/version` : `${base}/models`;
}

export function mixedContent(baseUrl: string, pageOrigin: string): CheckResult {
  const url = new URL(baseUrl);
  const page = new URL(pageOrigin);
  if (page.protocol === "https:" && url.protocol === "http:" && !LOOPBACK.has(url.hostname)) {
    return {
      check: "mixed-content",
      state: "fail",
      text:
        `This page is served over https, so the browser blocks http:// requests to ${url.host}. Use an https:// base URL ` +
        "(for Ollama on another machine: a reverse proxy with a certificate, or an SSH tunnel — ssh -L 11434:localhost:11434 you@that-machine — and http://localhost:11434).",
    };
  }
  if (url.protocol === "http:" && !LOOPBACK.has(url.hostname)) {
    return {
      check: "mixed-content",
      state: "warn",
      text:
        `${url.host} is reached over plain http: this app only connects to https:// addresses and to localhost. ` +
        "For Ollama on another machine use an SSH tunnel (ssh -L 11434:localhost:11434 you@that-machine, then http://localhost:11434) or put it behind https.",
    };
  }
  return { check: "mixed-content", state: "ok", text: "No mixed content: the base URL can be reached from this page." };
}

async function reaches(
  input: DoctorInput,
  url: string,
  mode: RequestMode,
  headers?: HeadersInit,
): Promise<Response | null> {
  try {
    return await input.fetch(url, { mode, headers, cache: "no-store", credentials: "omit" });
  } catch {
    return null;
  }
}

export async function runChecks(input: DoctorInput): Promise<CheckResult[]> {
  const base = input.baseUrl.replace(/\/+$/, "");
  const results: CheckResult[] = [mixedContent(base, input.pageOrigin)];
  const url = probeUrl(input.provider, base);
  const probe = await reaches(input, url, "no-cors");
  if (!probe) {
    const advice =
      input.provider === "ollama"
        ? "Is Ollama running (ollama serve) and listening there? On another machine it must listen beyond localhost (OLLAMA_HOST=0.0.0.0)."
        : input.provider === "openai-compatible"
          ? `Is your server running and listening there? For llama.cpp: llama-server -m model.gguf --jinja -c 8192 --port ${new URL(base).port || "8080"}.`
          : "Check the base URL and your network.";
    results.push({ check: "reachable", state: "fail", text: `Nothing answers at ${base}. ${advice}` });
    return results;
  }
  results.push({ check: "reachable", state: "ok", text: `${new URL(base).host} answers.` });
  const cors = await reaches(input, url, "cors");
  if (!cors) {
    const text =
      input.provider === "ollama" ? originAdvice(input.pageOrigin) : `${base} refuses requests from this page (CORS).`;
    results.push({ check: "origin", state: "fail", text });
    return results;
  }
  results.push({ check: "origin", state: "ok", text: `Requests from ${input.pageOrigin} are allowed.` });
  results.push(input.provider === "openrouter" ? await checkKey(input, base) : noKeyCheck(input, base));
  results.push(...checkModel(input));
  return results;
}

function noKeyCheck(input: DoctorInput, base: string): CheckResult {
  if (input.provider === "ollama") return { check: "key", state: "ok", text: "Ollama needs no key." };
  const host = new URL(base).host;
  return {
    check: "key",
    state: "ok",
    text: input.key ? `A key is sent to ${host} (not checked).` : `No key: ${host} is used without one.`,
  };
}

async function checkKey(input: DoctorInput, base: string): Promise<CheckResult> {
  if (!input.key)
    return { check: "key", state: "fail", text: "No API key is saved: paste one or connect with OpenRouter." };
  const response = await reaches(input, `${base}/key`, "cors", { Authorization: `Bearer ${input.key}` });
  if (!response) return { check: "key", state: "warn", text: "The key could not be checked (no answer from /key)." };
  if (response.status === 401 || response.status === 403) {
    return {
      check: "key",
      state: "fail",
      text: "OpenRouter rejected the key: paste a valid one (openrouter.ai/keys) or connect again.",
    };
  }
  if (!response.ok)
    return { check: "key", state: "warn", text: `The key could not be checked (HTTP ${response.status}).` };
  const data: unknown = await response.json().catch(() => null);
  const info =
    typeof data === "object" && data !== null && "data" in data ? (data as { data: Record<string, unknown> }).data : {};
  const remaining = typeof info.limit_remaining === "number" ? info.limit_remaining : null;
  if (remaining !== null && remaining <= 0) {
    return {
      check: "key",
      state: "fail",
      text: "The key has no credits left (its limit is used up): add credits at openrouter.ai/settings/credits or raise the key's limit.",
    };
  }
  if (info.is_free_tier === true) {
    return {
      check: "key",
      state: "warn",
      text: "The key works, on the free tier: free models only, 50 requests a day (1000 once 10 credits were bought).",
    };
  }
  const left = remaining === null ? "no credit limit on the key" : `${remaining} credits left on the key`;
  return { check: "key", state: "ok", text: `The key works (${left}).` };
}

function checkModel(input: DoctorInput): CheckResult[] {
  if (!input.models) return [{ check: "model", state: "fail", text: "The model list could not be read." }];
  const model = input.models.find((m) => m.id === input.model);
  if (!model) {
    const text = input.model
      ? `${input.model} is not offered by this provider: choose another model.`
      : "No model is chosen: choose one.";
    return [{ check: "model", state: "fail", text }];
  }
  const tools: CheckResult =
    model.tools === false
      ? {
          check: "model",
          state: "warn",
          text: `${model.id} cannot call tools: it answers without reading files, running code or fetching pages. Choose a model with the “tools” badge.`,
        }
      : { check: "model", state: "ok", text: `${model.id} is available${model.tools ? " and can call tools" : ""}.` };
  return [tools, checkContext(input.provider, model.context_length)];
}

function checkContext(provider: ProviderKind, n: number | null): CheckResult {
  const server = provider === "openai-compatible";
  const raise = server
    ? "Start the server with a larger window: llama-server -c 8192 (llama-cpp-python: --n_ctx 8192)."
    : "Raise it under Advanced → Context window if the model allows.";
  if (n === null) {
    const text = server
      ? "The server did not say its context window: 32768 tokens are assumed. Set the real one under Advanced → Context window."
      : "The model's context window is unknown: 32768 tokens are assumed.";
    return { check: "context", state: "warn", text };
  }
  if (n < SMALL_CONTEXT) {
    return {
      check: "context",
      state: "warn",
      text: `The context window is small (${n} tokens): Tidepool sends a compact prompt and fewer tools, and little room is left for the conversation. ${raise}`,
    };
  }
  return { check: "context", state: "ok", text: `Context window: ${n.toLocaleString("en-US")} tokens.` };
}

/** What `connection-status` says: the first problem's advice, or that all is well. It is the model
 * provider's connection: a tool server's problems are listed, not summed up here. */
export function summary(all: readonly CheckResult[]): { state: "ok" | "error"; text: string } {
  const results = all.filter((r) => r.server === undefined);
  const fail = results.find((r) => r.state === "fail");
  if (fail) return { state: "error", text: fail.text };
  const warn = results.find((r) => r.state === "warn");
  return { state: "ok", text: warn ? `Connected, with a warning: ${warn.text}` : "Connected: every check passed." };
}
