/**
 * What a request that got no answer says when the reason is that the app is offline (docs/offline.md):
 * its own server is gone (the app runs from its cache; web access, skill import by URL and anything else
 * through `/api/` need that server), or the device has no network at all (a provider such as OpenRouter
 * cannot be reached). Shared by the agent worker's HTTP (web_fetch, the provider) and the page (skill
 * import by URL).
 */

/** Why a request to `url` got no answer if it is because the app is offline, else null. */
export function offlineReason(url: string, appOrigin: string, deviceOnline: boolean): string | null {
  let target: URL;
  try {
    target = new URL(url, appOrigin);
  } catch {
    return null;
  }
  if (target.origin === appOrigin && target.pathname.startsWith("/api/")) {
    return (
      "the app is offline: its server does not answer (it runs from this browser's cache), and web access, " +
      "skill import by URL and the proxy need it. Start the app's server and try again."
    );
  }
  if (!deviceOnline)
    return `the app is offline: this device has no network connection, so ${target.origin} cannot be reached`;
  return null;
}
