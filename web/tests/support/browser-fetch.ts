/**
 * A browser's CORS rules over the real network, for tests in Node (whose fetch applies none): the real
 * preflight (OPTIONS) first where one is due, then the real request, refused with the browser's
 * `TypeError` when the server's CORS headers do not allow it; only exposed headers are visible.
 * Enough of the rules for the doctor's requests.
 */

const SAFE = new Set(["accept", "accept-language", "content-language"]);

export function browserFetch(page: string, base: typeof fetch = fetch): typeof fetch {
  const fetch = base; // the network's, even when the global is this stand-in
  return async (input, init = {}) => {
    const url = String(input instanceof Request ? input.url : input);
    if (init.mode === "no-cors") return await fetch(url, { method: "GET", signal: init.signal });
    const headers = new Headers(init.headers);
    const method = init.method ?? "GET";
    const custom = [...headers.keys()].filter(
      (h) => !SAFE.has(h) && !(h === "content-type" && headers.get(h) === "text/plain"),
    );
    if (custom.length || !["GET", "HEAD", "POST"].includes(method)) {
      const preflight = await fetch(url, {
        method: "OPTIONS",
        headers: {
          Origin: page,
          "Access-Control-Request-Method": method,
          "Access-Control-Request-Headers": custom.join(","),
        },
      });
      const allowed = (preflight.headers.get("Access-Control-Allow-Headers") ?? "").toLowerCase().split(/\s*,\s*/);
      if (
        !preflight.ok ||
        !preflight.headers.get("Access-Control-Allow-Origin") ||
        custom.some((h) => !allowed.includes(h) && !allowed.includes("*"))
      ) {
        throw new TypeError("Failed to fetch");
      }
    }
    headers.set("Origin", page);
    const response = await fetch(url, { ...init, headers, mode: undefined, redirect: "manual" });
    if (!response.headers.get("Access-Control-Allow-Origin")) throw new TypeError("Failed to fetch");
    const exposed = (response.headers.get("Access-Control-Expose-Headers") ?? "").toLowerCase().split(/\s*,\s*/);
    const visible = new Headers([...response.headers].filter(([h]) => h === "content-type" || exposed.includes(h)));
    return new Response(response.body, { status: response.status, headers: visible });
  };
}
