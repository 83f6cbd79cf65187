/**
 * Tidepool's service worker (built to /sw.js, stamped with its build by scripts/offline_stamp.py; see
 * docs/offline.md). Installing it caches the whole build (offline-manifest.json: the shell, /assets/,
 * the Pyodide core, every wheel, each checked against its sha256) in a cache of that build's own; a
 * failed or partial fill fails the install, so the worker before it (and its cache) stays in charge.
 *
 * Answers: `/api/` and other origins pass untouched; a navigation goes to the network first and falls
 * back to the cached page; any other file of the app comes from this build's cache, or the network when
 * the cache does not have it (or is not complete). A page of another build from the network is not
 * served while this build is in charge (its unversioned files, /pyodide/ and /wheels/, would mix two
 * builds): the newer worker waits until the person reloads into it (`update-available` on the page).
 */

import {
  FROM_CACHE_HEADER,
  MANIFEST_PATH,
  buildOfPage,
  completeCache,
  dropOtherBuilds,
  fillCache,
  parseManifest,
  routeOf,
  type CacheLike,
} from "./cache";

interface ExtendableEvent extends Event {
  waitUntil(promise: Promise<unknown>): void;
}
/** A static routing rule (the Service Worker Static Routing API): requests it matches never reach this worker. */
interface RouterRule {
  condition: RouterCondition;
  source: "network";
}
type RouterCondition =
  { urlPattern: URLPatternInit } | { requestMethod: string } | { not: RouterCondition } | { or: RouterCondition[] };
interface URLPatternInit {
  protocol?: string;
  hostname?: string;
  port?: string;
  pathname?: string;
}
interface InstallEvent extends ExtendableEvent {
  addRoutes?(rules: RouterRule[]): Promise<void>;
}
interface FetchEvent extends ExtendableEvent {
  readonly request: Request;
  respondWith(response: Promise<Response>): void;
}
interface ServiceWorkerScope {
  readonly location: Location;
  skipWaiting(): Promise<void>;
  addEventListener(type: "install", listener: (event: InstallEvent) => void): void;
  addEventListener(type: "activate", listener: (event: ExtendableEvent) => void): void;
  addEventListener(type: "fetch", listener: (event: FetchEvent) => void): void;
  addEventListener(type: "message", listener: (event: MessageEvent<unknown>) => void): void;
}

const scope = self as unknown as ServiceWorkerScope;
// Replaced by scripts/offline_stamp.py with the build's id; a build that was never stamped caches nothing.
const BUILD = "tidepool-build:unstamped".slice("tidepool-build:".length);
const INDEX = "/index.html";

async function install(): Promise<void> {
  const response = await fetch(MANIFEST_PATH, { cache: "no-store" });
  if (!response.ok) throw new Error(`${MANIFEST_PATH} answered ${response.status}`);
  const manifest = parseManifest(await response.json());
  if (manifest === null) throw new Error(`${MANIFEST_PATH} is not a build manifest`);
  if (manifest.build !== BUILD) throw new Error(`the server has build ${manifest.build}, this worker is ${BUILD}`);
  await fillCache(caches, manifest, (path) => fetch(path, { cache: "no-cache", credentials: "same-origin" }));
}

async function answerPage(request: Request): Promise<Response> {
  const cache = await completeCache(caches, BUILD);
  let network: Response;
  try {
    network = await fetch(request);
  } catch (err) {
    const cached = await cache?.match(INDEX);
    if (cached) return cached;
    throw err;
  }
  if (!cache || !network.ok) return network;
  const page = await network.text();
  const build = buildOfPage(page);
  if (build !== null && build !== BUILD) return (await cache.match(INDEX)) ?? rebuilt(network, page);
  return rebuilt(network, page);
}

function rebuilt(response: Response, body: string): Response {
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

async function answerProbe(request: Request): Promise<Response> {
  try {
    return await fetch(request);
  } catch (err) {
    const cached = await (await completeCache(caches, BUILD))?.match(MANIFEST_PATH);
    if (!cached) throw err;
    const headers = new Headers(cached.headers);
    headers.set(FROM_CACHE_HEADER, "1");
    return new Response(cached.body, { status: cached.status, headers });
  }
}

async function answerFile(request: Request, url: URL): Promise<Response> {
  let cache: CacheLike | null = null;
  try {
    cache = await completeCache(caches, BUILD);
  } catch {
    // Cache Storage itself failed (evicted, broken): the network answers.
  }
  const cached = await cache?.match(url.pathname + url.search).catch(() => undefined);
  return cached ?? fetch(request);
}

/**
 * What `routeOf` passes untouched — other origins, anything but GET, `/api/` — goes straight to the network
 * without waking this worker: a provider's request is on the path to the first token, and a worker stopped
 * while the person typed costs its start-up (~8 ms here) before the request may leave. A browser without
 * static routing dispatches those to the fetch handler, which lets them pass as before. Chromium does not
 * apply the routes to a dedicated worker's requests (the agent worker's): page.ts wakes the worker ahead.
 */
async function addPassRoutes(event: InstallEvent): Promise<void> {
  if (!event.addRoutes) return;
  const { protocol, hostname, port } = scope.location;
  const here: RouterCondition = { urlPattern: { protocol: protocol.slice(0, -1), hostname, port } };
  const pass: RouterCondition = {
    or: [
      { not: here },
      { not: { requestMethod: "GET" } },
      { urlPattern: { pathname: "/api" } },
      { urlPattern: { pathname: "/api/*" } },
    ],
  };
  try {
    // A browser that knows some conditions but not these may throw at once or reject: either way the
    // install goes on, and the fetch handler passes what the routes would have.
    await event.addRoutes([{ condition: pass, source: "network" }]);
  } catch (err) {
    console.warn(`service worker: static routes refused (${String(err)}); the fetch handler passes them`);
  }
}

scope.addEventListener("install", (event) => event.waitUntil(Promise.all([addPassRoutes(event), install()])));
scope.addEventListener("activate", (event) => event.waitUntil(dropOtherBuilds(caches, BUILD)));
// `wake` (page.ts, while the person types) needs no answer: the event itself starts the worker.
scope.addEventListener("message", (event) => {
  if ((event.data as { type?: unknown } | null)?.type === "skip-waiting") void scope.skipWaiting();
});
scope.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  const route = routeOf(url, scope.location.origin, event.request.method, event.request.mode);
  if (route === "page") event.respondWith(answerPage(event.request));
  else if (route === "probe") event.respondWith(answerProbe(event.request));
  else if (route === "file") event.respondWith(answerFile(event.request, url));
});
