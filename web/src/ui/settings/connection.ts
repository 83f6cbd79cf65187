/** Why a provider check failed, in words a person can act on (pure, so it is easy to test). */

import type { ProviderKind } from "../../protocol/messages";
import type { WorkerToMain } from "../../protocol/main-worker-messages";

export type HttpFailureInfo = Omit<Extract<WorkerToMain, { type: "http_failure" }>, "type">;

const STATUS_REASONS: Record<number, string> = {
  400: "400 Bad Request: the provider did not accept the request",
  401: "401 Unauthorized: the API key is missing or was rejected — check it",
  402: "402 Payment Required: the account is out of credits",
  403: "403 Forbidden: the key may not use this endpoint",
  404: "404 Not Found: check the base URL",
  429: "429 Too Many Requests: rate limited, try again shortly",
};

export function explainFailure(
  provider: ProviderKind,
  baseUrl: string,
  appOrigin: string,
  failure: HttpFailureInfo | null,
  runtimeMessage: string,
): string {
  if (!failure) return runtimeMessage;
  if (failure.kind === "status" && failure.status !== null) {
    const reason =
      STATUS_REASONS[failure.status] ??
      (failure.status >= 500
        ? `${failure.status}: the provider had a server error, try again later`
        : `HTTP ${failure.status}`);
    return reason;
  }
  if (failure.kind === "timeout") return `Timed out: ${failure.message}`;
  if (failure.kind === "replay") return failure.message; // the replay's own failure, never provider advice
  const where = safeOrigin(baseUrl);
  if (failure.kind === "dropped")
    return `${where} stopped answering in the middle of a reply: is the server still running? Start it again, then press Retry.`;
  const base =
    failure.kind === "unreachable"
      ? `Nothing answers at ${where} (connection refused): is the server running there?`
      : failure.kind === "cors"
        ? `${where} answers, but refuses requests from this page (CORS).`
        : `Cannot reach ${where}: blocked by CORS or unreachable.`;
  if (provider === "ollama") {
    return `${base} Is Ollama running? Start it with OLLAMA_ORIGINS=${appOrigin} (e.g. \`OLLAMA_ORIGINS=${appOrigin} ollama serve\`) so it accepts requests from this page.`;
  }
  if (provider === "openai-compatible") {
    return `${base} Check the base URL (the server's /v1); llama-server allows any origin, other servers may need this page's origin allowed.`;
  }
  return `${base} Check the base URL and your network.`;
}

function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
