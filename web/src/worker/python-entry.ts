/**
 * The one place the worker calls Python: `runtime/pyodide_entry.py`, typed (keep the two together).
 * No Python source is written in TypeScript: what to import before a snapshot and how to check one
 * are the entry's own functions.
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
  /** Start the runtime; `write` receives its output frames. */
  start(write: (data: unknown) => void): Feed;
}

/**
 * The entry module. Right after a snapshot is loaded (before the wheels are placed again) this
 * throws unless the snapshot holds the module.
 */
export function pyodideEntry(pyodide: PyodideAPI): PyodideEntry {
  return pyodide.pyimport("runtime.pyodide_entry") as PyodideEntry;
}

/** Put `paths` at the end of Python's `sys.path`, each once (the wheels, as zip files: wheels.ts). */
export function addToSysPath(pyodide: PyodideAPI, paths: readonly string[]): void {
  const sys = pyodide.pyimport("sys") as unknown as { path: PythonList; destroy(): void };
  const path = sys.path;
  try {
    const listed = new Set(path.toJs());
    for (const entry of paths) if (!listed.has(entry)) path.append(entry);
  } finally {
    path.destroy();
    sys.destroy();
  }
}

/** The parts of a Python list's proxy used here. */
interface PythonList {
  toJs(): string[];
  append(item: string): void;
  destroy(): void;
}
