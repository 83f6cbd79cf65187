/** The shared codec vectors (tests/vectors/frames.json), loaded by the Python and TypeScript suites. */

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export interface EncodeVector {
  name: string;
  message: { type: string; [key: string]: unknown };
  frame_b64: string;
}

export type ExpectedItem =
  | { kind: "message"; message: Record<string, unknown> }
  | { kind: "stray"; data_b64: string }
  | { kind: "malformed"; code: string };

export interface DecodeVector {
  name: string;
  max_frame: number;
  input_b64: string;
  expect: ExpectedItem[];
}

const path = fileURLToPath(new URL("../../tests/vectors/frames.json", import.meta.url));
export const vectors = JSON.parse(readFileSync(path, "utf8")) as { encode: EncodeVector[]; decode: DecodeVector[] };

export const fromB64 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, "base64"));
export const toB64 = (b: Uint8Array): string => Buffer.from(b).toString("base64");
