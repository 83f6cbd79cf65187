/**
 * Overlapping a backup's reads and writes within a memory bound: every OPFS or Blob call is a round trip
 * to the browser, and one file at a time left the page waiting on each in turn (docs/benchmarks.md,
 * issue 22). `readAhead` loads items ahead of their use, in order; `Window` keeps writes in flight.
 * Both hold at most `bytes` (one item over it runs alone) and `count` at a time.
 */

export interface Bound {
  bytes: number;
  count: number;
}

/** What a backup or a restore keeps in flight: reads ahead, and staged writes. */
export const IN_FLIGHT: Bound = { bytes: 16 * 1024 ** 2, count: 8 };

/** Each item with what `load` made of it, in order, with the next ones loading meanwhile. */
export async function* readAhead<T, R>(
  items: readonly T[],
  size: (item: T) => number,
  load: (item: T) => Promise<R>,
  bound: Bound,
): AsyncGenerator<[T, R]> {
  const loading: { item: T; bytes: number; result: Promise<R> }[] = [];
  let held = 0;
  let next = 0;
  try {
    while (next < items.length || loading.length) {
      while (
        next < items.length &&
        (loading.length === 0 || fits(held, loading.length, size(items[next] as T), bound))
      ) {
        const item = items[next++] as T;
        const result = load(item);
        result.catch(() => undefined); // awaited in its turn; not "unhandled" while it waits
        loading.push({ item, bytes: size(item), result });
        held += size(item);
      }
      const first = loading.shift() as (typeof loading)[number];
      held -= first.bytes;
      yield [first.item, await first.result];
    }
  } finally {
    loading.length = 0;
  }
}

/** Writes in flight; `add` waits for room, and the first failure is thrown by the next `add` or `drain`. */
export class Window {
  private readonly running = new Set<Promise<void>>();
  private held = 0;
  private failure: { error: unknown } | null = null;

  constructor(private readonly bound: Bound) {}

  async add(bytes: number, start: () => Promise<void>): Promise<void> {
    while (this.running.size && !fits(this.held, this.running.size, bytes, this.bound))
      await Promise.race(this.running);
    this.check();
    this.held += bytes;
    const run: Promise<void> = start()
      .catch((error: unknown) => {
        this.failure ??= { error };
      })
      .finally(() => {
        this.held -= bytes;
        this.running.delete(run);
      });
    this.running.add(run);
  }

  async drain(): Promise<void> {
    await this.settle();
    this.check();
  }

  /** Wait for every write in flight, failed or not (before what they wrote is removed). */
  async settle(): Promise<void> {
    while (this.running.size) await Promise.race(this.running);
  }

  private check(): void {
    if (this.failure) throw this.failure.error;
  }
}

function fits(held: number, count: number, bytes: number, bound: Bound): boolean {
  return count < bound.count && held + bytes <= bound.bytes;
}
