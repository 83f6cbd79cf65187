/**
 * The runtime's wheels: the manifest (`/wheels/manifest.json`), every wheel fetched and checked against
 * its sha256, then put on Python's `sys.path` as it is. Python imports pure-Python wheels from the zip
 * file itself, with the bytecode each carries (scripts/precompile_wheels.mjs): nothing is unpacked
 * (unpacking took ~150 ms of every boot without a snapshot, and every boot from one after `ready`). Used
 * by the agent worker at boot and by the snapshot worker, which places the same wheels at the same paths:
 * a heap restored from a snapshot already has them on `sys.path`, and its zip importers find the same
 * bytes there again.
 */

import type { PyodideAPI } from "pyodide";
import { addToSysPath } from "./python-entry";

export interface Manifest {
  wheels: { file: string; sha256: string }[];
}

/** Where the wheels are placed (the same in every worker: a snapshot's `sys.path` names them). */
const WHEEL_DIR = "/lib/wheels";

export function fetchManifest(): Promise<Manifest> {
  return fetch("/wheels/manifest.json", { cache: "no-cache" }).then(async (response) => {
    if (!response.ok) throw new Error(`/wheels/manifest.json answered ${response.status}`);
    const manifest = (await response.json()) as Manifest;
    if (!Array.isArray(manifest.wheels) || manifest.wheels.length === 0) throw new Error("the wheel manifest is empty");
    return manifest;
  });
}

/** Fetch and check every wheel at once (they are HTTP-cached); each promise is marked handled. */
export function fetchWheels(manifest: Manifest): Promise<ArrayBuffer>[] {
  return manifest.wheels.map((wheel) => {
    const buffer = (async () => {
      const response = await fetch(`/wheels/${encodeURIComponent(wheel.file)}`);
      if (!response.ok) throw new Error(`/wheels/${wheel.file} answered ${response.status}`);
      const buf = await response.arrayBuffer();
      await checkDigest(wheel.file, buf, wheel.sha256);
      return buf;
    })();
    buffer.catch(() => undefined); // awaited (and reported) by placeWheels
    return buffer;
  });
}

/** Write each wheel into WHEEL_DIR and put it on `sys.path` (once), in manifest order. */
export async function placeWheels(
  pyodide: PyodideAPI,
  manifest: Manifest,
  buffers: Promise<ArrayBuffer>[],
): Promise<void> {
  const fs = pyodide.FS as { mkdirTree(path: string): void; writeFile(path: string, data: Uint8Array): void };
  fs.mkdirTree(WHEEL_DIR);
  const files: string[] = [];
  for (const [i, wheel] of manifest.wheels.entries()) {
    if (wheel.file.includes("/")) throw new Error(`the manifest names a wheel with a path: ${wheel.file}`);
    const buf = await buffers[i];
    if (!buf) throw new Error(`missing ${wheel.file}`);
    const file = `${WHEEL_DIR}/${wheel.file}`;
    fs.writeFile(file, new Uint8Array(buf));
    files.push(file);
  }
  addToSysPath(pyodide, files);
}

async function checkDigest(file: string, buf: ArrayBuffer, expected: string): Promise<void> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", buf));
  const hex = [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
  if (hex !== expected.toLowerCase()) throw new Error(`${file} does not match its sha256 in the manifest`);
}
