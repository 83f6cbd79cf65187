/**
 * A network sandbox's grant: the token the app's /api/proxy admits that one sandbox's requests with
 * (they carry `Origin: null`, like those of any opaque-origin page on any site). The runner asks the
 * server for one per network sandbox (`POST /api/sandbox/grants`, which only the app's own pages may
 * call), hands it to that sandbox in `init`, and revokes it (`DELETE /api/sandbox/grants/<grant>`) the
 * moment the sandbox ends, so a grant the run's code read and sent away dies with the run.
 */

const GRANTS_PATH = "/api/sandbox/grants";

/** A new grant from the app's server; throws an Error saying why there is none. */
export async function mintGrant(origin: string): Promise<string> {
  let response: Response;
  try {
    response = await fetch(`${origin}${GRANTS_PATH}`, { method: "POST", credentials: "omit", cache: "no-store" });
  } catch (err) {
    throw new Error(`the network run could not get its grant: ${err instanceof Error ? err.message : String(err)}`, {
      cause: err,
    });
  }
  const body: unknown = await response.json().catch(() => null);
  const grant = typeof body === "object" && body !== null && "grant" in body ? body.grant : null;
  if (!response.ok || typeof grant !== "string" || grant === "") {
    throw new Error(`the network run could not get its grant: the server answered ${response.status}`);
  }
  return grant;
}

/** Revoke `grant` (the sandbox holding it has ended); never throws, and outlives the page's unload. */
export function revokeGrant(origin: string, grant: string): void {
  const url = `${origin}${GRANTS_PATH}/${encodeURIComponent(grant)}`;
  try {
    fetch(url, { method: "DELETE", credentials: "omit", keepalive: true }).catch(() => undefined);
  } catch {
    // no fetch at all (the page is going away): the grant expires on its own
  }
}
