/**
 * The tool servers the page keeps (main thread): definitions (name, URL) in the settings store,
 * each token encrypted beside them as the provider keys are (settings/store.ts), or, when the person chose
 * "this session only", in this tab's memory (after a reload the entry asks for it again). Removing a
 * server forgets its token and its OAuth sign-in (oauth-store.ts).
 */

import { isJsonObject } from "../protocol/codec";
import { ServerAuthStore } from "./oauth-store";
import { del, get, openSecret, put, sealSecret } from "../settings/store";
import { serverNameProblem, serverUrlProblem, type ToolServerConfig } from "../protocol/tool-servers";
import type { KeyStorage } from "../settings/model";

const LIST_KEY = "tool-servers";
const tokenName = (server: string): string => `secret:tool-server:${server}`;
/** Session-only tokens, by server name: this tab's memory, never written anywhere. */
const sessionTokens = new Map<string, string>();

interface Stored {
  name: string;
  url: string;
  hasToken: boolean;
  /** Absent in entries kept before the choice existed: encrypted. */
  tokenStorage?: KeyStorage;
}

const inSession = (d: Stored): boolean => d.hasToken && d.tokenStorage === "session";

async function definitions(): Promise<Stored[]> {
  const raw = await get(LIST_KEY).catch(() => undefined);
  if (!Array.isArray(raw)) return [];
  return raw.filter(
    (r: unknown): r is Stored =>
      isJsonObject(r) && typeof r.name === "string" && typeof r.url === "string" && serverNameProblem(r.name) === null,
  );
}

/** Every kept server with its token (for the worker only). */
export async function loadServers(): Promise<ToolServerConfig[]> {
  const out: ToolServerConfig[] = [];
  for (const d of await definitions()) {
    const token = inSession(d)
      ? (sessionTokens.get(d.name) ?? null)
      : d.hasToken
        ? await openSecret(tokenName(d.name))
        : null;
    out.push({ name: d.name, url: d.url, ...(token ? { token } : {}) });
  }
  return out;
}

/** The servers whose token was kept for a session that is over: they wait for it to be given again. */
export async function tokensNeeded(): Promise<Set<string>> {
  return new Set((await definitions()).filter((d) => inSession(d) && !sessionTokens.has(d.name)).map((d) => d.name));
}

/** Give a session-only server its token again (this tab's memory). */
export function giveSessionToken(name: string, token: string): void {
  sessionTokens.set(name, token);
}

/** Add a server; a message says why not (a bad name or URL, a name taken). */
export async function addServer(
  name: string,
  url: string,
  token: string,
  storage: KeyStorage = "encrypted",
): Promise<string | null> {
  const problem = serverNameProblem(name) ?? serverUrlProblem(url);
  if (problem) return problem;
  const kept = await definitions();
  if (kept.some((d) => d.name === name))
    return `a server named ${name} is already added; remove it first or pick another name`;
  if (token && storage === "session") sessionTokens.set(name, token);
  else if (token) await sealSecret(tokenName(name), token);
  const entry: Stored = { name, url: new URL(url.trim()).href, hasToken: token !== "", tokenStorage: storage };
  await put(LIST_KEY, [...kept, entry]);
  return null;
}

export async function removeServer(name: string): Promise<void> {
  const kept = await definitions();
  await put(
    LIST_KEY,
    kept.filter((d) => d.name !== name),
  );
  await del(tokenName(name));
  sessionTokens.delete(name);
  for (const gone of kept.filter((d) => d.name === name)) {
    // The sign-in belongs to the URL; another entry at the same URL still uses it.
    if (!kept.some((d) => d.name !== name && d.url === gone.url)) await new ServerAuthStore(gone.url).forget();
  }
}

/** The kept servers' names and URLs, never a token (what a backup holds). */
export async function serverDefinitions(): Promise<{ name: string; url: string }[]> {
  return (await definitions()).map((d) => ({ name: d.name, url: d.url }));
}

/**
 * Put back servers from a backup (no tokens: a restored server without one asks for it again).
 * `merge` adds the ones whose name is not here; `replace` makes the list the backup's, keeping the
 * token of a server that is here under the same name and URL and forgetting the others'.
 */
export async function restoreServers(list: unknown, mode: "merge" | "replace"): Promise<number> {
  const incoming = (Array.isArray(list) ? list : []).filter(
    (r: unknown): r is { name: string; url: string } =>
      isJsonObject(r) &&
      typeof r.name === "string" &&
      typeof r.url === "string" &&
      serverNameProblem(r.name) === null &&
      serverUrlProblem(r.url) === null,
  );
  const kept = await definitions();
  const same = (a: { name: string; url: string }, b: { name: string; url: string }): boolean =>
    a.name === b.name && a.url === b.url;
  if (mode === "merge") {
    const added = incoming.filter((s) => !kept.some((k) => k.name === s.name));
    await put(LIST_KEY, [...kept, ...added.map((s) => ({ name: s.name, url: s.url, hasToken: false }))]);
    return added.length;
  }
  for (const gone of kept.filter((k) => !incoming.some((s) => same(s, k)))) await removeServer(gone.name);
  const now = await definitions();
  await put(
    LIST_KEY,
    incoming.map((s) => ({ name: s.name, url: s.url, hasToken: now.some((k) => same(k, s) && k.hasToken) })),
  );
  return incoming.length;
}
