/**
 * The one place the worker calls Python: `runtime/pyodide_entry.py`, typed (keep the two together),
 * and where site-packages is. No Python source is written in TypeScript: what to import before a
 * snapshot and how to check one are the entry's own functions.
 */

import type { PyodideAPI } from "pyodide";

/** Bytes in to the runtime (a Uint8Array, in any split). */
export type Feed = (bytes: Uint8Array) => void;

/** The functions of `runtime.pyodide_entry` the worker calls. */
export interface PyodideEntry {
  /** Import what a boot imports on its way to `ready` (before a memory snapshot is made). */
  warm_up(): unknown;
  /** Right after a snapshot is loaded: throws unless it holds what `warm_up` imports; reseeds `random`. */
  check_snapshot(): void;
  /**
   * From a snapshot: until `wheels_unpacked`, an import the snapshot cannot answer calls `unpack` with its
   * top-level name first (true: a wheel holding it was unpacked).
   */
  defer_wheels(unpack: (name: string) => boolean): void;
  /** The wheels are in site-packages (after `defer_wheels`). */
  wheels_unpacked(): void;
  /** Start the runtime; `write` receives its output frames. */
  start(write: (data: unknown) => void): Feed;
}

/**
 * The entry module. Right after a snapshot is loaded (before the wheels are unpacked again) this
 * throws unless the snapshot holds the module.
 */
export function pyodideEntry(pyodide: PyodideAPI): PyodideEntry {
  return pyodide.pyimport("runtime.pyodide_entry") as PyodideEntry;
}

/** Where wheels are unpacked (Python's purelib), asked of Python before any wheel is there. */
export function sitePackages(pyodide: PyodideAPI): string {
  const sysconfig = pyodide.pyimport("sysconfig") as unknown as { get_path(name: "purelib"): string };
  return String(sysconfig.get_path("purelib"));
}
