/**
 * One MCP server's sign-in state: its tokens, the client registration the authorization server gave us,
 * the discovery results and a pending PKCE verifier. It is a secret like a provider key: one record per
 * server URL, AES-GCM sealed in IndexedDB (settings/store.ts), readable by the page (which signs in) and
 * the agent worker (which injects the token). Never in Python, OPFS, SQLite, logs, frames or recordings.
 */

import type {
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from "@modelcontextprotocol/client";
import { dropSecret, openSecret, sealSecret } from "../settings/store";

export interface ServerAuth {
  tokens?: StoredOAuthTokens;
  client?: StoredOAuthClientInformation;
  discovery?: OAuthDiscoveryState;
  verifier?: string;
}

export type AuthPart = keyof ServerAuth;

const PREFIX = "mcp-oauth:";
const local = new Map<string, Promise<unknown>>();

/** The record's name: the server URL as the URL parser spells it (so `HTTP://Host/mcp` and `http://host/mcp` agree). */
export function recordName(serverUrl: string): string {
  return PREFIX + new URL(serverUrl).href;
}

/** Run `task` alone for `name`: across the page and its workers where the Web Locks API exists, else in this context. */
function exclusive<T>(name: string, task: () => Promise<T>): Promise<T> {
  const locks = typeof navigator === "undefined" ? undefined : navigator.locks;
  if (locks) return locks.request(name, task) as Promise<T>;
  const run = (local.get(name) ?? Promise.resolve()).then(task, task);
  local.set(
    name,
    run.catch(() => undefined),
  );
  return run;
}

function parse(text: string | null): ServerAuth {
  if (text === null) return {};
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : {};
  } catch {
    return {}; // a damaged record reads as "not signed in": the person signs in again, nothing else is lost
  }
}

export class ServerAuthStore {
  readonly name: string;

  constructor(serverUrl: string) {
    this.name = recordName(serverUrl);
  }

  async read(): Promise<ServerAuth> {
    return parse(await openSecret(this.name));
  }

  /** Set one part (or clear it with undefined), keeping the others. */
  async put<K extends AuthPart>(part: K, value: ServerAuth[K] | undefined): Promise<void> {
    await exclusive(this.name, async () => {
      const record = await this.read();
      if (value === undefined) delete record[part];
      else record[part] = value;
      await sealSecret(this.name, JSON.stringify(record));
    });
  }

  /** Forget everything about this server's sign-in (the server was removed). */
  async forget(): Promise<void> {
    await exclusive(this.name, () => dropSecret(this.name));
  }
}
