/**
 * The page's side of working offline (docs/offline.md): registers the service worker (sw.ts) once the
 * runtime is `ready`, so caching the build never competes with a boot; shows `offline-status` (running
 * from the cache with no server, and the bytes cached) and `update-available` when a newer build's worker
 * has cached everything and waits; `update-reload` hands over to it and reloads. Also the browser's
 * install prompt, where it offers one. And it keeps the worker awake while the person types (`wakeWhileTyping`).
 */

import { FROM_CACHE_HEADER, MANIFEST_PATH, buildOfPage, cachedBytes } from "./cache";
import { formatBytes } from "../profile/storage-status";
import { byTestId } from "../ui/common/dom";

interface InstallPrompt extends Event {
  prompt(): Promise<void>;
}

export function startOffline(whenReady: () => Promise<void>): void {
  const status = byTestId("offline-status");
  const build = buildOfPage(document.head.innerHTML);
  const refresh = (): Promise<void> => showStatus(status, build);
  offerInstall();
  if (!("serviceWorker" in navigator) || build === null) return;
  window.addEventListener("online", () => void refresh());
  window.addEventListener("offline", () => void refresh());
  void refresh();
  wakeWhileTyping();
  void whenReady()
    .then(() => navigator.serviceWorker.register("/sw.js", { type: "module", scope: "/", updateViaCache: "none" }))
    // `register` resolves with nothing where the browser is told to block service workers (test browsers).
    .then((registration: ServiceWorkerRegistration | undefined) => registration && watch(registration, refresh))
    .catch((err: unknown) => console.warn(`[offline] the service worker was not registered: ${String(err)}`));
}

function watch(registration: ServiceWorkerRegistration, refresh: () => Promise<void>): void {
  const offer = (worker: ServiceWorker | null): void => {
    if (worker && navigator.serviceWorker.controller) showUpdate(worker);
  };
  offer(registration.waiting);
  registration.addEventListener("updatefound", () => {
    const worker = registration.installing;
    worker?.addEventListener("statechange", () => {
      if (worker.state === "installed") offer(worker);
      if (worker.state === "activated") void refresh();
    });
  });
  void refresh();
}

const WAKE_EVERY_MS = 10_000;

/**
 * Chromium stops a service worker after ~30 s without events, and the agent worker's requests (the
 * provider's, above all) wake it even though they only pass: static routes (sw.ts) spare the page's own
 * requests but not a dedicated worker's. A Send after a minute of typing would wait for its start-up
 * (~8 ms here) before the request leaves, so typing sends it a message, at most one per 10 s, and Send
 * finds it running.
 */
function wakeWhileTyping(): void {
  let last = -Infinity;
  document.addEventListener(
    "input",
    () => {
      const worker = navigator.serviceWorker.controller;
      if (!worker || performance.now() - last < WAKE_EVERY_MS) return;
      last = performance.now();
      worker.postMessage({ type: "wake" });
    },
    { capture: true, passive: true },
  );
}

function showUpdate(worker: ServiceWorker): void {
  const banner = byTestId("update-available");
  banner.hidden = false;
  byTestId<HTMLButtonElement>("update-reload").onclick = () => {
    navigator.serviceWorker.addEventListener("controllerchange", () => location.reload(), { once: true });
    worker.postMessage({ type: "skip-waiting" });
  };
}

async function showStatus(status: HTMLElement, build: string | null): Promise<void> {
  let offline: boolean;
  try {
    const probe = await fetch(MANIFEST_PATH, { cache: "no-store" });
    offline = probe.headers.get(FROM_CACHE_HEADER) === "1";
  } catch {
    offline = true; // not even the service worker answered: the server is gone and nothing is cached yet
  }
  const cached = build === null ? 0 : await cachedBytes(caches, build).catch(() => 0);
  status.dataset.offline = String(offline);
  status.dataset.cached = String(cached);
  status.hidden = !offline && cached === 0;
  const size = formatBytes(cached);
  const long = offline ? `Offline: running from its cache (${size})` : `Works offline (${size} cached)`;
  // A narrower window shows the short form (phone.css), and nothing while the server answers.
  status.replaceChildren(
    Object.assign(document.createElement("span"), { className: "offline-long", textContent: long }),
    Object.assign(document.createElement("span"), { className: "offline-short", textContent: "Offline" }),
  );
  status.title = offline
    ? `${long}. The app's server does not answer: the app runs from what this browser cached. Web access, skill import by URL and OpenRouter need it.`
    : `${long}: this build is cached in the browser, so the app starts even when its server is not running.`;
}

function offerInstall(): void {
  const button = document.querySelector<HTMLButtonElement>(".install-app");
  if (!button) return;
  window.addEventListener("beforeinstallprompt", (event) => {
    event.preventDefault();
    button.hidden = false;
    button.onclick = () => {
      button.hidden = true;
      void (event as InstallPrompt).prompt();
    };
  });
}
