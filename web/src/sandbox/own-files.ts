/**
 * The app's own files a sandbox may ask the host for when it cannot fetch them itself: with the app's
 * server gone, the page's service worker answers the app's requests from its cache, but the sandbox is
 * an opaque-origin worker that no service worker controls, so its own fetches of /pyodide/ and
 * /wheels/sandbox/ fail (docs/offline.md). It then asks for them by path (`fetch_own`), and the host,
 * which the service worker does serve, fetches exactly those two folders' files and hands the bytes over.
 */

/** A file of /pyodide/ or /wheels/sandbox/ (one name, no folders below): all a sandbox ever asks for. */
const OWN_PATH = /^\/(pyodide|wheels\/sandbox)\/[A-Za-z0-9._+%-]+$/;
/** More than the Pyodide core and every sandbox wheel together. */
export const MAX_OWN_FETCHES = 64;

export interface OwnFile {
  status: number;
  contentType: string;
  body: ArrayBuffer;
}

export function isOwnPath(path: string): boolean {
  return OWN_PATH.test(path) && !path.includes("..");
}

/** Fetch `path` (checked with `isOwnPath`) from the app; throws with a message when it is refused or fails. */
export async function fetchOwnFile(origin: string, path: string): Promise<OwnFile> {
  if (!isOwnPath(path)) throw new Error(`the sandbox may read only /pyodide/ and /wheels/sandbox/, not ${path}`);
  const response = await fetch(origin + path, { credentials: "same-origin" });
  if (!response.ok) throw new Error(`${path} answered ${response.status}`);
  return {
    status: response.status,
    contentType: response.headers.get("Content-Type") ?? "application/octet-stream",
    body: await response.arrayBuffer(),
  };
}
