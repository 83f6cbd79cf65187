/**
 * The host side of a run's package install: the sandbox's micropip asks for an index page or a wheel,
 * and the runner fetches it here, through the app's /api/proxy (the one place the egress rule lets
 * anything but the provider go), so the proxy's rules apply: public http(s) addresses only, redirects
 * re-checked, a size and time limit. The sandbox itself never reaches an index.
 */

import { PROXY_PATH } from "../protocol/routes";
import { decideEgress } from "../worker/egress";
import type { FetchedBytes } from "./sandbox";

/** Fetch `url` (http or https) through `${origin}/api/proxy`; throws an Error saying why it failed. */
export async function fetchThroughProxy(origin: string, url: string, accept: string | null): Promise<FetchedBytes> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new Error(`not a URL: ${url.slice(0, 200)}`);
  }
  if (target.protocol !== "https:" && target.protocol !== "http:") throw new Error(`not an http(s) URL: ${url}`);
  const proxied = `${origin}${PROXY_PATH}?url=${encodeURIComponent(target.href)}`;
  const decision = decideEgress(proxied, "none", { providerBaseUrl: null, appOrigin: origin });
  if (decision.kind !== "proxy") throw new Error(`refused: ${decision.kind === "refused" ? decision.reason : url}`);
  const response = await fetch(decision.url, {
    headers: accept ? { Accept: accept } : {},
    credentials: "omit",
    cache: "no-store",
  });
  const body = await response.arrayBuffer();
  if (response.headers.get("X-Proxy-Error") !== null) throw new Error(`${url}: ${proxyMessage(body)}`);
  return { status: response.status, contentType: response.headers.get("Content-Type") ?? "", body };
}

function proxyMessage(body: ArrayBuffer): string {
  const text = new TextDecoder().decode(body);
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === "object" && parsed !== null && "message" in parsed) return String(parsed.message);
  } catch {
    // not JSON: the text itself
  }
  return text.slice(0, 300);
}
