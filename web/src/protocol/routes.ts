/**
 * The app server's own routes that the page and the workers call (scripts/server/: the proxy route is
 * registered in proxy.py and admitted for the sandbox in access.py).
 */

/** `GET /api/proxy?url=…`: a public http(s) URL fetched by the server behind its SSRF guard. */
export const PROXY_PATH = "/api/proxy";
