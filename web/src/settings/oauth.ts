/**
 * "Connect with OpenRouter": OAuth PKCE (S256). The verifier waits in sessionStorage across the
 * redirect; on return with `?code=` it is exchanged for a key at `{authBase}/api/v1/auth/keys`.
 */

const VERIFIER_KEY = "tidepool.pkce.verifier";
const AUTH_BASE_KEY = "tidepool.pkce.authBase";

export type OAuthReturn = { kind: "none" } | { kind: "key"; key: string } | { kind: "error"; message: string };

export function base64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function makeVerifier(): string {
  return base64Url(crypto.getRandomValues(new Uint8Array(32)));
}

export async function s256Challenge(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return base64Url(new Uint8Array(digest));
}

/** This page without its query and fragment: where the auth server sends the person back. */
export function callbackUrl(loc: Location = window.location): string {
  return `${loc.origin}${loc.pathname}`;
}

export function trimBase(url: string): string {
  return url.trim().replace(/\/+$/, "");
}

/** Start the flow: remember the verifier, then leave for the auth page. */
export async function startOAuth(authBase: string): Promise<void> {
  const verifier = makeVerifier();
  sessionStorage.setItem(VERIFIER_KEY, verifier);
  sessionStorage.setItem(AUTH_BASE_KEY, trimBase(authBase));
  const params = new URLSearchParams({
    callback_url: callbackUrl(),
    code_challenge: await s256Challenge(verifier),
    code_challenge_method: "S256",
  });
  window.location.assign(`${trimBase(authBase)}/auth?${params.toString()}`);
}

/** If the page was opened with `?code=`, exchange it for a key and clean the address bar. */
export async function finishOAuth(fallbackAuthBase: string): Promise<OAuthReturn> {
  const url = new URL(window.location.href);
  const code = url.searchParams.get("code");
  if (!code) return { kind: "none" };
  url.searchParams.delete("code");
  history.replaceState(null, "", url.pathname + (url.search === "?" ? "" : url.search) + url.hash);
  const verifier = sessionStorage.getItem(VERIFIER_KEY);
  const authBase = sessionStorage.getItem(AUTH_BASE_KEY) ?? trimBase(fallbackAuthBase);
  sessionStorage.removeItem(VERIFIER_KEY);
  sessionStorage.removeItem(AUTH_BASE_KEY);
  if (!verifier) return { kind: "error", message: "sign-in expired (no PKCE verifier in this tab): connect again" };
  try {
    const response = await fetch(`${authBase}/api/v1/auth/keys`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ code, code_verifier: verifier, code_challenge_method: "S256" }),
      credentials: "omit",
    });
    if (!response.ok)
      return { kind: "error", message: `OpenRouter refused the sign-in code (HTTP ${response.status})` };
    const body: unknown = await response.json();
    const key = typeof body === "object" && body !== null ? (body as Record<string, unknown>).key : undefined;
    if (typeof key !== "string" || key === "") return { kind: "error", message: "OpenRouter's answer had no key" };
    return { kind: "key", key };
  } catch (err) {
    return { kind: "error", message: `could not reach ${authBase} to finish sign-in (${String(err)})` };
  }
}
