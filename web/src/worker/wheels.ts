/**
 * The runtime's wheels: the manifest (`/wheels/manifest.json`), every wheel fetched and checked
 * against its sha256, and unpacked into Pyodide's site-packages. Used by the agent worker at boot
 * and by the snapshot worker, which installs the same wheels into a fresh Pyodide.
 */

import type { PyodideAPI } from "pyodide";
import { sitePackages } from "./python-entry";

export interface Manifest {
  /** `top_level`: the top-level modules a wheel holds (absent: any, so it is unpacked at any miss). */
  wheels: { file: string; sha256: string; top_level?: string[] }[];
}

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
    buffer.catch(() => undefined); // awaited (and reported) by installWheels
    return buffer;
  });
}

/** Unpack the wheels into site-packages, in manifest order; `progress` gets the fraction done. */
export async function installWheels(
  pyodide: PyodideAPI,
  manifest: Manifest,
  buffers: Promise<ArrayBuffer>[],
  progress: (fraction: number) => void = () => undefined,
): Promise<void> {
  const total = manifest.wheels.length;
  // Into site-packages explicitly: unpackArchive's default is the current directory.
  const extractDir = sitePackages(pyodide);
  for (const [i, wheel] of manifest.wheels.entries()) {
    progress(i / total);
    const buf = await buffers[i];
    if (!buf) throw new Error(`missing ${wheel.file}`);
    pyodide.unpackArchive(new Uint8Array(buf), "wheel", { extractDir });
  }
  progress(1);
}

/** The wheels of a boot from a snapshot, unpacked after `ready` one at a time, or when an import needs one. */
export interface LaterWheels {
  /** Unpack the next wheel; false when none is left. */
  next(): boolean;
  /** Unpack the wheels holding top-level module `name` not yet unpacked (synchronous: an import is waiting
   * for them); whether one was. */
  provide(name: string): boolean;
}

/** Wait for the wheels (fetched and checked) and answer their unpacking, for after `ready`. */
export async function unpackLater(
  pyodide: PyodideAPI,
  manifest: Manifest,
  buffers: Promise<ArrayBuffer>[],
): Promise<LaterWheels> {
  const extractDir = sitePackages(pyodide);
  const left = await Promise.all(
    manifest.wheels.map(async (wheel, i) => {
      const buf = await buffers[i];
      if (!buf) throw new Error(`missing ${wheel.file}`);
      return { bytes: new Uint8Array(buf), holds: wheel.top_level };
    }),
  );
  const unpack = (at: number): void => {
    const [wheel] = left.splice(at, 1);
    if (wheel) pyodide.unpackArchive(wheel.bytes, "wheel", { extractDir });
  };
  const next = (): boolean => {
    unpack(0);
    return left.length > 0;
  };
  const provide = (name: string): boolean => {
    let unpacked = false;
    for (let i = left.length - 1; i >= 0; i--)
      if (!left[i]?.holds || left[i]?.holds?.includes(name)) {
        unpack(i);
        unpacked = true;
      }
    return unpacked;
  };
  return { next, provide };
}

async function checkDigest(file: string, buf: ArrayBuffer, expected: string): Promise<void> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", buf));
  const hex = [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
  if (hex !== expected.toLowerCase()) throw new Error(`${file} does not match its sha256 in the manifest`);
}
