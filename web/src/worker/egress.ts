/**
 * The egress and credential rule, pure so it is unit-tested (web/tests/egress.test.ts).
 *
 * The runtime may reach exactly two places: the configured provider (its base URL and below) and
 * the app's own `/api/proxy` (same origin). Everything else is refused. The provider key is added
 * only when the runtime asked for `auth: "provider"` AND the URL is under the provider base URL.
 * One sibling is allowed, never with the key: llama.cpp's `/props` beside a base URL ending in `/v1`
 * (`http://127.0.0.1:8081/v1` → `http://127.0.0.1:8081/props`), where llama-server says its window.
 */

import { PROXY_PATH } from "../protocol/routes";

export type EgressDecision =
  | { kind: "provider"; url: string; authorize: boolean }
  | { kind: "proxy"; url: string }
  | { kind: "refused"; reason: string };

export interface EgressPolicy {
  /** The configured provider base URL, e.g. https://openrouter.ai/api/v1 (null: none configured). */
  providerBaseUrl: string | null;
  /** The app's own origin, e.g. http://127.0.0.1:8000 (where /api/proxy lives). */
  appOrigin: string;
}

export function decideEgress(rawUrl: string, auth: "provider" | "none", policy: EgressPolicy): EgressDecision {
  const url = parseUrl(rawUrl, policy.appOrigin);
  if (url === null) return refused(`not a valid URL: ${rawUrl.slice(0, 200)}`);
  if (url.protocol !== "https:" && url.protocol !== "http:") return refused(`scheme ${url.protocol} is not allowed`);
  if (url.username !== "" || url.password !== "") return refused("URLs with credentials are not allowed");
  if (isUnderBase(url, policy.providerBaseUrl)) {
    return { kind: "provider", url: url.href, authorize: auth === "provider" };
  }
  if (isServerProps(url, policy.providerBaseUrl)) return { kind: "provider", url: url.href, authorize: false };
  if (url.origin === safeOrigin(policy.appOrigin) && url.pathname === PROXY_PATH) {
    return { kind: "proxy", url: url.href };
  }
  return refused(`${url.origin}${url.pathname} is neither the provider base URL nor the app's ${PROXY_PATH}`);
}

/** True when `url` is the base URL itself or a path below it (segment-wise, same origin). */
export function isUnderBase(url: URL, baseUrl: string | null): boolean {
  if (baseUrl === null || baseUrl === "") return false;
  let base: URL;
  try {
    base = new URL(baseUrl);
  } catch {
    return false;
  }
  if (base.protocol !== "https:" && base.protocol !== "http:") return false;
  if (url.origin !== base.origin) return false;
  const basePath = base.pathname.replace(/\/+$/, "");
  return basePath === "" || url.pathname === basePath || url.pathname.startsWith(`${basePath}/`);
}

/** True when `url` is exactly `/props` beside a provider base URL that ends in `/v1` (no query). */
export function isServerProps(url: URL, baseUrl: string | null): boolean {
  if (!baseUrl || url.search !== "") return false;
  let base: URL;
  try {
    base = new URL(baseUrl);
  } catch {
    return false;
  }
  const root = base.pathname.replace(/\/+$/, "");
  if (!root.endsWith("/v1") || url.origin !== base.origin) return false;
  return url.pathname === `${root.slice(0, -"/v1".length)}/props`;
}

function parseUrl(raw: string, appOrigin: string): URL | null {
  try {
    // Relative URLs (e.g. "/api/proxy?url=...") resolve against the app's origin.
    return new URL(raw, safeOrigin(appOrigin) ?? undefined);
  } catch {
    return null;
  }
}

function safeOrigin(origin: string): string | null {
  try {
    return new URL(origin).origin;
  } catch {
    return null;
  }
}

function refused(reason: string): EgressDecision {
  return { kind: "refused", reason };
}
