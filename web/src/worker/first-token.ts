/**
 * The first-token hold: while a model request waits for its first token, state saves wait too (at most a
 * bound), so SQLite's writes never hold the response the person is watching for. Measured with and
 * without it on an on-disk profile (docs/benchmarks.md, issue 20): without it the first token came later
 * in every run, so it stays.
 */

export class FirstTokenHold {
  private readonly awaiting = new Set<string>(); // provider requests before their first token
  private waiters: (() => void)[] = [];

  /** Provider request `id` went out: it waits for its first token. */
  requested(id: string): void {
    this.awaiting.add(id);
  }

  get holding(): boolean {
    return this.awaiting.size > 0;
  }

  /** A token (any event of the turn) arrived (`id` null), or request `id` ended: held saves may run. */
  arrived(id: string | null): void {
    if (id === null) this.awaiting.clear();
    else this.awaiting.delete(id);
    if (this.awaiting.size > 0) return;
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  /** Resolves once no model request waits for its first token (or after `maxMs`). */
  released(maxMs: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, maxMs);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.waiters.push(done);
    });
  }
}
