/**
 * Whether the browser promised to keep this origin's data (`navigator.storage.persisted()`), how much
 * it holds and may hold (`estimate()`), and the one place the app asks for that promise
 * (`navigator.storage.persist()`). Browsers that grant it only at a user gesture (Firefox asks the
 * person; Chromium decides from the page's engagement) get the ask on the person's first click or key
 * press in the page, and again from the profile panel's button.
 */

export interface StorageFacts {
  persisted: boolean;
  usage: number;
  quota: number;
  /** False where the browser has no StorageManager (then nothing can be promised or measured). */
  supported: boolean;
}

/** The parts of `navigator.storage` used here (absent in old browsers and some embedded views). */
export interface StorageApi {
  persisted?(): Promise<boolean>;
  persist?(): Promise<boolean>;
  estimate?(): Promise<{ usage?: number; quota?: number }>;
}

const api = (): StorageApi | undefined => (typeof navigator === "undefined" ? undefined : navigator.storage);

export async function storageFacts(storage: StorageApi | undefined = api()): Promise<StorageFacts> {
  if (!storage?.estimate) return { persisted: false, usage: 0, quota: 0, supported: false };
  const [persisted, estimate] = await Promise.all([
    storage.persisted?.().catch(() => false) ?? Promise.resolve(false),
    storage.estimate().catch(() => ({ usage: 0, quota: 0 })),
  ]);
  return {
    persisted,
    usage: Math.round(estimate.usage ?? 0),
    quota: Math.round(estimate.quota ?? 0),
    supported: true,
  };
}

/** Ask the browser to keep the data; true when it promised (already, or now). Never throws. */
export async function askPersistence(storage: StorageApi | undefined = api()): Promise<boolean> {
  if (!storage?.persist) return false;
  try {
    if (await storage.persisted?.()) return true;
    return await storage.persist();
  } catch {
    return false;
  }
}

/** Ask once at the person's first gesture in the page (a click or a key press). */
export function askAtFirstGesture(target: EventTarget, ask: () => Promise<boolean> = () => askPersistence()): void {
  const once = (): void => {
    target.removeEventListener("pointerdown", once, true);
    target.removeEventListener("keydown", once, true);
    void ask();
  };
  target.addEventListener("pointerdown", once, true);
  target.addEventListener("keydown", once, true);
}

/** What the status line says: the promise, the use, and what to do without the promise. */
export function statusText(facts: StorageFacts): string {
  if (!facts.supported) return "This browser does not say how it keeps this page's data: back up regularly.";
  const used = `${formatBytes(facts.usage)} used of ${formatBytes(facts.quota)} available.`;
  if (facts.persisted) return `The browser promised to keep this data. ${used}`;
  return (
    `The browser may delete this data when the disk runs low (or, in Safari, after 7 days without a visit). ${used} ` +
    "To keep it: install the app (add it to the home screen), or allow storage when the browser asks, and back up."
  );
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit] as string}`;
}
